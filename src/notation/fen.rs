//! The one FEN reader, for the CLI, the API, batch, `uci` and recognition.
//!
//! Leniency rules:
//! - surrounding whitespace is ignored and fields may be separated by any
//!   run of whitespace;
//! - 1 field (the board alone): White to move, no castling rights, no
//!   en-passant square, clocks `0 1`;
//! - 4 fields (as in EPD): clocks `0 1`;
//! - 5 fields: fullmove number `1`;
//! - 6 fields: as given;
//! - castling may be written as in standard FEN, X-FEN or Shredder-FEN.
//!
//! Anything else is refused: other field counts, more than 128 characters,
//! malformed fields ([`FenError`]'s malformed variants), and well-formed FENs
//! of positions that cannot arise in a game ([`FenError::Impossible`], judged
//! by [`crate::legality`], the same rules recognition repairs by).

use cozy_chess::{Board, Color};

use crate::legality::{self, Impossibility};

/// Longest FEN accepted; real ones are under 100 characters.
pub const MAX_LEN: usize = 128;

/// Why a FEN was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("malformed FEN: empty")]
    Empty,
    #[error("malformed FEN: longer than {MAX_LEN} characters")]
    TooLong,
    #[error("malformed FEN: {0} fields; expected 1, 4, 5 or 6")]
    FieldCount(usize),
    #[error("malformed FEN: {0} ranks; expected 8")]
    RankCount(usize),
    #[error("malformed FEN: rank {rank} has {squares} squares; expected 8")]
    RankWidth { rank: usize, squares: usize },
    #[error("malformed FEN: unexpected {0:?} in the board")]
    BoardCharacter(char),
    #[error("malformed FEN: side to move must be w or b")]
    SideToMove,
    #[error("malformed FEN: bad castling field")]
    CastlingField,
    #[error("malformed FEN: bad en-passant field")]
    EnPassantField,
    #[error("malformed FEN: bad halfmove clock")]
    HalfmoveClock,
    #[error("malformed FEN: bad fullmove number")]
    FullmoveNumber,
    #[error("impossible position: {}", legality::describe(.0))]
    Impossible(Vec<Impossibility>),
}

impl FenError {
    /// Whether the FEN was well-formed but its position impossible.
    pub fn is_impossible(&self) -> bool {
        matches!(self, FenError::Impossible(_))
    }
}

/// Parses a FEN by the leniency rules above, checking that the position can
/// arise in a game.
pub fn parse_fen(text: &str) -> Result<Board, FenError> {
    let text = text.trim();
    if text.len() > MAX_LEN {
        return Err(FenError::TooLong);
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let full = match fields.len() {
        0 => return Err(FenError::Empty),
        1 => format!("{} w - - 0 1", fields[0]),
        4 => format!("{} 0 1", fields.join(" ")),
        5 => format!("{} 1", fields.join(" ")),
        6 => fields.join(" "),
        n => return Err(FenError::FieldCount(n)),
    };
    let squares = parse_placement(fields[0])?;
    let full: Vec<&str> = full.split(' ').collect();
    check_fields(&full)?;
    legality::checked_board(&squares, &full.join(" ")).map_err(FenError::Impossible)
}

/// The 64 squares of a board field, a8 first, `None` for empty.
pub fn parse_placement(board: &str) -> Result<Vec<Option<char>>, FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
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
                other => return Err(FenError::BoardCharacter(other)),
            }
        }
        if width != 8 {
            return Err(FenError::RankWidth {
                rank: 8 - i,
                squares: width,
            });
        }
    }
    Ok(squares)
}

