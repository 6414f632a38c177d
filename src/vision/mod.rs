//! Finding boards in pictures and cutting them into squares.
//!
//! Everything here works on plain images and returns plain values; nothing
//! knows about the model, HTTP or the command line.

mod checker;
mod colour;
mod decode;
mod deskew;
mod find;
mod frame;
mod grid;
mod homography;
mod lattice;
mod locate;
mod outline;
mod pose;
mod register;
mod standing;
pub mod thumbnail;

use image::RgbImage;

pub use colour::{cell_colours, top_left_is_light};
pub use decode::{decode, DecodeLimits};
pub use deskew::{locate_along, locate_framed_turned, locate_turned, page_slant, Slant};
pub use find::{locate_around, locate_regions, rectify, Finders, FoundBoard, Region};
pub use frame::{locate_framed, locate_framed_beside};
pub use grid::{cut_cell, cut_cells, CellShift, CELL_CHANNELS, CELL_LEN, CELL_SIDE};
pub use homography::{warp_board, Homography};
pub use lattice::{locate_quads, locate_quads_coarse, BoardQuad};
pub(crate) use locate::median;
pub use locate::{
    locate_boards, locate_boards_smoothed, locate_whole_image, BoardBox, INNER_LINES,
};
pub use outline::{locate_outlined, locate_outlined_beside};
pub use pose::CameraPose;
pub use register::{is_printed, register, Registration};
pub use standing::{standing_cells, STANDING_HEIGHT, STANDING_LEN, STANDING_WIDTH};

/// What can go wrong between uploaded bytes and a located board.
#[derive(Clone, Debug, thiserror::Error)]
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

/// The opponent-colour axes of [`Luma32::opponent_from_rgb`].
#[derive(Clone, Copy, Debug)]
pub enum Opponent {
    RedGreen,
    BlueYellow,
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

    /// ITU-R 601 luma, which board finding works on.
    pub fn from_rgb(image: &RgbImage) -> Self {
        let data = image
            .pixels()
            .map(|p| {
                0.299 * f32::from(p.0[0]) + 0.587 * f32::from(p.0[1]) + 0.114 * f32::from(p.0[2])
            })
            .collect();
        Self::new(image.width(), image.height(), data)
    }

    /// One of the two opponent-colour axes (red against green, blue against
    /// yellow), centred on 128: grey is 128 however light it is. Squares that
    /// differ in hue but not in lightness differ here.
    pub fn opponent_from_rgb(image: &RgbImage, axis: Opponent) -> Self {
        let data = image
            .pixels()
            .map(|p| {
                let [r, g, b] = p.0.map(f32::from);
                128.0
                    + match axis {
                        Opponent::RedGreen => r - g,
                        Opponent::BlueYellow => b - (r + g) / 2.0,
                    }
            })
            .collect();
        Self::new(image.width(), image.height(), data)
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

    /// A `width`×`height` picture whose pixel `(x, y)` is this one sampled
    /// where `source` maps that pixel's centre `[x + 0.5, y + 0.5]` (both in
    /// pixel-edge coordinates): a straightened or rectified copy.
    pub fn resampled(
        &self,
        width: u32,
        height: u32,
        source: impl Fn([f32; 2]) -> [f32; 2],
    ) -> Luma32 {
        let mut data = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                let [sx, sy] = source([x as f32 + 0.5, y as f32 + 0.5]);
                data.push(self.sample(sx - 0.5, sy - 0.5));
            }
        }
        Luma32::new(width, height, data)
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
    pub fn block_averaged(&self, block: usize) -> Luma32 {
        if block <= 1 {
            return self.clone();
        }
        let (w, h) = (self.width as usize, self.height as usize);
        let (bw, bh, sums) = self.fold_blocks(block, 0.0, |sum, run| sum + run.iter().sum::<f32>());
        let extent = |i: usize, len: usize| (len - i * block).min(block) as f32;
        let data = sums
            .iter()
            .enumerate()
            .map(|(i, s)| s / (extent(i % bw, w) * extent(i / bw, h)))
            .collect();
        Luma32::new(bw as u32, bh as u32, data)
    }

    /// Each `block`×`block` block reduced to its darkest pixel: a thin dark
    /// line survives the reduction at full strength, where averaging fades it.
    pub fn block_darkest(&self, block: usize) -> Luma32 {
        if block <= 1 {
            return self.clone();
        }
        let (bw, bh, darkest) = self.fold_blocks(block, f32::MAX, |least, run| {
            run.iter().copied().fold(least, f32::min)
        });
        Luma32::new(bw as u32, bh as u32, darkest)
    }

    /// Each `block`×`block` block (a partial last one too) folded into one
    /// value, starting from `init`, a row's run of pixels in the block at a
    /// time: the blocks across, down, and their values in picture order.
    fn fold_blocks(
        &self,
        block: usize,
        init: f32,
        fold: impl Fn(f32, &[f32]) -> f32,
    ) -> (usize, usize, Vec<f32>) {
        let (w, h) = (self.width as usize, self.height as usize);
        let (bw, bh) = (w.div_ceil(block), h.div_ceil(block));
        let mut values = vec![init; bw * bh];
        for (y, row) in self.data.chunks_exact(w).enumerate() {
            let out_row = &mut values[(y / block) * bw..(y / block + 1) * bw];
            for (value, run) in out_row.iter_mut().zip(row.chunks(block)) {
                *value = fold(*value, run);
            }
        }
        (bw, bh, values)
    }

