//! Finding boards seen at an angle (photos) from their inner corners.
//!
//! Every inner corner of a chessboard is a saddle of the luminance: two light
//! and two dark squares meet there. The finder
//!
//! 1. marks saddle points (negative Hessian determinant) on a blurred copy;
//! 2. grows a lattice from a seed saddle, predicting each neighbour by
//!    extrapolating from the corners already found, which follows perspective;
//! 3. accepts a lattice exactly seven corners wide and high, and fits a
//!    homography to it; the board's outer corners are where the lattice's
//!    0th and 8th lines meet.

use std::collections::{HashMap, VecDeque};

use super::{checker, homography::Homography, Luma32};

/// Detection runs on a copy no larger than this on its longest side, with
/// this blur (pixels at detection scale) before differentiating.
/// Its boards must show a board's light and dark squares in three cells of
/// four: pieces, glare and moiré hide some, while the diagonal lattice of a
/// hatched diagram's squares, extended over the text beside it, agrees in
/// about half.
const DETECT: Detection = Detection {
    max_side: 640,
    blur_radius: 3,
    min_agreeing: 48,
};
/// The coarse pass: squares of about 20–30 pixels, where the fine detail of
/// pieces is blurred away and only the squares' corners stay saddles. It
/// finds low-contrast boards whose corners the pieces outshine at the finer
/// scale. Text and tables make lattices at this scale too, so its boards must
/// show a board's light and dark squares as clearly as the grid-line finder's.
const DETECT_COARSE: Detection = Detection {
    max_side: 256,
    blur_radius: 2,
    min_agreeing: checker::MIN_AGREEING,
};

#[derive(Clone, Copy)]
struct Detection {
    max_side: u32,
    blur_radius: usize,
    /// Cells that must lie on their parity's side ([`checker::alternates_in`]).
    min_agreeing: usize,
}
/// At most this many saddles are considered, strongest first.
const MAX_SADDLES: usize = 600;
/// Seeds tried, strongest first.
const MAX_SEEDS: usize = 200;
/// A lattice needs this many of its 49 corners.
const MIN_CORNERS: usize = 24;

/// A board as four corners in image pixels: top-left, top-right,
/// bottom-right, bottom-left as the picture shows them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardQuad {
    pub corners: [[f32; 2]; 4],
    /// How many of the 49 inner corners were found.
    pub corners_seen: usize,
}

#[derive(Clone, Copy, Debug)]
struct Saddle {
    x: f32,
    y: f32,
    strength: f32,
    /// Direction of the Hessian's principal axis modulo 90°, in radians. At a
    /// board corner it lies along a diagonal of the squares, so all corners
    /// of one board agree on it; clutter does not.
    angle: f32,
}

/// Largest difference in [`Saddle::angle`] between corners of one board.
const MAX_ANGLE_DIFFERENCE: f32 = 0.26;

fn angle_difference(a: f32, b: f32) -> f32 {
    let quarter = std::f32::consts::FRAC_PI_2;
    let d = (a - b).rem_euclid(quarter);
    d.min(quarter - d)
}

/// Finds boards in the image by their corner lattice, best first.
pub fn locate_quads(image: &Luma32) -> Vec<BoardQuad> {
    locate_quads_at(image, DETECT)
}

/// [`locate_quads`] on a much smaller copy: for photos where it finds nothing.
pub fn locate_quads_coarse(image: &Luma32) -> Vec<BoardQuad> {
    locate_quads_at(image, DETECT_COARSE)
}

