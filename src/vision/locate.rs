//! Finding axis-aligned boards by their grid lines.
//!
//! On a chessboard every boundary between two ranks (or two files) is a long,
//! straight edge whose sign flips once per square, because the square colours
//! alternate. Page elements have long edges too, but never that alternation.
//! The finder therefore:
//!
//! 1. scans every row (and column) of a blurred luminance image for runs of
//!    strong vertical (horizontal) gradient;
//! 2. keeps the runs whose gradient sign alternates over eight equal segments;
//! 3. groups runs of equal extent, looks for seven evenly spaced inner lines at
//!    a spacing of one eighth of that extent, and confirms the board with the
//!    perpendicular lines.

use std::{borrow::Cow, ops::RangeInclusive};

use super::{checker, Luma32};

/// Detection runs on a copy no larger than this on its longest side.
const MAX_DETECT_SIDE: u32 = 1600;
/// Box blur radii of the first and the second pass, at detection scale.
const LIGHT_BLUR: usize = 1;
const SMOOTH_BLUR: usize = 3;
/// A whole image may be one board if it is at least this wide and square
/// within this fraction (and its cells alternate, [`alternates_blurred`]).
const MIN_WHOLE_SIDE: f32 = 96.0;
const MAX_WHOLE_ASPECT_ERROR: f32 = 0.03;
/// A board found without grid lines has its cells checked on a copy of it at
/// most this wide, blurred by this radius, so that hatched (or speckled) dark
/// squares read darker than light ones.
const BLURRED_CHECK_SIDE: f32 = 256.0;
const BLURRED_CHECK_BLUR: usize = 2;
/// Smallest luminance step (0–255) that counts as an edge.
const EDGE_THRESHOLD: f32 = 6.0;
/// Longest break in a run, in pixels at detection scale (pieces may cross a line).
const MAX_GAP: usize = 8;
/// Shortest run that may be a board line, in pixels at detection scale.
const MIN_LINE: usize = 80;
/// A run is a grid line if at least this many of its 7 segment boundaries flip sign.
const MIN_FLIPS: usize = 5;
/// A board needs at least this many of its 7 inner lines in each direction.
const MIN_LINES: usize = 5;
/// A line broken short of the board's edges still counts if it spans this
/// many squares.
const MIN_PARTIAL_SQUARES: f32 = 6.0;

/// The runs' ends are the board's edges when the column lines put them
/// within this fraction of a square.
const EDGE_AGREEMENT: f32 = 0.15;
/// Rank numbers beside a board may lengthen its lines by up to this many squares.
const LABEL_SQUARES: f32 = 0.6;

/// A board's inner grid lines: 7 between its ranks and 7 between its files.
pub const INNER_LINES: usize = 14;

/// An axis-aligned board in image pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardBox {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    /// How many of the [`INNER_LINES`] were seen.
    pub lines_seen: usize,
}

impl BoardBox {
    /// A square board of `side` pixels filling a picture: a rectified photo.
    pub fn filling(side: f32) -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            width: side,
            height: side,
            lines_seen: INNER_LINES,
        }
    }

    /// A box placed by something other than grid lines (a frame, the whole
    /// picture), so none of its inner lines counts as seen.
    pub fn unlined(x: f32, y: f32, width: f32, height: f32) -> Self {
        Self {
            x,
            y,
            width,
            height,
            lines_seen: 0,
        }
    }

    /// Top-left, top-right, bottom-right, bottom-left in the image.
    pub fn corners(&self) -> [[f32; 2]; 4] {
        let (x1, y1) = (self.x + self.width, self.y + self.height);
        [[self.x, self.y], [x1, self.y], [x1, y1], [self.x, y1]]
    }

    /// Intersection over union of two boxes.
    pub(super) fn iou(&self, other: &BoardBox) -> f32 {
        let ix = (self.x + self.width).min(other.x + other.width) - self.x.max(other.x);
        let iy = (self.y + self.height).min(other.y + other.height) - self.y.max(other.y);
        if ix <= 0.0 || iy <= 0.0 {
            return 0.0;
        }
        let inter = ix * iy;
        inter / (self.width * self.height + other.width * other.height - inter)
    }
}

/// A run of edge pixels along one row (or column): `pos` is the row, the run
/// covers `start..end` along it.
#[derive(Clone, Copy, Debug)]
struct Run {
    pos: usize,
    start: usize,
    end: usize,
}

