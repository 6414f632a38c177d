//! Service limits and settings, from flags or environment variables.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use crate::{analysis::EngineSpec, source::PdfLimits};

use super::{
    access::{Access, TokenScope},
    LogFormat,
};

/// Options of `boardscan serve`; each flag can also be set by its environment variable.
#[derive(Clone, Debug, clap::Args)]
pub struct ServiceConfig {
    /// Address to listen on.
    #[arg(long, env = "BOARDSCAN_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Port to listen on, on `--bind`'s address (overrides its port).
    #[arg(long, env = "BOARDSCAN_PORT")]
    pub port: Option<u16>,
    /// Largest accepted request body, in bytes (all multipart fields together).
    #[arg(long, env = "BOARDSCAN_MAX_UPLOAD_BYTES", default_value_t = 20 * 1024 * 1024)]
    pub max_upload_bytes: usize,
    /// Time a client has to send a whole request body, in milliseconds; slower uploads get 408.
    #[arg(long, env = "BOARDSCAN_BODY_TIMEOUT_MS", default_value_t = 30_000)]
    pub body_timeout_ms: u64,
    /// Open connections at most, over all HTTP workers; more wait in the listen queue.
    #[arg(long, env = "BOARDSCAN_MAX_CONNECTIONS", default_value_t = 1_024)]
    pub max_connections: usize,
    /// On SIGTERM or Ctrl-C, seconds that running requests get to finish before the service exits.
    #[arg(long, env = "BOARDSCAN_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,
    /// Largest accepted image, in pixels (width × height).
    #[arg(long, env = "BOARDSCAN_MAX_PIXELS", default_value_t = 16_000_000)]
    pub max_pixels: u64,
    /// Most pages an uploaded PDF may have.
    #[arg(long, env = "BOARDSCAN_MAX_PDF_PAGES", default_value_t = 500)]
    pub max_pdf_pages: usize,
    /// Resolution PDF pages are rendered at, in dots per inch.
    #[arg(long, env = "BOARDSCAN_PDF_DPI", default_value_t = 200.0)]
    pub pdf_dpi: f32,
    /// Seconds of an uploaded recording (GIF, video) read at most; decoding
    /// it may take as long.
    #[arg(long, env = "BOARDSCAN_MAX_RECORDING_SECONDS", default_value_t = 600)]
    pub max_recording_seconds: u32,
    /// Time one PDF may take, in seconds; the pages not reached by then are reported as errors.
    #[arg(long, env = "BOARDSCAN_MAX_PDF_SECONDS", default_value_t = 60)]
    pub max_pdf_seconds: u64,
    /// Time one PDF page may take to render, in seconds; past it the
    /// renderer is stopped and the PDF's pages left are errors.
    #[arg(long, env = "BOARDSCAN_MAX_PAGE_SECONDS", default_value_t = crate::source::DEFAULT_MAX_PAGE_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_page_seconds: u64,
    /// CPU jobs (recognitions, searches) running or waiting at once; more get 503 busy.
    #[arg(long, env = "BOARDSCAN_MAX_JOBS", default_value_t = 6)]
    pub max_jobs: usize,
    /// CPU jobs running at once (default: one per core); the rest of `max-jobs` wait.
    #[arg(long, env = "BOARDSCAN_CPU_WORKERS")]
    pub cpu_workers: Option<usize>,
    /// Longest search a request may ask for, in milliseconds.
    #[arg(long, env = "BOARDSCAN_MAX_MOVETIME_MS", default_value_t = 5_000)]
    pub max_movetime_ms: u64,
    /// Longest live analysis (`/api/v1/analyze/stream?infinite=true`), in
    /// seconds; it ends sooner when the client stops or leaves (0: no limit).
    #[arg(long, env = "BOARDSCAN_MAX_LIVE_SECONDS", default_value_t = 1_800)]
    pub max_live_seconds: u64,
    /// Deepest search a request may ask for.
    #[arg(long, env = "BOARDSCAN_MAX_DEPTH", default_value_t = 30)]
    pub max_depth: u32,
    /// Most lines a request may ask for.
    #[arg(long, env = "BOARDSCAN_MAX_MULTIPV", default_value_t = 5)]
    pub max_multipv: usize,
    /// Longest mate (in moves) an analysis with `mate` may ask for.
    #[arg(long, env = "BOARDSCAN_MAX_MATE", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::analysis::engine::mate::MAX_N)))]
    pub max_mate: u32,
    /// Search threads per analysis.
    #[arg(long, env = "BOARDSCAN_SEARCH_THREADS", default_value_t = 1)]
    pub search_threads: usize,
    /// HTTP worker threads (CPU work runs elsewhere).
    #[arg(long, env = "BOARDSCAN_HTTP_WORKERS", default_value_t = 2)]
    pub http_workers: usize,
    /// An external UCI engine beside ours, `NAME=PATH` (repeatable), e.g.
    /// `stockfish=/usr/games/stockfish`; a path that is not a UCI engine stops the service.
    #[arg(long = "engine", value_name = "NAME=PATH")]
    pub engines: Vec<EngineSpec>,
    /// A JSON file of external engines with their options and process counts (docs/engines.md).
    #[arg(long, env = "BOARDSCAN_ENGINES_CONFIG")]
    pub engines_config: Option<PathBuf>,
    /// Processes per external engine, unless its entry in the engines file says (default: the CPU workers).
    #[arg(long, env = "BOARDSCAN_ENGINE_PROCESSES")]
    pub engine_processes: Option<usize>,
    /// The scan library: a SQLite file, or a `postgres://` URL for replicas
    /// sharing one (default: `$XDG_DATA_HOME/boardscan/library.sqlite3`).
    #[arg(long, env = "BOARDSCAN_LIBRARY")]
    pub library: Option<String>,
    /// Keep no scans: no library (whatever `--library` says), and the
    /// `/api/v1/scans` routes answer 404.
    #[arg(long, env = "BOARDSCAN_NO_LIBRARY")]
    pub no_library: bool,
    /// Sets the library's retention, stored in the library for every front
    /// end and replica: past it, saving a recognition removes the oldest
    /// uncorrected scans (0: no limit; unset: as stored, 100000 in a new library).
    #[arg(long, env = "BOARDSCAN_LIBRARY_MAX_SCANS")]
    pub library_max_scans: Option<u64>,
    /// Time a recognition's answer waits for the library to keep it, in
    /// milliseconds; past it the reading is answered with `libraryError`.
    #[arg(long, env = "BOARDSCAN_LIBRARY_TIMEOUT_MS", default_value_t = 5_000)]
    pub library_timeout_ms: u64,
    /// The access token: with it set, the routes of `--token-scope` answer 401
    /// unless a request shows it (`Authorization: Bearer TOKEN`, or the page's
    /// cookie). Without it, anyone who reaches the port may use every route.
    #[arg(long, env = "BOARDSCAN_ACCESS_TOKEN", hide_env_values = true)]
    pub access_token: Option<String>,
    /// What the access token guards: `library` (the scan library's routes) or
    /// `all` (every API route but the health probes).
    #[arg(long, env = "BOARDSCAN_TOKEN_SCOPE", value_enum, default_value_t = TokenScope::Library)]
    pub token_scope: TokenScope,
    /// Log output: `text` lines, or `json` (one object per line, with each request's id).
    #[arg(long, env = "BOARDSCAN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

impl ServiceConfig {
    /// The access rule of `--access-token` and `--token-scope`.
    pub fn access(&self) -> Access {
        Access::new(self.access_token.as_deref(), self.token_scope)
    }

    /// What an uploaded PDF may cost.
    pub fn pdf_limits(&self) -> PdfLimits {
        PdfLimits {
            max_pages: self.max_pdf_pages,
            dpi: self.pdf_dpi,
            max_time: Some(Duration::from_secs(self.max_pdf_seconds)),
            max_page_time: Duration::from_secs(self.max_page_seconds),
            ..PdfLimits::default()
        }
    }
}
