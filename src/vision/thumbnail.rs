//! The small picture of a board that the scan library keeps: the board's box cut
//! from the picture with a narrow margin (so that the recognizer can find
//! the board in it again, as `export-corrections` needs), scaled to at most
//! [`SIZE`] pixels a side, as PNG.

use image::{imageops, RgbImage};

/// The longest side of a thumbnail, in pixels: 32 per square.
pub const SIZE: u32 = 256;

/// The largest thumbnail, in bytes.
pub const MAX_BYTES: usize = 256 * 1024;

/// The margin around the board's box, as a fraction of its side.
const MARGIN: f32 = 0.04;

/// A PNG of the part of `picture` inside `bbox` (`[x, y, w, h]`) and a
/// margin around it, at most [`SIZE`] pixels a side, and at most
/// [`MAX_BYTES`] (halved until it fits).
pub fn thumbnail(picture: &RgbImage, bbox: [u32; 4]) -> Option<Vec<u8>> {
    let [x, y, w, h] = bbox;
    let margin = (w.max(h) as f32 * MARGIN).round() as u32;
    let left = x.saturating_sub(margin);
    let top = y.saturating_sub(margin);
    let right = (x + w + margin).min(picture.width());
    let bottom = (y + h + margin).min(picture.height());
    if right <= left || bottom <= top {
        return None;
    }
    let crop = imageops::crop_imm(picture, left, top, right - left, bottom - top).to_image();
    let mut side = SIZE;
    while side >= 16 {
        let scale = side as f32 / crop.width().max(crop.height()) as f32;
        let small = if scale < 1.0 {
            let width = ((crop.width() as f32 * scale).round() as u32).max(1);
            let height = ((crop.height() as f32 * scale).round() as u32).max(1);
            imageops::resize(&crop, width, height, imageops::FilterType::Triangle)
        } else {
            crop.clone()
        };
        let mut png = Vec::new();
        small
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .ok()?;
        if png.len() <= MAX_BYTES {
            return Some(png);
        }
        side /= 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_cut_with_a_margin_and_scaled() {
        let picture = RgbImage::from_fn(1000, 800, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 0])
        });
        let png = thumbnail(&picture, [100, 100, 600, 600]).unwrap();
        let image = image::load_from_memory(&png).unwrap();
        assert_eq!((image.width(), image.height()), (SIZE, SIZE));
        assert!(png.len() <= MAX_BYTES);
    }

    #[test]
    fn a_box_outside_the_picture_gives_none() {
        let picture = RgbImage::new(100, 100);
        assert!(thumbnail(&picture, [200, 200, 50, 50]).is_none());
    }
}
