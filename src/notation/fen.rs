//! Lenient FEN reading.
//!
//! Accepts standard FEN, X-FEN and Shredder-FEN castling fields, and FENs
//! with the halfmove clock and fullmove number missing (as in EPD), which
//! default to `0 1`. Surrounding whitespace is ignored.

use cozy_chess::Board;

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// Not 4 to 6 space-separated fields.
    #[error("expected 4 to 6 fen fields, found {0}")]
    FieldCount(usize),
    /// The fields do not describe a valid position.
    #[error("invalid fen")]
    Invalid,
}

/// Parses a FEN, filling in a missing halfmove clock and fullmove number.
pub fn parse_fen(text: &str) -> Result<Board, ParseFenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let full = match fields.len() {
        4 => format!("{} 0 1", fields.join(" ")),
        5 => format!("{} 1", fields.join(" ")),
        6 => fields.join(" "),
        n => return Err(ParseFenError::FieldCount(n)),
    };
    full.parse().map_err(|_| ParseFenError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_short_and_shredder_fens() {
        let board = parse_fen(" rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ").unwrap();
        assert_eq!(board, Board::default());
        assert!(
            parse_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").is_ok()
        );
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(parse_fen("8/8 w"), Err(ParseFenError::FieldCount(2)));
        assert_eq!(
            parse_fen("8/8/8/8/8/8/8/8 w - - 0 1"),
            Err(ParseFenError::Invalid)
        );
    }
}
