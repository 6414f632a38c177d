//! An evaluation as the front ends see it, and every way it is written.
//!
//! [`Score`] is centipawns or mate in moves, from one side's point of view
//! (White's in every [`Analysis`](super::Analysis)). Its [`Display`] is the
//! one human-readable form (`+0.34`, `mate 3`, `mate -2`, `mate` for a side
//! that is already mated); [`Score::uci`] writes the UCI protocol's `cp N` /
//! `mate N`, and [`Score::pgn_eval`] the `[%eval]` value of an annotated PGN.
//! In JSON a score is `{"cp": N}` or `{"mate": N}`.

use std::{borrow::Cow, fmt};

use serde::{ser::SerializeStruct, Serialize, Serializer};

/// An evaluation: centipawns, or a forced mate in a signed number of moves
/// (positive: the side whose view it is mates). `Mate(0)` means the side to
/// move is already checkmated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// The centipawns, unless it is a mate.
    pub fn cp(self) -> Option<i32> {
        match self {
            Score::Cp(cp) => Some(cp),
            Score::Mate(_) => None,
        }
    }

    /// The moves to mate, if it is a mate.
    pub fn mate(self) -> Option<i32> {
        match self {
            Score::Cp(_) => None,
            Score::Mate(m) => Some(m),
        }
    }

    /// The same evaluation from the other side's point of view.
    pub fn flipped(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(-cp),
            Score::Mate(m) => Score::Mate(-m),
        }
    }

    /// This score (from the side to move's view) from White's view, when
    /// `white_to_move` says whose move it is.
    pub fn for_white(self, white_to_move: bool) -> Score {
        if white_to_move {
            self
        } else {
            self.flipped()
        }
    }

    /// The UCI protocol's words for the score: `cp 34` or `mate -2`.
    pub fn uci(self) -> impl fmt::Display {
        struct Uci(Score);
        impl fmt::Display for Uci {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Score::Cp(cp) => write!(f, "cp {cp}"),
                    Score::Mate(m) => write!(f, "mate {m}"),
                }
            }
        }
        Uci(self)
    }

    /// The `[%eval]` value of an annotated PGN: pawns with two decimals
    /// (`0.34`, `-1.20`) or `#N`; `None` for a side already mated.
    pub fn pgn_eval(self) -> Option<String> {
        match self {
            Score::Mate(0) => None,
            Score::Mate(m) => Some(format!("#{m}")),
            Score::Cp(cp) => Some(format!("{:.2}", f64::from(cp) / 100.0)),
        }
    }
}

impl fmt::Display for Score {
    /// Pawns with a sign and two decimals (`+0.34`), `mate N`, or `mate`
    /// when the side to move is already mated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match *self {
            Score::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(0) => "mate".to_owned(),
            Score::Mate(m) => format!("mate {m}"),
        };
        f.pad(&text)
    }
}

impl Serialize for Score {
    /// `{"cp": N}` or `{"mate": N}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("Score", 1)?;
        match *self {
            Score::Cp(cp) => fields.serialize_field("cp", &cp)?,
            Score::Mate(m) => fields.serialize_field("mate", &m)?,
        }
        fields.end()
    }
}

/// An evaluation from White's point of view: centipawns or mate in moves
/// (positive: White mates). `mate: 0` means the side to move is mated.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // Only its schema is used: it is how a `Score` looks in JSON.
struct ScoreFields {
    cp: Option<i32>,
    mate: Option<i32>,
}

impl utoipa::PartialSchema for Score {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <ScoreFields as utoipa::PartialSchema>::schema()
    }
}

impl utoipa::ToSchema for Score {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Score")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_text_for_each_kind_of_score() {
        assert_eq!(Score::Cp(34).to_string(), "+0.34");
        assert_eq!(Score::Cp(-120).to_string(), "-1.20");
        assert_eq!(Score::Cp(0).to_string(), "+0.00");
        assert_eq!(Score::Mate(3).to_string(), "mate 3");
        assert_eq!(Score::Mate(-2).to_string(), "mate -2");
        assert_eq!(Score::Mate(0).to_string(), "mate");
        assert_eq!(format!("{:>8}", Score::Cp(34)), "   +0.34");
    }

    #[test]
    fn protocol_pgn_and_json_forms() {
        assert_eq!(Score::Cp(-43).uci().to_string(), "cp -43");
        assert_eq!(Score::Mate(2).uci().to_string(), "mate 2");
        assert_eq!(Score::Cp(34).pgn_eval().as_deref(), Some("0.34"));
        assert_eq!(Score::Mate(-3).pgn_eval().as_deref(), Some("#-3"));
        assert_eq!(Score::Mate(0).pgn_eval(), None);
        assert_eq!(serde_json::to_string(&Score::Cp(5)).unwrap(), r#"{"cp":5}"#);
        assert_eq!(
            serde_json::to_string(&Score::Mate(-1)).unwrap(),
            r#"{"mate":-1}"#
        );
        assert_eq!(Score::Mate(2).for_white(false), Score::Mate(-2));
    }
}
