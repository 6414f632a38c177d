//! `POST /api/v1/analyze`, and the search limits every request is held to.

use std::{sync::atomic::AtomicBool, time::Duration};

use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::{ApiError, AppState, ServiceConfig};
use crate::{
    analysis::{engine, AnalysisLimits, AnalysisView},
    notation::{
        fen::{parse_fen, FenError},
        lang::{Lang, MoveStyle},
    },
};

/// Search time when a request names neither depth nor time.
const DEFAULT_MOVETIME_MS: u64 = 1_000;

/// The request body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// A FEN; the board part alone means White to move, no castling.
    pub fen: String,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub multi_pv: Option<usize>,
    /// An engine of `GET /api/v1/engines`; default: ours (`boardscan`).
    pub engine: Option<String>,
    /// Language of the piece letters in the `san` fields (default `en`).
    pub lang: Option<Lang>,
    /// Notation of the `san` fields: `san` (default), `long` or `iccf`.
    pub notation: Option<MoveStyle>,
    /// Look for a forced mate in at most this many moves with the exact
    /// solver (1 to the service's `--max-mate`); the answer adds `mateSearch`.
    pub mate: Option<u32>,
    /// Keep the analysis with this scan library board (with `scanBoard`, default 0).
    pub scan_id: Option<i64>,
    pub scan_board: Option<usize>,
}

/// Turns what a request asks for into limits within the service's bounds.
pub fn search_limits(
    config: &ServiceConfig,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    multi_pv: Option<usize>,
) -> AnalysisLimits {
    let movetime = match (depth, movetime_ms) {
        (None, None) => DEFAULT_MOVETIME_MS,
        (_, Some(ms)) => ms,
        (Some(_), None) => config.max_movetime_ms,
    }
    .clamp(1, config.max_movetime_ms);
    AnalysisLimits {
        depth: Some(depth.unwrap_or(config.max_depth).clamp(1, config.max_depth)),
        movetime: Some(Duration::from_millis(movetime)),
        nodes: None,
        multipv: multi_pv.unwrap_or(1).clamp(1, config.max_multipv),
        threads: config.search_threads.max(1),
    }
}

/// The limits of a live analysis that runs until the client stops or leaves:
/// the engine's deepest search, for at most `--max-live-seconds`.
pub fn infinite_limits(config: &ServiceConfig, multi_pv: Option<usize>) -> AnalysisLimits {
    AnalysisLimits {
        depth: Some(engine::MAX_DEPTH),
        movetime: (config.max_live_seconds > 0)
            .then(|| Duration::from_secs(config.max_live_seconds)),
        nodes: None,
        multipv: multi_pv.unwrap_or(1).clamp(1, config.max_multipv),
        threads: config.search_threads.max(1),
    }
}

impl From<FenError> for ApiError {
    fn from(err: FenError) -> Self {
        if err.is_impossible() {
            ApiError::IllegalPosition(err.to_string())
        } else {
            ApiError::BadRequest(err.to_string())
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/analyze",
    request_body = AnalyzeRequest,
    responses(
        (status = 200, description = "The analysis; with `mate`, a `MateAnalysis` (the analysis plus `mateSearch`)", body = AnalysisView),
        (status = 400, description = "Malformed FEN or body, `mate` out of range, or an unknown engine (`unknown-engine`)", body = super::error::ErrorBody),
        (status = 404, description = "`scanId` names no library board", body = super::error::ErrorBody),
        (status = 422, description = "Impossible position", body = super::error::ErrorBody),
        (status = 502, description = "The engine crashed, hung or printed garbage (`engine-failed`); it was restarted", body = super::error::ErrorBody),
        (status = 503, description = "Busy", body = super::error::ErrorBody),
    )
)]
pub async fn analyze(
    state: web::Data<AppState>,
    request: web::Json<AnalyzeRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let board = parse_fen(&request.fen)?;
    if let Some(n) = request.mate {
        return super::mate::solve(
            &state,
            board,
            n,
            request.movetime_ms,
            (
                request.lang.unwrap_or_default(),
                request.notation.unwrap_or_default(),
            ),
        )
        .await;
    }
    let limits = search_limits(
        &state.config,
        request.depth,
        request.movetime_ms,
        request.multi_pv,
    );
    state.engines.check(request.engine.as_deref())?;
    let engines = state.clone();
    let analysis = state
        .run_cpu(move || {
            let stop = AtomicBool::new(false);
            let name = request.engine.as_deref();
            Ok(engines
                .engines
                .analyze(name, &board, &limits, |_| {}, &stop)?)
        })
        .await?;
    state.metrics.analyses([&analysis]);
    if let Some(scan_id) = request.scan_id {
        let board = request.scan_board.unwrap_or(0);
        super::library::keep_analysis(&state, scan_id, board, &analysis).await?;
    }
    Ok(HttpResponse::Ok().json(analysis.render(
        request.lang.unwrap_or_default(),
        request.notation.unwrap_or_default(),
    )))
}
