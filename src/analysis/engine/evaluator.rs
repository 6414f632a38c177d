//! The static evaluation one search thread uses: the network ([`super::nnue`])
//! with a hidden layer per ply, or the hand-written evaluation
//! ([`super::eval`]) through its pawn cache.
//!
//! The network's hidden layers are updated lazily. [`Evaluator::play`] only
//! notes which pieces a move took away and put down; [`Evaluator::evaluate`]
//! brings the hidden layers of the current path up to date from the nearest
//! ply that is. Moves that are pruned before their position is evaluated
//! then cost no update at all.

use cozy_chess::Board;

use super::nnue::{Accumulator, Delta, Network};
use super::pawn_cache::PawnCache;
use super::search::MAX_PLY;

/// Hidden layers along the current search path, index = ply.
struct NetworkStack {
    net: &'static Network,
    accumulators: Vec<Accumulator>,
    /// The move into each ply.
    deltas: Vec<Delta>,
    /// Whether `accumulators[ply]` belongs to the current path.
    fresh: Vec<bool>,
}

pub struct Evaluator {
    network: Option<NetworkStack>,
    pawns: PawnCache,
}

impl Evaluator {
    /// An evaluator for a search from `root`; `use_network` picks the
    /// network over the hand-written evaluation.
    pub fn new(root: &Board, use_network: bool) -> Self {
        let network = use_network.then(|| {
            let net = Network::bundled();
            let root_acc = Accumulator::new(net, root);
            let mut fresh = vec![false; MAX_PLY + 2];
            fresh[0] = true;
            NetworkStack {
                net,
                accumulators: vec![root_acc; MAX_PLY + 2],
                deltas: vec![Delta::default(); MAX_PLY + 2],
                fresh,
            }
        });
        Self {
            network,
            pawns: PawnCache::default(),
        }
    }

    /// Notes that the search went from `parent` to `child` (a move or a null
    /// move), which is at `ply`.
    pub fn play(&mut self, ply: usize, parent: &Board, child: &Board) {
        if let Some(stack) = &mut self.network {
            stack.deltas[ply] = Delta::between(parent, child);
            stack.fresh[ply] = false;
        }
    }

    /// The static evaluation of `board`, the position at `ply` of the current
    /// path, in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, board: &Board, ply: usize) -> i32 {
        let Some(stack) = &mut self.network else {
            return self.pawns.evaluate(board);
        };
        let mut start = ply;
        while !stack.fresh[start] {
            start -= 1;
        }
        for p in start + 1..=ply {
            let (done, rest) = stack.accumulators.split_at_mut(p);
            rest[0].apply(stack.net, &done[p - 1], &stack.deltas[p]);
            stack.fresh[p] = true;
        }
        let score = stack.net.evaluate(&stack.accumulators[ply], board);
        // Every search in a debug build checks the lazy updates.
        debug_assert_eq!(score, super::nnue::evaluate(board), "{board} at ply {ply}");
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::engine::{eval, nnue};

    /// Down a path and back up and down another, the lazily updated
    /// evaluation equals a fresh one at every ply.
    #[test]
    fn lazy_updates_follow_the_search_path() {
        let root: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10"
            .parse()
            .unwrap();
        let mut evaluator = Evaluator::new(&root, true);
        let lines = [
            ["e1g1", "e8c8", "d5e6", "h3g2"],
            ["e2a6", "b4c3", "e5f7", "e8f7"],
        ];
        for line in lines {
            let mut board = root.clone();
            for (i, text) in line.iter().enumerate() {
                let mv = crate::notation::uci::parse_uci_move(&board, text, false).unwrap();
                let mut child = board.clone();
                child.play_unchecked(mv);
                evaluator.play(i + 1, &board, &child);
                board = child;
                // Evaluate only every other ply, so that updates chain.
                if i % 2 == 1 {
                    assert_eq!(evaluator.evaluate(&board, i + 1), nnue::evaluate(&board));
                }
            }
        }
        assert_eq!(evaluator.evaluate(&root, 0), nnue::evaluate(&root));
    }

    #[test]
    fn without_the_network_it_is_the_hand_written_evaluation() {
        let board = Board::default();
        let mut evaluator = Evaluator::new(&board, false);
        assert_eq!(evaluator.evaluate(&board, 0), eval::evaluate(&board));
    }
}
