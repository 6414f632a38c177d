//! `GET /api/v1/engines`: the engines this service runs.

use actix_web::{web, HttpResponse};
use serde::Serialize;

use super::AppState;
use crate::analysis::EngineInfo;

/// Every engine, ours (the default) first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct EnginesResponse {
    pub engines: Vec<EngineInfo>,
}

#[utoipa::path(
    get,
    path = "/api/v1/engines",
    responses((status = 200, description = "The engines, with their names and UCI options", body = EnginesResponse))
)]
pub async fn list(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(EnginesResponse {
        engines: state.engines.list(),
    })
}
