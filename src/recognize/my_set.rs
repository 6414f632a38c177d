//! One user's own physical set: a correction of the standing-piece model
//! learnt from photos of the set in its starting position, as chesscog
//! adapts its classifier to a new set from two photos of it.
//!
//! The correction is a residual linear map on the features the model's head
//! reads, `logits + W·f + b`, fitted by gradient descent on the starting
//! position's 64 labelled squares a photo and held near zero by a ridge
//! penalty, so that a few photos move the model towards the set without
//! undoing what it knows.

use cozy_chess::{Board, Color, Piece, Square};

use super::{
    standing::{StandingOutput, FEATURES},
    RecognizeError, Recognizer, View, CLASSES,
};
use crate::vision::{self, Luma32, Region};

/// Why photos could not teach the recognizer a set.
#[derive(Debug, thiserror::Error)]
pub enum LearnSetError {
    #[error("no photos of the set were given")]
    NoPhotos,
    #[error("photo {index}: {source}")]
    Unreadable {
        index: usize,
        source: RecognizeError,
    },
    #[error("photo {index}: no board seen at an angle (photograph the set from a player's seat)")]
    NoBoard { index: usize },
    #[error(
        "photo {index} does not look like the starting position: {pieces} of the 32 home squares \
         read as pieces and {empty} of the 32 others as empty"
    )]
    NotTheStart {
        index: usize,
        pieces: usize,
        empty: usize,
    },
}

/// A photo must read at least this many of its 32 home squares as
/// pieces, and as many of the others as empty, to be taken for the
/// starting position.
const START_LIKENESS: usize = 26;

impl Recognizer {
    /// Learns the user's own set from `photos` (image bytes) of it in the
    /// starting position, seen from `view` (else from whichever side the
    /// white pieces are nearer).
    pub fn learn_set(
        &self,
        photos: &[&[u8]],
        view: Option<View>,
    ) -> Result<SetAdaptation, LearnSetError> {
        if photos.is_empty() {
            return Err(LearnSetError::NoPhotos);
        }
        let mut outputs = Vec::with_capacity(photos.len());
        for (index, bytes) in photos.iter().enumerate() {
            let index = index + 1;
            let unreadable = |source| LearnSetError::Unreadable { index, source };
            let image = vision::decode(bytes, self.limits).map_err(|e| unreadable(e.into()))?;
            let luma = Luma32::from_rgb(&image);
            let (regions, _) = vision::locate_regions(&image, &luma);
            let corners = regions
                .into_iter()
                .find_map(|region| match region {
                    Region::Quad(quad) => Some(quad.corners),
                    Region::Box(_) => None,
                })
                .ok_or(LearnSetError::NoBoard { index })?;
            let cells =
                vision::standing_cells(&image, corners).ok_or(LearnSetError::NoBoard { index })?;
            let output = self.standing.run(&cells).map_err(unreadable)?;
            let classes = starting_classes(view.unwrap_or_else(|| whites_side(&output)));
            check_start(&output, &classes, index)?;
            outputs.push((output, classes));
        }
        let examples: Vec<Example> = outputs
            .iter()
            .flat_map(|(output, classes)| {
                output
                    .logits
                    .rows()
                    .into_iter()
                    .zip(output.features.rows())
                    .zip(classes)
                    .map(|((logits, features), class)| Example {
                        logits: std::array::from_fn(|i| logits[i]),
                        features: features.to_slice().expect("a standard layout"),
                        class: *class,
                    })
            })
            .collect();
        Ok(SetAdaptation::fit(&examples, photos.len() as u32))
    }
}

/// The view that puts the pieces the model reads as White nearer the
/// bottom of the picture.
fn whites_side(output: &StandingOutput) -> View {
    let mut lean = 0.0f32;
    for (cell, row) in output.logits.rows().into_iter().enumerate() {
        let best = (0..13)
            .max_by(|a, b| row[*a].total_cmp(&row[*b]))
            .unwrap_or(0);
        let Some(piece) = CLASSES[best] else { continue };
        let height = (cell / 8) as f32 - 3.5;
        lean += if piece.is_ascii_uppercase() {
            height
        } else {
            -height
        };
    }
    if lean < 0.0 {
        View::Black
    } else {
        View::White
    }
}

