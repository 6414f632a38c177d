//! The `boardscan` command line: a thin shell over the library.

use std::{
    io::{BufReader, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    sync::atomic::AtomicBool,
    time::Duration,
};

use anyhow::Context;
use boardscan::{
    accuracy,
    api::{self, ServiceConfig},
    batch::{self, merge::MergeConfig, BatchConfig},
    coach::{
        self,
        grade::{self, Grade},
        hint::{self, Hint, HintRequest},
    },
    engine::{
        self,
        mate::{self, MateLimits, MateStatus},
        AnalysisLimits,
    },
    engines::{self, calibrate::MatchConfig, play::Strength, EngineSpec, Engines},
    notation::{
        fen::{parse_fen, parse_side},
        lang::{format_move, read_move, Lang, MoveStyle},
    },
    recognize::{RecognizeOptions, Recognizer, View},
    scan::{scan_pictures, PictureScan, ScanOptions},
    source::{self, PageRange, PdfLimits},
    speed,
    vision::DecodeLimits,
};
use clap::{Parser, Subcommand};
use cozy_chess::{Board, Color};

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

/// Search and notation options of `hint` and `grade`.
#[derive(clap::Args)]
struct CoachArgs {
    /// Language of the piece letters (written, and preferred when reading).
    #[arg(long, value_enum, default_value_t = Lang::En)]
    lang: Lang,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = MoveStyle::San)]
    notation: MoveStyle,
    /// Search to this depth (each search, for `grade`); with neither this nor
    /// --movetime, the default of every front end: depth 12 (within 10 s).
    #[arg(long)]
    depth: Option<u32>,
    /// Search for this many milliseconds (each search, for `grade`).
    #[arg(long)]
    movetime: Option<u64>,
    /// Search with this engine: `boardscan` (ours, the default) or a name from --engine-path.
    #[arg(long)]
    engine: Option<String>,
    /// An external UCI engine, `NAME=PATH` (repeatable).
    #[arg(long = "engine-path", value_name = "NAME=PATH")]
    engine_paths: Vec<EngineSpec>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

impl CoachArgs {
    fn limits(&self) -> AnalysisLimits {
        coach::limits(self.depth, self.movetime.map(Duration::from_millis))
    }

