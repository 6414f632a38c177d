//! `POST /api/v1/recognize`: a multipart form with `image` (and optional
//! `options` JSON), or the raw image as the body. A PDF works wherever an
//! image does: every diagram of its pages (or of `options.pages`) comes back
//! with its page and reading-order index, and a page that cannot be read is
//! reported in `pageErrors` while the others still come out.
//!
//! The whole body is held to `--max-upload-bytes` (all fields together) and
//! must arrive within `--body-timeout-ms`; a field given twice is refused.

use std::time::Duration;

use actix_multipart::Multipart;
use actix_web::{http::header, web, HttpRequest, HttpResponse};
use cozy_chess::Color;
use futures_util::StreamExt;
use serde::Deserialize;

use super::{analyze::search_limits, error::ErrorBody, sets, ApiError, AppState};
use crate::{
    library::source_hash,
    recognize::{RecognizeOptions, View},
    scan::{scan_input, PictureScan, ScanOptions, ScannedBoard},
    source::{InputKind, PageRange},
};

/// The `options` field.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecognizeRequestOptions {
    /// `w` or `b`.
    #[serde(
        default,
        deserialize_with = "crate::notation::fen::side_letter::option::deserialize"
    )]
    #[schema(value_type = Option<String>)]
    pub side_to_move: Option<Color>,
    pub view: Option<View>,
    #[serde(default)]
    pub analyze: bool,
    pub movetime_ms: Option<u64>,
    pub multi_pv: Option<usize>,
    /// For a PDF, the pages to read: `10-40`, `7` or `12-` (default: all).
    #[schema(value_type = Option<String>)]
    pub pages: Option<PageRange>,
    /// Keep the recognition in the scan library (default: true when the
    /// service has one); each picture kept gets a `scanId`.
    pub save: Option<bool>,
    /// Read a photo of a physical board as this piece set, learnt with
    /// `PUT /api/v1/sets/{name}`.
    pub set: Option<String>,
}

/// The multipart form (documentation only; a raw image body works too).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct RecognizeForm {
    /// The picture: PNG, JPEG, WebP or GIF, or a PDF.
    #[schema(format = Binary, value_type = String)]
    image: Vec<u8>,
    /// JSON options.
    options: Option<RecognizeRequestOptions>,
}

/// The boards found: for an image largest first, for a PDF by page and in
/// reading order.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecognizeResponse {
    pub boards: Vec<RecognizedBoard>,
    /// The library entry of an image, once it is stored (a PDF's pages each
    /// have their own: see each board's `scanId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan_id: Option<i64>,
    /// Why the recognition could not be kept; the boards are still read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_error: Option<String>,
    /// The PDF pages that could not be read, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_errors: Vec<PageError>,
}

/// A board, and where the library keeps it.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecognizedBoard {
    #[serde(flatten)]
    pub board: ScannedBoard,
    /// The library entry holding the board (its picture's), once stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan_id: Option<i64>,
    /// The board's index in that entry, for `/api/v1/scans/{id}/boards/{board}/…`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan_board: Option<usize>,
}

