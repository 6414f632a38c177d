//! Folder conversion: every image under a folder to FEN, in parallel.
//!
//! The walk is recursive and follows symbolic links (a link loop is skipped
//! with a note on stderr). It reads the regular files whose extension is in
//! [`INPUT_EXTENSIONS`], case aside, and leaves hidden files alone; other
//! files are counted in the summary on stderr, and a named pipe, socket or
//! device with an image's name is skipped with a note, never opened. An input
//! that cannot be read or recognized becomes an error row and the batch goes
//! on. The output, when given, must be a regular file or a new one.
//!
//! Each file's rows are written at once and flushed, so that a crash cuts at
//! most the file being written. With `--resume`, a record cut by a crash or
//! a full disk is dropped from the output (see `batch/resume.rs`), the files whose
//! rows remain are skipped, and the rest is appended: the output then holds
//! the rows a fresh run would have written.
//!
//! File names round-trip through every format: CSV quotes them (RFC 4180),
//! NDJSON writes JSON strings, and an EPD `id` is a quoted string with `\\`
//! for a backslash and `\"` for a quote, as in PGN, and `\n` and `\r` for
//! line breaks, so that every record stays on one line.
//!
//! With `--shard I/N` (or `BOARDSCAN_SHARD=I/N`, or `--shard-count N` with
//! the index from `JOB_COMPLETION_INDEX`, as a Kubernetes Indexed Job sets
//! it), a batch reads only the files of shard `I`: a share chosen by a hash
//! of each file's path relative to the folder (see `batch/shard.rs`), so N
//! runs on N machines convert the folder once between them, and
//! `boardscan merge` (`batch/merge.rs`) makes their outputs one.

mod input;
pub mod merge;
mod resume;
mod rows;
pub mod shard;

use std::{
    collections::HashSet,
    fs::{self, OpenOptions},
    io::{self, IsTerminal, Read, Write},
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

pub use self::input::{read_regular_file, INPUT_EXTENSIONS};
use self::{
    input::{check_output, has_input_extension, not_regular, open_nonblocking},
    rows::{format_rows, CSV_HEADER},
    shard::{Shard, INDEX_VARIABLE},
};
use crate::{
    recognize::Recognizer,
    scan::{scan, ScanOptions},
    vision::DecodeLimits,
};

/// Output formats of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// `file,board,fen,confidence,legal,error`
    Csv,
    /// One JSON object per image, as `scan --json` prints.
    Ndjson,
    /// One EPD line per board with an `id` naming the file (`\\`, `\"`, `\n`
    /// and `\r` escaped; failures go to stderr).
    Epd,
}

/// Options of `boardscan batch`.
#[derive(Clone, Debug, clap::Args)]
pub struct BatchConfig {
    /// The folder to walk, recursively, following symbolic links; files with
    /// an image extension (png, jpg, jpeg, webp, gif) are read.
    pub dir: PathBuf,
    /// Output file; standard output when not given.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: OutputFormat,
    /// Images to process at once (default: all cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Skip files already present in the output file, and append to it (a
    /// row cut by a crash is dropped and its file redone).
    #[arg(long, requires = "output")]
    pub resume: bool,
    /// Read only shard I of N (0-based, as in 0/4): the files whose path
    /// relative to DIR hashes to it (FNV-1a 64; see docs/batch.md). Merge the
    /// N outputs with `boardscan merge`.
    #[arg(long, value_name = "I/N", env = "BOARDSCAN_SHARD")]
    pub shard: Option<Shard>,
    /// Read one shard of N, its index taken from JOB_COMPLETION_INDEX (as a
    /// Kubernetes Indexed Job sets it).
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    pub shard_count: Option<u64>,
}

impl BatchConfig {
    /// The shard to read, if any: `--shard` (or `BOARDSCAN_SHARD`), or
    /// `--shard-count` with the index from `JOB_COMPLETION_INDEX`.
    pub fn shard(&self) -> anyhow::Result<Option<Shard>> {
        match (self.shard, self.shard_count) {
            (Some(_), Some(_)) => {
                anyhow::bail!("give --shard I/N (or BOARDSCAN_SHARD) or --shard-count N, not both")
            }
            (Some(shard), None) => Ok(Some(shard)),
            (None, Some(count)) => {
                let index = std::env::var(INDEX_VARIABLE).ok();
                Shard::from_job_index(count, index.as_deref())
                    .map(Some)
                    .map_err(anyhow::Error::msg)
            }
            (None, None) => Ok(None),
        }
    }
}

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Images read in this run.
    pub files: usize,
    /// Images skipped as already in the output (`--resume`).
    pub skipped: usize,
    /// Files skipped because their extension is not an input's.
    pub not_images: usize,
    /// Entries skipped: named pipes, sockets or devices with an image's name,
    /// broken links, link loops, unreadable folders.
    pub not_readable: usize,
    /// Entries left to the other shards (`--shard`).
    pub other_shards: usize,
    pub boards: usize,
    pub failed: usize,
}

