//! The standing-piece classifier: a small CNN that reads the cells of a
//! photographed physical board ([`vision::standing_cells`]), trained on
//! renders of 3D pieces (`training/render_physical.py`,
//! `training/train_standing.py`).
//!
//! The model contract (see `models/README.md`): input `input` of shape
//! `[N, 3, 64, 32]`, RGB planes scaled to `0..=1`, the card standing on a
//! square's centre from 0.7 squares below it to 2.1 above; output `logits`
//! of shape `[N, 13]` over [`CLASSES`](super::CLASSES), and `features` of
//! shape `[N, 768]`, what its head reads (for [`SetAdaptation`]).

use ndarray::ArrayView4;

use super::{
    classifier::TEMPERATURE,
    my_set::SetAdaptation,
    session_pool::{softmax, SessionPool},
    RecognizeError, SquareScores, CLASSES,
};
use crate::vision::{STANDING_HEIGHT, STANDING_LEN, STANDING_WIDTH};

/// The bundled model, built into the binary.
pub const BUNDLED_STANDING_MODEL: &[u8] = include_bytes!("../../models/standing.onnx");

/// The temperature that calibrates the standing model's logits, fitted by
/// `training/train_standing.py` on its validation renders.
const STANDING_TEMPERATURE: f32 = 0.69;

/// Width of the model's `features` output.
pub const FEATURES: usize = 768;

/// The model's output for some cells: one row of logits and one of
/// features a cell.
pub struct StandingOutput {
    pub logits: ndarray::Array2<f32>,
    pub features: ndarray::Array2<f32>,
}

/// The standing-piece classifier over a pool of sessions.
pub struct StandingClassifier {
    pool: SessionPool,
}

impl StandingClassifier {
    /// Loads `model` (ONNX bytes) into `pool_size` single-threaded sessions.
    pub fn new(model: &[u8], pool_size: usize) -> Result<Self, RecognizeError> {
        Ok(Self {
            pool: SessionPool::new(model, pool_size)?,
        })
    }

    /// The model's logits and features for standing cells (any multiple
    /// of one), in one model call.
    pub fn run(&self, cells: &[f32]) -> Result<StandingOutput, RecognizeError> {
        let count = cells.len() / STANDING_LEN;
        let input = ArrayView4::from_shape((count, 3, STANDING_HEIGHT, STANDING_WIDTH), cells)
            .map_err(|e| RecognizeError::Model(e.to_string()))?;
        let mut outputs = self
            .pool
            .outputs(input, &[("logits", CLASSES.len()), ("features", FEATURES)])?;
        let features = outputs.pop().expect("two outputs");
        let logits = outputs.pop().expect("two outputs");
        Ok(StandingOutput { logits, features })
    }

    /// Classifies standing cells, corrected for the user's own set where
    /// one is given.
    ///
    /// The scores are made so that [`SquareScores::calibrated`], which
    /// sharpens by the flat model's temperature, gives this model's
    /// calibrated probabilities: the logits are scaled by the ratio of the
    /// two temperatures before the softmax.
    pub fn classify(
        &self,
        cells: &[f32],
        set: Option<&SetAdaptation>,
    ) -> Result<Vec<SquareScores>, RecognizeError> {
        let StandingOutput { logits, features } = self.run(cells)?;
        let ratio = TEMPERATURE / STANDING_TEMPERATURE;
        Ok(logits
            .rows()
            .into_iter()
            .zip(features.rows())
            .map(|(row, features)| {
                let mut row = row.to_vec();
                if let Some(set) = set {
                    set.apply(&mut row, features.as_slice().expect("a standard layout"));
                }
                SquareScores(softmax(row.into_iter().map(|v| v * ratio)))
            })
            .collect())
    }
}
