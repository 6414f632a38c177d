//! Diagrams photographed at a slant: a book's printed frame seen in
//! perspective.
//!
//! The other finders want the board's lines along the axes, or turned and
//! sheared alike everywhere ([`super::deskew`]), or a lattice of inner
//! corners that a hatched diagram's hatching breaks up ([`super::lattice`]).
//! A phone held over a page sees the frame as a quadrilateral whose sides
//! converge. Here every closed outline of ink large enough to be a diagram
//! gives a quadrilateral, the picture inside it is warped square, the
//! axis-aligned finders look for the board on that copy, and what they find
//! is mapped back onto the picture.

use super::{
    checker::checker_contrast,
    frame::{locate_framed, FRAMED_MIN_AGREEING},
    lattice::BoardQuad,
    locate::{locate_boards, locate_boards_smoothed, BoardBox},
    Homography, Luma32,
};

/// The outlines are looked for on a copy at most this large on its longest side.
const MAX_MASK_SIDE: usize = 800;
/// Lightness is compared with the paper's within this share of the copy's
/// longest side: a photo's light falls off across the page.
const LOCAL_RADIUS_SHARE: f32 = 0.025;
/// A pixel darker than this share of the paper's lightness around it is ink;
/// where that finds no board, the second share (a faint frame that the first
/// breaks into pieces).
const INK_OF_PAPER: [f32; 2] = [0.7, 0.8];
/// Ink is grown by this many pixels, closing gaps in a frame.
const GROW: usize = 1;
/// An outline is at least this long on its shorter side, in the copy's pixels
/// and as a share of the copy's shorter side.
const MIN_SIDE: usize = 48;
const MIN_SIDE_SHARE: f32 = 0.12;
/// A quadrilateral's opposite sides differ by at most this factor (a page
/// photographed from up to about 35° off the perpendicular).
const MAX_SIDE_RATIO: f32 = 1.6;
/// This share of the points along each side of the quadrilateral must be ink:
/// the outline is a frame, not a blot or a line of text.
const MIN_SIDE_INK: f32 = 0.8;
/// Points tested along each side.
const SIDE_SAMPLES: usize = 48;
/// A side along which no ink runs is looked for at most this share of the
/// outline's shorter side further in (coordinates printed against the frame
/// take about a ninth of a board's side).
const MAX_FRAME_INSET_SHARE: f32 = 0.15;
/// At most this many of the largest outlines are warped and looked into.
const MAX_OUTLINES: usize = 12;
/// The square the inside of an outline is warped onto (eight cells of 80 px),
/// with this margin on each side so that a frame on the board's edge stays
/// in view.
const WARP_SIDE: f32 = 640.0;
const WARP_MARGIN: f32 = 24.0;
/// A board found inside an outline covers at least this share of its side.
const MIN_BOARD_OF_OUTLINE: f32 = 0.6;
/// Where no finder sees a board inside an outline, squares up to this share
/// smaller than the frame's inside are tried (coordinates printed inside the
/// frame take about a ninth of it), in this many sizes, moved by this share
/// of the inside at a time and then by a quarter of that.
const MAX_INSET_SHARE: f32 = 0.2;
const INSET_STEPS: usize = 8;
const INSET_STEP_SHARE: f32 = 0.0125;

/// The boards inside printed frames seen in perspective, largest first.
pub fn locate_outlined(image: &Luma32) -> Vec<BoardQuad> {
    locate_outlined_beside(image, &[])
}

/// The boards inside printed frames seen in perspective that overlap none of
/// the `known` boxes (`[x, y, width, height]`), largest first: the outlines
/// around known boards are not looked into.
pub fn locate_outlined_beside(image: &Luma32, known: &[[u32; 4]]) -> Vec<BoardQuad> {
    let block = (image.width.max(image.height) as usize).div_ceil(MAX_MASK_SIDE);
    let copy = image.block_darkest(block);
    let known: Vec<[f32; 4]> = known
        .iter()
        .map(|&[x, y, w, h]| [x as f32, y as f32, (x + w) as f32, (y + h) as f32])
        .collect();
    INK_OF_PAPER
        .iter()
        .map(|&ink_of_paper| outlined_at(image, &copy, block, ink_of_paper, &known))
        .find(|boards| !boards.is_empty())
        .unwrap_or_default()
}

