//! Turning 64 classified squares into a position: orientation, side to move,
//! castling rights, a FEN and a legality check.

use cozy_chess::Color;
use serde::Serialize;

use super::classifier::SquareScores;
use crate::legality::{self, square_name, Impossibility};

/// Which side is at the bottom of the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum View {
    White,
    Black,
}

impl std::str::FromStr for View {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "white" | "w" => Ok(View::White),
            "black" | "b" => Ok(View::Black),
            _ => Err(format!("view must be white or black, not {s:?}")),
        }
    }
}

/// Where the orientation came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OrientationSource {
    /// The caller said which side is at the bottom.
    Given,
    /// The rank digits or file letters in or beside the board.
    Coordinates,
    /// The coordinates of the other boards in the same picture, for a board
    /// without its own: a book prints the diagrams of a page from one side.
    OtherBoards,
    /// Where the pieces stand (pawns and kings above all).
    Pieces,
}

/// Where the side to move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SideSource {
    /// The caller said whose move it is.
    Given,
    /// The text printed next to the diagram on a PDF page ("Black to move",
    /// "Ход белых").
    Caption,
    /// The last move's highlighted squares: the side that did not just move.
    Highlight,
    /// Nothing said: White.
    Default,
}

/// One square as read from the picture.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SquareReading {
    /// Algebraic name, `a8` … `h1`.
    pub square: String,
    /// FEN letter of the piece, `null` when empty.
    #[schema(value_type = Option<String>)]
    pub piece: Option<char>,
    pub confidence: f32,
}

/// The position assembled from one board.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// Squares ordered a8, b8, … h8, a7, … h1 (FEN order).
    pub squares: Vec<SquareReading>,
    pub side_to_move: Color,
    pub side_to_move_source: SideSource,
    pub castling: String,
    /// The classifier's scores per square, in FEN order, for repairs.
    pub scores: Vec<SquareScores>,
}

impl Placement {
    /// Assembles a position from scores in picture order (top row first).
    pub fn from_picture(
        scores: &[SquareScores],
        view: View,
        (side_to_move, side_to_move_source): (Color, SideSource),
    ) -> Placement {
        assert_eq!(scores.len(), 64, "a board has 64 squares");
        let fen_order: Vec<SquareScores> = (0..64)
            .map(|fen_index| {
                let (rank_from_top, file) = (fen_index / 8, fen_index % 8);
                let picture_index = match view {
                    View::White => fen_index,
                    View::Black => (7 - rank_from_top) * 8 + (7 - file),
                };
                scores[picture_index].clone()
            })
            .collect();
        let squares = fen_order
            .iter()
            .enumerate()
            .map(|(fen_index, scores)| {
                let piece = scores.best().0;
                SquareReading {
                    square: square_name(fen_index),
                    piece,
                    confidence: scores.calibrated(piece),
                }
            })
            .collect::<Vec<_>>();
        let castling = castling_from_placement(&squares);
        Placement {
            squares,
            side_to_move,
            side_to_move_source,
            castling,
            scores: fen_order,
        }
    }

    /// Puts `piece` on the square at `fen_index`, with its probability.
    pub fn set_piece(&mut self, fen_index: usize, piece: Option<char>) {
        let confidence = self.scores[fen_index].calibrated(piece);
        let square = &mut self.squares[fen_index];
        square.piece = piece;
        square.confidence = confidence;
        self.castling = castling_from_placement(&self.squares);
    }