/// Runs a batch and prints its summary to stderr.
pub fn run(config: &BatchConfig) -> anyhow::Result<Summary> {
    let jobs = config
        .jobs
        .unwrap_or_else(rayon::current_num_threads)
        .max(1);
    let shard = config.shard()?;
    if let Some(output) = &config.output {
        check_output(output)?;
    }
    let output_path = config
        .output
        .as_ref()
        .and_then(|o| fs::canonicalize(o).ok());
    let listing = list_files(&config.dir, output_path.as_deref(), shard)?;
    let mut files = listing.files;

    let (writer, done, header): (Box<dyn Write + Send>, _, _) = match &config.output {
        Some(path) if config.resume => {
            let (file, done, empty) = reopen_for_resume(path, config.format)?;
            (Box::new(file), done, empty)
        }
        Some(path) => {
            let file = open_nonblocking(
                path,
                OpenOptions::new().create(true).write(true).truncate(true),
            )
            .with_context(|| format!("opening {}", path.display()))?;
            (Box::new(file), HashSet::new(), true)
        }
        None => (Box::new(io::stdout()), HashSet::new(), true),
    };
    let total = files.len();
    files.retain(|f| !done.contains(&f.display().to_string()));
    let skipped = total - files.len();

    let writer = Mutex::new(writer);
    if config.format == OutputFormat::Csv && header {
        write_at_once(&writer, &format!("{CSV_HEADER}\n"))?;
    }

    let recognizer = Recognizer::bundled(jobs, DecodeLimits::default())?;
    let progress = progress_bar(files.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting worker threads")?;
    let started = Instant::now();
    let counts = Mutex::new(Summary {
        files: files.len(),
        skipped,
        not_images: listing.not_images,
        not_readable: listing.not_readable,
        other_shards: listing.other_shards,
        ..Summary::default()
    });
    pool.install(|| {
        files.par_iter().try_for_each(|file| -> io::Result<()> {
            let result = read_regular_file(file)
                .map_err(|e| format!("unreadable file: {e}"))
                .and_then(|bytes| {
                    scan(&recognizer, &bytes, &ScanOptions::default()).map_err(|e| e.to_string())
                });
            let rows = format_rows(file, &result, config.format);
            {
                let mut counts = counts.lock().expect("counts lock");
                match &result {
                    Ok(boards) => counts.boards += boards.len(),
                    Err(message) => {
                        counts.failed += 1;
                        if config.format == OutputFormat::Epd || config.output.is_some() {
                            progress.suspend(|| eprintln!("{}: {message}", file.display()));
                        }
                    }
                }
            }
            write_at_once(&writer, &rows)?;
            progress.inc(1);
            Ok(())
        })
    })?;
    progress.finish_and_clear();
    let summary = counts.into_inner().expect("counts lock");
    let seconds = started.elapsed().as_secs_f64();
    if let Some(shard) = shard {
        eprintln!(
            "shard {shard}: {} left to the other shards",
            count(summary.other_shards, "entry")
        );
    }
    eprintln!(
        "{} images ({} skipped as already done): {} boards, {} failed, in {:.1} s ({:.1} images/s)",
        summary.files,
        summary.skipped,
        summary.boards,
        summary.failed,
        seconds,
        summary.files as f64 / seconds.max(1e-9)
    );
    if summary.not_images > 0 {
        eprintln!(
            "{} skipped (not images by extension: {})",
            count(summary.not_images, "file"),
            INPUT_EXTENSIONS.join(", ")
        );
    }
    if summary.not_readable > 0 {
        eprintln!(
            "{} skipped (not regular files or unreadable, see above)",
            count(summary.not_readable, "entry")
        );
    }
    Ok(summary)
}

/// Writes `text` (all the rows of one file) in one write and flushes it, so
/// that a crash cuts at most this file's rows.
fn write_at_once(writer: &Mutex<Box<dyn Write + Send>>, text: &str) -> io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    let mut writer = writer.lock().expect("writer lock");
    writer.write_all(text.as_bytes())?;
    writer.flush()
}

/// Opens an earlier output to append to, after dropping any record a crash
/// cut; returns the file, the files already done, and whether the kept part
/// is empty (so a CSV header is due).
fn reopen_for_resume(
    path: &Path,
    format: OutputFormat,
) -> anyhow::Result<(fs::File, HashSet<String>, bool)> {
    let mut file = open_nonblocking(
        path,
        OpenOptions::new().create(true).read(true).append(true),
    )
    .with_context(|| format!("opening {}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    let previous = resume::read_previous(&bytes, format);
    if previous.keep < bytes.len() {
        eprintln!(
            "{}: dropping its cut end ({} bytes); the files it named are redone",
            path.display(),
            bytes.len() - previous.keep
        );
        file.set_len(previous.keep as u64)
            .with_context(|| format!("truncating {}", path.display()))?;
    }
    Ok((file, previous.done, previous.keep == 0))
}

/// The inputs under a folder, and what was left out.
struct Listing {
    files: Vec<PathBuf>,
    not_images: usize,
    not_readable: usize,
    other_shards: usize,
}

/// Every non-hidden file under `dir` with an input extension, following
/// symbolic links, sorted; `output` (canonical) is left out, and so are the
/// entries of other shards than `shard`.
fn list_files(dir: &Path, output: Option<&Path>, shard: Option<Shard>) -> anyhow::Result<Listing> {
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder", dir.display());
    }
    let mut listing = Listing {
        files: Vec::new(),
        not_images: 0,
        not_readable: 0,
        other_shards: 0,
    };
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                eprintln!("skipping: {err}");
                listing.not_readable += 1;
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() || entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let is_output =
            output.is_some_and(|output| fs::canonicalize(entry.path()).is_ok_and(|p| p == output));
        if is_output {
            continue;
        }
        if let Some(shard) = shard {
            let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
            if !shard.takes(relative) {
                listing.other_shards += 1;
                continue;
            }
        }
        if !has_input_extension(entry.path()) {
            listing.not_images += 1;
        } else if let Some(why) = not_regular(file_type) {
            eprintln!("skipping {}: {why}", entry.path().display());
            listing.not_readable += 1;
        } else {
            listing.files.push(entry.into_path());
        }
    }
    Ok(listing)
}

/// `n` and a noun, plural when `n` is not 1.
fn count(n: usize, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {noun}s"),
    }
}

fn progress_bar(len: u64) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} images, {per_sec}, {eta} left")
            .expect("valid template"),
    );
    bar
}
