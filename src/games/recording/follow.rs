//! Following one board through the frames of a recording: found once, then
//! read only where it settles on a new picture.
//!
//! The board is looked for (by the whole recognition pipeline) until it is
//! found, at most every [`FIND_EVERY`] of recording. From then on each
//! frame's board area is summarised by a coarse [`Signature`], 64
//! lightness samples per square. Frames whose signatures agree form a
//! still; a still shown for [`SETTLED`] whose picture differs from the last
//! one read is read (its 64 squares classified). A piece in flight, a
//! dragged piece and a blinking clock outside the board never settle or
//! never change the board, so they cost a signature and nothing more. A
//! board that never keeps still (a pointer circling over it) is read anyway
//! after [`RESTLESS`].

use std::time::Duration;

use cozy_chess::Color;
use image::RgbImage;

use super::join::Sighting;
use crate::{
    recognize::{highlighted_cells, RecognizeError, RecognizeOptions, Recognizer, View},
    source::recording::{Frame, RecordingError},
};

/// How often a recording is searched for its board until it is found.
const FIND_EVERY: Duration = Duration::from_millis(500);

/// How long a picture of the board must stay to be read.
const SETTLED: Duration = Duration::from_millis(120);

/// A board that changed but never kept still this long is read as it is.
const RESTLESS: Duration = Duration::from_millis(1000);

/// How far (a share of the board's side) a corner of a board found by its
/// corners may lie from its box for the box to be followed.
const UPRIGHT: f32 = 0.02;

/// Samples a square across (and down) in a signature.
const SAMPLES: u32 = 8;

/// Mean lightness change (0–255) of a square under which two frames show
/// the same still: video compression moves a few levels.
const STILL: f32 = 6.0;

/// Lightness change of one sample that counts as a change of the picture,
/// well above what video compression does to a still.
const CHANGED_LEVEL: f32 = 32.0;

/// Samples of one square that must change for a still to be a new picture
/// of the board: a thin white piece on a light square changes few.
const CHANGED_SAMPLES: usize = 3;

/// A board's lightness, [`SAMPLES`]² points per square, top row first.
#[derive(Clone)]
struct Signature(Vec<f32>);

impl Signature {
    fn of(image: &RgbImage, bbox: [u32; 4]) -> Self {
        let [x, y, w, h] = bbox.map(|v| v as f32);
        let n = 8 * SAMPLES;
        let mut values = Vec::with_capacity((n * n) as usize);
        for row in 0..8 {
            for col in 0..8 {
                for sy in 0..SAMPLES {
                    for sx in 0..SAMPLES {
                        let px =
                            x + (col * SAMPLES + sx) as f32 * w / n as f32 + w / (2 * n) as f32;
                        let py =
                            y + (row * SAMPLES + sy) as f32 * h / n as f32 + h / (2 * n) as f32;
                        let p = image.get_pixel(
                            (px as u32).min(image.width() - 1),
                            (py as u32).min(image.height() - 1),
                        );
                        values
                            .push(0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32);
                    }
                }
            }
        }
        Self(values)
    }

    /// Whether some square of the board looks different: enough of its
    /// samples changed by more than [`CHANGED_LEVEL`].
    fn differs(&self, other: &Signature) -> bool {
        let per_square = (SAMPLES * SAMPLES) as usize;
        self.0
            .chunks(per_square)
            .zip(other.0.chunks(per_square))
            .any(|(a, b)| {
                a.iter()
                    .zip(b)
                    .filter(|(a, b)| (*a - *b).abs() > CHANGED_LEVEL)
                    .count()
                    >= CHANGED_SAMPLES
            })
    }

    /// The largest mean change of one square between two signatures.
    fn distance(&self, other: &Signature) -> f32 {
        let per_square = (SAMPLES * SAMPLES) as usize;
        self.0
            .chunks(per_square)
            .zip(other.0.chunks(per_square))
            .map(|(a, b)| {
                a.iter().zip(b).map(|(a, b)| (a - b).abs()).sum::<f32>() / per_square as f32
            })
            .fold(0.0, f32::max)
    }
}

/// What following the board made of a recording.
pub struct Followed {
    pub sightings: Vec<Sighting>,
    pub frames: usize,
    /// Length of the recording read.
    pub duration: Duration,
    /// When the board was first found.
    pub found_at: Option<Duration>,
}

