//! Our chess engine: search, evaluation, transposition table, threads, UCI,
//! bench, perft and the exact mate solver.
//!
//! [`analyze`] and [`analyze_with`] return a typed [`Analysis`]: moves and
//! [`Score`](crate::analysis::Score)s from White's point of view, as lichess cloud-eval gives them;
//! the engine writes no notation text (that is [`Analysis::render`], at the
//! edge). The UCI loop in [`uci`] reports scores from the side to move's
//! point of view. Front ends reach the engine through
//! [`crate::analysis::Engines`], which also runs external UCI engines.

pub mod bench;
mod check;
mod correction;
pub(crate) mod draw;
mod eval;
mod evaluator;
mod iterate;
pub mod mate;
mod nnue;
mod ordering;
mod pawn_cache;
pub mod perft;
mod score;
mod search;
mod see;
mod threads;
mod time;
mod tt;
pub mod uci;
mod weights;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cozy_chess::{Board, Color};

use crate::analysis::{Analysis, Line};

pub use draw::{game_over, GameOver};
pub use eval::evaluate;
pub use score::wdl;
pub use time::MAX_DEPTH;

/// Depth searched when no depth, time or node limit is given.
pub const DEFAULT_DEPTH: u32 = 12;
/// Time cap applied together with [`DEFAULT_DEPTH`] when no limit is given.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(10);

/// What a front end asks of one [`analyze`] call; the search's own
/// [`time::SearchLimits`] are derived from it in one place. With no depth, time or node limit the
/// search stops at [`DEFAULT_DEPTH`] or after [`DEFAULT_MAX_TIME`].
#[derive(Clone, Debug)]
pub struct AnalysisLimits {
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
    pub nodes: Option<u64>,
    /// Number of lines to report (at least 1, at most the legal moves).
    pub multipv: usize,
    /// Search threads (0 is treated as 1).
    pub threads: usize,
}

impl Default for AnalysisLimits {
    fn default() -> Self {
        Self {
            depth: None,
            movetime: None,
            nodes: None,
            multipv: 1,
            threads: 1,
        }
    }
}

impl AnalysisLimits {
    fn to_search_limits(&self) -> time::SearchLimits {
        let unbounded = self.depth.is_none() && self.movetime.is_none() && self.nodes.is_none();
        time::SearchLimits {
            depth: match self.depth {
                Some(d) => d.clamp(1, time::MAX_DEPTH),
                None if unbounded => DEFAULT_DEPTH,
                None => time::MAX_DEPTH,
            },
            nodes: self.nodes,
            soft: None,
            hard: if unbounded {
                Some(DEFAULT_MAX_TIME)
            } else {
                self.movetime
            },
            multipv: self.multipv.max(1),
            threads: self.threads.max(1),
            ..time::SearchLimits::default()
        }
    }
}

/// Analyses `board` until `limits` are reached. Blocks the caller; the
/// search runs on its own threads with a fresh 16 MiB hash table.
pub fn analyze(board: &Board, limits: &AnalysisLimits) -> Analysis {
    analyze_with(board, limits, &AtomicBool::new(false), |_| {})
}

/// [`analyze`], stopping early once `stop` is set (the last completed depth
/// is returned) and calling `on_depth` with the analysis so far after each
/// completed depth. `stop` is set when the search ends.
pub fn analyze_with(
    board: &Board,
    limits: &AnalysisLimits,
    stop: &AtomicBool,
    mut on_depth: impl FnMut(&Analysis) + Send,
) -> Analysis {
    let tt = tt::TranspositionTable::new(tt::DEFAULT_MB);
    if !board.generate_moves(|_| true) {
        return Analysis::empty(board);
    }
    let outcome = threads::search(
        board,
        &[],
        &limits.to_search_limits(),
        &tt,
        &mut Vec::new(),
        stop,
        |progress| {
            on_depth(&to_analysis(
                board,
                Some(progress.iteration),
                progress.nodes,
                progress.elapsed,
            ))
        },
    );
    to_analysis(
        board,
        outcome.iteration.as_ref(),
        outcome.nodes,
        outcome.elapsed,
    )
}

/// The [`Analysis`] of `board` after `iteration`, scores turned to White's view.
fn to_analysis(
    board: &Board,
    iteration: Option<&iterate::Iteration>,
    nodes: u64,
    elapsed: Duration,
) -> Analysis {
    let mut analysis = Analysis {
        nodes,
        nps: nps(nodes, elapsed),
        time_ms: elapsed.as_millis() as u64,
        ended: None,
        ..Analysis::empty(board)
    };
    let Some(iteration) = iteration else {
        return analysis;
    };
    analysis.depth = iteration.depth;
    analysis.seldepth = iteration.seldepth;
    let white = board.side_to_move() == Color::White;
    analysis.pvs = iteration
        .lines
        .iter()
        .map(|line| {
            let score = if white { line.score } else { -line.score };
            Line {
                score: score::to_score(score),
                // No mate can arise: a dead draw, not the model's 0 cp.
                wdl: if draw::insufficient_material(board) {
                    [0, 1000, 0]
                } else {
                    wdl(score)
                },
                moves: line.moves.clone(),
            }
        })
        .collect();
    analysis.best_move = iteration
        .lines
        .first()
        .and_then(|l| l.moves.first())
        .copied();
    analysis
}

/// Nodes per second, guarding against a zero duration.
pub(crate) fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalemate_says_so() {
        let board: Board = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
        let analysis = analyze(&board, &AnalysisLimits::default());
        assert!(analysis.pvs.is_empty());
        assert_eq!(analysis.ended, Some(crate::analysis::Ended::Stalemate));
        let json = serde_json::to_value(&analysis).unwrap();
        assert_eq!(json["ended"], "stalemate");
    }

    #[test]
    fn a_dead_draw_is_a_certain_draw() {
        let board: Board = "8/8/4k3/8/8/3K4/8/8 w - - 0 1".parse().unwrap();
        let limits = AnalysisLimits {
            depth: Some(4),
            ..AnalysisLimits::default()
        };
        let analysis = analyze(&board, &limits);
        assert_eq!(analysis.pvs[0].wdl, [0, 1000, 0]);
    }

    #[test]
    fn unbounded_limits_get_a_depth_and_time_cap() {
        let limits = AnalysisLimits::default().to_search_limits();
        assert_eq!(limits.depth, DEFAULT_DEPTH);
        assert_eq!(limits.hard, Some(DEFAULT_MAX_TIME));
        let timed = AnalysisLimits {
            movetime: Some(Duration::from_millis(50)),
            threads: 0,
            multipv: 0,
            ..AnalysisLimits::default()
        }
        .to_search_limits();
        assert_eq!(timed.depth, time::MAX_DEPTH);
        assert_eq!(timed.hard, Some(Duration::from_millis(50)));
        assert_eq!((timed.threads, timed.multipv), (1, 1));
    }

    #[test]
    fn nps_survives_zero_time() {
        assert_eq!(nps(1_000, Duration::ZERO), 1_000_000_000);
        assert_eq!(nps(500, Duration::from_millis(500)), 1_000);
    }
}
