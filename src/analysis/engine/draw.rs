//! Draw rules the move generator does not see: the fifty-move rule,
//! repetition and insufficient material (stalemate is found by the search
//! when a node has no legal move); and how a game has ended by the rules.

use std::fmt;

use cozy_chess::{Board, Piece};
use serde::Serialize;

use super::eval::DARK;

/// True if neither side can possibly mate: bare kings, a single minor piece,
/// or only bishops that all stand on squares of one colour.
pub fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let knights = board.pieces(Piece::Knight);
    let bishops = board.pieces(Piece::Bishop);
    if knights.len() + bishops.len() <= 1 {
        return true;
    }
    knights.is_empty() && (bishops.is_subset(DARK) || bishops.is_disjoint(DARK))
}

/// True if the last entry of `keys` (the current position) already occurred
/// since the last irreversible move. Only positions with the same side to
/// move (every second entry) are compared.
pub fn is_repetition(keys: &[u64], halfmove_clock: u8) -> bool {
    let Some((&current, earlier)) = keys.split_last() else {
        return false;
    };
    let reach = usize::from(halfmove_clock).min(earlier.len());
    earlier[earlier.len() - reach..]
        .iter()
        .rev()
        .skip(3)
        .step_by(2)
        .any(|&k| k == current)
}

/// How a game has ended, by the rules alone.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GameOver {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
}

impl fmt::Display for GameOver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameOver::Checkmate => "checkmate",
            GameOver::Stalemate => "stalemate",
            GameOver::InsufficientMaterial => "insufficient material",
            GameOver::FiftyMoves => "fifty-move rule",
        })
    }
}

/// How the game on `board` has ended, if it has: no legal move (checkmate or
/// stalemate), insufficient material, or the fifty-move rule (halfmove clock
/// at 100). Repetition needs the game's history, which a FEN lacks.
pub fn game_over(board: &Board) -> Option<GameOver> {
    if !board.generate_moves(|_| true) {
        Some(if board.checkers().is_empty() {
            GameOver::Stalemate
        } else {
            GameOver::Checkmate
        })
    } else if insufficient_material(board) {
        Some(GameOver::InsufficientMaterial)
    } else if board.halfmove_clock() >= 100 {
        Some(GameOver::FiftyMoves)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insufficient(fen: &str) -> bool {
        insufficient_material(&fen.parse().unwrap())
    }

    #[test]
    fn material_draws() {
        assert!(insufficient("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(insufficient("8/8/4k3/8/8/3KN3/8/8 w - - 0 1"));
        assert!(insufficient("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1"));
        assert!(!insufficient("8/8/4k1b1/8/8/3KB3/8/8 w - - 0 1"));
        assert!(!insufficient("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"));
        assert!(!insufficient("8/8/4k3/8/8/3K4/7P/8 w - - 0 1"));
    }

    #[test]
    fn repetition_needs_same_side_to_move_and_clock() {
        // a b a' b' a: the current key repeats four plies back.
        assert!(is_repetition(&[1, 2, 3, 4, 1], 4));
        assert!(!is_repetition(&[1, 2, 3, 4, 1], 3));
        assert!(!is_repetition(&[1, 2, 3, 1], 3));
        assert!(!is_repetition(&[1], 0));
    }
}