fn locate_quads_at(image: &Luma32, detection: Detection) -> Vec<BoardQuad> {
    let scale = (detection.max_side as f32 / image.width.max(image.height) as f32).min(1.0);
    let small = image.resized(scale);
    let radius = detection.blur_radius;
    let blurred = small.box_blurred(radius).box_blurred(radius);
    let saddles = find_saddles(&blurred);

    let mut quads: Vec<BoardQuad> = Vec::new();
    let index = SaddleIndex::new(&saddles);
    let mut used = vec![false; saddles.len()];
    for seed in 0..saddles.len().min(MAX_SEEDS) {
        if used[seed] {
            continue;
        }
        let Some(lattice) = grow_lattice(&index, seed) else {
            continue;
        };
        for index in lattice.values() {
            used[*index] = true;
        }
        let Some(found) = quad_from_lattice(&saddles, &lattice) else {
            continue;
        };
        let quad = BoardQuad {
            corners: found.corners.map(|corner| corner.map(|v| v / scale)),
            ..found
        };
        // The squares are checked on the copy the saddles were found on, and
        // on the one before its blur: blurred, a hatched dark square is dark,
        // not light between its lines; a photo's shadows blur into its squares.
        if plausible(&quad, image.width as f32, image.height as f32)
            && [&small, &blurred]
                .iter()
                .any(|copy| squares_alternate(copy, &found, detection.min_agreeing))
        {
            quads.push(quad);
        }
    }
    quads.sort_by_key(|q| std::cmp::Reverse(q.corners_seen));
    let mut kept: Vec<BoardQuad> = Vec::new();
    for quad in quads {
        if !kept
            .iter()
            .any(|k| contains(k, centre(&quad)) || contains(&quad, centre(k)))
        {
            kept.push(quad);
        }
    }
    kept
}

/// Whether a quad can be a board photographed in this image: inside it (with
/// a small margin), convex, and not too distorted.
fn plausible(quad: &BoardQuad, width: f32, height: f32) -> bool {
    let c = quad.corners;
    let inside = c.iter().all(|p| {
        (-0.05 * width..=1.05 * width).contains(&p[0])
            && (-0.05 * height..=1.05 * height).contains(&p[1])
    });
    let sides: Vec<f32> = (0..4)
        .map(|i| distance_points(c[i], c[(i + 1) % 4]))
        .collect();
    let ratio = |a: f32, b: f32| a.max(b) / a.min(b).max(1e-3);
    let convex = (0..4)
        .map(|i| cross(c[i], c[(i + 1) % 4], c[(i + 2) % 4]))
        .all(|z| z > 0.0);
    inside
        && convex
        && ratio(sides[0], sides[2]) < 1.8
        && ratio(sides[1], sides[3]) < 1.8
        && ratio(sides[0], sides[1]) < 2.2
        && sides.iter().all(|&s| s >= 40.0)
}

/// Whether the quad's cells alternate light and dark (at least
/// `min_agreeing` of them), in either of the two colourings its corner order
/// (known up to a quarter turn) allows.
fn squares_alternate(image: &Luma32, quad: &BoardQuad, min_agreeing: usize) -> bool {
    let Some(h) = Homography::from_corners(quad.corners) else {
        return false;
    };
    checker::alternates_in(image, |p| h.apply(p), min_agreeing)
        || checker::alternates_in(image, |p| h.apply([8.0 - p[0], p[1]]), min_agreeing)
}

/// z of (b − a) × (c − b): positive for a clockwise turn in image coordinates.
fn cross(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
}

fn centre(quad: &BoardQuad) -> [f32; 2] {
    let c = quad.corners;
    [
        c.iter().map(|p| p[0]).sum::<f32>() / 4.0,
        c.iter().map(|p| p[1]).sum::<f32>() / 4.0,
    ]
}

/// Whether a point lies inside a convex quad.
fn contains(quad: &BoardQuad, p: [f32; 2]) -> bool {
    let c = quad.corners;
    (0..4).all(|i| cross(c[i], c[(i + 1) % 4], p) >= 0.0)
}

