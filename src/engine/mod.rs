//! The chess engine: search, evaluation, transposition table, threads, UCI
//! and bench.
//!
//! [`analyze`] is the library entry point. Scores in [`Analysis`] are from
//! White's point of view, as lichess cloud-eval gives them; the UCI loop in
//! [`uci`] reports them from the side to move's point of view.

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
use serde::Serialize;

use crate::notation::{
    lang::{format_move, write_uci_line, Lang, MoveStyle},
    san::line_to_san,
    uci::{move_to_uci, parse_uci_move},
};

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

/// Result of [`analyze`], a superset of lichess cloud-eval.
///
/// A checkmated or stalemated root has no best move and no lines: then
/// `best_move` is `None`, `pvs` is empty, `depth` is 0 and `ended` says why.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub fen: String,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_move: Option<BestMove>,
    pub pvs: Vec<Pv>,
    /// Why there is no move to analyse: the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
}

impl Analysis {
    /// Rewrites the `san` fields (best move and every line) in `lang` and
    /// `style`; English SAN leaves them as they are. A line whose UCI moves
    /// do not replay on the analysis's FEN is left untouched.
    pub fn relabel(&mut self, lang: Lang, style: MoveStyle) {
        if (lang, style) == (Lang::En, MoveStyle::San) {
            return;
        }
        let Ok(board) = self.fen.parse::<Board>() else {
            return;
        };
        if let Some(best) = self.best_move.as_mut() {
            if let Ok(mv) = parse_uci_move(&board, &best.uci, false) {
                best.san = format_move(&board, mv, lang, style);
            }
        }
        for pv in &mut self.pvs {
            if let Some(san) = write_uci_line(&board, &pv.moves, lang, style) {
                pv.san = san;
            }
        }
    }
}

/// How a game with no legal move ended.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ended {
    Checkmate,
    Stalemate,
}

impl Ended {
    /// How the game on `board` ended, when the side to move has no legal move.
    pub fn of(board: &Board) -> Option<Ended> {
        if board.generate_moves(|_| true) {
            None
        } else if board.checkers().is_empty() {
            Some(Ended::Stalemate)
        } else {
            Some(Ended::Checkmate)
        }
    }
}

/// The move to play, in both notations.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
pub struct BestMove {
    pub uci: String,
    pub san: String,
}

/// One principal variation. Exactly one of `cp` and `mate` is set; both are
/// from White's point of view, and `mate` counts moves (not plies).
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
pub struct Pv {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// Win/draw/loss per mille for White (see [`wdl`]).
    #[schema(value_type = Vec<u32>)]
    pub wdl: [u32; 3],
    /// Space-separated UCI moves.
    pub moves: String,
    pub san: Vec<String>,
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
    let empty = Analysis {
        fen: board.to_string(),
        depth: 0,
        seldepth: 0,
        nodes: 0,
        nps: 0,
        time_ms: 0,
        best_move: None,
        pvs: Vec::new(),
        ended: Ended::of(board),
    };
    if !board.generate_moves(|_| true) {
        return empty;
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
        fen: board.to_string(),
        depth: 0,
        seldepth: 0,
        nodes,
        nps: nps(nodes, elapsed),
        time_ms: elapsed.as_millis() as u64,
        best_move: None,
        pvs: Vec::new(),
        ended: None,
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
            let mut moves = Vec::with_capacity(line.moves.len());
            let mut b = board.clone();
            for &mv in &line.moves {
                moves.push(move_to_uci(&b, mv, false));
                b.play_unchecked(mv);
            }
            let mate = score::mate_moves(score);
            Pv {
                cp: if mate.is_some() { None } else { Some(score) },
                mate,
                // No mate can arise: a dead draw, not the model's 0 cp.
                wdl: if draw::insufficient_material(board) {
                    [0, 1000, 0]
                } else {
                    wdl(score)
                },
                moves: moves.join(" "),
                san: line_to_san(board, &line.moves),
            }
        })
        .collect();
    if let Some(&mv) = iteration.lines.first().and_then(|l| l.moves.first()) {
        analysis.best_move = Some(BestMove {
            uci: move_to_uci(board, mv, false),
            san: crate::notation::san::move_to_san(board, mv),
        });
    }
    analysis
}

/// Nodes per second, guarding against a zero duration.
fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relabel_rewrites_every_line() {
        let board = Board::default();
        let mut analysis = analyze(
            &board,
            &AnalysisLimits {
                depth: Some(3),
                multipv: 2,
                ..Default::default()
            },
        );
        analysis.relabel(Lang::En, MoveStyle::Iccf);
        let best = analysis.best_move.as_ref().unwrap();
        assert!(best.san.len() == 4 && best.san.chars().all(|c| c.is_ascii_digit()));
        for pv in &analysis.pvs {
            assert_eq!(pv.san.len(), pv.moves.split_whitespace().count());
            assert!(pv.san.iter().all(|m| m.chars().all(|c| c.is_ascii_digit())));
        }
    }

    #[test]
    fn a_stalemate_says_so() {
        let board: Board = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
        let analysis = analyze(&board, &AnalysisLimits::default());
        assert!(analysis.pvs.is_empty());
        assert_eq!(analysis.ended, Some(Ended::Stalemate));
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
