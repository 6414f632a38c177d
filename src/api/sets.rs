//! `/api/v1/sets`: users' own physical piece sets. Photos of a set in the
//! starting position teach the standing-piece reader that set
//! (`Recognizer::learn_set`); the correction is kept by name in the scan
//! library, and `POST /api/v1/recognize` reads a photo as that set when its
//! options name it (`"set": "NAME"`).

use std::time::Duration;

use actix_multipart::Multipart;
use actix_web::{web, HttpResponse};
use futures_util::StreamExt;
use serde::Deserialize;

use super::{error::ErrorBody, library::with_library, recognize::Body, ApiError, AppState};
use crate::{
    library::PieceSet,
    recognize::{LearnSetError, SetAdaptation, View},
};

/// The most photos one set is learnt from.
const MAX_PHOTOS: usize = 8;

/// `PUT /api/v1/sets/{name}`: which side is nearer the camera.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LearnParams {
    /// `white` or `black` (default: the side the white pieces are on).
    pub view: Option<View>,
}

/// The multipart form (documentation only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct LearnForm {
    /// Photos of the set in the starting position, one `photo` field each (1 to 8).
    #[schema(format = Binary, value_type = Vec<String>)]
    photo: Vec<Vec<u8>>,
}

impl From<LearnSetError> for ApiError {
    fn from(err: LearnSetError) -> Self {
        match err {
            LearnSetError::Unreadable { source, .. } => source.into(),
            LearnSetError::NoBoard { .. } => ApiError::NoBoardFound,
            e => ApiError::BadRequest(e.to_string()),
        }
    }
}

#[utoipa::path(
    put,
    path = "/api/v1/sets/{name}",
    params(("name" = String, Path, description = "The set's name"), LearnParams),
    request_body(content = LearnForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The set, learnt and kept (replacing one of that name)", body = PieceSet),
        (status = 400, description = "No photo, too many, a bad name, or a photo that is not the starting position", body = ErrorBody),
        (status = 404, description = "The library is off", body = ErrorBody),
        (status = 413, description = "Upload too large", body = ErrorBody),
        (status = 415, description = "Not an image", body = ErrorBody),
        (status = 422, description = "No board seen at an angle in a photo", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn learn(
    state: web::Data<AppState>,
    name: web::Path<String>,
    params: web::Query<LearnParams>,
    form: Multipart,
) -> Result<HttpResponse, ApiError> {
    if state.library.is_none() {
        return Err(ApiError::LibraryOff);
    }
    let timeout_ms = state.config.body_timeout_ms;
    let photos = actix_web::rt::time::timeout(
        Duration::from_millis(timeout_ms),
        read_photos(form, state.config.max_upload_bytes),
    )
    .await
    .map_err(|_| ApiError::Timeout(timeout_ms))??;
    let view = params.view;
    let job_state = state.clone();
    let adaptation = state
        .run_cpu(move || {
            let slices: Vec<&[u8]> = photos.iter().map(Vec::as_slice).collect();
            Ok(job_state.recognizer()?.learn_set(&slices, view)?)
        })
        .await?;
    let name = name.into_inner();
    let set = with_library(&state, move |library| {
        library.save_set(&name, adaptation.photos, &adaptation.to_bytes())
    })
    .await?;
    Ok(HttpResponse::Created().json(set))
}

#[utoipa::path(
    get,
    path = "/api/v1/sets",
    responses(
        (status = 200, description = "The sets learnt, by name", body = Vec<PieceSet>),
        (status = 404, description = "The library is off", body = ErrorBody),
    )
)]
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let sets = with_library(&state, |library| library.sets()).await?;
    Ok(HttpResponse::Ok().json(sets))
}

#[utoipa::path(
    delete,
    path = "/api/v1/sets/{name}",
    params(("name" = String, Path, description = "The set's name")),
    responses(
        (status = 204, description = "Forgotten"),
        (status = 404, description = "No such set, or the library is off", body = ErrorBody),
    )
)]
pub async fn forget(
    state: web::Data<AppState>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    with_library(&state, move |library| library.delete_set(&name)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The correction of the set `name`, for a recognition.
pub async fn adaptation(state: &AppState, name: String) -> Result<SetAdaptation, ApiError> {
    let stored = with_library(state, move |library| library.set(&name)).await?;
    SetAdaptation::from_bytes(&stored.adaptation)
        .map_err(|e| ApiError::Internal(format!("the set {:?}: {e}", stored.name)))
}

/// The `photo` fields of a form, all of them together held to `limit` bytes.
async fn read_photos(mut form: Multipart, limit: usize) -> Result<Vec<Vec<u8>>, ApiError> {
    let malformed = |e: actix_multipart::MultipartError| {
        ApiError::BadRequest(format!("malformed multipart body: {e}"))
    };
    let mut body = Body::new(limit);
    let mut photos = Vec::new();
    while let Some(field) = form.next().await {
        let mut field = field.map_err(malformed)?;
        let name = field.name().unwrap_or_default().to_string();
        if name != "photo" {
            return Err(ApiError::BadRequest(format!(
                "unexpected form field {name:?}"
            )));
        }
        if photos.len() == MAX_PHOTOS {
            return Err(ApiError::BadRequest(format!(
                "at most {MAX_PHOTOS} photos a set"
            )));
        }
        let mut photo = Vec::new();
        while let Some(chunk) = field.next().await {
            body.append(&mut photo, &chunk.map_err(malformed)?)?;
        }
        photos.push(photo);
    }
    if photos.is_empty() {
        return Err(ApiError::BadRequest(
            "no photo: send the set in the starting position as `photo` fields".into(),
        ));
    }
    Ok(photos)
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/sets", web::get().to(list))
        .route("/api/v1/sets/{name}", web::put().to(learn))
        .route("/api/v1/sets/{name}", web::delete().to(forget));
}
