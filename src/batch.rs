//! Folder conversion: every image and PDF under a folder to FEN, in
//! parallel (one input per worker; a PDF's pages in page order).
//!
//! The walk is recursive and follows symbolic links (a link loop is skipped
//! with a note on stderr). It reads the regular files whose extension is in
//! [`INPUT_EXTENSIONS`], case aside, and leaves hidden files alone; other
//! files are counted in the summary on stderr, and a named pipe, socket or
//! device with an image's name is skipped with a note, never opened. An input
//! that cannot be read or recognized becomes an error row and the batch goes
//! on. The output, when given, must be a regular file or a new one.
//!
//! Every input goes through [`crate::scan::scan_pictures`], the library's
//! scan step: an image is one picture, a PDF one picture per page of
//! `--pages` (`--max-pages` and `--dpi` bound it as on `scan`). A page that
//! cannot be read is an error row and the other pages still come out; a PDF
//! that cannot be opened is one error row. The rows of each picture (an
//! image, or one PDF page) are written at once and flushed as soon as it is
//! read, so that a crash cuts at most the picture being written. With
//! `--resume`, a record cut by a crash or a full disk is dropped from the
//! output (see `batch/resume.rs`), the images and PDF pages whose rows remain
//! are skipped, and the rest is appended: the output then holds the rows a
//! fresh run would have written. Every format but PGN is read back this way
//! (see `batch/rows.rs` for each format's rows).
//!
//! The progress bar counts pictures: images, and the pages of each PDF in
//! `--pages` (less those already done), counted before the run starts.
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

pub mod merge;
mod resume;
pub mod shard;

