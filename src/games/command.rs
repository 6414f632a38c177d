//! `boardscan game FILE|-`: every game of a PGN analysed, printed as
//! annotated PGN (or one JSON object per game with `--json`).

use std::{
    io::{IsTerminal, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::AtomicBool,
    time::Duration,
};

use indicatif::{ProgressBar, ProgressStyle};

use super::{
    analyse::{analyse_game, AnalyseOptions, Budget},
    annotate::annotated_pgn,
    pgn::{decode, read_pgn, ReadLimits},
    GamesError,
};
use crate::{
    engine::AnalysisLimits,
    engines::{EngineSpec, Engines, OURS},
    notation::lang::{Lang, MoveStyle},
};

/// Nodes per position when no budget is named: deterministic, and about a
/// tenth of a second with our engine on one core.
pub const DEFAULT_NODES: u64 = 150_000;

/// Options of `boardscan game`.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// The PGN file, or `-` for standard input.
    pub input: PathBuf,
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
    /// Analyse with this engine: `boardscan` (ours, the default) or a name from --engine-path.
    #[arg(long)]
    pub engine: Option<String>,
    /// An external UCI engine, `NAME=PATH` (repeatable).
    #[arg(long = "engine-path", value_name = "NAME=PATH")]
    pub engine_paths: Vec<EngineSpec>,
    /// Search threads per position (our engine).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Language of the piece letters written (and preferred when reading).
    #[arg(long, value_enum, default_value_t = Lang::En)]
    pub lang: Lang,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = MoveStyle::San)]
    pub notation: MoveStyle,
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
    let bytes = read_input(&args.input, args.max_bytes)?;
    let text = decode(&bytes)?;
    let limits = ReadLimits {
        max_bytes: args.max_bytes,
        max_games: args.max_games.max(1),
        max_plies: args.max_plies.max(1),
    };
    let pgn = read_pgn(&text, &limits, args.read_lang.unwrap_or(args.lang))?;
    let mut all_ok = true;
    if let Some(stopped) = pgn.stopped {
        eprintln!("boardscan: {stopped}");
        all_ok = false;
    }
    let engines = Engines::start(args.engine_paths.clone(), 1)?;
    let name = args.engine.as_deref();
    engines.check(name)?;
    let external = name.is_some_and(|n| n != OURS);
    let (search, budget) = args.limits();
    let options = AnalyseOptions {
        lang: args.lang,
        style: args.notation,
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
        if game.chess960 && external {
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
        let written = if args.json {
            let json = serde_json::to_string(&analysis).map_err(std::io::Error::other)?;
            writeln!(out, "{json}")
        } else {
            write!(
                out,
                "{}",
                annotated_pgn(game, &analysis, args.lang, args.notation)
            )
        }
        .and_then(|()| out.flush());
        match written {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(all_ok),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(all_ok)
}

/// The input's first `max_bytes + 1` bytes (one more, so that the reader
/// sees that it was longer).
fn read_input(path: &Path, max_bytes: usize) -> Result<Vec<u8>, GamesError> {
    let limit = max_bytes as u64 + 1;
    let mut bytes = Vec::new();
    let name = path.display().to_string();
    let result = if name == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    result.map_err(|e| GamesError::Input(format!("reading {name}: {e}")))?;
    Ok(bytes)
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
