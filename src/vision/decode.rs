//! Decoding uploaded bytes into an image, with bounds on what a file may cost.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits, RgbImage};

use super::VisionError;

/// Bounds on the images that [`decode`] accepts.
#[derive(Clone, Copy, Debug)]
pub struct DecodeLimits {
    /// Largest accepted width × height, checked from the header before decoding.
    pub max_pixels: u64,
    /// Largest accepted width or height.
    pub max_side: u32,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self {
            max_pixels: 40_000_000,
            max_side: 16_384,
        }
    }
}

/// Decodes PNG, JPEG, WebP or GIF bytes (the format is sniffed from the content)
/// into an RGB image. Oversized images are refused from their header, so a
/// decompression bomb costs nothing.
pub fn decode(bytes: &[u8], limits: DecodeLimits) -> Result<RgbImage, VisionError> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| VisionError::NotAnImage(e.to_string()))?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif) => {}
        Some(other) => {
            return Err(VisionError::NotAnImage(format!(
                "unsupported image format {other:?}; use PNG, JPEG, WebP or GIF"
            )))
        }
        None => {
            return Err(VisionError::NotAnImage(
                "not a PNG, JPEG, WebP or GIF image".into(),
            ))
        }
    }
    let (width, height) = reader
        .into_dimensions()
        .map_err(|e| VisionError::NotAnImage(format!("unreadable image header: {e}")))?;
    check_size(width, height, limits)?;

    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| VisionError::NotAnImage(e.to_string()))?;
    let mut decoder_limits = Limits::default();
    decoder_limits.max_image_width = Some(limits.max_side);
    decoder_limits.max_image_height = Some(limits.max_side);
    // RGBA at 4 bytes a pixel, plus decoder scratch space.
    decoder_limits.max_alloc = Some(limits.max_pixels.saturating_mul(8).max(64 << 20));
    reader.limits(decoder_limits);
    let image = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => VisionError::ImageTooLarge {
            width,
            height,
            max_pixels: limits.max_pixels,
        },
        other => VisionError::NotAnImage(format!("corrupt image: {other}")),
    })?;
    Ok(image.to_rgb8())
}

fn check_size(width: u32, height: u32, limits: DecodeLimits) -> Result<(), VisionError> {
    if width == 0 || height == 0 {
        return Err(VisionError::NotAnImage("image has no pixels".into()));
    }
    if u64::from(width) * u64::from(height) > limits.max_pixels
        || width > limits.max_side
        || height > limits.max_side
    {
        return Err(VisionError::ImageTooLarge {
            width,
            height,
            max_pixels: limits.max_pixels,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_bytes(width: u32, height: u32) -> Vec<u8> {
        let image = RgbImage::from_pixel(width, height, image::Rgb([10, 200, 30]));
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn decodes_png() {
        let image = decode(&png_bytes(7, 5), DecodeLimits::default()).unwrap();
        assert_eq!(image.dimensions(), (7, 5));
        assert_eq!(image.get_pixel(3, 2).0, [10, 200, 30]);
    }

    #[test]
    fn refuses_text() {
        let err = decode(b"hello, I am not an image", DecodeLimits::default()).unwrap_err();
        assert!(matches!(err, VisionError::NotAnImage(_)), "{err}");
    }

    #[test]
    fn refuses_truncated_png() {
        let bytes = png_bytes(64, 64);
        let err = decode(&bytes[..bytes.len() / 2], DecodeLimits::default()).unwrap_err();
        assert!(matches!(err, VisionError::NotAnImage(_)), "{err}");
    }

    /// CRC-32 as PNG chunks use it.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn refuses_decompression_bomb_from_header() {
        // A 1×1 PNG whose header claims 50,000×50,000 pixels.
        let mut bytes = png_bytes(1, 1);
        bytes[16..20].copy_from_slice(&50_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&50_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = decode(&bytes, DecodeLimits::default()).unwrap_err();
        assert!(
            matches!(
                err,
                VisionError::ImageTooLarge {
                    width: 50_000,
                    height: 50_000,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn refuses_empty_and_truncated_jpeg() {
        assert!(matches!(
            decode(b"", DecodeLimits::default()),
            Err(VisionError::NotAnImage(_))
        ));
        let image = RgbImage::from_pixel(64, 64, image::Rgb([120, 80, 40]));
        let mut jpeg = Cursor::new(Vec::new());
        image.write_to(&mut jpeg, ImageFormat::Jpeg).unwrap();
        let jpeg = jpeg.into_inner();
        assert!(decode(&jpeg, DecodeLimits::default()).is_ok());
        let err = decode(&jpeg[..jpeg.len() / 3], DecodeLimits::default()).unwrap_err();
        assert!(matches!(err, VisionError::NotAnImage(_)), "{err}");
    }

    #[test]
    fn refuses_too_many_pixels_from_header() {
        let limits = DecodeLimits {
            max_pixels: 100,
            max_side: 16_384,
        };
        let err = decode(&png_bytes(20, 20), limits).unwrap_err();
        assert!(matches!(err, VisionError::ImageTooLarge { .. }), "{err}");
    }
}
