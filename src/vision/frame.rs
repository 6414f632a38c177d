//! Boards found by their frame: the square border drawn round a book
//! diagram, for boards whose squares are too faint for grid lines (hatching
//! faded to specks in a bilevel scan, a pale board in a PDF viewer).
//!
//! Ink lines are looked for on a coarse mask (a block is ink if any of its
//! pixels is; ink is darker than a fixed level, or, where that finds no
//! board, darker than a share of the paper's brightness, for a faint frame
//! on grey paper), two horizontal and two vertical lines must close a square,
//! each side is moved to the frame's inner edge at full resolution, and the
//! square is kept only if its cells alternate on a blurred copy, where
//! faint hatching reads as grey.

use std::borrow::Cow;

use super::{
    locate::{alternates_blurred, BoardBox},
    Luma32,
};

/// The ink mask is at most this large on its longest side.
const MAX_MASK_SIDE: usize = 800;
/// A pixel darker than this is ink.
const INK: f32 = 160.0;
/// Where [`INK`] finds no board: a pixel darker than this share of the
/// paper's brightness is ink (a frame of 170 on paper of 205).
const INK_OF_PAPER: f32 = 0.86;
/// The paper's brightness is this quantile of the picture's.
const PAPER_QUANTILE: f32 = 0.9;
/// The last pass takes ink as darker than this share of the paper's
/// brightness: a scan's solid grey dark squares may be darker than [`INK`],
/// and then every rank whose light squares hold pieces runs into the frame
/// as one line of ink.
const INK_UNDER_GREY_SQUARES: f32 = 0.6;
/// A frame's side is at least this long in the mask.
const MIN_SIDE: usize = 64;
/// A frame line may be broken by gaps this long in the mask (specks lost
/// to a threshold).
const MAX_GAP: usize = 6;
/// Mask rows (columns) merged into one, so a frame turned by a degree or so
/// still gives one long line.
const BAND: usize = 7;
/// Sides that close one square agree within this share of its side.
const SQUARE_TOL: f32 = 0.04;
/// At most this many of the largest squares closed by lines are checked.
const MAX_SQUARES: usize = 64;
/// Cells on their parity's side in a framed board: the frame vouches for
/// the board, so fewer than a frameless board needs (pieces on most squares
/// of a faint board hide its colours).
pub(super) const FRAMED_MIN_AGREEING: usize = 48;
/// Two frames are one if they overlap by this much (intersection over union).
const SAME_FRAME: f32 = 0.3;

/// A straight run of ink in the mask: along a row (`pos` is the row) or a
/// column, from `start` to `end` (exclusive).
#[derive(Clone, Copy, Debug)]
struct Line {
    pos: usize,
    start: usize,
    end: usize,
}

/// Every framed board whose squares alternate, largest first: with ink at
/// the fixed level, else at [`INK_OF_PAPER`] of the paper's brightness (a
/// faint frame on grey paper), else at [`INK_UNDER_GREY_SQUARES`] of it.
pub fn locate_framed(image: &Luma32) -> Vec<BoardBox> {
    let minima = BlockMinima::new(image);
    ink_levels(image)
        .map(|ink| locate_framed_at(image, &minima, ink, &[]))
        .find(|found| !found.is_empty())
        .unwrap_or_default()
}

/// The framed boards beside the `known` ones (a frame overlapping one of
/// them is not looked at), found at any of [`locate_framed`]'s ink levels,
/// each once, largest first: on a page of diagrams one level may suit one
/// diagram (a grey board darker than [`INK`]) and not another.
pub fn locate_framed_beside(image: &Luma32, known: &[BoardBox]) -> Vec<BoardBox> {
    let minima = BlockMinima::new(image);
    let mut found: Vec<BoardBox> = Vec::new();
    for ink in ink_levels(image) {
        for board in locate_framed_at(image, &minima, ink, known) {
            if found.iter().all(|b| b.iou(&board) < SAME_FRAME) {
                found.push(board);
            }
        }
    }
    found.sort_by(|a, b| (b.width * b.height).total_cmp(&(a.width * a.height)));
    found
}

