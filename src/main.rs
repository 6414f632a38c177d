//! The `boardscan` command line: a thin shell over the library.

use std::{
    io::{BufReader, Write},
    path::PathBuf,
    process::ExitCode,
    time::Duration,
};

use anyhow::Context;
use boardscan::{
    accuracy,
    api::{self, ServiceConfig},
    batch::{self, merge::MergeConfig, BatchConfig},
    engine::{self, AnalysisLimits},
    notation::fen::{parse_fen, parse_side},
    recognize::{RecognizeOptions, Recognizer, View},
    scan::{scan_input, ScanOptions},
    source::{self, PageRange, PdfLimits},
    speed,
    vision::DecodeLimits,
};
use clap::{Parser, Subcommand};
use cozy_chess::Color;

#[derive(Parser)]
#[command(
    name = "boardscan",
    version,
    about = "Reads chess positions out of pictures and analyses them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the HTTP service and its web page.
    Serve(ServiceConfig),
    /// Read the board(s) in each image and print one line per board.
    Scan {
        /// Image files (PNG, JPEG, WebP or GIF) or PDFs.
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// Pages of a PDF to read: `10-40`, `7` or `12-` (default: all).
        #[arg(long, default_value = "1-")]
        pages: PageRange,
        /// Most pages a PDF may have.
        #[arg(long, default_value_t = PdfLimits::default().max_pages)]
        max_pages: usize,
        /// Resolution PDF pages are rendered at, in dots per inch.
        #[arg(long, default_value_t = PdfLimits::default().dpi)]
        dpi: f32,
        /// Time one PDF may take, in seconds; the pages not reached by then are errors.
        #[arg(long)]
        max_pdf_seconds: Option<u64>,
        /// Print one JSON object per image or PDF page instead of `file<TAB>FEN`.
        #[arg(long)]
        json: bool,
        /// Side to move (w or b); White when not given.
        #[arg(long, value_parser = parse_side)]
        side: Option<Color>,
        /// Which side is at the bottom of the picture (white or black); guessed when not given.
        #[arg(long)]
        view: Option<View>,
        /// Also analyse each legal board with the engine.
        #[arg(long)]
        analyze: bool,
        /// Search time per board for --analyze, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        movetime: u64,
    },
    /// Convert every image and PDF under a folder to FEN (csv, ndjson, epd or pgn).
    Batch(BatchConfig),
    /// Merge the outputs of the shards of a batch into one, sorted by file.
    Merge(MergeConfig),
    /// Analyse one position given as FEN.
    Analyze {
        /// The position, in FEN (quote it); the board part alone means White to move.
        fen: String,
        /// Search to this depth.
        #[arg(long, conflicts_with = "movetime")]
        depth: Option<u32>,
        /// Search for this many milliseconds.
        #[arg(long)]
        movetime: Option<u64>,
        /// Number of lines to show.
        #[arg(long, default_value_t = 1)]
        multipv: usize,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Print the analysis as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the UCI engine on standard input and output.
    Uci,
    /// Renders a PDF read from standard input, for another boardscan process
    /// (PDFs are rendered in a child with capped memory and time).
    #[command(hide = true)]
    RenderPdf {
        #[arg(long)]
        dpi: f32,
        #[arg(long)]
        max_pages: usize,
        #[arg(long)]
        max_page_pixels: u64,
        #[arg(long)]
        max_memory_bytes: u64,
        #[arg(long)]
        first: usize,
        #[arg(long)]
        last: usize,
    },
    /// Search built-in positions to a fixed depth and print the speed.
    Bench {
        /// Search depth.
        #[arg(long)]
        depth: Option<u32>,
    },
    /// Time recognition of one image on one thread: median of the whole and of each stage.
    BenchScan {
        /// The image to recognize.
        image: PathBuf,
        /// Timed runs (after one warm-up run).
        #[arg(long, default_value_t = 30)]
        runs: usize,
    },
    /// The scan library: list, show, export, import, export-corrections, report, delete.
    Library(boardscan::library::command::LibraryArgs),
    /// Score recognition against a labels CSV (`file,fen,view,kind[,page,index]`; a row with `page` and `index` names one diagram of a PDF).
    Eval {
        /// The labels file, or a folder holding `labels.csv`; image and PDF paths are relative to it.
        labels: PathBuf,
        /// Give the recognizer the labelled orientation (isolates square errors).
        #[arg(long)]
        use_labelled_view: bool,
        /// List every image or diagram that was not read exactly, and every extra board.
        #[arg(long)]
        show_failures: bool,
        /// Score this square model (an ONNX file with the contract of `models/squares.onnx`) instead of the bundled one.
        #[arg(long)]
        model: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        // A closed pipe (`boardscan scan … | head`) is not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("boardscan: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    // PDFs are rendered by a child process of this same executable.
    if let Ok(exe) = std::env::current_exe() {
        source::isolate_pdf_rendering(&exe);
    }
    match cli.command {
        Command::RenderPdf {
            dpi,
            max_pages,
            max_page_pixels,
            max_memory_bytes,
            first,
            last,
        } => {
            let limits = PdfLimits {
                dpi,
                max_pages,
                max_page_pixels,
                max_memory_bytes,
                max_time: None,
            };
            source::serve_child(std::io::stdin(), std::io::stdout(), limits, (first, last))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(config) => {
            api::serve(config)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Scan {
            images,
            pages,
            max_pages,
            dpi,
            max_pdf_seconds,
            json,
            side,
            view,
            analyze,
            movetime,
        } => {
            let options = ScanOptions {
                recognize: RecognizeOptions {
                    side_to_move: side,
                    view,
                },
                analysis: analyze.then(|| AnalysisLimits {
                    movetime: Some(Duration::from_millis(movetime)),
                    ..AnalysisLimits::default()
                }),
                pages,
                pdf: PdfLimits {
                    max_pages,
                    dpi,
                    max_time: max_pdf_seconds.map(Duration::from_secs),
                    ..PdfLimits::default()
                },
                thumbnails: false,
            };
            scan_images(&images, json, &options)
        }
        Command::Batch(config) => {
            let summary = batch::run(&config)?;
            Ok(if summary.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Merge(config) => {
            batch::merge::run(&config)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Analyze {
            fen,
            depth,
            movetime,
            multipv,
            threads,
            json,
        } => {
            let board = parse_fen(&fen)?;
            let limits = AnalysisLimits {
                depth,
                movetime: movetime.map(Duration::from_millis),
                nodes: None,
                multipv: multipv.max(1),
                threads: threads.max(1),
            };
            let analysis = engine::analyze(&board, &limits);
            if json {
                println!("{}", serde_json::to_string(&analysis)?);
            } else {
                print_analysis(&analysis);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Uci => {
            engine::uci::run(BufReader::new(std::io::stdin()), std::io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { depth } => {
            println!("{}", engine::bench::run(depth));
            Ok(ExitCode::SUCCESS)
        }
        Command::BenchScan { image, runs } => {
            let bytes =
                std::fs::read(&image).with_context(|| format!("reading {}", image.display()))?;
            let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
            print!("{}", speed::time_recognition(&recognizer, &bytes, runs)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Library(args) => {
            boardscan::library::command::run(&args, &mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            labels,
            use_labelled_view,
            show_failures,
            model,
        } => {
            let labels = accuracy::read_labels(&labels)?;
            let recognizer = match model {
                Some(path) => {
                    let bytes = std::fs::read(&path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    Recognizer::with_square_model(&bytes, 1, DecodeLimits::default())?
                }
                None => Recognizer::bundled(1, DecodeLimits::default())?,
            };
            let report = accuracy::measure(&recognizer, &labels, use_labelled_view);
            if show_failures {
                for failure in &report.failures {
                    println!("{failure}");
                }
            }
            print!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints `file<TAB>FEN` per board (`file#page=N` for a PDF's page), or one
/// JSON object per image or page; failures (a missing file, a named pipe or
/// device, no board in an image, an unreadable PDF or page) go to stderr and
/// make the exit code 1. A PDF page without a board is not a failure.
fn scan_images(images: &[PathBuf], json: bool, options: &ScanOptions) -> anyhow::Result<ExitCode> {
    let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for path in images {
        let pictures = batch::read_regular_file(path)
            .with_context(|| format!("reading {}", path.display()))
            .and_then(|bytes| Ok(scan_input(&recognizer, bytes, options, |_, _| {})?));
        let pictures = match pictures {
            Ok(pictures) => pictures,
            Err(err) => {
                failed = true;
                if json {
                    let line = serde_json::json!({ "file": path.display().to_string(), "error": format!("{err:#}") });
                    writeln!(out, "{line}")?;
                }
                eprintln!("{}: {err:#}", path.display());
                continue;
            }
        };
        for picture in pictures {
            let name = match picture.page {
                Some(page) => format!("{}#page={page}", path.display()),
                None => path.display().to_string(),
            };
            match picture.boards {
                Ok(boards) if json => {
                    let line = serde_json::json!({ "file": path.display().to_string(), "page": picture.page, "boards": boards });
                    writeln!(out, "{line}")?;
                }
                Ok(boards) => {
                    for board in boards {
                        let best = board.analysis.as_ref().and_then(|a| a.best_move.as_ref());
                        match best {
                            Some(best) => {
                                writeln!(out, "{name}\t{}\t{}", board.reading.fen, best.san)?
                            }
                            None => writeln!(out, "{name}\t{}", board.reading.fen)?,
                        }
                    }
                }
                Err(err) => {
                    failed = true;
                    if json {
                        let line = serde_json::json!({ "file": path.display().to_string(), "page": picture.page, "error": err.to_string() });
                        writeln!(out, "{line}")?;
                    }
                    eprintln!("{name}: {err}");
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_analysis(a: &engine::Analysis) {
    println!(
        "depth {} seldepth {} nodes {} nps {} time {} ms",
        a.depth, a.seldepth, a.nodes, a.nps, a.time_ms
    );
    match &a.best_move {
        Some(best) => println!("best move {} ({})", best.san, best.uci),
        None => println!("no legal move (checkmate or stalemate)"),
    }
    for (i, pv) in a.pvs.iter().enumerate() {
        let score = match (pv.mate, pv.cp) {
            (Some(m), _) => format!("mate {m}"),
            (None, Some(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
            (None, None) => String::new(),
        };
        println!("{}. {score:>8}  {}", i + 1, pv.san.join(" "));
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
