//! Every board in a picture, found and rectified: the order in which the
//! finders are tried, and the image each board's cells are cut from.
//!
//! [`locate_regions`] runs the finders; [`rectify`] turns what they found
//! into [`FoundBoard`]s: a box is cut from the picture itself, a board seen
//! at an angle from a square copy warped out of it.

use image::RgbImage;

use super::{
    cell_colours, locate_along, locate_boards, locate_boards_smoothed, locate_framed, locate_quads,
    locate_quads_coarse, locate_turned, locate_whole_image, page_slant, top_left_is_light,
    warp_board, BoardBox, BoardQuad, Luma32, Opponent,
};

/// Side of the square a board seen in perspective is warped onto (8 cells of 64 px).
const WARP_SIDE: u32 = 512;

/// Where a board was found.
#[derive(Clone, Copy, Debug)]
pub enum Region {
    /// Axis-aligned: screenshots, scans.
    Box(BoardBox),
    /// Seen at an angle: photos.
    Quad(BoardQuad),
}

impl Region {
    /// Top-left, top-right, bottom-right, bottom-left in the picture.
    pub fn corners(&self) -> [[f32; 2]; 4] {
        match self {
            Region::Box(b) => b.corners(),
            Region::Quad(q) => q.corners,
        }
    }

    /// `[x, y, width, height]` around the region, in whole pixels.
    pub fn bounding_box(&self) -> [u32; 4] {
        let (x0, y0, x1, y1) = match self {
            Region::Box(b) => (b.x, b.y, b.x + b.width, b.y + b.height),
            Region::Quad(q) => {
                let xs = q.corners.map(|c| c[0]);
                let ys = q.corners.map(|c| c[1]);
                let min = |v: [f32; 4]| v.into_iter().fold(f32::MAX, f32::min);
                let max = |v: [f32; 4]| v.into_iter().fold(f32::MIN, f32::max);
                (min(xs), min(ys), max(xs), max(ys))
            }
        };
        [x0, y0, x1 - x0, y1 - y0].map(|v| v.round().max(0.0) as u32)
    }

    /// The corners of a board seen at an angle; `None` for a box.
    pub fn quad_corners(&self) -> Option<[[f32; 2]; 4]> {
        match self {
            Region::Box(_) => None,
            Region::Quad(q) => Some(q.corners),
        }
    }
}

/// A board ready to be cut into its 64 cells.
pub struct FoundBoard {
    pub region: Region,
    /// The rectified copy of a board seen at an angle; `None` when the cells
    /// are cut from the picture itself.
    pub warped: Option<RgbImage>,
    /// Where the cells lie in [`FoundBoard::image`].
    pub cells: BoardBox,
    /// The median colour of each cell in the picture, top row first; `None`
    /// when the cells cannot be sampled.
    pub colours: Option<Vec<[f32; 3]>>,
}

impl FoundBoard {
    /// The image the cells are cut from: the warped copy or the picture.
    pub fn image<'a>(&'a self, picture: &'a RgbImage) -> &'a RgbImage {
        self.warped.as_ref().unwrap_or(picture)
    }
}

/// The picture's lightness, and the boards found in it: in lightness first,
/// then, for squares as light as each other but of another hue, on the
/// red–green and then the blue–yellow opponent-colour axis.
pub fn locate_regions(rgb: &RgbImage) -> (Luma32, Vec<Region>) {
    let luma = Luma32::from_rgb(rgb);
    let mut regions = first_finder_that_finds(&luma);
    for axis in [Opponent::RedGreen, Opponent::BlueYellow] {
        if regions.is_empty() {
            regions = first_finder_that_finds(&Luma32::opponent_from_rgb(rgb, axis));
        }
    }
    (luma, regions)
}

/// The first finder that finds anything, most exact first: axis-aligned
/// grid lines (with the boards a slightly turned page hides from them,
/// [`with_turned_boards`]), a photo's corner lattice, grid lines on a smoothed copy
/// (hatched or textured pages), grid lines on a straightened copy (pages
/// turned by a few degrees), the whole picture (cropped to a faint board),
/// a diagram's frame (faint squares inside a printed border), and the corner
/// lattice at a coarse scale (low-contrast photos).
fn first_finder_that_finds(luma: &Luma32) -> Vec<Region> {
    let boxes = |found: Vec<BoardBox>| found.into_iter().map(Region::Box).collect();
    let quads = |found: Vec<BoardQuad>| found.into_iter().map(Region::Quad).collect();
    let finders: [&dyn Fn() -> Vec<Region>; 7] = [
        &|| with_turned_boards(luma, boxes(locate_boards(luma)), MAX_TURN_BESIDE_BOXES_DEG),
        &|| with_turned_boards(luma, quads(locate_quads(luma)), f32::MAX),
        &|| boxes(locate_boards_smoothed(luma)),
        &|| quads(locate_turned(luma)),
        &|| boxes(locate_whole_image(luma).into_iter().collect()),
        &|| boxes(locate_framed(luma)),
        &|| quads(locate_quads_coarse(luma)),
    ];
    finders
        .iter()
        .map(|find| find())
        .find(|regions| !regions.is_empty())
        .unwrap_or_default()
}

