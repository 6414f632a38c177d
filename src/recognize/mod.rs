//! From image bytes to positions: locate boards, classify their squares, and
//! assemble each into a FEN with confidences and legality warnings. A page
//! with a text layer ([`crate::source::PageText`]) may also say whose move
//! it is in each diagram's caption ([`caption`]).

pub mod caption;
mod classifier;
mod coordinates;
mod ghosts;
mod highlight;
mod my_set;
mod placement;
mod repair;
mod runtime;
mod second_look;
mod session_pool;
mod standing;

use std::time::{Duration, Instant};

use cozy_chess::{Board, Color};
use serde::Serialize;

pub use classifier::{SquareClassifier, SquareScores, BUNDLED_MODEL, CLASSES};
pub use coordinates::{CoordinateEvidence, CoordinateReader, BUNDLED_COORDS_MODEL};
pub use my_set::{LearnSetError, SetAdaptation};
use placement::guess_view;
pub use placement::{OrientationSource, Placement, SideSource, SquareReading, View};
use second_look::CellSource;
pub use standing::{StandingClassifier, BUNDLED_STANDING_MODEL};

use image::RgbImage;

use crate::{
    legality::Impossibility,
    source::PageText,
    vision::{self, DecodeLimits, FoundBoard, Luma32, VisionError},
};

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
#[derive(Clone, Debug, Default)]
pub struct RecognizeOptions {
    /// Side to move, for every board; when not given, a board's caption
    /// says it, else its last-move highlight, else White.
    pub side_to_move: Option<Color>,
    /// Which side is at the bottom; guessed from the pieces when not given.
    pub view: Option<View>,
    /// The user's own physical set: a photo of a board seen at an angle is
    /// read as standing pieces, with this correction of the model.
    pub set: Option<std::sync::Arc<SetAdaptation>>,
}

/// One recognized board, shaped as the API reports it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BoardReading {
    pub fen: String,
    pub board_fen: String,
    pub orientation: View,
    pub orientation_source: OrientationSource,
    /// `w` or `b`.
    #[serde(with = "crate::notation::fen::side_letter")]
    #[schema(value_type = String)]
    pub side_to_move: Color,
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
    /// The position itself, made once here for whatever comes next (the
    /// engine above all), or every reason it cannot arise.
    #[serde(skip)]
    pub position: Result<Board, Vec<Impossibility>>,
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
    /// Reads photos of physical boards, whose pieces stand up out of their squares.
    standing: StandingClassifier,
    coordinates: CoordinateReader,
    limits: DecodeLimits,
    /// Told the stage times of every successful [`Recognizer::recognize`].
    stage_observer: Option<StageObserver>,
}

/// A callback given each recognition's stage times (the service's metrics).
pub type StageObserver = Box<dyn Fn(&StageTimes) + Send + Sync>;

impl Recognizer {
    /// A recognizer over the models built into the binary, with `pool_size`
    /// sessions of each so that as many threads can recognize at once.
    pub fn bundled(pool_size: usize, limits: DecodeLimits) -> Result<Self, RecognizeError> {
        Ok(Self {
            classifier: SquareClassifier::new(BUNDLED_MODEL, pool_size)?,
            standing: StandingClassifier::new(BUNDLED_STANDING_MODEL, pool_size)?,
            coordinates: CoordinateReader::new(BUNDLED_COORDS_MODEL, pool_size)?,
            limits,
            stage_observer: None,
        })
    }

    /// A recognizer whose square classifier is `model` (ONNX bytes of the
    /// `models/squares.onnx` contract) instead of the bundled one: to score a
    /// retrained model through the whole pipeline before it is bundled.
    pub fn with_square_model(
        model: &[u8],
        pool_size: usize,
        limits: DecodeLimits,
    ) -> Result<Self, RecognizeError> {
        Ok(Self {
            classifier: SquareClassifier::new(model, pool_size)?,
            ..Self::bundled(pool_size, limits)?
        })
    }

    /// This recognizer with `model` (ONNX bytes of the `models/standing.onnx`
    /// contract) reading physical boards instead of the bundled one.
    pub fn with_standing_model(
        self,
        model: &[u8],
        pool_size: usize,
    ) -> Result<Self, RecognizeError> {
        Ok(Self {
            standing: StandingClassifier::new(model, pool_size)?,
            ..self
        })
    }

