//! Every board in a picture, found and rectified: the order in which the
//! finders are tried, and the image each board's cells are cut from.
//!
//! [`locate_regions`] runs the finders; [`rectify`] turns what they found
//! into [`FoundBoard`]s: a box is cut from the picture itself, a board seen
//! at an angle from a square copy warped out of it.

use std::cell::OnceCell;

use image::RgbImage;

use super::{
    cell_colours, is_printed, locate_along, locate_boards, locate_boards_smoothed, locate_framed,
    locate_framed_beside, locate_framed_turned, locate_outlined, locate_outlined_beside,
    locate_quads, locate_quads_coarse, locate_turned, locate_whole_image, page_slant, register,
    top_left_is_light, warp_board, BoardBox, BoardQuad, Luma32, Opponent, Registration, Slant,
    INNER_LINES,
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

    /// The same region `dx` right and `dy` down.
    fn shifted(self, dx: f32, dy: f32) -> Region {
        match self {
            Region::Box(b) => Region::Box(BoardBox {
                x: b.x + dx,
                y: b.y + dy,
                ..b
            }),
            Region::Quad(q) => Region::Quad(BoardQuad {
                corners: q.corners.map(|[x, y]| [x + dx, y + dy]),
                ..q
            }),
        }
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
    /// How the grid sits on the board's squares.
    pub registration: Registration,
    /// Whether the dark squares are hatched or screened as a printed
    /// diagram's are ([`is_printed`]).
    pub printed: bool,
}

impl FoundBoard {
    /// The image the cells are cut from: the warped copy or the picture.
    pub fn image<'a>(&'a self, picture: &'a RgbImage) -> &'a RgbImage {
        self.warped.as_ref().unwrap_or(picture)
    }
}

/// The board the finders see in the surroundings of `around` (`[x, y,
/// width, height]`, a board of a page found but read badly), looking at
/// them as at a picture of their own: a quarter of the board's side on
/// each side of it, at the finer scale a crop is looked at. Of the boards
/// the first finder that finds any sees there, the largest, in the
/// picture's pixels.
pub fn locate_around(rgb: &RgbImage, luma: &Luma32, around: [u32; 4]) -> Option<Region> {
    let [x, y, width, height] = around;
    let margin = width.max(height) / 4;
    let (x0, y0) = (x.saturating_sub(margin), y.saturating_sub(margin));
    let x1 = (x + width + margin).min(luma.width);
    let y1 = (y + height + margin).min(luma.height);
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let window_rgb = image::imageops::crop_imm(rgb, x0, y0, x1 - x0, y1 - y0).to_image();
    let window = luma.cropped(x0, y0, x1, y1);
    let (regions, _) = locate_regions(&window_rgb, &window);
    let area = |r: &Region| {
        let [_, _, w, h] = r.bounding_box();
        u64::from(w) * u64::from(h)
    };
    let largest = regions.into_iter().max_by_key(area)?;
    Some(largest.shifted(x0 as f32, y0 as f32))
}

/// Every board of a picture, and the finders not yet tried on its lightness
/// (`luma`), which may find the board elsewhere when what was found reads
/// badly. The finders run on the lightness, then, for squares as light as
/// each other but of another hue, on the red–green and then the blue–yellow
/// opponent-colour axis; boards found on a colour axis leave no finders.
pub fn locate_regions<'a>(rgb: &RgbImage, luma: &'a Luma32) -> (Vec<Region>, Finders<'a>) {
    let mut finders = Finders::new(luma);
    if let Some(regions) = finders.next() {
        return (regions, finders);
    }
    let regions = [Opponent::RedGreen, Opponent::BlueYellow]
        .into_iter()
        .find_map(|axis| Finders::new(&Luma32::opponent_from_rgb(rgb, axis)).next())
        .unwrap_or_default();
    (regions, finders)
}

