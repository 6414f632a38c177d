//! Finding boards turned or sheared by a few degrees, as in photos of a page
//! held askew.
//!
//! The grid-line finder ([`locate_boards`]) needs the board's lines within
//! about half a degree of the image axes. Here the direction of the row-like
//! and of the column-like edges is measured from histograms of gradient
//! angles, the image is resampled so that both lie along the axes, the
//! grid-line finder runs again, and the boxes it finds are mapped back into
//! quads on the original image.

use super::{
    frame::locate_framed,
    lattice::BoardQuad,
    locate::{locate_boards, locate_boards_smoothed, BoardBox},
    Luma32,
};

/// The slant is measured on a copy about this large on its longest side.
const MAX_DETECT_SIDE: u32 = 800;
/// The straightened copy a page's boards are looked for on is at most about
/// this large: a page of four diagrams at 150 dpi keeps cells of 30 px (on
/// the slant's copy, 15 px cells of hatched squares lose their lines).
const MAX_LOCATE_SIDE: u32 = 1600;
/// Turns larger than this are not looked for (degrees).
const MAX_TURN_DEG: f32 = 12.0;
/// Below this the grid-line finder has already seen the board as it is (degrees).
const MIN_TURN_DEG: f32 = 0.4;
/// Angles tried first, then around the best of them (degrees).
const COARSE_STEP_DEG: f32 = 0.5;
const FINE_STEP_DEG: f32 = 0.1;
/// Every this many pixels along a line casts a vote (a long line keeps
/// hundreds; the search costs one pass over the votes an angle).
const EDGE_STRIDE: usize = 2;
/// Gradients weaker than this (luminance steps per pixel) do not vote.
const MIN_GRADIENT: f32 = 8.0;

/// Boards whose lines are turned or sheared by `slant` (the picture's, from
/// [`page_slant`]), as quads on `image`; looked for on a copy no larger than
/// the slant's: a picture where no finder has seen a board yet is most
/// often none.
pub fn locate_turned(image: &Luma32, slant: &Slant) -> Vec<BoardQuad> {
    found_along(image, slant, MAX_DETECT_SIDE, grid_lines)
}

/// How far the picture's long straight edges are turned from the axes
/// (looked for within ±`max_turn_deg`, at most [`MAX_TURN_DEG`]), if by more
/// than the grid-line finder tolerates; `None` for an upright picture or one
/// without long edges.
pub fn page_slant(image: &Luma32, max_turn_deg: f32) -> Option<Slant> {
    let small = image.block_averaged(block_for(image, MAX_DETECT_SIDE));
    let slant = dominant_slant(&small, max_turn_deg.min(MAX_TURN_DEG))?;
    let min_turn = MIN_TURN_DEG.to_radians();
    (slant.rows.abs() >= min_turn || slant.columns.abs() >= min_turn).then_some(slant)
}

/// The boards the grid-line finder sees once `image` is straightened along
/// `slant`, as quads on `image`.
pub fn locate_along(image: &Luma32, slant: &Slant) -> Vec<BoardQuad> {
    found_along(image, slant, MAX_LOCATE_SIDE, grid_lines)
}

/// The grid-line finder, and on a smoothed copy where it sees nothing.
fn grid_lines(image: &Luma32) -> Vec<BoardBox> {
    let boxes = locate_boards(image);
    match boxes.is_empty() {
        true => locate_boards_smoothed(image),
        false => boxes,
    }
}

/// Diagrams whose printed frame is turned by `slant`, as quads on `image`:
/// the frame finder ([`locate_framed`]) on the straightened copy.
pub fn locate_framed_turned(image: &Luma32, slant: &Slant) -> Vec<BoardQuad> {
    found_along(image, slant, MAX_DETECT_SIDE, locate_framed)
}

/// The boxes `find` sees on a copy of `image` straightened along `slant`
/// (about `max_side` on its longest side), as quads on `image`.
fn found_along(
    image: &Luma32,
    slant: &Slant,
    max_side: u32,
    find: impl Fn(&Luma32) -> Vec<BoardBox>,
) -> Vec<BoardQuad> {
    let block = block_for(image, max_side);
    let copy = image.block_averaged(block);
    find(&straightened(&copy, slant))
        .into_iter()
        .map(|b| BoardQuad {
            corners: b
                .corners()
                .map(|p| slant.original_point(p, &copy).map(|v| v * block as f32)),
            corners_seen: b.lines_seen,
        })
        .collect()
}

