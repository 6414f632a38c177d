//! Checks that a found board's grid lies on its squares, and moves it there.
//!
//! Every chessboard has a light square at its top left, whichever side is at
//! the bottom. A grid placed a file or a rank off has a dark one there, and a
//! grid placed two off (a crop cut at the board's edge, with no frame to stop
//! the finder) reaches out of the picture. Both are seen from the squares'
//! own tone, which works on hatched and halftone squares as on flat ones:
//! each cell's mean lightness along a band inside its border, where pieces
//! rarely reach. A grid found off its squares is moved by whole squares to
//! where the pattern fits; where no placement fits, the board is reported as
//! misplaced, so that its reading is not trusted.

use super::{BoardBox, Luma32};

/// How a board's grid sits on its squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// On its squares, or nothing says otherwise (squares of one tone).
    Fits,
    /// Moved by whole squares (files right, ranks down) onto its squares.
    Moved { files: i32, ranks: i32 },
    /// Off its squares, and no nearby placement fits: the reading is not to
    /// be trusted.
    Misplaced,
}

/// Parity contrast (luma, 0–255) below which the squares' tones do not tell
/// light from dark.
const MIN_CONTRAST: f32 = 10.0;

/// A grid reaching this many cells past the picture's edge is off its board.
const MAX_OVERHANG_CELLS: f32 = 0.35;

/// Of the 64 cells, this many must lie on their parity's side of the midway
/// tone for a moved grid to count as fitting.
const MIN_AGREEING: usize = 52;

/// How far (in squares, along each axis) a misplaced grid is looked for.
const MAX_SHIFT: i32 = 2;

/// Checks `board` against the squares of `luma` and moves it onto them where
/// it lies off.
pub fn register(luma: &Luma32, board: BoardBox) -> (BoardBox, Registration) {
    let here = Fit::of(luma, &board);
    let off = here.contrast <= -MIN_CONTRAST || overhang(luma, &board) > MAX_OVERHANG_CELLS;
    if !off {
        return (board, Registration::Fits);
    }
    let (cw, ch) = (board.width / 8.0, board.height / 8.0);
    let mut best: Option<(usize, i32, BoardBox, i32, i32)> = None;
    for ranks in -MAX_SHIFT..=MAX_SHIFT {
        for files in -MAX_SHIFT..=MAX_SHIFT {
            if files == 0 && ranks == 0 {
                continue;
            }
            let moved = BoardBox {
                x: board.x + files as f32 * cw,
                y: board.y + ranks as f32 * ch,
                ..board
            };
            if overhang(luma, &moved) > MAX_OVERHANG_CELLS {
                continue;
            }
            let fit = Fit::of(luma, &moved);
            if fit.contrast < MIN_CONTRAST || fit.agreeing < MIN_AGREEING {
                continue;
            }
            let distance = files.abs() + ranks.abs();
            let better = best.as_ref().is_none_or(|&(agreeing, d, ..)| {
                fit.agreeing > agreeing || (fit.agreeing == agreeing && distance < d)
            });
            if better {
                best = Some((fit.agreeing, distance, moved, files, ranks));
            }
        }
    }
    match best {
        Some((.., moved, files, ranks)) => (moved, Registration::Moved { files, ranks }),
        None => (board, Registration::Misplaced),
    }
}

/// How well a grid's cells alternate in tone.
struct Fit {
    /// Median tone of the cells of the top-left parity less that of the
    /// others: positive where a light square is at the top left.
    contrast: f32,
    /// Cells on their parity's side of the midway tone, light at the top left.
    agreeing: usize,
}

impl Fit {
    fn of(luma: &Luma32, board: &BoardBox) -> Self {
        let tones: Vec<f32> = (0..64)
            .map(|i| band_mean(luma, board, i % 8, i / 8))
            .collect();
        let parity = |p: usize| -> Vec<f32> {
            (0..64)
                .filter(|i| (i / 8 + i % 8) % 2 == p)
                .map(|i| tones[i])
                .collect()
        };
        let (light, dark) = (median_of(parity(0)), median_of(parity(1)));
        let midway = (light + dark) / 2.0;
        let agreeing = (0..64)
            .filter(|i| ((i / 8 + i % 8) % 2 == 0) == (tones[*i] > midway))
            .count();
        Fit {
            contrast: light - dark,
            agreeing,
        }
    }
}

/// Spread (standard deviation of the band's lightness) that a hatched or
/// screened dark square shows at least, and a plain light one less than half.
const MIN_PRINTED_SPREAD: f32 = 18.0;

/// Whether `board`'s dark squares are hatched or screened (a halftone of
/// dots) on plain light ones, as printed diagrams are and screenshots'
/// flat squares are not.
pub fn is_printed(luma: &Luma32, board: &BoardBox) -> bool {
    let tones: Vec<(f32, f32)> = (0..64)
        .map(|i| band_tone(luma, board, i % 8, i / 8))
        .collect();
    let parity = |p: usize, pick: fn(&(f32, f32)) -> f32| -> f32 {
        median_of(
            (0..64)
                .filter(|i| (i / 8 + i % 8) % 2 == p)
                .map(|i| pick(&tones[i]))
                .collect(),
        )
    };
    let (mean, spread) = (|t: &(f32, f32)| t.0, |t: &(f32, f32)| t.1);
    let (light, dark) = if parity(0, mean) >= parity(1, mean) {
        (0, 1)
    } else {
        (1, 0)
    };
    (parity(light, mean) - parity(dark, mean)).abs() >= MIN_CONTRAST
        && parity(dark, spread) >= MIN_PRINTED_SPREAD
        && parity(light, spread) * 2.0 < parity(dark, spread)
}