/// The finders, most exact first, run one at a time as they are asked for:
/// iterating yields what each finder that finds anything found. In order:
/// axis-aligned grid lines (with the boards a slightly turned page hides from them,
/// [`with_turned_boards`], and the framed boards beside them on a page,
/// [`with_framed_boards`]), a photo's corner lattice, grid lines on a smoothed copy
/// (hatched or textured pages), grid lines on a straightened copy (pages turned by
/// a few degrees; on a page of diagrams, with those only a larger straightened copy
/// shows), the whole picture (cropped to a faint board), a diagram's frame (faint
/// squares inside a printed border), that frame on a straightened copy (a diagram
/// cut from a page scanned askew), the corner lattice at a coarse scale
/// (low-contrast photos), and printed frames seen in perspective (a diagram
/// photographed at a slant, whose hatching hides its corner lattice). On a page
/// of diagrams, the boards of the three grid-line passes are joined by the framed
/// boards beside them ([`with_framed_boards`]), those of the first also by the
/// boards grid lines see a band of the page at a time ([`with_boards_in_bands`]),
/// and those of the two corner-lattice
/// passes, and of the first grid-line pass on a turned page, by the printed frames
/// in perspective beside them ([`with_outlined_boards`]).
pub struct Finders<'a> {
    luma: &'a Luma32,
    /// The index in [`Finder::ORDER`] of the next finder to run.
    next: usize,
    /// The page's slant over the whole search range, measured once for the
    /// finders that need it.
    slant: OnceCell<Option<Slant>>,
    /// The page's slant within [`MAX_TURN_BESIDE_BOXES_DEG`], measured once.
    slant_beside_boxes: OnceCell<Option<Slant>>,
}

/// One way of finding boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Finder {
    /// Axis-aligned grid lines, with turned and framed boards beside them.
    GridLines,
    /// A photo's corner lattice.
    CornerLattice,
    /// Grid lines on a smoothed copy (hatched or textured pages).
    GridLinesSmoothed,
    /// Grid lines on a straightened copy (pages turned by a few degrees).
    GridLinesStraightened,
    /// The whole picture, cropped to a faint board.
    WholeImage,
    /// A diagram's printed frame around faint squares.
    Frame,
    /// That frame on a straightened copy.
    FrameStraightened,
    /// The corner lattice at a coarse scale (low-contrast photos).
    CornerLatticeCoarse,
    /// Printed frames seen in perspective.
    FrameInPerspective,
}

impl Finder {
    /// The order they are tried in, most exact first.
    const ORDER: [Finder; 9] = [
        Finder::GridLines,
        Finder::CornerLattice,
        Finder::GridLinesSmoothed,
        Finder::GridLinesStraightened,
        Finder::WholeImage,
        Finder::Frame,
        Finder::FrameStraightened,
        Finder::CornerLatticeCoarse,
        Finder::FrameInPerspective,
    ];
}

impl<'a> Finders<'a> {
    pub fn new(luma: &'a Luma32) -> Self {
        Finders {
            luma,
            next: 0,
            slant: OnceCell::new(),
            slant_beside_boxes: OnceCell::new(),
        }
    }

    fn run(&self, finder: Finder) -> Vec<Region> {
        let luma = self.luma;
        let boxes = |found: Vec<BoardBox>| found.into_iter().map(Region::Box).collect();
        let quads = |found: Vec<BoardQuad>| found.into_iter().map(Region::Quad).collect();
        let slant = || *self.slant.get_or_init(|| page_slant(luma, f32::MAX));
        let within_boxes_turn = || {
            *self
                .slant_beside_boxes
                .get_or_init(|| page_slant(luma, MAX_TURN_BESIDE_BOXES_DEG))
        };
        let along = |find: fn(&Luma32, &Slant) -> Vec<BoardQuad>| {
            slant().map_or_else(Vec::new, |slant| quads(find(luma, &slant)))
        };
        match finder {
            Finder::GridLines => {
                let found = boxes(locate_boards(luma));
                let found = with_boards_in_bands(
                    luma,
                    with_framed_boards(luma, with_turned_boards(luma, found, within_boxes_turn)),
                );
                // Grid lines find the diagrams of a page photographed square on,
                // as they do a scan's: outlines are looked for only on a turned page.
                with_outlined_boards(luma, found, || within_boxes_turn().is_some())
            }
            Finder::CornerLattice => with_outlined_boards(
                luma,
                with_turned_boards(luma, quads(locate_quads(luma)), slant),
                || true,
            ),
            Finder::GridLinesSmoothed => with_framed_boards(
                luma,
                with_turned_boards(luma, boxes(locate_boards_smoothed(luma)), within_boxes_turn),
            ),
            Finder::GridLinesStraightened => {
                with_framed_boards(luma, with_turned_boards(luma, along(locate_turned), slant))
            }
            Finder::WholeImage => boxes(locate_whole_image(luma).into_iter().collect()),
            Finder::Frame => boxes(locate_framed(luma)),
            Finder::FrameStraightened => along(locate_framed_turned),
            Finder::CornerLatticeCoarse => {
                with_outlined_boards(luma, quads(locate_quads_coarse(luma)), || true)
            }
            Finder::FrameInPerspective => quads(locate_outlined(luma)),
        }
    }
}

