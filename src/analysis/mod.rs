//! Analysis: everything the front ends ask of an engine, behind one module.
//!
//! [`Engines::analyze`] is the one entry point for a search: our engine
//! ([`engine`]) or any UCI engine run as a pool of processes
//! ([`external`]; `serve --engine stockfish=/usr/games/stockfish`), with a
//! per-depth callback and a stop flag. On top of it: hints and grades
//! ([`coach`]), playing against a front end ([`play`]), calibration
//! matches ([`calibrate`]), the exact mate solver's report
//! ([`engine::mate`]) and the mate bench ([`mate_bench`]).
//!
//! Every engine answers with the same typed [`Analysis`] (moves and
//! [`Score`]s from White's view, no text); [`Analysis::render`] writes it in
//! the reader's language at the edge. An external process that crashes,
//! hangs past its move time plus a grace period, or prints too many lines
//! that are not UCI is killed and reaped; the request gets
//! [`EngineError::Failed`] and the next one gets a fresh process.

pub mod calibrate;
pub mod coach;
pub mod engine;
mod external;
pub mod mate_bench;
pub mod mate_report;
pub mod play;
mod result;
mod score;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cozy_chess::Board;
use serde::Serialize;

pub use engine::{game_over, wdl, AnalysisLimits, GameOver, DEFAULT_DEPTH, DEFAULT_MAX_TIME};
pub use external::{parse_option, read_config, EngineOption, EngineSpec};
pub use result::{Analysis, AnalysisView, BestMove, Ended, Line, PvView};
pub use score::Score;

use external::{
    info,
    pool::Pool,
    process::{EngineProcess, ProcessError},
    search,
};

/// The name of our own engine, the default.
pub const OURS: &str = "boardscan";
/// How long a request waits for a free process of an engine before `busy`.
const LEASE_WAIT: Duration = Duration::from_secs(10);

/// Why an engine could not answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("unknown engine {name:?}; this service has: {known}")]
    UnknownEngine { name: String, known: String },
    #[error("engine {engine} failed ({reason}); it was killed and a fresh process serves the next request")]
    Failed { engine: String, reason: String },
    #[error("every process of engine {0} is busy")]
    Busy(String),
    #[error("{path} is not a UCI engine: {reason}")]
    NotAnEngine { path: String, reason: String },
    #[error("the position has no legal move (checkmate or stalemate)")]
    NoMove,
    #[error("{0}")]
    Config(String),
}

/// What `GET /api/v1/engines` lists about one engine.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineInfo {
    /// The name requests use.
    pub name: String,
    /// Whether requests without an engine get this one.
    pub default: bool,
    /// The engine's `id name`.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    pub options: Vec<EngineOption>,
    /// Processes run at most (1 for ours: it searches in the worker thread).
    pub processes: usize,
}

/// Which engine searches, as the command line's `--engine` and
/// `--engine-path`: declared once and flattened into every command that
/// searches.
#[derive(Clone, Debug, clap::Args)]
pub struct EngineArgs {
    /// The engine: `boardscan` (ours, the default) or a name from --engine-path.
    #[arg(long)]
    pub engine: Option<String>,
    /// An external UCI engine, `NAME=PATH` (repeatable).
    #[arg(long = "engine-path", value_name = "NAME=PATH")]
    pub engine_paths: Vec<EngineSpec>,
}

impl EngineArgs {
    /// The engine chosen: `None` for ours.
    pub fn name(&self) -> Option<&str> {
        self.engine.as_deref()
    }

    /// Starts the external engines given (one process each).
    pub fn start(&self) -> Result<Engines, EngineError> {
        Engines::start(self.engine_paths.clone(), 1)
    }
}

/// Our engine and the external ones, by name.
pub struct Engines {
    ours: EngineInfo,
    external: Vec<Pool>,
}

