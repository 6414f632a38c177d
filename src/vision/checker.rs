//! Whether a region holds a chessboard's pattern of light and dark squares.
//!
//! Each of the 64 cells is summarised by the median luma of a ring just inside
//! its border, where pieces rarely reach; a board's rings alternate between
//! two levels in the checkerboard pattern.

use super::Luma32;

/// The light squares (top-left parity) must be this much lighter on average
/// than the dark ones (luma, 0–255)...
const MIN_CONTRAST: f32 = 8.0;
/// ...and this many of the 64 cells must lie on the side of the midway luma
/// that their parity says.
pub const MIN_AGREEING: usize = 60;

/// Whether the cells alternate like a board's, at least `min_agreeing` of
/// them on their parity's side: [`MIN_AGREEING`] for a board found by its
/// lines alone, fewer where other evidence (a printed frame, a photo's corner
/// lattice) says the region is a board and pieces may hide its squares.
/// `to_image` maps board coordinates (0–8 across and down, top-left corner
/// first) to image pixels.
pub fn alternates_in(
    image: &Luma32,
    to_image: impl Fn([f32; 2]) -> [f32; 2],
    min_agreeing: usize,
) -> bool {
    let rings = ring_medians(image, to_image);
    let (light, dark) = parity_means(&rings);
    light - dark >= MIN_CONTRAST && cells_of_parity(&rings, 0) >= min_agreeing
}

/// How many cells lie on the side of the midway luma that a checkerboard
/// pattern puts them, with either colour at the top left: 64 for a clean
/// board, about 32 for a plain region.
pub fn agreeing_cells(image: &Luma32, to_image: impl Fn([f32; 2]) -> [f32; 2]) -> usize {
    either_parity_agreeing(&ring_medians(image, to_image))
}

/// How much lighter one parity's rings are than the other's on average
/// (luma, 0–255), where at least `min_agreeing` cells lie on their parity's
/// side; `None` where they do not alternate so. The mean, unlike the median,
/// falls as soon as the rings leave their squares: it peaks where the grid
/// lies on the squares.
pub fn checker_contrast(
    image: &Luma32,
    to_image: impl Fn([f32; 2]) -> [f32; 2],
    min_agreeing: usize,
) -> Option<f32> {
    let rings = ring_samples(image, to_image);
    let agreeing = either_parity_agreeing(&medians(&rings));
    let means: Vec<f32> = rings
        .iter()
        .map(|ring| ring.iter().sum::<f32>() / ring.len() as f32)
        .collect();
    let (light, dark) = parity_means(&means);
    (agreeing >= min_agreeing).then_some((light - dark).abs())
}

/// [`cells_of_parity`] with whichever colour at the top left more cells agree on.
fn either_parity_agreeing(rings: &[f32]) -> usize {
    let agreeing = cells_of_parity(rings, 0);
    agreeing.max(64 - agreeing)
}

/// Mean ring luma of the cells of the top-left parity, and of the others.
fn parity_means(rings: &[f32]) -> (f32, f32) {
    let parity_mean = |parity: usize| {
        (0..64)
            .filter(|i| (i / 8 + i % 8) % 2 == parity)
            .map(|i| rings[i])
            .sum::<f32>()
            / 32.0
    };
    (parity_mean(0), parity_mean(1))
}

/// How many cells lie above the midway luma exactly when their parity is
/// `lighter`.
fn cells_of_parity(rings: &[f32], lighter: usize) -> usize {
    let (a, b) = parity_means(rings);
    let threshold = (a + b) / 2.0;
    (0..64)
        .filter(|&i| (rings[i] > threshold) == ((i / 8 + i % 8) % 2 == lighter))
        .count()
}

/// Median luma of the ring inside each cell, in picture order (top row first).
fn ring_medians(image: &Luma32, to_image: impl Fn([f32; 2]) -> [f32; 2]) -> Vec<f32> {
    medians(&ring_samples(image, to_image))
}

/// The median of each sorted ring.
fn medians(rings: &[Vec<f32>]) -> Vec<f32> {
    rings.iter().map(|ring| ring[ring.len() / 2]).collect()
}

/// The luma along the ring inside each cell, sorted, in picture order.
fn ring_samples(image: &Luma32, to_image: impl Fn([f32; 2]) -> [f32; 2]) -> Vec<Vec<f32>> {
    (0..64)
        .map(|i| {
            let mut samples: Vec<f32> = ring_points(i % 8, i / 8)
                .map(|p| {
                    let p = to_image(p);
                    image.sample(p[0], p[1])
                })
                .collect();
            samples.sort_by(f32::total_cmp);
            samples
        })
        .collect()
}

/// Points on a ring just inside the border of the cell at `col`, `row`, in
/// board coordinates (0–8 across and down): where pieces rarely reach, so
/// they show the square's own colour.
pub fn ring_points(col: usize, row: usize) -> impl Iterator<Item = [f32; 2]> {
    const INSET: f32 = 0.1;
    const PER_SIDE: usize = 8;
    let (col, row) = (col as f32, row as f32);
    (0..PER_SIDE).flat_map(move |k| {
        let t = INSET + (1.0 - 2.0 * INSET) * k as f32 / (PER_SIDE - 1) as f32;
        [(t, INSET), (t, 1.0 - INSET), (INSET, t), (1.0 - INSET, t)]
            .map(|(dx, dy)| [col + dx, row + dy])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 80×80 picture of 8×8 cells, each `level(row, col)`.
    fn cells(level: impl Fn(usize, usize) -> f32) -> Luma32 {
        let data = (0..80 * 80)
            .map(|i| level(i / 80 / 10, i % 80 / 10))
            .collect();
        Luma32::new(80, 80, data)
    }

    fn whole(p: [f32; 2]) -> [f32; 2] {
        [p[0] * 10.0, p[1] * 10.0]
    }

    #[test]
    fn a_checkerboard_alternates() {
        let board = cells(|r, c| if (r + c) % 2 == 0 { 200.0 } else { 150.0 });
        assert!(alternates_in(&board, whole, MIN_AGREEING));
    }

    #[test]
    fn stripes_faint_boards_and_turned_boards_do_not() {
        let stripes = cells(|r, _| if r % 2 == 0 { 200.0 } else { 150.0 });
        assert!(!alternates_in(&stripes, whole, MIN_AGREEING));
        let faint = cells(|r, c| if (r + c) % 2 == 0 { 154.0 } else { 150.0 });
        assert!(!alternates_in(&faint, whole, MIN_AGREEING));
        // Dark square at the top left: a quarter turn, not a board's view.
        let turned = cells(|r, c| if (r + c) % 2 == 1 { 200.0 } else { 150.0 });
        assert!(!alternates_in(&turned, whole, MIN_AGREEING));
    }

    #[test]
    fn agreeing_cells_count_the_pattern_with_either_colour_first() {
        let board = cells(|r, c| if (r + c) % 2 == 0 { 200.0 } else { 150.0 });
        assert_eq!(agreeing_cells(&board, whole), 64);
        let turned = cells(|r, c| if (r + c) % 2 == 1 { 200.0 } else { 150.0 });
        assert_eq!(agreeing_cells(&turned, whole), 64);
        // Three plain rows at the top: their 24 cells split evenly.
        let shifted = cells(|r, c| match r {
            0..3 => 180.0,
            _ if (r + c) % 2 == 0 => 200.0,
            _ => 150.0,
        });
        assert_eq!(agreeing_cells(&shifted, whole), 64 - 12);
    }
}