impl Iterator for Finders<'_> {
    type Item = Vec<Region>;

    fn next(&mut self) -> Option<Vec<Region>> {
        while let Some(&finder) = Finder::ORDER.get(self.next) {
            let found = self.run(finder);
            self.next += 1;
            if !found.is_empty() {
                return Some(found);
            }
        }
        None
    }
}

/// Boards found, mended where the picture is turned by a fraction of a degree: the
/// slant is measured (by `measure_slant`, only where needed), and where it is
/// turned the boards found on a straightened copy replace the axis-aligned boxes
/// they overlap (whose cells drift across the turned squares) and join those the
/// turn hid. On a page of diagrams any turn counts; a picture of one large board is
/// mended only where the grid-line finder missed some of its lines and the turn is
/// [`MIN_TURN_OF_A_LARGE_BOARD_DEG`] or more. A photo's quads stay.
fn with_turned_boards(
    luma: &Luma32,
    found: Vec<Region>,
    measure_slant: impl FnOnce() -> Option<Slant>,
) -> Vec<Region> {
    let around: Vec<[u32; 4]> = found.iter().map(Region::bounding_box).collect();
    let partly_seen = found
        .iter()
        .any(|region| matches!(region, Region::Box(b) if b.lines_seen < INNER_LINES));
    let min_turn_deg = match is_page_of_boards(luma.width, luma.height, &around) {
        true => 0.0,
        false if partly_seen => MIN_TURN_OF_A_LARGE_BOARD_DEG,
        false => return found,
    };
    let Some(slant) = measure_slant().filter(|slant| slant.degrees() >= min_turn_deg) else {
        return found;
    };
    let mut straightened = locate_along(luma, &slant);
    let mut mended: Vec<Region> = found
        .into_iter()
        .map(|region| {
            let old = region.bounding_box();
            let same = straightened.iter().position(|quad| {
                overlap_fraction(Region::Quad(*quad).bounding_box(), old) >= MIN_SAME_BOARD_OVERLAP
            });
            match (region, same.map(|i| straightened.swap_remove(i))) {
                (Region::Box(_), Some(quad)) => Region::Quad(quad),
                (region, _) => region,
            }
        })
        .collect();
    mended.extend(straightened.into_iter().map(Region::Quad));
    mended
}

/// Boards found, with the framed boards beside them on a page of diagrams:
/// grid lines may find one diagram of a page and miss another whose squares
/// are too faint, or too dark, for them.
fn with_framed_boards(luma: &Luma32, found: Vec<Region>) -> Vec<Region> {
    joined_on_a_page(luma, found, |known| {
        let known: Vec<BoardBox> = known
            .iter()
            .map(|&[x, y, width, height]| {
                BoardBox::unlined(x as f32, y as f32, width as f32, height as f32)
            })
            .collect();
        locate_framed_beside(luma, &known)
            .into_iter()
            .map(Region::Box)
            .collect()
    })
}