impl Run {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// Finds every axis-aligned board in the image, largest first. A light blur
/// keeps thin grid lines.
pub fn locate_boards(image: &Luma32) -> Vec<BoardBox> {
    locate_at_blur(image, LIGHT_BLUR)
}

/// [`locate_boards`] on a smoother copy: hatching, halftone dots and paper
/// grain that survive the light blur break the edge runs of a photographed
/// page. Coarser, so it is the fallback.
pub fn locate_boards_smoothed(image: &Luma32) -> Vec<BoardBox> {
    locate_at_blur(image, SMOOTH_BLUR)
}

/// The whole image as one board, for a picture cropped to the board whose
/// grid lines are too faint to find (pale themes, blur): it must be square,
/// and its 64 cells must alternate light and dark like a board's.
pub fn locate_whole_image(image: &Luma32) -> Option<BoardBox> {
    let (w, h) = (image.width as f32, image.height as f32);
    if w < MIN_WHOLE_SIDE || (w / h - 1.0).abs() > MAX_WHOLE_ASPECT_ERROR {
        return None;
    }
    let whole = BoardBox::unlined(0.0, 0.0, w, h);
    alternates_blurred(image, &whole, checker::MIN_AGREEING).then_some(whole)
}

/// Whether the cells of `board` alternate light and dark on a blurred copy
/// of it (for boards placed without grid lines: the whole picture, a frame).
pub(super) fn alternates_blurred(image: &Luma32, board: &BoardBox, min_agreeing: usize) -> bool {
    let (x0, y0) = (board.x.max(0.0) as u32, board.y.max(0.0) as u32);
    let x1 = ((board.x + board.width).ceil() as u32).min(image.width);
    let y1 = ((board.y + board.height).ceil() as u32).min(image.height);
    if x1 <= x0 || y1 <= y0 {
        return false;
    }
    let region = match [x0, y0, x1, y1] == [0, 0, image.width, image.height] {
        true => Cow::Borrowed(image),
        false => Cow::Owned(image.cropped(x0, y0, x1, y1)),
    };
    let smooth = region
        .resized(BLURRED_CHECK_SIDE / board.width)
        .box_blurred(BLURRED_CHECK_BLUR);
    let (sx, sy) = (
        smooth.width as f32 / region.width as f32,
        smooth.height as f32 / region.height as f32,
    );
    let cell = [board.width / 8.0, board.height / 8.0];
    let (ox, oy) = (board.x - x0 as f32, board.y - y0 as f32);
    let to_image = |p: [f32; 2]| [(ox + p[0] * cell[0]) * sx, (oy + p[1] * cell[1]) * sy];
    checker::alternates_in(&smooth, to_image, min_agreeing)
}

fn locate_at_blur(image: &Luma32, blur: usize) -> Vec<BoardBox> {
    let scale = (MAX_DETECT_SIDE as f32 / image.width.max(image.height) as f32).min(1.0);
    let small = detection_image(image, scale, blur);
    let (w, h) = (small.width as usize, small.height as usize);
    let rows = grid_runs(&small.data, w, h);
    let cols = grid_runs(&small.transposed().data, h, w);

    // Lines of one extent first; lines of nearly one extent (rank numbers
    // beside a board lengthen some of them) only add boards elsewhere.
    let mut kept: Vec<BoardBox> = Vec::new();
    for label_squares in [0.0, LABEL_SQUARES] {
        let mut boards: Vec<BoardBox> = group_by_extent(&rows, label_squares)
            .iter()
            .filter_map(|group| board_from_group(&small, group, &cols))
            .collect();
        boards.sort_by(|a, b| {
            b.lines_seen
                .cmp(&a.lines_seen)
                .then(b.width.total_cmp(&a.width))
        });
        for board in boards {
            if kept.iter().all(|k| k.iou(&board) < 0.3) {
                kept.push(board);
            }
        }
    }
    for board in &mut kept {
        board.x /= scale;
        board.y /= scale;
        board.width /= scale;
        board.height /= scale;
    }
    kept.sort_by(|a, b| (b.width * b.height).total_cmp(&(a.width * a.height)));
    kept
}

/// Downscales to detection size and blurs away hatching and JPEG noise.
fn detection_image(image: &Luma32, scale: f32, blur: usize) -> Luma32 {
    if scale < 1.0 {
        image.resized(scale).box_blurred(blur)
    } else {
        image.box_blurred(blur)
    }
}

/// Runs along rows whose vertical gradient is strong and alternates in sign
/// like the boundary between two ranks.
fn grid_runs(pixels: &[f32], w: usize, h: usize) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut diff = vec![0.0f32; w];
    for y in 1..h.saturating_sub(1) {
        let above = &pixels[(y - 1) * w..y * w];
        let below = &pixels[(y + 1) * w..(y + 2) * w];
        for x in 0..w {
            diff[x] = below[x] - above[x];
        }
        let mut start = None;
        let mut last_edge = 0;
        for x in 0..=w {
            let is_edge = x < w && diff[x].abs() > EDGE_THRESHOLD;
            if is_edge {
                if start.is_none() {
                    start = Some(x);
                }
                last_edge = x;
            } else if let Some(s) = start {
                if x == w || x - last_edge > MAX_GAP {
                    let run = Run {
                        pos: y,
                        start: s,
                        end: last_edge + 1,
                    };
                    if run.len() >= MIN_LINE && alternates(&diff[run.start..run.end]) {
                        runs.push(run);
                    }
                    start = None;
                }
            }
        }
    }
    runs
}

