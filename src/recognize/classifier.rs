//! The square classifier: a small CNN run through ONNX Runtime.
//!
//! The model contract (see `models/README.md`): input `input` of shape
//! `[N, 3, 32, 32]`, RGB planes scaled to `0..=1`; output `logits` of shape
//! `[N, 13]` over [`CLASSES`].

use ndarray::ArrayView4;

use super::{
    session_pool::{softmax, SessionPool},
    RecognizeError,
};
use crate::vision::{CELL_CHANNELS, CELL_LEN, CELL_SIDE};

/// The bundled model, built into the binary.
pub const BUNDLED_MODEL: &[u8] = include_bytes!("../../models/squares.onnx");

/// The model's classes in output order: `None` is an empty square, otherwise
/// the FEN letter of the piece.
pub const CLASSES: [Option<char>; 13] = [
    None,
    Some('P'),
    Some('N'),
    Some('B'),
    Some('R'),
    Some('Q'),
    Some('K'),
    Some('p'),
    Some('n'),
    Some('b'),
    Some('r'),
    Some('q'),
    Some('k'),
];

/// Divides the model's logits before the probabilities that are reported.
/// Training with label smoothing caps the top probability near 0.95, so raw
/// probabilities undersell the model (a perfectly read board would report
/// 0.95^64 = 4 %). Fitted by maximum likelihood by `training/calibrate.py`
/// on the held-out designs (0.550; calibration error 0.046 raw, 0.001 with
/// it): the validation split of the v5 fine-tune is half harsh real-book
/// prints and fits 0.656, which leaves no real board at 0.9 (models/README.md,
/// "Confidences"). Refit it whenever the model changes.
pub const TEMPERATURE: f32 = 0.55;

/// One classified square: the class probabilities, in [`CLASSES`] order.
#[derive(Clone, Debug, PartialEq)]
pub struct SquareScores(pub [f32; 13]);

impl SquareScores {
    /// The most likely class and its probability.
    pub fn best(&self) -> (Option<char>, f32) {
        let (index, p) = self
            .0
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("13 classes");
        (CLASSES[index], *p)
    }

    /// Probability of one class.
    pub fn probability(&self, piece: Option<char>) -> f32 {
        CLASSES
            .iter()
            .position(|c| *c == piece)
            .map_or(0.0, |i| self.0[i])
    }

    /// Probability of one class at [`TEMPERATURE`]: how often a reading
    /// like this one is right, as reported to the user.
    pub fn calibrated(&self, piece: Option<char>) -> f32 {
        let sharpened = |p: f32| p.powf(1.0 / TEMPERATURE);
        let total: f32 = self.0.iter().copied().map(sharpened).sum();
        sharpened(self.probability(piece)) / total
    }
}

/// The square classifier over a pool of sessions.
pub struct SquareClassifier {
    pool: SessionPool,
}

impl SquareClassifier {
    /// Loads `model` (ONNX bytes) into `pool_size` single-threaded sessions.
    pub fn new(model: &[u8], pool_size: usize) -> Result<Self, RecognizeError> {
        Ok(Self {
            pool: SessionPool::new(model, pool_size)?,
        })
    }

    /// Classifies cells laid out as `cut_cells` returns them (any multiple of
    /// one cell), in one model call.
    pub fn classify(&self, cells: &[f32]) -> Result<Vec<SquareScores>, RecognizeError> {
        let count = cells.len() / CELL_LEN;
        let input = ArrayView4::from_shape((count, CELL_CHANNELS, CELL_SIDE, CELL_SIDE), cells)
            .map_err(|e| RecognizeError::Model(e.to_string()))?;
        let logits = self.pool.logits(input, CLASSES.len())?;
        Ok(logits
            .rows()
            .into_iter()
            .map(|row| SquareScores(softmax(row.iter().copied())))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_picks_highest_class() {
        let mut scores = [0.0; 13];
        scores[10] = 0.9;
        scores[0] = 0.1;
        assert_eq!(SquareScores(scores).best(), (Some('r'), 0.9));
    }

    #[test]
    fn calibration_sharpens_and_keeps_a_distribution() {
        let mut scores = [0.004; 13];
        scores[1] = 0.952;
        let scores = SquareScores(scores);
        let top = scores.calibrated(Some('P'));
        assert!(top > 0.99 && top < 1.0, "{top}");
        let total: f32 = CLASSES.iter().map(|c| scores.calibrated(*c)).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        assert!(scores.calibrated(None) < scores.probability(None));
    }
}