/// Boards found, and on a page turned by a fraction of a degree the boards
/// they missed: those found once the page is straightened that overlap none
/// of them. A board already found stays (a warped copy would only resample
/// its cells).
fn with_turned_boards(luma: &Luma32, found: Vec<Region>, max_turn_deg: f32) -> Vec<Region> {
    let around: Vec<[u32; 4]> = found.iter().map(Region::bounding_box).collect();
    let turned = match room_for_another(luma.width, luma.height, &around) {
        true => page_slant(luma, max_turn_deg),
        false => None,
    };
    let missed: Vec<Region> = turned
        .map(|page| locate_along(&page))
        .unwrap_or_default()
        .into_iter()
        .map(Region::Quad)
        .filter(|quad| {
            let new = quad.bounding_box();
            around
                .iter()
                .all(|old| overlap_fraction(new, *old) < MIN_SAME_BOARD_OVERLAP)
        })
        .collect();
    found.into_iter().chain(missed).collect()
}

/// Whether the picture is a page of boards that a turn may have hidden one
/// of: the largest of `boards` (`[x, y, width, height]`) is at most half the
/// picture's shorter side (a screenshot's board is larger), and one as large
/// would fit beside them, overlapping none by more than a sliver.
fn room_for_another(width: u32, height: u32, boards: &[[u32; 4]]) -> bool {
    let Some(side) = boards.iter().map(|b| b[2].max(b[3])).max() else {
        return false;
    };
    if side == 0 || side > width.min(height) / 2 {
        return false;
    }
    let stride = (side / 8).max(1) as usize;
    (0..=height - side).step_by(stride).any(|y| {
        (0..=width - side).step_by(stride).any(|x| {
            let window = [x, y, side, side];
            boards
                .iter()
                .all(|b| overlap_fraction(window, *b) < MAX_SLIVER)
        })
    })
}

/// A board may overlap this much of another's box (neighbours' boxes touch).
const MAX_SLIVER: f32 = 0.1;

/// A page on which the axis-aligned finder saw boards is turned by less
/// than this (degrees); a photo's lattice allows the whole search range.
const MAX_TURN_BESIDE_BOXES_DEG: f32 = 3.0;

/// Two regions are one board when this much of the smaller lies in both.
const MIN_SAME_BOARD_OVERLAP: f32 = 0.5;

/// The share of the smaller of two boxes (`[x, y, width, height]`) that lies
/// in both.
fn overlap_fraction(a: [u32; 4], b: [u32; 4]) -> f32 {
    let [ax, ay, aw, ah] = a.map(|v| v as f32);
    let [bx, by, bw, bh] = b.map(|v| v as f32);
    let ix = (ax + aw).min(bx + bw) - ax.max(bx);
    let iy = (ay + ah).min(by + bh) - ay.max(by);
    if ix <= 0.0 || iy <= 0.0 {
        return 0.0;
    }
    ix * iy / (aw * ah).min(bw * bh).max(1.0)
}

/// Every region whose cells can be cut. A quad is turned so that a light
/// square is at its top left (the lattice fixes corners only up to a quarter
/// turn) and warped onto a square.
pub fn rectify(rgb: &RgbImage, regions: Vec<Region>) -> Vec<FoundBoard> {
    let mut found = Vec::new();
    for region in regions {
        match region {
            Region::Box(board) => found.push(FoundBoard {
                region,
                warped: None,
                cells: board,
                colours: cell_colours(rgb, board.corners()),
            }),
            Region::Quad(mut quad) => {
                let mut colours = cell_colours(rgb, quad.corners);
                if colours.as_deref().and_then(top_left_is_light) == Some(false) {
                    quad.corners.rotate_left(1);
                    colours = cell_colours(rgb, quad.corners);
                }
                let Some(warped) = warp_board(rgb, quad.corners, WARP_SIDE) else {
                    continue;
                };
                found.push(FoundBoard {
                    region: Region::Quad(quad),
                    warped: Some(warped),
                    cells: BoardBox::filling(WARP_SIDE as f32),
                    colours,
                });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_room_for_a_board_its_finder_missed() {
        // A book page, 2×2 diagrams of 300 px, the bottom-right one missed.
        let found = [
            [100, 100, 300, 300],
            [450, 100, 300, 300],
            [100, 450, 300, 300],
        ];
        assert!(room_for_another(850, 1200, &found));
        // All four found: the rest of the page is too narrow or too short.
        let all = [found[0], found[1], found[2], [450, 450, 300, 300]];
        assert!(!room_for_another(850, 800, &all));
        // A screenshot whose one board is large, with room beside it.
        assert!(!room_for_another(1440, 900, &[[666, 152, 640, 642]]));
        assert!(!room_for_another(1200, 800, &[]));
    }

    #[test]
    fn overlap_is_a_share_of_the_smaller_box() {
        assert_eq!(overlap_fraction([0, 0, 100, 100], [50, 0, 100, 100]), 0.5);
        assert_eq!(overlap_fraction([0, 0, 100, 100], [25, 25, 50, 50]), 1.0);
        assert_eq!(overlap_fraction([0, 0, 100, 100], [100, 0, 50, 50]), 0.0);
    }
}
