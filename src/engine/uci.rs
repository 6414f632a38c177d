//! The UCI protocol loop.
//!
//! Supported: `uci`, `isready`, `setoption` (`Hash`, `Clear Hash`, `Threads`,
//! `MultiPV`, `UCI_ShowWDL`, `UCI_Chess960`, `Use NNUE`), `ucinewgame`, `position
//! [startpos | fen F] [moves ...]`, `go` with `depth`, `nodes`, `movetime`,
//! `wtime`/`btime`/`winc`/`binc`/`movestogo`, `searchmoves`, `infinite` and `perft N`,
//! `stop`, `quit`, plus the non-standard `bench [depth]`, `eval` and `d`.
//! Scores are from the side to move's point of view. The search runs on its
//! own thread so that `stop` and `isready` are answered during a search.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use cozy_chess::{Board, Color, Move};

use super::iterate::Iteration;
use super::score::{mate_moves, wdl};
use super::search::Heuristics;
use super::threads::{search, Progress};
use super::time::{Clock, SearchLimits, MAX_DEPTH};
use super::tt::{TranspositionTable, DEFAULT_MB};
use super::{bench, eval, nnue, perft};
use crate::notation::fen::parse_fen;
use crate::notation::uci::{move_to_uci, parse_uci_move};

const NAME: &str = concat!("boardscan ", env!("CARGO_PKG_VERSION"));
const MAX_HASH_MB: usize = 4096;
const MAX_THREADS: usize = 64;
const MAX_MULTIPV: usize = 256;

#[derive(Clone, Copy)]
struct Options {
    threads: usize,
    multipv: usize,
    show_wdl: bool,
    chess960: bool,
    nnue: bool,
}

/// Engine state between commands.
struct State {
    board: Board,
    /// Keys of the positions before `board`, for repetition detection.
    game: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    /// Per-thread search statistics, kept until `ucinewgame`.
    heuristics: Arc<Mutex<Vec<Heuristics>>>,
}

/// Runs the UCI loop until `quit` or the end of `input`.
///
/// `output` must be `Send` because search progress is written from the
/// search thread while this thread keeps reading commands.
pub fn run(input: impl BufRead, output: impl Write + Send) -> io::Result<()> {
    let out = Mutex::new(output);
    let stop = AtomicBool::new(false);
    let mut state = State {
        board: Board::default(),
        game: Vec::new(),
        options: Options {
            threads: 1,
            multipv: 1,
            show_wdl: false,
            chess960: false,
            nnue: true,
        },
        tt: Arc::new(TranspositionTable::new(DEFAULT_MB)),
        heuristics: Arc::default(),
    };
    thread::scope(|s| {
        let mut job: Option<thread::ScopedJoinHandle<'_, io::Result<()>>> = None;
        let mut infinite = false;
        let finish = |job: &mut Option<thread::ScopedJoinHandle<'_, io::Result<()>>>| {
            stop.store(true, Ordering::Relaxed);
            match job.take() {
                Some(handle) => handle.join().expect("search thread panicked"),
                None => Ok(()),
            }
        };
        for line in input.lines() {
            let line = line?;
            let mut words = line.split_whitespace();
            let Some(command) = words.next() else {
                continue;
            };
            let rest: Vec<&str> = words.collect();
            match command {
                "uci" => send(&out, &uci_banner())?,
                "isready" => send(&out, "readyok")?,
                "setoption" => {
                    finish(&mut job)?;
                    if let Some(msg) = set_option(&mut state, &rest) {
                        send(&out, &format!("info string {msg}"))?;
                    }
                }
                "ucinewgame" => {
                    finish(&mut job)?;
                    state.tt.clear();
                    state
                        .heuristics
                        .lock()
                        .expect("search thread panicked")
                        .clear();
                }
                "position" => {
                    finish(&mut job)?;
                    if let Err(msg) = set_position(&mut state, &rest) {
                        send(&out, &format!("info string {msg}"))?;
                    }
                }
                "go" => {
                    finish(&mut job)?;
                    if let Some(depth) = perft_depth(&rest) {
                        send(&out, &perft_report(&state, depth))?;
                        continue;
                    }
                    stop.store(false, Ordering::Relaxed);
                    let limits = parse_go(&rest, &state);
                    infinite = limits.infinite;
                    let (board, game, tt, heuristics, options) = (
                        state.board.clone(),
                        state.game.clone(),
                        Arc::clone(&state.tt),
                        Arc::clone(&state.heuristics),
                        state.options,
                    );
                    let (out, stop) = (&out, &stop);
                    job = Some(s.spawn(move || {
                        let mut heuristics = heuristics.lock().expect("search thread panicked");
                        search_job(
                            &board,
                            &game,
                            &limits,
                            (&tt, &mut heuristics),
                            stop,
                            options,
                            out,
                        )
                    }));
                }
                "stop" => finish(&mut job)?,
                "ponderhit" => {}
                "quit" => {
                    finish(&mut job)?;
                    break;
                }
                "bench" => {
                    finish(&mut job)?;
                    let depth = rest.first().and_then(|d| d.parse().ok());
                    send(&out, &bench::run(depth).to_string())?;
                }
                "eval" => send(
                    &out,
                    &format!(
                        "info string static eval {} cp (side to move), network {} cp",
                        eval::evaluate(&state.board),
                        nnue::evaluate(&state.board)
                    ),
                )?,
                "d" => send(&out, &format!("info string fen {}", fen(&state)))?,
                _ => send(&out, &format!("info string unknown command: {command}"))?,
            }
        }
        // End of input: let a bounded search finish on its own.
        if infinite {
            stop.store(true, Ordering::Relaxed);
        }
        match job.take() {
            Some(handle) => handle.join().expect("search thread panicked"),
            None => Ok(()),
        }
    })
}