/// Checks the form of the fields after the board (side to move, castling,
/// en passant, clocks) of a six-field FEN; whether they fit the position is
/// [`legality`]'s to judge.
fn check_fields(fields: &[&str]) -> Result<(), FenError> {
    if !matches!(fields[1], "w" | "b") {
        return Err(FenError::SideToMove);
    }
    let castling = fields[2];
    let castling_ok = castling == "-"
        || (castling.len() <= 4
            && castling
                .chars()
                .all(|c| matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h')));
    if !castling_ok {
        return Err(FenError::CastlingField);
    }
    let en_passant = fields[3].as_bytes();
    let en_passant_ok = fields[3] == "-"
        || (en_passant.len() == 2
            && (b'a'..=b'h').contains(&en_passant[0])
            && matches!(en_passant[1], b'3' | b'6'));
    if !en_passant_ok {
        return Err(FenError::EnPassantField);
    }
    if fields[4].parse::<u8>().is_err() {
        return Err(FenError::HalfmoveClock);
    }
    if !fields[5].parse::<u16>().is_ok_and(|n| n >= 1) {
        return Err(FenError::FullmoveNumber);
    }
    Ok(())
}

/// A side to move as people write it: `w`, `b`, `white` or `black`.
pub fn parse_side(text: &str) -> Result<Color, String> {
    match text {
        "w" | "white" => Ok(Color::White),
        "b" | "black" => Ok(Color::Black),
        _ => Err(format!("side to move must be w or b, not {text:?}")),
    }
}

/// Serde for a side to move as its FEN letter, `"w"` or `"b"` (reading
/// also accepts `"white"` and `"black"`).
pub mod side_letter {
    use cozy_chess::Color;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(side: &Color, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(side)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Color, D::Error> {
        let text = String::deserialize(deserializer)?;
        super::parse_side(&text).map_err(D::Error::custom)
    }

    /// The same for an optional side.
    pub mod option {
        use cozy_chess::Color;
        use serde::{Deserialize, Deserializer};

        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Color>, D::Error> {
            #[derive(Deserialize)]
            struct Side(#[serde(with = "super")] Color);
            Ok(Option::<Side>::deserialize(deserializer)?.map(|Side(side)| side))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn accepts_one_four_five_and_six_fields() {
        for fen in [
            format!("{START} w KQkq -"),
            format!("{START} w KQkq - 0"),
            format!("{START} w KQkq - 0 1"),
            format!("  {START}\tw  KQkq - 0 1 "),
        ] {
            assert_eq!(parse_fen(&fen), Ok(Board::default()), "{fen:?}");
        }
        // The board alone: White to move, no castling.
        let board = parse_fen(START).unwrap();
        assert_eq!(board.side_to_move(), cozy_chess::Color::White);
        assert!(board
            .castle_rights(cozy_chess::Color::White)
            .short
            .is_none());
        assert_eq!(
            parse_fen(&format!("{START} b KQkq - 3"))
                .unwrap()
                .halfmove_clock(),
            3
        );
        // Shredder-FEN castling.
        assert!(
            parse_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").is_ok()
        );
    }

    #[test]
    fn refuses_malformed_fens_with_the_reason() {
        use FenError::*;
        for (bad, reason) in [
            ("", Empty),
            ("hello", RankCount(1)),
            ("8/8 w", FieldCount(2)),
            ("8/8/8/8/8/8/8 w - - 0 1", RankCount(7)),
            ("9/8/8/8/8/8/8/8 w - - 0 1", BoardCharacter('9')),
            (
                "4k3/8/8/8/8/8/8/4K2 w - - 0 1",
                RankWidth {
                    rank: 1,
                    squares: 7,
                },
            ),
            ("4k3/8/8/8/8/8/8/4K2X w - - 0 1", BoardCharacter('X')),
            ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", SideToMove),
            ("4k3/8/8/8/8/8/8/4K3 w KX - 0 1", CastlingField),
            ("4k3/8/8/8/8/8/8/4K3 w - e4 0 1", EnPassantField),
            ("4k3/8/8/8/8/8/8/4K3 w - - x 1", HalfmoveClock),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", FullmoveNumber),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 7", FieldCount(7)),
        ] {
            assert_eq!(parse_fen(bad), Err(reason), "{bad:?}");
        }
        assert_eq!(parse_fen(&"8/".repeat(100)), Err(TooLong));
    }

    #[test]
    fn refuses_impossible_positions() {
        for bad in [
            "8/8/8/8/8/8/8/8 w - - 0 1",              // no kings
            "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",         // two white kings
            "k1k5/8/8/8/8/8/8/4K3 w - - 0 1",         // two black kings
            "8/8/8/3kK3/8/8/8/8 w - - 0 1",           // kings side by side
            "8/8/8/3kK3/8/8/8/8 b - - 0 1",           // either side to move
            "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",         // pawn on the last rank
            "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",        // Black in check, White to move
            "4k3/8/8/8/8/8/8/4K3 w KQ - 0 1",         // castling without rooks
            "4k3/8/8/8/8/8/8/4K3 b - e3 0 1",         // no pawn made that push
            "4k3/8/8/8/8/8/PPPPPPPP/QQ2K3 w - - 0 1", // a queen too many
        ] {
            let err = parse_fen(bad).unwrap_err();
            assert!(err.is_impossible(), "{bad:?}: {err}");
        }
        assert!(parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").is_ok());
        assert!(parse_fen("8/8/8/3k1K2/8/8/8/8 b - - 0 1").is_ok());
    }

    #[test]
    fn sides_read_and_write_as_fen_letters() {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Reading {
            #[serde(with = "side_letter")]
            side: Color,
            #[serde(default, deserialize_with = "side_letter::option::deserialize")]
            #[serde(skip_serializing)]
            given: Option<Color>,
        }
        let read: Reading = serde_json::from_str(r#"{"side": "black", "given": "w"}"#).unwrap();
        assert_eq!((read.side, read.given), (Color::Black, Some(Color::White)));
        let absent: Reading = serde_json::from_str(r#"{"side": "b"}"#).unwrap();
        assert_eq!(absent.given, None);
        assert!(serde_json::from_str::<Reading>(r#"{"side": "x"}"#).is_err());
        let json = serde_json::to_string(&read).unwrap();
        assert_eq!(json, r#"{"side":"b"}"#);
        assert_eq!(parse_side("white"), Ok(Color::White));
        assert!(parse_side("W").is_err());
    }
}
