//! `boardscan game FILE|-`: every game of a PGN, or of a recording (an
//! animated GIF, a video), analysed, printed as annotated PGN (or one JSON
//! object per game with `--json`).

use std::{
    io::{IsTerminal, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::AtomicBool,
    time::Duration,
};

use indicatif::{ProgressBar, ProgressStyle};

use super::{
    analyse::{analyse_game, AnalyseOptions, Budget},
    annotate::{annotated_pgn, plain_pgn},
    pgn::{decode, read_pgn, Pgn, ReadLimits},
    recording::{clock, read_recording, RecordingInput},
    summary::GameSummary,
    GamesError,
};
use crate::{
    analysis::{AnalysisLimits, EngineArgs, OURS},
    notation::lang::{Lang, NotationArgs},
    recognize::Recognizer,
    source::recording::{RecordingKind, RecordingLimits},
    vision::DecodeLimits,
};

/// Nodes per position when no budget is named: deterministic, and about a
/// tenth of a second with our engine on one core.
pub const DEFAULT_NODES: u64 = 150_000;

/// Options of `boardscan game`.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// The PGN file, animated GIF or video (MP4, WebM, …), or `-` for standard input.
    pub input: PathBuf,
    /// Print the games as read, without analysing them.
    #[arg(long)]
    pub no_analysis: bool,
    /// Print one JSON object per game instead of annotated PGN.
    #[arg(long)]
    pub json: bool,
    /// Search each position for this many milliseconds.
    #[arg(long, conflicts_with_all = ["nodes", "depth"])]
    pub movetime: Option<u64>,
    /// Search each position for this many nodes (the default budget: 150000).
    #[arg(long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
    /// Search each position to this depth.
    #[arg(long)]
    pub depth: Option<u32>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Search threads per position (our engine).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    #[command(flatten)]
    pub notation: NotationArgs,
    /// Language preferred when reading the PGN's moves, where a letter means
    /// different pieces in different languages (default: --lang).
    #[arg(long, value_enum)]
    pub read_lang: Option<Lang>,
    /// Analyse only game N of the file (from 1).
    #[arg(long)]
    pub game: Option<usize>,
    /// Games read at most; reading stops after them, with a warning.
    #[arg(long, default_value_t = 100)]
    pub max_games: usize,
    /// Plies of a game's main line analysed at most; later moves are skipped, with a warning.
    #[arg(long, default_value_t = ReadLimits::default().max_plies)]
    pub max_plies: usize,
    /// Bytes of PGN read at most; reading stops at the last line break before, with a warning.
    #[arg(long, default_value_t = ReadLimits::default().max_bytes)]
    pub max_bytes: usize,
    /// Frames a second looked at in a video.
    #[arg(long, default_value_t = RecordingLimits::default().fps)]
    pub fps: u32,
    /// Seconds of a recording read at most; the rest is left, with a warning.
    #[arg(long, default_value_t = RecordingLimits::default().max_seconds)]
    pub max_seconds: u32,
}

impl GameArgs {
    fn limits(&self) -> (AnalysisLimits, Budget) {
        let nodes = match (self.movetime, self.nodes, self.depth) {
            (None, None, None) => Some(DEFAULT_NODES),
            (_, nodes, _) => nodes,
        };
        (
            AnalysisLimits {
                depth: self.depth,
                movetime: self.movetime.map(Duration::from_millis),
                nodes,
                multipv: 1,
                threads: self.threads.max(1),
            },
            Budget {
                movetime_ms: self.movetime,
                nodes,
                depth: self.depth,
            },
        )
    }
}