fn send(out: &Mutex<impl Write>, text: &str) -> io::Result<()> {
    let mut out = out.lock().expect("output lock poisoned");
    writeln!(out, "{text}")?;
    out.flush()
}

fn uci_banner() -> String {
    [
        format!("id name {NAME}"),
        "id author the boardscan developers".to_owned(),
        format!("option name Hash type spin default {DEFAULT_MB} min 1 max {MAX_HASH_MB}"),
        "option name Clear Hash type button".to_owned(),
        format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
        format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
        "option name UCI_ShowWDL type check default false".to_owned(),
        "option name UCI_Chess960 type check default false".to_owned(),
        "option name Use NNUE type check default true".to_owned(),
        "uciok".to_owned(),
    ]
    .join("\n")
}

fn fen(state: &State) -> String {
    if state.options.chess960 {
        format!("{:#}", state.board)
    } else {
        state.board.to_string()
    }
}

/// Applies `setoption name N value V`; returns a message for bad input.
fn set_option(state: &mut State, args: &[&str]) -> Option<String> {
    let value_at = args.iter().position(|&w| w == "value");
    let name = args[1.min(args.len())..value_at.unwrap_or(args.len())].join(" ");
    let value = value_at
        .map(|i| args[i + 1..].join(" "))
        .unwrap_or_default();
    let number = || value.parse::<usize>().ok();
    let flag = || value.eq_ignore_ascii_case("true");
    match name.to_ascii_lowercase().as_str() {
        "hash" => match number() {
            Some(mb) => state.tt = Arc::new(TranspositionTable::new(mb.clamp(1, MAX_HASH_MB))),
            None => return Some(format!("bad Hash value: {value}")),
        },
        "clear hash" => state.tt.clear(),
        "threads" => match number() {
            Some(n) => state.options.threads = n.clamp(1, MAX_THREADS),
            None => return Some(format!("bad Threads value: {value}")),
        },
        "multipv" => match number() {
            Some(n) => state.options.multipv = n.clamp(1, MAX_MULTIPV),
            None => return Some(format!("bad MultiPV value: {value}")),
        },
        "uci_showwdl" => state.options.show_wdl = flag(),
        "uci_chess960" => state.options.chess960 = flag(),
        "use nnue" => state.options.nnue = flag(),
        _ => return Some(format!("unknown option: {name}")),
    }
    None
}

/// Applies `position [startpos | fen F] [moves ...]`.
fn set_position(state: &mut State, args: &[&str]) -> Result<(), String> {
    let moves_at = args
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(args.len());
    let mut board = match args.first() {
        Some(&"startpos") => Board::default(),
        Some(&"fen") => {
            let text = args[1..moves_at].join(" ");
            parse_fen(&text).map_err(|e| format!("{e}: {text}"))?
        }
        _ => return Err("position needs startpos or fen".to_owned()),
    };
    let mut game = Vec::new();
    for text in args.iter().skip(moves_at + 1) {
        let mv = parse_uci_move(&board, text, state.options.chess960)
            .map_err(|e| format!("{e}: {text}"))?;
        game.push(board.hash());
        board.play_unchecked(mv);
    }
    state.board = board;
    state.game = game;
    Ok(())
}

fn perft_depth(args: &[&str]) -> Option<u32> {
    match args {
        ["perft", depth, ..] => depth.parse().ok(),
        _ => None,
    }
}

fn perft_report(state: &State, depth: u32) -> String {
    let mut lines = Vec::new();
    let mut total = 1;
    if depth > 0 {
        total = 0;
        for (mv, n) in perft::divide(&state.board, depth) {
            let text = move_to_uci(&state.board, mv, state.options.chess960);
            lines.push(format!("{text}: {n}"));
            total += n;
        }
        lines.push(String::new());
    }
    lines.push(format!("Nodes searched: {total}"));
    lines.join("\n")
}