/// [`locate_outlined_beside`] with ink darker than `ink_of_paper` of the
/// paper, looked for on `copy` (`image` reduced in `block`×`block` blocks);
/// `known` as `[x0, y0, x1, y1]`.
fn outlined_at(
    image: &Luma32,
    copy: &Luma32,
    block: usize,
    ink_of_paper: f32,
    known: &[[f32; 4]],
) -> Vec<BoardQuad> {
    let mask = ink_mask(copy, ink_of_paper);
    let min_side = MIN_SIDE.max((copy.width.min(copy.height) as f32 * MIN_SIDE_SHARE) as usize);
    let width = copy.width as usize;
    let mut outlines: Vec<Quad> = Vec::new();
    let (labels, bounds) = groups(&mask, width);
    for (label, &[x0, y0, x1, y1]) in bounds.iter().enumerate() {
        if x1 - x0 < min_side || y1 - y0 < min_side {
            continue;
        }
        let sides = outer_sides(&labels, width, label as u32 + 1, [x0, y0, x1, y1]);
        if let Some(quad) = sides.and_then(|sides| frame_within(sides, &mask, width)) {
            outlines.push(quad);
        }
    }
    outlines.sort_by(|a, b| area(b).total_cmp(&area(a)));
    let mut boards: Vec<BoardQuad> = Vec::new();
    for quad in outlines.into_iter().take(MAX_OUTLINES) {
        let corners = quad.map(|p| p.map(|v| v * block as f32));
        if known.iter().any(|&k| overlaps(bounding(&corners), k)) {
            continue;
        }
        let Some(board) = board_inside(image, corners) else {
            continue;
        };
        let bounds = bounding(&board.corners);
        if boards
            .iter()
            .all(|b| !overlaps(bounds, bounding(&b.corners)))
        {
            boards.push(board);
        }
    }
    boards
}

/// Top-left, top-right, bottom-right, bottom-left.
type Quad = [[f32; 2]; 4];

/// Ink: darker than `ink_of_paper` of the paper around it, grown by
/// [`GROW`] pixels so that a thin frame broken by blur or a threshold stays
/// one line.
fn ink_mask(copy: &Luma32, ink_of_paper: f32) -> Vec<bool> {
    let radius = ((copy.width.max(copy.height) as f32 * LOCAL_RADIUS_SHARE) as usize).max(4);
    let (width, height) = (copy.width as usize, copy.height as usize);
    let paper = paper_levels(copy, radius);
    let ink: Vec<bool> = (0..copy.data.len())
        .map(|i| copy.data[i] < paper[(i / width) / radius][(i % width) / radius] * ink_of_paper)
        .collect();
    (0..ink.len())
        .map(|i| {
            let (x, y) = (i % width, i / width);
            (y.saturating_sub(GROW)..(y + GROW + 1).min(height)).any(|ny| {
                (x.saturating_sub(GROW)..(x + GROW + 1).min(width)).any(|nx| ink[ny * width + nx])
            })
        })
        .collect()
}

/// The paper's lightness around each `block`×`block` block of `copy`: the
/// lightest pixel of the block and its eight neighbours.
fn paper_levels(copy: &Luma32, block: usize) -> Vec<Vec<f32>> {
    let (width, height) = (copy.width as usize, copy.height as usize);
    let (columns, rows) = (width.div_ceil(block), height.div_ceil(block));
    let mut lightest = vec![vec![f32::MIN; columns]; rows];
    for (i, &v) in copy.data.iter().enumerate() {
        let cell = &mut lightest[(i / width) / block][(i % width) / block];
        *cell = cell.max(v);
    }
    (0..rows)
        .map(|r| {
            (0..columns)
                .map(|c| {
                    let near = |i: usize, n: usize| i.saturating_sub(1)..(i + 2).min(n);
                    near(r, rows)
                        .flat_map(|nr| near(c, columns).map(move |nc| (nr, nc)))
                        .map(|(nr, nc)| lightest[nr][nc])
                        .fold(f32::MIN, f32::max)
                })
                .collect()
        })
        .collect()
}

