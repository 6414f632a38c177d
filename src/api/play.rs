//! `POST /api/v1/play`: the engine's move at a chosen strength. A clock and
//! games of the engine against itself are client-side loops over it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use super::{ApiError, AppState};
use crate::{
    analysis::{
        play::{Strength, LEVELS},
        BestMove, GameOver,
    },
    notation::{
        fen::parse_fen,
        lang::{Lang, MoveStyle},
    },
};

/// Thinking time when the request gives none.
const DEFAULT_MOVETIME_MS: u64 = 1_000;

/// The request body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlayRequest {
    pub fen: String,
    /// 1 (weakest) to 8 (full strength); not together with `elo`.
    pub level: Option<u8>,
    /// An Elo: Stockfish's `UCI_Elo` (clamped to its range), or our nearest level.
    pub elo: Option<u32>,
    /// An engine of `GET /api/v1/engines`; default: ours.
    pub engine: Option<String>,
    /// Thinking time at most (default 1000, at most the service's `--max-movetime-ms`).
    pub movetime_ms: Option<u64>,
    /// Seed of our levels' random choice among near-best moves (default: the clock).
    pub seed: Option<u64>,
}

/// The move played.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayResponse {
    #[serde(rename = "move")]
    pub mv: BestMove,
    pub fen_after: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_over: Option<GameOver>,
    pub level: u8,
    /// Approximate Elo of the strength played at (absent for an engine without `UCI_Elo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo: Option<u32>,
}

#[utoipa::path(
    post,
    path = "/api/v1/play",
    request_body = PlayRequest,
    responses(
        (status = 200, description = "The engine's move", body = PlayResponse),
        (status = 400, description = "Malformed FEN or body, a level outside 1-8, level and elo together, or an unknown engine (`unknown-engine`)", body = super::error::ErrorBody),
        (status = 422, description = "Impossible position, or no legal move", body = super::error::ErrorBody),
        (status = 502, description = "The engine crashed, hung or printed garbage (`engine-failed`)", body = super::error::ErrorBody),
        (status = 503, description = "Busy", body = super::error::ErrorBody),
    )
)]
pub async fn play(
    state: web::Data<AppState>,
    request: web::Json<PlayRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let board = parse_fen(&request.fen)?;
    let strength = match (request.level, request.elo) {
        (Some(_), Some(_)) => {
            return Err(ApiError::BadRequest(
                "give a level or an elo, not both".into(),
            ))
        }
        (Some(level), None) if (1..=LEVELS).contains(&level) => Strength::Level(level),
        (Some(level), None) => {
            return Err(ApiError::BadRequest(format!(
                "level {level} is outside 1-{LEVELS}"
            )))
        }
        (None, Some(elo)) => Strength::Elo(elo),
        (None, None) => Strength::Full,
    };
    state.engines.check(request.engine.as_deref())?;
    let movetime = Duration::from_millis(
        request
            .movetime_ms
            .unwrap_or(DEFAULT_MOVETIME_MS)
            .clamp(1, state.config.max_movetime_ms),
    );
    let seed = request.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let engines = state.clone();
    let (mv, played) = state
        .run_cpu(move || {
            let name = request.engine.as_deref();
            let played = engines
                .engines
                .play(name, &board, strength, movetime, seed)?;
            let mv = BestMove::new(&board, played.mv, Lang::En, MoveStyle::San);
            Ok((mv, played))
        })
        .await?;
    Ok(HttpResponse::Ok().json(PlayResponse {
        mv,
        fen_after: played.fen_after,
        game_over: played.game_over,
        level: played.level,
        elo: played.elo,
    }))
}