/// Refuses a photo whose squares the model reads too unlike the start.
fn check_start(
    output: &StandingOutput,
    classes: &[usize; 64],
    index: usize,
) -> Result<(), LearnSetError> {
    let (mut pieces, mut empty) = (0, 0);
    for (row, class) in output.logits.rows().into_iter().zip(classes) {
        let best = (0..13)
            .max_by(|a, b| row[*a].total_cmp(&row[*b]))
            .unwrap_or(0);
        match (*class == 0, best == 0) {
            (false, false) => pieces += 1,
            (true, true) => empty += 1,
            _ => {}
        }
    }
    if pieces < START_LIKENESS || empty < START_LIKENESS {
        return Err(LearnSetError::NotTheStart {
            index,
            pieces,
            empty,
        });
    }
    Ok(())
}

/// The correction of the standing-piece model for one set.
#[derive(Clone, Debug, PartialEq)]
pub struct SetAdaptation {
    /// `CLASSES.len()` rows of [`FEATURES`] weights.
    weights: Vec<f32>,
    bias: [f32; 13],
    /// How many photos it was learnt from.
    pub photos: u32,
}

/// One square of a training photo: the model's logits and features for it,
/// and its true class (an index into [`CLASSES`]).
pub struct Example<'a> {
    pub logits: [f32; 13],
    pub features: &'a [f32],
    pub class: usize,
}

/// The ridge penalty on the weights (features scaled to unit mean length).
const RIDGE: f32 = 0.01;
/// Gradient steps and their size.
const STEPS: usize = 300;
const STEP: f32 = 0.5;

/// The bytes' first four, naming the format of [`SetAdaptation::to_bytes`].
const MAGIC: &[u8; 4] = b"BSA1";

impl SetAdaptation {
    /// Fits the correction to `examples` (all the squares of the photos).
    pub fn fit(examples: &[Example<'_>], photos: u32) -> Self {
        let n = examples.len().max(1) as f32;
        let scale = examples
            .iter()
            .map(|e| e.features.iter().map(|v| v * v).sum::<f32>().sqrt())
            .sum::<f32>()
            / n
            + 1e-9;
        let mut weights = vec![0.0f32; 13 * FEATURES];
        let mut bias = [0.0f32; 13];
        let mut gradient = vec![0.0f32; 13 * FEATURES];
        for _ in 0..STEPS {
            gradient.iter_mut().for_each(|g| *g = 0.0);
            let mut bias_gradient = [0.0f32; 13];
            for example in examples {
                let mut logits = example.logits;
                for (class, logit) in logits.iter_mut().enumerate() {
                    let row = &weights[class * FEATURES..(class + 1) * FEATURES];
                    *logit += dot(row, example.features) / scale + bias[class];
                }
                let p = softmax(logits);
                for class in 0..13 {
                    let error = (p[class] - f32::from(class == example.class)) / n;
                    bias_gradient[class] += error;
                    let row = &mut gradient[class * FEATURES..(class + 1) * FEATURES];
                    for (g, f) in row.iter_mut().zip(example.features) {
                        *g += error * f / scale;
                    }
                }
            }
            for (w, g) in weights.iter_mut().zip(&gradient) {
                *w -= STEP * (g + 2.0 * RIDGE * *w);
            }
            for (b, g) in bias.iter_mut().zip(bias_gradient) {
                *b -= STEP * g;
            }
        }
        weights.iter_mut().for_each(|w| *w /= scale);
        Self {
            weights,
            bias,
            photos,
        }
    }

    /// The corrected logits of a square whose model output is `logits`
    /// and `features`.
    pub fn apply(&self, logits: &mut [f32], features: &[f32]) {
        for (class, logit) in logits.iter_mut().enumerate().take(13) {
            let row = &self.weights[class * FEATURES..(class + 1) * FEATURES];
            *logit += dot(row, features) + self.bias[class];
        }
    }

    /// The correction as bytes, to store (little-endian `f32`s after a tag).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(8 + 4 * (self.weights.len() + 13));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&self.photos.to_le_bytes());
        for v in self.weights.iter().chain(&self.bias) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes
    }

