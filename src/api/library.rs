//! `/api/v1/scans`: the scan library over HTTP. List and search, one scan,
//! a board's thumbnail, a person's correction, delete one or all, export.
//!
//! The library calls block (SQLite or PostgreSQL), so they run on the
//! blocking pool, not on the actix workers; they are not CPU jobs and do
//! not count against `--max-jobs`.

use actix_web::{http::header, web, HttpResponse};
use serde::Deserialize;

use super::{error::ErrorBody, ApiError, AppState};
use crate::library::{
    transfer::{self, ExportFormat},
    Library, LibraryError, Scan, ScanPage, ScanQuery, StoredBoard,
};

/// Scans per page unless asked.
const DEFAULT_PER_PAGE: u64 = 20;

/// Filters of the list and the export; a scan matches when one of its boards does.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ScanFilters {
    /// From 1.
    pub page: Option<u64>,
    /// 1 to 200 (default 20).
    pub per_page: Option<u64>,
    /// The exact position (a FEN; missing fields as the FEN reader fills them).
    pub fen: Option<String>,
    /// The same placement with any side to move: a FEN's board field (or a whole FEN).
    pub placement: Option<String>,
    /// A material signature such as `KRPPvKR`, or `KRvKR` for every rook ending.
    pub material: Option<String>,
    /// Only corrected (true) or uncorrected (false) boards.
    pub corrected: Option<bool>,
    /// For the export: `pgn`, `epd` or `csv`.
    #[param(value_type = Option<String>)]
    pub format: Option<ExportFormat>,
}

impl ScanFilters {
    fn query(&self) -> ScanQuery {
        ScanQuery {
            page: self.page.unwrap_or(1),
            per_page: self.per_page.unwrap_or(DEFAULT_PER_PAGE),
            fen: self.fen.clone(),
            placement: self.placement.clone(),
            material: self.material.clone(),
            corrected: self.corrected,
        }
    }
}

/// A person's correction of a board.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CorrectionRequest {
    /// The true position: squares, side to move and castling.
    pub fen: String,
}

/// The answer to deleting everything.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Deleted {
    /// Scans deleted.
    pub deleted: u64,
}

/// `DELETE /api/v1/scans` deletes everything only when told `all=true`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeleteAll {
    /// Must be `true`.
    pub all: Option<bool>,
}

impl From<LibraryError> for ApiError {
    fn from(err: LibraryError) -> Self {
        match err {
            e if e.is_not_found() => ApiError::NotFound(e.to_string()),
            e @ LibraryError::BadInput(_) => ApiError::BadRequest(e.to_string()),
            e @ LibraryError::ThumbnailTooLarge { .. } => ApiError::ImageTooLarge(e.to_string()),
            e @ LibraryError::Full { .. } => ApiError::LibraryFull(e.to_string()),
            e @ (LibraryError::Busy { .. } | LibraryError::Unavailable { .. }) => {
                ApiError::LibraryUnavailable(e.to_string())
            }
            e => ApiError::LibraryFailed(e.to_string()),
        }
    }
}

/// Runs `work` on the library off the actix workers.
pub(super) async fn with_library<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Library) -> Result<T, LibraryError> + Send + 'static,
) -> Result<T, ApiError> {
    let library = state.library.clone().ok_or(ApiError::LibraryOff)?;
    web::block(move || work(&library))
        .await
        .map_err(|e| ApiError::Internal(format!("worker failed: {e}")))?
        .map_err(ApiError::from)
}

#[utoipa::path(
    get,
    path = "/api/v1/scans",
    params(ScanFilters),
    responses(
        (status = 200, description = "A page of scans, newest first", body = ScanPage),
        (status = 400, description = "A malformed filter", body = ErrorBody),
        (status = 404, description = "The library is off", body = ErrorBody),
    )
)]
pub async fn list(
    state: web::Data<AppState>,
    filters: web::Query<ScanFilters>,
) -> Result<HttpResponse, ApiError> {
    let query = filters.query();
    let page = with_library(&state, move |library| library.list(&query)).await?;
    Ok(HttpResponse::Ok().json(page))
}

#[utoipa::path(
    get,
    path = "/api/v1/scans/{id}",
    params(("id" = i64, Path, description = "The scan")),
    responses(
        (status = 200, description = "The scan", body = Scan),
        (status = 404, description = "No such scan", body = ErrorBody),
    )
)]
pub async fn get(state: web::Data<AppState>, id: web::Path<i64>) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let scan = with_library(&state, move |library| library.get(id)).await?;
    Ok(HttpResponse::Ok().json(scan))
}

