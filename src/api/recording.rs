//! `POST /api/v1/game/recording`: a recording of a game (an animated GIF, a
//! video) as the body, the games it shows out as PGN, ready for
//! `POST /api/v1/game`.

use std::time::Duration;

use actix_web::{web, HttpResponse};
use serde::Serialize;

use super::{error::ErrorBody, recognize::Body, ApiError, AppState};
use crate::{
    games::{
        annotate::plain_pgn,
        recording::{read_recording, RecordingInput, RecordingReadError},
        summary::GameSummary,
    },
    notation::lang::{Lang, MoveStyle},
    source::recording::{RecordingError, RecordingKind, RecordingLimits},
};

/// The games a recording shows.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingResponse {
    /// Each stretch of play joined by legal moves, one game each (a change
    /// no legal move explains starts the next, with a comment).
    pub games: Vec<RecordedGame>,
    /// Frames looked at.
    pub frames: usize,
    /// Seconds of the recording read.
    pub seconds: f64,
    /// Pictures of the board read (each settled position once).
    pub positions: usize,
    /// Why reading stopped before the recording's end, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// One game of a recording.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordedGame {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The game as PGN, with `[FEN]` where it starts elsewhere than the
    /// usual position.
    pub pgn: String,
}

impl From<RecordingReadError> for ApiError {
    fn from(err: RecordingReadError) -> Self {
        use crate::games::recording::FollowError;
        match &err {
            RecordingReadError::Follow(FollowError::Recording(e)) => match e {
                RecordingError::NoFfmpeg => ApiError::Unsupported(err.to_string()),
                RecordingError::Spawn(_) => ApiError::Internal(err.to_string()),
                RecordingError::OutOfTime { .. } | RecordingError::Stalled { .. } => {
                    ApiError::NotARecording(err.to_string())
                }
                RecordingError::GifTooLarge { .. } => ApiError::ImageTooLarge(err.to_string()),
                RecordingError::BadGif(_) | RecordingError::BadVideo(_) => {
                    ApiError::NotARecording(err.to_string())
                }
            },
            RecordingReadError::Follow(FollowError::Recognize(_)) => {
                ApiError::Internal(err.to_string())
            }
            RecordingReadError::NoBoard { .. } | RecordingReadError::NoPosition { .. } => {
                ApiError::NoBoardInRecording(err.to_string())
            }
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/game/recording",
    request_body(content = Vec<u8>, description = "An animated GIF, or a video (MP4, WebM, …) that ffmpeg reads", content_type = "application/octet-stream"),
    responses(
        (status = 200, description = "The games the recording shows", body = RecordingResponse),
        (status = 413, description = "Upload too large", body = ErrorBody),
        (status = 415, description = "Not a GIF or a video (`not-a-recording`)", body = ErrorBody),
        (status = 422, description = "No board found or read in the recording (`no-board-found`)", body = ErrorBody),
        (status = 501, description = "A video, and ffmpeg is not installed on the server (`unsupported`)", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn recording(
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let mut body = Body::new(state.config.max_upload_bytes);
    let timeout_ms = state.config.body_timeout_ms;
    let bytes = actix_web::rt::time::timeout(Duration::from_millis(timeout_ms), body.raw(payload))
        .await
        .map_err(|_| ApiError::Timeout(timeout_ms))??;
    let kind = RecordingKind::of(&bytes).ok_or_else(|| {
        ApiError::NotARecording(
            "not a recording: send an animated GIF or a video (MP4, WebM, …) as the body".into(),
        )
    })?;
    let seconds = state.config.max_recording_seconds;
    let limits = RecordingLimits {
        max_seconds: seconds,
        // Decoding may take as long as the recording read is long.
        max_time: Duration::from_secs(seconds.into()),
        ..RecordingLimits::default()
    };
    let job_state = state.clone();
    let job = move || -> Result<RecordingResponse, ApiError> {
        let recognizer = job_state.recognizer()?;
        let recording = match kind {
            RecordingKind::Gif => {
                read_recording(RecordingInput::Gif(bytes), recognizer, limits, |_| {})?
            }
            RecordingKind::Video => {
                // ffmpeg reads a file it can seek in (an MP4's index may be at its end).
                let mut file = tempfile::NamedTempFile::new()
                    .map_err(|e| ApiError::Internal(format!("a temporary file: {e}")))?;
                std::io::Write::write_all(&mut file, &bytes)
                    .map_err(|e| ApiError::Internal(format!("a temporary file: {e}")))?;
                drop(bytes);
                read_recording(
                    RecordingInput::Video(file.path()),
                    recognizer,
                    limits,
                    |_| {},
                )?
            }
        };
        Ok(RecordingResponse {
            games: recording
                .games
                .iter()
                .map(|game| RecordedGame {
                    summary: GameSummary::of(game),
                    pgn: plain_pgn(game, Lang::En, MoveStyle::San),
                })
                .collect(),
            frames: recording.frames,
            seconds: recording.duration.as_secs_f64(),
            positions: recording.sightings,
            stopped: recording.stopped,
        })
    };
    // A recording may take its whole budget: it never takes the last worker.
    let response = state.run_long_job(job).await?;
    Ok(HttpResponse::Ok().json(response))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/api/v1/game/recording").route(web::post().to(recording)));
}
