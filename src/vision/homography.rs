//! Plane homographies: fitting, applying, inverting, and warping a board
//! seen in perspective onto a square.

use image::{Rgb, RgbImage};

/// A 3×3 projective map, normalised so that its last entry is 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography {
    m: [f64; 9],
}

impl Homography {
    /// Least-squares fit of `from → to` over at least four point pairs.
    pub fn fit(pairs: &[([f32; 2], [f32; 2])]) -> Option<Self> {
        if pairs.len() < 4 {
            return None;
        }
        // Normalise both sides (Hartley) so the equations are well conditioned.
        let (t_from, t_to) = (
            normaliser(pairs.iter().map(|p| p.0)),
            normaliser(pairs.iter().map(|p| p.1)),
        );
        let mut ata = [[0.0f64; 8]; 8];
        let mut atb = [0.0f64; 8];
        for (from, to) in pairs {
            let [x0, y0] = t_from.apply_f64(*from);
            let [x1, y1] = t_to.apply_f64(*to);
            let rows = [
                ([x0, y0, 1.0, 0.0, 0.0, 0.0, -x0 * x1, -y0 * x1], x1),
                ([0.0, 0.0, 0.0, x0, y0, 1.0, -x0 * y1, -y0 * y1], y1),
            ];
            for (row, rhs) in rows {
                for r in 0..8 {
                    atb[r] += row[r] * rhs;
                    for c in 0..8 {
                        ata[r][c] += row[r] * row[c];
                    }
                }
            }
        }
        let h = solve8(ata, atb)?;
        let normalised = Homography {
            m: [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0],
        };
        t_to.inverse()?
            .compose(&normalised)
            .compose(&t_from)
            .normalised()
    }

    /// The map from board coordinates (`0..8` on both axes) to four image
    /// corners given as top-left, top-right, bottom-right, bottom-left.
    pub fn from_corners(corners: [[f32; 2]; 4]) -> Option<Self> {
        let board = [[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]];
        let pairs: Vec<_> = board.into_iter().zip(corners).collect();
        Self::fit(&pairs)
    }

    /// The matrix, row by row, normalised so that its last entry is 1.
    pub fn matrix(&self) -> [f64; 9] {
        self.m
    }

    pub fn apply(&self, p: [f32; 2]) -> [f32; 2] {
        let [x, y] = self.apply_f64(p);
        [x as f32, y as f32]
    }

    fn apply_f64(&self, p: [f32; 2]) -> [f64; 2] {
        let (x, y) = (f64::from(p[0]), f64::from(p[1]));
        let m = &self.m;
        let w = m[6] * x + m[7] * y + m[8];
        [
            (m[0] * x + m[1] * y + m[2]) / w,
            (m[3] * x + m[4] * y + m[5]) / w,
        ]
    }

    pub fn inverse(&self) -> Option<Self> {
        let m = &self.m;
        let cof = [
            m[4] * m[8] - m[5] * m[7],
            m[2] * m[7] - m[1] * m[8],
            m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8],
            m[0] * m[8] - m[2] * m[6],
            m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6],
            m[1] * m[6] - m[0] * m[7],
            m[0] * m[4] - m[1] * m[3],
        ];
        let det = m[0] * cof[0] + m[1] * cof[3] + m[2] * cof[6];
        if det.abs() < 1e-12 {
            return None;
        }
        Homography {
            m: cof.map(|c| c / det),
        }
        .normalised()
    }

    /// `self ∘ other`: apply `other` first.
    fn compose(&self, other: &Homography) -> Homography {
        let (a, b) = (&self.m, &other.m);
        let mut m = [0.0; 9];
        for r in 0..3 {
            for c in 0..3 {
                m[r * 3 + c] = (0..3).map(|k| a[r * 3 + k] * b[k * 3 + c]).sum();
            }
        }
        Homography { m }
    }

    fn normalised(self) -> Option<Self> {
        let last = self.m[8];
        (last.abs() > 1e-12 && self.m.iter().all(|v| v.is_finite())).then(|| Homography {
            m: self.m.map(|v| v / last),
        })
    }
}