    /// Has `observer` told the stage times of each successful recognition.
    pub fn with_stage_observer(self, observer: StageObserver) -> Self {
        Self {
            stage_observer: Some(observer),
            ..self
        }
    }

    /// Decodes an image and reads every board in it, largest first.
    pub fn recognize(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        self.recognize_keeping_picture(bytes, options)
            .map(|(boards, _)| boards)
    }

    /// [`Recognizer::recognize`], also handing back the decoded picture (to
    /// cut thumbnails of the boards from).
    pub fn recognize_keeping_picture(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<(Vec<BoardReading>, RgbImage), RecognizeError> {
        let mut times = StageTimes::default();
        let image = StageTimes::time(&mut times.decode, || vision::decode(bytes, self.limits))?;
        let boards = self.read_image(&image, None, options, &mut times)?;
        if let Some(observe) = &self.stage_observer {
            observe(&times);
        }
        Ok((boards, image))
    }

    /// [`Recognizer::recognize`], also returning how long each stage took.
    pub fn recognize_timed(
        &self,
        bytes: &[u8],
        options: &RecognizeOptions,
    ) -> Result<(Vec<BoardReading>, StageTimes), RecognizeError> {
        let mut times = StageTimes::default();
        let image = StageTimes::time(&mut times.decode, || vision::decode(bytes, self.limits))?;
        let boards = self.read_image(&image, None, options, &mut times)?;
        Ok((boards, times))
    }

    /// Reads every board in a decoded image.
    pub fn recognize_image(
        &self,
        rgb: &RgbImage,
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        self.read_image(rgb, None, options, &mut StageTimes::default())
    }

    /// Reads every board of a page: its picture, and the text it draws in
    /// the same pixels, whose captions may say whose move it is.
    pub fn recognize_page(
        &self,
        rgb: &RgbImage,
        text: &PageText,
        options: &RecognizeOptions,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        self.read_image(rgb, Some(text), options, &mut StageTimes::default())
    }

    fn read_image(
        &self,
        rgb: &RgbImage,
        text: Option<&PageText>,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        if let Some(whole) = text
            .is_none()
            .then(|| small_picture_enlargement(rgb))
            .flatten()
        {
            let (w, h) = (rgb.width() * whole, rgb.height() * whole);
            let enlarged = image::imageops::resize(rgb, w, h, image::imageops::FilterType::Nearest);
            let mut readings = self.read_image(&enlarged, None, options, times)?;
            for reading in &mut readings {
                reading.shrink(whole);
            }
            return Ok(readings);
        }
        let luma = StageTimes::time(&mut times.locate, || Luma32::from_rgb(rgb));
        let (regions, mut finders) =
            StageTimes::time(&mut times.locate, || vision::locate_regions(rgb, &luma));
        let boards = StageTimes::time(&mut times.cut, || vision::rectify(rgb, &luma, regions));
        if boards.is_empty() {
            return Err(RecognizeError::NoBoardFound);
        }
        let mut readings = self.read_boards(rgb, &luma, &boards, text, options, times)?;
        if readings.iter().any(|r| r.confidence >= DOUBTFUL_BOARD) {
            self.look_around_doubtful(rgb, &luma, &mut readings, text, options, times)?;
        }
        let all_doubtful = readings.iter().all(|r| r.confidence < DOUBTFUL_BOARD);
        if let ([board], true) = (&boards[..], all_doubtful || options.set.is_some()) {
            let standing = self.read_standing_pieces(rgb, &luma, board, text, options, times)?;
            let flat = readings.iter().map(|r| r.confidence).fold(0.0, f32::max);
            if let Some(standing) = standing {
                if options.set.is_some() || standing.confidence > flat {
                    readings = vec![standing];
                }
            }
        }
        // Boards that all read as nonsense may have been found in the wrong
        // place (one board, or the hatching of one board's squares taken for
        // several): the finders after the one that found them get their say,
        // and one board found elsewhere replaces them.
        while readings.iter().all(|r| r.confidence < DOUBTFUL_BOARD) {
            let Some(regions) = StageTimes::time(&mut times.locate, || finders.next()) else {
                break;
            };
            let elsewhere =
                StageTimes::time(&mut times.cut, || vision::rectify(rgb, &luma, regions));
            if elsewhere.len() != 1 {
                continue;
            }
            let other = self.read_boards(rgb, &luma, &elsewhere, text, options, times)?;
            let best = readings.iter().map(|r| r.confidence).fold(0.0, f32::max);
            if other[0].confidence > best * MUCH_MORE_CONFIDENT {
                readings = other;
            }
        }
        Ok(readings)
    }

    /// A board of a page that reads as nonsense beside boards that read well
    /// may have been found a rank or a file off (its edge run into a
    /// caption, say): each such reading is replaced by the board found in its
    /// surroundings, looked at as a crop, where that reads at least
    /// [`MUCH_MORE_CONFIDENT`] times as confidently.
    fn look_around_doubtful(
        &self,
        rgb: &RgbImage,
        luma: &Luma32,
        readings: &mut [BoardReading],
        text: Option<&PageText>,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<(), RecognizeError> {
        for reading in readings.iter_mut() {
            if reading.confidence >= DOUBTFUL_BOARD {
                continue;
            }
            let Some(region) = StageTimes::time(&mut times.locate, || {
                vision::locate_around(rgb, luma, reading.bbox)
            }) else {
                continue;
            };
            let again =
                StageTimes::time(&mut times.cut, || vision::rectify(rgb, luma, vec![region]));
            if again.is_empty() {
                continue;
            }
            let Some(found) = self
                .read_boards(rgb, luma, &again, text, options, times)?
                .pop()
            else {
                continue;
            };
            if found.confidence > reading.confidence * MUCH_MORE_CONFIDENT {
                *reading = found;
            }
        }
        Ok(())
    }

    /// `board` read as a photo of a physical board, its pieces standing up
    /// out of their squares (with the user's own set where one is given);
    /// `None` for a board not seen at an angle. The caller reads a lone
    /// board seen at an angle so where its flat reading is nonsense, or
    /// where the user named their set, and keeps the more confident
    /// reading; screenshots and scans (boards found axis-aligned) and
    /// photos that read well never come here, so they pay nothing for it.
    fn read_standing_pieces(
        &self,
        rgb: &RgbImage,
        luma: &Luma32,
        board: &FoundBoard,
        text: Option<&PageText>,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<Option<BoardReading>, RecognizeError> {
        let vision::Region::Quad(quad) = &board.region else {
            return Ok(None);
        };
        let Some(cells) =
            StageTimes::time(&mut times.cut, || vision::standing_cells(rgb, quad.corners))
        else {
            return Ok(None);
        };
        let scores = StageTimes::time(&mut times.classify, || {
            self.standing.classify(&cells, options.set.as_deref())
        })?;
        let board = std::slice::from_ref(board);
        let mut reading = self
            .assemble(luma, board, &scores, text, options, times)?
            .pop();
        // Pieces seen from the side say less about which side is at the
        // bottom than a diagram's do: the reader is told to check.
        if let Some(reading) = reading
            .as_mut()
            .filter(|r| r.orientation_source == OrientationSource::Pieces)
        {
            reading.warnings.push(UNSURE_PHYSICAL_VIEW.to_string());
        }
        Ok(reading)
    }

    /// Reads `boards`, found in `rgb` (whose lightness is `luma`).
    fn read_boards(
        &self,
        rgb: &RgbImage,
        luma: &Luma32,
        boards: &[FoundBoard],
        text: Option<&PageText>,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        let scores = self.classify_boards(rgb, boards, times)?;
        self.assemble(luma, boards, &scores, text, options, times)
    }

    /// The readings of `boards` whose squares scored `scores` (64 a board):
    /// orientation from the coordinates, side to move, legality.
    fn assemble(
        &self,
        luma: &Luma32,
        boards: &[FoundBoard],
        scores: &[SquareScores],
        text: Option<&PageText>,
        options: &RecognizeOptions,
        times: &mut StageTimes,
    ) -> Result<Vec<BoardReading>, RecognizeError> {
        // A given view makes the coordinates moot.
        let evidence = if options.view.is_some() {
            vec![CoordinateEvidence::default(); boards.len()]
        } else {
            StageTimes::time(&mut times.coordinates, || {
                let corners: Vec<_> = boards.iter().map(|b| b.region.corners()).collect();
                self.coordinates.read(luma, &corners)
            })?
        };
        Ok(StageTimes::time(&mut times.assemble, || {
            let captions = match text {
                Some(text) if options.side_to_move.is_none() => {
                    let boxes: Vec<_> = boards.iter().map(|b| b.region.bounding_box()).collect();
                    caption::sides_to_move(&boxes, text)
                }
                _ => vec![None; boards.len()],
            };
            let views: Vec<Option<View>> = (evidence.iter().zip(boards))
                .map(|(evidence, board)| evidence.view(board.printed))
                .collect();
            let shared = shared_view(&views);
            boards
                .iter()
                .zip(scores.chunks(64))
                .zip(evidence)
                .zip(captions)
                .map(|(((board, scores), evidence), caption)| {
                    read_board(board, scores, evidence, shared, caption, options)
                })
                .collect()
        }))
    }

    /// The scores of the 64 squares of the axis-aligned board at `bbox`
    /// (`[x, y, width, height]` as a [`BoardReading`] of a picture of the
    /// same layout gives it), top row first: to follow one board through the
    /// frames of a recording without looking for it in each.
    pub fn read_squares_at(
        &self,
        rgb: &RgbImage,
        bbox: [u32; 4],
    ) -> Result<Vec<SquareScores>, RecognizeError> {
        let [x, y, width, height] = bbox.map(|v| v as f32);
        if width < 16.0
            || height < 16.0
            || bbox[0] + bbox[2] > rgb.width()
            || bbox[1] + bbox[3] > rgb.height()
        {
            return Err(RecognizeError::NoBoardFound);
        }
        let source = CellSource {
            image: rgb,
            board: vision::BoardBox::unlined(x, y, width, height),
        };
        self.classify_sources(&[source], &mut StageTimes::default())
    }

    /// The scores of every square of `boards`, 64 a board in order.
    fn classify_boards(
        &self,
        rgb: &RgbImage,
        boards: &[FoundBoard],
        times: &mut StageTimes,
    ) -> Result<Vec<SquareScores>, RecognizeError> {
        let sources: Vec<CellSource> = boards
            .iter()
            .map(|board| CellSource {
                image: board.image(rgb),
                board: board.cells,
            })
            .collect();
        self.classify_sources(&sources, times)
    }

    /// The scores of every square of `sources`, 64 a board in order: each
    /// cell classified, the doubtful ones looked at again, ghosts cleared.
    fn classify_sources(
        &self,
        sources: &[CellSource],
        times: &mut StageTimes,
    ) -> Result<Vec<SquareScores>, RecognizeError> {
        let cells: Vec<f32> = StageTimes::time(&mut times.cut, || {
            sources
                .iter()
                .flat_map(|source| vision::cut_cells(source.image, &source.board))
                .collect()
        });
        StageTimes::time(&mut times.classify, || {
            let mut scores = self.classifier.classify(&cells)?;
            second_look::look_again(&self.classifier, sources, &mut scores)?;
            for (cells, scores) in cells
                .chunks(64 * vision::CELL_LEN)
                .zip(scores.chunks_mut(64))
            {
                ghosts::clear_ghosts(cells, scores);
            }
            Ok(scores)
        })
    }
}

/// The warning on a photo of a physical board whose orientation only the
/// pieces gave (no printed coordinates were read).
const UNSURE_PHYSICAL_VIEW: &str = "which side is nearer the camera was guessed from where the \
     pieces stand: flip the board if it is wrong, or say it (`view`)";

/// A lone board read with less confidence than this is looked for again by
/// the finders after the one that found it.
const DOUBTFUL_BOARD: f32 = 0.01;

/// A board found elsewhere replaces the doubtful one only when read with
/// this many times its confidence: a grid shifted by a rank over a board of
/// mostly empty squares can read a few times more confidently than the
/// right one, a wrong grid's reading is worse by thousands.
const MUCH_MORE_CONFIDENT: f32 = 100.0;

/// The most confidence a board whose grid lies off its squares
/// ([`vision::Registration::Misplaced`]) is reported with, whatever its
/// squares read: under [`DOUBTFUL_BOARD`], so the later finders look again.
const MISPLACED_CONFIDENCE: f32 = 0.005;

/// A picture whose longer side is under this many pixels (a diagram cut out
/// of a coarse scan or a screenshot of a page) is read enlarged: the board
/// finders' least line lengths and frame sides are in pixels.
const SMALL_PICTURE: u32 = 300;

/// The whole number a small picture is enlarged by, so that every pixel
/// becomes the same block of pixels; `None` for a picture large enough.
fn small_picture_enlargement(rgb: &RgbImage) -> Option<u32> {
    let longest = rgb.width().max(rgb.height());
    (longest > 0 && longest < SMALL_PICTURE).then(|| SMALL_PICTURE.div_ceil(longest).max(2))
}

impl BoardReading {
    /// Moves a reading of a picture enlarged `whole` times into the
    /// picture's own pixels.
    fn shrink(&mut self, whole: u32) {
        self.bbox = self.bbox.map(|v| v / whole);
        for corner in self.corners.iter_mut().flatten() {
            *corner = corner.map(|v| v / whole as f32);
        }
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

/// The side to move, and where it came from: given, else named by the
/// board's caption, else read from the last-move highlight, else White.
fn side_to_move(
    options: &RecognizeOptions,
    caption: Option<Color>,
    scores: &[SquareScores],
    colours: Option<&[[f32; 3]]>,
) -> (Color, SideSource) {
    if let Some(side) = options.side_to_move {
        return (side, SideSource::Given);
    }
    if let Some(side) = caption {
        return (side, SideSource::Caption);
    }
    colours
        .and_then(highlight::last_move_squares)
        .and_then(|squares| highlight::side_to_move(squares.map(|i| scores[i].best().0)))
        .map_or((Color::White, SideSource::Default), |side| {
            (side, SideSource::Highlight)
        })
}

/// Which side is at the bottom, and how that was decided: as given, else by
/// the board's clear coordinates, else by those of the picture's other
/// boards (`shared`), else by where the pieces stand.
fn orientation(
    options: &RecognizeOptions,
    scores: &[SquareScores],
    coordinates: CoordinateEvidence,
    shared: Option<View>,
    printed: bool,
) -> (View, OrientationSource) {
    if let Some(view) = options.view {
        return (view, OrientationSource::Given);
    }
    match (coordinates.view(printed), shared) {
        (Some(view), _) => (view, OrientationSource::Coordinates),
        (None, Some(view)) => (view, OrientationSource::OtherBoards),
        (None, None) => (guess_view(scores, printed), OrientationSource::Pieces),
    }
}

/// The view the coordinates of a picture's boards agree on, given the view
/// each board's coordinates decide: `None` where none decides, or where two
/// disagree.
fn shared_view(views: &[Option<View>]) -> Option<View> {
    let mut views = views.iter().flatten().copied();
    let first = views.next()?;
    views.all(|view| view == first).then_some(first)
}

/// The two squares (picture cells, top row first) a last-move highlight
/// marks on the axis-aligned board at `bbox`, when exactly two are marked.
pub fn highlighted_cells(rgb: &RgbImage, bbox: [u32; 4]) -> Option<[usize; 2]> {
    let [x, y, w, h] = bbox.map(|v| v as f32);
    let corners = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    highlight::last_move_squares(&vision::cell_colours(rgb, corners)?)
}

/// The position a board's 64 square scores (picture order, top row
/// first) show from `view` with `side` to move: the pieces as read where
/// that is a legal position, else the most likely legal one; `None` where
/// no repair makes one.
pub fn legal_position(scores: &[SquareScores], view: View, side: Color) -> Option<Board> {
    let mut position = Placement::from_picture(scores, view, (side, SideSource::Given));
    repair::prefer_unpromoted(&mut position);
    position.checked_board().ok().or_else(|| {
        repair::repair(&mut position);
        position.checked_board().ok()
    })
}

fn read_board(
    found: &FoundBoard,
    scores: &[SquareScores],
    coordinates: CoordinateEvidence,
    shared_view: Option<View>,
    caption: Option<Color>,
    options: &RecognizeOptions,
) -> BoardReading {
    let (view, orientation_source) =
        orientation(options, scores, coordinates, shared_view, found.printed);
    let side = side_to_move(options, caption, scores, found.colours.as_deref());
    let (bbox, corners) = (found.region.bounding_box(), found.region.quad_corners());
    let mut position = Placement::from_picture(scores, view, side);
    let preferred = repair::prefer_unpromoted(&mut position);
    let mut checked = position.checked_board();
    let mut legality = Vec::new();
    if let Err(problems) = &checked {
        // Offer the most likely legal position instead, saying what changed.
        let mut repaired = position.clone();
        let changes = repair::repair(&mut repaired);
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        if let Ok(board) = repaired.checked_board() {
            legality.push(format!(
                "the picture reads as an impossible position ({}); this is the most likely legal one",
                problems.join("; ")
            ));
            legality.extend(changes);
            position = repaired;
            checked = Ok(board);
        } else {
            legality = problems;
        }
    }
    let misplaced = found.registration == vision::Registration::Misplaced;
    let placement = misplaced.then(|| {
        "the grid does not lie on the board's squares (a board cut at its edge?): \
         the reading may be a file or a rank off"
            .to_string()
    });
    let warnings = placement
        .into_iter()
        .chain(preferred)
        .chain(legality)
        .collect();
    let fen = position.fen();
    let confidence = if misplaced {
        position.confidence().min(MISPLACED_CONFIDENCE)
    } else {
        position.confidence()
    };
    BoardReading {
        links: Links::for_fen(&fen),
        board_fen: position.board_fen(),
        fen,
        orientation: view,
        orientation_source,
        side_to_move: position.side_to_move,
        side_to_move_source: position.side_to_move_source,
        confidence,
        bbox,
        corners,
        warnings,
        legal: checked.is_ok(),
        position: checked,
        squares: position.squares,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coordinates_for(view: Option<View>) -> CoordinateEvidence {
        let white_over_black = match view {
            Some(View::White) => 10.0,
            Some(View::Black) => -10.0,
            None => 0.0,
        };
        CoordinateEvidence {
            white_over_black,
            sites: 4,
            ranks: true,
            files: true,
        }
    }

    /// Scores that are sure of `piece` (`None`: an empty square).
    fn sure_of(piece: Option<char>) -> SquareScores {
        SquareScores(CLASSES.map(|class| if class == piece { 1.0 } else { 0.0 }))
    }

    #[test]
    fn small_pictures_are_read_enlarged_by_a_whole_number() {
        let picture = |w, h| RgbImage::new(w, h);
        assert_eq!(small_picture_enlargement(&picture(162, 158)), Some(2));
        assert_eq!(small_picture_enlargement(&picture(80, 60)), Some(4));
        assert_eq!(small_picture_enlargement(&picture(300, 120)), None);
        assert_eq!(small_picture_enlargement(&picture(0, 0)), None);

        // The enlarged picture's box and corners back in the picture's pixels.
        let recognizer = Recognizer::bundled(1, DecodeLimits::default()).unwrap();
        let start = image::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/boards/01-pychess-cburnett-lichess-brown-white.png"
        ))
        .unwrap()
        .to_rgb8();
        // The 400 px board at 280 px: read at twice that.
        let small =
            image::imageops::resize(&start, 280, 280, image::imageops::FilterType::Triangle);
        let options = RecognizeOptions::default();
        let boards = recognizer.recognize_image(&small, &options).unwrap();
        assert_eq!(boards.len(), 1);
        let [x, y, w, h] = boards[0].bbox;
        assert!(
            x + w <= 280 && y + h <= 280 && w >= 250,
            "{:?}",
            boards[0].bbox
        );
    }

    #[test]
    fn boards_without_coordinates_take_the_view_the_others_agree_on() {
        let page = [Some(View::Black), None, Some(View::Black)];
        assert_eq!(shared_view(&page), Some(View::Black));
        let mixed = [Some(View::White), Some(View::Black), None];
        assert_eq!(shared_view(&mixed), None);
        assert_eq!(shared_view(&[None]), None);

        // White's pawns at the top: the pieces alone say Black is at the bottom.
        let mut scores = vec![sure_of(None); 64];
        for square in &mut scores[8..16] {
            *square = sure_of(Some('P'));
        }
        let options = RecognizeOptions::default();
        let none = coordinates_for(None);
        assert_eq!(
            orientation(&options, &scores, none, None, false),
            (View::Black, OrientationSource::Pieces)
        );
        assert_eq!(
            orientation(&options, &scores, none, Some(View::White), false),
            (View::White, OrientationSource::OtherBoards)
        );
        // A board's own coordinates outrank the others'.
        assert_eq!(
            orientation(
                &options,
                &scores,
                coordinates_for(Some(View::Black)),
                Some(View::White),
                false
            ),
            (View::Black, OrientationSource::Coordinates)
        );
    }
}