/// Local maxima of the saddle response, strongest first.
fn find_saddles(image: &Luma32) -> Vec<Saddle> {
    let (w, h) = (image.width as usize, image.height as usize);
    const D: usize = 2;
    let mut response = vec![0.0f32; w * h];
    let mut angles = vec![0.0f32; w * h];
    for y in D..h.saturating_sub(D) {
        for x in D..w.saturating_sub(D) {
            let at = |dx: isize, dy: isize| {
                image.get((x as isize + dx) as usize, (y as isize + dy) as usize)
            };
            let d = D as isize;
            let c = at(0, 0);
            let ixx = at(d, 0) - 2.0 * c + at(-d, 0);
            let iyy = at(0, d) - 2.0 * c + at(0, -d);
            let ixy = (at(d, d) - at(d, -d) - at(-d, d) + at(-d, -d)) / 4.0;
            let det = ixx * iyy - ixy * ixy;
            if det < 0.0 {
                response[y * w + x] = -det;
                angles[y * w + x] =
                    (0.5 * (2.0 * ixy).atan2(ixx - iyy)).rem_euclid(std::f32::consts::FRAC_PI_2);
            }
        }
    }
    let max = response.iter().copied().fold(0.0f32, f32::max);
    if max <= 0.0 {
        return Vec::new();
    }
    let threshold = max * 0.05;
    let radius = 4usize;
    let mut saddles = Vec::new();
    for y in radius..h.saturating_sub(radius) {
        for x in radius..w.saturating_sub(radius) {
            let v = response[y * w + x];
            if v < threshold {
                continue;
            }
            let is_peak = (y - radius..=y + radius).all(|yy| {
                (x - radius..=x + radius).all(|xx| {
                    let other = response[yy * w + xx];
                    other < v || (other == v && (yy, xx) >= (y, x))
                })
            });
            if is_peak {
                saddles.push(Saddle {
                    x: x as f32,
                    y: y as f32,
                    strength: v,
                    angle: angles[y * w + x],
                });
            }
        }
    }
    saddles.sort_by(|a, b| b.strength.total_cmp(&a.strength));
    saddles.truncate(MAX_SADDLES);
    saddles
}

fn distance(a: &Saddle, b: &Saddle) -> f32 {
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

/// The saddles of a picture bucketed by position, for nearest-neighbour
/// queries that look only at the buckets a query's radius reaches.
struct SaddleIndex<'a> {
    saddles: &'a [Saddle],
    columns: usize,
    rows: usize,
    /// Indices into `saddles`, by bucket, row by row.
    buckets: Vec<Vec<usize>>,
}

/// Side of a [`SaddleIndex`] bucket, in detection pixels.
const BUCKET: f32 = 16.0;

impl<'a> SaddleIndex<'a> {
    fn new(saddles: &'a [Saddle]) -> Self {
        let extent =
            |value: fn(&Saddle) -> f32| saddles.iter().map(value).fold(0.0f32, f32::max) / BUCKET;
        let columns = extent(|s| s.x) as usize + 1;
        let rows = extent(|s| s.y) as usize + 1;
        let mut buckets = vec![Vec::new(); columns * rows];
        for (i, s) in saddles.iter().enumerate() {
            buckets[(s.y / BUCKET) as usize * columns + (s.x / BUCKET) as usize].push(i);
        }
        SaddleIndex {
            saddles,
            columns,
            rows,
            buckets,
        }
    }