/// Resolves a `go` command into search limits for the side to move.
fn parse_go(args: &[&str], state: &State) -> SearchLimits {
    let mut limits = SearchLimits {
        multipv: state.options.multipv,
        threads: state.options.threads,
        nnue: state.options.nnue,
        ..SearchLimits::default()
    };
    let (mut white, mut black) = (Clock::default(), Clock::default());
    let mut clock_given = false;
    let mut words = args.iter().peekable();
    while let Some(&word) = words.next() {
        if matches!(word, "infinite" | "ponder") {
            limits.infinite = true;
            continue;
        }
        // The moves run up to the first word that is not a legal move.
        if word == "searchmoves" {
            while let Some(mv) = words
                .peek()
                .and_then(|text| parse_uci_move(&state.board, text, state.options.chess960).ok())
            {
                limits.search_moves.push(mv);
                words.next();
            }
            continue;
        }
        // Every other parameter takes a number; a missing one reads as 0.
        let value = words
            .next()
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        let ms = Duration::from_millis(value.max(0) as u64);
        match word {
            "depth" => limits.depth = value.clamp(1, i64::from(MAX_DEPTH)) as u32,
            "nodes" => limits.nodes = Some(value.max(1) as u64),
            "movetime" => limits.hard = Some(ms),
            "wtime" => (white.time, clock_given) = (ms, true),
            "btime" => (black.time, clock_given) = (ms, true),
            "winc" => white.inc = ms,
            "binc" => black.inc = ms,
            "movestogo" => {
                let mtg = Some(value.max(1) as u32);
                (white.movestogo, black.movestogo) = (mtg, mtg);
            }
            _ => {}
        }
    }
    if clock_given && limits.hard.is_none() && !limits.infinite {
        let clock = if state.board.side_to_move() == Color::White {
            white
        } else {
            black
        };
        let (soft, hard) = clock.budget();
        limits.soft = Some(soft);
        limits.hard = Some(hard);
    }
    limits
}

/// Runs one `go` search, printing `info` lines and the final `bestmove`.
/// The hash table and the threads' heuristics carry over between moves.
fn search_job(
    board: &Board,
    game: &[u64],
    limits: &SearchLimits,
    (tt, heuristics): (&TranspositionTable, &mut Vec<Heuristics>),
    stop: &AtomicBool,
    options: Options,
    out: &Mutex<impl Write + Send>,
) -> io::Result<()> {
    if !board.generate_moves(|_| true) {
        let score = if board.checkers().is_empty() {
            "cp 0"
        } else {
            "mate 0"
        };
        send(out, &format!("info depth 0 score {score}"))?;
        return send(out, "bestmove (none)");
    }
    let mut write_error = None;
    let outcome = search(board, game, limits, tt, heuristics, stop, |progress| {
        for line in info_lines(board, progress, options) {
            if let Err(e) = send(out, &line) {
                write_error.get_or_insert(e);
            }
        }
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    // `go infinite` keeps its answer until told to stop.
    if limits.infinite {
        while !stop.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(1));
        }
    }
    let iteration = outcome.iteration.expect("a legal move exists");
    let pv = &iteration.lines[0].moves;
    let mut text = format!("bestmove {}", move_to_uci(board, pv[0], options.chess960));
    if let Some(&ponder) = pv.get(1) {
        let mut after = board.clone();
        after.play_unchecked(pv[0]);
        text.push_str(&format!(
            " ponder {}",
            move_to_uci(&after, ponder, options.chess960)
        ));
    }
    send(out, &text)
}

/// One `info` line per principal variation of a completed iteration.
fn info_lines(board: &Board, progress: &Progress, options: Options) -> Vec<String> {
    let Progress {
        iteration: Iteration {
            depth,
            seldepth,
            lines,
        },
        nodes,
        elapsed,
        hashfull,
    } = progress;
    let time_ms = elapsed.as_millis();
    let nps = super::nps(*nodes, *elapsed);
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let score = match mate_moves(line.score) {
                Some(m) => format!("mate {m}"),
                None => format!("cp {}", line.score),
            };
            let wdl_text = if options.show_wdl {
                let [w, d, l] = wdl(line.score);
                format!(" wdl {w} {d} {l}")
            } else {
                String::new()
            };
            format!(
                "info depth {depth} seldepth {seldepth} multipv {} score {score}{wdl_text} nodes {nodes} nps {nps} hashfull {hashfull} time {time_ms} pv {}",
                i + 1,
                uci_line(board, &line.moves, options.chess960)
            )
        })
        .collect()
}

fn uci_line(board: &Board, moves: &[Move], chess960: bool) -> String {
    let mut board = board.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        out.push(move_to_uci(&board, mv, chess960));
        board.play_unchecked(mv);
    }
    out.join(" ")
}
