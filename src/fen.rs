//! Parsing FENs that people and programs send, with errors that say what is wrong.
//!
//! Leniency: a FEN with only the board part gets ` w - - 0 1`; missing clocks
//! get `0 1`. Everything else must be exact. Malformed text is a
//! [`FenError::Malformed`]; a well-formed FEN whose position cannot occur in a
//! game is a [`FenError::Impossible`].

use cozy_chess::{Board, FenParseError};

/// Why a FEN was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("malformed FEN: {0}")]
    Malformed(String),
    #[error("impossible position: {0}")]
    Impossible(String),
}

/// Longest FEN accepted; real ones are under 100 characters.
const MAX_LEN: usize = 128;

/// Parses a FEN (standard chess), checking that the position is possible.
pub fn parse_fen(text: &str) -> Result<Board, FenError> {
    let text = text.trim();
    if text.len() > MAX_LEN {
        return Err(FenError::Malformed(format!(
            "longer than {MAX_LEN} characters"
        )));
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let full = match fields.len() {
        0 => return Err(FenError::Malformed("empty".into())),
        1 => format!("{} w - - 0 1", fields[0]),
        4 => format!("{} 0 1", fields.join(" ")),
        6 => fields.join(" "),
        n => {
            return Err(FenError::Malformed(format!(
                "{n} fields; expected 1, 4 or 6"
            )))
        }
    };
    let squares = parse_board(fields[0])?;
    check_placement(&squares)?;
    full.parse::<Board>().map_err(|err| match err {
        FenParseError::InvalidBoard => FenError::Impossible(
            "the side not to move is in check, or the checks cannot have arisen".into(),
        ),
        FenParseError::InvalidSideToMove => {
            FenError::Malformed("side to move must be w or b".into())
        }
        FenParseError::InvalidCastlingRights => {
            FenError::Impossible("castling rights do not match the kings and rooks".into())
        }
        FenParseError::InvalidEnPassant => {
            FenError::Impossible("impossible en-passant square".into())
        }
        FenParseError::InvalidHalfMoveClock => FenError::Malformed("bad halfmove clock".into()),
        FenParseError::InvalidFullmoveNumber => FenError::Malformed("bad fullmove number".into()),
        FenParseError::MissingField | FenParseError::TooManyFields => {
            FenError::Malformed("wrong number of fields".into())
        }
    })
}

/// The 64 squares of a board field, a8 first, `None` for empty.
fn parse_board(board: &str) -> Result<Vec<Option<char>>, FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::Malformed(format!(
            "{} ranks; expected 8",
            ranks.len()
        )));
    }
    let mut squares = Vec::with_capacity(64);
    for (i, rank) in ranks.iter().enumerate() {
        let mut width = 0;
        for c in rank.chars() {
            match c {
                '1'..='8' => {
                    let n = c.to_digit(10).expect("digit") as usize;
                    width += n;
                    squares.extend(std::iter::repeat_n(None, n));
                }
                'p' | 'n' | 'b' | 'r' | 'q' | 'k' | 'P' | 'N' | 'B' | 'R' | 'Q' | 'K' => {
                    width += 1;
                    squares.push(Some(c));
                }
                other => {
                    return Err(FenError::Malformed(format!(
                        "unexpected {other:?} in the board"
                    )))
                }
            }
        }
        if width != 8 {
            return Err(FenError::Malformed(format!(
                "rank {} has {width} squares; expected 8",
                8 - i
            )));
        }
    }
    Ok(squares)
}

/// Kings and pawns that no game can produce.
fn check_placement(squares: &[Option<char>]) -> Result<(), FenError> {
    match placement_problems(squares).into_iter().next() {
        Some(problem) => Err(FenError::Impossible(problem)),
        None => Ok(()),
    }
}

/// Every king-count and back-rank-pawn problem of 64 squares (a8 first,
/// `None` for empty), described for people; empty when there is none.
pub fn placement_problems(squares: &[Option<char>]) -> Vec<String> {
    let mut problems = Vec::new();
    for (king, side) in [('K', "white"), ('k', "black")] {
        let count = squares.iter().filter(|s| **s == Some(king)).count();
        if count != 1 {
            problems.push(format!("{side} has {count} kings; expected 1"));
        }
    }
    let back_rank_pawns: Vec<String> = squares
        .iter()
        .enumerate()
        .filter(|(i, s)| !(8..56).contains(i) && matches!(s, Some('P' | 'p')))
        .map(|(i, _)| format!("{}{}", (b'a' + (i % 8) as u8) as char, 8 - i / 8))
        .collect();
    if !back_rank_pawns.is_empty() {
        problems.push(format!(
            "pawns on the first or last rank: {}",
            back_rank_pawns.join(", ")
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_full_and_short_fens() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert!(parse_fen(&format!("{start} w KQkq - 0 1")).is_ok());
        assert!(parse_fen(start).is_ok());
        assert!(parse_fen(&format!("{start} b KQkq -")).is_ok());
    }

    #[test]
    fn refuses_malformed_fens() {
        for bad in [
            "",
            "hello",
            "8/8/8/8/8/8/8 w - - 0 1",
            "9/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2X w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0",
        ] {
            assert!(
                matches!(parse_fen(bad), Err(FenError::Malformed(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            parse_fen(&"8/".repeat(100)),
            Err(FenError::Malformed(_))
        ));
    }

    #[test]
    fn refuses_impossible_positions() {
        for bad in [
            "8/8/8/8/8/8/8/8 w - - 0 1",       // no kings
            "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",  // two white kings
            "k1k5/8/8/8/8/8/8/4K3 w - - 0 1",  // two black kings
            "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",  // pawn on the last rank
            "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", // Black in check, White to move
            "4k3/8/8/8/8/8/8/4K3 w KQ - 0 1",  // castling without rooks
        ] {
            assert!(
                matches!(parse_fen(bad), Err(FenError::Impossible(_))),
                "{bad:?}"
            );
        }
        assert!(parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").is_ok());
    }
}
