//! Where the camera stood: a pinhole camera recovered from a board's four
//! corners, so that points above the board (the tops of standing pieces)
//! can be projected into the picture.
//!
//! World coordinates are in squares: `x` along the picture's top row of
//! squares from the top-left corner, `y` along its left column, `z` out of
//! the board towards the camera. The principal point is taken to be the
//! picture's centre and the pixels square; the focal length is recovered
//! from the homography where the board's perspective fixes it, else a
//! phone camera's is assumed.

use super::Homography;

/// A pinhole camera: `pixel ~ K (R X + t)` with `K = [f 0 cx; 0 f cy; 0 0 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPose {
    /// Focal length in pixels.
    pub focal: f64,
    /// Principal point, in the picture's continuous pixel coordinates.
    pub centre: [f64; 2],
    /// World-to-camera rotation, row by row.
    rotation: [[f64; 3]; 3],
    translation: [f64; 3],
}

/// The focal length assumed, as a multiple of the picture's longer side,
/// where the board's perspective is too weak to fix it (a board seen from
/// straight above): a phone's main camera, 26 mm in 35 mm terms.
const PHONE_FOCAL: f64 = 0.75;

/// Focal lengths outside these multiples of the longer side are taken for
/// a failed estimate, and [`PHONE_FOCAL`] is used instead.
const FOCAL_RANGE: (f64, f64) = (0.35, 4.0);

impl CameraPose {
    /// The camera that sees the board's corners (top-left, top-right,
    /// bottom-right, bottom-left of the picture) where they are, in a
    /// picture of `size` pixels; `None` where the corners are degenerate.
    pub fn from_corners(corners: [[f32; 2]; 4], size: [u32; 2]) -> Option<Self> {
        let h = Homography::from_corners(corners)?.matrix();
        let centre = [f64::from(size[0]) / 2.0, f64::from(size[1]) / 2.0];
        // The homography with the principal point moved to the origin.
        let col = |c: usize| {
            [
                h[c] - centre[0] * h[6 + c],
                h[3 + c] - centre[1] * h[6 + c],
                h[6 + c],
            ]
        };
        let (h1, h2, h3) = (col(0), col(1), col(2));
        let longest = f64::from(size[0].max(size[1]));
        let focal = focal_from_columns(h1, h2)
            .filter(|f| (FOCAL_RANGE.0 * longest..=FOCAL_RANGE.1 * longest).contains(f))
            .unwrap_or(PHONE_FOCAL * longest);
        let unproject = |v: [f64; 3]| [v[0] / focal, v[1] / focal, v[2]];
        let (r1, r2, t) = (unproject(h1), unproject(h2), unproject(h3));
        let scale = 2.0 / (norm(r1) + norm(r2));
        // The board lies in front of the camera.
        let scale = if t[2] * scale < 0.0 { -scale } else { scale };
        let r1 = normalised(r1.map(|v| v * scale))?;
        let r2 = r2.map(|v| v * scale);
        // Gram-Schmidt: the two board axes are at right angles.
        let r2 = normalised(sub(r2, r1.map(|v| v * dot(r1, r2))))?;
        let r3 = cross(r1, r2);
        let translation = t.map(|v| v * scale);
        let rotation = [
            [r1[0], r2[0], r3[0]],
            [r1[1], r2[1], r3[1]],
            [r1[2], r2[2], r3[2]],
        ];
        Some(Self {
            focal,
            centre,
            rotation,
            translation,
        })
    }

    /// The picture point of world point `p`; `None` behind the camera.
    pub fn project(&self, p: [f64; 3]) -> Option<[f64; 2]> {
        let c = self.in_camera_frame(p);
        (c[2] > 1e-9).then(|| {
            [
                self.focal * c[0] / c[2] + self.centre[0],
                self.focal * c[1] / c[2] + self.centre[1],
            ]
        })
    }

    /// The camera's position in world coordinates.
    pub fn position(&self) -> [f64; 3] {
        let r = &self.rotation;
        let t = &self.translation;
        std::array::from_fn(|i| -(r[0][i] * t[0] + r[1][i] * t[1] + r[2][i] * t[2]))
    }

    /// The unit vertical pointing from the board towards the camera's side
    /// of it, where pieces stand.
    pub fn up(&self) -> [f64; 3] {
        [0.0, 0.0, self.position()[2].signum()]
    }

    /// The camera's elevation above the board's plane at `p`, in degrees.
    pub fn elevation_at(&self, p: [f64; 3]) -> f64 {
        let ray = sub(self.position(), p);
        (ray[2].abs() / norm(ray)).asin().to_degrees()
    }

