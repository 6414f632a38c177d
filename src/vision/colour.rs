//! The background colour of each square, for spotting highlighted squares.

use image::RgbImage;

use super::homography::Homography;

/// Median colour of a ring just inside each cell's border, where pieces
/// rarely reach; cells in picture order (top row first). `corners` are the
/// board's top-left, top-right, bottom-right and bottom-left in the image.
pub fn cell_colours(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Vec<[f32; 3]>> {
    let to_image = Homography::from_corners(corners)?;
    let (w, h) = (image.width() as f32, image.height() as f32);
    const INSET: f32 = 0.1;
    const PER_SIDE: usize = 8;
    let mut colours = Vec::with_capacity(64);
    for row in 0..8 {
        for col in 0..8 {
            let mut samples: [Vec<f32>; 3] = Default::default();
            for k in 0..PER_SIDE {
                let t = INSET + (1.0 - 2.0 * INSET) * k as f32 / (PER_SIDE - 1) as f32;
                for (dx, dy) in [(t, INSET), (t, 1.0 - INSET), (INSET, t), (1.0 - INSET, t)] {
                    let p = to_image.apply([col as f32 + dx, row as f32 + dy]);
                    let x = p[0].clamp(0.0, w - 1.0) as u32;
                    let y = p[1].clamp(0.0, h - 1.0) as u32;
                    let pixel = image.get_pixel(x, y).0;
                    for channel in 0..3 {
                        samples[channel].push(f32::from(pixel[channel]));
                    }
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