    /// The board part of the FEN.
    pub fn board_fen(&self) -> String {
        let mut fen = String::new();
        for rank in self.squares.chunks(8) {
            let mut empty = 0;
            for square in rank {
                match square.piece {
                    Some(piece) => {
                        if empty > 0 {
                            fen.push(char::from_digit(empty, 10).expect("at most 8"));
                            empty = 0;
                        }
                        fen.push(piece);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from_digit(empty, 10).expect("at most 8"));
            }
            fen.push('/');
        }
        fen.pop();
        fen
    }

    /// The full FEN: no en-passant square can be seen, and the clocks are unknown.
    pub fn fen(&self) -> String {
        format!(
            "{} {} {} - 0 1",
            self.board_fen(),
            self.side_to_move,
            self.castling
        )
    }

    /// Probability that all 64 squares are right, taking squares as independent.
    pub fn confidence(&self) -> f32 {
        self.squares.iter().map(|s| s.confidence).product()
    }

    /// What each square holds, a8 first.
    pub fn pieces(&self) -> Vec<Option<char>> {
        self.squares.iter().map(|s| s.piece).collect()
    }

    /// The chess position read, or every reason it cannot occur in a game
    /// (by the same rules as FENs from users).
    pub fn checked_board(&self) -> Result<cozy_chess::Board, Vec<Impossibility>> {
        legality::checked_board(&self.pieces(), &self.fen())
    }

    /// Every reason the position cannot occur in a game; empty when it is legal.
    pub fn impossibilities(&self) -> Vec<Impossibility> {
        self.checked_board().err().unwrap_or_default()
    }

    /// [`Self::impossibilities`], described for people.
    pub fn legality_warnings(&self) -> Vec<String> {
        self.impossibilities()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// How many squares hold `piece` (a FEN letter).
    pub fn count(&self, piece: char) -> usize {
        self.squares
            .iter()
            .filter(|s| s.piece == Some(piece))
            .count()
    }
}

/// How much more the pieces must lean towards Black at the bottom before
/// the guess leaves White, the usual view (books print diagrams from White's
/// side, and sites that show Black at the bottom usually draw coordinates,
/// which decide first). One unit is a pawn one row off the middle.
const WHITE_VIEW_PRIOR: f32 = 3.0;

/// [`WHITE_VIEW_PRIOR`] for a printed diagram (hatched or halftone dark
/// squares): books set diagrams from White's side by convention, so only a
/// lean as strong as most of a side's pawns standing at the top turns one.
const PRINTED_WHITE_VIEW_PRIOR: f32 = 12.0;

/// Guesses which side is at the bottom from where the pieces stand: White's
/// pieces, pawns above all, usually sit in the lower half of a picture taken
/// from White's side. Unless the pieces say clearly otherwise, White; on a
/// `printed` diagram, unless they say so more clearly still.
pub fn guess_view(scores: &[SquareScores], printed: bool) -> View {
    let prior = if printed {
        PRINTED_WHITE_VIEW_PRIOR
    } else {
        WHITE_VIEW_PRIOR
    };
    let mut lean = 0.0;
    for (index, square) in scores.iter().enumerate() {
        let (piece, confidence) = square.best();
        let Some(piece) = piece else { continue };
        // Rows counted from the top of the picture: +3.5 bottom row, -3.5 top row.
        let height = (index / 8) as f32 - 3.5;
        let weight = match piece.to_ascii_lowercase() {
            'p' => 2.0,
            'k' => 1.5,
            _ => 1.0,
        } * confidence;
        lean += if piece.is_ascii_uppercase() {
            height
        } else {
            -height
        } * weight;
    }
    if lean < -prior {
        View::Black
    } else {
        View::White
    }
}

/// Castling rights that the placement allows: king and rook on their start squares.
fn castling_from_placement(squares: &[SquareReading]) -> String {
    let at = |name: &str| {
        squares
            .iter()
            .find(|s| s.square == name)
            .and_then(|s| s.piece)
    };
    let mut rights = String::new();
    for (king_sq, king, rook_sq, rook, letter) in [
        ("e1", 'K', "h1", 'R', 'K'),
        ("e1", 'K', "a1", 'R', 'Q'),
        ("e8", 'k', "h8", 'r', 'k'),
        ("e8", 'k', "a8", 'r', 'q'),
    ] {
        if at(king_sq) == Some(king) && at(rook_sq) == Some(rook) {
            rights.push(letter);
        }
    }
    if rights.is_empty() {
        rights.push('-');
    }
    rights
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::classifier::CLASSES;

    const DEFAULT_SIDE: (Color, SideSource) = (Color::White, SideSource::Default);

    /// Scores that put `board_fen`'s pieces with certainty, laid out as seen from `view`.
    fn scores_for(board_fen: &str, view: View) -> Vec<SquareScores> {
        let mut fen_order = Vec::new();
        for c in board_fen.chars().filter(|c| *c != '/') {
            match c.to_digit(10) {
                Some(n) => fen_order.extend(std::iter::repeat_n(None, n as usize)),
                None => fen_order.push(Some(c)),
            }
        }
        let picture: Vec<Option<char>> = match view {
            View::White => fen_order,
            View::Black => fen_order.into_iter().rev().collect(),
        };
        picture
            .into_iter()
            .map(|piece| {
                let mut p = [0.0; 13];
                p[CLASSES.iter().position(|c| *c == piece).unwrap()] = 1.0;
                SquareScores(p)
            })
            .collect()
    }

    const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R";

    #[test]
    fn white_view_round_trips() {
        let position =
            Placement::from_picture(&scores_for(ITALIAN, View::White), View::White, DEFAULT_SIDE);
        assert_eq!(position.board_fen(), ITALIAN);
        assert_eq!(position.fen(), format!("{ITALIAN} w KQkq - 0 1"));
        assert_eq!(position.side_to_move_source, SideSource::Default);
        assert!(position.legality_warnings().is_empty());
    }

    #[test]
    fn black_view_is_rotated() {
        let position = Placement::from_picture(
            &scores_for(ITALIAN, View::Black),
            View::Black,
            (Color::Black, SideSource::Given),
        );
        assert_eq!(position.board_fen(), ITALIAN);
        assert!(position.fen().starts_with(&format!("{ITALIAN} b ")));
        assert_eq!(position.squares[0].square, "a8");
        assert_eq!(position.squares[0].piece, Some('r'));
    }

    #[test]
    fn guesses_the_view_from_piece_placement() {
        assert_eq!(
            guess_view(&scores_for(ITALIAN, View::White), false),
            View::White
        );
        assert_eq!(
            guess_view(&scores_for(ITALIAN, View::Black), false),
            View::Black
        );
        let endgame = "8/5k2/3p4/1p6/1P6/3P4/4K3/8";
        assert_eq!(
            guess_view(&scores_for(endgame, View::Black), false),
            View::Black
        );
        assert_eq!(
            guess_view(&scores_for(endgame, View::White), false),
            View::White
        );
        // Bare kings on one rank say nothing: White, the usual view.
        let kings = "8/8/8/8/8/8/8/K6k";
        assert_eq!(
            guess_view(&scores_for(kings, View::White), false),
            View::White
        );
        assert_eq!(
            guess_view(&scores_for(kings, View::Black), false),
            View::White
        );
        // A printed diagram turns only on a strong lean: a lone pawn each
        // near the wrong edge leaves it at White, a whole game does not.
        let pawns = "8/p7/8/3k4/4K3/8/7P/8";
        assert_eq!(
            guess_view(&scores_for(pawns, View::Black), false),
            View::Black
        );
        assert_eq!(
            guess_view(&scores_for(pawns, View::Black), true),
            View::White
        );
        assert_eq!(
            guess_view(&scores_for(ITALIAN, View::Black), true),
            View::Black
        );
    }

    #[test]
    fn castling_needs_king_and_rook_at_home() {
        let position = Placement::from_picture(
            &scores_for("r3k3/8/8/8/8/8/8/4K2R", View::White),
            View::White,
            DEFAULT_SIDE,
        );
        assert_eq!(position.castling, "Kq");
    }

    #[test]
    fn warns_about_impossible_positions() {
        let two_kings = Placement::from_picture(
            &scores_for("k6k/8/8/8/8/8/8/4K3", View::White),
            View::White,
            DEFAULT_SIDE,
        );
        assert!(two_kings
            .legality_warnings()
            .iter()
            .any(|w| w.contains("black has 2 kings")));
        let pawn = Placement::from_picture(
            &scores_for("k6P/8/8/8/8/8/8/4K3", View::White),
            View::White,
            DEFAULT_SIDE,
        );
        assert!(pawn.legality_warnings().iter().any(|w| w.contains("h8")));
        // White to move while Black is in check from the rook.
        let check = Placement::from_picture(
            &scores_for("k7/8/8/8/8/8/8/R3K3", View::White),
            View::White,
            DEFAULT_SIDE,
        );
        assert!(!check.legality_warnings().is_empty());
    }
}
