//! Move generation node counts, for correctness and speed checks.
//!
//! [`divide_until`] is the stoppable form used by the UCI loop's `go perft`,
//! which runs on the job thread so that `stop` and `quit` are read meanwhile.

use std::sync::atomic::{AtomicBool, Ordering};

use cozy_chess::{Board, Move};

/// Number of leaf nodes of the legal move tree of `board` at `depth`.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        if depth == 1 {
            nodes += moves.len() as u64;
        } else {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += perft(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

/// Perft split by root move (`depth` ≥ 1).
pub fn divide(board: &Board, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            out.push((mv, perft(&child, depth.saturating_sub(1))));
        }
        false
    });
    out
}

/// [`divide`] that gives up and returns `None` once `stop` is set. The flag
/// is read before each root move and at every node two or more plies above
/// the leaves, so a stop is obeyed within one depth-1 subtree.
pub fn divide_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<Vec<(Move, u64)>> {
    let mut out = Vec::new();
    let mut stopped = false;
    board.generate_moves(|moves| {
        for mv in moves {
            if stop.load(Ordering::Relaxed) {
                stopped = true;
                return true;
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            match perft_until(&child, depth.saturating_sub(1), stop) {
                Some(n) => out.push((mv, n)),
                None => {
                    stopped = true;
                    return true;
                }
            }
        }
        false
    });
    (!stopped).then_some(out)
}

/// [`perft`] that returns `None` once `stop` is set.
fn perft_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= 1 {
        return Some(perft(board, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut nodes = 0;
    let mut stopped = false;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            match perft_until(&child, depth - 1, stop) {
                Some(n) => nodes += n,
                None => {
                    stopped = true;
                    return true;
                }
            }
        }
        false
    });
    (!stopped).then_some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let board = Board::default();
        assert_eq!(perft(&board, 3), 8_902);
        let split = divide(&board, 2);
        assert_eq!(split.len(), 20);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 400);
    }

    #[test]
    fn divide_until_matches_divide_and_obeys_stop() {
        let board = Board::default();
        let running = AtomicBool::new(false);
        assert_eq!(divide_until(&board, 3, &running), Some(divide(&board, 3)));
        let stopped = AtomicBool::new(true);
        assert_eq!(divide_until(&board, 10, &stopped), None);
    }
}