/// Boards found, with those the grid-line finder sees beside them on a page
/// of diagrams when it looks at the page a band at a time. On the whole page,
/// scaled down to the finder's detection size, the edge of a frameless
/// hatched diagram can blur into its hatching; a band as wide as the page
/// and twice as high as the largest board found is looked at more finely
/// (on a smoothed copy where the lines of its hatching hide the grid).
/// Bands overlap by a board's side, so that each board lies whole in one; a
/// board found touching a band's cut edge is a part of one, and left out.
fn with_boards_in_bands(luma: &Luma32, found: Vec<Region>) -> Vec<Region> {
    joined_on_a_page(luma, found, |known| {
        let side = known.iter().map(|b| b[2].max(b[3])).max().unwrap_or(0);
        let like_known = |b: &BoardBox| {
            let other = b.width.max(b.height);
            (BAND_BOARD_SIZES.0 * side as f32..=BAND_BOARD_SIZES.1 * side as f32).contains(&other)
        };
        let mut boards: Vec<Region> = Vec::new();
        let mut top = 0;
        loop {
            let bottom = (top + 2 * side).min(luma.height);
            let band = luma.cropped(0, top, luma.width, bottom);
            let mut in_band = locate_boards(&band);
            if in_band.is_empty() {
                in_band = locate_boards_smoothed(&band);
            }
            for mut board in in_band {
                let cut_above = top > 0 && board.y < BAND_EDGE_PX;
                let cut_below = bottom < luma.height
                    && board.y + board.height > band.height as f32 - BAND_EDGE_PX;
                board.y += top as f32;
                let region = Region::Box(board);
                let bounds = region.bounding_box();
                if !cut_above
                    && !cut_below
                    && like_known(&board)
                    && boards.iter().all(|other| {
                        overlap_fraction(other.bounding_box(), bounds) < MIN_SAME_BOARD_OVERLAP
                    })
                {
                    boards.push(region);
                }
            }
            if bottom >= luma.height {
                return boards;
            }
            top += side;
        }
    })
}

/// A board found in a band is one of a page's diagrams when its side is
/// within these shares of the largest board found on the whole page.
const BAND_BOARD_SIZES: (f32, f32) = (0.6, 1.5);

/// A board found this close to a band's cut edge (pixels) is cut by it.
const BAND_EDGE_PX: f32 = 3.0;

/// Boards found, with the printed frames in perspective beside them on a page
/// of diagrams where `photographed` says so: on a photographed page the grid
/// lines or the corner lattice may see one diagram and miss the others, whose
/// lines converge or whose hatching breaks up the lattice.
fn with_outlined_boards(
    luma: &Luma32,
    found: Vec<Region>,
    photographed: impl FnOnce() -> bool,
) -> Vec<Region> {
    joined_on_a_page(luma, found, |known| match photographed() {
        true => locate_outlined_beside(luma, known)
            .into_iter()
            .map(Region::Quad)
            .collect(),
        false => Vec::new(),
    })
}

/// `found`, joined by the boards `beside` finds (given the bounds of those
/// found) that are not one of them, where `found` are diagrams on a page.
fn joined_on_a_page(
    luma: &Luma32,
    mut found: Vec<Region>,
    beside: impl FnOnce(&[[u32; 4]]) -> Vec<Region>,
) -> Vec<Region> {
    let around: Vec<[u32; 4]> = found.iter().map(Region::bounding_box).collect();
    if !is_page_of_boards(luma.width, luma.height, &around) {
        return found;
    }
    for region in beside(&around) {
        let bounds = region.bounding_box();
        if around
            .iter()
            .all(|&other| overlap_fraction(bounds, other) < MIN_SAME_BOARD_OVERLAP)
        {
            found.push(region);
        }
    }
    found
}

/// Whether `boards` (`[x, y, width, height]`) look like diagrams on a page:
/// the largest is at most half the picture's shorter side (a screenshot's
/// board is larger).
fn is_page_of_boards(width: u32, height: u32, boards: &[[u32; 4]]) -> bool {
    boards
        .iter()
        .map(|b| b[2].max(b[3]))
        .max()
        .is_some_and(|side| side > 0 && side <= width.min(height) / 2)
}

/// A large board's box is mended from this turn on: its corner cells then
/// drift by 7 % of a square, as much as training jittered the cut.
const MIN_TURN_OF_A_LARGE_BOARD_DEG: f32 = 1.0;

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

