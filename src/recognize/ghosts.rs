//! Pieces showing through the paper: on a printed board, a square the
//! classifier doubts whose darkest marks are far fainter than the ink of its
//! side's other pieces holds the other side of the leaf (bleed-through), or
//! a smudge, not a piece. A book prints every piece in the same black ink.
//! Picture order puts a light square at the top left in either view.

use super::second_look::DOUBT;
use super::{SquareScores, CLASSES};
use crate::vision::{median, CELL_LEN, CELL_SIDE};

/// A doubtful piece whose marks reach less than this share of the way from
/// its square colour's empty level to the ink of its side's sure pieces is
/// taken for a ghost.
const FAINT: f32 = 0.3;
/// A board whose cells average more chroma than this (0–1 RGB) is not print.
const MAX_PRINT_CHROMA: f32 = 0.06;
/// Pixels of the cell border left out of the measures (a neighbour's ink,
/// grid lines).
const BORDER: usize = 4;
/// Boards with fewer sure pieces than this give no ink level to compare with.
const MIN_SURE_PIECES: usize = 3;

/// Turns each ghost of a printed board into an empty square: the piece's
/// probability and the empty class's are swapped, so the square stays as
/// doubtful as it was. `cells` holds the board's 64 cells as cut for the
/// classifier, `scores` their 64 scores.
pub fn clear_ghosts(cells: &[f32], scores: &mut [SquareScores]) {
    debug_assert_eq!(cells.len(), 64 * CELL_LEN);
    let looks: Vec<CellLook> = cells.chunks(CELL_LEN).map(CellLook::of).collect();
    if looks.iter().map(|l| l.chroma).sum::<f32>() / 64.0 > MAX_PRINT_CHROMA {
        return;
    }
    for index in ghosts(&looks, scores) {
        let (best, _) = scores[index].best();
        let piece = CLASSES.iter().position(|c| *c == best).expect("a class");
        scores[index].0.swap(0, piece);
    }
}

/// What the faintness test needs of one cell.
#[derive(Clone, Copy, Debug)]
struct CellLook {
    /// The darkest marks: the 3rd percentile of luma inside the border.
    dark: f32,
    /// The paper: the median luma inside the border.
    median: f32,
    /// Mean of max − min channel over the cell.
    chroma: f32,
}

impl CellLook {
    fn of(cell: &[f32]) -> Self {
        let plane = CELL_SIDE * CELL_SIDE;
        let (r, g, b) = (&cell[..plane], &cell[plane..2 * plane], &cell[2 * plane..]);
        let chroma = (0..plane)
            .map(|i| r[i].max(g[i]).max(b[i]) - r[i].min(g[i]).min(b[i]))
            .sum::<f32>()
            / plane as f32;
        let inner = BORDER..CELL_SIDE - BORDER;
        let mut luma: Vec<f32> = inner
            .clone()
            .flat_map(|y| inner.clone().map(move |x| y * CELL_SIDE + x))
            .map(|i| 0.299 * r[i] + 0.587 * g[i] + 0.114 * b[i])
            .collect();
        luma.sort_by(f32::total_cmp);
        Self {
            dark: luma[luma.len() * 3 / 100],
            median: luma[luma.len() / 2],
            chroma,
        }
    }
}