/// The ink levels tried, in order: the fixed level, then shares of the
/// paper's brightness (measured only if needed), the first only where it is
/// fainter than the fixed level.
fn ink_levels(image: &Luma32) -> impl Iterator<Item = f32> + '_ {
    let paper = std::cell::OnceCell::new();
    let paper = move || *paper.get_or_init(|| paper_level(image));
    let shares = [(INK_OF_PAPER, true), (INK_UNDER_GREY_SQUARES, false)];
    std::iter::once(INK).chain(shares.into_iter().filter_map(move |(share, only_fainter)| {
        let ink = share * paper();
        (!only_fainter || ink > INK).then_some(ink)
    }))
}

/// The [`PAPER_QUANTILE`] of the picture's brightness, from at most 65,536
/// pixels spread over it.
fn paper_level(image: &Luma32) -> f32 {
    let step = (image.data.len() / 65_536).max(1);
    let mut histogram = [0usize; 256];
    let mut n = 0;
    for &v in image.data.iter().step_by(step) {
        histogram[v.clamp(0.0, 255.0) as usize] += 1;
        n += 1;
    }
    let mut below = 0;
    for (level, count) in histogram.iter().enumerate() {
        below += count;
        if below as f32 >= PAPER_QUANTILE * n as f32 {
            return level as f32;
        }
    }
    255.0
}

/// [`locate_framed`] with pixels darker than `ink` taken for ink, skipping
/// frames that overlap the `known` boards.
fn locate_framed_at(
    image: &Luma32,
    minima: &BlockMinima,
    ink: f32,
    known: &[BoardBox],
) -> Vec<BoardBox> {
    let block = minima.block;
    let mask = InkMask::new(minima, ink);
    let rows = mask.lines(false);
    let cols = mask.lines(true);
    let mut found: Vec<BoardBox> = Vec::new();
    // The bands of one frame close many nearly equal squares, which mostly
    // share their inner box: each box is checked once.
    let mut tried: Vec<[f32; 4]> = Vec::new();
    let in_pixels = |square: [usize; 4]| square.map(|v| (v * block) as f32);
    let overlaps_known = |[x0, y0, x1, y1]: [f32; 4]| {
        let outline = BoardBox::unlined(x0, y0, x1 - x0, y1 - y0);
        known.iter().any(|b| b.iou(&outline) >= SAME_FRAME)
    };
    let unknown = closed_squares(&rows, &cols)
        .into_iter()
        .map(in_pixels)
        .filter(|&frame| !overlaps_known(frame));
    for frame in unknown.take(MAX_SQUARES) {
        let Some(board) = inner_box(image, frame, block as f32, ink) else {
            continue;
        };
        let corners = [board.x, board.y, board.width, board.height];
        if tried
            .iter()
            .any(|t| t.iter().zip(&corners).all(|(a, b)| (a - b).abs() <= 1.0))
        {
            continue;
        }
        tried.push(corners);
        if found.iter().any(|b| b.iou(&board) >= SAME_FRAME)
            || !alternates_blurred(image, &board, FRAMED_MIN_AGREEING)
        {
            continue;
        }
        found.push(board);
    }
    found.sort_by(|a, b| (b.width * b.height).total_cmp(&(a.width * a.height)));
    found
}

/// The darkest pixel of each `block × block` block of the picture, the
/// block as large as keeps the grid within [`MAX_MASK_SIDE`]: computed once
/// for every ink level.
struct BlockMinima {
    block: usize,
    width: usize,
    min: Vec<f32>,
}