/// Every region whose cells can be cut. A box is moved onto the squares of
/// `luma` (the picture's lightness) where it lies off them ([`register`]). A
/// quad is turned so that a light square is at its top left (the lattice
/// fixes corners only up to a quarter turn) and warped onto a square.
pub fn rectify(rgb: &RgbImage, luma: &Luma32, regions: Vec<Region>) -> Vec<FoundBoard> {
    let mut found = Vec::new();
    for region in regions {
        match region {
            Region::Box(board) => {
                let (board, registration) = register(luma, board);
                found.push(FoundBoard {
                    region: Region::Box(board),
                    warped: None,
                    cells: board,
                    colours: cell_colours(rgb, board.corners()),
                    registration,
                    printed: is_printed(luma, &board),
                });
            }
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
                    registration: Registration::Fits,
                    printed: false,
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
    fn diagrams_on_a_page_are_at_most_half_its_shorter_side() {
        // A book page with 2×2 diagrams of 300 px.
        let page = [[100, 100, 300, 300], [450, 100, 300, 300]];
        assert!(is_page_of_boards(850, 1200, &page));
        // A screenshot whose one board is large, with room beside it.
        assert!(!is_page_of_boards(1440, 900, &[[666, 152, 640, 642]]));
        assert!(!is_page_of_boards(1200, 800, &[]));
    }

    /// A page `w`×`h` at 235 with boards of `side` px (squares at 225 and 95)
    /// centred on `centres`, then the whole page turned by `degrees` about
    /// its centre, antialiased; and each board's corners on the turned page.
    fn turned_page(
        degrees: f32,
        centres: &[[f32; 2]],
        side: f32,
        w: u32,
        h: u32,
    ) -> (Luma32, Vec<[[f32; 2]; 4]>) {
        let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
        let (sin, cos) = degrees.to_radians().sin_cos();
        // Page coordinates (the turn undone) of a point of the picture, and back.
        let unturn = |x: f32, y: f32| {
            let (dx, dy) = (x - cx, y - cy);
            [cx + cos * dx + sin * dy, cy - sin * dx + cos * dy]
        };
        let turn = |[x, y]: [f32; 2]| {
            let (dx, dy) = (x - cx, y - cy);
            [cx + cos * dx - sin * dy, cy + sin * dx + cos * dy]
        };
        let level = |[x, y]: [f32; 2]| {
            for c in centres {
                let bx = (x - c[0] + side / 2.0) / side * 8.0;
                let by = (y - c[1] + side / 2.0) / side * 8.0;
                if (0.0..8.0).contains(&bx) && (0.0..8.0).contains(&by) {
                    return if (bx as i32 + by as i32) % 2 == 0 {
                        225.0
                    } else {
                        95.0
                    };
                }
            }
            235.0
        };
        let mut data = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let sum: f32 = (0..4)
                    .map(|s| {
                        let (sx, sy) = ((s % 2) as f32 * 0.5 + 0.25, (s / 2) as f32 * 0.5 + 0.25);
                        level(unturn(x as f32 + sx, y as f32 + sy))
                    })
                    .sum();
                data.push(sum / 4.0);
            }
        }
        let half = side / 2.0;
        let corners = centres
            .iter()
            .map(|c| {
                [[-half, -half], [half, -half], [half, half], [-half, half]]
                    .map(|[dx, dy]| turn([c[0] + dx, c[1] + dy]))
            })
            .collect();
        (Luma32::new(w, h, data), corners)
    }

    #[test]
    fn boards_of_a_turned_page_are_found_along_its_turn() {
        // Four diagrams of a book page scanned 0.9° askew: the grid-line
        // finder sees them, but its axis-aligned boxes are 3.6 px off at
        // the corners, where cells are 30 px.
        let centres = [
            [280.0, 380.0],
            [640.0, 380.0],
            [280.0, 760.0],
            [640.0, 760.0],
        ];
        let (page, truth) = turned_page(0.9, &centres, 240.0, 920, 1200);
        let found = Finders::new(&page).next().unwrap_or_default();
        assert_eq!(found.len(), 4, "{found:?}");
        for board in truth {
            let error = |region: &Region| {
                let corners = region.corners();
                (0..4)
                    .map(|i| (corners[i][0] - board[i][0]).hypot(corners[i][1] - board[i][1]))
                    .fold(0.0f32, f32::max)
            };
            let nearest = found.iter().map(error).fold(f32::MAX, f32::min);
            assert!(nearest < 2.5, "a board's corners are {nearest} px off");
        }
    }

    #[test]
    fn overlap_is_a_share_of_the_smaller_box() {
        assert_eq!(overlap_fraction([0, 0, 100, 100], [50, 0, 100, 100]), 0.5);
        assert_eq!(overlap_fraction([0, 0, 100, 100], [25, 25, 50, 50]), 1.0);
        assert_eq!(overlap_fraction([0, 0, 100, 100], [100, 0, 50, 50]), 0.0);
    }
}
