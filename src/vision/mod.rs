//! Finding boards in pictures and cutting them into squares.
//!
//! Everything here works on plain images and returns plain values; nothing
//! knows about the model, HTTP or the command line.

mod colour;
mod decode;
mod grid;
mod homography;
mod lattice;
mod locate;

use image::{GrayImage, RgbImage};

pub use colour::cell_colours;
pub use decode::{decode, DecodeLimits};
pub use grid::{cut_cells, CELL_SIDE};
pub use homography::warp_board;
pub use lattice::{locate_quads, BoardQuad};
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

    /// Bilinear sample at pixel coordinates (pixel centres at integers),
    /// clamped at the edges.
    pub fn sample(&self, x: f32, y: f32) -> f32 {
        let max_x = self.width as f32 - 1.0;
        let max_y = self.height as f32 - 1.0;
        let (x, y) = (x.clamp(0.0, max_x), y.clamp(0.0, max_y));
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(max_x as usize), (y0 + 1).min(max_y as usize));
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let top = self.get(x0, y0) * (1.0 - fx) + self.get(x1, y0) * fx;
        let bottom = self.get(x0, y1) * (1.0 - fx) + self.get(x1, y1) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// A copy scaled by `scale` (≤ 1): whole blocks are averaged first,
    /// then the rest is sampled bilinearly, so small copies do not alias.
    pub fn resized(&self, scale: f32) -> Luma32 {
        if scale >= 1.0 {
            return self.clone();
        }
        let block = (1.0 / scale).floor().max(1.0) as usize;
        let shrunk = self.block_averaged(block);
        let w = ((self.width as f32 * scale).round() as u32).max(1);
        let h = ((self.height as f32 * scale).round() as u32).max(1);
        let (sx, sy) = (
            shrunk.width as f32 / w as f32,
            shrunk.height as f32 / h as f32,
        );
        let mut data = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                data.push(shrunk.sample((x as f32 + 0.5) * sx - 0.5, (y as f32 + 0.5) * sy - 0.5));
            }
        }
        Luma32::new(w, h, data)
    }

    /// Averages `block × block` tiles (a partial last tile is averaged too).
    fn block_averaged(&self, block: usize) -> Luma32 {
        if block <= 1 {
            return self.clone();
        }
        let (w, h) = (self.width as usize, self.height as usize);
        let (bw, bh) = (w.div_ceil(block), h.div_ceil(block));
        let mut sums = vec![0.0f32; bw * bh];
        let mut counts = vec![0.0f32; bw * bh];
        for y in 0..h {
            let row = &self.data[y * w..(y + 1) * w];
            let out_row = (y / block) * bw;
            for (x, v) in row.iter().enumerate() {
                sums[out_row + x / block] += v;
                counts[out_row + x / block] += 1.0;
            }
        }
        let data = sums.iter().zip(&counts).map(|(s, c)| s / c).collect();
        Luma32::new(bw as u32, bh as u32, data)
    }

    /// A box blur of the given radius (separable, edges clamped).
    pub fn box_blurred(&self, radius: usize) -> Luma32 {
        let (w, h) = (self.width as usize, self.height as usize);
        let pass = |src: &[f32], w: usize, h: usize| -> Vec<f32> {
            // Blurs along rows, writing the result transposed.
            let mut out = vec![0.0; w * h];
            let r = radius as isize;
            for y in 0..h {
                let row = &src[y * w..(y + 1) * w];
                for x in 0..w {
                    let mut sum = 0.0;
                    for dx in -r..=r {
                        sum += row[(x as isize + dx).clamp(0, w as isize - 1) as usize];
                    }
                    out[x * h + y] = sum / (2 * radius + 1) as f32;
                }
            }
            out
        };
        let once = pass(&self.data, w, h);
        let twice = pass(&once, h, w);
        Luma32::new(self.width, self.height, twice)
    }
}
