//! Mate in N: an exact solver, apart from the normal search.
//!
//! [`solve`] answers whether the side to move forces mate in at most `n`
//! moves against every defence, and proves it either way by exhaustive
//! AND/OR search (see [`search`] for the pruning, all of which keeps the
//! answer exact). With a mate it gives the shortest one: the key, the main
//! line (the defender resisting longest, the attacker mating fastest), the
//! threat and the cooks, in the terms of chess problems:
//!
//! - the **key** is the first move of the shortest mate;
//! - the **threat** is what the attacker would mate with (in fewer moves
//!   than are left) if the defender could pass after the key; there is none
//!   when the key gives check, or when it is a waiting move (zugzwang);
//! - the **cooks** are every other first move that also forces mate in at
//!   most `n`; a sound problem has none.
//!
//! Repetitions and the fifty-move rule are ignored, as in problem solving.
//! A stop, a time limit or a node limit gives [`MateStatus::Unknown`],
//! never a false "no mate".

mod search;
mod table;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cozy_chess::{Board, Move};

use search::Solver;

/// Longest mate [`solve`] looks for; larger `n` are read as this.
pub const MAX_N: u32 = 10;
/// Cooks reported when [`MateLimits::max_cooks`] is not changed.
pub const DEFAULT_MAX_COOKS: usize = 10;

/// What one [`solve`] may spend.
#[derive(Clone, Debug)]
pub struct MateLimits {
    /// Wall-clock limit; `None` for none.
    pub max_time: Option<Duration>,
    /// Node limit; `None` for none.
    pub max_nodes: Option<u64>,
    /// Cooks to look for before stopping; `None` looks at every first move.
    pub max_cooks: Option<usize>,
    /// Size of the solver's transposition table.
    pub hash_mb: usize,
}

impl Default for MateLimits {
    fn default() -> Self {
        Self {
            max_time: None,
            max_nodes: None,
            max_cooks: Some(DEFAULT_MAX_COOKS),
            hash_mb: 16,
        }
    }
}

/// What the search established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateStatus {
    /// A forced mate in `mate_in` moves, the shortest there is.
    Found { mate_in: u32 },
    /// Proven: no forced mate in `n` moves or fewer.
    NoMate,
    /// Stopped before the answer was proven.
    Unknown,
}

/// The answer of [`solve`]. Moves are in order from the root position.
#[derive(Clone, Debug)]
pub struct MateResult {
    /// The number of moves asked for.
    pub n: u32,
    pub status: MateStatus,
    /// Largest `m` for which "no mate in `m`" was proven (0 when none was).
    pub no_mate_within: u32,
    pub key: Option<Move>,
    /// The main line, from the key to the mate.
    pub line: Vec<Move>,
    /// The attacker's threat after the key (see the module documentation).
    pub threat: Option<Move>,
    pub cooks: Vec<Move>,
    /// True when every first move was examined for cooks (not capped, not stopped).
    pub cooks_complete: bool,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl MateResult {
    pub fn found(&self) -> bool {
        matches!(self.status, MateStatus::Found { .. })
    }

    /// Whether the status is proven (a mate found, or none proven to exist).
    pub fn proven(&self) -> bool {
        self.status != MateStatus::Unknown
    }

    pub fn mate_in(&self) -> Option<u32> {
        match self.status {
            MateStatus::Found { mate_in } => Some(mate_in),
            _ => None,
        }
    }
}

/// Looks for a forced mate in at most `n` moves (clamped to `1..=MAX_N`)
/// by the side to move in `board`. Blocks the caller; `stop` ends it early
/// (the answer is then [`MateStatus::Unknown`] unless already proven).
pub fn solve(board: &Board, n: u32, limits: &MateLimits, stop: &AtomicBool) -> MateResult {
    let n = n.clamp(1, MAX_N);
    let started = Instant::now();
    let deadline = limits.max_time.map(|t| started + t);
    let mut solver = Solver::new(limits.hash_mb, stop, deadline, limits.max_nodes);
    let mut result = MateResult {
        n,
        status: MateStatus::Unknown,
        no_mate_within: 0,
        key: None,
        line: Vec::new(),
        threat: None,
        cooks: Vec::new(),
        cooks_complete: false,
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    let tries = solver.tries(board);
    let mut found = None;
    'depths: for m in 1..=n {
        for (i, t) in tries.iter().enumerate() {
            if solver.try_mates(t, m) {
                found = Some((i, m));
                break 'depths;
            }
            if solver.aborted {
                break 'depths;
            }
        }
        result.no_mate_within = m;
    }
    match found {
        Some((i, m)) => {
            result.status = MateStatus::Found { mate_in: m };
            result.key = Some(tries[i].mv);
            result.line = main_line(&mut solver, &tries[i], m);
            result.threat = threat(&mut solver, &tries[i].child, m);
            // Other keys of the shortest mate: asked for more moves than it
            // needs, nearly every move of a won position mates in time.
            let (cooks, complete) = cooks(&mut solver, &tries, i, m, limits.max_cooks);
            result.cooks = cooks;
            result.cooks_complete = complete;
        }
        None if !solver.aborted => {
            result.status = MateStatus::NoMate;
            result.cooks_complete = true;
        }
        None => {}
    }
    result.nodes = solver.nodes;
    result.elapsed = started.elapsed();
    result
}

/// The line after the key `t` (which mates in `m`): the defender picks the
/// reply that delays mate longest, the attacker a move that mates fastest.
/// Cut short if the search is stopped meanwhile.
fn main_line(solver: &mut Solver, key: &search::Try, m: u32) -> Vec<Move> {
    let mut line = vec![key.mv];
    let mut board = key.child.clone();
    let mut left = m - 1;
    while left > 0 && !solver.aborted {
        // The defender's longest resistance.
        let mut best: Option<(Move, u32)> = None;
        for mv in solver.defences(&board, left) {
            let mut child = board.clone();
            child.play_unchecked(mv);
            let Some(j) = solver.shortest_attack(&child, left) else {
                return line;
            };
            if best.is_none_or(|(_, b)| j > b) {
                best = Some((mv, j));
            }
        }
        let Some((reply, j)) = best else {
            break;
        };
        line.push(reply);
        board.play_unchecked(reply);
        // The attacker's fastest mate.
        let Some(t) = solver
            .tries(&board)
            .into_iter()
            .find(|t| solver.try_mates(t, j))
        else {
            return line;
        };
        line.push(t.mv);
        board = t.child;
        left = j - 1;
    }
    line
}

/// The threat after a key that mates in `m`: the first move of the
/// attacker's shortest mate in fewer than `m` moves if the defender passed.
fn threat(solver: &mut Solver, after_key: &Board, m: u32) -> Option<Move> {
    let passed = after_key.null_move()?;
    let j = solver.shortest_attack(&passed, m - 1)?;
    solver
        .tries(&passed)
        .into_iter()
        .find(|t| solver.try_mates(t, j))
        .map(|t| t.mv)
}

/// Every first move other than `tries[key]` that mates in at most `n` (the
/// key's length), up to `max` of them; and whether all were examined.
fn cooks(
    solver: &mut Solver,
    tries: &[search::Try],
    key: usize,
    n: u32,
    max: Option<usize>,
) -> (Vec<Move>, bool) {
    let mut found = Vec::new();
    for (i, t) in tries.iter().enumerate() {
        if i == key {
            continue;
        }
        if max.is_some_and(|max| found.len() >= max) {
            return (found, false);
        }
        if solver.try_mates(t, n) {
            found.push(t.mv);
        } else if solver.aborted {
            return (found, false);
        }
    }
    (found, true)
}

#[cfg(test)]
mod tests;
