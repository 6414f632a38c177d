//! Cells of a photographed physical board, whose pieces stand up out of
//! their squares: for each square, the picture as seen on a card standing
//! on the square's centre and facing the camera, from a little below the
//! square to well above a king's crown.
//!
//! The card is cut at the same scale in squares whatever the camera's
//! distance, and turned so that up on the board is up in the cell, so a
//! piece looks much the same in any square of any photo; what changes
//! with the camera's elevation is how much of its top and of its side
//! shows, which the classifier learns.

use image::{imageops, RgbImage};

use super::{homography::sample_rgb, pose, CameraPose};

/// Width of a standing cell, in pixels.
pub const STANDING_WIDTH: usize = 32;
/// Height of a standing cell, in pixels.
pub const STANDING_HEIGHT: usize = 64;
/// Floats in one standing cell: three planes, top row first.
pub const STANDING_LEN: usize = 3 * STANDING_WIDTH * STANDING_HEIGHT;

/// The card's extent across, either side of the square's centre, in squares.
const HALF_WIDTH: f64 = 0.7;
/// The card's extent below the square's centre and above it, in squares:
/// a Staunton king stands about 1.7 squares tall.
const BELOW: f64 = 0.7;
const ABOVE: f64 = 2.1;

/// A picture whose squares are larger than this many pixels is shrunk
/// (area-averaged) before the cells are cut, so that sampling does not alias.
const SHRINK_ABOVE: f64 = 36.0;

