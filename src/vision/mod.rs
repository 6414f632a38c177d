//! Finding boards in pictures and cutting them into squares.
//!
//! Everything here works on plain images and returns plain values; nothing
//! knows about the model, HTTP or the command line.

mod decode;
mod grid;
mod locate;

use image::{GrayImage, RgbImage};

pub use decode::{decode, DecodeLimits};
pub use grid::{cut_cells, CELL_SIDE};
pub use locate::{locate_boards, BoardBox};

/// What can go wrong between uploaded bytes and a located board.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("not an image: {0}")]
    NotAnImage(String),
    #[error("image is {width}×{height}, over the limit of {max_pixels} pixels")]
    ImageTooLarge {
        width: u32,
        height: u32,
        max_pixels: u64,
    },
}

/// A luminance image in `0.0..=255.0`, the form every later stage reads.
#[derive(Clone, Debug)]
pub struct Luma32 {
    pub width: u32,
    pub height: u32,
    /// Row-major, `width × height` values.
    pub data: Vec<f32>,
}

impl Luma32 {
    pub fn new(width: u32, height: u32, data: Vec<f32>) -> Self {
        assert_eq!(data.len(), width as usize * height as usize);
        Self {
            width,
            height,
            data,
        }
    }

    /// ITU-R 601 luma, the greyscale the classifier was trained on.
    pub fn from_rgb(image: &RgbImage) -> Self {
        let data = image
            .pixels()
            .map(|p| {
                0.299 * f32::from(p.0[0]) + 0.587 * f32::from(p.0[1]) + 0.114 * f32::from(p.0[2])
            })
            .collect();
        Self::new(image.width(), image.height(), data)
    }

    pub fn to_gray8(&self) -> GrayImage {
        let bytes = self
            .data
            .iter()
            .map(|v| v.round().clamp(0.0, 255.0) as u8)
            .collect();
        GrayImage::from_raw(self.width, self.height, bytes).expect("size matches")
    }

    fn get(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width as usize + x]
    }
}
