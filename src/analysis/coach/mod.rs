//! Coaching on top of an engine: graded hints ([`hint`]), grading a
//! proposed move ([`grade`]) and the legal-move list ([`moves`]).
//!
//! Both [`hint::hint`] and [`grade::grade`] take the engine as a closure
//! from a board to an [`Analysis`](crate::analysis::Analysis), so any engine
//! of [`Engines`](crate::analysis::Engines) (ours, or an external UCI
//! process) can stand behind them; the closure's error type only needs to
//! absorb a [`CoachError`]. Moves are written in the reader's language here,
//! at the edge; scores are [`Score`]s.

pub mod grade;
pub mod hint;
pub mod moves;
mod phrases;

use std::time::Duration;

use cozy_chess::Board;

use crate::{
    analysis::{AnalysisLimits, DEFAULT_DEPTH, DEFAULT_MAX_TIME},
    notation::lang::ParseMoveError,
};

pub use crate::analysis::{GameOver, Score};

/// The search of a hint or a grade (each of a grade's searches), the same in
/// every front end: as asked, or by default depth [`DEFAULT_DEPTH`] (12)
/// within [`DEFAULT_MAX_TIME`] (10 s). A fixed depth on one thread gives the
/// same answer each time, so `hint`, `grade` and the API agree.
pub fn limits(depth: Option<u32>, movetime: Option<Duration>) -> AnalysisLimits {
    let (depth, movetime) = match (depth, movetime) {
        (None, None) => (Some(DEFAULT_DEPTH), Some(DEFAULT_MAX_TIME)),
        asked => asked,
    };
    AnalysisLimits {
        depth,
        movetime,
        ..AnalysisLimits::default()
    }
}

/// Why a hint or a grade cannot be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoachError {
    /// The proposed move is unreadable, illegal or ambiguous.
    #[error(transparent)]
    Move(#[from] ParseMoveError),
    /// A threat was asked for while the side to move is in check (a null
    /// move would leave the king in check).
    #[error("the side to move is in check; the threat is the check itself")]
    InCheck,
    /// The side that would move has no legal move.
    #[error("no legal move: {0}")]
    NoMove(GameOver),
    /// A hint level other than 1, 2 or 3.
    #[error("hint level must be 1, 2 or 3, not {0}")]
    Level(u8),
    /// The engine gave no best move for a position with legal moves.
    #[error("the engine gave no move")]
    NoEngineMove,
}

/// Whether `board`'s side to move has a legal move.
fn has_moves(board: &Board) -> bool {
    board.generate_moves(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_budget_is_a_fixed_depth_and_what_is_asked_stays() {
        let default = limits(None, None);
        assert_eq!(
            (default.depth, default.movetime),
            (Some(DEFAULT_DEPTH), Some(DEFAULT_MAX_TIME))
        );
        let deep = limits(Some(4), None);
        assert_eq!((deep.depth, deep.movetime), (Some(4), None));
        let timed = limits(None, Some(Duration::from_millis(300)));
        assert_eq!(
            (timed.depth, timed.movetime),
            (None, Some(Duration::from_millis(300)))
        );
    }
}