/// Runs `boardscan game`: prints each game's analysis to `out` and each
/// unreadable game's error to standard error. Returns whether every game
/// was read and analysed. A closed `out` (`| head`) ends it quietly.
pub fn run(args: &GameArgs, out: &mut dyn Write) -> Result<bool, GamesError> {
    let limits = ReadLimits {
        max_bytes: args.max_bytes,
        max_games: args.max_games.max(1),
        max_plies: args.max_plies.max(1),
    };
    let (pgn, recording_stopped) = match read_input(&args.input, args.max_bytes)? {
        Input::Text(bytes) => {
            let text = decode(&bytes)?;
            let pgn = read_pgn(&text, &limits, args.read_lang.unwrap_or(args.notation.lang))?;
            (pgn, None)
        }
        Input::Gif(bytes) => read_recording_games(args, RecordingInput::Gif(bytes))?,
        Input::Video(path, _kept) => read_recording_games(args, RecordingInput::Video(&path))?,
    };
    let mut all_ok = true;
    let stopped = pgn.stopped.map(|s| s.to_string()).or(recording_stopped);
    if let Some(stopped) = stopped {
        eprintln!("boardscan: {stopped}");
        all_ok = false;
    }
    let name = args.engine.name();
    let external = name.is_some_and(|n| n != OURS);
    let engines = if args.no_analysis {
        None
    } else {
        let engines = args.engine.start()?;
        engines.check(name)?;
        Some(engines)
    };
    let (search, budget) = args.limits();
    let options = AnalyseOptions {
        lang: args.notation.lang,
        style: args.notation.notation,
        engine: name.unwrap_or(OURS).to_owned(),
        budget,
    };
    if let Some(n) = args.game {
        if n == 0 || n > pgn.games.len() {
            return Err(GamesError::Input(format!(
                "--game {n}: the PGN has {} game(s)",
                pgn.games.len()
            )));
        }
    }
    for (index, read) in pgn.games.iter().enumerate() {
        if args.game.is_some_and(|n| n != index + 1) {
            continue;
        }
        let game = match read {
            Ok(game) => game,
            Err(err) => {
                eprintln!("boardscan: {err}");
                all_ok = false;
                continue;
            }
        };
        if game.chess960 && external && engines.is_some() {
            eprintln!("boardscan: {}", GamesError::Chess960External(game.number));
            all_ok = false;
            continue;
        }
        if game.truncated {
            eprintln!(
                "boardscan: game {}: only the first {} plies were read (--max-plies)",
                game.number, limits.max_plies
            );
        }
        for warning in &game.warnings {
            eprintln!("boardscan: game {}: {warning}", game.number);
        }
        let text = match &engines {
            None if args.json => {
                let json =
                    serde_json::to_string(&GameSummary::of(game)).map_err(std::io::Error::other)?;
                format!("{json}\n")
            }
            None => plain_pgn(game, args.notation.lang, args.notation.notation),
            Some(engines) => {
                let bar = progress(game.moves.len() as u64, game.number);
                let analysis = analyse_game(
                    game,
                    &options,
                    |board| {
                        // A fresh flag each time: a finished search sets its flag.
                        engines
                            .analyze(name, board, &search, |_| {}, &AtomicBool::new(false))
                            .map_err(GamesError::from)
                    },
                    |report| {
                        bar.set_position(report.ply as u64);
                        true
                    },
                );
                bar.finish_and_clear();
                let analysis = match analysis {
                    Ok(analysis) => analysis,
                    Err(err) => {
                        eprintln!("boardscan: game {}: {err}", game.number);
                        all_ok = false;
                        continue;
                    }
                };
                if args.json {
                    let json = serde_json::to_string(&analysis).map_err(std::io::Error::other)?;
                    format!("{json}\n")
                } else {
                    annotated_pgn(game, &analysis, args.notation.lang, args.notation.notation)
                }
            }
        };
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(all_ok),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(all_ok)
}

/// What `boardscan game` was given.
enum Input {
    /// PGN text: its first `max_bytes + 1` bytes (one more, so that the
    /// reader sees that it was longer).
    Text(Vec<u8>),
    Gif(Vec<u8>),
    /// A video file, and the temporary file that holds it when it came on
    /// standard input (ffmpeg needs a file it can seek in).
    Video(PathBuf, Option<tempfile::NamedTempFile>),
}

/// Largest recording read: a GIF is held in memory, a video from standard
/// input is copied to a temporary file.
const MAX_RECORDING_BYTES: u64 = 2 << 30;

/// Reads the input far enough to know what it is: PGN text, a GIF or a video.
fn read_input(path: &Path, max_bytes: usize) -> Result<Input, GamesError> {
    let name = path.display().to_string();
    let failed = |e: std::io::Error| GamesError::Input(format!("reading {name}: {e}"));
    let mut source: Box<dyn Read> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).map_err(failed)?;
        let kind = file.metadata().map_err(failed)?.file_type();
        if let Some(what) = crate::source::file::not_regular(kind) {
            return Err(GamesError::Input(format!("{name} is {what}, not a file")));
        }
        Box::new(file)
    };
    let mut head = Vec::new();
    (&mut source)
        .take(16)
        .read_to_end(&mut head)
        .map_err(failed)?;
    let kind = RecordingKind::of(&head);
    if kind == Some(RecordingKind::Video) && name != "-" {
        return Ok(Input::Video(path.to_path_buf(), None));
    }
    let limit = match kind {
        None => max_bytes as u64 + 1,
        Some(_) => MAX_RECORDING_BYTES + 1,
    };
    let mut rest = std::io::Cursor::new(head).chain(source).take(limit);
    let too_long = || {
        GamesError::Input(format!(
            "{name} is over {} MiB, the limit for a recording",
            MAX_RECORDING_BYTES >> 20
        ))
    };
    match kind {
        None | Some(RecordingKind::Gif) => {
            let mut bytes = Vec::new();
            rest.read_to_end(&mut bytes).map_err(failed)?;
            if kind.is_none() {
                return Ok(Input::Text(bytes));
            }
            if bytes.len() as u64 > MAX_RECORDING_BYTES {
                return Err(too_long());
            }
            Ok(Input::Gif(bytes))
        }
        Some(RecordingKind::Video) => {
            let mut file = tempfile::NamedTempFile::new().map_err(failed)?;
            let copied = std::io::copy(&mut rest, &mut file).map_err(failed)?;
            if copied > MAX_RECORDING_BYTES {
                return Err(too_long());
            }
            Ok(Input::Video(file.path().to_path_buf(), Some(file)))
        }
    }
}

