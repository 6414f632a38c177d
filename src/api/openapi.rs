//! `GET /openapi.json`: the OpenAPI 3 description, generated from the code.

use actix_web::HttpResponse;
use utoipa::OpenApi;

use super::{analyze, engines, error::ErrorBody, health, metrics, play, recognize, stream};
use crate::{engine, engines as registry, recognize as rec};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "boardscan",
        description = "Reads chess positions out of pictures and analyses them."
    ),
    paths(
        recognize::recognize,
        analyze::analyze,
        stream::stream,
        engines::list,
        play::play,
        health::health,
        health::live,
        health::ready,
        metrics::metrics
    ),
    components(schemas(
        rec::BoardReading,
        crate::scan::ScannedBoard,
        rec::SquareReading,
        rec::Links,
        rec::View,
        rec::SideSource,
        recognize::RecognizeResponse,
        recognize::PageError,
        recognize::RecognizeRequestOptions,
        recognize::RecognizeForm,
        analyze::AnalyzeRequest,
        engine::Analysis,
        engine::BestMove,
        engine::Pv,
        engines::EnginesResponse,
        registry::EngineInfo,
        registry::EngineOption,
        play::PlayRequest,
        play::PlayResponse,
        registry::play::GameOver,
        ErrorBody,
        health::Health,
        health::Readiness,
        health::NotReady
    ))
)]
pub struct ApiDoc;

pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}
