//! The `"mate": N` form of `POST /api/v1/analyze`: the exact mate solver
//! instead of the search, within the service's longest search time.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use actix_web::{web, HttpResponse};
use cozy_chess::Board;
use serde::Serialize;

use super::{ApiError, AppState};
use crate::{
    analysis::{
        engine::mate::{self, MateLimits},
        mate_report::{self, MateSearch},
        AnalysisView,
    },
    notation::lang::{Lang, MoveStyle},
};

/// The answer to a mate request: the analysis (the key and the main line,
/// when a mate was found) and the solver's own answer.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MateAnalysis {
    #[serde(flatten)]
    pub analysis: AnalysisView,
    pub mate_search: MateSearch,
}

/// Solves `board` for a mate in `n` (1 to the service's `--max-mate`, else
/// `bad-request`), for at most `movetime_ms` (default and cap: the
/// service's `--max-movetime-ms`); a search cut short answers `proven: false`.
/// Moves are written in `lang` and `style`.
pub async fn solve(
    state: &web::Data<AppState>,
    board: Board,
    n: u32,
    movetime_ms: Option<u64>,
    (lang, style): (Lang, MoveStyle),
) -> Result<HttpResponse, ApiError> {
    let max = state.config.max_mate;
    if !(1..=max).contains(&n) {
        return Err(ApiError::BadRequest(format!(
            "mate must be from 1 to {max} moves, not {n}"
        )));
    }
    let cap = state.config.max_movetime_ms;
    let limits = MateLimits {
        max_time: Some(Duration::from_millis(
            movetime_ms.unwrap_or(cap).clamp(1, cap),
        )),
        ..MateLimits::default()
    };
    let (analysis, mate_search) = state
        .run_cpu(move || {
            let result = mate::solve(&board, n, &limits, &AtomicBool::new(false));
            let analysis = mate_report::analysis(&board, &result);
            Ok((analysis, MateSearch::new(&board, &result, lang, style)))
        })
        .await?;
    state.metrics.analyses([&analysis]);
    let answer = MateAnalysis {
        analysis: analysis.render(lang, style),
        mate_search,
    };
    Ok(HttpResponse::Ok().json(answer))
}