/// Mean lightness of the band just inside the border of the cell at `col`,
/// `row` ([`band_tone`]).
fn band_mean(luma: &Luma32, board: &BoardBox, col: usize, row: usize) -> f32 {
    band_tone(luma, board, col, row).0
}

/// Mean and standard deviation of the lightness of the band just inside the
/// border of the cell at `col`, `row`: sampled on a 10×10 lattice, keeping
/// the points within 0.3 of a cell from its edge, where hatching or a
/// halftone shows and pieces rarely reach.
fn band_tone(luma: &Luma32, board: &BoardBox, col: usize, row: usize) -> (f32, f32) {
    const STEPS: usize = 10;
    const BAND: f32 = 0.3;
    let (cw, ch) = (board.width / 8.0, board.height / 8.0);
    let (mut sum, mut squares, mut count) = (0.0, 0.0, 0);
    for j in 0..STEPS {
        let v = (j as f32 + 0.5) / STEPS as f32;
        for i in 0..STEPS {
            let u = (i as f32 + 0.5) / STEPS as f32;
            if u.min(1.0 - u).min(v).min(1.0 - v) >= BAND {
                continue;
            }
            let x = board.x + (col as f32 + u) * cw;
            let y = board.y + (row as f32 + v) * ch;
            let value = luma.sample(x, y);
            sum += value;
            squares += value * value;
            count += 1;
        }
    }
    let mean = sum / count as f32;
    (mean, (squares / count as f32 - mean * mean).max(0.0).sqrt())
}

fn median_of(mut values: Vec<f32>) -> f32 {
    values.sort_by(f32::total_cmp);
    values[values.len() / 2]
}

/// How far the grid reaches past the picture's edges, in cells: the most on
/// any side.
fn overhang(luma: &Luma32, board: &BoardBox) -> f32 {
    let (cw, ch) = (board.width / 8.0, board.height / 8.0);
    let (w, h) = (luma.width as f32, luma.height as f32);
    [
        -board.x / cw,
        (board.x + board.width - w) / cw,
        -board.y / ch,
        (board.y + board.height - h) / ch,
    ]
    .into_iter()
    .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture `w`×`h` of paper at 245 holding a board of `square`-pixel
    /// squares at (`x`, `y`), its dark squares hatched (every third diagonal
    /// of pixels inked), cut off where it leaves the picture.
    fn hatched_board(w: usize, h: usize, x: i32, y: i32, square: i32) -> Luma32 {
        let mut data = vec![245.0; w * h];
        for py in 0..h as i32 {
            for px in 0..w as i32 {
                let (bx, by) = (px - x, py - y);
                if !(0..8 * square).contains(&bx) || !(0..8 * square).contains(&by) {
                    continue;
                }
                let dark = (bx / square + by / square) % 2 == 1;
                if dark && (px + py) % 3 == 0 {
                    data[py as usize * w + px as usize] = 20.0;
                }
            }
        }
        Luma32::new(w as u32, h as u32, data)
    }

    fn boxed(x: f32, y: f32, side: f32) -> BoardBox {
        BoardBox::unlined(x, y, side, side)
    }

    #[test]
    fn a_grid_on_its_squares_stays() {
        let luma = hatched_board(420, 420, 10, 10, 50);
        let board = boxed(10.0, 10.0, 400.0);
        assert_eq!(register(&luma, board), (board, Registration::Fits));
    }

    #[test]
    fn a_grid_a_file_off_is_moved_onto_the_squares() {
        // A crop cut at the board's edge: the board fills the picture, and a
        // grid a file to the left (its first column over nothing) is moved.
        let luma = hatched_board(400, 400, 0, 0, 50);
        let (moved, registration) = register(&luma, boxed(-50.0, 0.0, 400.0));
        assert_eq!(registration, Registration::Moved { files: 1, ranks: 0 });
        assert_eq!((moved.x, moved.y), (0.0, 0.0));
    }

    #[test]
    fn a_grid_two_ranks_down_and_out_of_the_picture_is_moved_up() {
        let luma = hatched_board(400, 400, 0, 0, 50);
        let (moved, registration) = register(&luma, boxed(0.0, 100.0, 400.0));
        assert_eq!(
            registration,
            Registration::Moved {
                files: 0,
                ranks: -2
            }
        );
        assert_eq!((moved.x, moved.y), (0.0, 0.0));
    }

    #[test]
    fn a_grid_off_a_board_cut_short_is_misplaced() {
        // Half a file of the board is cut away: no placement of a full grid
        // lies on 64 squares inside the picture.
        let luma = hatched_board(375, 400, -25, 0, 50);
        let (_, registration) = register(&luma, boxed(-25.0 + 50.0, 0.0, 400.0));
        assert_eq!(registration, Registration::Misplaced);
    }

    #[test]
    fn hatched_squares_are_printed_and_flat_ones_are_not() {
        let board = boxed(10.0, 10.0, 400.0);
        assert!(is_printed(&hatched_board(420, 420, 10, 10, 50), &board));
        let flat: Vec<f32> = (0..420 * 420_i32)
            .map(|i| {
                let (x, y) = (i % 420 - 10, i / 420 - 10);
                if (x / 50 + y / 50) % 2 == 1 {
                    120.0
                } else {
                    235.0
                }
            })
            .collect();
        assert!(!is_printed(&Luma32::new(420, 420, flat), &board));
    }

    #[test]
    fn squares_of_one_tone_say_nothing() {
        let luma = Luma32::new(100, 100, vec![200.0; 100 * 100]);
        let board = boxed(0.0, 0.0, 100.0);
        assert_eq!(register(&luma, board), (board, Registration::Fits));
    }
}
