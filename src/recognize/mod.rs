//! From image bytes to positions: locate boards, classify their squares, and
//! assemble each into a FEN with confidences and legality warnings.

mod classifier;
mod coordinates;
mod highlight;
mod position;
mod repair;
mod runtime;
mod second_look;
mod session_pool;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use classifier::{SquareClassifier, SquareScores, BUNDLED_MODEL, CLASSES};
pub use coordinates::{CoordinateEvidence, CoordinateReader, BUNDLED_COORDS_MODEL};
use position::guess_view;
pub use position::{OrientationSource, Position, Side, SideSource, SquareReading, View};
use second_look::CellSource;

use image::RgbImage;

use crate::vision::{self, BoardBox, BoardQuad, DecodeLimits, Luma32, Opponent, VisionError};

/// Side of the square a board seen in perspective is warped onto (8 cells of 64 px).
const WARP_SIDE: u32 = 512;

/// Where a board was found.
#[derive(Clone, Copy, Debug)]
enum Region {
    /// Axis-aligned: screenshots, scans.
    Box(BoardBox),
    /// Seen at an angle: photos.
    Quad(BoardQuad),
}

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
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BoardReading {
    pub fen: String,
    pub board_fen: String,
    pub orientation: View,
    pub orientation_source: OrientationSource,
    pub side_to_move: Side,
    pub side_to_move_source: SideSource,
    /// Probability that every square is right.
    pub confidence: f32,
    /// `[x, y, width, height]` in image pixels (around the corners for a photo).
    #[serde(rename = "box")]
    #[schema(value_type = Vec<u32>)]
    pub bbox: [u32; 4],
    /// The board's corners for a board seen at an angle: top-left, top-right,
    /// bottom-right, bottom-left of the picture.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<f32>>>)]
    pub corners: Option<[[f32; 2]; 4]>,
    pub squares: Vec<SquareReading>,
    pub legal: bool,
    pub warnings: Vec<String>,
    pub links: Links,
    /// The engine's analysis, when asked for and the position is legal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<crate::engine::Analysis>,
}

/// Attaches the engine's analysis to every legal board, or a warning saying
/// why a board was not analysed. The boards share one budget: `limits`'
/// time and nodes are for all of them together, each board getting an equal
/// share of what is left when its turn comes (depth and lines apply to each).
pub fn analyze_boards(boards: &mut [BoardReading], limits: &crate::engine::Limits) {
    let started = std::time::Instant::now();
    let mut nodes_left = limits.nodes;
    let mut positions = Vec::new();
    for board in boards.iter_mut() {
        match crate::notation::fen::parse_fen(&board.fen) {
            Ok(position) => positions.push((board, position)),
            Err(err) => board.warnings.push(format!("not analysed: {err}")),
        }
    }
    let count = positions.len() as u32;
    for (done, (board, position)) in positions.into_iter().enumerate() {
        let left = count - done as u32;
        let share = crate::engine::Limits {
            movetime: limits
                .movetime
                .map(|total| total.saturating_sub(started.elapsed()) / left),
            nodes: nodes_left.map(|nodes| nodes / u64::from(left)),
            ..limits.clone()
        };
        let analysis = crate::engine::analyze(&position, &share);
        nodes_left = nodes_left.map(|nodes| nodes.saturating_sub(analysis.nodes));
        board.analysis = Some(analysis);
    }
}

/// Where to look at the position on lichess.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
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

/// The whole recognition pipeline around its two loaded models.
pub struct Recognizer {
    classifier: SquareClassifier,
    coordinates: CoordinateReader,
    limits: DecodeLimits,
}

impl Recognizer {
    /// A recognizer over the models built into the binary, with `pool_size`
    /// sessions of each so that as many threads can recognize at once.
    pub fn bundled(pool_size: usize, limits: DecodeLimits) -> Result<Self, RecognizeError> {
        Ok(Self {
            classifier: SquareClassifier::new(BUNDLED_MODEL, pool_size)?,
            coordinates: CoordinateReader::new(BUNDLED_COORDS_MODEL, pool_size)?,
            limits,
        })
    }

    /// Decodes an image and reads every board in it, largest first.
    pub fn recognize(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        self.recognize_timed(bytes, options)
            .map(|(boards, _)| boards)
    }