/// Whether the gradient's sign flips between most of eight equal segments.
fn alternates(diff: &[f32]) -> bool {
    let seg = diff.len() as f32 / 8.0;
    let signs: Vec<f32> = (0..8)
        .map(|k| {
            let a = (k as f32 * seg + seg * 0.2) as usize;
            let b = ((k as f32 + 1.0) * seg - seg * 0.2) as usize;
            diff[a..b.max(a + 1).min(diff.len())]
                .iter()
                .sum::<f32>()
                .signum()
        })
        .collect();
    let flips = signs
        .windows(2)
        .filter(|p| p[0] != 0.0 && p[0] == -p[1])
        .count();
    flips >= MIN_FLIPS
}

/// Runs that may be one board's lines: those sharing the extent of the
/// longest (`full`, which fix the board's edges), and shorter ones inside
/// it that start and end on its square boundaries and span most of it
/// (`partial`: a line broken by a highlighted square or a piece near the edge).
struct LineGroup {
    full: Vec<Run>,
    partial: Vec<Run>,
}

impl LineGroup {
    fn positions(&self) -> Vec<f32> {
        let all: Vec<Run> = self.full.iter().chain(&self.partial).copied().collect();
        distinct_positions(&all)
    }
}

/// Groups runs that share their start and end (one end may differ by up to
/// `label_squares` of a square), with the partial runs on the same squares:
/// candidates for one board's lines.
fn group_by_extent(runs: &[Run], label_squares: f32) -> Vec<LineGroup> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(runs[i].len()));
    let mut used = vec![false; runs.len()];
    let mut groups = Vec::new();
    for &i in &order {
        if used[i] {
            continue;
        }
        let seed = runs[i];
        let tol = (seed.len() as f32 * 0.02).max(3.0) as usize;
        // One end shared, the other within `label_squares` of a square.
        let label_tol = (seed.len() as f32 / 8.0 * label_squares) as usize;
        let shares_extent = |run: &Run| {
            let (d_start, d_end) = (run.start.abs_diff(seed.start), run.end.abs_diff(seed.end));
            d_start.max(d_end) <= label_tol.max(tol) && d_start.min(d_end) <= tol
        };
        let full: Vec<Run> = order
            .iter()
            .filter(|&&j| !used[j] && shares_extent(&runs[j]))
            .map(|&j| runs[j])
            .collect();
        for &j in &order {
            if shares_extent(&runs[j]) {
                used[j] = true;
            }
        }
        let step = seed.len() as f32 / 8.0;
        let on_boundary = |offset: usize| {
            let squares = offset as f32 / step;
            (squares - squares.round()).abs() * step <= tol as f32
        };
        let partial: Vec<Run> = runs
            .iter()
            .filter(|run| {
                !shares_extent(run)
                    && run.len() as f32 >= MIN_PARTIAL_SQUARES * step - tol as f32
                    && run.start + tol >= seed.start
                    && run.end <= seed.end + tol
                    && on_boundary(run.start.abs_diff(seed.start))
                    && on_boundary(run.end.abs_diff(seed.end))
            })
            .copied()
            .collect();
        for group in split_stacked(LineGroup { full, partial }, step, tol as f32) {
            if !group.full.is_empty() && group.positions().len() >= MIN_LINES {
                groups.push(group);
            }
        }
    }
    groups
}

