//! Reading a board's coordinates (rank digits and file letters, inside the
//! edge squares or in the margin) to tell which side is at the bottom.
//!
//! A small CNN (`models/coords.onnx`, trained by `training/train_coords.py`)
//! reads one patch at a time as `none`, a digit or a letter. Patches are
//! taken at every place where sites put coordinates: the corners of the edge
//! squares and the strips just outside the board. The geometry mirrors
//! `training/coords_geometry.py` exactly.

use ndarray::ArrayView4;

use super::{
    session_pool::{softmax, SessionPool},
    RecognizeError, View,
};
use crate::vision::{Homography, Luma32};

/// The bundled coordinate reader, built into the binary.
pub const BUNDLED_COORDS_MODEL: &[u8] = include_bytes!("../../models/coords.onnx");

/// Patches are `PATCH × PATCH` greyscale samples.
const PATCH: usize = 24;
/// Side of a corner patch inside a square, in squares.
const INSIDE: f32 = 0.45;
/// Depth of a patch outside the board, in squares.
const OUTSIDE: f32 = 0.8;
/// Model classes: `none`, the digits `1`–`8`, the letters `a`–`h`.
const GLYPHS: usize = 17;
/// A site holds coordinates when at least this many of its 8 places read as
/// glyphs of its kind,
const MIN_GLYPHS: usize = 4;
/// and at least this many read as the very glyph that one side's view puts
/// there. Words beside a board read as glyphs too, but seldom in order;
/// small photographed coordinates read in order at only a few places.
const MIN_IN_PLACE: usize = 2;
/// Log-likelihood ratio (nats) beyond which the coordinates decide.
const DECISIVE: f32 = 3.0;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Rank,
    File,
}

/// Where along the board a site's eight places lie.
#[derive(Clone, Copy)]
enum Line {
    /// Inside the squares of the left or right column, top or bottom row, in
    /// the corner given as (top, left).
    Col0(bool, bool),
    Col7(bool, bool),
    Row7(bool, bool),
    Row0(bool, bool),
    /// Outside the board.
    Left,
    Right,
    Bottom,
    Top,
}

/// Every site, in `coords_geometry.SITES` order.
const SITES: [(Kind, Line); 12] = [
    (Kind::Rank, Line::Col0(true, true)),
    (Kind::Rank, Line::Col0(false, true)),
    (Kind::Rank, Line::Col7(true, false)),
    (Kind::Rank, Line::Col7(false, false)),
    (Kind::Rank, Line::Left),
    (Kind::Rank, Line::Right),
    (Kind::File, Line::Row7(false, true)),
    (Kind::File, Line::Row7(false, false)),
    (Kind::File, Line::Row0(true, true)),
    (Kind::File, Line::Row0(true, false)),
    (Kind::File, Line::Bottom),
    (Kind::File, Line::Top),
];

/// `[u0, v0, u1, v1]` in board units of place `i` (picture row or column).
fn patch_rect(line: Line, i: usize) -> [f32; 4] {
    let i = i as f32;
    let corner = |row: f32, col: f32, top: bool, left: bool| {
        let u0 = col + if left { 0.0 } else { 1.0 - INSIDE };
        let v0 = row + if top { 0.0 } else { 1.0 - INSIDE };
        [u0, v0, u0 + INSIDE, v0 + INSIDE]
    };
    match line {
        Line::Left => [-OUTSIDE, i + 0.1, 0.0, i + 0.9],
        Line::Right => [8.0, i + 0.1, 8.0 + OUTSIDE, i + 0.9],
        Line::Bottom => [i + 0.1, 8.0, i + 0.9, 8.0 + OUTSIDE],
        Line::Top => [i + 0.1, -OUTSIDE, i + 0.9, 0.0],
        Line::Col0(top, left) => corner(i, 0.0, top, left),
        Line::Col7(top, left) => corner(i, 7.0, top, left),
        Line::Row7(top, left) => corner(7.0, i, top, left),
        Line::Row0(top, left) => corner(0.0, i, top, left),
    }
}

/// The class a site of this kind shows at place `i` from one side.
fn expected_glyph(kind: Kind, i: usize, view: View) -> usize {
    let place = match view {
        View::White => i,
        View::Black => 7 - i,
    };
    match kind {
        // Picture row 0 shows rank 8 from White's side: class of digit 8 is 8.
        Kind::Rank => 8 - place,
        // Picture column 0 shows file a from White's side: letters follow the digits.
        Kind::File => 9 + place,
    }
}

