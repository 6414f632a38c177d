//! Every legal move of a position, written for clients without a move
//! generator.

use cozy_chess::{Board, Move};
use serde::Serialize;

use crate::{
    analysis::{game_over, GameOver},
    notation::{
        lang::{format_move, Lang, MoveStyle},
        uci::move_to_uci,
    },
};

/// One legal move and the position after it.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LegalMove {
    pub uci: String,
    /// The move in the requested language and notation.
    pub san: String,
    pub fen_after: String,
}

/// Every legal move of a position.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveList {
    /// Sorted by UCI.
    pub moves: Vec<LegalMove>,
    pub fen: String,
    /// Whether the side to move is in check.
    pub check: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_over: Option<GameOver>,
}

/// Lists the legal moves of `board`, written in `lang` and `style`.
pub fn legal_moves(board: &Board, lang: Lang, style: MoveStyle) -> MoveList {
    let mut all: Vec<Move> = Vec::new();
    board.generate_moves(|moves| {
        all.extend(moves);
        false
    });
    let mut moves: Vec<LegalMove> = all
        .into_iter()
        .map(|mv| {
            let mut after = board.clone();
            after.play_unchecked(mv);
            LegalMove {
                uci: move_to_uci(board, mv, false),
                san: format_move(board, mv, lang, style),
                fen_after: after.to_string(),
            }
        })
        .collect();
    moves.sort_by(|a, b| a.uci.cmp(&b.uci));
    MoveList {
        moves,
        fen: board.to_string(),
        check: !board.checkers().is_empty(),
        game_over: game_over(board),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse().unwrap()
    }

    #[test]
    fn start_has_twenty_moves() {
        let list = legal_moves(&Board::default(), Lang::Ru, MoveStyle::Long);
        assert_eq!(list.moves.len(), 20);
        assert!(!list.check && list.game_over.is_none());
        let knight = list.moves.iter().find(|m| m.uci == "g1f3").unwrap();
        assert_eq!(knight.san, "Кg1-f3");
        assert_eq!(
            knight.fen_after,
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
        );
    }

    #[test]
    fn endings() {
        // Fool's mate.
        let mate = board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let list = legal_moves(&mate, Lang::En, MoveStyle::San);
        assert!(list.moves.is_empty() && list.check);
        assert_eq!(list.game_over, Some(GameOver::Checkmate));
        assert_eq!(
            game_over(&board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")),
            Some(GameOver::Stalemate)
        );
        assert_eq!(
            game_over(&board("8/8/4k3/8/8/3KB3/8/8 w - - 0 1")),
            Some(GameOver::InsufficientMaterial)
        );
        assert_eq!(
            game_over(&board("8/8/4k3/8/8/R2K4/8/8 w - - 100 80")),
            Some(GameOver::FiftyMoves)
        );
        assert_eq!(game_over(&board("8/8/4k3/8/8/R2K4/8/8 w - - 99 80")), None);
        // Bishops all on one colour cannot mate; two knights can (with help).
        assert_eq!(
            game_over(&board("8/8/3k1b2/8/8/3K4/5B2/8 b - - 0 1")),
            Some(GameOver::InsufficientMaterial)
        );
        assert_eq!(game_over(&board("8/8/3k4/8/8/3K4/4NN2/8 b - - 0 1")), None);
    }
}