/// Boards stacked in a column (a book's usual layout) have lines of the
/// same extent, so their lines fall into one group. A group whose lines
/// span more than one board's height is split at its widest gap between
/// lines, until each part fits on one board; a group that fits one board is
/// left as it is.
fn split_stacked(group: LineGroup, step: f32, tol: f32) -> Vec<LineGroup> {
    let mut runs: Vec<(bool, Run)> = group
        .full
        .iter()
        .map(|&run| (true, run))
        .chain(group.partial.iter().map(|&run| (false, run)))
        .collect();
    runs.sort_by_key(|(_, run)| run.pos);
    let span = match (runs.first(), runs.last()) {
        (Some((_, first)), Some((_, last))) => (last.pos - first.pos) as f32,
        _ => 0.0,
    };
    if span <= 8.0 * step + 2.0 * tol {
        return vec![group];
    }
    let cut = (1..runs.len())
        .max_by_key(|&i| runs[i].1.pos - runs[i - 1].1.pos)
        .expect("a span needs two runs");
    let (above, below) = runs.split_at(cut);
    [above, below]
        .into_iter()
        .flat_map(|part| {
            let group = LineGroup {
                full: part
                    .iter()
                    .filter(|(full, _)| *full)
                    .map(|&(_, r)| r)
                    .collect(),
                partial: part
                    .iter()
                    .filter(|(full, _)| !*full)
                    .map(|&(_, r)| r)
                    .collect(),
            };
            split_stacked(group, step, tol)
        })
        .collect()
}

/// Line positions, merging runs on neighbouring rows (one edge spans two rows).
fn distinct_positions(runs: &[Run]) -> Vec<f32> {
    let mut positions: Vec<usize> = runs.iter().map(|r| r.pos).collect();
    positions.sort_unstable();
    positions.dedup();
    let mut lines: Vec<Vec<usize>> = Vec::new();
    for p in positions {
        match lines.last_mut() {
            Some(line) if p - line.last().copied().unwrap_or(p) <= 2 => line.push(p),
            _ => lines.push(vec![p]),
        }
    }
    lines
        .iter()
        .map(|l| l.iter().sum::<usize>() as f32 / l.len() as f32)
        .collect()
}

/// The upper median of `values` (sorted in place); `values` must not be empty.
pub(crate) fn median(values: &mut [f32]) -> f32 {
    values.sort_by(f32::total_cmp);
    values[values.len() / 2]
}

/// Finds the offset at which most of the 7 inner lines, spaced `step` apart, sit.
/// Returns the offset of the board's first edge and the matched line count.
fn fit_inner_lines(positions: &[f32], step: f32) -> Option<(f32, usize)> {
    let mut best: Option<(f32, usize)> = None;
    for (_, matched) in lattices_through(positions, step, |_| true) {
        if matched.len() >= MIN_LINES && best.is_none_or(|(_, n)| matched.len() > n) {
            let origins = matched.iter().map(|&(j, q)| q - j * step);
            best = Some((origins.sum::<f32>() / matched.len() as f32, matched.len()));
        }
    }
    best
}

/// Every lattice of 7 inner lines `step` apart that puts one of `positions`
/// on one of its lines, with its first edge (the origin) where `keep` allows:
/// that origin, and the (line number, position) of each position on a line
/// (within 12 % of a step).
fn lattices_through<'a>(
    positions: &'a [f32],
    step: f32,
    keep: impl Fn(f32) -> bool + 'a,
) -> impl Iterator<Item = (f32, Vec<(f32, f32)>)> + 'a {
    let tol = step * 0.12;
    let origins = positions
        .iter()
        .flat_map(move |&p| (1..=7).map(move |k| p - k as f32 * step));
    origins
        .filter(move |&origin| keep(origin))
        .map(move |origin| {
            let matched = (1..=7)
                .filter_map(|j| {
                    let expected = origin + j as f32 * step;
                    positions
                        .iter()
                        .find(|&&q| (q - expected).abs() <= tol)
                        .map(|&q| (j as f32, q))
                })
                .collect();
            (origin, matched)
        })
}