impl BlockMinima {
    fn new(image: &Luma32) -> Self {
        let (w, h) = (image.width as usize, image.height as usize);
        let block = w.max(h).div_ceil(MAX_MASK_SIDE).max(1);
        let width = w.div_ceil(block);
        let mut min = vec![f32::INFINITY; width * h.div_ceil(block)];
        for (y, row) in image.data.chunks_exact(w).enumerate() {
            let out = &mut min[(y / block) * width..][..width];
            for (m, pixels) in out.iter_mut().zip(row.chunks(block)) {
                *m = pixels.iter().copied().fold(*m, f32::min);
            }
        }
        Self { block, width, min }
    }
}

/// Ink in blocks: a block is ink if any of its pixels is darker than the level.
struct InkMask {
    width: usize,
    height: usize,
    ink: Vec<bool>,
}

impl InkMask {
    fn new(minima: &BlockMinima, level: f32) -> Self {
        let width = minima.width;
        let ink: Vec<bool> = minima.min.iter().map(|&v| v < level).collect();
        Self {
            width,
            height: ink.len() / width,
            ink,
        }
    }

    fn at(&self, x: usize, y: usize) -> bool {
        self.ink[y * self.width + x]
    }

    /// Ink runs at least [`MIN_SIDE`] long along rows, or along columns when
    /// `columns`, each in a band of [`BAND`] rows (columns).
    fn lines(&self, columns: bool) -> Vec<Line> {
        let (along, across) = match columns {
            false => (self.width, self.height),
            true => (self.height, self.width),
        };
        // The mask with `along` running fastest: transposed for columns.
        let grid: Cow<[bool]> = match columns {
            false => Cow::Borrowed(&self.ink),
            true => (0..self.width)
                .flat_map(|x| (0..self.height).map(move |y| self.at(x, y)))
                .collect(),
        };
        let mut lines: Vec<Line> = Vec::new();
        // Inked blocks at each place along, in the band's BAND rows (columns).
        let mut in_band = vec![0u8; along];
        let add = |in_band: &mut [u8], pos: usize, step: i8| {
            let row = &grid[pos * along..][..along];
            for (count, &ink) in in_band.iter_mut().zip(row) {
                *count = count.wrapping_add_signed(step * i8::from(ink));
            }
        };
        for pos in 0..across.min(BAND - 1) {
            add(&mut in_band, pos, 1);
        }
        for pos in 0..across.saturating_sub(BAND - 1) {
            add(&mut in_band, pos + BAND - 1, 1);
            let mut start = None;
            let mut last = 0;
            let inked = in_band.iter().map(|&count| count > 0).chain([false]);
            for (i, here) in inked.enumerate() {
                if here {
                    start.get_or_insert(i);
                    last = i;
                } else if let Some(s) = start {
                    if i == along || i - last > MAX_GAP {
                        if last + 1 - s >= MIN_SIDE {
                            lines.push(Line {
                                pos,
                                start: s,
                                end: last + 1,
                            });
                        }
                        start = None;
                    }
                }
            }
            add(&mut in_band, pos, -1);
        }
        merge_bands(lines)
    }
}

/// One line for each run of neighbouring bands that found the same ink line
/// (every band that holds a line finds it): placed at the middle band's
/// centre, as long as the longest.
fn merge_bands(lines: Vec<Line>) -> Vec<Line> {
    // (first band, last band, start, end) of each run of bands.
    let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new();
    for line in lines {
        let same = runs.iter_mut().rev().find(|r| {
            r.1 + 1 >= line.pos
                && r.2.abs_diff(line.start) <= BAND
                && r.3.abs_diff(line.end) <= BAND
        });
        match same {
            Some(run) => {
                run.1 = line.pos;
                run.2 = run.2.min(line.start);
                run.3 = run.3.max(line.end);
            }
            None => runs.push((line.pos, line.pos, line.start, line.end)),
        }
    }
    runs.into_iter()
        .map(|(first, last, start, end)| Line {
            pos: (first + last) / 2 + BAND / 2,
            start,
            end,
        })
        .collect()
}