    /// [`Recognizer::recognize`], also returning how long each stage took.
    pub fn recognize_timed(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<(Vec<BoardReading>, StageTimes), RecognizeError> {
        let mut times = StageTimes::default();
        let image = StageTimes::time(&mut times.decode, || vision::decode(bytes, self.limits))?;
        let boards = self.read_image(&image, options, &mut times)?;
        Ok((boards, times))
    }

    /// Reads every board in a decoded image.
    pub fn recognize_image(
        &self,
        rgb: &RgbImage,
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        self.read_image(rgb, options, &mut StageTimes::default())
    }

    fn read_image(
        &self,
        rgb: &RgbImage,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        let (luma, regions) = StageTimes::time(&mut times.locate, || {
            let luma = Luma32::from_rgb(rgb);
            let mut regions = locate_regions(&luma);
            // Squares as light as each other but of another hue show no grid
            // in luma; an opponent-colour axis shows it.
            for axis in [Opponent::RedGreen, Opponent::BlueYellow] {
                if regions.is_empty() {
                    regions = locate_regions(&Luma32::opponent_from_rgb(rgb, axis));
                }
            }
            (luma, regions)
        });
        let rectified = StageTimes::time(&mut times.cut, || rectify_regions(rgb, regions));
        if rectified.is_empty() {
            return Err(RecognizeError::NoBoardFound);
        }
        let found: Vec<Region> = rectified.iter().map(|(region, ..)| *region).collect();
        let sources: Vec<CellSource> = rectified
            .iter()
            .map(|(_, warped, board)| CellSource {
                image: warped.as_ref().unwrap_or(rgb),
                board: *board,
            })
            .collect();
        let cells: Vec<f32> = StageTimes::time(&mut times.cut, || {
            sources
                .iter()
                .flat_map(|source| vision::cut_cells(source.image, &source.board))
                .collect()
        });
        let scores = StageTimes::time(&mut times.classify, || {
            let mut scores = self.classifier.classify(&cells)?;
            second_look::look_again(&self.classifier, &sources, &mut scores)?;
            Ok::<_, RecognizeError>(scores)
        })?;
        // A given view makes the coordinates moot.
        let evidence = if options.view.is_some() {
            vec![CoordinateEvidence::default(); found.len()]
        } else {
            StageTimes::time(&mut times.coordinates, || {
                let corners: Vec<_> = found.iter().map(Region::corners).collect();
                self.coordinates.read(&luma, &corners)
            })?
        };
        Ok(StageTimes::time(&mut times.assemble, || {
            found
                .iter()
                .zip(scores.chunks(64))
                .zip(evidence)
                .map(|((region, scores), evidence)| {
                    let colours = vision::cell_colours(rgb, region.corners());
                    read_board(region, scores, evidence, colours.as_deref(), options)
                })
                .collect()
        }))
    }
}

/// Wall-clock time of each recognition stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    pub decode: Duration,
    /// Finding the boards (grid lines, else a photo's lattice).
    pub locate: Duration,
    /// Rectifying photographed boards and cutting the cells.
    pub cut: Duration,
    pub classify: Duration,
    /// Reading the rank and file coordinates.
    pub coordinates: Duration,
    /// Orientation, side to move, legality and repair.
    pub assemble: Duration,
}

impl StageTimes {
    fn time<T>(slot: &mut Duration, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = work();
        *slot += start.elapsed();
        out
    }

    pub fn total(&self) -> Duration {
        self.decode + self.locate + self.cut + self.classify + self.coordinates + self.assemble
    }
}

/// The first finder that finds anything, most exact first: axis-aligned
/// grid lines, a photo's corner lattice, grid lines on a smoothed copy
/// (hatched or textured pages), grid lines on a straightened copy (pages
/// turned by a few degrees), the whole picture (cropped to a faint board),
/// and the corner lattice at a coarse scale (low-contrast photos).
fn locate_regions(luma: &Luma32) -> Vec<Region> {
    let boxes = |found: Vec<vision::BoardBox>| found.into_iter().map(Region::Box).collect();
    let quads = |found: Vec<vision::BoardQuad>| found.into_iter().map(Region::Quad).collect();
    let finders: [&dyn Fn() -> Vec<Region>; 6] = [
        &|| boxes(vision::locate_boards(luma)),
        &|| quads(vision::locate_quads(luma)),
        &|| boxes(vision::locate_boards_smoothed(luma)),
        &|| quads(vision::locate_turned(luma)),
        &|| boxes(vision::locate_whole_image(luma).into_iter().collect()),
        &|| quads(vision::locate_quads_coarse(luma)),
    ];
    finders
        .iter()
        .map(|find| find())
        .find(|regions| !regions.is_empty())
        .unwrap_or_default()
}

