//! A per-thread cache of the evaluation's pawn terms, keyed by the exact
//! pawn placement: the pawns change far less often than the pieces, so most
//! evaluations find their structure already worked out.

use cozy_chess::{BitBoard, Board, Color, Piece};

use super::correction::pawn_hash;
use super::eval::{evaluate_with, PawnInfo};

/// Entries in the cache (a power of two).
const SIZE: usize = 4_096;

#[derive(Clone, Copy)]
struct Entry {
    white: BitBoard,
    black: BitBoard,
    info: PawnInfo,
}

pub struct PawnCache {
    entries: Box<[Entry]>,
}

impl Default for PawnCache {
    fn default() -> Self {
        // No position has pawns on every square, so no lookup matches an
        // empty slot.
        let empty = Entry {
            white: BitBoard::FULL,
            black: BitBoard::FULL,
            info: PawnInfo::default(),
        };
        Self {
            entries: vec![empty; SIZE].into_boxed_slice(),
        }
    }
}

impl PawnCache {
    /// [`super::eval::evaluate`], with the pawn terms taken from the cache.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        let white = board.colored_pieces(Color::White, Piece::Pawn);
        let black = board.colored_pieces(Color::Black, Piece::Pawn);
        let slot = &mut self.entries[pawn_hash(white, black) as usize & (SIZE - 1)];
        if slot.white != white || slot.black != black {
            *slot = Entry {
                white,
                black,
                info: PawnInfo::of(board),
            };
        }
        evaluate_with(board, &slot.info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::engine::eval::evaluate;

    #[test]
    fn cached_evaluation_matches_the_direct_one() {
        let fens = [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            // Same pawns, other pieces: the cached entry must not carry
            // anything but the pawn terms.
            "r2qkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4",
            "8/5k2/8/3P4/8/8/2K5/8 w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        ];
        let mut cache = PawnCache::default();
        for _ in 0..2 {
            for fen in fens {
                let board: Board = fen.parse().unwrap();
                assert_eq!(cache.evaluate(&board), evaluate(&board), "{fen}");
            }
        }
    }
}
