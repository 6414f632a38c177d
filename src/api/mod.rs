//! The HTTP service: routes, shared state and the bounded CPU pool.
//!
//! Handlers only parse requests and shape responses; the work itself is the
//! library's, run through [`AppState::run_cpu`] off the actix workers.

mod access;
mod analyze;
mod coach;
mod config;
mod engines;
mod error;
mod game;
mod health;
mod keep;
mod library;
mod mate;
mod metrics;
mod openapi;
mod page;
mod play;
mod recognize;
mod recording;
mod sets;
mod stream;
mod telemetry;

use std::sync::{Arc, OnceLock};

use actix_web::{middleware, web, App, HttpServer};
use tokio::sync::Semaphore;

pub use analyze::search_limits;
pub use config::ServiceConfig;
pub use error::ApiError;
pub use health::{Health, NotReady, Readiness};
pub use metrics::Metrics;
pub use openapi::ApiDoc;
pub use telemetry::LogFormat;

use crate::{
    analysis::{self, Engines},
    library::Library,
    recognize::{RecognizeError, Recognizer},
    vision::DecodeLimits,
};

/// What every handler shares.
pub struct AppState {
    pub config: ServiceConfig,
    /// Set once, by [`AppState::load_models`]: the recognizer, or why it failed.
    recognizer: OnceLock<Result<Recognizer, String>>,
    pub metrics: Arc<Metrics>,
    /// Jobs admitted (running or waiting); when none is left, requests get `busy`.
    jobs: Arc<Semaphore>,
    max_jobs: usize,
    /// Jobs running on a core.
    workers: Arc<Semaphore>,
    cpu_workers: usize,
    /// PDF recognitions holding or waiting for a worker: at most one fewer
    /// than the workers, so that a picture or an analysis never waits for a book.
    pdf_lane: Arc<Semaphore>,
    /// Our engine and the external ones (`--engine`, `--engines-config`).
    pub engines: Engines,
    /// Where recognitions are kept; `None` with `--no-library`.
    pub library: Option<Library>,
    /// Saves of recognitions to the library, outside the CPU jobs.
    pub keeper: keep::Keeper,
    /// Which routes need the access token.
    pub access: access::Access,
}

