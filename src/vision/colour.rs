//! The background colour of each square, for spotting highlighted squares.

use image::RgbImage;

use super::{checker, homography::Homography};

/// Median colour of the ring inside each cell ([`checker::ring_points`]);
/// cells in picture order (top row first). `corners` are the
/// board's top-left, top-right, bottom-right and bottom-left in the image.
pub fn cell_colours(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Vec<[f32; 3]>> {
    let to_image = Homography::from_corners(corners)?;
    let (w, h) = (image.width() as f32, image.height() as f32);
    let mut colours = Vec::with_capacity(64);
    for row in 0..8 {
        for col in 0..8 {
            let mut samples: [Vec<f32>; 3] = Default::default();
            for point in checker::ring_points(col, row) {
                let p = to_image.apply(point);
                let x = p[0].clamp(0.0, w - 1.0) as u32;
                let y = p[1].clamp(0.0, h - 1.0) as u32;
                let pixel = image.get_pixel(x, y).0;
                for channel in 0..3 {
                    samples[channel].push(f32::from(pixel[channel]));
                }
            }
            colours.push(samples.map(|mut s| {
                s.sort_by(f32::total_cmp);
                s[s.len() / 2]
            }));
        }
    }
    Some(colours)
}

/// Whether the top-left square is a light one, as it is on any board seen
/// from White's or Black's side; `Some(false)` means the board is turned a
/// quarter. `None` when light and dark squares cannot be told apart (hatched
/// or very pale boards). `colours` are [`cell_colours`], in picture order.
pub fn top_left_is_light(colours: &[[f32; 3]]) -> Option<bool> {
    /// Smallest difference in mean luma (0–255) between the two square colours.
    const MIN_CONTRAST: f32 = 12.0;
    let mut sums = [0.0f32; 2];
    for (index, [r, g, b]) in colours.iter().enumerate() {
        let parity = (index / 8 + index % 8) % 2;
        sums[parity] += 0.299 * r + 0.587 * g + 0.114 * b;
    }
    let difference = (sums[0] - sums[1]) / 32.0;
    (difference.abs() >= MIN_CONTRAST).then_some(difference > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_colours(top_left_light: bool) -> Vec<[f32; 3]> {
        (0..64)
            .map(|i| {
                let light = ((i / 8 + i % 8) % 2 == 0) == top_left_light;
                if light {
                    [238.0, 238.0, 210.0]
                } else {
                    [118.0, 150.0, 86.0]
                }
            })
            .collect()
    }

    #[test]
    fn tells_a_quarter_turn_from_the_square_colours() {
        assert_eq!(top_left_is_light(&board_colours(true)), Some(true));
        assert_eq!(top_left_is_light(&board_colours(false)), Some(false));
        assert_eq!(top_left_is_light(&[[200.0; 3]; 64]), None);
    }
}
