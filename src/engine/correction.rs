//! Static evaluation correction history.
//!
//! The hand-written evaluation misjudges some pawn structures the same way
//! again and again. This table keeps, per side to move and pawn structure, a
//! running average of how far the search result landed from the static
//! evaluation, and the search adds it to the static evaluation before it
//! prunes on it.

use cozy_chess::{Board, Color, Piece};

use super::score::MATE_BOUND;

/// Entries per side to move (a power of two).
const SIZE: usize = 16_384;
/// Entries are kept in 1/GRAIN centipawns so that small updates add up.
const GRAIN: i32 = 256;
/// Largest correction, in centipawns.
const LIMIT: i32 = 64;
/// Largest weight of one update, out of 256 (reached at this depth - 1).
const MAX_WEIGHT: i32 = 16;

pub struct CorrectionHistory {
    table: Box<[[i32; SIZE]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self {
            table: Box::new([[0; SIZE]; 2]),
        }
    }
}

impl CorrectionHistory {
    /// `raw`, the static evaluation of `board`, corrected by what searches of
    /// positions with its pawn structure found.
    pub fn correct(&self, board: &Board, raw: i32) -> i32 {
        let correction = self.table[stm(board)][pawn_index(board)] / GRAIN;
        (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Moves the entry of `board` toward `score - raw`, the error of the
    /// static evaluation that a search to `depth` found, trusting deeper
    /// searches more.
    pub fn update(&mut self, board: &Board, raw: i32, score: i32, depth: i32) {
        let weight = (depth + 1).min(MAX_WEIGHT);
        let target = (score - raw).clamp(-LIMIT, LIMIT) * GRAIN;
        let entry = &mut self.table[stm(board)][pawn_index(board)];
        *entry = (*entry * (256 - weight) + target * weight) / 256;
    }
}

fn stm(board: &Board) -> usize {
    board.side_to_move() as usize
}

/// Hash of where each side's pawns stand.
fn pawn_index(board: &Board) -> usize {
    let pawns = board.pieces(Piece::Pawn);
    let white = (pawns & board.colors(Color::White)).0;
    let black = (pawns & board.colors(Color::Black)).0;
    (mix(white ^ mix(black)) as usize) & (SIZE - 1)
}

/// The SplitMix64 finaliser: spreads every input bit over the output.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_the_error_of_one_pawn_structure_only() {
        let mut correction = CorrectionHistory::default();
        let board = Board::default();
        for _ in 0..200 {
            correction.update(&board, 10, 40, 12);
        }
        assert_eq!(correction.correct(&board, 10), 39);
        let other: Board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
            .parse()
            .unwrap();
        assert_eq!(correction.correct(&other, 10), 10);
        // Large errors are capped.
        for _ in 0..200 {
            correction.update(&board, 0, 900, 12);
        }
        assert_eq!(correction.correct(&board, 0), LIMIT - 1);
    }
}