/// The 8-connected groups of ink: each pixel's group (numbered from 1; 0 is
/// no ink), and each group's bounds `[x0, y0, x1, y1]` (inclusive).
fn groups(mask: &[bool], width: usize) -> (Vec<u32>, Vec<[usize; 4]>) {
    let height = mask.len() / width;
    let mut labels = vec![0u32; mask.len()];
    let mut found = Vec::new();
    let mut stack = Vec::new();
    for start in 0..mask.len() {
        if !mask[start] || labels[start] != 0 {
            continue;
        }
        let label = found.len() as u32 + 1;
        labels[start] = label;
        stack.push(start);
        let mut bounds = [usize::MAX, usize::MAX, 0, 0];
        while let Some(i) = stack.pop() {
            let (x, y) = (i % width, i / width);
            bounds = [
                bounds[0].min(x),
                bounds[1].min(y),
                bounds[2].max(x),
                bounds[3].max(y),
            ];
            for ny in y.saturating_sub(1)..(y + 2).min(height) {
                for nx in x.saturating_sub(1)..(x + 2).min(width) {
                    let j = ny * width + nx;
                    if mask[j] && labels[j] == 0 {
                        labels[j] = label;
                        stack.push(j);
                    }
                }
            }
        }
        found.push(bounds);
    }
    (labels, found)
}

/// The outer edges of the group `label` (within its `bounds`): a straight
/// line fitted to the outermost ink of each column (top and bottom) and each
/// row (left and right), ignoring what sticks out of it (coordinates printed
/// against the frame); `None` unless the quadrilateral where the lines meet
/// has sides alike within [`MAX_SIDE_RATIO`] that span the group.
fn outer_sides(labels: &[u32], width: usize, label: u32, bounds: [usize; 4]) -> Option<Sides> {
    let [x0, y0, x1, y1] = bounds;
    // The outermost ink of each column and row: [least, greatest].
    let mut columns = vec![[usize::MAX, 0]; x1 - x0 + 1];
    let mut rows = vec![[usize::MAX, 0]; y1 - y0 + 1];
    for y in y0..=y1 {
        for x in (x0..=x1).filter(|&x| labels[y * width + x] == label) {
            let c = &mut columns[x - x0];
            *c = [c[0].min(y), c[1].max(y)];
            let r = &mut rows[y - y0];
            *r = [r[0].min(x), r[1].max(x)];
        }
    }
    let profile = |extents: &[[usize; 2]], first: usize, end: usize| -> Vec<[f32; 2]> {
        extents
            .iter()
            .enumerate()
            .filter(|(_, e)| e[0] != usize::MAX)
            .map(|(i, e)| [i as f32 + first as f32, e[end] as f32])
            .collect()
    };
    // Each side as `across = slope · along + offset`.
    let sides = Sides([
        fit_edge(&profile(&columns, x0, 0))?,
        fit_edge(&profile(&rows, y0, 1))?,
        fit_edge(&profile(&columns, x0, 1))?,
        fit_edge(&profile(&rows, y0, 0))?,
    ]);
    let [t, r, b, l] = side_lengths(&sides.corners()?);
    let alike = |a: f32, b: f32| a.max(b) <= a.min(b) * MAX_SIDE_RATIO;
    let sides_alike = alike(t, b) && alike(l, r) && alike(t, l);
    let min_side = (x1 - x0).min(y1 - y0) as f32 / MAX_SIDE_RATIO;
    (sides_alike && t.min(r).min(b).min(l) >= min_side).then_some(sides)
}

/// An outline's sides, top, right, bottom and left, each a line `across =
/// slope · along + offset` (`[slope, offset]`): the top and bottom give y
/// along x, the right and left x along y.
#[derive(Clone, Copy)]
struct Sides([[f32; 2]; 4]);

impl Sides {
    fn corners(&self) -> Option<Quad> {
        let [top, right, bottom, left] = self.0;
        Some([
            meet(top, left)?,
            meet(top, right)?,
            meet(bottom, right)?,
            meet(bottom, left)?,
        ])
    }

