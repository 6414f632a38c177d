//! Option groups that several commands share, declared once here and
//! flattened into each command's options (`#[command(flatten)]`). The PDF
//! options of `scan` and `batch` are [`boardscan::scan::PdfArgs`], as the
//! library's `batch` declares its own options.

use boardscan::{
    analysis::{EngineSpec, Engines},
    notation::lang::{Lang, MoveStyle},
};

/// How moves are written: `--lang` and `--notation`.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct NotationArgs {
    /// Language of the piece letters (written, and preferred when reading a move).
    #[arg(long, value_enum, default_value_t = Lang::En)]
    pub lang: Lang,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = MoveStyle::San)]
    pub notation: MoveStyle,
}

/// Which engine searches: `--engine` and `--engine-path`.
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
    pub fn start(&self) -> anyhow::Result<Engines> {
        Ok(Engines::start(self.engine_paths.clone(), 1)?)
    }
}