impl AppState {
    /// The state without its models; [`AppState::load_models`] loads them.
    pub fn new(config: ServiceConfig) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let cpu_workers = config.cpu_workers.unwrap_or(cores).max(1);
        let max_jobs = config.max_jobs.max(1);
        Self {
            recognizer: OnceLock::new(),
            metrics: Arc::default(),
            jobs: Arc::new(Semaphore::new(max_jobs)),
            max_jobs,
            workers: Arc::new(Semaphore::new(cpu_workers)),
            cpu_workers,
            pdf_lane: Arc::new(Semaphore::new(cpu_workers.saturating_sub(1).max(1))),
            engines: Engines::default(),
            keeper: keep::Keeper::new(std::time::Duration::from_millis(config.library_timeout_ms)),
            access: config.access(),
            config,
            library: None,
        }
    }

    /// Starts the external engines of the configuration (one process of
    /// each, to check it is a UCI engine); blocking, a fraction of a second each.
    pub fn start_engines(&mut self) -> Result<(), analysis::EngineError> {
        let mut specs = match &self.config.engines_config {
            Some(path) => analysis::read_config(path)?,
            None => Vec::new(),
        };
        specs.extend(self.config.engines.iter().cloned());
        let processes = self.config.engine_processes.unwrap_or(self.cpu_workers);
        self.engines = Engines::start(specs, processes.max(1))?;
        Ok(())
    }

    /// The state keeping recognitions in `library`.
    pub fn with_library(self, library: Option<Library>) -> Self {
        Self { library, ..self }
    }

    /// Loads the recognition models (blocking; seconds at most). Until it
    /// returns, readiness says `models-loading` and recognitions wait.
    pub fn load_models(&self) -> Result<(), RecognizeError> {
        let limits = DecodeLimits {
            max_pixels: self.config.max_pixels,
            ..DecodeLimits::default()
        };
        let metrics = self.metrics.clone();
        let loaded = Recognizer::bundled(self.cpu_workers, limits).map(|recognizer| {
            recognizer.with_stage_observer(Box::new(move |times| metrics.recognition(times)))
        });
        let (stored, result) = match loaded {
            Ok(recognizer) => (Ok(recognizer), Ok(())),
            Err(e) => (Err(e.to_string()), Err(e)),
        };
        let _ = self.recognizer.set(stored);
        result
    }

    /// The recognizer, waiting for the models if they are still loading;
    /// call it only from CPU jobs (it blocks).
    pub fn recognizer(&self) -> Result<&Recognizer, ApiError> {
        self.recognizer
            .wait()
            .as_ref()
            .map_err(|e| ApiError::Internal(format!("the models failed to load: {e}")))
    }

    fn models_loaded(&self) -> bool {
        matches!(self.recognizer.get(), Some(Ok(_)))
    }

    /// The job semaphores as the metrics show them.
    pub fn job_gauges(&self) -> metrics::JobGauges {
        metrics::JobGauges {
            admitted: self.max_jobs - self.jobs.available_permits(),
            running: self.cpu_workers - self.workers.available_permits(),
            max_jobs: self.max_jobs,
            cpu_workers: self.cpu_workers,
        }
    }

    /// What the readiness probe answers.
    pub fn readiness(&self) -> Readiness {
        let gauges = self.job_gauges();
        Readiness::of(self.models_loaded(), &gauges)
    }

    /// Runs CPU-heavy work on the blocking pool, at most `cpu_workers` at a
    /// time, or answers `busy` at once when `max_jobs` jobs are already
    /// running or waiting.
    pub async fn run_cpu<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.run_cpu_in(None, work).await
    }

    /// [`AppState::run_cpu`] for a job that may take its whole time budget
    /// (a PDF, a recording): it takes a worker only through the long-job
    /// lane, so one worker always stays for the rest.
    pub async fn run_long_job<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.run_cpu_in(Some(self.pdf_lane.clone()), work).await
    }

    async fn run_cpu_in<T, F>(&self, lane: Option<Arc<Semaphore>>, work: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let admitted = self.jobs.clone().try_acquire_owned().map_err(|_| {
            self.metrics.busy();
            ApiError::Busy
        })?;
        let in_lane = match lane {
            Some(lane) => Some(
                lane.acquire_owned()
                    .await
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
            ),
            None => None,
        };
        let running = self
            .workers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let result = web::block(move || {
            let _permits = (admitted, in_lane, running);
            work()
        })
        .await
        .map_err(|e| ApiError::Internal(format!("worker failed: {e}")))?;
        result
    }

    /// Admits a CPU job now (or answers `busy`, as [`AppState::run_cpu`]
    /// does) and runs it in the background once a worker is free; for jobs
    /// that report through a channel, such as a stream.
    pub fn spawn_cpu<F>(&self, work: F) -> Result<(), ApiError>
    where
        F: FnOnce() + Send + 'static,
    {
        let admitted = self.jobs.clone().try_acquire_owned().map_err(|_| {
            self.metrics.busy();
            ApiError::Busy
        })?;
        let workers = self.workers.clone();
        actix_web::rt::spawn(async move {
            let Ok(running) = workers.acquire_owned().await else {
                return;
            };
            let _ = web::block(move || {
                let _permits = (admitted, running);
                work()
            })
            .await;
        });
        Ok(())
    }
}

