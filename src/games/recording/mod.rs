//! Recordings of a game turned into games: an animated GIF (as lichess and
//! chess.com export games) or a screen recording, read frame by frame
//! ([`crate::source::recording`]), the board followed and read where it
//! settles ([`follow`]), and the positions joined by the legal moves that
//! connect them ([`join`]).
//!
//! A change no legal move explains (a new game started, a position set up
//! by hand, a jump in the recording) ends the game there with a comment;
//! the next game, with its own `[FEN]`, goes on from the new position.

pub mod eval;
mod follow;
mod join;

use std::{path::Path, time::Duration};

use cozy_chess::Board;

pub use follow::FollowError;

use super::pgn::{Game, PgnMove};
use crate::{
    recognize::Recognizer,
    source::recording::{Frames, RecordingError, RecordingLimits},
};

/// A recording to read.
pub enum RecordingInput<'a> {
    /// The bytes of an animated GIF.
    Gif(Vec<u8>),
    /// A video file, for ffmpeg to read.
    Video(&'a Path),
}

/// The games a recording shows, and what reading it took.
pub struct Recording {
    pub games: Vec<Game>,
    /// Frames looked at.
    pub frames: usize,
    /// Length of the recording read.
    pub duration: Duration,
    /// Pictures of the board read (each settled position once).
    pub sightings: usize,
    /// Pictures no move explained that did not stay (a piece in flight,
    /// something passing over the board): left out.
    pub passing: usize,
    /// Why reading stopped before the end of the recording, if it did.
    pub stopped: Option<String>,
}

/// Why a recording gave no game.
#[derive(Debug, thiserror::Error)]
pub enum RecordingReadError {
    #[error(transparent)]
    Follow(#[from] FollowError),
    #[error("no chessboard found in the recording ({frames} frames, {} read)", clock(*.duration))]
    NoBoard { frames: usize, duration: Duration },
    #[error("the board was found but never read clearly enough to start a game ({} read)", clock(*.duration))]
    NoPosition { duration: Duration },
}

impl From<RecordingError> for RecordingReadError {
    fn from(e: RecordingError) -> Self {
        Self::Follow(e.into())
    }
}

/// Reads the games `input` shows. `progress` is told the time of the
/// recording reached after each frame.
pub fn read_recording(
    input: RecordingInput<'_>,
    recognizer: &Recognizer,
    limits: RecordingLimits,
    progress: impl FnMut(Duration),
) -> Result<Recording, RecordingReadError> {
    let mut frames = match input {
        RecordingInput::Gif(bytes) => Frames::gif(bytes, limits)?,
        RecordingInput::Video(path) => Frames::video(path, limits)?,
    };
    let followed = follow::follow(&mut frames, recognizer, progress)?;
    if followed.found_at.is_none() {
        return Err(RecordingReadError::NoBoard {
            frames: followed.frames,
            duration: followed.duration,
        });
    }
    let mut joiner = join::Joiner::default();
    let count = followed.sightings.len();
    for (i, sighting) in followed.sightings.iter().enumerate() {
        joiner.see(sighting, i + 1 == count);
    }
    let passing = joiner.passing;
    let segments = joiner.finish();
    if segments.is_empty() {
        return Err(RecordingReadError::NoPosition {
            duration: followed.duration,
        });
    }
    Ok(Recording {
        games: games_of(&segments),
        frames: followed.frames,
        duration: followed.duration,
        sightings: count,
        passing,
        stopped: frames.stopped().map(str::to_owned),
    })
}

/// One game per segment, each but the first saying where it came from and
/// each but the last where it ended.
fn games_of(segments: &[join::Segment]) -> Vec<Game> {
    let count = segments.len();
    segments
        .iter()
        .enumerate()
        .map(|(index, segment)| {
            let mut tags = Vec::new();
            let result = join::result_of(segment).unwrap_or("*");
            tags.push(("Result".to_owned(), result.to_owned()));
            if segment.start != Board::default() {
                tags.push(("SetUp".to_owned(), "1".to_owned()));
                tags.push((
                    "FEN".to_owned(),
                    super::analyse::fen_of(&segment.start, false),
                ));
            }
            let mut intro = Vec::new();
            if index > 0 {
                intro.push(format!(
                    "At {} of the recording the position changed with no legal move from the \
                     last one; the game goes on from here.",
                    clock(segment.from)
                ));
            }
            let mut moves: Vec<PgnMove> = segment
                .moves
                .iter()
                .map(|&mv| PgnMove {
                    mv,
                    nags: Vec::new(),
                    comments: Vec::new(),
                    variations: Vec::new(),
                })
                .collect();
            if let Some(next) = segments.get(index + 1) {
                let note = format!(
                    "At {} the position changed with no legal move from here; the recording \
                     goes on in game {}.",
                    clock(next.from),
                    index + 2
                );
                match moves.last_mut() {
                    Some(last) => last.comments.push(note),
                    None => intro.push(note),
                }
            }
            Game {
                number: index + 1,
                tags,
                start: segment.start.clone(),
                chess960: false,
                intro,
                moves,
                result: Some(result.to_owned()),
                truncated: false,
                warnings: if count > 1 && index == 0 {
                    vec![format!(
                        "the recording shows {count} stretches of play no legal move joins"
                    )]
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// `m:ss` (or `h:mm:ss`) of a time in the recording.
pub fn clock(at: Duration) -> String {
    let s = at.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
