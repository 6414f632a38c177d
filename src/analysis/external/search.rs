//! One search on an external engine process: `position`, `go`, the info
//! lines of each completed depth, `stop` when asked, `bestmove`, all against
//! a deadline.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cozy_chess::{Board, Move};

use super::info::{legal_moves, parse_info, to_analysis, Info};
use super::process::{EngineProcess, ProcessError};
use crate::analysis::{Analysis, AnalysisLimits, DEFAULT_DEPTH, DEFAULT_MAX_TIME};
use crate::notation::uci::parse_uci_move;

/// Time an engine gets beyond its move time (or after `stop`) to answer
/// `bestmove` before it counts as hung.
pub const GRACE: Duration = Duration::from_secs(3);
/// Time an engine gets to answer `isready`.
pub const READY_TIMEOUT: Duration = Duration::from_secs(5);
/// Lines outside the protocol tolerated during one search.
pub const MAX_GARBAGE: usize = 200;
/// How often the stop flag is looked at while waiting for a line.
const POLL: Duration = Duration::from_millis(20);

/// The `go` command for `limits`; with no limit at all, our engine's
/// defaults (depth and time cap).
pub fn go_command(limits: &AnalysisLimits) -> String {
    let mut go = String::from("go");
    let unbounded = limits.depth.is_none() && limits.movetime.is_none() && limits.nodes.is_none();
    let depth = limits.depth.or(unbounded.then_some(DEFAULT_DEPTH));
    let movetime = limits.movetime.or(unbounded.then_some(DEFAULT_MAX_TIME));
    if let Some(depth) = depth {
        go.push_str(&format!(" depth {}", depth.max(1)));
    }
    if let Some(nodes) = limits.nodes {
        go.push_str(&format!(" nodes {}", nodes.max(1)));
    }
    if let Some(movetime) = movetime {
        go.push_str(&format!(" movetime {}", movetime.as_millis().max(1)));
    }
    go
}

/// Searches `board` (which has a legal move) on `process` and returns the
/// last completed depth with the engine's `bestmove`; `on_depth` gets each
/// completed depth. Setting `stop` sends `stop`. Any error leaves the
/// process in an unknown state: the caller must kill it.
pub fn search(
    process: &mut EngineProcess,
    board: &Board,
    limits: &AnalysisLimits,
    stop: &AtomicBool,
    on_depth: &mut dyn FnMut(&Analysis),
) -> Result<Analysis, ProcessError> {
    let legal = {
        let mut n = 0;
        board.generate_moves(|moves| {
            n += moves.len();
            false
        });
        n
    };
    let lines = if process.has_option("MultiPV") {
        limits.multipv.clamp(1, legal.max(1))
    } else {
        1
    };
    process.set_option("MultiPV", &lines.to_string())?;
    process.set_option("UCI_ShowWDL", "true")?;
    process.send("ucinewgame")?;
    process.sync(READY_TIMEOUT)?;
    process.send(&format!("position fen {board}"))?;
    let go = go_command(limits);
    process.send(&go)?;
    let start = Instant::now();
    let movetime = limits
        .movetime
        .or((limits.depth.is_none() && limits.nodes.is_none()).then_some(DEFAULT_MAX_TIME));
    let mut deadline = movetime.map(|m| start + m + GRACE);
    let mut stopped = false;
    let mut garbage = 0;
    let mut current: BTreeMap<usize, (Info, Vec<Move>)> = BTreeMap::new();
    let mut complete: Option<Analysis> = None;
    loop {
        if !stopped && stop.load(Ordering::Relaxed) {
            process.send("stop")?;
            stopped = true;
            let hard = Instant::now() + GRACE;
            deadline = Some(deadline.map_or(hard, |d| d.min(hard)));
        }
        let poll = Instant::now() + POLL;
        let line = match process.read(deadline.map_or(poll, |d| d.min(poll))) {
            Ok(line) => line,
            Err(ProcessError::Timeout(_)) if deadline.is_none_or(|d| Instant::now() < d) => {
                continue
            }
            Err(ProcessError::Timeout(_)) => {
                return Err(ProcessError::Timeout(start.elapsed().as_millis()))
            }
            Err(e) => return Err(e),
        };
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("bestmove") {
            let best = rest.split_whitespace().next().unwrap_or("");
            let mut analysis = complete.unwrap_or_else(|| {
                let partial: Vec<_> = current.into_values().collect();
                to_analysis(board, &partial)
            });
            match parse_uci_move(board, best, false) {
                Ok(mv) => analysis.best_move = Some(mv),
                Err(_) => return Err(ProcessError::Garbage(garbage + 1)),
            }
            return Ok(analysis);
        }
        if let Some(info) = parse_info(line) {
            let Some(moves) = legal_moves(board, &info.pv) else {
                garbage += 1;
                continue;
            };
            if current
                .values()
                .next()
                .is_some_and(|(i, _)| i.depth != info.depth)
            {
                current.clear();
            }
            let multipv = info.multipv;
            current.insert(multipv, (info, moves));
            if multipv >= lines && current.len() >= lines {
                let ordered: Vec<_> = current.values().cloned().collect();
                let analysis = to_analysis(board, &ordered);
                on_depth(&analysis);
                complete = Some(analysis);
                current.clear();
            }
        } else if !line.is_empty() && !line.starts_with("info") {
            garbage += 1;
        }
        if garbage > MAX_GARBAGE {
            return Err(ProcessError::Garbage(garbage));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_carries_every_limit_or_the_defaults() {
        let limits = AnalysisLimits {
            depth: Some(12),
            movetime: Some(Duration::from_millis(250)),
            nodes: Some(5_000),
            ..AnalysisLimits::default()
        };
        assert_eq!(go_command(&limits), "go depth 12 nodes 5000 movetime 250");
        assert_eq!(
            go_command(&AnalysisLimits::default()),
            format!(
                "go depth {DEFAULT_DEPTH} movetime {}",
                DEFAULT_MAX_TIME.as_millis()
            )
        );
    }
}