/// Registers every route on an actix app.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(page::routes)
        .route("/api/v1/health", web::get().to(health::health))
        .route("/api/v1/health/live", web::get().to(health::live))
        .route("/api/v1/health/ready", web::get().to(health::ready))
        .route("/api/v1/recognize", web::post().to(recognize::recognize))
        .route("/api/v1/analyze", web::post().to(analyze::analyze))
        .route("/api/v1/analyze/stream", web::get().to(stream::stream))
        .route("/api/v1/engines", web::get().to(engines::list))
        .route("/api/v1/play", web::post().to(play::play))
        .route("/api/v1/hint", web::post().to(coach::hint))
        .route("/api/v1/grade", web::post().to(coach::grade))
        .route("/api/v1/moves", web::post().to(coach::moves))
        .configure(game::routes)
        .configure(recording::routes)
        .configure(library::routes)
        .configure(sets::routes)
        .route("/metrics", web::get().to(metrics::metrics))
        .route("/openapi.json", web::get().to(openapi::openapi_json));
}

/// Starts the service and blocks until it stops.
///
/// The port opens at once and the models load in the background (readiness
/// says `models-loading` meanwhile); if they fail to load, the service stops
/// and this returns the error. On SIGTERM actix closes the port and every idle
/// connection at once (so probes fail from then on) and lets running requests
/// finish within `--shutdown-timeout-secs`.
pub fn serve(config: ServiceConfig) -> anyhow::Result<()> {
    telemetry::init_logs(config.log_format);
    let bind = match config.port {
        Some(port) => std::net::SocketAddr::new(config.bind.ip(), port),
        None => config.bind,
    };
    let workers = config.http_workers.max(1);
    let connections_per_worker = config.max_connections.div_ceil(workers).max(1);
    let shutdown_timeout = config.shutdown_timeout_secs;
    let library = if config.no_library {
        None
    } else {
        let library = Library::open_or_default(config.library.as_deref())?;
        if let Some(max) = config.library_max_scans {
            library.set_max_scans(max)?;
        }
        tracing::info!(
            "scan library: {} (keeps {})",
            library.location(),
            crate::library::command::retention_text(library.max_scans()?)
        );
        Some(library)
    };
    if let Some(warning) = config.access().exposure_warning(bind, library.is_some()) {
        tracing::warn!("{warning}");
    }
    let mut state = AppState::new(config).with_library(library);
    state.start_engines()?;
    let state = web::Data::new(state);
    let app_state = state.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(app_state.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(64 * 1024)
                    .error_handler(|err, _| {
                        ApiError::BadRequest(format!("invalid JSON body: {err}")).into()
                    }),
            )
            .app_data(web::PathConfig::default().error_handler(|err, _| {
                ApiError::NotFound(format!("no such resource: {err}")).into()
            }))
            .app_data(web::QueryConfig::default().error_handler(|err, _| {
                ApiError::BadRequest(format!("invalid query: {err}")).into()
            }))
            .wrap(middleware::from_fn(access::guard))
            .wrap(middleware::from_fn(telemetry::observe))
            .configure(routes)
    })
    .workers(workers)
    .max_connections(connections_per_worker)
    .shutdown_timeout(shutdown_timeout)
    .bind(bind)?;
    tracing::info!("boardscan listening on http://{bind}");
    let load_failed = Arc::new(OnceLock::new());
    let load_error = load_failed.clone();
    actix_web::rt::System::new().block_on(async move {
        let server = server.run();
        let handle = server.handle();
        let loader = state.clone();
        actix_web::rt::spawn(async move {
            let started = std::time::Instant::now();
            let loaded = web::block(move || loader.load_models().map_err(|e| e.to_string()))
                .await
                .map_err(|e| e.to_string())
                .and_then(|result| result);
            match loaded {
                Ok(()) => tracing::info!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "models loaded"
                ),
                Err(message) => {
                    tracing::error!("the models failed to load: {message}");
                    let _ = load_error.set(message);
                    handle.stop(false).await;
                }
            }
        });
        server.await
    })?;
    match load_failed.get() {
        Some(message) => anyhow::bail!("the models failed to load: {message}"),
        None => Ok(()),
    }
}