    /// The saddle nearest to `(x, y)` within `radius` whose angle agrees with
    /// `angle`; of saddles equally near, the strongest (the lowest index).
    fn nearest(&self, x: f32, y: f32, radius: f32, angle: f32) -> Option<usize> {
        let span = |centre: f32, count: usize| {
            let first = ((centre - radius) / BUCKET).floor().max(0.0) as usize;
            let last = ((centre + radius) / BUCKET).floor();
            (last >= 0.0).then(|| first..=(last as usize).min(count - 1))
        };
        let (columns, rows) = (span(x, self.columns)?, span(y, self.rows)?);
        let mut best: Option<(f32, usize)> = None;
        for row in rows {
            for column in columns.clone() {
                for &i in &self.buckets[row * self.columns + column] {
                    let s = &self.saddles[i];
                    if angle_difference(s.angle, angle) > MAX_ANGLE_DIFFERENCE {
                        continue;
                    }
                    let d2 = (s.x - x).powi(2) + (s.y - y).powi(2);
                    if d2 <= radius * radius
                        && best.is_none_or(|(bd, bi)| d2 < bd || (d2 == bd && i < bi))
                    {
                        best = Some((d2, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

/// The two lattice steps at a seed: among its near neighbours, the pair of
/// roughly perpendicular steps that the most other saddles confirm (the seed
/// ± one and two steps, and the diagonal cells).
fn seed_steps(index: &SaddleIndex, seed: usize) -> Option<([f32; 2], [f32; 2])> {
    let saddles = index.saddles;
    let p = saddles[seed];
    let mut near: Vec<(usize, f32)> = saddles
        .iter()
        .enumerate()
        .filter(|(i, o)| *i != seed && angle_difference(o.angle, p.angle) <= MAX_ANGLE_DIFFERENCE)
        .map(|(i, o)| (i, distance(&p, o)))
        .filter(|(_, d)| *d >= 8.0)
        .collect();
    near.sort_by(|a, b| a.1.total_cmp(&b.1));
    near.truncate(20);
    let step = |i: usize| [saddles[i].x - p.x, saddles[i].y - p.y];
    let exists = |k: f32, l: f32, u: [f32; 2], v: [f32; 2]| {
        let (x, y) = (p.x + k * u[0] + l * v[0], p.y + k * u[1] + l * v[1]);
        let r = 0.25
            * ((u[0] + v[0]).powi(2) + (u[1] + v[1]).powi(2))
                .sqrt()
                .max(4.0);
        index.nearest(x, y, r, p.angle).is_some()
    };
    let along = |u: [f32; 2]| {
        [-2.0, -1.0, 1.0, 2.0]
            .into_iter()
            .filter(|&k| exists(k, 0.0, u, [0.0, 0.0]))
            .count()
    };
    let mut steps: Vec<([f32; 2], usize)> = near
        .iter()
        .map(|&(i, _)| (step(i), along(step(i))))
        .filter(|(_, support)| *support >= 3)
        .collect();
    steps.sort_by_key(|s| std::cmp::Reverse(s.1));
    type Steps = ([f32; 2], [f32; 2]);
    let mut best: Option<(Steps, usize)> = None;
    for &(u, su) in steps.iter().take(4) {
        let lu = (u[0].powi(2) + u[1].powi(2)).sqrt();
        for &(v, sv) in &steps {
            let lv = (v[0].powi(2) + v[1].powi(2)).sqrt();
            let cos = (u[0] * v[0] + u[1] * v[1]) / (lu * lv);
            if cos.abs() > 0.5 || !(0.6..=1.6).contains(&(lv / lu)) {
                continue;
            }
            let diagonal = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
                .into_iter()
                .filter(|&(k, l)| exists(k, l, u, v))
                .count();
            let score = su + sv + diagonal;
            if diagonal >= 2 && best.is_none_or(|(_, s)| score > s) {
                best = Some(((u, v), score));
            }
        }
    }
    best.filter(|(_, score)| *score >= 9)
        .map(|(steps, _)| steps)
}

/// Grows a lattice of saddles from a seed: `(i, j)` → saddle index.
fn grow_lattice(index: &SaddleIndex, seed: usize) -> Option<HashMap<(i32, i32), usize>> {
    let saddles = index.saddles;
    let (u, v) = seed_steps(index, seed)?;
    let mut lattice: HashMap<(i32, i32), usize> = HashMap::from([((0, 0), seed)]);
    let mut taken = vec![false; saddles.len()];
    taken[seed] = true;
    let mut queue = VecDeque::from([(0i32, 0i32)]);
    while let Some((i, j)) = queue.pop_front() {
        let here = saddles[lattice[&(i, j)]];
        for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let target = (i + di, j + dj);
            if lattice.contains_key(&target) {
                continue;
            }
            // Extrapolate from the corner behind this one when it is known.
            let step = match lattice.get(&(i - di, j - dj)) {
                Some(&behind) => [here.x - saddles[behind].x, here.y - saddles[behind].y],
                None => {
                    let (a, b) = (di as f32, dj as f32);
                    [a * u[0] + b * v[0], a * u[1] + b * v[1]]
                }
            };
            let length = (step[0].powi(2) + step[1].powi(2)).sqrt();
            let (px, py) = (here.x + step[0], here.y + step[1]);
            if let Some(found) = index.nearest(px, py, 0.2 * length, here.angle) {
                if !taken[found] {
                    taken[found] = true;
                    lattice.insert(target, found);
                    queue.push_back(target);
                }
            }
        }
        if lattice.len() > 120 {
            return None; // a wider pattern than a chessboard
        }
    }
    (lattice.len() >= MIN_CORNERS).then_some(lattice)
}

/// Fits the lattice and returns the board's outer corners, if the lattice is
/// exactly 7×7 corners in extent.
fn quad_from_lattice(
    saddles: &[Saddle],
    lattice: &HashMap<(i32, i32), usize>,
) -> Option<BoardQuad> {
    // The board's edge can show up as an extra line of weaker corners on
    // each side: keep the strongest seven lines each way.
    let imin = strongest_window(saddles, lattice, |k| k.0)?;
    let jmin = strongest_window(saddles, lattice, |k| k.1)?;
    let lattice: HashMap<(i32, i32), usize> = lattice
        .iter()
        .filter(|(k, _)| (imin..imin + 7).contains(&k.0) && (jmin..jmin + 7).contains(&k.1))
        .map(|(k, v)| (*k, *v))
        .collect();
    if lattice.len() < MIN_CORNERS {
        return None;
    }
    let pairs: Vec<([f32; 2], [f32; 2])> = lattice
        .iter()
        .map(|(&(i, j), &index)| {
            let s = saddles[index];
            ([(i - imin + 1) as f32, (j - jmin + 1) as f32], [s.x, s.y])
        })
        .collect();
    let h = Homography::fit(&pairs)?;
    // Reject fits that do not explain the corners well.
    let mean_error = pairs
        .iter()
        .map(|(board, image)| {
            let p = h.apply(*board);
            ((p[0] - image[0]).powi(2) + (p[1] - image[1]).powi(2)).sqrt()
        })
        .sum::<f32>()
        / pairs.len() as f32;
    let corners = [[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]].map(|c| h.apply(c));
    let side = distance_points(corners[0], corners[1]).min(distance_points(corners[1], corners[2]));
    if mean_error > 0.04 * side {
        return None;
    }
    Some(BoardQuad {
        corners: order_corners(corners),
        corners_seen: lattice.len(),
    })
}

/// The first index of the seven consecutive lattice lines (along `axis`)
/// whose corners respond most strongly; `None` unless 7 to 9 lines were found.
fn strongest_window(
    saddles: &[Saddle],
    lattice: &HashMap<(i32, i32), usize>,
    axis: impl Fn(&(i32, i32)) -> i32,
) -> Option<i32> {
    let (lo, hi) = extent(lattice.keys().map(&axis));
    if !(6..=8).contains(&(hi - lo)) {
        return None;
    }
    (lo..=hi - 6).max_by(|&a, &b| {
        let strength = |start: i32| -> f32 {
            lattice
                .iter()
                .filter(|(k, _)| (start..start + 7).contains(&axis(k)))
                .map(|(_, &i)| saddles[i].strength)
                .sum()
        };
        strength(a).total_cmp(&strength(b))
    })
}

fn extent(values: impl Iterator<Item = i32>) -> (i32, i32) {
    values.fold((i32::MAX, i32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn distance_points(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Orders four corners as top-left, top-right, bottom-right, bottom-left.
fn order_corners(corners: [[f32; 2]; 4]) -> [[f32; 2]; 4] {
    let cx = corners.iter().map(|c| c[0]).sum::<f32>() / 4.0;
    let cy = corners.iter().map(|c| c[1]).sum::<f32>() / 4.0;
    let mut sorted = corners;
    // Clockwise in image coordinates (y grows downwards), then starting
    // from the corner nearest the image's top-left.
    sorted.sort_by(|a, b| {
        let angle = |p: &[f32; 2]| (p[1] - cy).atan2(p[0] - cx);
        angle(a).total_cmp(&angle(b))
    });
    let first = (0..4)
        .min_by(|&i, &j| (sorted[i][0] + sorted[i][1]).total_cmp(&(sorted[j][0] + sorted[j][1])))
        .unwrap_or(0);
    sorted.rotate_left(first);
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_what_a_scan_of_every_saddle_finds() {
        // Saddles on a 640×480 picture from a fixed linear congruential
        // sequence, a few of them on the same spot (ties go to the strongest).
        let mut state = 12345u64;
        let mut next = |range: f32| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32 * range
        };
        let mut saddles: Vec<Saddle> = (0..600)
            .map(|i| Saddle {
                x: next(640.0).floor(),
                y: next(480.0).floor(),
                strength: 600.0 - i as f32,
                angle: next(std::f32::consts::FRAC_PI_2),
            })
            .collect();
        saddles.extend_from_within(10..20);
        let index = SaddleIndex::new(&saddles);
        let scan = |x: f32, y: f32, radius: f32, angle: f32| {
            saddles
                .iter()
                .enumerate()
                .filter(|(_, s)| angle_difference(s.angle, angle) <= MAX_ANGLE_DIFFERENCE)
                .map(|(i, s)| (i, (s.x - x).powi(2) + (s.y - y).powi(2)))
                .filter(|(_, d2)| *d2 <= radius * radius)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        };
        let mut found = 0;
        for _ in 0..5000 {
            let (x, y) = (next(760.0) - 60.0, next(600.0) - 60.0);
            let (radius, angle) = (next(60.0), next(std::f32::consts::FRAC_PI_2));
            let expected = scan(x, y, radius, angle);
            found += usize::from(expected.is_some());
            assert_eq!(
                index.nearest(x, y, radius, angle),
                expected,
                "at ({x}, {y}) within {radius}"
            );
        }
        assert!(found > 1000, "only {found} queries found a saddle");
    }

    /// A picture of `w`×`h`, a page of luma `page` with the board's plane
    /// drawn through a homography: `shade` gives the luma at board
    /// coordinates (0–8 across and down).
    fn photo(
        corners: [[f32; 2]; 4],
        w: u32,
        h: u32,
        page: f32,
        shade: impl Fn([f32; 2]) -> f32,
    ) -> Luma32 {
        let to_board = Homography::from_corners(corners)
            .unwrap()
            .inverse()
            .unwrap();
        let data = (0..w * h)
            .map(|i| {
                let b = to_board.apply([(i % w) as f32, (i / w) as f32]);
                let inside = (0.0..8.0).contains(&b[0]) && (0.0..8.0).contains(&b[1]);
                if inside {
                    shade(b)
                } else {
                    page
                }
            })
            .collect();
        Luma32::new(w, h, data)
    }

    /// A plain board drawn through a homography onto a grey page.
    fn photo_of_board(corners: [[f32; 2]; 4], w: u32, h: u32) -> Luma32 {
        photo(corners, w, h, 100.0, |b| {
            let light = ((b[0] as i32 + b[1] as i32) % 2) == 0;
            if light {
                230.0
            } else {
                90.0
            }
        })
    }

    #[test]
    fn finds_a_board_in_perspective() {
        let truth = [[120.0, 80.0], [500.0, 110.0], [470.0, 470.0], [90.0, 430.0]];
        let image = photo_of_board(truth, 600, 560);
        let quads = locate_quads(&image);
        assert!(!quads.is_empty(), "no board found");
        for (found, expected) in quads[0].corners.iter().zip(truth) {
            let error = distance_points(*found, expected);
            assert!(error < 6.0, "corner {found:?} vs {expected:?}");
        }
    }

    /// A faint board in perspective with a sharp, busy "piece" in most
    /// cells: the pieces' saddles outshine the board's corners at the
    /// fine scale.
    fn faint_busy_photo(corners: [[f32; 2]; 4], w: u32, h: u32) -> Luma32 {
        photo(corners, w, h, 120.0, |b| {
            let (col, row) = (b[0] as usize, b[1] as usize);
            let (fx, fy) = (b[0].fract() - 0.5, b[1].fract() - 0.5);
            if (col * 7 + row * 3) % 5 != 0 && fx.abs() < 0.25 && fy.abs() < 0.3 {
                // A piece: dark body with light stripes, or the reverse.
                let stripe = ((fy + 0.3) * 3.0) as i32 % 2 == 0;
                return if stripe == ((col + row) % 3 == 0) {
                    60.0
                } else {
                    220.0
                };
            }
            if (col + row) % 2 == 0 {
                205.0
            } else {
                165.0
            }
        })
    }

    #[test]
    fn the_coarse_pass_finds_a_faint_board_among_busy_pieces() {
        let truth = [[60.0, 50.0], [560.0, 70.0], [545.0, 560.0], [45.0, 530.0]];
        let image = faint_busy_photo(truth, 620, 600);
        let quads = locate_quads_coarse(&image);
        assert!(!quads.is_empty(), "no board found");
        for (found, expected) in quads[0].corners.iter().zip(truth) {
            let error = distance_points(*found, expected);
            assert!(error < 12.0, "corner {found:?} vs {expected:?}");
        }
        assert!(
            locate_quads(&image).is_empty(),
            "the fine pass should not see it"
        );
    }

    #[test]
    fn only_a_checker_pattern_alternates() {
        let corners = [[120.0, 80.0], [500.0, 110.0], [470.0, 470.0], [90.0, 430.0]];
        let quad = BoardQuad {
            corners,
            corners_seen: 49,
        };
        assert!(squares_alternate(
            &photo_of_board(corners, 600, 560),
            &quad,
            checker::MIN_AGREEING
        ));
        // Seen a quarter turn round, it is the same board.
        let mut turned = quad;
        turned.corners.rotate_left(1);
        assert!(squares_alternate(
            &photo_of_board(corners, 600, 560),
            &turned,
            checker::MIN_AGREEING
        ));
        let rows = Luma32::new(
            600,
            560,
            (0..600 * 560)
                .map(|i| if i / 600 / 45 % 2 == 0 { 230.0 } else { 90.0 })
                .collect(),
        );
        assert!(!squares_alternate(&rows, &quad, DETECT.min_agreeing));
    }

    #[test]
    fn finds_nothing_in_a_plain_page() {
        let mut data = vec![200.0; 400 * 300];
        for y in 100..140 {
            for x in 50..350 {
                data[y * 400 + x] = 40.0;
            }
        }
        assert!(locate_quads(&Luma32::new(400, 300, data)).is_empty());
    }

    #[test]
    fn corners_are_ordered_clockwise_from_top_left() {
        // The top-left corner sits just above its diagonal from the centre.
        let shuffled = [[190.0, 210.0], [5.0, 200.0], [12.0, 8.0], [200.0, 20.0]];
        assert_eq!(
            order_corners(shuffled),
            [[12.0, 8.0], [200.0, 20.0], [190.0, 210.0], [5.0, 200.0]]
        );
        let tilted = [[100.0, 0.0], [210.0, 95.0], [110.0, 200.0], [0.0, 105.0]];
        assert_eq!(order_corners(tilted)[0], [100.0, 0.0]);
        assert_eq!(order_corners(tilted)[1], [210.0, 95.0]);
    }

    #[test]
    fn plausibility_rejects_distorted_and_outside_quads() {
        let quad = |corners| BoardQuad {
            corners,
            corners_seen: 49,
        };
        let good = quad([[10.0, 10.0], [200.0, 20.0], [190.0, 210.0], [5.0, 200.0]]);
        assert!(plausible(&good, 300.0, 300.0));
        assert!(contains(&good, [100.0, 100.0]) && !contains(&good, [250.0, 100.0]));
        let outside = quad([[10.0, 10.0], [600.0, 20.0], [590.0, 210.0], [5.0, 200.0]]);
        assert!(!plausible(&outside, 300.0, 300.0));
        let twisted = quad([[10.0, 10.0], [190.0, 210.0], [200.0, 20.0], [5.0, 200.0]]);
        assert!(!plausible(&twisted, 300.0, 300.0));
    }
}