/// The 64 standing cells of the board whose corners (top-left, top-right,
/// bottom-right, bottom-left of the picture) are `corners`, top row first,
/// as `STANDING_LEN` floats each (RGB planes scaled to `0..=1`); `None`
/// where no camera explains the corners.
pub fn standing_cells(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Vec<f32>> {
    let pose = CameraPose::from_corners(corners, [image.width(), image.height()])?;
    let source = Source::around(image, corners);
    let up = pose.up();
    let camera = pose.position();
    let mut cells = Vec::with_capacity(64 * STANDING_LEN);
    for row in 0..8 {
        for col in 0..8 {
            let centre = [col as f64 + 0.5, row as f64 + 0.5, 0.0];
            let (across, upward) = card_axes(camera, centre, up)?;
            let mut planes = vec![0.0f32; STANDING_LEN];
            let plane = STANDING_WIDTH * STANDING_HEIGHT;
            for y in 0..STANDING_HEIGHT {
                let v = ABOVE - (y as f64 + 0.5) / STANDING_HEIGHT as f64 * (ABOVE + BELOW);
                for x in 0..STANDING_WIDTH {
                    let u = ((x as f64 + 0.5) / STANDING_WIDTH as f64 - 0.5) * 2.0 * HALF_WIDTH;
                    let world: [f64; 3] =
                        std::array::from_fn(|i| centre[i] + u * across[i] + v * upward[i]);
                    let rgb = pose.project(world).map_or([0.5; 3], |p| source.sample(p));
                    for (c, value) in rgb.into_iter().enumerate() {
                        planes[c * plane + y * STANDING_WIDTH + x] = value;
                    }
                }
            }
            cells.extend(planes);
        }
    }
    Some(cells)
}

/// The card's unit axes at `centre`: across (to the picture's right) and
/// upward (the vertical, tilted to face the camera at `camera`).
fn card_axes(camera: [f64; 3], centre: [f64; 3], up: [f64; 3]) -> Option<([f64; 3], [f64; 3])> {
    let towards = pose::normalised(pose::sub(camera, centre))?;
    let upward = pose::normalised(pose::sub(up, towards.map(|t| t * pose::dot(up, towards))))?;
    // Seen from the camera, with `upward` up, this points to the right.
    let across = pose::cross(upward, towards);
    Some((across, upward))
}

/// The picture the cells are sampled from: the part around the board,
/// shrunk where its squares are large.
struct Source {
    image: RgbImage,
    offset: [f64; 2],
    scale: f64,
}

impl Source {
    fn around(image: &RgbImage, corners: [[f32; 2]; 4]) -> Self {
        let xs = corners.map(|c| f64::from(c[0]));
        let ys = corners.map(|c| f64::from(c[1]));
        let (x0, x1) = (
            xs.iter().copied().fold(f64::MAX, f64::min),
            xs.iter().copied().fold(f64::MIN, f64::max),
        );
        let (y0, y1) = (
            ys.iter().copied().fold(f64::MAX, f64::min),
            ys.iter().copied().fold(f64::MIN, f64::max),
        );
        let square = ((x1 - x0) * (y1 - y0)).max(1.0).sqrt() / 8.0;
        let margin = square * (ABOVE + 1.0);
        let clamp_x = |v: f64| v.clamp(0.0, f64::from(image.width())) as u32;
        let clamp_y = |v: f64| v.clamp(0.0, f64::from(image.height())) as u32;
        let (left, top) = (clamp_x(x0 - margin), clamp_y(y0 - margin));
        let (right, bottom) = (clamp_x(x1 + margin), clamp_y(y1 + margin));
        let (width, height) = ((right - left).max(1), (bottom - top).max(1));
        let part = imageops::crop_imm(image, left, top, width, height).to_image();
        let scale = if square > SHRINK_ABOVE {
            SHRINK_ABOVE / square
        } else {
            1.0
        };
        let image = if scale < 1.0 {
            let (w, h) = (
                ((f64::from(width) * scale).round() as u32).max(1),
                ((f64::from(height) * scale).round() as u32).max(1),
            );
            imageops::resize(&part, w, h, imageops::FilterType::Triangle)
        } else {
            part
        };
        Self {
            image,
            offset: [f64::from(left), f64::from(top)],
            scale,
        }
    }

    /// The colour at picture point `p` (continuous coordinates), grey
    /// outside the part kept.
    fn sample(&self, p: [f64; 2]) -> [f32; 3] {
        let x = (p[0] - self.offset[0]) * self.scale;
        let y = (p[1] - self.offset[1]) * self.scale;
        let (w, h) = (
            f64::from(self.image.width()),
            f64::from(self.image.height()),
        );
        if !(0.0..w).contains(&x) || !(0.0..h).contains(&y) {
            return [0.5; 3];
        }
        sample_rgb(&self.image, (x - 0.5) as f32, (y - 0.5) as f32)
            .0
            .map(|v| f32::from(v) / 255.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_cut_for_a_slanted_board_and_see_its_squares() {
        // A checkerboard seen at a slant: dark squares where (row + col) is odd.
        let corners = [
            [180.0f32, 120.0],
            [460.0, 120.0],
            [560.0, 420.0],
            [80.0, 420.0],
        ];
        let to_board = super::super::Homography::from_corners(corners)
            .unwrap()
            .inverse()
            .unwrap();
        let image = RgbImage::from_fn(640, 480, |x, y| {
            let [bx, by] = to_board.apply([x as f32 + 0.5, y as f32 + 0.5]);
            let on_board = (0.0..8.0).contains(&bx) && (0.0..8.0).contains(&by);
            let dark = on_board && (bx as i32 + by as i32) % 2 == 1;
            image::Rgb(if dark { [40, 90, 60] } else { [230, 225, 200] })
        });
        let cells = standing_cells(&image, corners).unwrap();
        assert_eq!(cells.len(), 64 * STANDING_LEN);
        // The card's point just above the square's centre lies on the
        // square itself (nothing stands there): dark for b8, light for a8.
        let centre_row = (ABOVE / (ABOVE + BELOW) * STANDING_HEIGHT as f64) as usize + 1;
        let green_at = |cell: usize| {
            cells[cell * STANDING_LEN
                + STANDING_WIDTH * STANDING_HEIGHT
                + centre_row * STANDING_WIDTH
                + 16]
        };
        assert!(green_at(0) > 0.8, "a8 {}", green_at(0));
        assert!(green_at(1) < 0.5, "b8 {}", green_at(1));
        assert!(green_at(63) > 0.8, "h1 {}", green_at(63));
        assert!(green_at(62) < 0.5, "g1 {}", green_at(62));
    }
}
