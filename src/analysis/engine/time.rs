//! Search limits and time management.

use std::time::Duration;

use cozy_chess::Move;

/// Deepest iteration the search will start.
pub const MAX_DEPTH: u32 = 100;
/// Safety margin kept on the clock for communication lag.
const MOVE_OVERHEAD: Duration = Duration::from_millis(20);
/// Moves assumed left in the game when the GUI does not say.
const DEFAULT_MOVES_TO_GO: u32 = 20;

/// Everything that bounds one search, resolved from [`super::AnalysisLimits`] or a
/// UCI `go` command.
#[derive(Clone, Debug)]
pub struct SearchLimits {
    /// Last iteration to search.
    pub depth: u32,
    /// Stop once this many nodes (all threads) have been searched.
    pub nodes: Option<u64>,
    /// Do not start a new iteration after this long (scaled by stability).
    pub soft: Option<Duration>,
    /// Abort the search after this long.
    pub hard: Option<Duration>,
    /// Number of principal variations to report.
    pub multipv: usize,
    /// Number of search threads.
    pub threads: usize,
    /// Root moves to choose from (UCI `go searchmoves`); empty means all.
    pub search_moves: Vec<Move>,
    /// Keep the result until told to stop (UCI `go infinite`).
    pub infinite: bool,
    /// Evaluate with the network ([`super::nnue`]) rather than the
    /// hand-written evaluation (UCI `Use NNUE`).
    pub nnue: bool,
}

impl Default for SearchLimits {
    fn default() -> Self {
        Self {
            depth: MAX_DEPTH,
            nodes: None,
            soft: None,
            hard: None,
            multipv: 1,
            threads: 1,
            search_moves: Vec::new(),
            infinite: false,
            nnue: true,
        }
    }
}

/// A player's clock as UCI `go` reports it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    pub time: Duration,
    pub inc: Duration,
    pub movestogo: Option<u32>,
}

impl Clock {
    /// Soft and hard time limits for one move: aim for an even share of the
    /// remaining time plus most of the increment, never plan on more than 60%
    /// of what is left and never use more than 80% of it.
    pub fn budget(&self) -> (Duration, Duration) {
        let left = self.time.saturating_sub(MOVE_OVERHEAD);
        let mtg = self
            .movestogo
            .unwrap_or(DEFAULT_MOVES_TO_GO)
            .clamp(1, DEFAULT_MOVES_TO_GO);
        let soft = (left / mtg + self.inc * 3 / 4).min(left * 6 / 10);
        let hard = (soft * 3).min(left * 8 / 10);
        (soft, hard)
    }
}

/// What the main thread knows after an iteration that bears on whether to
/// start another one.
#[derive(Clone, Copy, Debug)]
pub struct IterationSignals {
    /// Consecutive iterations that kept the same best move.
    pub stable_iterations: u32,
    /// Share of the iteration's root nodes spent under the best move, 0–1.
    pub best_move_effort: f64,
    /// How far the best score fell since a few iterations ago, in
    /// centipawns (negative when it rose).
    pub score_drop: i32,
}

/// Shallowest iteration whose node effort is trusted.
const EFFORT_DEPTH: u32 = 8;

/// Factor applied to the soft limit: think longer while the best move keeps
/// changing, while the other moves take a large share of the nodes (the
/// best one is not clearly best) and while the score is falling.
pub fn soft_scale(depth: u32, signals: IterationSignals) -> f64 {
    let stability = match signals.stable_iterations {
        0 => 1.6,
        1 => 1.2,
        2 => 1.0,
        3 => 0.85,
        _ => 0.7,
    };
    let effort = if depth >= EFFORT_DEPTH {
        (1.5 - signals.best_move_effort.clamp(0.0, 1.0)) * 1.35
    } else {
        1.0
    };
    let falling = (1.0 + f64::from(signals.score_drop) / 200.0).clamp(0.85, 1.4);
    stability * effort * falling
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_stays_inside_the_clock() {
        let clock = Clock {
            time: Duration::from_millis(10_000),
            inc: Duration::from_millis(100),
            movestogo: None,
        };
        let (soft, hard) = clock.budget();
        assert!(soft > Duration::from_millis(400) && soft < Duration::from_millis(700));
        assert!(hard >= soft && hard < Duration::from_millis(8_000));
        let last = Clock {
            time: Duration::from_millis(1_000),
            inc: Duration::ZERO,
            movestogo: Some(1),
        };
        let (soft, hard) = last.budget();
        assert!(soft <= hard && hard < Duration::from_millis(1_000));
    }

    fn signals(stable_iterations: u32, best_move_effort: f64, score_drop: i32) -> IterationSignals {
        IterationSignals {
            stable_iterations,
            best_move_effort,
            score_drop,
        }
    }

    #[test]
    fn doubt_buys_time_and_certainty_saves_it() {
        let settled = soft_scale(12, signals(5, 0.95, -20));
        let neutral = soft_scale(12, signals(2, 0.5, 0));
        let unsettled = soft_scale(12, signals(0, 0.2, 120));
        assert!(settled < 0.6 && settled < neutral && neutral < unsettled);
        assert!(unsettled > 3.0);
        // Node effort is ignored in shallow iterations.
        assert_eq!(soft_scale(4, signals(2, 0.1, 0)), 1.0);
    }
}
