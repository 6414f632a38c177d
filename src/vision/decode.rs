//! Decoding uploaded bytes into an image, with bounds on what a file may cost.
//!
//! Every step has explicit limits: the format sniff and the header pass run
//! under [`HEADER_ALLOC`], the full decode under a budget sized from the
//! pixel limit. PNGs are decoded with the `png` crate directly so that the
//! metadata the pipeline never uses (ICC profiles, text chunks, both
//! compressed) is skipped rather than inflated. A GIF's size is that of its
//! first frame where the frame reaches past the logical screen.

use std::io::Cursor;

use image::{DynamicImage, ImageBuffer, ImageFormat, ImageReader, Limits, RgbImage};

use super::VisionError;

/// Memory the header pass may allocate: headers are small.
const HEADER_ALLOC: u64 = 8 << 20;

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

impl DecodeLimits {
    /// Memory a full decode may allocate: RGBA at 4 bytes a pixel, plus the
    /// decoder's scratch space.
    fn decode_alloc(&self) -> u64 {
        self.max_pixels.saturating_mul(8).max(64 << 20)
    }

    fn image_limits(&self, max_alloc: u64) -> Limits {
        let mut limits = Limits::default();
        limits.max_image_width = Some(self.max_side);
        limits.max_image_height = Some(self.max_side);
        limits.max_alloc = Some(max_alloc);
        limits
    }
}

/// Decodes PNG, JPEG, WebP or GIF bytes (the format is sniffed from the content)
/// into an RGB image. Oversized images are refused from their header, so a
/// decompression bomb costs nothing.
pub fn decode(bytes: &[u8], limits: DecodeLimits) -> Result<RgbImage, VisionError> {
    let format = sniff(bytes)?;
    if format == ImageFormat::Png {
        return decode_png(bytes, limits);
    }
    let mut header = reader(bytes, format);
    header.limits(limits.image_limits(HEADER_ALLOC));
    let (mut width, mut height) = header
        .into_dimensions()
        .map_err(|e| VisionError::NotAnImage(format!("unreadable image header: {e}")))?;
    if format == ImageFormat::Gif {
        (width, height) = gif_extent(bytes).unwrap_or((width, height));
    }
    check_size(width, height, limits)?;

    let mut reader = reader(bytes, format);
    reader.limits(limits.image_limits(limits.decode_alloc()));
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

/// The format of `bytes`, when it is one boardscan reads.
fn sniff(bytes: &[u8]) -> Result<ImageFormat, VisionError> {
    match image::guess_format(bytes) {
        Ok(
            format @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif),
        ) => Ok(format),
        Ok(other) => Err(VisionError::NotAnImage(format!(
            "unsupported image format {other:?}; use PNG, JPEG, WebP or GIF"
        ))),
        Err(_) => Err(VisionError::NotAnImage(
            "not a PNG, JPEG, WebP or GIF image".into(),
        )),
    }
}

fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    ImageReader::with_format(Cursor::new(bytes), format)
}

