//! The square classifier: a small CNN run through ONNX Runtime.
//!
//! The model contract (see `models/README.md`): input `input` of shape
//! `[N, 1, 32, 32]`, luma scaled to `0..=1`; output `logits` of shape `[N, 13]`
//! over [`CLASSES`].

use std::sync::Mutex;

use ndarray::ArrayView4;
use ort::{
    session::{builder::GraphOptimizationLevel, Session},
    value::TensorRef,
};

use super::{runtime, RecognizeError};
use crate::vision::CELL_SIDE;

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
}

/// A pool of sessions over one model, so that several threads can classify at
/// once (an `ort` session runs one call at a time).
pub struct SquareClassifier {
    sessions: Vec<Mutex<Session>>,
}

impl SquareClassifier {
    /// Loads `model` (ONNX bytes) into `pool_size` single-threaded sessions.
    pub fn new(model: &[u8], pool_size: usize) -> Result<Self, RecognizeError> {
        let environment = runtime::environment()?;
        let sessions = (0..pool_size.max(1))
            .map(|_| {
                Session::builder(&environment)
                    .and_then(|b| Ok(b.with_optimization_level(GraphOptimizationLevel::Level3)?))
                    .and_then(|b| Ok(b.with_intra_threads(1)?))
                    .and_then(|mut b| b.commit_from_memory(model))
                    .map(Mutex::new)
                    .map_err(|e| RecognizeError::Model(e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { sessions })
    }

    /// Classifies cells laid out as `cut_cells` returns them (any multiple of
    /// one cell), in one model call.
    pub fn classify(&self, cells: &[f32]) -> Result<Vec<SquareScores>, RecognizeError> {
        let cell_len = CELL_SIDE * CELL_SIDE;
        let count = cells.len() / cell_len;
        let input = ArrayView4::from_shape((count, 1, CELL_SIDE, CELL_SIDE), cells)
            .map_err(|e| RecognizeError::Model(e.to_string()))?;
        let mut session = self.checkout();
        let tensor =
            TensorRef::from_array_view(input).map_err(|e| RecognizeError::Model(e.to_string()))?;
        let outputs = session
            .run(ort::inputs!["input" => tensor])
            .map_err(|e| RecognizeError::Model(e.to_string()))?;
        let logits = outputs["logits"]
            .try_extract_array::<f32>()
            .map_err(|e| RecognizeError::Model(e.to_string()))?;
        if logits.shape() != [count, CLASSES.len()] {
            return Err(RecognizeError::Model(format!(
                "model returned shape {:?}, expected [{count}, {}]",
                logits.shape(),
                CLASSES.len()
            )));
        }
        Ok(logits
            .rows()
            .into_iter()
            .map(|row| SquareScores(softmax(row.iter().copied())))
            .collect())
    }

    /// A free session if there is one, else waits for the first.
    fn checkout(&self) -> std::sync::MutexGuard<'_, Session> {
        for session in &self.sessions {
            if let Ok(guard) = session.try_lock() {
                return guard;
            }
        }
        self.sessions[0]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn softmax(logits: impl Iterator<Item = f32>) -> [f32; 13] {
    let mut out = [0.0f32; 13];
    for (slot, v) in out.iter_mut().zip(logits) {
        *slot = v;
    }
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in &mut out {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in &mut out {
        *v /= sum;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let p = softmax(
            [1.0, 3.0, 2.0]
                .into_iter()
                .chain(std::iter::repeat_n(-50.0, 10)),
        );
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(p[1] > p[2] && p[2] > p[0]);
    }

    #[test]
    fn best_picks_highest_class() {
        let mut scores = [0.0; 13];
        scores[10] = 0.9;
        scores[0] = 0.1;
        assert_eq!(SquareScores(scores).best(), (Some('r'), 0.9));
    }
}