/// The games of a recording, read with the bundled models, a spinner on a
/// terminal and a summary line on standard error.
/// Also says why reading stopped before the recording's end, if it did.
fn read_recording_games(
    args: &GameArgs,
    input: RecordingInput<'_>,
) -> Result<(Pgn, Option<String>), GamesError> {
    let recognizer = Recognizer::bundled(1, DecodeLimits::default())
        .map_err(|e| GamesError::Input(format!("loading the models: {e}")))?;
    let limits = RecordingLimits {
        fps: args.fps.clamp(1, 60),
        max_seconds: args.max_seconds.max(1),
        ..RecordingLimits::default()
    };
    let spinner = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    let recording = read_recording(input, &recognizer, limits, |at| {
        spinner.set_message(format!("{} of the recording read", clock(at)));
        spinner.tick();
    });
    spinner.finish_and_clear();
    let recording = recording?;
    eprintln!(
        "boardscan: read {} of recording ({} frames): {} position(s) seen, {} game(s)",
        clock(recording.duration),
        recording.frames,
        recording.sightings,
        recording.games.len()
    );
    let pgn = Pgn {
        games: recording.games.into_iter().map(Ok).collect(),
        stopped: None,
    };
    Ok((pgn, recording.stopped))
}

/// A progress bar on standard error when it is a terminal.
fn progress(plies: u64, game: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(plies);
    bar.set_style(
        ProgressStyle::with_template("game {msg}: {bar:40} {pos}/{len} plies, {eta} left")
            .expect("valid template"),
    );
    bar.set_message(game.to_string());
    bar
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        game: GameArgs,
    }

    fn limits(args: &[&str]) -> (AnalysisLimits, Budget) {
        let mut all = vec!["game", "x.pgn"];
        all.extend_from_slice(args);
        Cli::parse_from(all).game.limits()
    }

    #[test]
    fn the_default_budget_is_a_node_count_and_flags_replace_it() {
        let (search, budget) = limits(&[]);
        assert_eq!(search.nodes, Some(DEFAULT_NODES));
        assert_eq!((search.movetime, search.depth), (None, None));
        assert_eq!(budget.nodes, Some(DEFAULT_NODES));
        let (search, budget) = limits(&["--movetime", "200"]);
        assert_eq!(search.nodes, None);
        assert_eq!(search.movetime, Some(Duration::from_millis(200)));
        assert_eq!(budget.movetime_ms, Some(200));
        let (search, _) = limits(&["--depth", "9"]);
        assert_eq!((search.depth, search.nodes), (Some(9), None));
        assert!(Cli::try_parse_from(["game", "x", "--movetime", "5", "--nodes", "9"]).is_err());
    }
}