/// Picture indices of the doubtful pieces that are too faint to be print.
fn ghosts(looks: &[CellLook], scores: &[SquareScores]) -> Vec<usize> {
    let read = |i: usize| scores[i].best();
    let is_dark_square = |i: usize| (i / 8 + i % 8) % 2 == 1;
    let empty = |dark_square: bool| -> Vec<usize> {
        (0..64)
            .filter(|&i| is_dark_square(i) == dark_square && read(i).0.is_none())
            .collect()
    };
    let light_empty = empty(false);
    if light_empty.is_empty() {
        return Vec::new();
    }
    let paper = median(
        &mut light_empty
            .iter()
            .map(|&i| looks[i].median)
            .collect::<Vec<_>>(),
    );
    // Each side's pieces are measured against that side's sure ones: a
    // book prints both in black ink, but a screen's white pieces may be
    // shaded in light grey without a dark outline.
    let sure_marks = |white: bool| -> Vec<f32> {
        (0..64)
            .filter(|&i| {
                matches!(read(i), (Some(piece), p) if p >= DOUBT && piece.is_ascii_uppercase() == white)
            })
            .map(|i| looks[i].dark)
            .collect()
    };
    let sure = [sure_marks(true), sure_marks(false)];
    if sure.iter().map(Vec::len).sum::<usize>() < MIN_SURE_PIECES {
        return Vec::new();
    }
    let side_ink = sure.map(|mut marks| (!marks.is_empty()).then(|| median(&mut marks)));
    let Some(ink) = side_ink.iter().flatten().copied().reduce(f32::min) else {
        return Vec::new();
    };
    // The darkest level of an empty square of each colour; a colour whose
    // empty squares hold ink-dark marks (hatching, dark grey) is not judged.
    let empty_level = [false, true].map(|dark_square| {
        let members = empty(dark_square);
        (!members.is_empty())
            .then(|| median(&mut members.iter().map(|&i| looks[i].dark).collect::<Vec<_>>()))
            .filter(|&level| level - ink >= 0.5 * (paper - ink))
    });
    (0..64)
        .filter(|&i| {
            let (Some(piece), p) = read(i) else {
                return false;
            };
            let side = usize::from(piece.is_ascii_lowercase());
            match (side_ink[side], empty_level[usize::from(is_dark_square(i))]) {
                (Some(ink), Some(level)) if p < DOUBT => {
                    level - looks[i].dark < FAINT * (level - ink)
                }
                _ => false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIGHT: f32 = 0.92;
    const DARK: f32 = 0.7;

    /// A grey cell of the board's colour at `index` with a 6×6 blot of
    /// `mark` in its middle (`None`: an empty square).
    fn cell(index: usize, mark: Option<f32>, tint: f32) -> Vec<f32> {
        let background = if (index / 8 + index % 8) % 2 == 1 {
            DARK
        } else {
            LIGHT
        };
        let mut planes = vec![background; CELL_LEN];
        let plane = CELL_SIDE * CELL_SIDE;
        planes[..plane]
            .iter_mut()
            .for_each(|r| *r = (*r + tint).min(1.0));
        if let Some(mark) = mark {
            for channel in 0..3 {
                for y in 13..19 {
                    for x in 13..19 {
                        planes[channel * plane + y * CELL_SIDE + x] = mark;
                    }
                }
            }
        }
        planes
    }

    fn scores_of(piece: Option<char>, p: f32) -> SquareScores {
        let mut scores = [(1.0 - p) / 12.0; 13];
        scores[CLASSES.iter().position(|c| *c == piece).unwrap()] = p;
        SquareScores(scores)
    }

    /// A board with sure pieces of both sides, plus the doubtful ones given
    /// as `(index, piece, mark)`; returns what is read on those squares.
    fn read_with(white_ink: f32, doubtful: &[(usize, char, f32)], tint: f32) -> Vec<Option<char>> {
        let sure = [
            (0, 'r', 0.05),
            (4, 'k', 0.05),
            (9, 'p', 0.05),
            (60, 'K', white_ink),
            (63, 'R', white_ink),
            (54, 'P', white_ink),
        ];
        let mut cells = Vec::new();
        let mut scores = Vec::new();
        for index in 0..64 {
            let placed = sure
                .iter()
                .map(|&(i, piece, mark)| (i, piece, mark, 0.99))
                .chain(
                    doubtful
                        .iter()
                        .map(|&(i, piece, mark)| (i, piece, mark, 0.6)),
                )
                .find(|&(i, ..)| i == index);
            match placed {
                Some((_, piece, mark, p)) => {
                    cells.extend(cell(index, Some(mark), tint));
                    scores.push(scores_of(Some(piece), p));
                }
                None => {
                    cells.extend(cell(index, None, tint));
                    scores.push(scores_of(None, 0.99));
                }
            }
        }
        clear_ghosts(&cells, &mut scores);
        doubtful.iter().map(|&(i, ..)| scores[i].best().0).collect()
    }

    #[test]
    fn faint_doubtful_pieces_of_a_printed_board_are_read_as_empty() {
        // d4 (35) a faint ghost read as a pawn, e4 (36) and f5 (29) printed pieces.
        let doubtful = [(35, 'P', 0.8), (36, 'P', 0.1), (29, 'n', 0.05)];
        assert_eq!(
            read_with(0.05, &doubtful, 0.0),
            [None, Some('P'), Some('n')]
        );
        // The swap keeps the square as doubtful as it was.
        let mut scores = vec![scores_of(None, 0.99); 64];
        let cells: Vec<f32> = (0..64).flat_map(|i| cell(i, None, 0.0)).collect();
        clear_ghosts(&cells, &mut scores);
        assert!(scores.iter().all(|s| s.best() == (None, 0.99)));
    }

    #[test]
    fn screens_and_coloured_boards_are_left_alone() {
        // A screen's white pieces shaded in light grey, without outlines.
        assert_eq!(read_with(0.75, &[(35, 'B', 0.8)], 0.0), [Some('B')]);
        // The same faint mark on a coloured board.
        assert_eq!(read_with(0.05, &[(35, 'P', 0.8)], 0.2), [Some('P')]);
    }
}
