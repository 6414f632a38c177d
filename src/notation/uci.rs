//! UCI long algebraic notation (`e2e4`, `e7e8q`).
//!
//! In standard mode castling is written as the king's two-square move
//! (`e1g1`); in Chess960 mode as king-takes-rook (`e1h1`), which is also
//! cozy-chess's internal encoding. The parser accepts the king-takes-rook
//! form in both modes.

use cozy_chess::{Board, File, Move, Piece, Square};

use super::{conventional_to, piece_char_lower};

/// Why a UCI move string was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// The text is not of the form `<from><to>[promotion]`.
    #[error("invalid uci move syntax")]
    InvalidSyntax,
    /// The move is well formed but not legal in the position.
    #[error("illegal move")]
    IllegalMove,
}

/// Writes `mv` in UCI notation.
pub fn move_to_uci(board: &Board, mv: Move, chess960: bool) -> String {
    let to = if chess960 {
        mv.to
    } else {
        conventional_to(board, mv)
    };
    let mut s = format!("{}{}", mv.from, to);
    if let Some(promo) = mv.promotion {
        s.push(piece_char_lower(promo));
    }
    s
}

/// Writes a line of moves from `board` in UCI notation, space-separated.
pub fn line_to_uci(board: &Board, moves: &[Move], chess960: bool) -> String {
    let mut board = board.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        out.push(move_to_uci(&board, mv, chess960));
        board.play_unchecked(mv);
    }
    out.join(" ")
}

/// Parses a UCI move (four ASCII characters, five with a promotion) and
/// checks that it is legal on `board`. Anything longer is refused: cozy-chess
/// alone would read the first move of `e7e8qq`.
pub fn parse_uci_move(board: &Board, s: &str, chess960: bool) -> Result<Move, ParseMoveError> {
    if !(4..=5).contains(&s.len()) || !s.is_ascii() {
        return Err(ParseMoveError::InvalidSyntax);
    }
    let mv: Move = s.parse().map_err(|_| ParseMoveError::InvalidSyntax)?;
    if board.is_legal(mv) {
        return Ok(mv);
    }
    if !chess960 {
        if let Some(castle) = standard_castling(board, mv) {
            if board.is_legal(castle) {
                return Ok(castle);
            }
        }
    }
    Err(ParseMoveError::IllegalMove)
}

/// Maps a standard-notation castling move (`e1g1`) to king-takes-rook form.
fn standard_castling(board: &Board, mv: Move) -> Option<Move> {
    let stm = board.side_to_move();
    if board.piece_on(mv.from) != Some(Piece::King)
        || board.color_on(mv.from) != Some(stm)
        || mv.from.rank() != mv.to.rank()
        || mv.promotion.is_some()
    {
        return None;
    }
    let rights = board.castle_rights(stm);
    let rook_file = match (mv.from.file(), mv.to.file()) {
        (File::E, File::G) => rights.short?,
        (File::E, File::C) => rights.long?,
        _ => return None,
    };
    Some(Move {
        from: mv.from,
        to: Square::new(rook_file, mv.from.rank()),
        promotion: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASTLE: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

    #[test]
    fn castling_round_trip_standard() {
        let board: Board = CASTLE.parse().unwrap();
        let mv = parse_uci_move(&board, "e1g1", false).unwrap();
        assert_eq!(mv.to, Square::H1);
        assert_eq!(move_to_uci(&board, mv, false), "e1g1");
        assert_eq!(move_to_uci(&board, mv, true), "e1h1");
        let long = parse_uci_move(&board, "e1c1", false).unwrap();
        assert_eq!(long.to, Square::A1);
        assert_eq!(move_to_uci(&board, long, false), "e1c1");
    }

    #[test]
    fn chess960_castling_uses_king_takes_rook() {
        let board: Board = CASTLE.parse().unwrap();
        assert_eq!(
            parse_uci_move(&board, "e1g1", true),
            Err(ParseMoveError::IllegalMove)
        );
        let mv = parse_uci_move(&board, "e1h1", true).unwrap();
        assert_eq!(move_to_uci(&board, mv, true), "e1h1");
    }

    #[test]
    fn promotion_letters() {
        let board: Board = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let mv = parse_uci_move(&board, "a7a8n", false).unwrap();
        assert_eq!(mv.promotion, Some(Piece::Knight));
        assert_eq!(move_to_uci(&board, mv, false), "a7a8n");
    }

    #[test]
    fn errors() {
        let board = Board::default();
        assert_eq!(
            parse_uci_move(&board, "e2", false),
            Err(ParseMoveError::InvalidSyntax)
        );
        assert_eq!(
            parse_uci_move(&board, "e2e5", false),
            Err(ParseMoveError::IllegalMove)
        );
        // Trailing junk after a legal move, and non-ASCII text.
        for junk in ["e2e4x", "e2e4qq", "e2e4\u{fffd}", "e2e4 ", "é2e4"] {
            assert_eq!(
                parse_uci_move(&board, junk, false),
                Err(ParseMoveError::InvalidSyntax),
                "{junk:?}"
            );
        }
        let board: Board = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
        assert_eq!(
            parse_uci_move(&board, "a7a8qq", false),
            Err(ParseMoveError::InvalidSyntax)
        );
    }
}
