//! SAN and UCI move notation, moves in the reader's language ([`lang`]),
//! the lenient move reader ([`parse`]) and lenient FEN reading on top of
//! cozy-chess, and the Seven Tag Roster of PGN ([`pgn`]).
//!
//! cozy-chess encodes castling as "king takes own rook"; both writers here
//! translate that into the conventional forms (`O-O`, `e1g1`).

pub mod fen;
pub mod lang;
pub mod parse;
pub mod pgn;
pub mod san;
pub mod uci;

use cozy_chess::{Board, File, Move, Piece, Square};

/// True when `mv` is a castling move in cozy-chess's king-takes-rook encoding.
pub fn is_castling(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::King)
        && board.color_on(mv.to) == Some(board.side_to_move())
}

/// Where `mv` lands as standard chess writes it: for castling the king's
/// square (g- or c-file), not the rook's square cozy-chess encodes.
pub fn conventional_to(board: &Board, mv: Move) -> Square {
    if !is_castling(board, mv) {
        return mv.to;
    }
    let file = if mv.to.file() > mv.from.file() {
        File::G
    } else {
        File::C
    };
    Square::new(file, mv.from.rank())
}

/// Lowercase letter of a promotion piece, as UCI writes it.
pub(crate) fn piece_char_lower(piece: Piece) -> char {
    match piece {
        Piece::Pawn => 'p',
        Piece::Knight => 'n',
        Piece::Bishop => 'b',
        Piece::Rook => 'r',
        Piece::Queen => 'q',
        Piece::King => 'k',
    }
}
