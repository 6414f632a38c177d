//! Fixed-depth search over built-in positions. The node count is the
//! search's regression signature; the speed is comparable to
//! `stockfish bench` (one thread, 16 MiB hash, cleared per position).
//!
//! [`run_until`] is the cancellable form used by the UCI loop's `bench`,
//! which runs on the job thread so that `stop` and `quit` are read meanwhile.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cozy_chess::Board;

use super::threads::search;
use super::time::SearchLimits;
use super::tt::{TranspositionTable, DEFAULT_MB};

/// Depth used when none is given.
pub const DEFAULT_DEPTH: u32 = 13;

/// Middlegame and endgame positions, mostly from Stockfish's bench set.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
];

/// Totals of a bench run.
#[derive(Clone, Debug)]
pub struct Report {
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl Report {
    pub fn nps(&self) -> u64 {
        super::nps(self.nodes, self.elapsed)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "===========================")?;
        writeln!(f, "Total time (ms) : {}", self.elapsed.as_millis())?;
        writeln!(f, "Nodes searched  : {}", self.nodes)?;
        write!(f, "Nodes/second    : {}", self.nps())
    }
}

/// Searches every position of [`POSITIONS`] to `depth` (default
/// [`DEFAULT_DEPTH`]) on one thread.
pub fn run(depth: Option<u32>) -> Report {
    let (cancel, stop) = (AtomicBool::new(false), AtomicBool::new(false));
    run_until(depth, &cancel, &stop).expect("a bench that is never cancelled completes")
}

/// [`run`] that another thread can cancel; `None` when it was cancelled.
///
/// Each position's search watches `stop`, and a search sets `stop` itself
/// when it finishes, so `stop` is cleared before every position and
/// `cancel` is what tells a finished search from a cancelled run. To cancel,
/// set `cancel` first and then `stop` (the search in progress then ends at
/// its next node).
pub fn run_until(depth: Option<u32>, cancel: &AtomicBool, stop: &AtomicBool) -> Option<Report> {
    let depth = depth.unwrap_or(DEFAULT_DEPTH).max(1);
    let limits = SearchLimits {
        depth,
        ..SearchLimits::default()
    };
    let tt = TranspositionTable::new(DEFAULT_MB);
    let mut nodes = 0;
    let start = Instant::now();
    for fen in POSITIONS {
        let board: Board = fen.parse().expect("bench positions are valid");
        tt.clear();
        // Clear `stop` before reading `cancel`: a cancel that comes after
        // the read sets `stop` after the clear, so the search sees it.
        stop.store(false, Ordering::SeqCst);
        if cancel.load(Ordering::SeqCst) {
            return None;
        }
        nodes += search(&board, &[], &limits, &tt, &mut Vec::new(), stop, |_| {}).nodes;
    }
    if cancel.load(Ordering::SeqCst) {
        return None;
    }
    Some(Report {
        depth,
        nodes,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_and_bench_is_deterministic() {
        for fen in POSITIONS {
            assert!(fen.parse::<Board>().is_ok(), "{fen}");
        }
        let a = run(Some(2));
        let b = run(Some(2));
        assert!(a.nodes > 0);
        assert_eq!(a.nodes, b.nodes);
        let text = a.to_string();
        assert!(text.contains("Nodes searched  : "));
        assert!(text.contains("Nodes/second"));
    }

    #[test]
    fn a_cancelled_bench_returns_none() {
        let (cancel, stop) = (AtomicBool::new(true), AtomicBool::new(true));
        assert!(run_until(Some(2), &cancel, &stop).is_none());
        let (cancel, stop) = (AtomicBool::new(false), AtomicBool::new(false));
        let report = run_until(Some(2), &cancel, &stop).unwrap();
        assert_eq!(report.nodes, run(Some(2)).nodes);
    }
}