use std::{
    fs::{self, OpenOptions},
    io::{self, IsTerminal, Read, Write},
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use self::{
    resume::Done,
    shard::{Shard, INDEX_VARIABLE},
};
pub use crate::formats::OutputFormat;
use crate::{
    formats::{format_rows, CSV_HEADER},
    recognize::Recognizer,
    scan::{scan_pictures, PdfArgs, ScanOptions},
    source::{
        file::{
            check_output, has_input_extension, not_regular, open_nonblocking, read_regular_file,
            INPUT_EXTENSIONS,
        },
        InputKind, PdfBook, SourceError,
    },
    vision::DecodeLimits,
};

/// Options of `boardscan batch`.
#[derive(Clone, Debug, clap::Args)]
pub struct BatchConfig {
    /// The folder to walk, recursively, following symbolic links; files with
    /// an image extension (png, jpg, jpeg, webp, gif) or `pdf` are read.
    pub dir: PathBuf,
    /// Output file; standard output when not given.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: OutputFormat,
    /// Inputs (images or PDFs) read at once; with fewer files than jobs, the pages of a PDF share them (default: all cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Skip the images and PDF pages already in the output file, and append
    /// to it (a row cut by a crash is dropped and its picture redone). Not
    /// with `--format pgn`.
    #[arg(long, requires = "output")]
    pub resume: bool,
    #[command(flatten)]
    pub pdf: PdfArgs,
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
    /// Inputs (images and PDFs) read in this run.
    pub files: usize,
    /// Of them, PDFs.
    pub pdfs: usize,
    /// PDF pages read in this run.
    pub pages: usize,
    /// Inputs skipped as already in the output (`--resume`): images, PDFs
    /// that could not be opened, and PDFs with every page done.
    pub skipped: usize,
    /// PDF pages skipped as already in the output (`--resume`).
    pub skipped_pages: usize,
    /// Files skipped because their extension is not an input's.
    pub not_images: usize,
    /// Entries skipped: named pipes, sockets or devices with an image's name,
    /// broken links, link loops, unreadable folders.
    pub not_readable: usize,
    /// Entries left to the other shards (`--shard`).
    pub other_shards: usize,
    pub boards: usize,
    /// Error rows: images, PDF pages and whole PDFs that failed.
    pub failed: usize,
}

/// Why the scan of one input stopped early.
enum Stop {
    /// The PDF cannot be opened: one error row for the file.
    Source(SourceError),
    /// The output cannot be written: the batch stops.
    Io(io::Error),
}

impl From<SourceError> for Stop {
    fn from(err: SourceError) -> Self {
        Stop::Source(err)
    }
}

impl From<io::Error> for Stop {
    fn from(err: io::Error) -> Self {
        Stop::Io(err)
    }
}

impl BatchConfig {
    /// What each input's scan reads.
    fn scan_options(&self) -> ScanOptions {
        ScanOptions {
            pages: self.pdf.pages.clone(),
            pdf: self.pdf.limits(),
            ..ScanOptions::default()
        }
    }
}

/// Runs a batch and prints its summary to stderr.
pub fn run(config: &BatchConfig) -> anyhow::Result<Summary> {
    if config.resume && config.format == OutputFormat::Pgn {
        anyhow::bail!(
            "--resume does not work with --format pgn (a PGN output is not read back): run the batch with --format csv, ndjson or epd to be able to resume it"
        );
    }
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
            (Box::new(file), Done::default(), true)
        }
        None => (Box::new(io::stdout()), Done::default(), true),
    };
    let total = files.len();
    files.retain(|f| !done.whole(&f.display().to_string()));
    let skipped = total - files.len();

    let writer = Mutex::new(writer);
    if config.format == OutputFormat::Csv && header {
        write_at_once(&writer, &format!("{CSV_HEADER}\n"))?;
    }

    // Jobs left over by fewer files than jobs go to the pages of their PDFs.
    let options = ScanOptions {
        page_workers: jobs.div_ceil(files.len().max(1)),
        ..config.scan_options()
    };
    let recognizer = Recognizer::bundled(jobs, DecodeLimits::default())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting worker threads")?;
    let progress = if io::stderr().is_terminal() {
        let total = pool.install(|| pictures_to_do(&files, &done, &options));
        progress_bar(total)
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    let counts = Mutex::new(Summary {
        skipped,
        not_images: listing.not_images,
        not_readable: listing.not_readable,
        other_shards: listing.other_shards,
        ..Summary::default()
    });
    let counts_ref = &counts;
    let progress_ref = &progress;
    let writer_ref = &writer;
    // Writes the rows of one picture of `file` and counts them.
    let emit = |file: &Path, page: Option<usize>, result: Result<Vec<_>, String>| {
        let rows = format_rows(file, page, &result, config.format);
        {
            let mut counts = counts_ref.lock().expect("counts lock");
            counts.pages += usize::from(page.is_some());
            match &result {
                Ok(boards) => counts.boards += boards.len(),
                Err(message) => {
                    counts.failed += 1;
                    let shown = matches!(config.format, OutputFormat::Epd | OutputFormat::Pgn)
                        || config.output.is_some();
                    if shown {
                        let name = match page {
                            Some(page) => format!("{}#page={page}", file.display()),
                            None => file.display().to_string(),
                        };
                        progress_ref.suspend(|| eprintln!("{name}: {message}"));
                    }
                }
            }
        }
        write_at_once(writer_ref, &rows)?;
        progress_ref.inc(1);
        if progress_ref.position() > progress_ref.length().unwrap_or(0) {
            progress_ref.set_length(progress_ref.position());
        }
        io::Result::Ok(())
    };
    pool.install(|| {
        files.par_iter().try_for_each(|file| -> io::Result<()> {
            let bytes = match read_regular_file(file) {
                Ok(bytes) => bytes,
                Err(e) => {
                    counts.lock().expect("counts lock").files += 1;
                    return emit(file, None, Err(format!("unreadable file: {e}")));
                }
            };
            let is_pdf = InputKind::of(&bytes) == InputKind::Pdf;
            let done_pages = done.pages_of(&file.display().to_string());
            let skipped_pages = done_pages.map_or(0, |pages| {
                pages.iter().filter(|&&p| options.pages.contains(p)).count()
            });
            let mut pictures = 0;
            let scanned = scan_pictures(
                &recognizer,
                bytes,
                &options,
                |page| done_pages.is_none_or(|done| !done.contains(&page)),
                |picture, _, _| -> Result<(), Stop> {
                    pictures += 1;
                    let result = picture.boards.map_err(|e| e.to_string());
                    Ok(emit(file, picture.page, result)?)
                },
            );
            {
                let mut counts = counts.lock().expect("counts lock");
                counts.skipped_pages += skipped_pages;
                if pictures == 0 && skipped_pages > 0 && scanned.is_ok() {
                    // A book every page of which was done.
                    counts.skipped += 1;
                } else {
                    counts.files += 1;
                    counts.pdfs += usize::from(is_pdf);
                }
            }
            match scanned {
                Ok(()) => Ok(()),
                Err(Stop::Source(err)) => emit(file, None, Err(err.to_string())),
                Err(Stop::Io(err)) => Err(err),
            }
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
    let images = summary.files - summary.pdfs;
    let read = if summary.pdfs + summary.skipped_pages > 0 {
        format!(
            "{} and {} of {} ({} and {} skipped as already done)",
            count(images, "image"),
            count(summary.pages, "PDF page"),
            count(summary.pdfs, "PDF"),
            count(summary.skipped, "file"),
            count(summary.skipped_pages, "page"),
        )
    } else {
        format!(
            "{images} images ({} skipped as already done)",
            summary.skipped
        )
    };
    eprintln!(
        "{read}: {} boards, {} failed, in {:.1} s ({:.1} pictures/s)",
        summary.boards,
        summary.failed,
        seconds,
        (images + summary.pages) as f64 / seconds.max(1e-9)
    );
    if summary.not_images > 0 {
        eprintln!(
            "{} skipped (not inputs by extension: {})",
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

/// The pictures a run has to read, for its progress bar: one per image, and
/// for each PDF its pages in `options.pages` less those done (one for a PDF
/// that cannot be opened: its error row). Reads the PDFs once more for it.
fn pictures_to_do(files: &[PathBuf], done: &Done, options: &ScanOptions) -> u64 {
    files
        .par_iter()
        .map(|file| {
            let is_pdf = file
                .extension()
                .is_some_and(|ext| ext.eq_ignore_ascii_case("pdf"));
            if !is_pdf {
                return 1;
            }
            let book = read_regular_file(file)
                .ok()
                .and_then(|bytes| PdfBook::open(bytes, options.pdf).ok());
            let Some(book) = book else { return 1 };
            let done_pages = done.pages_of(&file.display().to_string());
            (1..=book.page_count())
                .filter(|&p| options.pages.contains(p))
                .filter(|p| done_pages.is_none_or(|done| !done.contains(p)))
                .count() as u64
        })
        .sum()
}

/// Writes `text` (all the rows of one picture) in one write and flushes it,
/// so that a crash cuts at most this picture's rows.
fn write_at_once(writer: &Mutex<Box<dyn Write + Send>>, text: &str) -> io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    let mut writer = writer.lock().expect("writer lock");
    writer.write_all(text.as_bytes())?;
    writer.flush()
}

/// Opens an earlier output to append to, after dropping any record a crash
/// cut; returns the file, the pictures already done, and whether the kept
/// part is empty (so a CSV header is due).
fn reopen_for_resume(path: &Path, format: OutputFormat) -> anyhow::Result<(fs::File, Done, bool)> {
    let mut file = open_nonblocking(
        path,
        OpenOptions::new().create(true).read(true).append(true),
    )
    .with_context(|| format!("opening {}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    let previous = resume::read_previous(&bytes, format);
    if let Some(first) = previous.foreign_header {
        anyhow::bail!(
            "{}: cannot resume: its first line is not the header {CSV_HEADER:?} but {first:?} (an output of an older boardscan, or not a boardscan CSV); write to a new file",
            path.display()
        );
    }
    if previous.keep < bytes.len() {
        eprintln!(
            "{}: dropping its cut end ({} bytes); the pictures it named are redone",
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
pub fn count(n: usize, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {noun}s"),
    }
}

fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} pictures (images, PDF pages), {per_sec}, {eta} left",
        )
        .expect("valid template"),
    );
    bar
}
