//! Cutting a located board into 64 model-sized cells.

use image::RgbImage;

use super::BoardBox;

/// Cells are resampled to `CELL_SIDE × CELL_SIDE` pixels.
pub const CELL_SIDE: usize = 32;

/// Colour channels per cell (RGB).
pub const CELL_CHANNELS: usize = 3;

/// Values per cell: `CELL_CHANNELS` planes of `CELL_SIDE²`.
pub const CELL_LEN: usize = CELL_CHANNELS * CELL_SIDE * CELL_SIDE;

/// Cuts the board into 64 cells in picture order (top row first, left to right).
/// Each cell is `CELL_CHANNELS` planes (R, G, B) of `CELL_SIDE²` values,
/// resampled by area averaging and scaled to `0.0..=1.0`.
pub fn cut_cells(image: &RgbImage, board: &BoardBox) -> Vec<f32> {
    let mut out = Vec::with_capacity(64 * CELL_LEN);
    for index in 0..64 {
        cut_cell(image, board, index, CellShift::NONE, &mut out);
    }
    out
}

/// A cell cut off the grid: its centre moved by `dx`, `dy` (fractions of a
/// cell) and its side scaled by `scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellShift {
    pub dx: f32,
    pub dy: f32,
    pub scale: f32,
}

impl CellShift {
    /// Exactly on the grid.
    pub const NONE: Self = Self::new(0.0, 0.0, 1.0);

    pub const fn new(dx: f32, dy: f32, scale: f32) -> Self {
        Self { dx, dy, scale }
    }
}

/// Appends cell `index` (picture order) of the board, cut with `shift`.
pub fn cut_cell(
    image: &RgbImage,
    board: &BoardBox,
    index: usize,
    shift: CellShift,
    out: &mut Vec<f32>,
) {
    let cell_w = board.width / 8.0;
    let cell_h = board.height / 8.0;
    let (row, col) = ((index / 8) as f32, (index % 8) as f32);
    let (w, h) = (cell_w * shift.scale, cell_h * shift.scale);
    let centre_x = board.x + (col + 0.5 + shift.dx) * cell_w;
    let centre_y = board.y + (row + 0.5 + shift.dy) * cell_h;
    resample_area(image, centre_x - w / 2.0, centre_y - h / 2.0, w, h, out);
}

/// Averages each output pixel over its footprint in the source (edges clamp)
/// and appends the cell as three planes.
fn resample_area(image: &RgbImage, x0: f32, y0: f32, w: f32, h: f32, out: &mut Vec<f32>) {
    let step_x = w / CELL_SIDE as f32;
    let step_y = h / CELL_SIDE as f32;
    let max_x = i64::from(image.width()) - 1;
    let max_y = i64::from(image.height()) - 1;
    let stride = image.width() as usize * 3;
    let raw = image.as_raw();
    // Source column ranges are the same for every output row.
    let columns: Vec<(usize, usize)> = (0..CELL_SIDE)
        .map(|ox| {
            let sx0 = x0 + ox as f32 * step_x;
            span(sx0, sx0 + step_x, max_x)
        })
        .collect();
    let mut planes = [[0.0f32; CELL_SIDE * CELL_SIDE]; CELL_CHANNELS];
    for oy in 0..CELL_SIDE {
        let sy0 = y0 + oy as f32 * step_y;
        let (ya, yb) = span(sy0, sy0 + step_y, max_y);
        for (ox, &(xa, xb)) in columns.iter().enumerate() {
            let mut sum = [0u32; CELL_CHANNELS];
            for y in ya..yb {
                let row = &raw[y * stride..(y + 1) * stride];
                for x in xa..xb {
                    let px = &row[x * 3..x * 3 + 3];
                    sum[0] += u32::from(px[0]);
                    sum[1] += u32::from(px[1]);
                    sum[2] += u32::from(px[2]);
                }
            }
            let scale = 1.0 / (((yb - ya) * (xb - xa)) as f32 * 255.0);
            for (plane, s) in planes.iter_mut().zip(sum) {
                plane[oy * CELL_SIDE + ox] = s as f32 * scale;
            }
        }
    }
    for plane in &planes {
        out.extend_from_slice(plane);
    }
}

/// Whole source pixels whose centres fall in `[a, b)`, at least one, clamped
/// to `0..=max` (so a footprint past the edge repeats the edge pixel).
fn span(a: f32, b: f32, max: i64) -> (usize, usize) {
    let lo = (a - 0.5).ceil() as i64;
    let hi = ((b - 0.5).ceil() as i64).max(lo + 1);
    let lo = lo.clamp(0, max);
    let hi = hi.clamp(lo + 1, max + 1);
    (lo as usize, hi as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_picture_order_and_channel_planes() {
        // 8×8 board of 16-px squares: red is the square's index, green its
        // row, blue a constant.
        let image = RgbImage::from_fn(128, 128, |x, y| {
            let (row, col) = (y / 16, x / 16);
            image::Rgb([(row * 8 + col) as u8, row as u8, 200])
        });
        let board = BoardBox::filling(128.0);
        let cells = cut_cells(&image, &board);
        assert_eq!(cells.len(), 64 * CELL_LEN);
        let plane = CELL_SIDE * CELL_SIDE;
        for (index, cell) in cells.chunks(CELL_LEN).enumerate() {
            let expected = [index as f32, (index / 8) as f32, 200.0];
            for (channel, want) in expected.into_iter().enumerate() {
                for v in &cell[channel * plane..(channel + 1) * plane] {
                    assert!(
                        (v * 255.0 - want).abs() < 1e-3,
                        "cell {index} channel {channel} has {v}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_shifted_cell_samples_its_neighbour() {
        // Columns of 16-px squares whose red is the column index.
        let image = RgbImage::from_fn(128, 128, |x, _| image::Rgb([(x / 16) as u8, 0, 0]));
        let board = BoardBox::filling(128.0);
        let mut cell = Vec::new();
        cut_cell(&image, &board, 2, CellShift::new(0.5, 0.0, 1.0), &mut cell);
        let row = &cell[..CELL_SIDE];
        assert!(row[..CELL_SIDE / 2]
            .iter()
            .all(|v| (v * 255.0 - 2.0).abs() < 1e-3));
        assert!(row[CELL_SIDE / 2..]
            .iter()
            .all(|v| (v * 255.0 - 3.0).abs() < 1e-3));
    }

    #[test]
    fn a_box_past_the_edge_repeats_edge_pixels() {
        let image = RgbImage::from_pixel(16, 16, image::Rgb([255, 0, 0]));
        let board = BoardBox {
            x: -8.0,
            y: -8.0,
            width: 32.0,
            height: 32.0,
            lines_seen: 14,
        };
        let cells = cut_cells(&image, &board);
        assert!(cells
            .chunks(CELL_SIDE * CELL_SIDE)
            .step_by(3)
            .all(|red| red.iter().all(|v| (*v - 1.0).abs() < 1e-6)));
    }
}
