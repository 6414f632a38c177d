//! The command line: [`Command`] lists the commands, one file per command
//! group runs them, and [`options`] holds the option groups several
//! commands share (flattened into each with `#[command(flatten)]`).
//!
//! Exit status: 0 done, 1 some input failed (or what the command's help
//! says), 2 a failure (printed as `boardscan: …`), and the statuses
//! `mate` and `game` document.

/// `println!` that hands back the write's error instead of panicking, so
/// that a closed pipe (`boardscan eval … | head`) ends a command quietly.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)
    };
}

/// `print!` that hands back the write's error, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        write!(std::io::stdout().lock(), $($arg)*)
    };
}

mod analyse;
mod cells;
mod engine;
mod eval;
mod game;
mod library;
mod options;
mod play;
mod scan;
mod serve;

use std::process::ExitCode;

use boardscan::{api::ServiceConfig, batch::merge::MergeConfig, batch::BatchConfig, source};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "boardscan",
    version,
    about = "Reads chess positions out of pictures and analyses them"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the HTTP service and its web page.
    Serve(ServiceConfig),
    /// Read the board(s) in each image and print one line per board.
    Scan(scan::ScanArgs),
    /// Convert every image and PDF under a folder to FEN (csv, ndjson, epd or pgn).
    Batch(BatchConfig),
    /// Merge the outputs of the shards of a batch into one, sorted by file.
    Merge(MergeConfig),
    /// Analyse one position given as FEN.
    Analyze(analyse::AnalyzeArgs),
    /// Print the engine's move in a position at a chosen strength.
    Play(play::PlayArgs),
    /// Play one of our levels against an external engine at a fixed UCI_Elo and print the score and Elo.
    Calibrate(play::CalibrateArgs),
    /// Give a hint for the side to move: the piece (level 1), the kind of move (2) or the move (3).
    Hint(analyse::HintArgs),
    /// Grade a move (any notation, any language): best, good, inaccuracy, mistake or blunder.
    Grade(analyse::GradeArgs),
    /// Look for a forced mate in at most N moves, proven either way.
    ///
    /// Exit status: 0 a mate found, 1 proven that none exists, 2 bad input,
    /// 3 stopped by --max-seconds before an answer was proven.
    Mate(analyse::MateArgs),
    /// Time the mate solver on an EPD collection (`dm N; bm KEY;`) and,
    /// with --engine, another engine's `go mate N` on the same problems.
    ///
    /// Prints a Markdown table per N; exit status 1 when the solver
    /// disagrees with a problem (each disagreement is listed).
    BenchMate(engine::BenchMateArgs),
    /// Analyse every move of a game (a PGN file, or `-` for standard input):
    /// annotated PGN on stdout, or JSON with --json.
    ///
    /// Exit status: 0 every game analysed, 1 some game unreadable or a limit
    /// reached (said on standard error), 2 no PGN or a failure.
    Game(boardscan::games::command::GameArgs),
    /// Run the UCI engine on standard input and output.
    Uci,
    /// Renders a PDF read from standard input, for another boardscan process
    /// (PDFs are rendered in a child with capped memory and time).
    #[command(hide = true)]
    RenderPdf(serve::RenderPdfArgs),
    /// Search built-in positions to a fixed depth and print the speed.
    Bench(engine::BenchArgs),
    /// Time recognition of one image on one thread: median of the whole and of each stage.
    BenchScan(eval::BenchScanArgs),
    /// The scan library: list, show, export, import, export-corrections, report, delete.
    Library(boardscan::library::command::LibraryArgs),
    /// Score recognition against a labels CSV (`file,fen,view,kind[,page,index]`; a row with `page` and `index` names one diagram of a PDF).
    Eval(eval::EvalArgs),
    /// Score the reading of recordings (GIF, video) against their known moves: a `labels.csv` as `training/make_recordings.py` writes it, or its folder.
    EvalRecordings(eval::EvalRecordingsArgs),
    /// Cut the standing-piece cells of labelled physical-board renders (`labels.csv` and `corners.csv`, as `training/render_physical.py` writes them) into NumPy files, for training.
    StandingCells(cells::StandingCellsArgs),
}

/// Runs the command given; its exit status.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if matches!(
        cli.command,
        Command::Scan(_) | Command::Batch(_) | Command::Eval(_) | Command::RenderPdf(_)
    ) {
        keep_freed_memory();
    }
    // PDFs are rendered by a child process of this same executable.
    if let Ok(exe) = std::env::current_exe() {
        source::isolate_pdf_rendering(&exe);
    }
    match cli.command {
        Command::RenderPdf(args) => serve::render_pdf(&args),
        Command::Serve(config) => serve::serve(config),
        Command::Scan(args) => scan::scan(&args),
        Command::Batch(config) => scan::batch(&config),
        Command::Merge(config) => scan::merge(&config),
        Command::Analyze(args) => analyse::analyze(&args),
        Command::Play(args) => play::play(&args),
        Command::Calibrate(args) => play::calibrate(&args),
        Command::Hint(args) => analyse::hint(&args),
        Command::Grade(args) => analyse::grade(&args),
        Command::Mate(args) => analyse::mate(&args),
        Command::BenchMate(args) => engine::bench_mate(&args),
        Command::Game(args) => game::game(&args),
        Command::Uci => engine::uci(),
        Command::Bench(args) => engine::bench(&args),
        Command::BenchScan(args) => eval::bench_scan(&args),
        Command::Library(args) => library::library(&args),
        Command::Eval(args) => eval::eval(&args),
        Command::EvalRecordings(args) => eval::recordings(&args),
        Command::StandingCells(args) => cells::standing_cells(&args),
    }
}

/// Has glibc's malloc keep freed memory in one arena for reuse instead of
/// mapping and unmapping every large buffer: reading a page allocates many
/// page-sized ones, and their page faults were an eighth of a book's CPU
/// time (a quarter with two workers). Only for commands that end when their
/// inputs are read: a server would keep its peak memory.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any
    // thread of this process is started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

/// Exit status 0 when `ok`, else 1.
fn success_if(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
