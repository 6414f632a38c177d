//! SAN and UCI move notation, moves in the reader's language ([`lang`]),
//! the lenient move reader ([`parse`]) and lenient FEN reading on top of
//! cozy-chess.
//!
//! cozy-chess encodes castling as "king takes own rook"; both writers here
//! translate that into the conventional forms (`O-O`, `e1g1`).

pub mod fen;
pub mod lang;
pub mod parse;
pub mod san;
pub mod uci;

use cozy_chess::{Board, Move, Piece};

/// True when `mv` is a castling move in cozy-chess's king-takes-rook encoding.
pub fn is_castling(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::King)
        && board.color_on(mv.to) == Some(board.side_to_move())
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
