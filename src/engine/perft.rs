//! Move generation node counts, for correctness and speed checks.

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
}
