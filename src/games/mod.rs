//! Whole games: a PGN in, every move analysed and graded, an annotated
//! PGN or JSON out.
//!
//! [`pgn`] reads games (tags, comments, NAGs, variations, a starting
//! position, Chess960, moves in any language), [`analyse`] searches each
//! position once through the engine pool and grades each move,
//! [`accuracy`] holds lichess's accuracy formulas, [`openings`] names the
//! opening, [`annotate`] writes the annotated PGN and [`command`] is
//! `boardscan game`; [`recording`] reads the games of a recording (an
//! animated GIF, a video).

pub mod accuracy;
pub mod analyse;
pub mod annotate;
pub mod command;
pub mod openings;
pub mod pgn;
pub mod recording;
pub mod summary;

use crate::{analysis::coach::CoachError, analysis::EngineError};

pub use analyse::{analyse_game, AnalyseOptions, Budget, GameAnalysis, MoveReport};
pub use pgn::{read_pgn, Game, GameError, Pgn, PgnError, ReadLimits};

/// Why a game could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    #[error(transparent)]
    Pgn(#[from] PgnError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("{0}")]
    Coach(#[from] CoachError),
    /// A Chess960 game with an external engine (only ours reads Chess960 positions here).
    #[error("game {0} is Chess960: analyse it with our engine (--engine boardscan)")]
    Chess960External(usize),
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Recording(#[from] recording::RecordingReadError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