/// The lattice of 7 inner lines, spaced between 0.75 and 1 times `approx`
/// apart, that most `positions` sit on (the closest fit among equals), with
/// the board's first edge within `origins`: that edge and the spacing,
/// refined by least squares over the lines matched.
fn fit_lattice(positions: &[f32], approx: f32, origins: RangeInclusive<f32>) -> Option<(f32, f32)> {
    const STEPS: usize = 40;
    // (lines matched, mean squared residual, (line number, position) of each)
    type Fit = (usize, f32, Vec<(f32, f32)>);
    let mut best: Option<Fit> = None;
    for i in 0..=STEPS {
        let step = approx * (0.75 + 0.25 * i as f32 / STEPS as f32);
        for (origin, matched) in lattices_through(positions, step, |o| origins.contains(&o)) {
            let residual = matched
                .iter()
                .map(|&(j, q)| ((q - origin - j * step) / step).powi(2))
                .sum::<f32>()
                / matched.len().max(1) as f32;
            let better = best.as_ref().is_none_or(|(count, r, _)| {
                matched.len() > *count || (matched.len() == *count && residual < *r)
            });
            if matched.len() >= MIN_LINES && better {
                best = Some((matched.len(), residual, matched));
            }
        }
    }
    let (_, _, matched) = best?;
    let count = matched.len() as f32;
    let mean_j = matched.iter().map(|m| m.0).sum::<f32>() / count;
    let mean_q = matched.iter().map(|m| m.1).sum::<f32>() / count;
    let spread: f32 = matched.iter().map(|m| (m.0 - mean_j).powi(2)).sum();
    let covariance: f32 = matched
        .iter()
        .map(|m| (m.0 - mean_j) * (m.1 - mean_q))
        .sum();
    let step = covariance / spread;
    Some((mean_q - mean_j * step, step))
}

/// Turns a group of row runs into a board, if the columns agree. The runs'
/// ends are the board's edges unless the column lines between them say
/// otherwise: rank numbers printed close beside a board lengthen its runs.
fn board_from_group(image: &Luma32, rows: &LineGroup, cols: &[Run]) -> Option<BoardBox> {
    let x0 = median(&mut rows.full.iter().map(|r| r.start as f32).collect::<Vec<_>>());
    let x1 = median(&mut rows.full.iter().map(|r| r.end as f32).collect::<Vec<_>>());
    let by_runs = || board_at(image, rows, cols, x0, (x1 - x0) / 8.0);
    match grid_within_runs(rows, cols, x0, x1) {
        Some((x, step))
            if (x - x0).abs().max((x + 8.0 * step - x1).abs()) > EDGE_AGREEMENT * step =>
        {
            board_at(image, rows, cols, x, step).or_else(by_runs)
        }
        _ => by_runs(),
    }
}

/// The left edge and square size of a board narrower than its row runs:
/// both from the column lines between the runs' ends `x0..x1`.
fn grid_within_runs(rows: &LineGroup, cols: &[Run], x0: f32, x1: f32) -> Option<(f32, f32)> {
    let positions = rows.positions();
    let (top, bottom) = (positions[0], positions[positions.len() - 1]);
    let col_positions: Vec<f32> = distinct_positions(
        &cols
            .iter()
            .copied()
            .filter(|c| {
                (x0..=x1).contains(&(c.pos as f32))
                    && overlap(c.start as f32, c.end as f32, top, bottom) >= 0.5 * (bottom - top)
            })
            .collect::<Vec<_>>(),
    );
    let approx = (x1 - x0) / 8.0;
    let tol = approx * 0.12;
    let (x, step) = fit_lattice(&col_positions, approx, x0 - tol..=x1 - 6.0 * approx + tol)?;
    (x + 8.0 * step <= x1 + tol).then_some((x, step))
}

/// The board whose left edge is at `x0` and whose squares are `step` wide,
/// if enough row and column lines sit on its grid.
fn board_at(
    image: &Luma32,
    rows: &LineGroup,
    cols: &[Run],
    x0: f32,
    step: f32,
) -> Option<BoardBox> {
    let width = 8.0 * step;
    let (y0, rows_seen) = fit_inner_lines(&rows.positions(), step)?;

    // Columns: inner lines at x0 + k·step spanning roughly y0..y0 + width.
    let tol = step * 0.12;
    let span = (y0, y0 + width);
    let matching: Vec<Run> = cols
        .iter()
        .copied()
        .filter(|c| {
            let k = ((c.pos as f32 - x0) / step).round();
            (1.0..=7.0).contains(&k)
                && (c.pos as f32 - (x0 + k * step)).abs() <= tol
                && overlap(c.start as f32, c.end as f32, span.0, span.1) >= 0.7 * width
                && (c.len() as f32) <= 1.15 * width
        })
        .collect();
    let mut col_lines: Vec<usize> = matching
        .iter()
        .map(|c| ((c.pos as f32 - x0) / step).round() as usize)
        .collect();
    col_lines.sort_unstable();
    col_lines.dedup();
    if col_lines.len() < MIN_LINES {
        return None;
    }
    // The columns' extent pins the top and bottom edges more precisely.
    let top = median(&mut matching.iter().map(|c| c.start as f32).collect::<Vec<_>>());
    let bottom = median(&mut matching.iter().map(|c| c.end as f32).collect::<Vec<_>>());
    let (y, height) = if ((bottom - top) - width).abs() <= 0.06 * width {
        (top, bottom - top)
    } else {
        (y0, width)
    };
    let y = slide_to_pattern(image, x0, y, width, height);
    Some(BoardBox {
        x: x0,
        y,
        width,
        height,
        lines_seen: rows_seen + col_lines.len(),
    })
}

