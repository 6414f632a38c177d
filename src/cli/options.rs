//! Option groups that several commands share, flattened into each
//! command's options (`#[command(flatten)]`). They are declared in the
//! library, beside what they configure, so that `game` (whose options live
//! in [`boardscan::games`]) shares them too: `--lang`/`--notation` are
//! [`NotationArgs`], `--engine`/`--engine-path` are [`EngineArgs`], and the
//! PDF options of `scan` and `batch` are [`boardscan::scan::PdfArgs`].

pub use boardscan::{analysis::EngineArgs, notation::lang::NotationArgs};