/// Bilinear samples over a rectangle in board units, standardised to zero
/// mean and unit spread (at least 10 grey levels).
fn sample_patch(image: &Luma32, to_image: &Homography, rect: [f32; 4], out: &mut Vec<f32>) {
    let [u0, v0, u1, v1] = rect;
    let start = out.len();
    for y in 0..PATCH {
        let v = v0 + (v1 - v0) * (y as f32 + 0.5) / PATCH as f32;
        for x in 0..PATCH {
            let u = u0 + (u1 - u0) * (x as f32 + 0.5) / PATCH as f32;
            let p = to_image.apply([u, v]);
            out.push(image.sample(p[0] - 0.5, p[1] - 0.5));
        }
    }
    let patch = &mut out[start..];
    let n = patch.len() as f32;
    let mean = patch.iter().sum::<f32>() / n;
    let spread = (patch.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n)
        .sqrt()
        .max(10.0);
    patch.iter_mut().for_each(|v| *v = (*v - mean) / spread);
}

/// The coordinate reader over a pool of sessions.
pub struct CoordinateReader {
    pool: SessionPool,
}

/// What the coordinates say about one board; the default says nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoordinateEvidence {
    /// Log-likelihood of White at the bottom against Black, in nats, summed
    /// over the sites that hold coordinates.
    pub white_over_black: f32,
    /// How many sites held coordinates.
    pub sites: usize,
    /// Whether rank digits were among them, and file letters.
    pub ranks: bool,
    pub files: bool,
}

impl CoordinateEvidence {
    /// The side at the bottom, when the coordinates are clear about it.
    ///
    /// A `printed` diagram (hatched or screened dark squares) is set from
    /// White's side by convention; it is turned to Black's only by ranks and
    /// files both: a caption under a diagram reads as a row of letters, and
    /// words beside it as digits, but seldom both.
    pub fn view(&self, printed: bool) -> Option<View> {
        if self.white_over_black >= DECISIVE {
            Some(View::White)
        } else if self.white_over_black <= -DECISIVE && (!printed || self.ranks && self.files) {
            Some(View::Black)
        } else {
            None
        }
    }
}

impl CoordinateReader {
    pub fn new(model: &[u8], pool_size: usize) -> Result<Self, RecognizeError> {
        Ok(Self {
            pool: SessionPool::new(model, pool_size)?,
        })
    }

    /// Reads the coordinates of each board (given by its corners: top-left,
    /// top-right, bottom-right, bottom-left), in one model call.
    pub fn read(
        &self,
        image: &Luma32,
        boards: &[[[f32; 2]; 4]],
    ) -> Result<Vec<CoordinateEvidence>, RecognizeError> {
        let per_board = SITES.len() * 8;
        let mut patches = Vec::with_capacity(boards.len() * per_board * PATCH * PATCH);
        let mut readable = Vec::with_capacity(boards.len());
        for corners in boards {
            let Some(to_image) = Homography::from_corners(*corners) else {
                readable.push(false);
                continue;
            };
            readable.push(true);
            for (_, line) in SITES {
                for i in 0..8 {
                    sample_patch(image, &to_image, patch_rect(line, i), &mut patches);
                }
            }
        }
        let count = patches.len() / (PATCH * PATCH);
        let probabilities: Vec<[f32; GLYPHS]> = if count == 0 {
            Vec::new()
        } else {
            let input = ArrayView4::from_shape((count, 1, PATCH, PATCH), &patches)
                .map_err(|e| RecognizeError::Model(e.to_string()))?;
            self.pool
                .logits(input, GLYPHS)?
                .rows()
                .into_iter()
                .map(|row| softmax(row.iter().copied()))
                .collect()
        };
        let mut next = probabilities.chunks(per_board);
        Ok(readable
            .into_iter()
            .map(|ok| {
                let read = if ok { next.next() } else { None };
                read.map_or_else(CoordinateEvidence::default, weigh)
            })
            .collect())
    }
}

