//! A second look at the squares the classifier is unsure of: each is cut
//! again a little off the grid, as training jittered the cut, and the class
//! probabilities of all the cuts are averaged.

use image::RgbImage;

use super::{RecognizeError, SquareClassifier, SquareScores};
use crate::vision::{self, BoardBox, CellShift, CELL_LEN};

/// A square whose likeliest class has less probability than this is doubtful:
/// looked at again here, and judged by `ghosts`.
pub const DOUBT: f32 = 0.9;

/// The extra cuts: a twentieth of a cell to each side, and a slightly larger one.
const SHIFTS: [CellShift; 5] = [
    CellShift::new(0.05, 0.0, 1.0),
    CellShift::new(-0.05, 0.0, 1.0),
    CellShift::new(0.0, 0.05, 1.0),
    CellShift::new(0.0, -0.05, 1.0),
    CellShift::new(0.0, 0.0, 1.06),
];

/// Where a board's cells are cut from.
pub struct CellSource<'a> {
    pub image: &'a RgbImage,
    pub board: BoardBox,
}

/// Replaces the scores of every doubtful square (`scores` holds 64 per
/// source, in order) by the mean over its on-grid cut and the [`SHIFTS`].
pub fn look_again(
    classifier: &SquareClassifier,
    sources: &[CellSource],
    scores: &mut [SquareScores],
) -> Result<(), RecognizeError> {
    let doubtful: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i].best().1 < DOUBT)
        .collect();
    if doubtful.is_empty() {
        return Ok(());
    }
    let mut cells = Vec::with_capacity(doubtful.len() * SHIFTS.len() * CELL_LEN);
    for &i in &doubtful {
        let source = &sources[i / 64];
        for shift in SHIFTS {
            vision::cut_cell(source.image, &source.board, i % 64, shift, &mut cells);
        }
    }
    let shifted = classifier.classify(&cells)?;
    for (&i, looks) in doubtful.iter().zip(shifted.chunks(SHIFTS.len())) {
        let mut mean = scores[i].0;
        for look in looks {
            for (m, p) in mean.iter_mut().zip(look.0) {
                *m += p;
            }
        }
        let n = (looks.len() + 1) as f32;
        scores[i] = SquareScores(mean.map(|m| m / n));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::{BUNDLED_MODEL, CLASSES};

    #[test]
    fn only_doubtful_squares_are_looked_at_again_on_their_own_board() {
        let classifier = SquareClassifier::new(BUNDLED_MODEL, 1).unwrap();
        let blank = RgbImage::from_pixel(400, 400, image::Rgb([128, 128, 128]));
        let start = image::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/boards/01-pychess-cburnett-lichess-brown-white.png"
        ))
        .unwrap()
        .to_rgb8();
        let board = BoardBox::filling(400.0);
        let sources = [
            CellSource {
                image: &blank,
                board,
            },
            CellSource {
                image: &start,
                board,
            },
        ];
        let mut sure = [0.0; 13];
        sure[0] = 0.95;
        sure[1] = 0.05;
        let mut scores = vec![SquareScores(sure); 128];
        // c7 of the second board, where a black pawn stands: no opinion.
        let c7 = 64 + 10;
        scores[c7] = SquareScores([1.0 / 13.0; 13]);
        look_again(&classifier, &sources, &mut scores).unwrap();
        assert!(scores
            .iter()
            .enumerate()
            .all(|(i, s)| i == c7 || s.0 == sure));
        let pawn = CLASSES.iter().position(|c| *c == Some('p')).unwrap();
        let (best, p) = scores[c7].best();
        assert_eq!(best, Some('p'), "{:?}", scores[c7]);
        assert!(p > 0.7 && scores[c7].0[pawn] == p);
        assert!((scores[c7].0.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
}
