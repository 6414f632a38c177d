//! The API's one error type and its mapping to HTTP statuses, in one place.

use actix_web::{
    http::{header, StatusCode},
    HttpResponse, ResponseError,
};
use serde::Serialize;

use crate::{
    analysis::EngineError, recognize::RecognizeError, scan::ScanError, source::SourceError,
    vision::VisionError,
};

/// Every way a request can fail, as the client sees it.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotAnImage(String),
    #[error("{0}")]
    ImageTooLarge(String),
    #[error("no chessboard found in the image")]
    NoBoardFound,
    /// No page of a PDF gave a board, and some could not be read: why.
    #[error("no page of the PDF gave a board; {0}")]
    NoPageRead(String),
    #[error("{0}")]
    IllegalPosition(String),
    #[error("{0}")]
    IllegalMove(String),
    #[error("{0}")]
    InCheck(String),
    #[error("{0}")]
    GameOver(String),
    #[error("the server is busy; try again shortly")]
    Busy,
    #[error("{0}")]
    UnknownEngine(String),
    #[error("{0}")]
    EngineFailed(String),
    #[error("the request body did not arrive within {0} ms")]
    Timeout(u64),
    #[error("{0}")]
    Internal(String),
    #[error("{0}")]
    NotFound(String),
    #[error("the scan library is off (the service runs with --no-library)")]
    LibraryOff,
    #[error("{0}")]
    LibraryFull(String),
    #[error("{0}")]
    LibraryUnavailable(String),
    #[error("{0}")]
    LibraryFailed(String),
    #[error("{0}")]
    NotAPgn(String),
    #[error("{0}")]
    GameTooLarge(String),
    #[error("{0}")]
    NotARecording(String),
    #[error("{0}")]
    NoBoardInRecording(String),
    /// The server lacks a program the request needs (ffmpeg for a video).
    #[error("{0}")]
    Unsupported(String),
    #[error("this route needs the service's access token (Authorization: Bearer TOKEN)")]
    Unauthorized,
}

/// The JSON body of every error response.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A human-readable message.
    pub error: String,
    /// A stable code: `bad-request`, `not-an-image`, `image-too-large`,
    /// `no-board-found`, `no-page-read`, `illegal-position`, `illegal-move`, `in-check`,
    /// `game-over`, `busy`, `unknown-engine`, `engine-failed`, `timeout`, `internal`,
    /// `not-found`, `library-off`, `library-full`, `library-unavailable`,
    /// `library-failed`, `not-a-pgn`, `game-too-large`, `not-a-recording`,
    /// `unsupported` or `unauthorized`.
    pub code: &'static str,
}

impl ApiError {
    /// The stable, kebab-case code clients can match on.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad-request",
            ApiError::NotAnImage(_) => "not-an-image",
            ApiError::ImageTooLarge(_) => "image-too-large",
            ApiError::NoBoardFound => "no-board-found",
            ApiError::NoPageRead(_) => "no-page-read",
            ApiError::IllegalPosition(_) => "illegal-position",
            ApiError::IllegalMove(_) => "illegal-move",
            ApiError::InCheck(_) => "in-check",
            ApiError::GameOver(_) => "game-over",
            ApiError::Busy => "busy",
            ApiError::UnknownEngine(_) => "unknown-engine",
            ApiError::EngineFailed(_) => "engine-failed",
            ApiError::Timeout(_) => "timeout",
            ApiError::Internal(_) => "internal",
            ApiError::NotFound(_) => "not-found",
            ApiError::LibraryOff => "library-off",
            ApiError::LibraryFull(_) => "library-full",
            ApiError::LibraryUnavailable(_) => "library-unavailable",
            ApiError::LibraryFailed(_) => "library-failed",
            ApiError::NotAPgn(_) => "not-a-pgn",
            ApiError::GameTooLarge(_) => "game-too-large",
            ApiError::NotARecording(_) => "not-a-recording",
            ApiError::NoBoardInRecording(_) => "no-board-found",
            ApiError::Unsupported(_) => "unsupported",
            ApiError::Unauthorized => "unauthorized",
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) | ApiError::IllegalMove(_) => StatusCode::BAD_REQUEST,
            ApiError::NotAnImage(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::ImageTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NoBoardFound
            | ApiError::NoPageRead(_)
            | ApiError::IllegalPosition(_)
            | ApiError::InCheck(_)
            | ApiError::GameOver(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::UnknownEngine(_) => StatusCode::BAD_REQUEST,
            ApiError::EngineFailed(_) => StatusCode::BAD_GATEWAY,
            ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Internal(_) | ApiError::LibraryFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::NotFound(_) | ApiError::LibraryOff => StatusCode::NOT_FOUND,
            ApiError::LibraryFull(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::LibraryUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::NotAPgn(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::GameTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NotARecording(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::NoBoardInRecording(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unsupported(_) => StatusCode::NOT_IMPLEMENTED,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        if matches!(self, ApiError::Unauthorized) {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"boardscan\""));
        }
        response.json(ErrorBody {
            error: self.to_string(),
            code: self.code(),
        })
    }
}

impl From<SourceError> for ApiError {
    fn from(err: SourceError) -> Self {
        match err {
            SourceError::TooManyPages { .. } | SourceError::PageTooLarge { .. } => {
                ApiError::ImageTooLarge(err.to_string())
            }
            SourceError::CorruptPdf
            | SourceError::TruncatedPdf
            | SourceError::EncryptedPdf
            | SourceError::NoPages
            | SourceError::RendererDied(_) => ApiError::NotAnImage(err.to_string()),
            SourceError::NoSuchPage { .. }
            | SourceError::OutOfTime { .. }
            | SourceError::PageOutOfTime { .. } => ApiError::BadRequest(err.to_string()),
            SourceError::Renderer(_) => ApiError::Internal(err.to_string()),
        }
    }
}

impl From<ScanError> for ApiError {
    fn from(err: ScanError) -> Self {
        match err {
            ScanError::Recognize(err) => err.into(),
            ScanError::Source(err) => err.into(),
        }
    }
}

impl From<RecognizeError> for ApiError {
    fn from(err: RecognizeError) -> Self {
        match err {
            RecognizeError::Vision(VisionError::NotAnImage(m)) => ApiError::NotAnImage(m),
            RecognizeError::Vision(e @ VisionError::ImageTooLarge { .. }) => {
                ApiError::ImageTooLarge(e.to_string())
            }
            RecognizeError::NoBoardFound => ApiError::NoBoardFound,
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(err: EngineError) -> Self {
        match err {
            EngineError::UnknownEngine { .. } => ApiError::UnknownEngine(err.to_string()),
            EngineError::Failed { .. } => ApiError::EngineFailed(err.to_string()),
            EngineError::Busy(_) => ApiError::Busy,
            EngineError::NoMove => ApiError::IllegalPosition(err.to_string()),
            EngineError::NotAnEngine { .. } | EngineError::Config(_) => {
                ApiError::Internal(err.to_string())
            }
        }
    }
}
