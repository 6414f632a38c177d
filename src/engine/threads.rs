//! Lazy SMP: every thread runs its own iterative deepening on the same
//! position and they cooperate only through the shared transposition table.
//!
//! The reported result is that of the thread with the deepest completed
//! iteration; ties go to the lowest thread id, so one thread behaves exactly
//! like a single-threaded search. With MultiPV only the main thread's lines
//! are used, since helpers search a single line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use cozy_chess::Board;

use super::iterate::Iteration;
use super::search::{Searcher, Shared};
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
pub fn search(
    root: &Board,
    game: &[u64],
    limits: &SearchLimits,
    tt: &TranspositionTable,
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
    let results: Vec<Option<Iteration>> = thread::scope(|s| {
        let shared = &shared;
        let report = &mut report;
        let main = thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, move || {
                let mut searcher = Searcher::new(shared, 0, game, root);
                let result = searcher.iterative_deepening(root, &mut |iteration| {
                    report(&Progress {
                        iteration,
                        nodes: shared.nodes.load(Ordering::Relaxed),
                        elapsed: shared.start.elapsed(),
                        hashfull: shared.tt.hashfull(),
                    });
                });
                shared.stop.store(true, Ordering::Relaxed);
                result
            })
            .expect("spawn search thread");
        let helpers: Vec<_> = (1..threads)
            .map(|id| {
                thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(s, move || {
                        Searcher::new(shared, id, game, root).iterative_deepening(root, &mut |_| {})
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