/// Every region whose cells can be cut, with the board to cut them from: the
/// picture itself for a box, a rectified copy for a quad.
fn rectify_regions(
    rgb: &RgbImage,
    regions: Vec<Region>,
) -> Vec<(Region, Option<RgbImage>, BoardBox)> {
    let mut found = Vec::new();
    for region in regions {
        match region {
            Region::Box(board) => found.push((region, None, board)),
            Region::Quad(mut quad) => {
                // The lattice fixes the corners only up to a quarter turn; a
                // light square belongs at the top left.
                let colours = vision::cell_colours(rgb, quad.corners);
                if colours.as_deref().and_then(vision::top_left_is_light) == Some(false) {
                    quad.corners.rotate_left(1);
                }
                let Some(warped) = vision::warp_board(rgb, quad.corners, WARP_SIDE) else {
                    continue;
                };
                let whole = BoardBox::filling(WARP_SIDE as f32);
                found.push((Region::Quad(quad), Some(warped), whole));
            }
        }
    }
    found
}

/// The bounding box `[x, y, w, h]` of a region, and its corners for a quad.
fn placement(region: &Region) -> ([u32; 4], Option<[[f32; 2]; 4]>) {
    let (x0, y0, x1, y1, corners) = match region {
        Region::Box(b) => (b.x, b.y, b.x + b.width, b.y + b.height, None),
        Region::Quad(q) => {
            let xs = q.corners.map(|c| c[0]);
            let ys = q.corners.map(|c| c[1]);
            let min = |v: [f32; 4]| v.into_iter().fold(f32::MAX, f32::min);
            let max = |v: [f32; 4]| v.into_iter().fold(f32::MIN, f32::max);
            (min(xs), min(ys), max(xs), max(ys), Some(q.corners))
        }
    };
    let bbox = [x0, y0, x1 - x0, y1 - y0].map(|v| v.round().max(0.0) as u32);
    (bbox, corners)
}

impl Region {
    /// Top-left, top-right, bottom-right, bottom-left in the image.
    fn corners(&self) -> [[f32; 2]; 4] {
        match self {
            Region::Box(b) => b.corners(),
            Region::Quad(q) => q.corners,
        }
    }
}

/// The side to move, and where it came from: given, else read from the
/// last-move highlight, else White.
fn side_to_move(
    options: &RecognizeOptions,
    scores: &[SquareScores],
    colours: Option<&[[f32; 3]]>,
) -> (Side, SideSource) {
    if let Some(side) = options.side_to_move {
        return (side, SideSource::Given);
    }
    colours
        .and_then(highlight::last_move_squares)
        .and_then(|squares| highlight::side_to_move(squares.map(|i| scores[i].best().0)))
        .map_or((Side::White, SideSource::Default), |side| {
            (side, SideSource::Highlight)
        })
}

/// Which side is at the bottom, and how that was decided: as given, else by
/// clear coordinates, else by where the pieces stand.
fn orientation(
    options: &RecognizeOptions,
    scores: &[SquareScores],
    coordinates: CoordinateEvidence,
) -> (View, OrientationSource) {
    if let Some(view) = options.view {
        return (view, OrientationSource::Given);
    }
    match coordinates.view() {
        Some(view) => (view, OrientationSource::Coordinates),
        None => (guess_view(scores), OrientationSource::Pieces),
    }
}

fn read_board(
    region: &Region,
    scores: &[SquareScores],
    coordinates: CoordinateEvidence,
    colours: Option<&[[f32; 3]]>,
    options: &RecognizeOptions,
) -> BoardReading {
    let (view, orientation_source) = orientation(options, scores, coordinates);
    let side = side_to_move(options, scores, colours);
    let (bbox, corners) = placement(region);
    let mut position = Position::from_picture(scores, view, side);
    let preferred = repair::prefer_unpromoted(&mut position);
    let problems = position.legality_warnings();
    let mut legality = problems.clone();
    let mut legal = problems.is_empty();
    if !legal {
        // Offer the most likely legal position instead, saying what changed.
        let mut repaired = position.clone();
        let changes = repair::repair(&mut repaired);
        if repaired.legality_warnings().is_empty() {
            legality = vec![format!(
                "the picture reads as an impossible position ({}); this is the most likely legal one",
                problems.join("; ")
            )];
            legality.extend(changes);
            position = repaired;
            legal = true;
        }
    }
    let warnings = preferred.into_iter().chain(legality).collect();
    let fen = position.fen();
    BoardReading {
        links: Links::for_fen(&fen),
        board_fen: position.board_fen(),
        fen,
        orientation: view,
        orientation_source,
        side_to_move: position.side_to_move,
        side_to_move_source: position.side_to_move_source,
        confidence: position.confidence(),
        bbox,
        corners,
        legal,
        warnings,
        squares: position.squares,
        analysis: None,
    }
}
