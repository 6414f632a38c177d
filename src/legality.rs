//! What makes a position impossible, decided in one place.
//!
//! Every position that reaches the engine passes through [`checked_board`]:
//! FENs from people and GUIs ([`crate::notation::fen`]) and boards read from
//! pictures ([`crate::recognize`]) alike, so the two can never disagree about
//! what is legal. The move generator assumes what is checked here (one king a
//! side, kings apart, the side not to move not in check); a position that
//! breaks it could crash a search.
//!
//! The placement checks come first, because cozy-chess accepts some of them
//! (adjacent kings, surplus pieces); the rest (checks that cannot have
//! arisen, castling and en-passant fields) are cozy-chess's own validation.

use std::fmt;

use cozy_chess::{Board, Color, FenParseError};

/// One reason a position cannot arise in a game of chess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Impossibility {
    /// A side without exactly one king.
    KingCount { colour: Color, count: usize },
    /// The two kings on neighbouring squares.
    KingsAdjacent,
    /// Pawns on the first or last rank (their squares, e.g. `h8`).
    PawnsOnBackRank(Vec<String>),
    /// More than eight pawns.
    TooManyPawns { colour: Color, count: usize },
    /// More promoted pieces (a third rook, a second queen) than missing pawns.
    TooManyPieces { colour: Color, excess: usize },
    /// The side not to move is in check, or the checks cannot have arisen.
    Checks,
    /// Castling rights without the king and rook at home.
    Castling,
    /// An en-passant square no double pawn push can have made.
    EnPassant,
}

impl fmt::Display for Impossibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KingCount { colour, count } => {
                write!(f, "{} has {count} kings; expected 1", side(*colour))
            }
            Self::KingsAdjacent => write!(f, "the kings stand next to each other"),
            Self::PawnsOnBackRank(squares) => {
                write!(f, "pawns on the first or last rank: {}", squares.join(", "))
            }
            Self::TooManyPawns { colour, count } => {
                write!(f, "{} has {count} pawns; at most 8", side(*colour))
            }
            Self::TooManyPieces { colour, excess } => write!(
                f,
                "{} has {excess} more pieces than promotions of its missing pawns allow",
                side(*colour)
            ),
            Self::Checks => write!(
                f,
                "the side not to move is in check, or the checks cannot have arisen"
            ),
            Self::Castling => write!(f, "castling rights do not match the kings and rooks"),
            Self::EnPassant => write!(f, "impossible en-passant square"),
        }
    }
}