/// The extent of a GIF's logical screen and its first frame together, read
/// from the frame's descriptor without decoding it.
fn gif_extent(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut options = gif::DecodeOptions::new();
    options.set_memory_limit(gif::MemoryLimit::Bytes(
        std::num::NonZeroU64::new(HEADER_ALLOC).expect("non-zero"),
    ));
    let mut decoder = options.read_info(Cursor::new(bytes)).ok()?;
    let (screen_width, screen_height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let frame = decoder.next_frame_info().ok()??;
    Some((
        screen_width.max(u32::from(frame.left) + u32::from(frame.width)),
        screen_height.max(u32::from(frame.top) + u32::from(frame.height)),
    ))
}

/// Decodes a PNG's first frame, skipping its ICC profile and text chunks.
fn decode_png(bytes: &[u8], limits: DecodeLimits) -> Result<RgbImage, VisionError> {
    let corrupt = |e: png::DecodingError| VisionError::NotAnImage(format!("corrupt image: {e}"));
    let budget = usize::try_from(limits.decode_alloc()).unwrap_or(usize::MAX);
    let mut decoder =
        png::Decoder::new_with_limits(Cursor::new(bytes), png::Limits { bytes: budget });
    decoder.set_ignore_iccp_chunk(true);
    decoder.set_ignore_text_chunk(true);
    let header = decoder
        .read_header_info()
        .map_err(|e| VisionError::NotAnImage(format!("unreadable image header: {e}")))?;
    let (width, height) = (header.width, header.height);
    check_size(width, height, limits)?;
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let too_large = VisionError::ImageTooLarge {
        width,
        height,
        max_pixels: limits.max_pixels,
    };
    let mut reader = decoder.read_info().map_err(|e| match e {
        png::DecodingError::LimitsExceeded => too_large.clone(),
        other => corrupt(other),
    })?;
    let mut buffer = vec![0; reader.output_buffer_size().ok_or(too_large)?];
    let frame = reader.next_frame(&mut buffer).map_err(corrupt)?;
    buffer.truncate(frame.buffer_size());
    let (w, h) = (frame.width, frame.height);
    let image = match frame.color_type {
        png::ColorType::Grayscale => {
            ImageBuffer::from_raw(w, h, buffer).map(DynamicImage::ImageLuma8)
        }
        png::ColorType::GrayscaleAlpha => {
            ImageBuffer::from_raw(w, h, buffer).map(DynamicImage::ImageLumaA8)
        }
        png::ColorType::Rgb => ImageBuffer::from_raw(w, h, buffer).map(DynamicImage::ImageRgb8),
        png::ColorType::Rgba => ImageBuffer::from_raw(w, h, buffer).map(DynamicImage::ImageRgba8),
        png::ColorType::Indexed => None,
    };
    image
        .map(|image| image.to_rgb8())
        .ok_or_else(|| VisionError::NotAnImage("corrupt image: unexpected PNG layout".into()))
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

    /// `png` with a chunk of type `kind` holding `data` inserted after IHDR.
    fn with_chunk(png: &[u8], kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
        chunk.extend_from_slice(kind);
        chunk.extend_from_slice(data);
        chunk.extend_from_slice(&crc32(&chunk[4..]).to_be_bytes());
        let after_ihdr = 8 + 25;
        [&png[..after_ihdr], &chunk, &png[after_ihdr..]].concat()
    }

    /// zlib-compressed zeros, `megabytes` of them.
    fn zlib_zeros(megabytes: usize) -> Vec<u8> {
        use std::io::Write;
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        let block = vec![0u8; 1 << 20];
        for _ in 0..megabytes {
            encoder.write_all(&block).unwrap();
        }
        encoder.finish().unwrap()
    }

    #[test]
    fn compressed_metadata_is_not_inflated() {
        // An ICC profile and a zTXt chunk that each inflate to 600 MiB, more
        // than any decode budget: read, they would cost that memory or fail
        // the image. Skipped, the picture decodes.
        let bomb = zlib_zeros(600);
        let iccp = [b"bomb\0\0".as_slice(), &bomb].concat();
        let ztxt = [b"Comment\0\0".as_slice(), &bomb].concat();
        let png = with_chunk(&png_bytes(9, 4), b"iCCP", &iccp);
        let png = with_chunk(&png, b"zTXt", &ztxt);
        let image = decode(&png, DecodeLimits::default()).unwrap();
        assert_eq!(image.dimensions(), (9, 4));
        assert_eq!(image.get_pixel(8, 3).0, [10, 200, 30]);
    }

    #[test]
    fn a_gif_frame_larger_than_its_screen_is_measured_by_the_frame() {
        // An 8×8 logical screen whose first frame claims 30,000×20,000.
        let mut gif = Vec::new();
        gif.extend_from_slice(b"GIF89a");
        gif.extend_from_slice(&8u16.to_le_bytes());
        gif.extend_from_slice(&8u16.to_le_bytes());
        gif.extend_from_slice(&[0, 0, 0]); // no global palette
        gif.push(0x2c); // image descriptor
        gif.extend_from_slice(&[0, 0, 0, 0]);
        gif.extend_from_slice(&30_000u16.to_le_bytes());
        gif.extend_from_slice(&20_000u16.to_le_bytes());
        gif.push(0x80); // a local palette of two colours
        gif.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
        gif.extend_from_slice(&[2, 2, 0x4c, 0x01, 0, 0x3b]);
        let err = decode(&gif, DecodeLimits::default()).unwrap_err();
        assert!(
            matches!(
                err,
                VisionError::ImageTooLarge {
                    width: 30_000,
                    height: 20_000,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn decodes_grey_and_transparent_pngs() {
        for image in [
            DynamicImage::ImageLuma8(ImageBuffer::from_pixel(3, 2, image::Luma([77]))),
            DynamicImage::ImageRgba8(ImageBuffer::from_pixel(3, 2, image::Rgba([1, 2, 3, 4]))),
            DynamicImage::ImageRgb16(ImageBuffer::from_pixel(
                3,
                2,
                image::Rgb([256 * 9, 0, 65535]),
            )),
        ] {
            let mut out = Cursor::new(Vec::new());
            image.write_to(&mut out, ImageFormat::Png).unwrap();
            let decoded = decode(&out.into_inner(), DecodeLimits::default()).unwrap();
            assert_eq!(decoded, image.to_rgb8());
        }
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
