//! What every request leaves behind: a request id, one log line and its
//! metrics; and the log output itself (text or JSON lines).
//!
//! The request id is the client's `X-Request-Id` when it is sane (1 to
//! [`MAX_REQUEST_ID_LEN`] printable ASCII characters, no spaces), else a
//! fresh random one. It goes back in the response's `X-Request-Id` header
//! and in the request's log line, so one id ties a client's report, a proxy's
//! log and this service's log together.

use std::{
    hash::{BuildHasher, Hasher, RandomState},
    io::IsTerminal,
    sync::{
        atomic::{AtomicU64, Ordering},
        LazyLock,
    },
    time::Instant,
};

use actix_web::{
    body::MessageBody,
    dev::{ServiceRequest, ServiceResponse},
    http::header::{HeaderName, HeaderValue},
    middleware::Next,
    web, Error,
};

use super::{metrics::UNMATCHED_ROUTE, AppState};

/// The request id header, in and out.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest client request id kept; longer ones are replaced.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// Log output of `boardscan serve`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (colour on a terminal).
    #[default]
    Text,
    /// One JSON object per line, fields at the top level.
    Json,
}

/// Installs the global log subscriber; `RUST_LOG` overrides the level.
pub fn init_logs(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,actix_web=info".into());
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stdout().is_terminal()).init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .init(),
    }
}

/// The client's id if it is one we can log and echo safely.
fn sane(id: &HeaderValue) -> Option<&str> {
    let id = id.to_str().ok()?;
    let ok = !id.is_empty()
        && id.len() <= MAX_REQUEST_ID_LEN
        && id.bytes().all(|b| b.is_ascii_graphic());
    ok.then_some(id)
}

/// A new id: 32 hex digits, from a per-process random key and a counter,
/// so ids never repeat within a process and differ between replicas.
fn generate() -> String {
    static KEY: LazyLock<(RandomState, RandomState)> =
        LazyLock::new(|| (RandomState::new(), RandomState::new()));
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = |state: &RandomState| {
        let mut hasher = state.build_hasher();
        hasher.write_u64(n);
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(&KEY.0), half(&KEY.1))
}

/// The middleware: id in, id out, one log line and the request metrics.
pub async fn observe(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(sane)
        .map_or_else(generate, str::to_string);
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let method = request.method().clone();
    let path = request.path().to_string();
    // Handlers' and extractors' errors arrive here as responses already; an
    // `Err` could only come from a middleware inside this one (there is none).
    let result = next.call(request).await;
    let elapsed = started.elapsed();
    let (status, route) = match &result {
        Ok(response) => (
            response.status().as_u16(),
            response.request().match_pattern(),
        ),
        Err(err) => (err.as_response_error().status_code().as_u16(), None),
    };
    let route = route.unwrap_or_else(|| UNMATCHED_ROUTE.to_string());
    if let Some(state) = state {
        state.metrics.request(&route, status, elapsed);
    }
    tracing::info!(
        target: "boardscan::http",
        request_id = %id,
        method = %method,
        path = %path,
        route = %route,
        status,
        duration_ms = elapsed.as_secs_f64() * 1e3,
        "{method} {path} {status}"
    );
    let mut response = result?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID.clone(), value);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sane_ids_are_kept_and_others_refused() {
        let id = |s: &str| sane(&HeaderValue::from_str(s).unwrap()).map(str::to_string);
        assert_eq!(id("abc-123_X.y:z").as_deref(), Some("abc-123_X.y:z"));
        assert_eq!(id(""), None);
        assert_eq!(id("has space"), None);
        assert_eq!(
            id(&"a".repeat(MAX_REQUEST_ID_LEN)).map(|s| s.len()),
            Some(128)
        );
        assert_eq!(id(&"a".repeat(MAX_REQUEST_ID_LEN + 1)), None);
        let latin1 = HeaderValue::from_bytes(b"caf\xe9").unwrap();
        assert_eq!(sane(&latin1), None);
    }

    #[test]
    fn generated_ids_are_hex_and_distinct() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| generate()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }
}