    fn in_camera_frame(&self, p: [f64; 3]) -> [f64; 3] {
        let r = &self.rotation;
        std::array::from_fn(|i| dot(r[i], p) + self.translation[i])
    }
}

/// The focal length that makes the homography's first two columns (its
/// board axes, principal point at the origin) equally long and at right
/// angles, by least squares over the two constraints on `1/f²`; `None`
/// where the perspective is too weak to tell.
fn focal_from_columns(h1: [f64; 3], h2: [f64; 3]) -> Option<f64> {
    let a = [
        h1[0] * h2[0] + h1[1] * h2[1],
        h1[0] * h1[0] + h1[1] * h1[1] - h2[0] * h2[0] - h2[1] * h2[1],
    ];
    let b = [h1[2] * h2[2], h1[2] * h1[2] - h2[2] * h2[2]];
    let aa = a[0] * a[0] + a[1] * a[1];
    let inverse_square = -(a[0] * b[0] + a[1] * b[1]) / aa;
    (aa > 0.0 && inverse_square > 0.0).then(|| inverse_square.sqrt().recip())
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

pub(crate) fn normalised(a: [f64; 3]) -> Option<[f64; 3]> {
    let n = norm(a);
    (n > 1e-12).then(|| a.map(|v| v / n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A camera `distance` squares from the board's centre, `elevation`
    /// degrees above it, on the picture's bottom side, rolled `roll`
    /// degrees: the picture points of the corners and of a point above e4.
    fn synthetic(focal: f64, elevation: f64, roll: f64) -> CameraPose {
        let (e, r) = (elevation.to_radians(), roll.to_radians());
        let distance = 20.0;
        let target = [4.0, 4.0, 0.0];
        // The camera sits towards +y (the picture's bottom) and above (-z
        // is away from the camera's side in a right-handed frame whose z
        // points into the board).
        let position = [4.0, 4.0 + distance * e.cos(), -distance * e.sin()];
        let forward = normalised(sub(target, position)).unwrap();
        let right0 = normalised(cross([0.0, 0.0, -1.0], forward)).unwrap();
        let down0 = cross(forward, right0);
        let right: [f64; 3] = std::array::from_fn(|i| right0[i] * r.cos() + down0[i] * r.sin());
        let down = cross(forward, right);
        let rotation = [right, down, forward];
        let translation = std::array::from_fn(|i| -dot(rotation[i], position));
        CameraPose {
            focal,
            centre: [320.0, 240.0],
            rotation,
            translation,
        }
    }

    fn corners_of(pose: &CameraPose) -> [[f32; 2]; 4] {
        [[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]].map(|[x, y]| {
            let p = pose.project([x, y, 0.0]).unwrap();
            [p[0] as f32, p[1] as f32]
        })
    }

    #[test]
    fn recovers_focal_and_heights_from_a_slanted_view() {
        for (focal, elevation, roll) in
            [(500.0, 40.0, 0.0), (700.0, 55.0, 12.0), (450.0, 70.0, -8.0)]
        {
            let truth = synthetic(focal, elevation, roll);
            let pose = CameraPose::from_corners(corners_of(&truth), [640, 480]).unwrap();
            assert!(
                (pose.focal - focal).abs() / focal < 0.02,
                "{} vs {focal}",
                pose.focal
            );
            // The top of a piece 1.7 squares tall on e4 lands where it should.
            let up = pose.up();
            let top = [4.5, 3.5, 1.7 * up[2]];
            let truth_top = [4.5, 3.5, -1.7];
            let (a, b) = (
                pose.project(top).unwrap(),
                truth.project(truth_top).unwrap(),
            );
            assert!(
                (a[0] - b[0]).abs() < 1.0 && (a[1] - b[1]).abs() < 1.0,
                "{a:?} vs {b:?}"
            );
            assert!((pose.elevation_at([4.0, 4.0, 0.0]) - elevation).abs() < 1.0);
        }
    }

    #[test]
    fn a_board_seen_from_above_falls_back_to_a_phone_focal_length() {
        let corners = [[100.0, 50.0], [500.0, 50.0], [500.0, 450.0], [100.0, 450.0]];
        let pose = CameraPose::from_corners(corners, [640, 480]).unwrap();
        assert_eq!(pose.focal, PHONE_FOCAL * 640.0);
        let p = pose.project([8.0, 8.0, 0.0]).unwrap();
        assert!((p[0] - 500.0).abs() < 1e-3 && (p[1] - 450.0).abs() < 1e-3);
    }
}