/// A PDF page that could not be read.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct PageError {
    pub page: usize,
    pub error: String,
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
        (status = 422, description = "No board found (`no-board-found`), or no page of a PDF read (`no-page-read`, with each page's reason)", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn recognize(
    state: web::Data<AppState>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let is_multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let mut body = Body::new(state.config.max_upload_bytes);
    let read = async {
        if is_multipart {
            body.multipart(Multipart::new(request.headers(), payload))
                .await
        } else {
            Ok((
                body.raw(payload).await?,
                RecognizeRequestOptions::default(),
                None,
            ))
        }
    };
    let timeout_ms = state.config.body_timeout_ms;
    let (image, options, source_name) =
        actix_web::rt::time::timeout(Duration::from_millis(timeout_ms), read)
            .await
            .map_err(|_| ApiError::Timeout(timeout_ms))??;
    if image.is_empty() {
        return Err(ApiError::BadRequest(
            "no image: send a multipart field `image` or the image as the body".into(),
        ));
    }
    let set = match options.set.clone() {
        Some(name) => Some(std::sync::Arc::new(sets::adaptation(&state, name).await?)),
        None => None,
    };
    let scan_options = ScanOptions {
        recognize: RecognizeOptions {
            side_to_move: options.side_to_move,
            view: options.view,
            set,
        },
        analysis: options
            .analyze
            .then(|| search_limits(&state.config, None, options.movetime_ms, options.multi_pv)),
        pages: options.pages.unwrap_or(PageRange::ALL),
        pdf: state.config.pdf_limits(),
        thumbnails: false,
        // A request is one CPU job (`--cpu-workers` bounds them), so its pages go one by one.
        page_workers: 1,
    };
    let library = state
        .library
        .clone()
        .filter(|_| options.save.unwrap_or(true));
    let scan_options = ScanOptions {
        thumbnails: library.is_some(),
        ..scan_options
    };
    let job_state = state.clone();
    let hashing = library.is_some();
    let is_pdf = InputKind::of(&image) == InputKind::Pdf;
    let job = move || {
        let hash = hashing.then(|| source_hash(&image));
        let pictures = scan_input(job_state.recognizer()?, image, &scan_options, |_, _| {})?;
        Ok((gather(pictures)?, hash))
    };
    // A book may take its whole page budget: it never takes the last worker.
    let (mut response, hash) = if is_pdf {
        state.run_long_job(job).await?
    } else {
        state.run_cpu(job).await?
    };
    // Outside the CPU job, within its deadline: a slow library holds no worker.
    if let (Some(library), Some(hash)) = (library, hash) {
        state
            .keeper
            .keep(library, &hash, source_name, &mut response)
            .await;
    }
    state.metrics.analyses(
        response
            .boards
            .iter()
            .filter_map(|b| b.board.analysis.as_ref()),
    );
    Ok(HttpResponse::Ok().json(response))
}

/// One response from the pictures of an input. An image's failure is the
/// request's; a PDF fails only when no page gave a board, saying why the
/// pages that could not be read were not.
fn gather(pictures: Vec<PictureScan>) -> Result<RecognizeResponse, ApiError> {
    let mut response = RecognizeResponse {
        boards: Vec::new(),
        scan_id: None,
        library_error: None,
        page_errors: Vec::new(),
    };
    for picture in pictures {
        match (picture.boards, picture.page) {
            (Ok(boards), _) => {
                response
                    .boards
                    .extend(boards.into_iter().map(|board| RecognizedBoard {
                        board,
                        scan_id: None,
                        scan_board: None,
                    }))
            }
            (Err(err), None) => return Err(err.into()),
            (Err(err), Some(page)) => response.page_errors.push(PageError {
                page,
                error: err.to_string(),
            }),
        }
    }
    if response.boards.is_empty() {
        return Err(match response.page_errors.as_slice() {
            [] => ApiError::NoBoardFound,
            failed => ApiError::NoPageRead(page_reasons(failed)),
        });
    }
    Ok(response)
}

/// The most page failures an error message lists.
const MAX_REASONS: usize = 10;

/// `page 1: …; page 2: …` (at most [`MAX_REASONS`], then how many more).
fn page_reasons(failed: &[PageError]) -> String {
    let mut reasons: Vec<String> = failed
        .iter()
        .take(MAX_REASONS)
        .map(|f| format!("page {}: {}", f.page, f.error))
        .collect();
    if failed.len() > MAX_REASONS {
        reasons.push(format!("and {} more pages", failed.len() - MAX_REASONS));
    }
    reasons.join("; ")
}

/// Reads a request body, holding all of it to one size limit.
/// A request body read up to a limit.
pub(super) struct Body {
    read: usize,
    limit: usize,
}

impl Body {
    pub(super) fn new(limit: usize) -> Self {
        Self { read: 0, limit }
    }

    /// The body as it is: the image itself.
    pub(super) async fn raw(&mut self, mut payload: web::Payload) -> Result<Vec<u8>, ApiError> {
        let mut image = Vec::new();
        while let Some(chunk) = payload.next().await {
            let chunk =
                chunk.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
            self.append(&mut image, &chunk)?;
        }
        Ok(image)
    }

    /// A multipart form: one `image` field and at most one `options` field.
    async fn multipart(
        &mut self,
        mut form: Multipart,
    ) -> Result<(Vec<u8>, RecognizeRequestOptions, Option<String>), ApiError> {
        let malformed = |e: actix_multipart::MultipartError| {
            ApiError::BadRequest(format!("malformed multipart body: {e}"))
        };
        let mut image = None;
        let mut options = None;
        let mut file_name = None;
        while let Some(field) = form.next().await {
            let mut field = field.map_err(malformed)?;
            let name = field.name().unwrap_or_default().to_string();
            if name == "image" {
                file_name = field
                    .content_disposition()
                    .and_then(|d| d.get_filename())
                    .map(|f| f.chars().take(255).collect::<String>());
            }
            let slot = match name.as_str() {
                "image" => &mut image,
                "options" => &mut options,
                other => {
                    return Err(ApiError::BadRequest(format!(
                        "unexpected form field {other:?}"
                    )))
                }
            };
            if slot.is_some() {
                return Err(ApiError::BadRequest(format!(
                    "the form field {name:?} appears more than once"
                )));
            }
            let mut value = Vec::new();
            while let Some(chunk) = field.next().await {
                self.append(&mut value, &chunk.map_err(malformed)?)?;
            }
            *slot = Some(value);
        }
        let options = match options {
            Some(json) => serde_json::from_slice(&json)
                .map_err(|e| ApiError::BadRequest(format!("invalid options: {e}")))?,
            None => RecognizeRequestOptions::default(),
        };
        Ok((image.unwrap_or_default(), options, file_name))
    }

    pub(super) fn append(&mut self, buffer: &mut Vec<u8>, chunk: &[u8]) -> Result<(), ApiError> {
        self.read += chunk.len();
        if self.read > self.limit {
            return Err(ApiError::ImageTooLarge(format!(
                "upload is over the limit of {} bytes",
                self.limit
            )));
        }
        buffer.extend_from_slice(chunk);
        Ok(())
    }
}