impl Default for Engines {
    /// Our engine alone.
    fn default() -> Self {
        let banner = engine::uci::uci_banner();
        let line = |prefix: &str| {
            banner
                .lines()
                .find_map(|l| l.strip_prefix(prefix))
                .map(str::to_owned)
        };
        Engines {
            ours: EngineInfo {
                name: OURS.to_owned(),
                default: true,
                id: line("id name ").unwrap_or_else(|| OURS.to_owned()),
                author: line("id author "),
                options: banner.lines().filter_map(parse_option).collect(),
                processes: 1,
            },
            external: Vec::new(),
        }
    }
}

impl Engines {
    /// Our engine and one pool per spec, of `spec.processes` or
    /// `default_processes` processes. Starts one process of each (the rest
    /// start on demand), so a path that is not a UCI engine fails here.
    pub fn start(specs: Vec<EngineSpec>, default_processes: usize) -> Result<Self, EngineError> {
        let mut engines = Engines::default();
        for spec in specs {
            if engines.external.iter().any(|p| p.spec.name == spec.name) {
                return Err(EngineError::Config(format!(
                    "engine {:?} is given twice",
                    spec.name
                )));
            }
            let size = spec.processes.unwrap_or(default_processes);
            let path = spec.path.display().to_string();
            let pool = Pool::start(spec, size).map_err(|e| EngineError::NotAnEngine {
                path,
                reason: e.to_string(),
            })?;
            engines.external.push(pool);
        }
        Ok(engines)
    }

    /// Every engine, ours first.
    pub fn list(&self) -> Vec<EngineInfo> {
        let mut list = vec![self.ours.clone()];
        list.extend(self.external.iter().map(|pool| {
            EngineInfo {
                name: pool.spec.name.clone(),
                default: false,
                id: pool
                    .identity
                    .name
                    .clone()
                    .unwrap_or_else(|| pool.spec.name.clone()),
                author: pool.identity.author.clone(),
                options: pool.identity.options.clone(),
                processes: pool.size(),
            }
        }));
        list
    }

    /// Checks that `name` (ours when `None`) is an engine of this service.
    pub fn check(&self, name: Option<&str>) -> Result<(), EngineError> {
        self.pool(name).map(|_| ())
    }

    /// The pool of `name`; `None` for ours.
    fn pool(&self, name: Option<&str>) -> Result<Option<&Pool>, EngineError> {
        match name {
            None => Ok(None),
            Some(name) if name == OURS => Ok(None),
            Some(name) => self
                .external
                .iter()
                .find(|p| p.spec.name == name)
                .map(Some)
                .ok_or_else(|| EngineError::UnknownEngine {
                    name: name.to_owned(),
                    known: self
                        .list()
                        .iter()
                        .map(|e| e.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
        }
    }

    /// Analyses `board` with engine `name` (ours when `None`) until `limits`
    /// or `stop`; `on_depth` gets each completed depth. Blocks the caller.
    pub fn analyze(
        &self,
        name: Option<&str>,
        board: &Board,
        limits: &AnalysisLimits,
        mut on_depth: impl FnMut(&Analysis) + Send,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        let Some(pool) = self.pool(name)? else {
            return Ok(engine::analyze_with(board, limits, stop, on_depth));
        };
        if !board.generate_moves(|_| true) {
            return Ok(info::to_analysis(board, &[]));
        }
        with_process(pool, |process| {
            process.set_option("UCI_LimitStrength", "false")?;
            search::search(process, board, limits, stop, &mut on_depth)
        })
    }
}

/// Runs `work` on a process of `pool`; a process that fails is killed.
fn with_process<T>(
    pool: &Pool,
    work: impl FnOnce(&mut EngineProcess) -> Result<T, ProcessError>,
) -> Result<T, EngineError> {
    let failed = |e: ProcessError| EngineError::Failed {
        engine: pool.spec.name.clone(),
        reason: e.to_string(),
    };
    let mut lease = pool
        .lease(LEASE_WAIT)
        .map_err(failed)?
        .ok_or_else(|| EngineError::Busy(pool.spec.name.clone()))?;
    match work(lease.process()) {
        Ok(value) => Ok(value),
        Err(e) => {
            tracing::warn!(engine = %pool.spec.name, "engine process failed: {e}; killed");
            lease.discard();
            Err(failed(e))
        }
    }
}
