//! `GET /openapi.json`: the OpenAPI 3 description, generated from the code.

use actix_web::HttpResponse;
use utoipa::OpenApi;

use super::{
    analyze, coach, engines, error::ErrorBody, game, health, library, metrics, play, recognize,
    recording, sets, stream,
};
use crate::{
    analysis::{self, coach as coaching},
    notation::lang,
    recognize as rec,
};

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
        coach::hint,
        coach::grade,
        coach::moves,
        game::game,
        game::game_stream,
        recording::recording,
        health::health,
        health::live,
        health::ready,
        metrics::metrics,
        library::list,
        library::get,
        library::thumbnail,
        library::correct,
        library::delete,
        library::delete_all,
        library::export,
        sets::learn,
        sets::list,
        sets::forget
    ),
    components(schemas(
        rec::BoardReading,
        crate::scan::ScannedBoard,
        rec::SquareReading,
        rec::Links,
        rec::View,
        rec::SideSource,
        recognize::RecognizeResponse,
        recognize::RecognizedBoard,
        crate::library::Scan,
        crate::library::StoredBoard,
        crate::library::Correction,
        crate::library::ScanPage,
        library::CorrectionRequest,
        library::Deleted,
        crate::library::PieceSet,
        sets::LearnForm,
        recognize::PageError,
        recognize::RecognizeRequestOptions,
        recognize::RecognizeForm,
        analyze::AnalyzeRequest,
        stream::StreamLimits,
        analysis::AnalysisView,
        analysis::BestMove,
        analysis::PvView,
        analysis::Ended,
        engines::EnginesResponse,
        analysis::EngineInfo,
        analysis::EngineOption,
        play::PlayRequest,
        play::PlayResponse,
        lang::Lang,
        lang::MoveStyle,
        coach::HintRequest,
        coach::GradeRequest,
        coach::MovesRequest,
        coaching::hint::Hint,
        coaching::hint::MoveKind,
        coaching::grade::Grade,
        coaching::grade::GradeKind,
        analysis::Score,
        coaching::moves::MoveList,
        coaching::moves::LegalMove,
        analysis::GameOver,
        analysis::mate_report::MateSearch,
        super::mate::MateAnalysis,
        game::GameRequest,
        game::GameResponse,
        recording::RecordingResponse,
        recording::RecordedGame,
        crate::games::summary::GameSummary,
        crate::games::analyse::GameAnalysis,
        crate::games::analyse::MoveReport,
        crate::games::analyse::Eval,
        crate::games::analyse::Side,
        crate::games::analyse::SideSummary,
        crate::games::analyse::Budget,
        crate::games::openings::Opening,
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