    /// These sides with `side` (0 top, 1 right, 2 bottom, 3 left) moved
    /// `by` pixels inwards, parallel to itself.
    fn moved_in(mut self, side: usize, by: f32) -> Self {
        self.0[side][1] += if side == 0 || side == 3 { by } else { -by };
        self
    }
}

/// The line `across = slope · along + offset` that most of the `[along,
/// across]` points lie on, within [`EDGE_TOLERANCE`] pixels (the others
/// belong to something else than the edge: coordinates printed against the
/// frame, pieces showing through a gap in it), refitted to those points;
/// `None` if fewer than [`MIN_EDGE_SHARE`] of them lie on it. The candidate
/// lines run through pairs of points a fixed stride apart, so the same
/// picture always gives the same line.
fn fit_edge(points: &[[f32; 2]]) -> Option<[f32; 2]> {
    let n = points.len();
    if n < 2 {
        return None;
    }
    let on =
        |line: [f32; 2], p: &[f32; 2]| (p[1] - line[0] * p[0] - line[1]).abs() <= EDGE_TOLERANCE;
    let mut best: Option<([f32; 2], usize)> = None;
    let step = (n / EDGE_CANDIDATES).max(1);
    for i in (0..n).step_by(step) {
        let j = (i + n / 2) % n;
        let ([x0, y0], [x1, y1]) = (points[i], points[j]);
        if (x1 - x0).abs() < 1.0 {
            continue;
        }
        let slope = (y1 - y0) / (x1 - x0);
        let line = [slope, y0 - slope * x0];
        let count = points.iter().filter(|p| on(line, p)).count();
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((line, count));
        }
    }
    let (line, count) = best?;
    if (count as f32) < MIN_EDGE_SHARE * n as f32 {
        return None;
    }
    let kept: Vec<[f32; 2]> = points.iter().copied().filter(|p| on(line, p)).collect();
    least_squares(&kept)
}

/// Lines tried by [`fit_edge`], how far off a line an edge's point may lie
/// (pixels: a curled page bends a frame's edge by a pixel or two), and the
/// share of an edge's points that must lie on it.
const EDGE_CANDIDATES: usize = 64;
const EDGE_TOLERANCE: f32 = 2.5;
const MIN_EDGE_SHARE: f32 = 0.4;

fn least_squares(points: &[[f32; 2]]) -> Option<[f32; 2]> {
    let n = points.len() as f32;
    if n < 2.0 {
        return None;
    }
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(sx, sy), p| (sx + p[0], sy + p[1]));
    let (mx, my) = (sx / n, sy / n);
    let (sxx, sxy) = points.iter().fold((0.0, 0.0), |(sxx, sxy), p| {
        (
            sxx + (p[0] - mx) * (p[0] - mx),
            sxy + (p[0] - mx) * (p[1] - my),
        )
    });
    (sxx > 0.0).then(|| {
        let slope = sxy / sxx;
        [slope, my - slope * mx]
    })
}

/// Where a row-like line (`y = a·x + b`) meets a column-like one (`x = c·y + d`).
fn meet(row: [f32; 2], column: [f32; 2]) -> Option<[f32; 2]> {
    let ([a, b], [c, d]) = (row, column);
    let det = 1.0 - a * c;
    (det.abs() > 1e-3).then(|| {
        let x = (c * b + d) / det;
        [x, a * x + b]
    })
}

/// Whether ink runs along the side `side` of `quad` (0 top, 1 right, 2
/// bottom, 3 left), within a pixel of [`MIN_SIDE_INK`] of the points tested.
fn side_inked(quad: &Quad, side: usize, mask: &[bool], width: usize) -> bool {
    let height = mask.len() / width;
    let ink_near = |x: f32, y: f32| {
        let (cx, cy) = (x.round() as i64, y.round() as i64);
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                let (nx, ny) = (cx + dx, cy + dy);
                nx >= 0
                    && ny >= 0
                    && (nx as usize) < width
                    && (ny as usize) < height
                    && mask[ny as usize * width + nx as usize]
            })
        })
    };
    let (a, b) = (quad[side], quad[(side + 1) % 4]);
    let inked = (0..SIDE_SAMPLES)
        .filter(|&i| {
            let t = (i as f32 + 0.5) / SIDE_SAMPLES as f32;
            ink_near(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        })
        .count();
    inked as f32 >= MIN_SIDE_INK * SIDE_SAMPLES as f32
}