    /// A box blur of the given radius (separable, edges clamped).
    pub fn box_blurred(&self, radius: usize) -> Luma32 {
        let (w, h) = (self.width as usize, self.height as usize);
        let norm = 1.0 / (2 * radius + 1) as f32;
        // Along rows: a running sum over the clamped window.
        let mut across = vec![0.0f32; w * h];
        for (src, dst) in self.data.chunks_exact(w).zip(across.chunks_exact_mut(w)) {
            let at = |i: isize| src[i.clamp(0, w as isize - 1) as usize];
            let r = radius as isize;
            let mut sum: f32 = (-r..=r).map(at).sum();
            for (x, out) in dst.iter_mut().enumerate() {
                *out = sum * norm;
                let x = x as isize;
                sum += at(x + r + 1) - at(x - r);
            }
        }
        // Down columns: whole rows at a time, so the inner loop runs along memory.
        let mut data = vec![0.0f32; w * h];
        for (y, dst) in data.chunks_exact_mut(w).enumerate() {
            for dy in -(radius as isize)..=radius as isize {
                let sy = (y as isize + dy).clamp(0, h as isize - 1) as usize;
                for (out, v) in dst.iter_mut().zip(&across[sy * w..(sy + 1) * w]) {
                    *out += v;
                }
            }
            dst.iter_mut().for_each(|v| *v *= norm);
        }
        Luma32::new(self.width, self.height, data)
    }

    /// The rectangle `x0..x1` × `y0..y1` as an image of its own.
    pub fn cropped(&self, x0: u32, y0: u32, x1: u32, y1: u32) -> Luma32 {
        let w = self.width as usize;
        let data = (y0 as usize..y1 as usize)
            .flat_map(|y| {
                self.data[y * w + x0 as usize..y * w + x1 as usize]
                    .iter()
                    .copied()
            })
            .collect();
        Luma32::new(x1 - x0, y1 - y0, data)
    }

    /// The image with rows and columns swapped.
    pub fn transposed(&self) -> Luma32 {
        const TILE: usize = 32;
        let (w, h) = (self.width as usize, self.height as usize);
        let mut out = vec![0.0f32; w * h];
        for ty in (0..h).step_by(TILE) {
            for tx in (0..w).step_by(TILE) {
                for y in ty..(ty + TILE).min(h) {
                    for x in tx..(tx + TILE).min(w) {
                        out[x * h + y] = self.data[y * w + x];
                    }
                }
            }
        }
        Luma32::new(self.height, self.width, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_blur_averages_clamped_neighbourhoods() {
        // One row of 0,0,9,0,0 over three rows: radius 1 spreads the 9 to
        // its neighbours; the vertical pass keeps constant columns constant.
        let row = [0.0, 0.0, 9.0, 0.0, 0.0];
        let image = Luma32::new(5, 3, row.repeat(3));
        let blurred = image.box_blurred(1);
        for y in 0..3 {
            let got: Vec<f32> = (0..5).map(|x| blurred.get(x, y)).collect();
            assert_eq!(got, [0.0, 3.0, 3.0, 3.0, 0.0]);
        }
        // Clamped edges: a single bright corner pixel keeps 4/9 of itself.
        let mut corner = vec![0.0; 9];
        corner[0] = 9.0;
        let blurred = Luma32::new(3, 3, corner).box_blurred(1);
        assert!((blurred.get(0, 0) - 4.0).abs() < 1e-5);
        assert!((blurred.get(2, 2)).abs() < 1e-5);
    }

    #[test]
    fn an_opponent_colour_axis_shows_a_board_of_equally_light_hues() {
        // Grey and pale cyan squares, 2 grey levels apart in luma.
        let (grey, cyan) = (image::Rgb([204u8, 204, 204]), image::Rgb([168u8, 216, 220]));
        let picture = RgbImage::from_fn(640, 560, |x, y| {
            let (col, row) = ((x as i32 - 80) / 50, (y as i32 - 60) / 50);
            let on_board = x >= 80 && y >= 60 && col < 8 && row < 8;
            match on_board && (col + row) % 2 == 1 {
                true => cyan,
                false => grey,
            }
        });
        assert!(locate_boards(&Luma32::from_rgb(&picture)).is_empty());
        let boards = locate_boards(&Luma32::opponent_from_rgb(&picture, Opponent::RedGreen));
        assert_eq!(boards.len(), 1, "{boards:?}");
        let b = boards[0];
        assert!(
            (b.x - 80.0).abs() <= 2.0 && (b.y - 60.0).abs() <= 2.0,
            "{b:?}"
        );
        assert!((b.width - 400.0).abs() <= 3.0, "{b:?}");
    }

    #[test]
    fn transpose_swaps_axes() {
        let (w, h) = (70, 45);
        let image = Luma32::new(w, h, (0..w * h).map(|i| i as f32).collect());
        let t = image.transposed();
        assert_eq!((t.width, t.height), (h, w));
        for (x, y) in [(0, 0), (69, 0), (3, 44), (69, 44), (33, 17)] {
            assert_eq!(
                t.get(y as usize, x as usize),
                image.get(x as usize, y as usize)
            );
        }
    }
}