/// Sums the evidence of the sites that hold coordinates of their kind.
fn weigh(board: &[[f32; GLYPHS]]) -> CoordinateEvidence {
    let mut evidence = CoordinateEvidence::default();
    for ((kind, _), places) in SITES.iter().zip(board.chunks(8)) {
        let of_kind = |class: usize| match kind {
            Kind::Rank => (1..=8).contains(&class),
            Kind::File => (9..=16).contains(&class),
        };
        let glyphs = places.iter().filter(|p| of_kind(argmax(p))).count();
        let in_place = |view: View| {
            (places.iter().enumerate())
                .filter(|(i, p)| argmax(p) == expected_glyph(*kind, *i, view))
                .count()
        };
        if glyphs < MIN_GLYPHS || in_place(View::White).max(in_place(View::Black)) < MIN_IN_PLACE {
            continue;
        }
        evidence.sites += 1;
        match kind {
            Kind::Rank => evidence.ranks = true,
            Kind::File => evidence.files = true,
        }
        for (i, p) in places.iter().enumerate() {
            let white = p[expected_glyph(*kind, i, View::White)];
            let black = p[expected_glyph(*kind, i, View::Black)];
            evidence.white_over_black += (white + 1e-3).ln() - (black + 1e-3).ln();
        }
    }
    evidence
}

fn argmax(p: &[f32; GLYPHS]) -> usize {
    p.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Probabilities that read `class` with confidence `p`.
    fn reading(class: usize, p: f32) -> [f32; GLYPHS] {
        let mut out = [(1.0 - p) / (GLYPHS - 1) as f32; GLYPHS];
        out[class] = p;
        out
    }

    fn board_reading(site_classes: &[(usize, [usize; 8])]) -> Vec<[f32; GLYPHS]> {
        let mut board = vec![reading(0, 0.95); SITES.len() * 8];
        for (site, classes) in site_classes {
            for (i, class) in classes.iter().enumerate() {
                board[site * 8 + i] = reading(*class, 0.9);
            }
        }
        board
    }

    #[test]
    fn digits_falling_down_the_left_column_mean_white_at_the_bottom() {
        // Site 0: ranks in the top-left corners of the left column, 8 at the top.
        let board = board_reading(&[(0, [8, 7, 6, 5, 4, 3, 2, 1])]);
        let evidence = weigh(&board);
        assert_eq!(evidence.sites, 1);
        assert_eq!(evidence.view(false), Some(View::White));
        assert_eq!(evidence.view(true), Some(View::White));
    }

    #[test]
    fn letters_from_h_to_a_along_the_bottom_mean_black_at_the_bottom() {
        // Site 10: files in the strip below the board; h is class 16.
        let board = board_reading(&[(10, [16, 15, 14, 13, 12, 11, 10, 9])]);
        assert_eq!(weigh(&board).view(false), Some(View::Black));
        // A printed diagram is not turned by a row of letters alone (a
        // caption under it), but by letters and digits both.
        assert_eq!(weigh(&board).view(true), None);
        let board = board_reading(&[
            (10, [16, 15, 14, 13, 12, 11, 10, 9]),
            (4, [1, 2, 3, 4, 5, 6, 7, 8]),
        ]);
        assert_eq!(weigh(&board).view(true), Some(View::Black));
    }

    #[test]
    fn no_coordinates_decide_nothing() {
        let evidence = weigh(&board_reading(&[]));
        assert_eq!(evidence.sites, 0);
        assert_eq!(evidence.view(false), None);
        // Letters where digits belong are no rank coordinates.
        let evidence = weigh(&board_reading(&[(0, [9, 10, 11, 12, 13, 14, 15, 16])]));
        assert_eq!(evidence.sites, 0);
    }

    #[test]
    fn text_beside_the_board_is_no_coordinates() {
        // Words right of the board and a caption above it, as a page shows
        // them: glyphs of the right kind, but not in either side's order.
        let board = board_reading(&[
            (5, [0, 8, 0, 8, 6, 13, 0, 8]),
            (11, [16, 13, 15, 10, 0, 0, 0, 0]),
        ]);
        assert_eq!(weigh(&board), CoordinateEvidence::default());
        // Blurred digits that read in order at two places still count.
        let board = board_reading(&[(4, [8, 7, 8, 4, 0, 8, 8, 16])]);
        assert_eq!(weigh(&board).sites, 1);
    }

    #[test]
    fn inside_and_outside_places_lie_where_the_python_geometry_puts_them() {
        let close = |a: [f32; 4], b: [f32; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(
            patch_rect(Line::Col7(true, false), 2),
            [7.55, 2.0, 8.0, 2.45]
        ));
        assert!(close(
            patch_rect(Line::Row7(false, true), 3),
            [3.0, 7.55, 3.45, 8.0]
        ));
        assert!(close(patch_rect(Line::Left, 0), [-0.8, 0.1, 0.0, 0.9]));
    }
}