/// Why following stopped.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error(transparent)]
    Recording(#[from] RecordingError),
    #[error(transparent)]
    Recognize(#[from] RecognizeError),
}

/// The frames of one still picture, as they come.
struct Still {
    signature: Signature,
    from: Duration,
    shown: Duration,
    read: bool,
}

/// Follows the board through `frames`, reading each picture of it that
/// settles. `progress` is told the time reached after each frame.
pub fn follow(
    frames: impl Iterator<Item = Result<Frame, RecordingError>>,
    recognizer: &Recognizer,
    mut progress: impl FnMut(Duration),
) -> Result<Followed, FollowError> {
    let mut followed = Followed {
        sightings: Vec::new(),
        frames: 0,
        duration: Duration::ZERO,
        found_at: None,
    };
    let mut board: Option<Found> = None;
    let mut last_look: Option<Duration> = None;
    let mut still: Option<Still> = None;
    let mut last_read: Option<(Signature, Duration)> = None;
    for frame in frames {
        let frame = frame?;
        followed.frames += 1;
        followed.duration = frame.at + frame.shown;
        progress(followed.duration);
        let Some(found) = board.or_else(|| {
            if last_look.is_some_and(|t| frame.at < t + FIND_EVERY) {
                return None;
            }
            last_look = Some(frame.at);
            find_board(recognizer, &frame.image)
        }) else {
            continue;
        };
        if board.is_none() {
            board = Some(found);
            followed.found_at = Some(frame.at);
        }
        let bbox = found.bbox;
        let signature = Signature::of(&frame.image, bbox);
        let same = still
            .as_ref()
            .is_some_and(|s| s.signature.distance(&signature) <= STILL);
        match &mut still {
            Some(s) if same => {
                s.shown += frame.shown;
                s.signature = signature;
            }
            _ => {
                still = Some(Still {
                    signature,
                    from: frame.at,
                    shown: frame.shown,
                    read: false,
                })
            }
        }
        let s = still.as_mut().expect("set above");
        let new_picture = last_read
            .as_ref()
            .is_none_or(|(seen, _)| seen.differs(&s.signature));
        let restless = last_read
            .as_ref()
            .is_some_and(|(_, at)| frame.at >= *at + RESTLESS);
        if !s.read && new_picture && (s.shown >= SETTLED || restless) {
            s.read = true;
            let scores = recognizer.read_squares_at(&frame.image, bbox)?;
            let highlight = highlighted_cells(&frame.image, bbox);
            // What the recognizer made of the board where it found it
            // helps to start the game.
            let first = followed.sightings.is_empty();
            followed.sightings.push(Sighting {
                at: s.from,
                until: frame.at + frame.shown,
                scores,
                highlight,
                view_hint: first.then_some(found.view),
                side_hint: first.then_some(found.side),
            });
            last_read = Some((s.signature.clone(), frame.at));
        } else if !new_picture {
            // The picture last read is still on screen.
            if let Some(previous) = followed.sightings.last_mut() {
                previous.until = frame.at + frame.shown;
            }
        }
    }
    Ok(followed)
}

/// The board a recording shows, as the recognizer read it where it found it.
#[derive(Clone, Copy)]
struct Found {
    /// `[x, y, width, height]` in the frames' pixels.
    bbox: [u32; 4],
    /// The side at its bottom.
    view: View,
    /// The side to move, as its last-move highlight (if any) says.
    side: Color,
}

/// The largest board of a picture: `None` when there is none, or it is seen
/// at an angle (recordings are of screens).
fn find_board(recognizer: &Recognizer, image: &RgbImage) -> Option<Found> {
    let readings = recognizer
        .recognize_image(image, &RecognizeOptions::default())
        .ok()?;
    let reading = readings.into_iter().next()?;
    if reading.bbox[2] < 64 || !upright(&reading.bbox, reading.corners.as_ref()) {
        return None;
    }
    Some(Found {
        bbox: reading.bbox,
        view: reading.orientation,
        side: reading.side_to_move,
    })
}

/// Whether a board is upright in its box: found as one, or found by its
/// corners (the lattice finder also finds screen boards) and they lie at
/// the box's corners within [`UPRIGHT`] of its side.
fn upright(bbox: &[u32; 4], corners: Option<&[[f32; 2]; 4]>) -> bool {
    let Some(corners) = corners else {
        return true;
    };
    let [x, y, w, h] = bbox.map(|v| v as f32);
    let boxed = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    let tolerance = UPRIGHT * w.max(h);
    corners
        .iter()
        .zip(boxed)
        .all(|(c, b)| (c[0] - b[0]).abs() <= tolerance && (c[1] - b[1]).abs() <= tolerance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_changes_with_one_square_and_not_with_faint_noise() {
        let mut image = RgbImage::from_pixel(80, 80, image::Rgb([200, 200, 200]));
        let bbox = [0, 0, 80, 80];
        let before = Signature::of(&image, bbox);
        // Faint noise everywhere: the same still.
        for (i, p) in image.pixels_mut().enumerate() {
            p.0 = [200 + (i % 3) as u8; 3];
        }
        let after = Signature::of(&image, bbox);
        assert!(before.distance(&after) <= STILL);
        assert!(!before.differs(&after));
        // One square (10 px) turned dark: a new picture.
        for y in 30..40 {
            for x in 50..60 {
                image.put_pixel(x, y, image::Rgb([40, 40, 40]));
            }
        }
        assert!(before.differs(&Signature::of(&image, bbox)));
    }

    #[test]
    fn a_board_found_by_its_corners_is_followed_only_when_upright() {
        let bbox = [10, 20, 400, 400];
        let square = [[10.5, 20.0], [409.0, 21.0], [410.0, 420.0], [11.0, 419.0]];
        assert!(upright(&bbox, Some(&square)));
        assert!(upright(&bbox, None));
        let slanted = [[40.0, 20.0], [410.0, 60.0], [380.0, 420.0], [10.0, 380.0]];
        assert!(!upright(&bbox, Some(&slanted)));
    }
}