/// Squares `[x0, y0, x1, y1]` (mask coordinates) closed by two row lines
/// and two column lines, largest first. The columns set the side: a row line
/// may run on past the frame into coordinates printed beside it.
fn closed_squares(rows: &[Line], cols: &[Line]) -> Vec<[usize; 4]> {
    let mut rows = rows.to_vec();
    rows.sort_by_key(|r| r.pos);
    let mut cols = cols.to_vec();
    cols.sort_by_key(|c| c.pos);
    let mut squares = Vec::new();
    for top in &rows {
        // Columns that meet this row within its extent and run down from it.
        let from = |c: &Line, tol: usize| c.start <= top.pos + tol && c.end > top.pos;
        let meets = |c: &&Line| top.start <= c.pos + 1 && c.pos <= top.end + 1 && from(c, 2);
        let candidates: Vec<&Line> = cols.iter().filter(meets).collect();
        for (i, left) in candidates.iter().enumerate() {
            for right in &candidates[i + 1..] {
                let side = right.pos - left.pos;
                if side < MIN_SIDE {
                    continue;
                }
                let tol = (side as f32 * SQUARE_TOL).ceil() as usize + 1;
                let spans = |c: &Line| from(c, tol) && c.end + tol >= top.pos + side;
                if !spans(left) || !spans(right) {
                    continue;
                }
                // Rows a side's length below, give or take `tol`, across both columns.
                let first = rows.partition_point(|r| r.pos + tol < top.pos + side);
                let last = rows.partition_point(|r| r.pos <= top.pos + side + tol);
                for bottom in &rows[first..last] {
                    if bottom.start <= left.pos + tol && bottom.end + tol >= right.pos {
                        squares.push([left.pos, top.pos, right.pos, bottom.pos]);
                    }
                }
            }
        }
    }
    squares.sort_by_key(|s| std::cmp::Reverse(s[2] - s[0]));
    squares
}

