//! `GET /api/v1/analyze/stream`: live analysis as Server-Sent Events.
//!
//! The search is admitted like any CPU job (a full queue answers 503 before
//! the stream starts) and sends `event: limits` (what it will search, after
//! the service's bounds), `event: depth` after each completed depth, then
//! `event: done` (or `event: error`). With `infinite=true` it searches until
//! the client stops or leaves, or `--max-live-seconds` have passed. A comment line every
//! [`HEARTBEAT`] keeps proxies from closing a quiet stream and lets the
//! server notice a client that left: when the connection is gone actix drops
//! the response stream, which sets the search's stop flag, so the search
//! ends and its worker (and engine process) is free again.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc,
};
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::{web, web::Bytes, HttpRequest, HttpResponse};
use futures_util::Stream;
use serde::{Deserialize, Serialize};
use tokio::{
    sync::mpsc,
    time::{interval, Interval, MissedTickBehavior},
};

use super::{
    analyze::{infinite_limits, search_limits},
    error::ErrorBody,
    ApiError, AppState,
};
use crate::{
    analysis::{Analysis, AnalysisLimits, AnalysisView},
    notation::{
        fen::parse_fen,
        lang::{Lang, MoveStyle},
    },
};

/// Time between keep-alive comments.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// Events buffered for a slow client; depth events beyond it are skipped
/// (the next one carries the search so far), `done` always waits its turn.
const BUFFERED_EVENTS: usize = 32;

/// The query string.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// A FEN; the board part alone means White to move, no castling.
    pub fen: String,
    /// An engine of `GET /api/v1/engines`; default: ours.
    pub engine: Option<String>,
    pub multi_pv: Option<usize>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
    /// Search until the client stops or leaves (at most the service's
    /// `--max-live-seconds`, 1,800 by default), ignoring `depth` and `movetimeMs`.
    pub infinite: Option<bool>,
    /// Language of the piece letters in the `san` fields (default `en`).
    pub lang: Option<Lang>,
    /// Notation of the `san` fields: `san` (default), `long` or `iccf`.
    pub notation: Option<MoveStyle>,
    /// Keep the final analysis with this scan library board (with
    /// `scanBoard`, default 0), as `POST /api/v1/analyze` does.
    pub scan_id: Option<i64>,
    pub scan_board: Option<usize>,
}

/// Sets the flag when dropped: the response stream is dropped when the
/// client disconnects or the stream ends.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The event stream: the search's events and keep-alive comments.
struct Events {
    events: mpsc::Receiver<Bytes>,
    heartbeat: Interval,
    _stop: StopOnDrop,
}

impl Stream for Events {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => return Poll::Ready(Some(Ok(event))),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        match self.heartbeat.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n")))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Keeps a finished analysis with its library board. The stream has already
/// answered 200, so a failure (no library, an unknown board) is logged.
fn keep(state: &AppState, id: i64, board: usize, analysis: &Analysis) {
    let Some(library) = state.library.as_ref() else {
        tracing::warn!("scanId {id} given, but the service keeps no library");
        return;
    };
    let kept = serde_json::to_value(analysis)
        .map_err(|e| e.to_string())
        .and_then(|json| {
            library
                .set_analysis(id, board, &json)
                .map_err(|e| e.to_string())
        });
    if let Err(err) = kept {
        tracing::warn!("analysis of scan {id} board {board} not kept: {err}");
    }
}

/// What a stream will search, as its first event says.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StreamLimits {
    /// Searching until the client stops or leaves (or `movetimeMs`, the service's cap).
    pub infinite: bool,
    /// The last depth searched.
    pub depth: Option<u32>,
    /// The longest the search runs; none: until the client stops or leaves.
    pub movetime_ms: Option<u64>,
    pub multi_pv: usize,
}

impl StreamLimits {
    fn of(limits: &AnalysisLimits, infinite: bool) -> Self {
        Self {
            infinite,
            depth: limits.depth,
            movetime_ms: limits.movetime.map(|t| t.as_millis() as u64),
            multi_pv: limits.multipv,
        }
    }
}

/// One SSE event with a JSON payload.
fn event(name: &str, data: &impl Serialize) -> Bytes {
    let json = serde_json::to_string(data).expect("events serialize");
    Bytes::from(format!("event: {name}\ndata: {json}\n\n"))
}

#[utoipa::path(
    get,
    path = "/api/v1/analyze/stream",
    params(StreamQuery),
    responses(
        (status = 200, description = "`text/event-stream`: `event: limits` with StreamLimits (what will be searched, within the service's bounds), `event: depth` with an Analysis (the search so far) after each completed depth, then `event: done` with the final Analysis, or `event: error` with an ErrorBody; `: keep-alive` comments every second. Closing the connection stops the search.", content_type = "text/event-stream", body = AnalysisView),
        (status = 400, description = "Malformed FEN or query, or an unknown engine (`unknown-engine`)", body = ErrorBody),
        (status = 422, description = "Impossible position", body = ErrorBody),
        (status = 503, description = "Busy: no job slot is free", body = ErrorBody),
    )
)]
pub async fn stream(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = web::Query::<StreamQuery>::from_query(request.query_string())
        .map_err(|e| ApiError::BadRequest(format!("invalid query: {e}")))?
        .into_inner();
    let board = parse_fen(&query.fen)?;
    state.engines.check(query.engine.as_deref())?;
    let infinite = query.infinite.unwrap_or(false);
    let limits = if infinite {
        infinite_limits(&state.config, query.multi_pv)
    } else {
        search_limits(
            &state.config,
            query.depth,
            query.movetime_ms,
            query.multi_pv,
        )
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (lang, style) = (
        query.lang.unwrap_or_default(),
        query.notation.unwrap_or_default(),
    );
    let labelled = move |analysis: &Analysis| analysis.render(lang, style);
    let (sender, events) = mpsc::channel(BUFFERED_EVENTS);
    sender
        .try_send(event("limits", &StreamLimits::of(&limits, infinite)))
        .expect("a new channel has room");
    let job = state.clone();
    let job_stop = stop.clone();
    state.spawn_cpu(move || {
        if job_stop.load(Ordering::Relaxed) {
            return;
        }
        let on_depth = |analysis: &Analysis| {
            if let Err(mpsc::error::TrySendError::Closed(_)) =
                sender.try_send(event("depth", &labelled(analysis)))
            {
                job_stop.store(true, Ordering::Relaxed);
            }
        };
        let name = query.engine.as_deref();
        let last = match job
            .engines
            .analyze(name, &board, &limits, on_depth, &job_stop)
        {
            Ok(analysis) => {
                job.metrics.analyses([&analysis]);
                if let Some(id) = query.scan_id {
                    keep(&job, id, query.scan_board.unwrap_or(0), &analysis);
                }
                event("done", &labelled(&analysis))
            }
            Err(err) => {
                let err = ApiError::from(err);
                event(
                    "error",
                    &ErrorBody {
                        error: err.to_string(),
                        code: err.code(),
                    },
                )
            }
        };
        let _ = sender.blocking_send(last);
    })?;
    Ok(event_stream(events, stop))
}

/// The Server-Sent Events response over `events`, with keep-alive comments;
/// `stop` is set when the client leaves or the stream ends.
pub(super) fn event_stream(events: mpsc::Receiver<Bytes>, stop: Arc<AtomicBool>) -> HttpResponse {
    let mut heartbeat = interval(HEARTBEAT);
    heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(Events {
            events,
            heartbeat,
            _stop: StopOnDrop(stop),
        })
}