/// The printed frame within an outline's outer `sides`: a side along which
/// ink does not run is moved inwards, parallel to itself, to the first line
/// along which it does, at most [`MAX_FRAME_INSET_SHARE`] of the outline's
/// shorter side in. Coordinates printed against a frame merge with it into
/// one group of ink on a reduced copy, and where they lie outermost along
/// most of a side the outer edge runs along them, not along the frame.
/// `None` unless ink runs along all four sides.
fn frame_within(mut sides: Sides, mask: &[bool], width: usize) -> Option<Quad> {
    let shorter = side_lengths(&sides.corners()?)
        .into_iter()
        .fold(f32::MAX, f32::min);
    let max_inset = (shorter * MAX_FRAME_INSET_SHARE) as usize;
    // A second round sees each side between corners its neighbours' moves set.
    for _ in 0..2 {
        for side in 0..4 {
            let inked = |sides: &Sides| {
                sides
                    .corners()
                    .is_some_and(|quad| side_inked(&quad, side, mask, width))
            };
            if inked(&sides) {
                continue;
            }
            let by = (1..=max_inset).find(|&by| inked(&sides.moved_in(side, by as f32)))?;
            sides = sides.moved_in(side, by as f32);
        }
    }
    sides.corners()
}

/// The board inside the outline `corners` (on `image`): the inside warped
/// onto a square, the axis-aligned finders run on it, and the largest board
/// they see, if it fills most of the outline, mapped back onto `image`.
fn board_inside(image: &Luma32, corners: Quad) -> Option<BoardQuad> {
    let inner = WARP_SIDE - WARP_MARGIN;
    let square = [
        [WARP_MARGIN; 2],
        [inner, WARP_MARGIN],
        [inner; 2],
        [WARP_MARGIN, inner],
    ];
    let pairs: Vec<_> = square.into_iter().zip(corners).collect();
    let to_image = Homography::fit(&pairs)?;
    let side = WARP_SIDE as u32;
    let warped = image.resampled(side, side, |p| to_image.apply(p));
    let min_board = (inner - WARP_MARGIN) * MIN_BOARD_OF_OUTLINE;
    let finders: [fn(&Luma32) -> Vec<BoardBox>; 3] =
        [locate_framed, locate_boards, locate_boards_smoothed];
    let found = finders.iter().find_map(|find| {
        find(&warped)
            .into_iter()
            .filter(|b| b.width.min(b.height) >= min_board)
            .max_by(|a, b| (a.width * a.height).total_cmp(&(b.width * b.height)))
    });
    // Else the square inside the frame whose cells alternate most clearly.
    let board = found.or_else(|| squares_inside(&warped, WARP_MARGIN, inner - WARP_MARGIN))?;
    Some(BoardQuad {
        corners: board.corners().map(|p| to_image.apply(p)),
        corners_seen: board.lines_seen,
    })
}