    /// The correction [`SetAdaptation::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let expected = 8 + 4 * (13 * FEATURES + 13);
        if bytes.len() != expected || &bytes[..4] != MAGIC {
            return Err(format!(
                "not a set adaptation of this model ({} bytes, expected {expected})",
                bytes.len()
            ));
        }
        let photos = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
        let mut values = bytes[8..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
        let weights: Vec<f32> = values.by_ref().take(13 * FEATURES).collect();
        let bias = std::array::from_fn(|_| values.next().unwrap_or(0.0));
        if weights.iter().chain(&bias).any(|v| !v.is_finite()) {
            return Err("the set adaptation holds a value that is not a number".into());
        }
        Ok(Self {
            weights,
            bias,
            photos,
        })
    }
}

/// The class of each picture cell (top row first) of the starting
/// position seen from `view`.
pub fn starting_classes(view: View) -> [usize; 64] {
    let board = Board::default();
    std::array::from_fn(|cell| {
        let (row, col) = (cell / 8, cell % 8);
        let (rank, file) = match view {
            View::White => (7 - row, col),
            View::Black => (row, 7 - col),
        };
        let square = Square::new(cozy_chess::File::index(file), cozy_chess::Rank::index(rank));
        let letter = board.piece_on(square).map(|piece| {
            let letter = match piece {
                Piece::Pawn => 'p',
                Piece::Knight => 'n',
                Piece::Bishop => 'b',
                Piece::Rook => 'r',
                Piece::Queen => 'q',
                Piece::King => 'k',
            };
            if board.color_on(square) == Some(Color::White) {
                letter.to_ascii_uppercase()
            } else {
                letter
            }
        });
        CLASSES.iter().position(|c| *c == letter).expect("a class")
    })
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn softmax(logits: [f32; 13]) -> [f32; 13] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp = logits.map(|v| (v - max).exp());
    let total: f32 = exp.iter().sum();
    exp.map(|v| v / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starting_position_from_either_side() {
        let white = starting_classes(View::White);
        // a8 is a black rook, e1 the white king, e4 empty.
        assert_eq!(CLASSES[white[0]], Some('r'));
        assert_eq!(CLASSES[white[60]], Some('K'));
        assert_eq!(CLASSES[white[36]], None);
        let black = starting_classes(View::Black);
        // From Black's side the top-left cell is h1, and the king d-file-side.
        assert_eq!(CLASSES[black[0]], Some('R'));
        assert_eq!(CLASSES[black[3]], Some('K'));
        assert_eq!(CLASSES[black[59]], Some('k'));
    }

    #[test]
    fn a_fit_corrects_what_the_model_confuses_and_survives_storage() {
        // The model reads every knight as a bishop; the features tell them
        // apart (feature 0 is lit on knights, feature 1 on bishops).
        let (knight, bishop) = (2, 3);
        let mut knight_features = vec![0.0; FEATURES];
        knight_features[0] = 1.0;
        let mut bishop_features = vec![0.0; FEATURES];
        bishop_features[1] = 1.0;
        let mut confused = [0.0f32; 13];
        confused[bishop] = 3.0;
        let examples: Vec<Example> = (0..10)
            .flat_map(|_| {
                [
                    Example {
                        logits: confused,
                        features: &knight_features,
                        class: knight,
                    },
                    Example {
                        logits: confused,
                        features: &bishop_features,
                        class: bishop,
                    },
                ]
            })
            .collect();
        let adaptation = SetAdaptation::fit(&examples, 2);
        let best = |features: &[f32]| {
            let mut logits = confused;
            adaptation.apply(&mut logits, features);
            (0..13)
                .max_by(|a, b| logits[*a].total_cmp(&logits[*b]))
                .unwrap()
        };
        assert_eq!(best(&knight_features), knight);
        assert_eq!(best(&bishop_features), bishop);

        let stored = SetAdaptation::from_bytes(&adaptation.to_bytes()).unwrap();
        assert_eq!(stored, adaptation);
        assert!(SetAdaptation::from_bytes(b"BSA1 too short").is_err());
        let mut corrupt = adaptation.to_bytes();
        corrupt[8..12].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(SetAdaptation::from_bytes(&corrupt).is_err());
    }
}
