//! `scan`, `batch` and `merge`: pictures and PDFs to FEN.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::Context;
use boardscan::{
    analysis::AnalysisLimits,
    batch::{self, merge::MergeConfig, BatchConfig},
    formats::{format_rows, OutputFormat},
    library::Library,
    notation::{
        fen::parse_side,
        lang::{Lang, MoveStyle},
    },
    recognize::{RecognizeOptions, Recognizer, SetAdaptation, View},
    scan::{scan_pictures, PdfArgs, PictureScan, ScanOptions},
    source::{self, PdfLimits},
    vision::DecodeLimits,
};
use cozy_chess::Color;

use super::success_if;

/// Options of `scan`.
#[derive(clap::Args)]
pub struct ScanArgs {
    /// Image files (PNG, JPEG, WebP or GIF) or PDFs.
    #[arg(required = true)]
    images: Vec<PathBuf>,
    #[command(flatten)]
    pdf: PdfArgs,
    /// Time one PDF may take, in seconds; the pages not reached by then are errors.
    #[arg(long)]
    max_pdf_seconds: Option<u64>,
    /// Print one JSON object per image or PDF page instead of `file<TAB>FEN`.
    #[arg(long)]
    json: bool,
    /// Pages of a PDF read at once (default: one per core).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Side to move (w or b); White when not given.
    #[arg(long, value_parser = parse_side)]
    side: Option<Color>,
    /// Which side is at the bottom of the picture (white or black); guessed when not given.
    #[arg(long)]
    view: Option<View>,
    /// Read photos of a physical board as your own set, learnt with `boardscan library learn-set NAME`.
    #[arg(long)]
    set: Option<String>,
    /// The library holding --set: a SQLite file or a `postgres://` URL (default: the user's data folder).
    #[arg(long, env = "BOARDSCAN_LIBRARY")]
    library: Option<String>,
    /// Also analyse each legal board with the engine.
    #[arg(long)]
    analyze: bool,
    /// Search time per board for --analyze, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
}

/// `scan`: see [`scan_images`].
pub fn scan(args: &ScanArgs) -> anyhow::Result<ExitCode> {
    let options = ScanOptions {
        recognize: RecognizeOptions {
            side_to_move: args.side,
            view: args.view,
            set: match &args.set {
                Some(name) => Some(std::sync::Arc::new(learnt_set(
                    args.library.as_deref(),
                    name,
                )?)),
                None => None,
            },
        },
        analysis: args.analyze.then(|| AnalysisLimits {
            movetime: Some(Duration::from_millis(args.movetime)),
            ..AnalysisLimits::default()
        }),
        pages: args.pdf.pages.clone(),
        pdf: PdfLimits {
            max_time: args.max_pdf_seconds.map(Duration::from_secs),
            ..args.pdf.limits()
        },
        thumbnails: false,
        page_workers: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
    };
    scan_images(&args.images, args.json, &options)
}

/// `batch`: exit status 1 when any input failed.
pub fn batch(config: &BatchConfig) -> anyhow::Result<ExitCode> {
    let summary = batch::run(config)?;
    Ok(success_if(summary.failed == 0))
}

/// `merge`.
pub fn merge(config: &MergeConfig) -> anyhow::Result<ExitCode> {
    batch::merge::run(config)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints `file<TAB>FEN` per board (`file#page=N` for a PDF's page), or one
/// JSON object per image or page (a batch's NDJSON line); failures (a
/// missing file, a named pipe or device, no board in an image, an unreadable
/// PDF or page, a PDF without a board on any page) go to stderr and make the
/// exit code 1. A PDF page without a board is not a failure by itself.
fn scan_images(images: &[PathBuf], json: bool, options: &ScanOptions) -> anyhow::Result<ExitCode> {
    let recognizer = Recognizer::bundled(options.page_workers, DecodeLimits::default())?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for path in images {
        // Each page is printed as soon as it (and those before it) are read.
        let (mut pages, mut boards) = (0, 0);
        let scanned = source::file::read_regular_file(path)
            .with_context(|| format!("reading {}", path.display()))
            .and_then(|bytes| {
                scan_pictures(
                    &recognizer,
                    bytes,
                    options,
                    |_| true,
                    |picture, _, total| -> anyhow::Result<()> {
                        pages = total;
                        boards += picture.boards.as_ref().map_or(1, Vec::len);
                        failed |= !print_picture(&mut out, path, json, picture)?;
                        Ok(())
                    },
                )
            });
        if scanned.is_ok() && pages > 0 && boards == 0 {
            // A PDF read whole without a single board: said, as for an image.
            failed = true;
            eprintln!(
                "{}: no chessboard found on any of its {}",
                path.display(),
                batch::count(pages, "page")
            );
        }
        if let Err(err) = scanned {
            failed = true;
            if json {
                let error = Err(format!("{err:#}"));
                write!(
                    out,
                    "{}",
                    format_rows(path, None, &error, OutputFormat::Ndjson)
                )?;
            }
            eprintln!("{}: {err:#}", path.display());
        }
    }
    Ok(success_if(!failed))
}

/// Prints one picture's boards as [`scan_images`] does; false when it failed.
fn print_picture(
    out: &mut impl Write,
    path: &Path,
    json: bool,
    picture: PictureScan,
) -> std::io::Result<bool> {
    let name = match picture.page {
        Some(page) => format!("{}#page={page}", path.display()),
        None => path.display().to_string(),
    };
    let boards = picture.boards.map_err(|err| err.to_string());
    if json {
        write!(
            out,
            "{}",
            format_rows(path, picture.page, &boards, OutputFormat::Ndjson)
        )?;
    }
    match boards {
        Ok(_) if json => {}
        Ok(boards) => {
            for board in boards {
                let best = board
                    .analysis
                    .as_ref()
                    .and_then(|a| a.render(Lang::En, MoveStyle::San).best_move);
                match best {
                    Some(best) => writeln!(out, "{name}\t{}\t{}", board.reading.fen, best.san)?,
                    None => writeln!(out, "{name}\t{}", board.reading.fen)?,
                }
            }
        }
        Err(err) => {
            eprintln!("{name}: {err}");
            return Ok(false);
        }
    }
    Ok(true)
}

/// The set `name` learnt into the library at `location`.
pub(super) fn learnt_set(location: Option<&str>, name: &str) -> anyhow::Result<SetAdaptation> {
    let stored = Library::open_or_default(location)?.set(name)?;
    SetAdaptation::from_bytes(&stored.adaptation)
        .map_err(|e| anyhow::anyhow!("the set {name:?} in the library: {e}"))
}
