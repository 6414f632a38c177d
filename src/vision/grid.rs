//! Cutting a located board into 64 model-sized cells.

use super::{BoardBox, Luma32};

/// Cells are resampled to `CELL_SIDE × CELL_SIDE` pixels.
pub const CELL_SIDE: usize = 32;

/// Cuts the board into 64 cells in picture order (top row first, left to right),
/// each resampled by area averaging to `CELL_SIDE²` values scaled to `0.0..=1.0`.
pub fn cut_cells(image: &Luma32, board: &BoardBox) -> Vec<f32> {
    let mut out = Vec::with_capacity(64 * CELL_SIDE * CELL_SIDE);
    let cell_w = board.width / 8.0;
    let cell_h = board.height / 8.0;
    for row in 0..8 {
        for col in 0..8 {
            let x0 = board.x + col as f32 * cell_w;
            let y0 = board.y + row as f32 * cell_h;
            resample_area(image, x0, y0, cell_w, cell_h, &mut out);
        }
    }
    out
}

/// Averages each output pixel over its footprint in the source (edges clamp).
fn resample_area(image: &Luma32, x0: f32, y0: f32, w: f32, h: f32, out: &mut Vec<f32>) {
    let step_x = w / CELL_SIDE as f32;
    let step_y = h / CELL_SIDE as f32;
    let max_x = image.width as usize - 1;
    let max_y = image.height as usize - 1;
    for oy in 0..CELL_SIDE {
        let sy0 = y0 + oy as f32 * step_y;
        let (ya, yb) = span(sy0, sy0 + step_y);
        for ox in 0..CELL_SIDE {
            let sx0 = x0 + ox as f32 * step_x;
            let (xa, xb) = span(sx0, sx0 + step_x);
            let mut sum = 0.0;
            let mut count = 0.0;
            for sy in ya..yb {
                let y = sy.clamp(0, max_y as i64) as usize;
                for sx in xa..xb {
                    let x = sx.clamp(0, max_x as i64) as usize;
                    sum += image.get(x, y);
                    count += 1.0;
                }
            }
            out.push(sum / count / 255.0);
        }
    }
}

/// Whole source pixels whose centres fall in `[a, b)`, at least one.
fn span(a: f32, b: f32) -> (i64, i64) {
    let lo = (a - 0.5).ceil() as i64;
    let hi = ((b - 0.5).ceil() as i64).max(lo + 1);
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_picture_order() {
        // 8×8 board of 16-px squares, each square's value is its index.
        let side = 128;
        let data = (0..side * side)
            .map(|i| {
                let (x, y) = (i % side, i / side);
                ((y / 16) * 8 + x / 16) as f32
            })
            .collect();
        let image = Luma32::new(side as u32, side as u32, data);
        let board = BoardBox {
            x: 0.0,
            y: 0.0,
            width: 128.0,
            height: 128.0,
            lines_seen: 14,
        };
        let cells = cut_cells(&image, &board);
        assert_eq!(cells.len(), 64 * CELL_SIDE * CELL_SIDE);
        for (index, cell) in cells.chunks(CELL_SIDE * CELL_SIDE).enumerate() {
            for v in cell {
                assert!(
                    (v * 255.0 - index as f32).abs() < 1e-3,
                    "cell {index} has {v}"
                );
            }
        }
    }
}