/// The board inside the frame found at `x0..x1`, `y0..y1` (pixels, each to
/// within `block`): each side moved inward past the frame's ink (pixels
/// darker than `ink`).
fn inner_box(image: &Luma32, frame: [f32; 4], block: f32, ink: f32) -> Option<BoardBox> {
    let [x0, y0, x1, y1] = frame;
    let (w, h) = (image.width as f32, image.height as f32);
    // The share of ink along the middle of one side's row (column) at `at`.
    let ink_share = |at: f32, horizontal: bool| {
        let (from, to) = match horizontal {
            true => (x0, x1),
            false => (y0, y1),
        };
        let n = 64;
        let inked = (0..n)
            .filter(|k| {
                let t = from + (to - from) * (0.2 + 0.6 * *k as f32 / (n - 1) as f32);
                let (x, y) = if horizontal { (t, at) } else { (at, t) };
                x >= 0.0 && y >= 0.0 && x < w && y < h && image.sample(x, y) < ink
            })
            .count();
        inked as f32 / n as f32
    };
    // The frame is the most inked position within half a band of the line
    // at `line` (coordinates printed beside it are ink too, but broken); the
    // board starts at the first position inward (by `dir`) past its ink,
    // which is at most a 32nd of the side thick.
    let band = (BAND / 2 + 2) as f32 * block;
    let thickest = 2.0 + (x1 - x0) / 32.0;
    let inner = |line: f32, dir: f32, horizontal: bool| {
        let mut frame: Option<(f32, f32)> = None;
        let mut at = line - band;
        while at <= line + band {
            let share = ink_share(at, horizontal);
            if share >= 0.5 && frame.is_none_or(|(_, most)| share > most) {
                frame = Some((at, share));
            }
            at += 1.0;
        }
        let (frame, _) = frame?;
        (0..thickest as usize)
            .map(|k| frame + dir * k as f32)
            .find(|&at| ink_share(at, horizontal) < 0.5)
    };
    let left = inner(x0, 1.0, false)?;
    let right = inner(x1, -1.0, false)? + 1.0;
    let top = inner(y0, 1.0, true)?;
    let bottom = inner(y1, -1.0, true)? + 1.0;
    let (width, height) = (right - left, bottom - top);
    ((width - height).abs() <= SQUARE_TOL * width && width > 0.0)
        .then_some(BoardBox::unlined(left, top, width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white page with a framed board whose 50 px squares start at
    /// (`x`, `y`): a 3 px frame just outside them, dark squares hatched
    /// with diagonal lines (or left plain when `hatched` is false), a few
    /// round black pieces, and a line of "text" above.
    fn page(w: usize, h: usize, boards: &[(usize, usize)], hatched: bool) -> Luma32 {
        let mut data = vec![255.0f32; w * h];
        for &(bx, by) in boards {
            let side = 400;
            for y in by - 3..by + side + 3 {
                for x in bx - 3..bx + side + 3 {
                    let inside = (bx..bx + side).contains(&x) && (by..by + side).contains(&y);
                    let (col, row) = ((x.max(bx) - bx) / 50, (y.max(by) - by) / 50);
                    let dark = (col + row) % 2 == 1 && hatched && (x + y) % 6 < 2;
                    let (cx, cy) = (bx + col * 50 + 25, by + row * 50 + 25);
                    let piece = (col * 3 + row) % 5 == 0
                        && (x as f32 - cx as f32).hypot(y as f32 - cy as f32) < 14.0;
                    if !inside || dark || piece {
                        data[y * w + x] = 0.0;
                    }
                }
            }
            // Words of text above the board.
            for y in by - 30..by - 20 {
                for x in (bx..bx + side).filter(|x| x % 40 < 30) {
                    data[y * w + x] = 0.0;
                }
            }
        }
        Luma32::new(w as u32, h as u32, data)
    }

    #[test]
    fn a_framed_board_is_found_at_the_frames_inner_edge() {
        let found = locate_framed(&page(700, 600, &[(150, 100)], true));
        assert_eq!(found.len(), 1, "{found:?}");
        let b = found[0];
        for (got, want) in [
            (b.x, 150.0),
            (b.y, 100.0),
            (b.width, 400.0),
            (b.height, 400.0),
        ] {
            assert!((got - want).abs() <= 2.0, "{b:?}");
        }
    }

    #[test]
    fn every_framed_board_of_a_page_is_found() {
        let found = locate_framed(&page(1000, 560, &[(50, 100), (540, 120)], true));
        assert_eq!(found.len(), 2, "{found:?}");
        let mut xs: Vec<f32> = found.iter().map(|b| b.x).collect();
        xs.sort_by(f32::total_cmp);
        assert!(
            (xs[0] - 50.0).abs() <= 2.0 && (xs[1] - 540.0).abs() <= 2.0,
            "{found:?}"
        );
    }

    #[test]
    fn frames_beside_known_boards_are_found_and_the_known_ones_skipped() {
        let image = page(1000, 560, &[(50, 100), (540, 120)], true);
        let known = BoardBox {
            x: 50.0,
            y: 100.0,
            width: 400.0,
            height: 400.0,
            lines_seen: 7,
        };
        let found = locate_framed_beside(&image, &[known]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!((found[0].x - 540.0).abs() <= 2.0, "{found:?}");
        assert_eq!(locate_framed_beside(&image, &[]).len(), 2);
    }

    #[test]
    fn coordinates_printed_against_the_frame_do_not_widen_it() {
        // Rank digits 24 px wide, 2 px left of the frame, the "8" standing
        // higher than the frame's top: every band holding the top frame line
        // takes in the "8", so that line runs 24 px past the frame, more
        // than the side tolerance.
        let mut image = page(700, 600, &[(150, 100)], true);
        for rank in 0..8 {
            for y in 100 + rank * 50 - 6..100 + rank * 50 + 12 {
                for x in 121..145 {
                    image.data[y * 700 + x] = 0.0;
                }
            }
        }
        let found = locate_framed(&image);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            (found[0].x - 150.0).abs() <= 2.0 && (found[0].width - 400.0).abs() <= 3.0,
            "{found:?}"
        );
    }

    /// Grey levels of a scanned board: paper, frame, light and dark
    /// squares, pieces.
    struct Scan {
        paper: f32,
        frame: f32,
        dark_square: f32,
        piece: f32,
    }

    /// A 300×300 scan of a board of 8 `cell`-pixel squares at (60, 50) in
    /// a 2 px frame, light squares as light as the paper, and a round piece
    /// of radius `cell / 3` on each square `holds_piece(col, row)` says.
    fn scanned_board(
        scan: &Scan,
        cell: usize,
        holds_piece: impl Fn(usize, usize) -> bool,
    ) -> Luma32 {
        let (w, bx, by, side) = (300, 60, 50, 8 * cell);
        let mut data = vec![scan.paper; w * w];
        for y in by - 2..by + side + 2 {
            for x in bx - 2..bx + side + 2 {
                let inside = (bx..bx + side).contains(&x) && (by..by + side).contains(&y);
                let (col, row) = ((x.max(bx) - bx) / cell, (y.max(by) - by) / cell);
                let (cx, cy) = (bx + col * cell + cell / 2, by + row * cell + cell / 2);
                let piece = holds_piece(col, row)
                    && (x as f32 - cx as f32).hypot(y as f32 - cy as f32) < (cell / 3) as f32;
                data[y * w + x] = match (inside, piece, (col + row) % 2 == 1) {
                    (false, ..) => scan.frame,
                    (true, true, _) => scan.piece,
                    (true, false, true) => scan.dark_square,
                    (true, false, false) => scan.paper,
                };
            }
        }
        Luma32::new(w as u32, w as u32, data)
    }

    /// The one board found in `image`, which must be the 8×`cell` px board
    /// of [`scanned_board`] to within a pixel or two.
    fn assert_found_scanned_board(image: &Luma32, cell: usize) {
        let found = locate_framed(image);
        assert_eq!(found.len(), 1, "{found:?}");
        let (b, side) = (found[0], (8 * cell) as f32);
        assert!(
            (b.x - 60.0).abs() <= 1.0
                && (b.y - 50.0).abs() <= 1.0
                && (b.width - side).abs() <= 2.0
                && (b.height - side).abs() <= 2.0,
            "{b:?}"
        );
    }

    #[test]
    fn a_faint_frame_on_grey_paper_is_found() {
        // Paper at 205, frame and grey squares fainter than the fixed ink
        // level (170 and 190), pieces at 90: a pale low-resolution scan.
        let scan = Scan {
            paper: 205.0,
            frame: 170.0,
            dark_square: 190.0,
            piece: 90.0,
        };
        let image = scanned_board(&scan, 20, |col, row| (col * 3 + row) % 5 == 0);
        assert_found_scanned_board(&image, 20);
    }

    #[test]
    fn a_frame_round_grey_squares_darker_than_ink_is_found() {
        // Paper at 216, solid grey squares at 140 (ink at the fixed level),
        // frame and pieces at 40, a piece on every light square of the edge
        // ranks: each edge rank is one run of ink joined to the frame.
        let scan = Scan {
            paper: 216.0,
            frame: 40.0,
            dark_square: 140.0,
            piece: 40.0,
        };
        let image = scanned_board(&scan, 22, |col, row| {
            (row == 0 || row == 7 || (col * 3 + row) % 5 == 0) && (col + row) % 2 == 0
        });
        assert_found_scanned_board(&image, 22);
    }

    #[test]
    fn a_frame_without_a_board_in_it_is_not_a_board() {
        // The same frame and pieces with no dark squares: a box round a
        // figure or a table, not a chessboard.
        assert!(locate_framed(&page(700, 600, &[(150, 100)], false)).is_empty());
        assert!(locate_framed(&Luma32::new(300, 300, vec![255.0; 90_000])).is_empty());
    }
}
