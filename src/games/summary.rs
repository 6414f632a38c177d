//! A game as read, without analysis, for programs: its start, its moves in
//! UCI and SAN, its result and its comments.

use serde::Serialize;

use super::{analyse::fen_of, pgn::Game};
use crate::notation::{san::move_to_san, uci::move_to_uci};

/// A game as read.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    /// The game's number, from 1.
    pub game: usize,
    pub start_fen: String,
    /// The main line in UCI notation.
    pub uci: Vec<String>,
    /// The main line in English SAN.
    pub san: Vec<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The game's comments: before the first move, then after each move.
    pub comments: Vec<String>,
}

impl GameSummary {
    pub fn of(game: &Game) -> Self {
        let mut board = game.start.clone();
        let (mut uci, mut san) = (Vec::new(), Vec::new());
        for played in &game.moves {
            uci.push(move_to_uci(&board, played.mv, game.chess960));
            san.push(move_to_san(&board, played.mv));
            board.play_unchecked(played.mv);
        }
        Self {
            game: game.number,
            start_fen: fen_of(&game.start, game.chess960),
            uci,
            san,
            result: game.result.clone().unwrap_or_else(|| "*".into()),
            comments: game
                .intro
                .iter()
                .chain(game.moves.iter().flat_map(|m| &m.comments))
                .cloned()
                .collect(),
        }
    }
}
