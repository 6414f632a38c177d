//! What a position is searched by: its placement (the board field of the
//! FEN, whoever is to move) and its material signature.
//!
//! The signature lists White's pieces then Black's, each as `KQRBNP` letters
//! in that order, joined by `v`: `KRPPvKR`. Leaving out the pawns gives the
//! piece signature (`KRvKR`), so that "every rook ending" is one search.

use crate::notation::fen::{parse_fen, parse_placement, FenError};

/// A position's search keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keys {
    /// The FEN as boardscan writes it (all six fields).
    pub fen: String,
    pub placement: String,
    /// With pawns: `KRPPvKR`.
    pub material: String,
    /// Without pawns: `KRvKR`.
    pub pieces: String,
}

impl Keys {
    /// The keys of a FEN, which must describe a possible position.
    pub fn of(fen: &str) -> Result<Self, FenError> {
        let board = parse_fen(fen)?;
        let fen = board.to_string();
        let placement = fen.split(' ').next().unwrap_or_default().to_string();
        let squares = parse_placement(&placement)?;
        Ok(Self {
            material: signature(&squares, true),
            pieces: signature(&squares, false),
            fen,
            placement,
        })
    }
}

/// The signature of the pieces on `squares`, with or without pawns.
fn signature(squares: &[Option<char>], pawns: bool) -> String {
    let side = |white: bool| -> String {
        "KQRBNP"
            .chars()
            .filter(|&kind| pawns || kind != 'P')
            .flat_map(|kind| {
                let letter = if white {
                    kind
                } else {
                    kind.to_ascii_lowercase()
                };
                let n = squares.iter().filter(|&&s| s == Some(letter)).count();
                std::iter::repeat_n(kind, n)
            })
            .collect()
    };
    format!("{}v{}", side(true), side(false))
}

/// A placement as searched: the board field of a FEN or a whole FEN,
/// checked to be a board of 8 ranks of 8 squares.
pub fn placement_of(text: &str) -> Result<String, FenError> {
    let board = text.split_whitespace().next().unwrap_or_default();
    parse_placement(board)?;
    Ok(board.to_string())
}

/// A material search term, upper-cased (`krvkr` is `KRvKR`); anything but
/// piece letters around one `v` is refused.
pub fn material_of(text: &str) -> Option<String> {
    let (white, black) = text.trim().split_once(['v', 'V'])?;
    let side = |s: &str| {
        let up = s.to_ascii_uppercase();
        (up.starts_with('K') && up.chars().all(|c| "KQRBNP".contains(c))).then_some(up)
    };
    Some(format!("{}v{}", side(white)?, side(black)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_a_rook_ending() {
        let keys = Keys::of("8/5pk1/8/8/8/8/r4PPP/3R2K1 b - - 0 1").unwrap();
        assert_eq!(keys.placement, "8/5pk1/8/8/8/8/r4PPP/3R2K1");
        assert_eq!(keys.material, "KRPPPvKRP");
        assert_eq!(keys.pieces, "KRvKR");
        assert_eq!(keys.fen, "8/5pk1/8/8/8/8/r4PPP/3R2K1 b - - 0 1");
    }

    #[test]
    fn a_board_field_alone_is_white_to_move() {
        let keys = Keys::of("4k3/8/8/8/8/8/8/4K2Q").unwrap();
        assert_eq!(keys.fen, "4k3/8/8/8/8/8/8/4K2Q w - - 0 1");
        assert_eq!(keys.material, "KQvK");
    }

    #[test]
    fn search_terms_are_checked() {
        assert_eq!(material_of("krvkr").as_deref(), Some("KRvKR"));
        assert_eq!(material_of("KRPvKR").as_deref(), Some("KRPvKR"));
        assert_eq!(material_of("rook"), None);
        assert_eq!(material_of("KXvK"), None);
        assert!(placement_of("8/8/8/8/8/8/8/8 w - - 0 1").is_ok());
        assert!(placement_of("8/8/8").is_err());
    }
}