    /// The search of `board` a hint or a grade asks for, on the engine chosen.
    fn search(&self, engines: &Engines, board: &Board) -> anyhow::Result<engine::Analysis> {
        let stop = AtomicBool::new(false);
        let limits = self.limits();
        Ok(engines.analyze(self.engine.as_deref(), board, &limits, |_| {}, &stop)?)
    }
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
        /// Time one PDF page may take to render, in seconds; past it the
        /// renderer is stopped and the PDF's pages left are errors.
        #[arg(long, default_value_t = source::DEFAULT_MAX_PAGE_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
        max_page_seconds: u64,
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
        /// Language of the piece letters.
        #[arg(long, value_enum, default_value_t = Lang::En)]
        lang: Lang,
        /// How moves are written.
        #[arg(long, value_enum, default_value_t = MoveStyle::San)]
        notation: MoveStyle,
        /// Print the analysis as JSON (with --follow: one line per depth, then the final one).
        #[arg(long)]
        json: bool,
        /// Analyse with this engine: `boardscan` (ours, the default) or a name from --engine-path.
        #[arg(long)]
        engine: Option<String>,
        /// An external UCI engine, `NAME=PATH` (repeatable).
        #[arg(long = "engine-path", value_name = "NAME=PATH")]
        engine_paths: Vec<EngineSpec>,
        /// Print each completed depth as the search goes.
        #[arg(long)]
        follow: bool,
        /// Run the mate solver for a mate in at most N moves instead (as `mate`;
        /// --json adds `mateSearch` to the analysis, as the API does).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(mate::MAX_N)))]
        mate: Option<u32>,
    },
    /// Print the engine's move in a position at a chosen strength.
    Play {
        /// The position, in FEN (quote it).
        fen: String,
        /// Strength, 1 (weakest) to 8 (full strength).
        #[arg(long, conflicts_with = "elo", value_parser = clap::value_parser!(u8).range(1..=8))]
        level: Option<u8>,
        /// An Elo: Stockfish's UCI_Elo, or our nearest level.
        #[arg(long)]
        elo: Option<u32>,
        /// `boardscan` (ours, the default) or a name from --engine-path.
        #[arg(long)]
        engine: Option<String>,
        /// An external UCI engine, `NAME=PATH` (repeatable).
        #[arg(long = "engine-path", value_name = "NAME=PATH")]
        engine_paths: Vec<EngineSpec>,
        /// Thinking time at most, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        movetime: u64,
        /// Seed of the random choice among near-best moves at our lower levels.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Play this many moves, both sides, from the position (stops when the game ends).
        #[arg(long, default_value_t = 1)]
        plies: usize,
        /// Language of the piece letters.
        #[arg(long, value_enum, default_value_t = Lang::En)]
        lang: Lang,
        /// How moves are written.
        #[arg(long, value_enum, default_value_t = MoveStyle::San)]
        notation: MoveStyle,
        /// Print each move as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play one of our levels against an external engine at a fixed UCI_Elo and print the score and Elo.
    Calibrate {
        /// Our level, 1 to 8.
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=8))]
        level: u8,
        /// The opponent's UCI_Elo.
        #[arg(long)]
        opponent_elo: u32,
        /// The opponent, `NAME=PATH` (a UCI engine with UCI_LimitStrength and UCI_Elo).
        #[arg(
            long,
            value_name = "NAME=PATH",
            default_value = "stockfish=/usr/games/stockfish"
        )]
        opponent: EngineSpec,
        /// Games (colours alternate over eight openings).
        #[arg(long, default_value_t = 16)]
        games: usize,
        /// Thinking time per move of each side, in milliseconds.
        #[arg(long, default_value_t = 50)]
        movetime: u64,
    },
    /// Give a hint for the side to move: the piece (level 1), the kind of move (2) or the move (3).
    Hint {
        /// The position, in FEN (quote it).
        fen: String,
        /// How much to give away: 1, 2 or 3.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
        level: u8,
        /// Hint at what the opponent threatens instead.
        #[arg(long)]
        threat: bool,
        #[command(flatten)]
        coach: CoachArgs,
    },
    /// Grade a move (any notation, any language): best, good, inaccuracy, mistake or blunder.
    Grade {
        /// The position, in FEN (quote it).
        fen: String,
        /// The move: UCI, ICCF, or SAN / long algebraic in any language (`Nf3`, `Кg1-f3`, `7163`).
        #[arg(name = "MOVE")]
        mv: String,
        #[command(flatten)]
        coach: CoachArgs,
    },
    /// Look for a forced mate in at most N moves, proven either way.
    ///
    /// Exit status: 0 a mate found, 1 proven that none exists, 2 bad input,
    /// 3 stopped by --max-seconds before an answer was proven.
    Mate {
        /// The position, in FEN (quote it); the side to move is the attacker.
        fen: String,
        /// Moves to mate in, at most.
        #[arg(value_parser = clap::value_parser!(u32).range(1..=i64::from(mate::MAX_N)))]
        n: u32,
        /// Print the answer as JSON (the API's `mateSearch`).
        #[arg(long)]
        json: bool,
        /// Look at every first move for cooks (default: stop after 10).
        #[arg(long)]
        all_cooks: bool,
        /// Give up after this many seconds (0: no limit); the answer is then unknown.
        #[arg(long, default_value_t = 60.0)]
        max_seconds: f64,
        /// Language of the piece letters.
        #[arg(long, value_enum, default_value_t = Lang::En)]
        lang: Lang,
        /// How moves are written.
        #[arg(long, value_enum, default_value_t = MoveStyle::San)]
        notation: MoveStyle,
    },
    /// Time the mate solver on an EPD collection (`dm N; bm KEY;`) and,
    /// with --engine, another engine's `go mate N` on the same problems.
    ///
    /// Prints a Markdown table per N; exit status 1 when the solver
    /// disagrees with a problem (each disagreement is listed).
    BenchMate {
        /// The EPD file, e.g. testdata/mate/problems.epd.
        epd: PathBuf,
        /// A UCI engine to compare with, e.g. /usr/games/stockfish.
        #[arg(long)]
        engine: Option<String>,
        /// Seconds the engine gets per problem before `stop`.
        #[arg(long, default_value_t = 60)]
        engine_timeout: u64,
        /// Seconds our solver gets per problem.
        #[arg(long, default_value_t = 60)]
        max_seconds: u64,
        /// Print a line per problem as it is solved.
        #[arg(long)]
        verbose: bool,
    },
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
    /// Score the reading of recordings (GIF, video) against their known moves: a `labels.csv` as `training/make_recordings.py` writes it, or its folder.
    EvalRecordings {
        /// The labels file, or a folder holding `labels.csv`.
        labels: PathBuf,
        /// List every recording not read exactly.
        #[arg(long)]
        show_failures: bool,
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
    if matches!(
        cli.command,
        Command::Scan { .. } | Command::Batch(_) | Command::Eval { .. } | Command::RenderPdf { .. }
    ) {
        keep_freed_memory();
    }
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
                ..PdfLimits::default()
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
            max_page_seconds,
            json,
            jobs,
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
                    max_page_time: Duration::from_secs(max_page_seconds),
                    ..PdfLimits::default()
                },
                thumbnails: false,
                page_workers: jobs
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                    .max(1),
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
            lang,
            notation,
            json,
            engine,
            engine_paths,
            follow,
            mate: mate_n,
        } => {
            let board = parse_fen(&fen)?;
            if let Some(n) = mate_n {
                let limits = MateLimits {
                    max_time: Some(movetime.map_or(Duration::from_secs(60), Duration::from_millis)),
                    ..MateLimits::default()
                };
                return solve_mate(&board, n, &limits, json, true, (lang, notation));
            }
            let limits = AnalysisLimits {
                depth,
                movetime: movetime.map(Duration::from_millis),
                nodes: None,
                multipv: multipv.max(1),
                threads: threads.max(1),
            };
            let engines = Engines::start(engine_paths, 1)?;
            let stop = AtomicBool::new(false);
            let on_depth = |a: &engine::Analysis| {
                let written = match (follow, json) {
                    (false, _) => Ok(()),
                    (true, true) => outln!("{}", serde_json::to_string(a).unwrap_or_default()),
                    (true, false) => print_depth(a),
                };
                // Nobody reads the lines any more: stop searching.
                if written.is_err() {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            };
            let mut analysis =
                engines.analyze(engine.as_deref(), &board, &limits, on_depth, &stop)?;
            analysis.relabel(lang, notation);
            if json {
                outln!("{}", serde_json::to_string(&analysis)?)?;
            } else {
                print_analysis(&analysis)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Play {
            fen,
            level,
            elo,
            engine,
            engine_paths,
            movetime,
            seed,
            plies,
            lang,
            notation,
            json,
        } => {
            let board = parse_fen(&fen)?;
            let strength = match (level, elo) {
                (Some(level), _) => Strength::Level(level),
                (None, Some(elo)) => Strength::Elo(elo),
                (None, None) => Strength::Full,
            };
            let engines = Engines::start(engine_paths, 1)?;
            let movetime = Duration::from_millis(movetime.max(1));
            let mut board = board;
            for ply in 0..plies.max(1) {
                let seed = seed.wrapping_add(ply as u64);
                let mut played =
                    engines.play(engine.as_deref(), &board, strength, movetime, seed)?;
                let mv = boardscan::notation::uci::parse_uci_move(&board, &played.mv.uci, false)?;
                played.mv.san = format_move(&board, mv, lang, notation);
                if json {
                    let line = serde_json::json!({
                        "move": played.mv, "fenAfter": played.fen_after,
                        "gameOver": played.game_over, "level": played.level, "elo": played.elo,
                    });
                    outln!("{line}")?;
                } else {
                    let elo = played
                        .elo
                        .map(|e| format!(", about {e} Elo"))
                        .unwrap_or_default();
                    outln!(
                        "{} ({}) at level {}{elo}",
                        played.mv.san,
                        played.mv.uci,
                        played.level
                    )?;
                    outln!("{}", played.fen_after)?;
                    if let Some(end) = played.game_over {
                        outln!(
                            "game over: {}",
                            serde_json::to_value(end)?.as_str().unwrap_or("")
                        )?;
                    }
                }
                if played.game_over.is_some() {
                    break;
                }
                board = parse_fen(&played.fen_after)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Calibrate {
            level,
            opponent_elo,
            opponent,
            games,
            movetime,
        } => {
            let config = MatchConfig {
                level,
                opponent: opponent.name.clone(),
                opponent_elo,
                games,
                movetime: Duration::from_millis(movetime.max(1)),
            };
            let engines = Engines::start(vec![opponent], 1)?;
            let result = engines::calibrate::run(&engines, &config)?;
            outln!(
                "level {level} vs {} at UCI_Elo {opponent_elo}: {result}",
                config.opponent
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Hint {
            fen,
            level,
            threat,
            coach,
        } => {
            let board = parse_fen(&fen)?;
            let request = HintRequest {
                level,
                threat,
                lang: coach.lang,
                style: coach.notation,
            };
            let engines = Engines::start(coach.engine_paths.clone(), 1)?;
            engines.check(coach.engine.as_deref())?;
            let hint = hint::hint(&board, request, |b| coach.search(&engines, b))?;
            if coach.json {
                writeln!(
                    std::io::stdout().lock(),
                    "{}",
                    serde_json::to_string(&hint)?
                )?;
            } else {
                print_hint(&hint)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Grade { fen, mv, coach } => {
            let board = parse_fen(&fen)?;
            let read = read_move(&board, &mv, coach.lang)?;
            let engines = Engines::start(coach.engine_paths.clone(), 1)?;
            engines.check(coach.engine.as_deref())?;
            let grade = Grade {
                read_as: read.reading,
                ..grade::grade(&board, read.mv, coach.lang, coach.notation, |b| {
                    coach.search(&engines, b)
                })?
            };
            if coach.json {
                writeln!(
                    std::io::stdout().lock(),
                    "{}",
                    serde_json::to_string(&grade)?
                )?;
            } else {
                print_grade(&grade)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Mate {
            fen,
            n,
            json,
            all_cooks,
            max_seconds,
            lang,
            notation,
        } => {
            let board = parse_fen(&fen)?;
            let limits = MateLimits {
                max_time: (max_seconds > 0.0)
                    .then(|| Duration::try_from_secs_f64(max_seconds))
                    .transpose()
                    .context("--max-seconds")?,
                max_cooks: if all_cooks {
                    None
                } else {
                    Some(mate::DEFAULT_MAX_COOKS)
                },
                ..MateLimits::default()
            };
            solve_mate(&board, n, &limits, json, false, (lang, notation))
        }
        Command::BenchMate {
            epd,
            engine,
            engine_timeout,
            max_seconds,
            verbose,
        } => {
            let text = std::fs::read_to_string(&epd)
                .with_context(|| format!("reading {}", epd.display()))?;
            let problems = engines::mate_bench::read_problems(&text)?;
            let mut other = engine
                .as_deref()
                .map(engines::mate_bench::UciEngine::start)
                .transpose()?;
            let limits = MateLimits {
                max_time: Some(Duration::from_secs(max_seconds)),
                max_cooks: Some(0),
                ..MateLimits::default()
            };
            let outcomes = engines::mate_bench::run(
                &problems,
                &limits,
                other.as_mut(),
                Duration::from_secs(engine_timeout),
                |p, o| {
                    if verbose {
                        eprintln!(
                            "{}\t#{}\t{:.1} ms\t{} nodes\tengine {:?}",
                            p.id,
                            p.dm,
                            o.time.as_secs_f64() * 1000.0,
                            o.nodes,
                            o.engine.map(|a| (a.time.as_millis(), a.mated))
                        );
                    }
                },
            )?;
            let name = engine.as_deref().map(|e| {
                std::path::Path::new(e)
                    .file_name()
                    .map_or(e.to_owned(), |f| f.to_string_lossy().into_owned())
            });
            out!(
                "{}",
                engines::mate_bench::Table {
                    outcomes: &outcomes,
                    engine_name: name.as_deref(),
                }
            )?;
            let notes: Vec<&String> = outcomes.iter().filter_map(|o| o.note.as_ref()).collect();
            for note in &notes {
                outln!("disagreement: {note}")?;
            }
            Ok(if notes.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Game(args) => {
            let all_read = boardscan::games::command::run(&args, &mut std::io::stdout().lock())?;
            Ok(if all_read {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Uci => {
            engine::uci::run(BufReader::new(std::io::stdin()), std::io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { depth } => {
            outln!("{}", engine::bench::run(depth))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::BenchScan { image, runs } => {
            let bytes =
                std::fs::read(&image).with_context(|| format!("reading {}", image.display()))?;
            let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
            out!("{}", speed::time_recognition(&recognizer, &bytes, runs)?)?;
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
                    outln!("{failure}")?;
                }
            }
            out!("{report}")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::EvalRecordings {
            labels,
            show_failures,
        } => {
            let labels = if labels.is_dir() {
                labels.join("labels.csv")
            } else {
                labels
            };
            let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
            let report = boardscan::games::recording::eval::eval_recordings(&labels, &recognizer)
                .map_err(anyhow::Error::msg)?;
            if show_failures {
                for failure in &report.failures {
                    outln!("{failure}")?;
                }
            }
            out!("{report}")?;
            Ok(ExitCode::SUCCESS)
        }
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

/// Prints `file<TAB>FEN` per board (`file#page=N` for a PDF's page), or one
/// JSON object per image or page; failures (a missing file, a named pipe or
/// device, no board in an image, an unreadable PDF or page, a PDF without a
/// board on any page) go to stderr and make the exit code 1. A PDF page
/// without a board is not a failure by itself.
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
                let line = serde_json::json!({ "file": path.display().to_string(), "error": format!("{err:#}") });
                writeln!(out, "{line}")?;
            }
            eprintln!("{}: {err:#}", path.display());
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
    match picture.boards {
        Ok(boards) if json => {
            let line = serde_json::json!({ "file": path.display().to_string(), "page": picture.page, "boards": boards });
            writeln!(out, "{line}")?;
        }
        Ok(boards) => {
            for board in boards {
                let best = board.analysis.as_ref().and_then(|a| a.best_move.as_ref());
                match best {
                    Some(best) => writeln!(out, "{name}\t{}\t{}", board.reading.fen, best.san)?,
                    None => writeln!(out, "{name}\t{}", board.reading.fen)?,
                }
            }
        }
        Err(err) => {
            if json {
                let line = serde_json::json!({ "file": path.display().to_string(), "page": picture.page, "error": err.to_string() });
                writeln!(out, "{line}")?;
            }
            eprintln!("{name}: {err}");
            return Ok(false);
        }
    }
    Ok(true)
}

/// One line per line of a completed depth:
/// `depth 12 multipv 1 score cp 34 wdl 60 880 60 nodes … nps … time … pv e4 e5 …`.
fn print_depth(a: &engine::Analysis) -> std::io::Result<()> {
    for (i, pv) in a.pvs.iter().enumerate() {
        let score = match (pv.mate, pv.cp) {
            (Some(m), _) => format!("mate {m}"),
            (_, cp) => format!("cp {}", cp.unwrap_or(0)),
        };
        let [w, d, l] = pv.wdl;
        outln!(
            "depth {} multipv {} score {score} wdl {w} {d} {l} nodes {} nps {} time {} pv {}",
            a.depth,
            i + 1,
            a.nodes,
            a.nps,
            a.time_ms,
            pv.san.join(" ")
        )?;
    }
    Ok(())
}

fn print_analysis(a: &engine::Analysis) -> std::io::Result<()> {
    outln!(
        "depth {} seldepth {} nodes {} nps {} time {} ms",
        a.depth,
        a.seldepth,
        a.nodes,
        a.nps,
        a.time_ms
    )?;
    match &a.best_move {
        Some(best) => outln!("best move {} ({})", best.san, best.uci)?,
        None => match a.ended {
            Some(engine::Ended::Stalemate) => outln!("no legal move: stalemate, a draw")?,
            Some(engine::Ended::Checkmate) => outln!("no legal move: checkmate")?,
            None => outln!("no move found")?,
        },
    }
    for (i, pv) in a.pvs.iter().enumerate() {
        let score = match (pv.mate, pv.cp) {
            (Some(m), _) => format!("mate {m}"),
            (None, Some(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
            (None, None) => String::new(),
        };
        outln!("{}. {score:>8}  {}", i + 1, pv.san.join(" "))?;
    }
    Ok(())
}

fn print_hint(hint: &Hint) -> std::io::Result<()> {
    writeln!(std::io::stdout().lock(), "{}", hint.text)
}

fn print_grade(g: &Grade) -> std::io::Result<()> {
    let score = |s: &boardscan::coach::Score| match (s.mate, s.cp) {
        (Some(0), _) => "mate".to_owned(),
        (Some(m), _) => format!("mate {m}"),
        (None, Some(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
        (None, None) => String::new(),
    };
    let grade = serde_json::to_value(g.grade).unwrap_or_default();
    let mut out = std::io::stdout().lock();
    if let Some(read_as) = &g.read_as {
        writeln!(out, "read as {}: {read_as}", g.mv.san)?;
    }
    writeln!(
        out,
        "{}: {} (win-chance loss {:.1}%)",
        g.mv.san,
        grade.as_str().unwrap_or_default(),
        g.win_chance_loss * 100.0
    )?;
    writeln!(
        out,
        "before {}  after {}",
        score(&g.before),
        score(&g.after)
    )?;
    writeln!(out, "best {}: {}", g.best.san, g.best_line.join(" "))
}

/// Runs the solver for `mate` and `analyze --mate` and prints its answer:
/// as text, or as JSON (the `mateSearch` object, or with `with_analysis`
/// the analysis plus `mateSearch`, as the API answers). The exit status
/// is 0 for a mate, 1 for a proof of none, 3 when stopped first.
fn solve_mate(
    board: &cozy_chess::Board,
    n: u32,
    limits: &MateLimits,
    json: bool,
    with_analysis: bool,
    (lang, notation): (Lang, MoveStyle),
) -> anyhow::Result<ExitCode> {
    let result = mate::solve(board, n, limits, &AtomicBool::new(false));
    let report = mate::MateSearch::new(board, &result, lang, notation);
    let analysis = with_analysis.then(|| {
        let mut analysis = mate::analysis(board, &result);
        analysis.relabel(lang, notation);
        analysis
    });
    match (json, &analysis) {
        (true, Some(analysis)) => {
            let mut value = serde_json::to_value(analysis)?;
            value["mateSearch"] = serde_json::to_value(&report)?;
            outln!("{value}")?;
        }
        (true, None) => outln!("{}", serde_json::to_string(&report)?)?,
        (false, analysis) => {
            if let Some(analysis) = analysis {
                print_analysis(analysis)?;
            }
            print_mate(&report)?;
        }
    }
    Ok(ExitCode::from(match result.status {
        MateStatus::Found { .. } => 0,
        MateStatus::NoMate => 1,
        MateStatus::Unknown => 3,
    }))
}

fn print_mate(m: &mate::MateSearch) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match (m.found, m.proven) {
        (true, _) => writeln!(
            out,
            "mate in {} (asked #{}, proven)",
            m.mate_in.unwrap_or(m.n),
            m.n
        )?,
        (false, true) => writeln!(out, "no mate in {} (proven by exhaustive search)", m.n)?,
        (false, false) => writeln!(
            out,
            "unknown: stopped before an answer (no mate in {} proven)",
            m.no_mate_within
        )?,
    }
    if let Some(key) = &m.key {
        writeln!(out, "key: {}", key.san)?;
        match &m.threat {
            Some(threat) => writeln!(out, "threat: {}", threat.san)?,
            None => writeln!(out, "threat: none (the key checks or waits)")?,
        }
        writeln!(out, "line: {}", m.line.join(" "))?;
        let cooks: Vec<&str> = m.cooks.iter().map(|c| c.san.as_str()).collect();
        let more = if m.cooks_complete {
            ""
        } else {
            " (not all first moves examined)"
        };
        if cooks.is_empty() {
            writeln!(out, "cooks: none{more}")?;
        } else {
            writeln!(out, "cooks: {}{more}", cooks.join(", "))?;
        }
    }
    writeln!(out, "nodes {} time {} ms", m.nodes, m.time_ms)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
