//! Every board in a picture, found and rectified: the order in which the
//! finders are tried, and the image each board's cells are cut from.
//!
//! [`locate_regions`] runs the finders; [`rectify`] turns what they found
//! into [`FoundBoard`]s: a box is cut from the picture itself, a board seen
//! at an angle from a square copy warped out of it.

use image::RgbImage;

use super::{
    cell_colours, locate_boards, locate_boards_smoothed, locate_quads, locate_quads_coarse,
    locate_turned, locate_whole_image, top_left_is_light, warp_board, BoardBox, BoardQuad, Luma32,
    Opponent,
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
/// grid lines, a photo's corner lattice, grid lines on a smoothed copy
/// (hatched or textured pages), grid lines on a straightened copy (pages
/// turned by a few degrees), the whole picture (cropped to a faint board),
/// and the corner lattice at a coarse scale (low-contrast photos).
fn first_finder_that_finds(luma: &Luma32) -> Vec<Region> {
    let boxes = |found: Vec<BoardBox>| found.into_iter().map(Region::Box).collect();
    let quads = |found: Vec<BoardQuad>| found.into_iter().map(Region::Quad).collect();
    let finders: [&dyn Fn() -> Vec<Region>; 6] = [
        &|| boxes(locate_boards(luma)),
        &|| quads(locate_quads(luma)),
        &|| boxes(locate_boards_smoothed(luma)),
        &|| quads(locate_turned(luma)),
        &|| boxes(locate_whole_image(luma).into_iter().collect()),
        &|| quads(locate_quads_coarse(luma)),
    ];
    finders
        .iter()
        .map(|find| find())
        .find(|regions| !regions.is_empty())
        .unwrap_or_default()
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
