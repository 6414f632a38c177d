//! Lazy SMP: every thread runs its own iterative deepening on the same
//! position and they cooperate only through the shared transposition table.
//!
//! The reported result is that of the thread with the deepest completed
//! iteration; ties go to the lowest thread id, so one thread behaves exactly
//! like a single-threaded search. With MultiPV only the main thread's lines
//! are used, since helpers search a single line.

use std::mem;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use cozy_chess::Board;

use super::iterate::Iteration;
use super::search::{Heuristics, Searcher, Shared};
use super::time::SearchLimits;
use super::tt::TranspositionTable;

/// Stack size of search threads: the recursion keeps a move list per ply.
const STACK_SIZE: usize = 16 * 1024 * 1024;

/// Progress report after each completed iteration of the main thread.
pub struct Progress<'a> {
    pub iteration: &'a Iteration,
    /// Nodes of all threads so far (approximate while helpers run).
    pub nodes: u64,
    pub elapsed: Duration,
    pub hashfull: u32,
}

/// The outcome of a whole search.
pub struct Outcome {
    /// `None` only when the root has no legal move.
    pub iteration: Option<Iteration>,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Runs a search of `root` (reached after the positions keyed in `game`)
/// with `limits.threads` threads until a limit is hit or `stop` is set.
/// Thread `i` starts from `heuristics[i]` (created if missing) and leaves
/// what it learned there for the next search of the same game.
pub fn search(
    root: &Board,
    game: &[u64],
    limits: &SearchLimits,
    tt: &TranspositionTable,
    heuristics: &mut Vec<Heuristics>,
    stop: &AtomicBool,
    mut report: impl FnMut(&Progress) + Send,
) -> Outcome {
    tt.new_search();
    let shared = Shared {
        tt,
        stop,
        nodes: AtomicU64::new(0),
        start: Instant::now(),
        limits,
    };
    let threads = limits.threads.max(1);
    if heuristics.len() < threads {
        heuristics.resize_with(threads, Heuristics::default);
    }
    let results: Vec<Option<Iteration>> = thread::scope(|s| {
        let shared = &shared;
        let report = &mut report;
        let mut slots = heuristics.iter_mut();
        let main_slot = slots.next().expect("at least one thread");
        let main = thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, move || {
                let mut searcher = Searcher::new(shared, 0, game, root, mem::take(main_slot));
                let result = searcher.iterative_deepening(root, &mut |iteration| {
                    report(&Progress {
                        iteration,
                        nodes: shared.nodes.load(Ordering::Relaxed),
                        elapsed: shared.start.elapsed(),
                        hashfull: shared.tt.hashfull(),
                    });
                });
                shared.stop.store(true, Ordering::Relaxed);
                *main_slot = searcher.into_heuristics();
                result
            })
            .expect("spawn search thread");
        let helpers: Vec<_> = (1..threads)
            .zip(slots)
            .map(|(id, slot)| {
                thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(s, move || {
                        let mut searcher = Searcher::new(shared, id, game, root, mem::take(slot));
                        let result = searcher.iterative_deepening(root, &mut |_| {});
                        *slot = searcher.into_heuristics();
                        result
                    })
                    .expect("spawn search thread")
            })
            .collect();
        let mut results = vec![main.join().expect("search thread panicked")];
        results.extend(
            helpers
                .into_iter()
                .map(|h| h.join().expect("search thread panicked")),
        );
        results
    });
    let multipv = limits.multipv > 1;
    let mut best: Option<Iteration> = None;
    for result in results.into_iter().flatten() {
        let deeper = best.as_ref().is_none_or(|b| result.depth > b.depth);
        if best.is_none() || (!multipv && deeper) {
            best = Some(result);
        }
    }
    Outcome {
        iteration: best,
        nodes: shared.nodes.load(Ordering::Relaxed),
        elapsed: shared.start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes_to_depth(board: &Board, heuristics: &mut Vec<Heuristics>) -> u64 {
        let limits = SearchLimits {
            depth: 7,
            ..SearchLimits::default()
        };
        let tt = TranspositionTable::new(1);
        let stop = AtomicBool::new(false);
        search(board, &[], &limits, &tt, heuristics, &stop, |_| {}).nodes
    }

    #[test]
    fn heuristics_carry_over_to_the_next_search() {
        let board: Board = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
            .parse()
            .unwrap();
        let mut kept = Vec::new();
        let first = nodes_to_depth(&board, &mut kept);
        assert_eq!(kept.len(), 1);
        // With a fresh hash table, only the kept heuristics can change the
        // second search; a fresh set repeats the first exactly.
        assert_eq!(nodes_to_depth(&board, &mut Vec::new()), first);
        assert_ne!(nodes_to_depth(&board, &mut kept), first);
    }
}
