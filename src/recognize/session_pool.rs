//! A pool of ONNX Runtime sessions over one model, so that several threads
//! can run it at once (an `ort` session runs one call at a time).

use std::sync::{Mutex, MutexGuard};

use ndarray::{Array2, ArrayView4};
use ort::{
    session::{builder::GraphOptimizationLevel, Session},
    value::TensorRef,
};

use super::{runtime, RecognizeError};

pub struct SessionPool {
    sessions: Vec<Mutex<Session>>,
}

impl SessionPool {
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

    /// Runs the model on `input` (named `input`) and returns its `logits`,
    /// checked to be `[N, classes]`.
    pub fn logits(
        &self,
        input: ArrayView4<'_, f32>,
        classes: usize,
    ) -> Result<Array2<f32>, RecognizeError> {
        let mut outputs = self.outputs(input, &[("logits", classes)])?;
        Ok(outputs.remove(0))
    }

    /// Runs the model on `input` (named `input`) and returns the outputs
    /// named by `wanted`, each checked to be `[N, width]`.
    pub fn outputs(
        &self,
        input: ArrayView4<'_, f32>,
        wanted: &[(&str, usize)],
    ) -> Result<Vec<Array2<f32>>, RecognizeError> {
        let count = input.shape()[0];
        let model_error = |e: ort::Error| RecognizeError::Model(e.to_string());
        let mut session = self.checkout();
        let tensor = TensorRef::from_array_view(input).map_err(model_error)?;
        let outputs = session
            .run(ort::inputs!["input" => tensor])
            .map_err(model_error)?;
        wanted
            .iter()
            .map(|(name, width)| {
                let output = outputs
                    .get(name)
                    .ok_or_else(|| RecognizeError::Model(format!("model has no output {name:?}")))?
                    .try_extract_array::<f32>()
                    .map_err(model_error)?;
                if output.shape() != [count, *width] {
                    return Err(RecognizeError::Model(format!(
                        "model returned {name} of shape {:?}, expected [{count}, {width}]",
                        output.shape()
                    )));
                }
                output
                    .into_dimensionality()
                    .map(|o| o.to_owned())
                    .map_err(|e| RecognizeError::Model(e.to_string()))
            })
            .collect()
    }

    /// A free session if there is one, else waits for the first.
    fn checkout(&self) -> MutexGuard<'_, Session> {
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

/// Probabilities from logits.
pub fn softmax<const N: usize>(logits: impl Iterator<Item = f32>) -> [f32; N] {
    let mut out = [0.0f32; N];
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
        let p: [f32; 13] = softmax(
            [1.0, 3.0, 2.0]
                .into_iter()
                .chain(std::iter::repeat_n(-50.0, 10)),
        );
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(p[1] > p[2] && p[2] > p[0]);
    }
}