fn side(colour: Color) -> &'static str {
    match colour {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Several impossibilities, described for people in one line.
pub fn describe(problems: &[Impossibility]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The board of a full six-field FEN whose placement is `squares` (64 FEN
/// letters or `None`, a8 first), or every reason it cannot arise. A FEN
/// that is malformed rather than impossible is the caller's to rule out.
pub fn checked_board(squares: &[Option<char>], fen: &str) -> Result<Board, Vec<Impossibility>> {
    let problems = placement_impossibilities(squares);
    if !problems.is_empty() {
        return Err(problems);
    }
    fen.parse::<Board>().map_err(|err| {
        vec![match err {
            FenParseError::InvalidCastlingRights => Impossibility::Castling,
            FenParseError::InvalidEnPassant => Impossibility::EnPassant,
            _ => Impossibility::Checks,
        }]
    })
}

/// Everything impossible in a placement alone (64 FEN letters or `None`,
/// a8 first): king counts, adjacent kings, pawns on the back ranks, and
/// more pawns or promoted pieces than a side can have.
pub fn placement_impossibilities(squares: &[Option<char>]) -> Vec<Impossibility> {
    assert_eq!(squares.len(), 64, "a board has 64 squares");
    let count = |piece: char| squares.iter().filter(|s| **s == Some(piece)).count();
    let mut problems = Vec::new();
    for (king, colour) in [('K', Color::White), ('k', Color::Black)] {
        let count = count(king);
        if count != 1 {
            problems.push(Impossibility::KingCount { colour, count });
        }
    }
    if kings_adjacent(squares) {
        problems.push(Impossibility::KingsAdjacent);
    }
    let back_rank_pawns: Vec<String> = squares
        .iter()
        .enumerate()
        .filter(|(i, s)| !(8..56).contains(i) && matches!(s, Some('P' | 'p')))
        .map(|(i, _)| square_name(i))
        .collect();
    if !back_rank_pawns.is_empty() {
        problems.push(Impossibility::PawnsOnBackRank(back_rank_pawns));
    }
    for colour in [Color::White, Color::Black] {
        let letter = |piece: char| match colour {
            Color::White => piece.to_ascii_uppercase(),
            Color::Black => piece,
        };
        let pawns = count(letter('p'));
        if pawns > 8 {
            problems.push(Impossibility::TooManyPawns {
                colour,
                count: pawns,
            });
        }
        let promoted: usize = ['q', 'r', 'b', 'n']
            .into_iter()
            .map(|piece| count(letter(piece)).saturating_sub(initial_count(piece)))
            .sum();
        let missing_pawns = 8usize.saturating_sub(pawns);
        if promoted > missing_pawns {
            problems.push(Impossibility::TooManyPieces {
                colour,
                excess: promoted - missing_pawns,
            });
        }
    }
    problems
}

/// Whether some white king and some black king stand on neighbouring squares.
pub fn kings_adjacent(squares: &[Option<char>]) -> bool {
    let squares_of = |king: char| {
        (0..squares.len())
            .filter(|&i| squares[i] == Some(king))
            .collect::<Vec<_>>()
    };
    let black = squares_of('k');
    squares_of('K')
        .into_iter()
        .any(|white| black.iter().any(|&black| touching(white, black)))
}

/// Whether two squares (FEN indices, a8 first) are neighbours.
pub fn touching(a: usize, b: usize) -> bool {
    let rank = |i: usize| (i / 8) as i32;
    let file = |i: usize| (i % 8) as i32;
    a != b && (rank(a) - rank(b)).abs() <= 1 && (file(a) - file(b)).abs() <= 1
}

/// How many of a piece (FEN letter, either colour) a side starts with.
pub fn initial_count(piece: char) -> usize {
    match piece.to_ascii_lowercase() {
        'q' | 'k' => 1,
        'r' | 'b' | 'n' => 2,
        _ => 8,
    }
}

/// The name of the square at a FEN index (0 is a8, 63 is h1).
pub fn square_name(fen_index: usize) -> String {
    let file = (b'a' + (fen_index % 8) as u8) as char;
    let rank = 8 - fen_index / 8;
    format!("{file}{rank}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64 squares from a FEN's board field.
    fn squares(board: &str) -> Vec<Option<char>> {
        let mut squares = Vec::new();
        for c in board.chars().filter(|c| *c != '/') {
            match c.to_digit(10) {
                Some(n) => squares.extend(std::iter::repeat_n(None, n as usize)),
                None => squares.push(Some(c)),
            }
        }
        squares
    }

    fn problems(board: &str) -> Vec<Impossibility> {
        placement_impossibilities(&squares(board))
    }

    #[test]
    fn every_kind_of_impossible_placement_is_named() {
        use Impossibility::*;
        assert_eq!(problems("8/8/8/3kK3/8/8/8/8"), vec![KingsAdjacent]);
        assert_eq!(problems("8/8/8/8/8/8/3k4/4K3"), vec![KingsAdjacent]);
        assert_eq!(problems("8/8/8/3k1K2/8/8/8/8"), vec![]);
        // a1 and h2 are not neighbours even though their indices are close.
        assert_eq!(problems("8/8/8/8/8/8/7k/K7"), vec![]);
        assert_eq!(
            problems("8/8/8/8/8/8/8/4K3"),
            vec![KingCount {
                colour: Color::Black,
                count: 0
            }]
        );
        assert_eq!(
            problems("4k2P/8/8/8/8/8/8/4K3"),
            vec![PawnsOnBackRank(vec!["h8".into()])]
        );
        assert_eq!(
            problems("4k3/8/pppppppp/p7/8/8/8/4K3"),
            vec![TooManyPawns {
                colour: Color::Black,
                count: 9
            }]
        );
        assert_eq!(
            problems("4k3/8/8/8/8/8/PPPPPPPP/QQ2K3"),
            vec![TooManyPieces {
                colour: Color::White,
                excess: 1
            }]
        );
        // A second queen for a missing pawn is fine.
        assert_eq!(problems("4k3/8/8/8/8/8/PPPPPPP1/QQ2K3"), vec![]);
    }

    #[test]
    fn the_board_checks_follow_the_placement_checks() {
        let board = |fen: &str| checked_board(&squares(fen.split(' ').next().unwrap()), fen);
        assert!(board("4k3/8/8/8/8/8/8/4K3 w - - 0 1").is_ok());
        assert_eq!(
            board("8/8/8/3kK3/8/8/8/8 b - - 0 1"),
            Err(vec![Impossibility::KingsAdjacent])
        );
        assert_eq!(
            board("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
            Err(vec![Impossibility::Checks])
        );
        assert_eq!(
            board("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1"),
            Err(vec![Impossibility::Castling])
        );
        assert_eq!(
            board("4k3/8/8/8/8/8/8/4K3 w - e3 0 1"),
            Err(vec![Impossibility::EnPassant])
        );
    }
}
