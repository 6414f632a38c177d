//! From image bytes to positions: locate boards, classify their squares, and
//! assemble each into a FEN with confidences and legality warnings.

mod classifier;
mod position;
mod runtime;

use serde::Serialize;

pub use classifier::{SquareClassifier, SquareScores, BUNDLED_MODEL, CLASSES};
use position::guess_view;
pub use position::{Position, Side, SideSource, SquareReading, View};

use crate::vision::{self, BoardBox, DecodeLimits, Luma32, VisionError};

/// What can go wrong while recognizing a picture.
#[derive(Debug, thiserror::Error)]
pub enum RecognizeError {
    #[error(transparent)]
    Vision(#[from] VisionError),
    #[error("no chessboard found in the image")]
    NoBoardFound,
    #[error("{0}")]
    Runtime(String),
    #[error("square classifier failed: {0}")]
    Model(String),
}

/// What the caller knows that the picture may not show.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecognizeOptions {
    /// Side to move; White when not given.
    pub side_to_move: Option<Side>,
    /// Which side is at the bottom; guessed from the pieces when not given.
    pub view: Option<View>,
}

/// One recognized board, shaped as the API reports it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardReading {
    pub fen: String,
    pub board_fen: String,
    pub orientation: View,
    pub side_to_move: Side,
    pub side_to_move_source: SideSource,
    /// Probability that every square is right.
    pub confidence: f32,
    /// `[x, y, width, height]` in image pixels.
    #[serde(rename = "box")]
    pub bbox: [u32; 4],
    pub squares: Vec<SquareReading>,
    pub legal: bool,
    pub warnings: Vec<String>,
    pub links: Links,
}

/// Where to look at the position on lichess.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Links {
    pub lichess_analysis: String,
    pub lichess_editor: String,
}

impl Links {
    pub fn for_fen(fen: &str) -> Self {
        let path = fen.replace(' ', "_");
        Self {
            lichess_analysis: format!("https://lichess.org/analysis/{path}"),
            lichess_editor: format!("https://lichess.org/editor/{path}"),
        }
    }
}

/// The whole recognition pipeline around one loaded model.
pub struct Recognizer {
    classifier: SquareClassifier,
    limits: DecodeLimits,
}

impl Recognizer {
    /// A recognizer over the model built into the binary.
    pub fn bundled(pool_size: usize, limits: DecodeLimits) -> Result<Self, RecognizeError> {
        Self::with_model(BUNDLED_MODEL, pool_size, limits)
    }

    /// A recognizer over the given ONNX model bytes.
    pub fn with_model(
        model: &[u8],
        pool_size: usize,
        limits: DecodeLimits,
    ) -> Result<Self, RecognizeError> {
        Ok(Self {
            classifier: SquareClassifier::new(model, pool_size)?,
            limits,
        })
    }

    /// Decodes an image and reads every board in it, largest first.
    pub fn recognize(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        let image = vision::decode(bytes, self.limits)?;
        self.recognize_image(&Luma32::from_rgb(&image), options)
    }

    /// Reads every board in a decoded image.
    pub fn recognize_image(
        &self,
        image: &Luma32,
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        let boards = vision::locate_boards(image);
        if boards.is_empty() {
            return Err(RecognizeError::NoBoardFound);
        }
        let cells: Vec<f32> = boards
            .iter()
            .flat_map(|board| vision::cut_cells(image, board))
            .collect();
        let scores = self.classifier.classify(&cells)?;
        Ok(boards
            .iter()
            .zip(scores.chunks(64))
            .map(|(board, scores)| read_board(board, scores, options))
            .collect())
    }
}

fn read_board(
    board: &BoardBox,
    scores: &[SquareScores],
    options: &RecognizeOptions,
) -> BoardReading {
    let view = options.view.unwrap_or_else(|| guess_view(scores));
    let position = Position::from_picture(scores, view, options.side_to_move);
    let warnings = position.legality_warnings();
    let fen = position.fen();
    BoardReading {
        links: Links::for_fen(&fen),
        board_fen: position.board_fen(),
        fen,
        orientation: view,
        side_to_move: position.side_to_move,
        side_to_move_source: position.side_to_move_source,
        confidence: position.confidence(),
        bbox: [
            board.x.round() as u32,
            board.y.round() as u32,
            board.width.round() as u32,
            board.height.round() as u32,
        ],
        legal: warnings.is_empty(),
        warnings,
        squares: position.squares,
    }
}