/// The square within the frame's inside (`at`, `at`, `side`, `side` on
/// `warped`) on which the squares alternate with the most contrast, if at
/// least [`FRAMED_MIN_AGREEING`] of its cells alternate: the frame itself,
/// or a board inset from it where coordinates are printed inside the frame.
fn squares_inside(warped: &Luma32, at: f32, side: f32) -> Option<BoardBox> {
    // The contrast of a candidate `[x, y, side]`, if it lies within the frame.
    let contrast = |[x, y, s]: [f32; 3]| {
        let within = |v: f32| v >= at - 0.5 && v + s <= at + side + 0.5;
        let cell = s / 8.0;
        (within(x) && within(y))
            .then(|| {
                let to_image = |p: [f32; 2]| [x + p[0] * cell, y + p[1] * cell];
                checker_contrast(warped, to_image, FRAMED_MIN_AGREEING)
            })
            .flatten()
    };
    let best = |candidates: Vec<[f32; 3]>| {
        candidates
            .into_iter()
            .filter_map(|c| contrast(c).map(|v| (v, c)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    };
    // Coarse, then around the best at a quarter of the step.
    let step = side * INSET_STEP_SHARE;
    let mut coarse = Vec::new();
    for k in 0..=INSET_STEPS {
        let s = side * (1.0 - MAX_INSET_SHARE * k as f32 / INSET_STEPS as f32);
        let steps = ((side - s) / step).round() as usize;
        for i in 0..=steps {
            for j in 0..=steps {
                coarse.push([at + i as f32 * step, at + j as f32 * step, s]);
            }
        }
    }
    let [x, y, s] = best(coarse)?;
    let fine = step / 4.0;
    let mut around = Vec::new();
    for di in -4..=4 {
        for dj in -4..=4 {
            for ds in -2..=2 {
                let d = |n: i32| n as f32 * fine;
                around.push([x + d(di), y + d(dj), s + d(ds)]);
            }
        }
    }
    let [x, y, s] = best(around)?;
    Some(BoardBox::unlined(x, y, s, s))
}

/// The lengths of the top, right, bottom and left sides.
fn side_lengths(quad: &Quad) -> [f32; 4] {
    std::array::from_fn(|i| {
        let (a, b) = (quad[i], quad[(i + 1) % 4]);
        (b[0] - a[0]).hypot(b[1] - a[1])
    })
}

fn area(quad: &Quad) -> f32 {
    let cross = (0..4)
        .map(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % 4]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f32>();
    cross.abs() / 2.0
}

/// `[x0, y0, x1, y1]` around the corners.
fn bounding(corners: &Quad) -> [f32; 4] {
    corners
        .iter()
        .fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, p| {
            [
                b[0].min(p[0]),
                b[1].min(p[1]),
                b[2].max(p[0]),
                b[3].max(p[1]),
            ]
        })
}

fn overlaps(a: [f32; 4], b: [f32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A book diagram photographed at a slant: white paper, a frame just
    /// outside the board, dark squares hatched with diagonal lines (which
    /// break up the corner lattice), a solid piece on some squares, drawn
    /// through the homography of `corners` (the board's, 0–8 across and
    /// down) onto a `w`×`h` picture. `hatched` false leaves the squares
    /// empty: a frame round nothing.
    fn photographed_diagram(corners: Quad, w: u32, h: u32, hatched: bool) -> Luma32 {
        let to_board = Homography::from_corners(corners)
            .unwrap()
            .inverse()
            .unwrap();
        let data = (0..w * h)
            .map(|i| {
                let [bx, by] = to_board.apply([(i % w) as f32, (i / w) as f32]);
                let outside = |v: f32| !(-0.2..8.2).contains(&v);
                let on_frame = |v: f32| (-0.2..-0.08).contains(&v) || (8.08..8.2).contains(&v);
                if outside(bx) || outside(by) {
                    return 235.0;
                }
                if on_frame(bx) || on_frame(by) {
                    return 40.0;
                }
                let (col, row) = (bx.floor() as i32, by.floor() as i32);
                let inside_board = (0..8).contains(&col) && (0..8).contains(&row);
                if !hatched || !inside_board {
                    return 235.0;
                }
                let (fx, fy) = (bx.fract() - 0.5, by.fract() - 0.5);
                if (col * 5 + row * 3) % 4 == 0 && fx.abs() < 0.25 && fy.abs() < 0.3 {
                    return 30.0;
                }
                let hatch_line = ((bx + by) * 8.0).fract() < 0.35;
                if (col + row) % 2 == 1 && hatch_line {
                    60.0
                } else {
                    235.0
                }
            })
            .collect();
        Luma32::new(w, h, data)
    }

    #[test]
    fn finds_a_hatched_diagram_photographed_at_a_slant() {
        let truth = [[110.0, 90.0], [520.0, 125.0], [500.0, 505.0], [80.0, 470.0]];
        let image = photographed_diagram(truth, 600, 580, true).box_blurred(1);
        let boards = locate_outlined(&image);
        assert_eq!(boards.len(), 1, "{boards:?}");
        for (found, expected) in boards[0].corners.iter().zip(truth) {
            let error = (found[0] - expected[0]).hypot(found[1] - expected[1]);
            assert!(error < 8.0, "corner {found:?} vs {expected:?}");
        }
    }

    #[test]
    fn a_frame_round_no_board_is_not_one() {
        let corners = [[110.0, 90.0], [520.0, 125.0], [500.0, 505.0], [80.0, 470.0]];
        let image = photographed_diagram(corners, 600, 580, false);
        assert!(locate_outlined(&image).is_empty());
    }

    #[test]
    fn a_board_inset_from_its_frame_is_found_inside_it() {
        // The warped inside of a frame (24..616) that also holds the rank
        // digits, a strip of 60 px on the left, and the file letters, 60 px
        // at the bottom: the board is 84..616 across and 24..556 down, its
        // dark squares grey and some squares holding a dark piece.
        let (x0, y0, side) = (84.0, 24.0, 532.0);
        let cell = side / 8.0;
        let data = (0..640 * 640)
            .map(|i| {
                let (x, y) = ((i % 640) as f32 + 0.5, (i / 640) as f32 + 0.5);
                let (bx, by) = ((x - x0) / cell, (y - y0) / cell);
                let (col, row) = (bx.floor() as i32, by.floor() as i32);
                let (fx, fy) = (bx.fract() - 0.5, by.fract() - 0.5);
                let glyph = fx.abs() < 0.2 && fy.abs() < 0.3;
                match (0..8).contains(&col) && (0..8).contains(&row) {
                    true if (col * 5 + row * 3) % 4 == 0 && glyph => 30.0,
                    true if (col + row) % 2 == 1 => 150.0,
                    true => 235.0,
                    // A digit beside each rank, a letter under each file.
                    false if (col == -1 || row == 8) && glyph => 40.0,
                    false => 235.0,
                }
            })
            .collect();
        let warped = Luma32::new(640, 640, data).box_blurred(1);
        let board = squares_inside(&warped, 24.0, 592.0).expect("a board");
        for (found, expected) in [board.x, board.y, board.width]
            .into_iter()
            .zip([x0, y0, side])
        {
            assert!((found - expected).abs() < 4.0, "{board:?}");
        }
    }

    #[test]
    fn a_side_along_the_coordinates_is_moved_in_to_the_frame() {
        // A frame from 20 to 120 each way, and rank digits 6 px outside its
        // left side that the outer edge ran along (x = 14).
        let width = 140;
        let mut mask = vec![false; width * width];
        for i in 20..=120 {
            for (x, y) in [(i, 20), (i, 120), (20, i), (120, i)] {
                mask[y * width + x] = true;
            }
            if (i - 20) % 12 < 6 {
                mask[i * width + 14] = true;
            }
        }
        let outer = Sides([[0.0, 20.0], [0.0, 120.0], [0.0, 120.0], [0.0, 14.0]]);
        let outer_quad = outer.corners().unwrap();
        assert!(!side_inked(&outer_quad, 3, &mask, width));
        let frame = frame_within(outer, &mask, width).expect("the frame");
        for (corner, expected) in
            frame
                .iter()
                .zip([[20.0, 20.0], [120.0, 20.0], [120.0, 120.0], [20.0, 120.0]])
        {
            assert!(
                (corner[0] - expected[0]).abs() <= 1.5 && (corner[1] - expected[1]).abs() <= 1.5,
                "{frame:?}"
            );
        }
        // Without a frame inside the digits, there is none.
        let digits_only: Vec<bool> = (0..mask.len())
            .map(|i| mask[i] && i % width != 20)
            .collect();
        assert!(frame_within(outer, &digits_only, width).is_none());
    }

    #[test]
    fn an_edge_is_fitted_past_what_sticks_out_of_it() {
        // The top edge y = 0.05·x + 20, with a run of coordinates above it.
        let mut points: Vec<[f32; 2]> = (0..200)
            .map(|x| [x as f32, 0.05 * x as f32 + 20.0])
            .collect();
        for p in points.iter_mut().skip(20).take(60) {
            p[1] -= 9.0;
        }
        let [slope, offset] = fit_edge(&points).unwrap();
        assert!(
            (slope - 0.05).abs() < 0.005 && (offset - 20.0).abs() < 1.0,
            "{slope} {offset}"
        );
    }
}
