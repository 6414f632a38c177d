//! `POST /api/v1/recognize`: a multipart form with `image` (and optional
//! `options` JSON), or the raw image as the body.

use actix_multipart::Multipart;
use actix_web::{http::header, web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Deserialize;

use super::{analyze::search_limits, error::ErrorBody, ApiError, AppState};
use crate::recognize::{BoardReading, RecognizeOptions, Side, View};

/// The `options` field.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecognizeRequestOptions {
    pub side_to_move: Option<Side>,
    pub view: Option<View>,
    #[serde(default)]
    pub analyze: bool,
    pub movetime_ms: Option<u64>,
    pub multi_pv: Option<usize>,
}

/// The multipart form (documentation only; a raw image body works too).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct RecognizeForm {
    /// The picture: PNG, JPEG, WebP or GIF.
    #[schema(format = Binary, value_type = String)]
    image: Vec<u8>,
    /// JSON options.
    options: Option<RecognizeRequestOptions>,
}

/// The boards found, largest first.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct RecognizeResponse {
    pub boards: Vec<BoardReading>,
}

#[utoipa::path(
    post,
    path = "/api/v1/recognize",
    request_body(content = RecognizeForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "The boards found", body = RecognizeResponse),
        (status = 400, description = "Malformed request", body = ErrorBody),
        (status = 413, description = "Upload or image too large", body = ErrorBody),
        (status = 415, description = "Not an image", body = ErrorBody),
        (status = 422, description = "No board found", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn recognize(
    state: web::Data<AppState>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let limit = state.config.max_upload_bytes;
    let is_multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (image, options) = if is_multipart {
        read_multipart(Multipart::new(request.headers(), payload), limit).await?
    } else {
        (
            read_body(payload, limit).await?,
            RecognizeRequestOptions::default(),
        )
    };
    if image.is_empty() {
        return Err(ApiError::BadRequest(
            "no image: send a multipart field `image` or the image as the body".into(),
        ));
    }
    let recognize_options = RecognizeOptions {
        side_to_move: options.side_to_move,
        view: options.view,
    };
    let job_state = state.clone();
    let boards = state
        .run_cpu(move || {
            let mut boards = job_state.recognizer.recognize(&image, &recognize_options)?;
            if options.analyze {
                let config = &job_state.config;
                let limits = search_limits(config, None, options.movetime_ms, options.multi_pv);
                boards.iter_mut().for_each(|board| board.analyze(&limits));
            }
            Ok(boards)
        })
        .await?;
    Ok(HttpResponse::Ok().json(RecognizeResponse { boards }))
}

async fn read_body(mut payload: web::Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
        append_limited(&mut body, &chunk, limit)?;
    }
    Ok(body)
}

async fn read_multipart(
    mut form: Multipart,
    limit: usize,
) -> Result<(Vec<u8>, RecognizeRequestOptions), ApiError> {
    let mut image = Vec::new();
    let mut options = RecognizeRequestOptions::default();
    while let Some(field) = form.next().await {
        let mut field =
            field.map_err(|e| ApiError::BadRequest(format!("malformed multipart body: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let mut value = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk
                .map_err(|e| ApiError::BadRequest(format!("malformed multipart body: {e}")))?;
            append_limited(&mut value, &chunk, limit)?;
        }
        match name.as_str() {
            "image" => image = value,
            "options" => {
                options = serde_json::from_slice(&value)
                    .map_err(|e| ApiError::BadRequest(format!("invalid options: {e}")))?
            }
            other => {
                return Err(ApiError::BadRequest(format!(
                    "unexpected form field {other:?}"
                )))
            }
        }
    }
    Ok((image, options))
}

fn append_limited(buffer: &mut Vec<u8>, chunk: &[u8], limit: usize) -> Result<(), ApiError> {
    if buffer.len() + chunk.len() > limit {
        return Err(ApiError::ImageTooLarge(format!(
            "upload is over the limit of {limit} bytes"
        )));
    }
    buffer.extend_from_slice(chunk);
    Ok(())
}
