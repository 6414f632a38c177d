//! `POST /api/v1/hint`, `POST /api/v1/grade` and `POST /api/v1/moves`.

use std::{sync::atomic::AtomicBool, time::Duration};

use actix_web::{web, HttpResponse};
use cozy_chess::Board;
use serde::Deserialize;

use super::{analyze::search_limits, ApiError, AppState, ServiceConfig};
use crate::{
    analysis::coach::{
        self as coaching,
        grade::{self, Grade},
        hint::{self, Hint, HintRequest as Ask},
        moves::{legal_moves, MoveList},
        CoachError,
    },
    analysis::{Analysis, AnalysisLimits},
    notation::{
        fen::parse_fen,
        lang::{read_move, Lang, MoveStyle},
    },
};

/// The body of `POST /api/v1/hint`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HintRequest {
    pub fen: String,
    /// 1: the piece to move; 2: also the kind of move; 3: the move (default 1).
    pub level: Option<u8>,
    /// Hint at what the opponent threatens instead.
    pub threat: Option<bool>,
    pub lang: Option<Lang>,
    pub notation: Option<MoveStyle>,
    /// An engine of `GET /api/v1/engines`; default: ours (`boardscan`).
    pub engine: Option<String>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
}

/// The body of `POST /api/v1/grade`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GradeRequest {
    pub fen: String,
    /// The move in any notation: UCI, ICCF, SAN or long algebraic in any
    /// language (`lang`'s letters win where letters differ).
    #[serde(rename = "move")]
    pub mv: String,
    pub lang: Option<Lang>,
    pub notation: Option<MoveStyle>,
    /// An engine of `GET /api/v1/engines`; default: ours (`boardscan`).
    pub engine: Option<String>,
    /// Time for each of the two searches.
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
}

/// The body of `POST /api/v1/moves`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MovesRequest {
    pub fen: String,
    pub lang: Option<Lang>,
    pub notation: Option<MoveStyle>,
}

impl From<CoachError> for ApiError {
    fn from(err: CoachError) -> Self {
        match err {
            CoachError::Move(_) => ApiError::IllegalMove(err.to_string()),
            CoachError::InCheck => ApiError::InCheck(err.to_string()),
            CoachError::NoMove(_) => ApiError::GameOver(err.to_string()),
            CoachError::Level(_) => ApiError::BadRequest(err.to_string()),
            CoachError::NoEngineMove => ApiError::Internal(err.to_string()),
        }
    }
}

/// The search of a hint or a grade: [`coaching::limits`], the CLI's, within the service's bounds.
fn coach_limits(
    config: &ServiceConfig,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
) -> AnalysisLimits {
    let asked = coaching::limits(depth, movetime_ms.map(Duration::from_millis));
    search_limits(
        config,
        asked.depth,
        asked.movetime.map(|t| t.as_millis() as u64),
        None,
    )
}

/// Searches `board` with the request's engine (ours unless it names another
/// of `GET /api/v1/engines`); blocking, for inside `run_cpu`.
fn search(
    state: &AppState,
    engine: Option<&str>,
    board: &Board,
    limits: &AnalysisLimits,
) -> Result<Analysis, ApiError> {
    let stop = AtomicBool::new(false);
    Ok(state
        .engines
        .analyze(engine, board, limits, |_| {}, &stop)?)
}

#[utoipa::path(
    post,
    path = "/api/v1/hint",
    request_body = HintRequest,
    responses(
        (status = 200, description = "The hint", body = Hint),
        (status = 400, description = "Malformed FEN or body, bad level, unknown engine (`unknown-engine`)", body = super::error::ErrorBody),
        (status = 422, description = "Impossible position, no legal move (`game-over`), or a threat asked for in check (`in-check`)", body = super::error::ErrorBody),
        (status = 502, description = "The engine failed (`engine-failed`); it was restarted", body = super::error::ErrorBody),
        (status = 503, description = "Busy", body = super::error::ErrorBody),
    )
)]
pub async fn hint(
    state: web::Data<AppState>,
    request: web::Json<HintRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    state.engines.check(request.engine.as_deref())?;
    let board = parse_fen(&request.fen)?;
    let ask = Ask {
        level: request.level.unwrap_or(1),
        threat: request.threat.unwrap_or(false),
        lang: request.lang.unwrap_or_default(),
        style: request.notation.unwrap_or_default(),
    };
    if !(1..=3).contains(&ask.level) {
        return Err(CoachError::Level(ask.level).into());
    }
    // Refusals (in check, no move) answer before any search.
    hint::hint_position(&board, ask.threat)?;
    let limits = coach_limits(&state.config, request.depth, request.movetime_ms);
    let engines = state.clone();
    let engine = request.engine;
    let hint = state
        .run_cpu(move || {
            hint::hint(&board, ask, |b| {
                search(&engines, engine.as_deref(), b, &limits)
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(hint))
}

#[utoipa::path(
    post,
    path = "/api/v1/grade",
    request_body = GradeRequest,
    responses(
        (status = 200, description = "The grade", body = Grade),
        (status = 400, description = "Malformed FEN or body; unreadable, illegal or ambiguous move (`illegal-move`); unknown engine (`unknown-engine`)", body = super::error::ErrorBody),
        (status = 422, description = "Impossible position", body = super::error::ErrorBody),
        (status = 502, description = "The engine failed (`engine-failed`); it was restarted", body = super::error::ErrorBody),
        (status = 503, description = "Busy", body = super::error::ErrorBody),
    )
)]
pub async fn grade(
    state: web::Data<AppState>,
    request: web::Json<GradeRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    state.engines.check(request.engine.as_deref())?;
    let board = parse_fen(&request.fen)?;
    let lang = request.lang.unwrap_or_default();
    let style = request.notation.unwrap_or_default();
    let read = read_move(&board, &request.mv, lang).map_err(CoachError::from)?;
    let limits = coach_limits(&state.config, request.depth, request.movetime_ms);
    let engines = state.clone();
    let engine = request.engine;
    let grade = state
        .run_cpu(move || {
            grade::grade(&board, read.mv, lang, style, |b| {
                search(&engines, engine.as_deref(), b, &limits)
            })
            .map(|grade| Grade {
                read_as: read.reading,
                ..grade
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(grade))
}

#[utoipa::path(
    post,
    path = "/api/v1/moves",
    request_body = MovesRequest,
    responses(
        (status = 200, description = "Every legal move", body = MoveList),
        (status = 400, description = "Malformed FEN or body", body = super::error::ErrorBody),
        (status = 422, description = "Impossible position", body = super::error::ErrorBody),
    )
)]
pub async fn moves(request: web::Json<MovesRequest>) -> Result<HttpResponse, ApiError> {
    let board = parse_fen(&request.fen)?;
    let list = legal_moves(
        &board,
        request.lang.unwrap_or_default(),
        request.notation.unwrap_or_default(),
    );
    Ok(HttpResponse::Ok().json(list))
}
