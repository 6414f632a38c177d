//! Pieces showing through the paper: on a printed board, a square the
//! classifier doubts whose darkest marks are far fainter than the ink of its
//! side's other pieces holds the other side of the leaf (bleed-through), or
//! a smudge, not a piece. A book prints every piece in the same black ink.
//! On a grey dark square, a white piece also shows its paper-white inside,
//! which a ghost never does, so a fainter ghost is allowed there. Photos are
//! left alone: their light falls unevenly, and a shadowed piece looks faint.
//! Picture order puts a light square at the top left in either view.

use super::second_look::DOUBT;
use super::{SquareScores, CLASSES};
use crate::vision::{median, CELL_LEN, CELL_SIDE};

/// A doubtful piece whose marks reach less than this share of the way from
/// its square colour's empty level to the ink of its side's sure pieces is
/// taken for a ghost.
const FAINT: f32 = 0.3;
/// [`FAINT`] for a doubtful white piece on a grey dark square whose brightest
/// marks are no brighter than an empty dark square's (no white inside).
const FAINT_ON_GREY: f32 = 0.6;
/// Dark squares whose empty median luma is this much below the paper's are
/// printed grey (a tone, or hatching blurred by the scan), not hatched on
/// white paper.
const GREY_BELOW_PAPER: f32 = 0.05;
/// A board whose empty light squares spread wider than this in median luma
/// (10th to 90th percentile) is lit unevenly: a photo, not a scan.
const MAX_PAPER_SPREAD: f32 = 0.1;
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
    /// The brightest marks: the 97th percentile of luma inside the border.
    bright: f32,
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
            bright: luma[luma.len() * 97 / 100],
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
    let median_of = |members: &[usize], measure: fn(&CellLook) -> f32| {
        (!members.is_empty()).then(|| {
            median(
                &mut members
                    .iter()
                    .map(|&i| measure(&looks[i]))
                    .collect::<Vec<_>>(),
            )
        })
    };
    let empty_squares = [empty(false), empty(true)];
    let [light_empty, dark_empty] = &empty_squares;
    // The paper of the empty light squares: its upper median is the
    // paper's level, its 10th to 90th percentile how unevenly it is lit.
    let mut papers: Vec<f32> = light_empty.iter().map(|&i| looks[i].median).collect();
    if papers.is_empty() {
        return Vec::new();
    }
    papers.sort_by(f32::total_cmp);
    let paper_at = |share: usize| papers[papers.len() * share / 100];
    let paper = paper_at(50);
    if paper_at(90) - paper_at(10) > MAX_PAPER_SPREAD {
        return Vec::new();
    }
    // Each side's pieces are measured against that side's sure ones: a
    // book prints both in black ink, but a screen's white pieces may be
    // shaded in light grey without a dark outline.
    let sure = |white: bool| -> Vec<usize> {
        (0..64)
            .filter(|&i| {
                matches!(read(i), (Some(piece), p) if p >= DOUBT && piece.is_ascii_uppercase() == white)
            })
            .collect()
    };
    let sure = [sure(true), sure(false)];
    if sure.iter().map(Vec::len).sum::<usize>() < MIN_SURE_PIECES {
        return Vec::new();
    }
    let side_ink = sure.map(|pieces| median_of(&pieces, |l| l.dark));
    let Some(ink) = side_ink.iter().flatten().copied().reduce(f32::min) else {
        return Vec::new();
    };
    // The darkest level of an empty square of each colour; a colour whose
    // empty squares hold ink-dark marks (hatching, dark grey) is not judged.
    let empty_level = empty_squares.each_ref().map(|members| {
        median_of(members, |l| l.dark).filter(|&level| level - ink >= 0.5 * (paper - ink))
    });
    let grey_dark_squares =
        median_of(dark_empty, |l| l.median).is_some_and(|tone| tone < paper - GREY_BELOW_PAPER);
    let dark_empty_bright = median_of(dark_empty, |l| l.bright);
    (0..64)
        .filter(|&i| {
            let (Some(piece), p) = read(i) else {
                return false;
            };
            if p >= DOUBT {
                return false;
            }
            let white = piece.is_ascii_uppercase();
            let dark_square = is_dark_square(i);
            let (Some(ink), Some(level)) = (
                side_ink[usize::from(!white)],
                empty_level[usize::from(dark_square)],
            ) else {
                return false;
            };
            let no_white_inside = white
                && dark_square
                && grey_dark_squares
                && dark_empty_bright.is_some_and(|bright| looks[i].bright <= bright);
            let faint = if no_white_inside {
                FAINT_ON_GREY
            } else {
                FAINT
            };
            level - looks[i].dark < faint * (level - ink)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIGHT: f32 = 0.92;
    const DARK: f32 = 0.7;

    /// How the test board is printed and lit.
    #[derive(Clone, Copy, Default)]
    struct Print {
        /// Added to the red channel (0: grey print).
        tint: f32,
        /// How much darker the bottom row is lit than the top (0: a scan).
        shadow: f32,
        /// Paper-white inside the doubtful pieces (a white piece's body).
        white_inside: bool,
    }

    /// A cell of the board's colour at `index` with a 6×6 blot of `mark` in
    /// its middle (`None`: an empty square) and, with `white_inside`, a
    /// paper-white 6×6 patch beside the blot.
    fn cell(index: usize, mark: Option<f32>, white_inside: bool, print: Print) -> Vec<f32> {
        let background = if (index / 8 + index % 8) % 2 == 1 {
            DARK
        } else {
            LIGHT
        };
        let mut planes = vec![background; CELL_LEN];
        let plane = CELL_SIDE * CELL_SIDE;
        let mut paint = |from: usize, value: f32| {
            for channel in 0..3 {
                for y in 13..19 {
                    for x in from..from + 6 {
                        planes[channel * plane + y * CELL_SIDE + x] = value;
                    }
                }
            }
        };
        if let Some(mark) = mark {
            paint(13, mark);
        }
        if white_inside {
            paint(7, 1.0);
        }
        let light = 1.0 - print.shadow * (index / 8) as f32 / 7.0;
        planes.iter_mut().for_each(|v| *v *= light);
        planes[..plane]
            .iter_mut()
            .for_each(|r| *r = (*r + print.tint).min(1.0));
        planes
    }

    fn scores_of(piece: Option<char>, p: f32) -> SquareScores {
        let mut scores = [(1.0 - p) / 12.0; 13];
        scores[CLASSES.iter().position(|c| *c == piece).unwrap()] = p;
        SquareScores(scores)
    }

    /// A board with sure pieces of both sides, plus the doubtful ones given
    /// as `(index, piece, mark)`; returns what is read on those squares.
    fn read_with(
        white_ink: f32,
        doubtful: &[(usize, char, f32)],
        print: Print,
    ) -> Vec<Option<char>> {
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
                    let white_inside = print.white_inside && p < DOUBT;
                    cells.extend(cell(index, Some(mark), white_inside, print));
                    scores.push(scores_of(Some(piece), p));
                }
                None => {
                    cells.extend(cell(index, None, false, print));
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
            read_with(0.05, &doubtful, Print::default()),
            [None, Some('P'), Some('n')]
        );
        // The swap keeps the square as doubtful as it was.
        let mut scores = vec![scores_of(None, 0.99); 64];
        let cells: Vec<f32> = (0..64)
            .flat_map(|i| cell(i, None, false, Print::default()))
            .collect();
        clear_ghosts(&cells, &mut scores);
        assert!(scores.iter().all(|s| s.best() == (None, 0.99)));
    }

    #[test]
    fn screens_and_coloured_boards_are_left_alone() {
        // A screen's white pieces shaded in light grey, without outlines.
        let grey = Print::default();
        assert_eq!(read_with(0.75, &[(35, 'B', 0.8)], grey), [Some('B')]);
        // The same faint mark on a coloured board.
        let coloured = Print { tint: 0.2, ..grey };
        assert_eq!(read_with(0.05, &[(35, 'P', 0.8)], coloured), [Some('P')]);
    }

    #[test]
    fn on_grey_dark_squares_fainter_ghosts_are_cleared_unless_white_inside() {
        // Marks 40 % of the way from the square's level to the ink: on the
        // dark d4 (35) a ghost, on the light e4 (36) too dark for one.
        let toward_ink = |level: f32| level - 0.4 * (level - 0.05);
        let doubtful = [(35, 'P', toward_ink(DARK)), (36, 'P', toward_ink(LIGHT))];
        let scan = Print::default();
        assert_eq!(read_with(0.05, &doubtful, scan), [None, Some('P')]);
        // A white piece's paper-white body shows on the dark square.
        let bodies = Print {
            white_inside: true,
            ..scan
        };
        assert_eq!(read_with(0.05, &doubtful, bodies), [Some('P'), Some('P')]);
    }

    #[test]
    fn unevenly_lit_boards_are_left_alone() {
        // The ghost of the first test, on a board photographed in a shadow
        // that darkens it by a third from top to bottom.
        let photo = Print {
            shadow: 0.33,
            ..Print::default()
        };
        assert_eq!(read_with(0.05, &[(35, 'P', 0.8)], photo), [Some('P')]);
        let scan = Print::default();
        assert_eq!(read_with(0.05, &[(35, 'P', 0.8)], scan), [None]);
    }
}
