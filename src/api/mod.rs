//! The HTTP service: routes, shared state and the bounded CPU pool.
//!
//! Handlers only parse requests and shape responses; the work itself is the
//! library's, run through [`AppState::run_cpu`] off the actix workers.

mod analyze;
mod config;
mod error;
mod openapi;
mod page;
mod recognize;

use std::{io::IsTerminal, sync::Arc};

use actix_web::{middleware, web, App, HttpResponse, HttpServer};
use tokio::sync::Semaphore;

pub use analyze::search_limits;
pub use config::ServiceConfig;
pub use error::ApiError;
pub use openapi::ApiDoc;

use crate::{recognize::Recognizer, vision::DecodeLimits};

/// What every handler shares.
pub struct AppState {
    pub config: ServiceConfig,
    pub recognizer: Recognizer,
    /// Jobs admitted (running or waiting); when none is left, requests get `busy`.
    jobs: Arc<Semaphore>,
    /// Jobs running on a core.
    workers: Arc<Semaphore>,
}

impl AppState {
    pub fn new(config: ServiceConfig) -> Result<Self, crate::recognize::RecognizeError> {
        let limits = DecodeLimits {
            max_pixels: config.max_pixels,
            ..DecodeLimits::default()
        };
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let workers = config.cpu_workers.unwrap_or(cores).max(1);
        Ok(Self {
            recognizer: Recognizer::bundled(workers, limits)?,
            jobs: Arc::new(Semaphore::new(config.max_jobs.max(1))),
            workers: Arc::new(Semaphore::new(workers)),
            config,
        })
    }

    /// Runs CPU-heavy work on the blocking pool, at most `cpu_workers` at a
    /// time, or answers `busy` at once when `max_jobs` jobs are already
    /// running or waiting.
    pub async fn run_cpu<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let admitted = self
            .jobs
            .clone()
            .try_acquire_owned()
            .map_err(|_| ApiError::Busy)?;
        let running = self
            .workers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let result = web::block(move || {
            let _permits = (admitted, running);
            work()
        })
        .await
        .map_err(|e| ApiError::Internal(format!("worker failed: {e}")))?;
        result
    }
}

/// Registers every route on an actix app.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(page::routes)
        .route("/api/v1/health", web::get().to(health))
        .route("/api/v1/recognize", web::post().to(recognize::recognize))
        .route("/api/v1/analyze", web::post().to(analyze::analyze))
        .route("/openapi.json", web::get().to(openapi::openapi_json));
}

/// The health check's answer.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok` when the service answers.
    pub status: &'static str,
    pub version: &'static str,
}

#[utoipa::path(get, path = "/api/v1/health", responses((status = 200, body = Health)))]
async fn health() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// Starts the service and blocks until it stops.
pub fn serve(config: ServiceConfig) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_ansi(std::io::stdout().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,actix_web=info".into()),
        )
        .init();
    let bind = config.bind;
    let workers = config.http_workers.max(1);
    let connections_per_worker = config.max_connections.div_ceil(workers).max(1);
    let shutdown_timeout = config.shutdown_timeout_secs;
    let state = web::Data::new(AppState::new(config)?);
    tracing::info!("boardscan listening on http://{bind}");
    actix_web::rt::System::new().block_on(async move {
        HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(64 * 1024)
                        .error_handler(|err, _| {
                            ApiError::BadRequest(format!("invalid JSON body: {err}")).into()
                        }),
                )
                .wrap(middleware::Logger::new("%r %s %b %Dms"))
                .configure(routes)
        })
        .workers(workers)
        .max_connections(connections_per_worker)
        .shutdown_timeout(shutdown_timeout)
        .bind(bind)?
        .run()
        .await
    })?;
    Ok(())
}
