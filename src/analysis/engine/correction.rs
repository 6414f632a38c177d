//! Static evaluation correction history.
//!
//! The static evaluation misjudges some structures the same way again and
//! again. These tables keep, per side to move and per pawn structure (and
//! per placement of each side's other pieces), a running average of how far
//! the search result landed from the static evaluation, and the search adds
//! their weighted mean to the static evaluation before it prunes on it.

use cozy_chess::{BitBoard, Board, Color, Piece};

use super::score::MATE_BOUND;

/// Entries per side to move (a power of two).
const SIZE: usize = 16_384;
/// Entries are kept in 1/GRAIN centipawns so that small updates add up.
const GRAIN: i32 = 256;
/// Largest correction, in centipawns.
const LIMIT: i32 = 64;
/// Largest weight of one update, out of 256 (reached at this depth - 1).
const MAX_WEIGHT: i32 = 16;

/// Tables: one keyed by the pawns, one by each side's other pieces.
const TABLES: usize = 3;
/// Share of each table in the correction, out of [`WEIGHT_SUM`].
const TABLE_WEIGHT: [i32; TABLES] = [2, 1, 1];
const WEIGHT_SUM: i32 = 4;

pub struct CorrectionHistory {
    table: Box<[[[i32; SIZE]; 2]; TABLES]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self {
            table: Box::new([[[0; SIZE]; 2]; TABLES]),
        }
    }
}

/// Where one position falls in each correction table. Computed once per
/// node and used both to correct its evaluation and to learn from its search.
#[derive(Clone, Copy)]
pub struct Slots {
    stm: usize,
    keys: [usize; TABLES],
}

impl Slots {
    pub fn of(board: &Board) -> Self {
        Self {
            stm: board.side_to_move() as usize,
            keys: keys(board),
        }
    }
}

impl CorrectionHistory {
    /// `raw`, the static evaluation of the position in `slots`, corrected by
    /// what searches of positions with its pawn structure or either side's
    /// piece placement found.
    pub fn correct(&self, slots: Slots, raw: i32) -> i32 {
        let sum: i32 = slots
            .keys
            .iter()
            .zip(self.table.iter())
            .zip(TABLE_WEIGHT)
            .map(|((&key, table), weight)| table[slots.stm][key] * weight)
            .sum();
        (raw + sum / (WEIGHT_SUM * GRAIN)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Moves the entries of the position in `slots` toward `score - raw`,
    /// the error of the static evaluation that a search to `depth` found,
    /// trusting deeper searches more.
    pub fn update(&mut self, slots: Slots, raw: i32, score: i32, depth: i32) {
        let weight = (depth + 1).min(MAX_WEIGHT);
        let target = (score - raw).clamp(-LIMIT, LIMIT) * GRAIN;
        for (key, table) in slots.keys.into_iter().zip(self.table.iter_mut()) {
            let entry = &mut table[slots.stm][key];
            *entry = (*entry * (256 - weight) + target * weight) / 256;
        }
    }
}

/// Table indices of `board`: a hash of where each side's pawns stand, and
/// for White and Black a hash of where their other pieces stand.
fn keys(board: &Board) -> [usize; TABLES] {
    let pawns = board.pieces(Piece::Pawn);
    let white = board.colors(Color::White);
    let black = board.colors(Color::Black);
    let pieces = |side: BitBoard| {
        [
            Piece::Knight,
            Piece::Bishop,
            Piece::Rook,
            Piece::Queen,
            Piece::King,
        ]
        .iter()
        .fold(0u64, |h, &p| {
            (h ^ (board.pieces(p) & side).0).wrapping_mul(FOLD)
        })
    };
    [
        pawn_hash(pawns & white, pawns & black),
        mix(pieces(white)),
        mix(pieces(black)),
    ]
    .map(|h| (h as usize) & (SIZE - 1))
}

/// A hash of where the white and the black pawns stand.
pub fn pawn_hash(white_pawns: BitBoard, black_pawns: BitBoard) -> u64 {
    mix(white_pawns.0.wrapping_mul(FOLD) ^ black_pawns.0)
}

/// Odd multiplier that folds one bitboard into a running hash.
const FOLD: u64 = 0x9E37_79B9_7F4A_7C15;

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
    fn learns_the_error_of_one_structure_only() {
        let mut correction = CorrectionHistory::default();
        let board = Board::default();
        for _ in 0..200 {
            correction.update(Slots::of(&board), 10, 50, 12);
        }
        assert!((38..=40).contains(&correction.correct(Slots::of(&board), 0)));
        // Same pieces, other pawns: only the piece tables apply.
        let pawns_moved: Board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
            .parse()
            .unwrap();
        assert!((18..=20).contains(&correction.correct(Slots::of(&pawns_moved), 0)));
        let all_moved: Board = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
            .parse()
            .unwrap();
        assert_eq!(correction.correct(Slots::of(&all_moved), 0), 0);
        // Large errors are capped.
        for _ in 0..200 {
            correction.update(Slots::of(&board), 0, 900, 12);
        }
        assert!((LIMIT - 2..=LIMIT).contains(&correction.correct(Slots::of(&board), 0)));
    }
}