#[utoipa::path(
    get,
    path = "/api/v1/scans/{id}/boards/{board}/thumbnail.png",
    params(
        ("id" = i64, Path, description = "The scan"),
        ("board" = usize, Path, description = "The board, from 0"),
    ),
    responses(
        (status = 200, description = "The board's picture", content_type = "image/png", body = Vec<u8>),
        (status = 404, description = "No such scan, board or picture", body = ErrorBody),
    )
)]
pub async fn thumbnail(
    state: web::Data<AppState>,
    path: web::Path<(i64, usize)>,
) -> Result<HttpResponse, ApiError> {
    let (id, board) = path.into_inner();
    let png = with_library(&state, move |library| library.thumbnail(id, board)).await?;
    Ok(HttpResponse::Ok()
        .content_type("image/png")
        .insert_header((header::CACHE_CONTROL, "private, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(png))
}

#[utoipa::path(
    post,
    path = "/api/v1/scans/{id}/boards/{board}/corrections",
    params(
        ("id" = i64, Path, description = "The scan"),
        ("board" = usize, Path, description = "The board, from 0"),
    ),
    request_body = CorrectionRequest,
    responses(
        (status = 200, description = "The board with its correction history", body = StoredBoard),
        (status = 400, description = "Not a FEN of a possible position", body = ErrorBody),
        (status = 404, description = "No such scan or board", body = ErrorBody),
    )
)]
pub async fn correct(
    state: web::Data<AppState>,
    path: web::Path<(i64, usize)>,
    body: web::Json<CorrectionRequest>,
) -> Result<HttpResponse, ApiError> {
    let (id, board) = path.into_inner();
    let fen = body.into_inner().fen;
    let board = with_library(&state, move |library| library.correct(id, board, &fen)).await?;
    Ok(HttpResponse::Ok().json(board))
}

#[utoipa::path(
    delete,
    path = "/api/v1/scans/{id}",
    params(("id" = i64, Path, description = "The scan")),
    responses(
        (status = 204, description = "Deleted with its boards and corrections"),
        (status = 404, description = "No such scan", body = ErrorBody),
    )
)]
pub async fn delete(
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    with_library(&state, move |library| library.delete(id)).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(
    delete,
    path = "/api/v1/scans",
    params(DeleteAll),
    responses(
        (status = 200, description = "Everything deleted", body = Deleted),
        (status = 400, description = "`all=true` missing", body = ErrorBody),
    )
)]
pub async fn delete_all(
    state: web::Data<AppState>,
    confirm: web::Query<DeleteAll>,
) -> Result<HttpResponse, ApiError> {
    if confirm.all != Some(true) {
        return Err(ApiError::BadRequest(
            "deleting every scan needs ?all=true".into(),
        ));
    }
    let deleted = with_library(&state, |library| library.delete_all()).await?;
    Ok(HttpResponse::Ok().json(Deleted { deleted }))
}

#[utoipa::path(
    get,
    path = "/api/v1/scans/export",
    params(ScanFilters),
    responses(
        (status = 200, description = "Every matching board as PGN, EPD or CSV", content_type = "text/plain", body = String),
        (status = 400, description = "No or an unknown format", body = ErrorBody),
    )
)]
pub async fn export(
    state: web::Data<AppState>,
    filters: web::Query<ScanFilters>,
) -> Result<HttpResponse, ApiError> {
    let format = filters
        .format
        .ok_or_else(|| ApiError::BadRequest("format must be pgn, epd or csv".into()))?;
    let query = filters.query();
    let body = with_library(&state, move |library| {
        let mut out = Vec::new();
        transfer::export(library, &query, format, &mut out)?;
        Ok(out)
    })
    .await?;
    let extension = match format {
        ExportFormat::Pgn => "pgn",
        ExportFormat::Epd => "epd",
        ExportFormat::Csv => "csv",
    };
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"boardscan-library.{extension}\""),
        ))
        .body(body))
}

/// Keeps an analysis with the library board it was asked for
/// (`/api/v1/analyze` with `scanId` and `scanBoard`).
pub async fn keep_analysis(
    state: &AppState,
    scan_id: i64,
    board: usize,
    analysis: &crate::analysis::Analysis,
) -> Result<(), ApiError> {
    let json = serde_json::to_value(analysis).map_err(|e| ApiError::Internal(e.to_string()))?;
    with_library(state, move |library| {
        library.set_analysis(scan_id, board, &json)
    })
    .await
}

/// Registers the library's routes (the export before `{id}`).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/scans", web::get().to(list))
        .route("/api/v1/scans", web::delete().to(delete_all))
        .route("/api/v1/scans/export", web::get().to(export))
        .route("/api/v1/scans/{id}", web::get().to(get))
        .route("/api/v1/scans/{id}", web::delete().to(delete))
        .route(
            "/api/v1/scans/{id}/boards/{board}/thumbnail.png",
            web::get().to(thumbnail),
        )
        .route(
            "/api/v1/scans/{id}/boards/{board}/corrections",
            web::post().to(correct),
        );
}
