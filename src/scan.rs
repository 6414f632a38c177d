//! The one pipeline step every front end calls: a picture's bytes, its
//! boards, and optionally each legal board's analysis.
//!
//! The CLI's `scan`, `batch` and the HTTP API all go through [`scan`], so
//! recognition and analysis meet here and nowhere else: [`crate::recognize`]
//! never sees the engine. New inputs (PDF pages) and new engines (external
//! UCI processes) join the pipeline at this step.

use serde::Serialize;

use crate::{
    engine::{self, Analysis, AnalysisLimits},
    legality,
    recognize::{BoardReading, RecognizeError, RecognizeOptions, Recognizer},
};

/// What a scan does beyond reading the boards.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    pub recognize: RecognizeOptions,
    /// Analyse each legal board; the boards share these limits' time and
    /// nodes (see [`analyze_boards`]).
    pub analysis: Option<AnalysisLimits>,
}

/// One board of a scanned picture, with its analysis when one was asked for.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ScannedBoard {
    #[serde(flatten)]
    pub reading: BoardReading,
    /// The engine's analysis, when asked for and the position is legal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
}

/// Reads every board in a picture, largest first, and analyses the legal
/// ones when `options.analysis` is set.
pub fn scan(
    recognizer: &Recognizer,
    bytes: &[u8],
    options: &ScanOptions,
) -> Result<Vec<ScannedBoard>, RecognizeError> {
    let mut boards: Vec<ScannedBoard> = recognizer
        .recognize(bytes, &options.recognize)?
        .into_iter()
        .map(|reading| ScannedBoard {
            reading,
            analysis: None,
        })
        .collect();
    if let Some(limits) = &options.analysis {
        analyze_boards(&mut boards, limits);
    }
    Ok(boards)
}

/// Attaches the engine's analysis to every legal board, or a warning saying
/// why a board was not analysed. The boards share one budget: `limits`'
/// time and nodes are for all of them together, each board getting an equal
/// share of what is left when its turn comes (depth and lines apply to each).
pub fn analyze_boards(boards: &mut [ScannedBoard], limits: &AnalysisLimits) {
    let started = std::time::Instant::now();
    let mut nodes_left = limits.nodes;
    let mut legal = Vec::new();
    for board in boards.iter_mut() {
        match &board.reading.position {
            Ok(position) => legal.push((position.clone(), board)),
            Err(problems) => board.reading.warnings.push(format!(
                "not analysed: impossible position: {}",
                legality::describe(problems)
            )),
        }
    }
    let count = legal.len() as u32;
    for (done, (position, board)) in legal.into_iter().enumerate() {
        let left = count - done as u32;
        let share = AnalysisLimits {
            movetime: limits
                .movetime
                .map(|total| total.saturating_sub(started.elapsed()) / left),
            nodes: nodes_left.map(|nodes| nodes / u64::from(left)),
            ..limits.clone()
        };
        let analysis = engine::analyze(&position, &share);
        nodes_left = nodes_left.map(|nodes| nodes.saturating_sub(analysis.nodes));
        board.analysis = Some(analysis);
    }
}
