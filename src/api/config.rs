//! Service limits and settings, from flags or environment variables.

use std::net::SocketAddr;

/// Options of `boardscan serve`; each flag can also be set by its environment variable.
#[derive(Clone, Debug, clap::Args)]
pub struct ServiceConfig {
    /// Address to listen on.
    #[arg(long, env = "BOARDSCAN_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Largest accepted upload, in bytes.
    #[arg(long, env = "BOARDSCAN_MAX_UPLOAD_BYTES", default_value_t = 20 * 1024 * 1024)]
    pub max_upload_bytes: usize,
    /// Largest accepted image, in pixels (width × height).
    #[arg(long, env = "BOARDSCAN_MAX_PIXELS", default_value_t = 16_000_000)]
    pub max_pixels: u64,
    /// CPU jobs (recognitions, searches) running or waiting at once; more get 503 busy.
    #[arg(long, env = "BOARDSCAN_MAX_JOBS", default_value_t = 6)]
    pub max_jobs: usize,
    /// CPU jobs running at once (default: one per core); the rest of `max-jobs` wait.
    #[arg(long, env = "BOARDSCAN_CPU_WORKERS")]
    pub cpu_workers: Option<usize>,
    /// Longest search a request may ask for, in milliseconds.
    #[arg(long, env = "BOARDSCAN_MAX_MOVETIME_MS", default_value_t = 5_000)]
    pub max_movetime_ms: u64,
    /// Deepest search a request may ask for.
    #[arg(long, env = "BOARDSCAN_MAX_DEPTH", default_value_t = 30)]
    pub max_depth: u32,
    /// Most lines a request may ask for.
    #[arg(long, env = "BOARDSCAN_MAX_MULTIPV", default_value_t = 5)]
    pub max_multipv: usize,
    /// Search threads per analysis.
    #[arg(long, env = "BOARDSCAN_SEARCH_THREADS", default_value_t = 1)]
    pub search_threads: usize,
    /// HTTP worker threads (CPU work runs elsewhere).
    #[arg(long, env = "BOARDSCAN_HTTP_WORKERS", default_value_t = 2)]
    pub http_workers: usize,
}