/// The block of pixels averaged into one so that `image`'s longest side is
/// about `side` (resampling to the exact size would cost more than the
/// slant search).
fn block_for(image: &Luma32, side: u32) -> usize {
    let longest = image.width.max(image.height) as f32;
    (longest / side as f32).round().max(1.0) as usize
}

/// How the image's two families of straight edges lie: the angle of the
/// row-like lines from the horizontal and of the column-like lines from the
/// vertical (radians, clockwise in image coordinates). Equal angles are a
/// rotation; different ones a shear, as a page photographed from the side gives.
#[derive(Clone, Copy, Debug)]
pub struct Slant {
    rows: f32,
    columns: f32,
}

impl Slant {
    /// The larger of the two angles, in degrees, unsigned.
    pub fn degrees(&self) -> f32 {
        self.rows.abs().max(self.columns.abs()).to_degrees()
    }

    /// Where a point of the straightened image lies in the original: the
    /// straightened axes run along the two edge families, about the centre.
    fn original_point(&self, p: [f32; 2], image: &Luma32) -> [f32; 2] {
        let (cx, cy) = (image.width as f32 / 2.0, image.height as f32 / 2.0);
        let (row_sin, row_cos) = self.rows.sin_cos();
        let (col_sin, col_cos) = self.columns.sin_cos();
        let (dx, dy) = (p[0] - cx, p[1] - cy);
        [
            cx + row_cos * dx - col_sin * dy,
            cy + row_sin * dx + col_cos * dy,
        ]
    }
}

/// The slant of the longest straight row-like and column-like edges, each
/// within ±`max_turn_deg`: the angle at which the edge pixels, projected
/// across their lines, pile up most sharply (a Hough transform restricted to
/// small angles). Texture and moiré have strong edges too, but no long lines.
fn dominant_slant(image: &Luma32, max_turn_deg: f32) -> Option<Slant> {
    let blurred = image.box_blurred(1);
    let (w, h) = (blurred.width as usize, blurred.height as usize);
    let mut row_edges = Vec::new();
    let mut column_edges = Vec::new();
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            let at = |dx: isize, dy: isize| {
                blurred.data[(y as isize + dy) as usize * w + (x as isize + dx) as usize]
            };
            let gx = ((at(1, 0) - at(-1, 0)) * 0.5).abs();
            let gy = ((at(0, 1) - at(0, -1)) * 0.5).abs();
            let point = (x as f32, y as f32);
            if gy > gx && gy >= MIN_GRADIENT && x % EDGE_STRIDE == 0 {
                row_edges.push((point, gy));
            } else if gx > gy && gx >= MIN_GRADIENT && y % EDGE_STRIDE == 0 {
                column_edges.push((point, gx));
            }
        }
    }
    // A row line turned by α has the normal (−sin α, cos α); a column line
    // leaning by β has the normal (cos β, sin β).
    let span = w + h;
    let rows = sharpest_angle(&row_edges, span, max_turn_deg, |(x, y), (sin, cos)| {
        y * cos - x * sin
    })?;
    let columns = sharpest_angle(&column_edges, span, max_turn_deg, |(x, y), (sin, cos)| {
        x * cos + y * sin
    })?;
    Some(Slant { rows, columns })
}

