//! The AND/OR search behind [`super::solve`].
//!
//! An attacker node (the attacker to move, `k` moves left) is proven when one
//! move leaves the defender mated, or in a position where every defence is
//! again proven with `k - 1` moves left; a defender node is proven when every
//! move is. Pruning that keeps the answer exact:
//!
//! - with one move left, only checking moves are tried, each judged by
//!   whether the defender has any legal move (checked without playing);
//! - a defender without legal moves is mated (if in check) or stalemated,
//!   which is no mate;
//! - the attacker tries checks first, then moves leaving the defender the
//!   fewest replies;
//! - the defender tries first the move that refuted a sibling at the same
//!   depth (a killer), then captures, most valuable victim first;
//! - a [`MateTable`] keeps proven and disproven `(position, k)` results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cozy_chess::{Board, Move, Piece};

use super::table::MateTable;
use crate::analysis::engine::check::gives_check;

/// Nodes between two looks at the clock and the stop flag.
const POLL_NODES: u64 = 1024;

/// One solve's search state.
pub struct Solver<'a> {
    table: MateTable,
    /// Per `k`: the defender move that last refuted an attacker's try.
    killers: Vec<Option<Move>>,
    pub nodes: u64,
    /// Node count at which [`Solver::tick`] next looks at the limits.
    next_poll: u64,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    max_nodes: Option<u64>,
    /// Set once the stop flag, the deadline or the node limit is reached.
    /// From then on a `false` may be wrong and is neither stored nor
    /// reported; a `true` is always proven.
    pub aborted: bool,
}

/// An attacker move with the position after it.
pub struct Try {
    pub mv: Move,
    pub child: Board,
    pub check: bool,
    /// Legal replies of the defender.
    pub replies: usize,
}

impl<'a> Solver<'a> {
    pub fn new(
        hash_mb: usize,
        stop: &'a AtomicBool,
        deadline: Option<Instant>,
        max_nodes: Option<u64>,
    ) -> Self {
        Self {
            table: MateTable::new(hash_mb),
            killers: Vec::new(),
            nodes: 0,
            next_poll: 0,
            stop,
            deadline,
            max_nodes,
            aborted: false,
        }
    }

    /// Counts a node and, at the first and then every [`POLL_NODES`],
    /// checks whether to stop.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_NODES;
            self.aborted |= self.stop.load(Ordering::Relaxed)
                || self.deadline.is_some_and(|d| Instant::now() >= d)
                || self.max_nodes.is_some_and(|n| self.nodes >= n);
        }
        self.aborted
    }

    /// The attacker's moves in the order they are tried: checks first, then
    /// by fewest replies. A mate in one therefore comes first.
    pub fn tries(&mut self, board: &Board) -> Vec<Try> {
        let mut tries = Vec::with_capacity(48);
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let check = !child.checkers().is_empty();
                let mut replies = 0;
                child.generate_moves(|m| {
                    replies += m.len();
                    false
                });
                tries.push(Try {
                    mv,
                    child,
                    check,
                    replies,
                });
            }
            false
        });
        self.nodes += tries.len() as u64;
        tries.sort_by_key(|t| (!t.check, t.replies));
        tries
    }

    /// Whether the attacker's move `t` forces mate within `k` moves (itself included).
    pub fn try_mates(&mut self, t: &Try, k: u32) -> bool {
        if t.replies == 0 {
            return t.check;
        }
        k >= 2 && self.defend(&t.child, k - 1)
    }

    /// Whether the side to move (the attacker) mates within `k` moves.
    pub fn attack(&mut self, board: &Board, k: u32) -> bool {
        if k == 0 || self.tick() {
            return false;
        }
        if k == 1 {
            return self.mate_in_one(board).is_some();
        }
        let key = board.hash();
        if let Some(known) = self.table.probe(key, k) {
            return known;
        }
        for t in self.tries(board) {
            if self.try_mates(&t, k) {
                self.table.store(key, k, true);
                return true;
            }
            if self.aborted {
                return false;
            }
        }
        self.table.store(key, k, false);
        false
    }

    /// A move of the side to move that mates at once, if any.
    pub fn mate_in_one(&mut self, board: &Board) -> Option<Move> {
        let mut found = None;
        let mut nodes = 0;
        board.generate_moves(|moves| {
            for mv in moves {
                if !gives_check(board, mv) {
                    continue;
                }
                nodes += 1;
                let mut child = board.clone();
                child.play_unchecked(mv);
                if !child.generate_moves(|_| true) {
                    found = Some(mv);
                    return true;
                }
            }
            false
        });
        self.nodes += nodes;
        found
    }

    /// Whether the defender, to move in `board`, is mated within `k` attacker moves.
    pub fn defend(&mut self, board: &Board, k: u32) -> bool {
        if self.tick() {
            return false;
        }
        let key = board.hash();
        if let Some(known) = self.table.probe(key, k) {
            return known;
        }
        let defences = self.defences(board, k);
        if defences.is_empty() {
            return !board.checkers().is_empty();
        }
        for mv in defences {
            let mut child = board.clone();
            child.play_unchecked(mv);
            if !self.attack(&child, k) {
                if self.aborted {
                    return false;
                }
                self.set_killer(k, mv);
                self.table.store(key, k, false);
                return false;
            }
        }
        self.table.store(key, k, true);
        true
    }

    /// The defender's moves in the order they are tried: the killer of
    /// depth `k`, then captures by victim value, then the rest.
    pub fn defences(&self, board: &Board, k: u32) -> Vec<Move> {
        let mut moves = Vec::with_capacity(48);
        board.generate_moves(|m| {
            moves.extend(m);
            false
        });
        let killer = self.killers.get(k as usize).copied().flatten();
        let them = !board.side_to_move();
        moves.sort_by_key(|&mv| {
            if Some(mv) == killer {
                return 0;
            }
            match board.piece_on(mv.to) {
                Some(victim) if board.color_on(mv.to) == Some(them) => 6 - victim_value(victim),
                _ => 10,
            }
        });
        moves
    }

    fn set_killer(&mut self, k: u32, mv: Move) {
        let k = k as usize;
        if self.killers.len() <= k {
            self.killers.resize(k + 1, None);
        }
        self.killers[k] = Some(mv);
    }

    /// The smallest `j` in `1..=k` such that the attacker, to move, mates
    /// within `j`; `None` when there is none (or the search was stopped).
    pub fn shortest_attack(&mut self, board: &Board, k: u32) -> Option<u32> {
        (1..=k).find(|&j| self.attack(board, j) && !self.aborted)
    }
}

/// Victim order for the defender's captures (a king is never captured).
fn victim_value(piece: Piece) -> i32 {
    match piece {
        Piece::Pawn => 1,
        Piece::Knight | Piece::Bishop => 2,
        Piece::Rook => 3,
        Piece::Queen => 4,
        Piece::King => 0,
    }
}