/// The top edge, moved by a square up or down where the checkerboard pattern
/// fits better there, and clearly (on a photographed hatched page the
/// pattern is too noisy to overrule the lines). A board's edge against a
/// plain page alternates like an inner line, so the lines alone can place
/// the board a square off when one inner line is hidden (under an arrow,
/// say).
fn slide_to_pattern(image: &Luma32, x: f32, y: f32, width: f32, height: f32) -> f32 {
    let cell = [width / 8.0, height / 8.0];
    let agreeing_at =
        |top: f32| checker::agreeing_cells(image, |p| [x + p[0] * cell[0], top + p[1] * cell[1]]);
    let here = agreeing_at(y);
    [y - cell[1], y + cell[1]]
        .into_iter()
        .map(|top| (agreeing_at(top), top))
        .filter(|&(agreeing, _)| agreeing > here && agreeing >= checker::MIN_AGREEING)
        .max_by_key(|&(agreeing, _)| agreeing)
        .map_or(y, |(_, top)| top)
}

fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    (a1.min(b1) - a0.max(b0)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain board of `square`-pixel squares at (`x`, `y`) on a grey page.
    fn page_with_board(w: usize, h: usize, x: usize, y: usize, square: usize) -> Luma32 {
        let mut data = vec![90.0; w * h];
        for py in 0..8 * square {
            for px in 0..8 * square {
                let light = (px / square + py / square).is_multiple_of(2);
                data[(y + py) * w + x + px] = if light { 235.0 } else { 120.0 };
            }
        }
        Luma32::new(w as u32, h as u32, data)
    }

    #[test]
    fn finds_board_on_page() {
        let image = page_with_board(900, 700, 230, 110, 50);
        let boards = locate_boards(&image);
        assert_eq!(boards.len(), 1, "{boards:?}");
        let b = boards[0];
        assert!((b.x - 230.0).abs() <= 2.0, "{b:?}");
        assert!((b.y - 110.0).abs() <= 2.0, "{b:?}");
        assert!((b.width - 400.0).abs() <= 3.0, "{b:?}");
        assert!((b.height - 400.0).abs() <= 3.0, "{b:?}");
    }

    #[test]
    fn lines_broken_near_the_edge_still_count() {
        // A plain block over the two left files of the top four ranks (a
        // highlight, an arrow) breaks three row lines short of the left
        // edge; only four run the whole width.
        let (w, x, y, square) = (700, 100, 120, 50);
        let mut image = page_with_board(w, 660, x, y, square);
        for py in y..y + 4 * square {
            for px in x..x + 2 * square {
                image.data[py * w + px] = 180.0;
            }
        }
        let boards = locate_boards(&image);
        assert_eq!(boards.len(), 1, "{boards:?}");
        let b = boards[0];
        assert!((b.x - x as f32).abs() <= 2.0, "{b:?}");
        assert!((b.y - y as f32).abs() <= 2.0, "{b:?}");
        assert!((b.width - 400.0).abs() <= 3.0, "{b:?}");
    }

    #[test]
    fn a_pattern_fitting_only_somewhat_better_does_not_move_a_board() {
        // The pattern runs on one rank above the board (as a hatched page's
        // noise may), and the bottom three ranks are plain: a square up fits
        // 56 cells, here 52; neither is a clear board, so the lines stand.
        let (w, x, y, square) = (600, 100, 120, 40);
        let mut image = page_with_board(w, 600, x, y, square);
        for py in y - square..y + 8 * square {
            for px in x..x + 8 * square {
                let rank = (py as i64 - y as i64).div_euclid(square as i64);
                let file = ((px - x) / square) as i64;
                let light = (rank + file).rem_euclid(2) == 0;
                image.data[py * w + px] = match py {
                    _ if py >= y + 5 * square => 175.0,
                    _ if light => 235.0,
                    _ => 120.0,
                };
            }
        }
        let (fx, fy, side) = (x as f32, y as f32, 8.0 * square as f32);
        let cell = side / 8.0;
        let agreeing =
            |top: f32| checker::agreeing_cells(&image, |p| [fx + p[0] * cell, top + p[1] * cell]);
        assert_eq!((agreeing(fy), agreeing(fy - cell)), (52, 56));
        assert_eq!(slide_to_pattern(&image, fx, fy, side, side), fy);
    }

    #[test]
    fn a_hidden_inner_line_does_not_shift_a_board_on_a_mid_grey_page() {
        // On a page between the squares' shades the board's top edge
        // alternates like an inner line; a bar hides the last inner line.
        let (w, x, y, square) = (700, 100, 120, 50);
        let mut image = page_with_board(w, 660, x, y, square);
        for (i, v) in image.data.iter_mut().enumerate() {
            let (px, py) = (i % w, i / w);
            let on_board = (x..x + 8 * square).contains(&px) && (y..y + 8 * square).contains(&py);
            let under_bar = (y + 7 * square - 8..y + 7 * square + 8).contains(&py);
            if !on_board {
                *v = 180.0;
            } else if under_bar {
                *v = 60.0;
            }
        }
        let boards = locate_boards(&image);
        assert_eq!(boards.len(), 1, "{boards:?}");
        assert!((boards[0].y - y as f32).abs() <= 2.0, "{:?}", boards[0]);
    }

    /// A book diagram as a phone sees it: dark squares hatched with
    /// diagonal lines three pixels apart, and a grainy page.
    fn grainy_hatched_board(w: usize, h: usize, x: usize, y: usize, square: usize) -> Luma32 {
        let grain = |px: usize, py: usize| ((px * 7919 + py * 104_729) % 61) as f32 - 30.0;
        let mut data: Vec<f32> = (0..w * h).map(|i| 235.0 + grain(i % w, i / w)).collect();
        for py in 0..8 * square {
            for px in 0..8 * square {
                let dark = !(px / square + py / square).is_multiple_of(2);
                if dark && (px + py) % 3 == 0 {
                    data[(y + py) * w + x + px] = 40.0 + grain(px, py);
                }
            }
        }
        Luma32::new(w as u32, h as u32, data)
    }

    #[test]
    fn smoothing_finds_a_grainy_hatched_board() {
        let image = grainy_hatched_board(640, 560, 100, 80, 44);
        assert!(
            locate_boards(&image).is_empty(),
            "the light pass is expected to fail here"
        );
        let boards = locate_boards_smoothed(&image);
        assert_eq!(boards.len(), 1, "{boards:?}");
        let b = boards[0];
        assert!(
            (b.x - 100.0).abs() <= 3.0 && (b.y - 80.0).abs() <= 3.0,
            "{b:?}"
        );
        assert!(
            (b.width - 352.0).abs() <= 4.0 && (b.height - 352.0).abs() <= 4.0,
            "{b:?}"
        );
    }

    #[test]
    fn a_faint_board_filling_the_picture_is_the_whole_image() {
        let mut image = page_with_board(400, 400, 0, 0, 50);
        for v in &mut image.data {
            *v = 200.0 + (*v - 120.0) * 0.12; // light 213.8, dark 200
        }
        let board = locate_whole_image(&image).expect("a board");
        assert_eq!((board.width, board.height), (400.0, 400.0));
        // Not square, or the colours do not alternate: no board.
        assert!(locate_whole_image(&page_with_board(460, 400, 0, 0, 50)).is_none());
        let flat = Luma32::new(400, 400, vec![200.0; 400 * 400]);
        assert!(locate_whole_image(&flat).is_none());
        let mut striped = image.clone();
        for (i, v) in striped.data.iter_mut().enumerate() {
            *v = if (i % 400) / 50 % 2 == 0 {
                214.0
            } else {
                200.0
            };
        }
        assert!(locate_whole_image(&striped).is_none());
    }

    #[test]
    fn a_hatched_board_filling_the_picture_is_the_whole_image() {
        // Thin hatching leaves most of a dark square's pixels light.
        let (side, square) = (616usize, 77);
        let data = (0..side * side)
            .map(|i| {
                let (px, py) = (i % side, i / side);
                let dark = !(px / square + py / square).is_multiple_of(2);
                if dark && (px + py) % 8 == 0 {
                    40.0
                } else {
                    235.0
                }
            })
            .collect();
        let image = Luma32::new(side as u32, side as u32, data);
        let board = locate_whole_image(&image).expect("a board");
        assert_eq!((board.width, board.height), (616.0, 616.0));
    }

    #[test]
    fn finds_two_boards() {
        let mut image = page_with_board(1000, 500, 20, 40, 40);
        let other = page_with_board(1000, 500, 560, 60, 48);
        for (i, v) in other.data.iter().enumerate() {
            if *v != 90.0 {
                image.data[i] = *v;
            }
        }
        assert_eq!(locate_boards(&image).len(), 2);
    }

    /// Boards of `square`-pixel squares with their top-left corners at
    /// `corners`, on one grey page.
    fn page_with_boards(w: usize, h: usize, corners: &[(usize, usize)], square: usize) -> Luma32 {
        let mut image = Luma32::new(w as u32, h as u32, vec![90.0; w * h]);
        for &(x, y) in corners {
            let board = page_with_board(w, h, x, y, square);
            for (i, v) in board.data.iter().enumerate() {
                if *v != 90.0 {
                    image.data[i] = *v;
                }
            }
        }
        image
    }

    #[test]
    fn finds_boards_stacked_in_a_column_and_in_a_grid() {
        // A book's column: four boards of one width, a caption's gap apart,
        // whose row lines all share one extent.
        let column = [(100, 40), (100, 400), (100, 760), (100, 1120)];
        let image = page_with_boards(600, 1500, &column, 38);
        let mut found: Vec<(i32, i32)> = locate_boards(&image)
            .iter()
            .map(|b| (b.x.round() as i32, b.y.round() as i32))
            .collect();
        found.sort_unstable_by_key(|&(x, y)| (y, x));
        let expected: Vec<(i32, i32)> = column.iter().map(|&(x, y)| (x as i32, y as i32)).collect();
        assert_eq!(found.len(), 4, "{found:?}");
        for ((fx, fy), (ex, ey)) in found.iter().zip(&expected) {
            assert!((fx - ex).abs() <= 2 && (fy - ey).abs() <= 2, "{found:?}");
        }
        // Two by two, close together.
        let grid = [(40, 40), (420, 40), (40, 420), (420, 420)];
        let image = page_with_boards(800, 800, &grid, 40);
        assert_eq!(locate_boards(&image).len(), 4);
    }

    #[test]
    fn rank_numbers_close_beside_a_board_do_not_widen_it() {
        // A book's rank numbers: dark glyphs almost a rank tall, 3 px left of
        // the board, lengthen every row line by 12 px. Two boards side by
        // side, as on a book page.
        let (w, square) = (900, 30);
        let corners = [(60, 80), (500, 80)];
        let mut image = page_with_boards(w, 400, &corners, square);
        for &(x, y) in &corners {
            for rank in 0..8 {
                for py in y + rank * square + 1..y + (rank + 1) * square - 1 {
                    for px in x - 15..x - 3 {
                        image.data[py * w + px] = 20.0;
                    }
                }
            }
        }
        let mut boards = locate_boards(&image);
        boards.sort_by(|a, b| a.x.total_cmp(&b.x));
        assert_eq!(boards.len(), 2, "{boards:?}");
        for (b, &(x, y)) in boards.iter().zip(&corners) {
            assert!((b.x - x as f32).abs() <= 2.0, "{b:?}");
            assert!((b.y - y as f32).abs() <= 2.0, "{b:?}");
            assert!((b.width - 240.0).abs() <= 3.0, "{b:?}");
        }
    }

    #[test]
    fn rejects_stripes_and_blocks() {
        // Horizontal bands and rectangles: long edges, but no alternation.
        let (w, h) = (800, 600);
        let mut data = vec![200.0; w * h];
        for y in 0..h {
            for x in 0..w {
                if (y / 40) % 2 == 0 || (x > 100 && x < 500 && y > 200 && y < 400) {
                    data[y * w + x] = 60.0;
                }
            }
        }
        assert!(locate_boards(&Luma32::new(w as u32, h as u32, data)).is_empty());
    }
}