/// A similarity that moves points to mean 0 and mean distance √2.
fn normaliser(points: impl Iterator<Item = [f32; 2]> + Clone) -> Homography {
    let n = points.clone().count().max(1) as f64;
    let (sx, sy) = points.clone().fold((0.0, 0.0), |(sx, sy), p| {
        (sx + f64::from(p[0]), sy + f64::from(p[1]))
    });
    let (mx, my) = (sx / n, sy / n);
    let mean_distance = points
        .map(|p| ((f64::from(p[0]) - mx).powi(2) + (f64::from(p[1]) - my).powi(2)).sqrt())
        .sum::<f64>()
        / n;
    let s = if mean_distance > 1e-9 {
        std::f64::consts::SQRT_2 / mean_distance
    } else {
        1.0
    };
    Homography {
        m: [s, 0.0, -s * mx, 0.0, s, -s * my, 0.0, 0.0, 1.0],
    }
}

/// Solves an 8×8 system by Gaussian elimination with partial pivoting.
fn solve8(mut a: [[f64; 8]; 8], mut b: [f64; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..8 {
            let f = a[row][col] / pivot_row[col];
            for (cell, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *cell -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 8];
    for row in (0..8).rev() {
        let rest: f64 = (row + 1..8).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

/// Warps the board inside `corners` (top-left, top-right, bottom-right,
/// bottom-left) onto a `side × side` square, sampling bilinearly.
pub fn warp_board(image: &RgbImage, corners: [[f32; 2]; 4], side: u32) -> Option<RgbImage> {
    let to_image = Homography::from_corners(corners)?;
    let scale = 8.0 / side as f32;
    Some(RgbImage::from_fn(side, side, |x, y| {
        let p = to_image.apply([(x as f32 + 0.5) * scale, (y as f32 + 0.5) * scale]);
        sample_rgb(image, p[0] - 0.5, p[1] - 0.5)
    }))
}

/// Bilinear sample at pixel coordinates (pixel centres at integers), clamped
/// at the edges.
pub fn sample_rgb(image: &RgbImage, x: f32, y: f32) -> Rgb<u8> {
    let max_x = image.width() as f32 - 1.0;
    let max_y = image.height() as f32 - 1.0;
    let (x, y) = (x.clamp(0.0, max_x), y.clamp(0.0, max_y));
    let (x0, y0) = (x.floor() as u32, y.floor() as u32);
    let (x1, y1) = ((x0 + 1).min(max_x as u32), (y0 + 1).min(max_y as u32));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let [a, b, c, d] =
        [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| image.get_pixel(x, y).0);
    Rgb(std::array::from_fn(|i| {
        let top = f32::from(a[i]) * (1.0 - fx) + f32::from(b[i]) * fx;
        let bottom = f32::from(c[i]) * (1.0 - fx) + f32::from(d[i]) * fx;
        (top * (1.0 - fy) + bottom * fy).round() as u8
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_known_map_and_inverts() {
        let truth = Homography {
            m: [1.2, 0.1, 30.0, -0.05, 0.9, 12.0, 0.0008, -0.0004, 1.0],
        };
        let pairs: Vec<_> = (0..5)
            .flat_map(|i| (0..5).map(move |j| [i as f32 * 2.0, j as f32 * 2.0]))
            .map(|p| (p, truth.apply(p)))
            .collect();
        let fitted = Homography::fit(&pairs).unwrap();
        for (from, to) in &pairs {
            let p = fitted.apply(*from);
            assert!((p[0] - to[0]).abs() < 1e-3 && (p[1] - to[1]).abs() < 1e-3);
        }
        let back = fitted.inverse().unwrap().apply(pairs[7].1);
        assert!((back[0] - pairs[7].0[0]).abs() < 1e-3 && (back[1] - pairs[7].0[1]).abs() < 1e-3);
    }

    #[test]
    fn corners_map_to_board_corners() {
        let corners = [[10.0, 20.0], [200.0, 25.0], [190.0, 210.0], [5.0, 200.0]];
        let h = Homography::from_corners(corners).unwrap();
        let mapped = h.apply([8.0, 8.0]);
        assert!((mapped[0] - 190.0).abs() < 1e-3 && (mapped[1] - 210.0).abs() < 1e-3);
    }
}