/// The angle (radians) whose projection `across(point, (sin, cos))` piles the
/// weighted edge points into the sharpest profile; coarse steps, then fine.
/// Projections lie within ±`span`.
fn sharpest_angle(
    edges: &[((f32, f32), f32)],
    span: usize,
    max_turn_deg: f32,
    across: impl Fn((f32, f32), (f32, f32)) -> f32,
) -> Option<f32> {
    if edges.is_empty() {
        return None;
    }
    let sharpness = |degrees: f32| {
        let sin_cos = degrees.to_radians().sin_cos();
        let mut profile = vec![0.0f32; 2 * span + 1];
        let last = 2 * span;
        for &(point, weight) in edges {
            // Rounded to the nearest bin; the cast truncates a non-negative value.
            let bin = (across(point, sin_cos) + span as f32 + 0.5).max(0.0) as usize;
            profile[bin.min(last)] += weight;
        }
        profile.iter().map(|v| v * v).sum::<f32>()
    };
    let best_of = |angles: &mut dyn Iterator<Item = f32>| {
        angles
            .map(|a| (a, sharpness(a)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(a, _)| a)
    };
    let steps = (max_turn_deg / COARSE_STEP_DEG).round() as i32;
    let coarse = best_of(&mut (-steps..=steps).map(|i| i as f32 * COARSE_STEP_DEG))?;
    let fine_steps = (COARSE_STEP_DEG / FINE_STEP_DEG).round() as i32;
    let fine = best_of(&mut (-fine_steps..=fine_steps).map(|i| coarse + i as f32 * FINE_STEP_DEG))?;
    Some(fine.to_radians())
}

/// The image resampled so that both edge families lie along the axes (same
/// size; the edges are clamped outside the original).
fn straightened(image: &Luma32, slant: &Slant) -> Luma32 {
    image.resampled(image.width, image.height, |p| {
        slant.original_point(p, image)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board turned by `degrees` about (cx, cy), `side` pixels wide, with
    /// light squares at 230, dark at 90, on a page at 200, antialiased.
    fn turned_board(degrees: f32, side: f32, w: u32, h: u32) -> (Luma32, [[f32; 2]; 4]) {
        let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
        let (sin, cos) = degrees.to_radians().sin_cos();
        let mut data = vec![0.0; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                // 4×4 samples a pixel, each in board coordinates (the turn undone).
                let mut sum = 0.0;
                for s in 0..16 {
                    let dx = x as f32 + (s % 4) as f32 / 4.0 + 0.125 - cx;
                    let dy = y as f32 + (s / 4) as f32 / 4.0 + 0.125 - cy;
                    let bx = (cos * dx + sin * dy) / side * 8.0 + 4.0;
                    let by = (-sin * dx + cos * dy) / side * 8.0 + 4.0;
                    sum += if (0.0..8.0).contains(&bx) && (0.0..8.0).contains(&by) {
                        if (bx as i32 + by as i32) % 2 == 0 {
                            230.0
                        } else {
                            90.0
                        }
                    } else {
                        200.0
                    };
                }
                data[(y * w + x) as usize] = sum / 16.0;
            }
        }
        let half = side / 2.0;
        let corners = [[-half, -half], [half, -half], [half, half], [-half, half]]
            .map(|[dx, dy]| [cx + cos * dx - sin * dy, cy + sin * dx + cos * dy]);
        (Luma32::new(w, h, data), corners)
    }

    #[test]
    fn measures_the_turn_of_a_board() {
        for degrees in [-7.0f32, -2.5, 3.0, 9.0] {
            let (image, _) = turned_board(degrees, 400.0, 640, 600);
            let slant = dominant_slant(&image, MAX_TURN_DEG).expect("edges vote");
            for turn in [slant.rows, slant.columns].map(f32::to_degrees) {
                assert!((turn - degrees).abs() < 0.3, "{turn} vs {degrees}");
            }
        }
    }

    #[test]
    fn finds_a_turned_board_and_its_corners() {
        let (image, truth) = turned_board(4.0, 420.0, 700, 640);
        let slant = page_slant(&image, MAX_TURN_DEG).expect("turned");
        let quads = locate_turned(&image, &slant);
        assert_eq!(quads.len(), 1, "{quads:?}");
        for (found, expected) in quads[0].corners.iter().zip(truth) {
            let error = (found[0] - expected[0]).hypot(found[1] - expected[1]);
            assert!(error < 6.0, "corner {found:?} vs {expected:?}");
        }
    }

    #[test]
    fn leaves_an_upright_board_to_the_grid_line_finder() {
        let (image, _) = turned_board(0.0, 400.0, 640, 600);
        assert!(page_slant(&image, MAX_TURN_DEG).is_none());
    }
}
