//! The UCI protocol loop.
//!
//! Supported: `uci`, `isready`, `setoption` (`Hash`, `Clear Hash`, `Threads`,
//! `MultiPV`, `UCI_ShowWDL`, `UCI_Chess960`, `Use NNUE`), `ucinewgame`, `position
//! [startpos | fen F] [moves ...]`, `go` with `depth`, `nodes`, `movetime`,
//! `wtime`/`btime`/`winc`/`binc`/`movestogo`, `searchmoves`, `infinite` and `perft N`,
//! `mate N` (the mate solver: see [`mate_job`]), `stop`, `quit`, plus the
//! non-standard `bench [depth]`, `eval` and `d`.
//! Scores are from the side to move's point of view. Searches, `go perft` and
//! `bench` run on a job thread so that `isready`, `stop` and `quit` are
//! answered while they run.
//!
//! A GUI cannot crash or silence the engine with bad input:
//!
//! - Input is read as bytes, one line at a time. A line that is not UTF-8
//!   is reported with `info string` and read with its invalid bytes replaced
//!   by U+FFFD, so a garbled command is rejected like any other; the lines
//!   after it are read as usual. A line longer than [`MAX_LINE`] bytes is
//!   skipped with an `info string` (no more than that is held in memory);
//!   if it was a `position` command the engine has no valid position after
//!   it, and if it was a `go` it is answered with `bestmove 0000`.
//! - A malformed command is answered with an `info string` saying what is
//!   wrong and otherwise ignored. `setoption` needs `name <id>` and, except
//!   for the `Clear Hash` button, `value <x>`; check options take `true` or
//!   `false`. `go` numbers that are missing or not numbers are reported and
//!   read as 0 (so the search ends soon); negative ones read as 0, and too
//!   large ones as the largest; unknown `go` words are reported and skipped
//!   (`go mate N` runs the exact mate solver instead of the search; N from
//!   1 to [`mate::MAX_N`], else an `info string` and `bestmove 0000`). `go perft` takes a depth
//!   from 0 to 20; moves must be 4 or 5 ASCII characters.
//! - A rejected `position` (no `startpos`/`fen`, a bad FEN, words between
//!   `startpos` and `moves`, an unreadable or illegal move) is reported and
//!   leaves the engine with no valid position, never with the previous one:
//!   until the next accepted `position`, a search `go` answers an `info
//!   string` and `bestmove 0000` (the UCI null move) without searching,
//!   `go perft`, `eval` and `d` answer only the `info string`.
//! - `stop`, `quit` and every command that changes the engine's state end
//!   the job in progress. A stopped `go perft` or `bench` prints only `info
//!   string perft stopped` or `info string bench stopped`, no partial counts.
//!   At the end of input a `go infinite` is stopped; other jobs finish.
//!   `go infinite` holds its `bestmove` until it is stopped.
//! - A panic in a job is caught on the job thread and answered with an
//!   `info string` and, for a search, `bestmove 0000` at once (also in `go
//!   infinite`); the search statistics are then reset. A panic while
//!   handling a command is reported likewise; if the command was about the
//!   position (`position`, `go`, `eval`, `d`) there is no valid position
//!   after it, and a `go` is answered with `bestmove 0000`.

use std::any::Any;
use std::borrow::Cow;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use cozy_chess::{Board, Color, Move};

use super::iterate::Iteration;
use super::mate::{self, MateLimits, MateStatus};
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
/// Longest input line read, in bytes without the newline: far more than a
/// `position` with thousands of moves needs.
pub const MAX_LINE: usize = 1 << 20;
/// Deepest `go perft` accepted (anything near it would run for ages anyway).
const MAX_PERFT_DEPTH: u32 = 20;
/// Longest piece of input echoed back in an `info string`, in characters.
const MAX_ECHO: usize = 80;
const NO_POSITION: &str = "info string no valid position: send a position command first";

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
    /// The position to search; `None` after a rejected `position` command.
    board: Option<Board>,
    /// Keys of the positions before `board`, for repetition detection.
    game: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    /// Per-thread search statistics, kept until `ucinewgame`.
    heuristics: Arc<Mutex<Vec<Heuristics>>>,
}

/// Flags shared with the job thread.
#[derive(Default)]
struct Flags {
    /// Watched by the search at every node. A search also sets it itself
    /// when it ends, to stop its helper threads.
    stop: AtomicBool,
    /// Set only by the input thread, to end the job in progress.
    cancel: AtomicBool,
}

impl Flags {
    fn reset(&self) {
        self.stop.store(false, Ordering::SeqCst);
        self.cancel.store(false, Ordering::SeqCst);
    }

    /// Ends the job in progress: `cancel` first, then `stop` (see
    /// [`bench::run_until`]).
    fn raise(&self) {
        self.cancel.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum JobKind {
    Search,
    Perft,
    Bench,
}

impl JobKind {
    fn name(self) -> &'static str {
        match self {
            JobKind::Search => "search",
            JobKind::Perft => "perft",
            JobKind::Bench => "bench",
        }
    }
}

/// The job running on its own thread.
struct Job<'scope> {
    kind: JobKind,
    infinite: bool,
    handle: thread::ScopedJoinHandle<'scope, io::Result<()>>,
}

enum Flow {
    Continue,
    Quit,
}

/// Runs the UCI loop until `quit` or the end of `input`.
///
/// `output` must be `Send` because search progress is written from the
/// search thread while this thread keeps reading commands. Only a failure
/// to read `input` or to write `output` ends the loop with an error.
pub fn run(mut input: impl BufRead, output: impl Write + Send) -> io::Result<()> {
    let out = Mutex::new(output);
    let flags = Flags::default();
    let mut state = State {
        board: Some(Board::default()),
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
        let mut job = None;
        let result = command_loop(s, &mut input, &out, &flags, &mut state, &mut job);
        if result.is_err() {
            flags.raise();
        }
        let joined = join(&mut job, &out);
        result.and(joined)
    })
}

fn command_loop<'scope, 'env, W: Write + Send>(
    s: &'scope thread::Scope<'scope, 'env>,
    input: &mut impl BufRead,
    out: &'env Mutex<W>,
    flags: &'env Flags,
    state: &mut State,
    job: &mut Option<Job<'scope>>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    while let Some(too_long) = read_line(input, &mut buf)? {
        let text = String::from_utf8_lossy(&buf);
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some((&command, rest)) = words.split_first() else {
            continue;
        };
        if too_long {
            send(
                out,
                &format!(
                    "info string ignored a {} line longer than {MAX_LINE} bytes",
                    quote(command)
                ),
            )?;
            match command {
                "position" => {
                    finish(job, flags, out)?;
                    state.board = None;
                    send(out, NO_POSITION)?;
                }
                "go" => {
                    finish(job, flags, out)?;
                    send(out, "bestmove 0000")?;
                }
                _ => {}
            }
            continue;
        }
        if let Cow::Owned(_) = text {
            send(
                out,
                "info string line is not valid UTF-8; invalid bytes read as U+FFFD",
            )?;
        }
        let handled = panic::catch_unwind(AssertUnwindSafe(|| {
            handle(s, command, rest, out, flags, state, job)
        }));
        match handled {
            Ok(Ok(Flow::Continue)) => {}
            Ok(Ok(Flow::Quit)) => return Ok(()),
            Ok(Err(e)) => return Err(e),
            Err(payload) => {
                send(
                    out,
                    &format!(
                        "info string internal error in {command}: {}",
                        panic_message(&*payload)
                    ),
                )?;
                if matches!(command, "position" | "go" | "eval" | "d") {
                    state.board = None;
                }
                if command == "go" && job.is_none() {
                    send(out, "bestmove 0000")?;
                }
            }
        }
    }
    // End of input: let a bounded job finish on its own.
    if job.as_ref().is_some_and(|j| j.infinite) {
        flags.raise();
    }
    Ok(())
}

/// Reads one line into `buf` without its newline, keeping at most
/// [`MAX_LINE`] bytes of it. Returns `None` at the end of input, else
/// whether the line was longer (the rest of it is skipped).
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<bool>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let end = newline.unwrap_or(available.len());
        if !too_long {
            let room = MAX_LINE - buf.len();
            too_long = end > room;
            buf.extend_from_slice(&available[..end.min(room)]);
        }
        let used = newline.map_or(end, |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(Some(too_long));
        }
    }
}

/// Handles one command on the input thread.
fn handle<'scope, 'env, W: Write + Send>(
    s: &'scope thread::Scope<'scope, 'env>,
    command: &str,
    rest: &[&str],
    out: &'env Mutex<W>,
    flags: &'env Flags,
    state: &mut State,
    job: &mut Option<Job<'scope>>,
) -> io::Result<Flow> {
    match command {
        "uci" => send(out, &uci_banner())?,
        "isready" => send(out, "readyok")?,
        "setoption" => {
            finish(job, flags, out)?;
            if let Err(msg) = set_option(state, rest) {
                send(out, &format!("info string {msg}"))?;
            }
        }
        "ucinewgame" => {
            finish(job, flags, out)?;
            state.tt.clear();
            lock_heuristics(&state.heuristics).clear();
        }
        "position" => {
            finish(job, flags, out)?;
            match set_position(state, rest) {
                Ok((board, game)) => {
                    state.board = Some(board);
                    state.game = game;
                }
                Err(msg) => {
                    state.board = None;
                    state.game.clear();
                    send(out, &format!("info string {msg}"))?;
                    send(out, NO_POSITION)?;
                }
            }
        }
        "go" => {
            finish(job, flags, out)?;
            go(s, rest, out, flags, state, job)?;
        }
        "stop" => finish(job, flags, out)?,
        "ponderhit" => {}
        "quit" => {
            finish(job, flags, out)?;
            return Ok(Flow::Quit);
        }
        "bench" => {
            finish(job, flags, out)?;
            let depth = match rest.first() {
                None => None,
                Some(text) => match parse_number(text) {
                    Some(d) => Some(d.clamp(1, i64::from(MAX_DEPTH)) as u32),
                    None => {
                        send(
                            out,
                            &format!("info string bad bench depth: {}", quote(text)),
                        )?;
                        return Ok(Flow::Continue);
                    }
                },
            };
            flags.reset();
            let handle = s.spawn(move || {
                guarded(out, JobKind::Bench, || {
                    match bench::run_until(depth, &flags.cancel, &flags.stop) {
                        Some(report) => send(out, &report.to_string()),
                        None => send(out, "info string bench stopped"),
                    }
                })
            });
            *job = Some(Job {
                kind: JobKind::Bench,
                infinite: false,
                handle,
            });
        }
        "eval" => match &state.board {
            Some(board) => send(
                out,
                &format!(
                    "info string static eval {} cp (side to move), network {} cp",
                    eval::evaluate(board),
                    nnue::evaluate(board)
                ),
            )?,
            None => send(out, NO_POSITION)?,
        },
        "d" => match &state.board {
            Some(board) => send(out, &format!("info string fen {}", fen(board, state)))?,
            None => send(out, NO_POSITION)?,
        },
        _ => send(
            out,
            &format!("info string unknown command: {}", quote(command)),
        )?,
    }
    Ok(Flow::Continue)
}

/// Starts the job of a `go` command (a search or a perft).
fn go<'scope, 'env, W: Write + Send>(
    s: &'scope thread::Scope<'scope, 'env>,
    args: &[&str],
    out: &'env Mutex<W>,
    flags: &'env Flags,
    state: &State,
    job: &mut Option<Job<'scope>>,
) -> io::Result<()> {
    let is_perft = args.first() == Some(&"perft");
    let Some(board) = state.board.clone() else {
        send(out, NO_POSITION)?;
        if !is_perft {
            send(out, "bestmove 0000")?;
        }
        return Ok(());
    };
    if is_perft {
        let depth = match perft_depth(args) {
            Ok(depth) => depth,
            Err(msg) => return send(out, &format!("info string {msg}")),
        };
        let chess960 = state.options.chess960;
        flags.reset();
        let handle = s.spawn(move || {
            guarded(out, JobKind::Perft, || {
                perft_job(&board, depth, chess960, &flags.cancel, out)
            })
        });
        *job = Some(Job {
            kind: JobKind::Perft,
            infinite: false,
            handle,
        });
        return Ok(());
    }
    let (limits, warnings) = parse_go(args, &board, state.options);
    for warning in warnings {
        send(out, &format!("info string {warning}"))?;
    }
    let infinite = limits.infinite;
    if let Some(n) = mate_moves_asked(args) {
        let Some(n) = u32::try_from(n)
            .ok()
            .filter(|n| (1..=mate::MAX_N).contains(n))
        else {
            send(
                out,
                &format!("info string go mate needs 1 to {} moves", mate::MAX_N),
            )?;
            return send(out, "bestmove 0000");
        };
        let chess960 = state.options.chess960;
        flags.reset();
        let handle = s.spawn(move || {
            guarded(out, JobKind::Search, || {
                mate_job(&board, n, &limits, flags, chess960, out)
            })
        });
        *job = Some(Job {
            kind: JobKind::Search,
            infinite,
            handle,
        });
        return Ok(());
    }
    let (game, tt, heuristics, options) = (
        state.game.clone(),
        Arc::clone(&state.tt),
        Arc::clone(&state.heuristics),
        state.options,
    );
    flags.reset();
    let handle = s.spawn(move || {
        guarded(out, JobKind::Search, || {
            let mut heuristics = lock_heuristics(&heuristics);
            search_job(
                &board,
                &game,
                &limits,
                (&tt, &mut heuristics),
                flags,
                options,
                out,
            )
        })
    });
    *job = Some(Job {
        kind: JobKind::Search,
        infinite,
        handle,
    });
    Ok(())
}

/// Ends the job in progress, if any, and waits for it.
fn finish<W: Write>(job: &mut Option<Job<'_>>, flags: &Flags, out: &Mutex<W>) -> io::Result<()> {
    if job.is_some() {
        flags.raise();
    }
    join(job, out)
}

/// Waits for the job in progress, if any, to end.
fn join<W: Write>(job: &mut Option<Job<'_>>, out: &Mutex<W>) -> io::Result<()> {
    let Some(job) = job.take() else {
        return Ok(());
    };
    match job.handle.join() {
        Ok(result) => result,
        // Only a panic while reporting a panic gets here.
        Err(payload) => report_panic(out, job.kind, &*payload),
    }
}

/// Runs `job`, turning a panic into an `info string` (and, for a search,
/// `bestmove 0000`, since the GUI waits for one).
fn guarded<W: Write>(
    out: &Mutex<W>,
    kind: JobKind,
    job: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    match panic::catch_unwind(AssertUnwindSafe(job)) {
        Ok(result) => result,
        Err(payload) => report_panic(out, kind, &*payload),
    }
}

fn report_panic<W: Write>(
    out: &Mutex<W>,
    kind: JobKind,
    payload: &(dyn Any + Send),
) -> io::Result<()> {
    send(
        out,
        &format!(
            "info string {} failed: {}",
            kind.name(),
            panic_message(payload)
        ),
    )?;
    if kind == JobKind::Search {
        send(out, "bestmove 0000")?;
    }
    Ok(())
}

/// The message of a panic, on one line.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.as_str()
    } else {
        "panic"
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The heuristics, reset if a search panicked while it held them.
fn lock_heuristics(heuristics: &Mutex<Vec<Heuristics>>) -> MutexGuard<'_, Vec<Heuristics>> {
    heuristics.lock().unwrap_or_else(|poisoned| {
        let mut guard = poisoned.into_inner();
        guard.clear();
        heuristics.clear_poison();
        guard
    })
}

fn send(out: &Mutex<impl Write>, text: &str) -> io::Result<()> {
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    writeln!(out, "{text}")?;
    out.flush()
}

/// A piece of input for an `info string`: control characters replaced and
/// cut to [`MAX_ECHO`] characters.
fn quote(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_ECHO)
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if text.chars().nth(MAX_ECHO).is_some() {
        out.push('…');
    }
    out
}

/// The answer to `uci`: id, options and `uciok`, one per line.
pub fn uci_banner() -> String {
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

fn fen(board: &Board, state: &State) -> String {
    if state.options.chess960 {
        format!("{board:#}")
    } else {
        board.to_string()
    }
}

/// Applies `setoption name N [value V]`; returns a message for bad input.
fn set_option(state: &mut State, args: &[&str]) -> Result<(), String> {
    const USAGE: &str = "setoption name <id> [value <x>]";
    let ["name", rest @ ..] = args else {
        return Err(format!("setoption without name; expected: {USAGE}"));
    };
    let (name_words, value) = match rest.iter().position(|&w| w == "value") {
        Some(at) => (&rest[..at], Some(rest[at + 1..].join(" "))),
        None => (rest, None),
    };
    let name = name_words.join(" ");
    if name.is_empty() {
        return Err(format!(
            "setoption without an option name; expected: {USAGE}"
        ));
    }
    let value = value.filter(|v| !v.is_empty());
    let missing = || format!("setoption {} needs a value", quote(&name));
    let bad = |v: &str| format!("bad {} value: {}", quote(&name), quote(v));
    let number = || -> Result<usize, String> {
        let v = value.as_deref().ok_or_else(missing)?;
        match parse_number(v) {
            Some(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => Err(bad(v)),
        }
    };
    let flag = || -> Result<bool, String> {
        let v = value.as_deref().ok_or_else(missing)?;
        if v.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if v.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(bad(v))
        }
    };
    match name.to_ascii_lowercase().as_str() {
        "hash" => {
            let mb = number()?.clamp(1, MAX_HASH_MB);
            state.tt = Arc::new(TranspositionTable::new(mb));
        }
        "clear hash" => state.tt.clear(),
        "threads" => state.options.threads = number()?.clamp(1, MAX_THREADS),
        "multipv" => state.options.multipv = number()?.clamp(1, MAX_MULTIPV),
        "uci_showwdl" => state.options.show_wdl = flag()?,
        "uci_chess960" => state.options.chess960 = flag()?,
        "use nnue" => state.options.nnue = flag()?,
        _ => return Err(format!("unknown option: {}", quote(&name))),
    }
    Ok(())
}

/// Reads `position [startpos | fen F] [moves ...]` into a board and the
/// keys of the positions before it.
fn set_position(state: &State, args: &[&str]) -> Result<(Board, Vec<u64>), String> {
    let moves_at = args
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(args.len());
    let (setup, moves) = args.split_at(moves_at);
    let moves = moves.get(1..).unwrap_or_default();
    let mut board = match setup {
        ["startpos"] => Board::default(),
        ["startpos", extra, ..] => {
            return Err(format!(
                "position startpos followed by {} instead of moves",
                quote(extra)
            ))
        }
        ["fen", fen @ ..] => {
            let text = fen.join(" ");
            parse_fen(&text).map_err(|e| format!("bad FEN ({e}): {}", quote(&text)))?
        }
        _ => return Err("position needs startpos or fen".to_owned()),
    };
    let mut game = Vec::with_capacity(moves.len());
    for text in moves {
        let mv = read_move(&board, text, state.options.chess960)
            .map_err(|e| format!("bad move in position ({e}): {}", quote(text)))?;
        game.push(board.hash());
        board.play_unchecked(mv);
    }
    Ok((board, game))
}

/// A legal move in UCI notation, or why not.
fn read_move(board: &Board, text: &str, chess960: bool) -> Result<Move, String> {
    parse_uci_move(board, text, chess960).map_err(|e| format!("{e}"))
}

/// The depth of `go perft N`, or a message.
fn perft_depth(args: &[&str]) -> Result<u32, String> {
    let Some(text) = args.get(1) else {
        return Err("go perft needs a depth".to_owned());
    };
    match text.parse::<u32>() {
        Ok(depth) if depth <= MAX_PERFT_DEPTH => Ok(depth),
        _ => Err(format!(
            "bad perft depth (0 to {MAX_PERFT_DEPTH}): {}",
            quote(text)
        )),
    }
}

/// Runs `go perft`: the node count of every root move and the total, or
/// only `info string perft stopped` when `cancel` is set first.
fn perft_job(
    board: &Board,
    depth: u32,
    chess960: bool,
    cancel: &AtomicBool,
    out: &Mutex<impl Write>,
) -> io::Result<()> {
    let mut lines = Vec::new();
    let mut total = 1;
    if depth > 0 {
        let Some(split) = perft::divide_until(board, depth, cancel) else {
            return send(out, "info string perft stopped");
        };
        total = 0;
        for (mv, n) in split {
            lines.push(format!("{}: {n}", move_to_uci(board, mv, chess960)));
            total += n;
        }
        lines.push(String::new());
    }
    lines.push(format!("Nodes searched: {total}"));
    send(out, &lines.join("\n"))
}

/// A number as a GUI may write it: too large ones saturate.
fn parse_number(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let (digits, saturated) = match text.strip_prefix('-') {
        Some(digits) => (digits, i64::MIN),
        None => (text.strip_prefix('+').unwrap_or(text), i64::MAX),
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(saturated)
}

/// Resolves a `go` command into search limits for the side to move, with
/// a message for each part of it that could not be read.
fn parse_go(args: &[&str], board: &Board, options: Options) -> (SearchLimits, Vec<String>) {
    const NUMERIC: [&str; 9] = [
        "depth",
        "nodes",
        "movetime",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "mate",
    ];
    let mut limits = SearchLimits {
        multipv: options.multipv,
        threads: options.threads,
        nnue: options.nnue,
        ..SearchLimits::default()
    };
    let mut warnings = Vec::new();
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
                .and_then(|text| read_move(board, text, options.chess960).ok())
            {
                limits.search_moves.push(mv);
                words.next();
            }
            continue;
        }
        if !NUMERIC.contains(&word) {
            warnings.push(format!("go: unknown parameter {}", quote(word)));
            continue;
        }
        // Every other parameter takes a number; a missing or unreadable one
        // reads as 0.
        let value = match words.peek() {
            None => None,
            Some(next)
                if NUMERIC.contains(next)
                    || matches!(**next, "infinite" | "ponder" | "searchmoves") =>
            {
                None
            }
            Some(_) => words.next().copied(),
        };
        let value = match value {
            None => {
                warnings.push(format!("go: {word} needs a number"));
                0
            }
            Some(text) => parse_number(text).unwrap_or_else(|| {
                warnings.push(format!("go: bad {word} value: {}", quote(text)));
                0
            }),
        };
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
                let mtg = Some(value.clamp(1, i64::from(u32::MAX)) as u32);
                (white.movestogo, black.movestogo) = (mtg, mtg);
            }
            // Read again by `mate_moves_asked`.
            "mate" => {}
            _ => warnings.push(format!("go {word} is not supported; ignored")),
        }
    }
    if clock_given && limits.hard.is_none() && !limits.infinite {
        let clock = if board.side_to_move() == Color::White {
            white
        } else {
            black
        };
        let (soft, hard) = clock.budget();
        limits.soft = Some(soft);
        limits.hard = Some(hard);
    }
    (limits, warnings)
}

/// The number after `mate` in a `go` command, if there is one (0 when it
/// is missing or unreadable, as [`parse_go`] reports).
fn mate_moves_asked(args: &[&str]) -> Option<i64> {
    let at = args.iter().position(|&w| w == "mate")?;
    Some(args.get(at + 1).and_then(|t| parse_number(t)).unwrap_or(0))
}

/// The answer for a checkmated or stalemated root: a score and no move.
fn answer_no_move(board: &Board, out: &Mutex<impl Write>) -> io::Result<()> {
    let score = if board.checkers().is_empty() {
        "cp 0"
    } else {
        "mate 0"
    };
    send(out, &format!("info depth 0 score {score}"))?;
    send(out, "bestmove (none)")
}

/// Runs `go mate N` with the exact mate solver ([`mate::solve`]), within the
/// `movetime` or `nodes` of the command if given. A mate found prints
/// `info depth D score mate M nodes .. time .. pv <main line>` and
/// `bestmove <key>`; a proof that there is none prints `info string no mate
/// in N (proven)`; a stop before either is proven prints `info string mate
/// search stopped`. Neither of the last two has a move to offer, so
/// `bestmove 0000` follows them (Stockfish instead searches on until told
/// to stop). `go mate N infinite` holds its `bestmove` until `stop`.
fn mate_job(
    board: &Board,
    n: u32,
    limits: &SearchLimits,
    flags: &Flags,
    chess960: bool,
    out: &Mutex<impl Write>,
) -> io::Result<()> {
    if !board.generate_moves(|_| true) {
        return answer_no_move(board, out);
    }
    let mate_limits = MateLimits {
        max_time: limits.hard,
        max_nodes: limits.nodes,
        max_cooks: Some(0),
        ..MateLimits::default()
    };
    let result = mate::solve(board, n, &mate_limits, &flags.stop);
    let time_ms = result.elapsed.as_millis();
    let answer = match result.status {
        MateStatus::Found { mate_in } => {
            send(
                out,
                &format!(
                    "info depth {} score mate {mate_in} nodes {} nps {} time {time_ms} pv {}",
                    2 * mate_in - 1,
                    result.nodes,
                    super::nps(result.nodes, result.elapsed),
                    uci_line(board, &result.line, chess960)
                ),
            )?;
            uci_line(board, &result.line[..result.line.len().min(2)], chess960)
                .replacen(' ', " ponder ", 1)
        }
        MateStatus::NoMate => {
            send(
                out,
                &format!(
                    "info string no mate in {n} (proven); nodes {} time {time_ms}",
                    result.nodes
                ),
            )?;
            "0000".to_owned()
        }
        MateStatus::Unknown => {
            send(
                out,
                &format!(
                    "info string mate search stopped; no mate in {} proven",
                    result.no_mate_within
                ),
            )?;
            "0000".to_owned()
        }
    };
    if limits.infinite {
        while !flags.cancel.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(1));
        }
    }
    send(out, &format!("bestmove {answer}"))
}

/// Runs one `go` search, printing `info` lines and the final `bestmove`.
/// The hash table and the threads' heuristics carry over between moves.
fn search_job(
    board: &Board,
    game: &[u64],
    limits: &SearchLimits,
    (tt, heuristics): (&TranspositionTable, &mut Vec<Heuristics>),
    flags: &Flags,
    options: Options,
    out: &Mutex<impl Write + Send>,
) -> io::Result<()> {
    if !board.generate_moves(|_| true) {
        return answer_no_move(board, out);
    }
    let mut write_error = None;
    let outcome = search(
        board,
        game,
        limits,
        tt,
        heuristics,
        &flags.stop,
        |progress| {
            for line in info_lines(board, progress, options) {
                if let Err(e) = send(out, &line) {
                    write_error.get_or_insert(e);
                }
            }
        },
    );
    if let Some(e) = write_error {
        return Err(e);
    }
    // `go infinite` keeps its answer until told to stop. The search sets
    // `stop` itself when it ends, so wait for `cancel`.
    if limits.infinite {
        while !flags.cancel.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(1));
        }
    }
    let Some(iteration) = outcome.iteration else {
        send(out, "info string search ended without a move")?;
        return send(out, "bestmove 0000");
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(Vec<u8>, bool)> {
        let mut input = io::BufReader::with_capacity(7, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(too_long) = read_line(&mut input, &mut buf).unwrap() {
            out.push((buf.clone(), too_long));
        }
        out
    }

    #[test]
    fn read_line_splits_bounds_and_keeps_the_last_line() {
        assert_eq!(
            lines(b"uci\r\n\nisready"),
            [
                (b"uci\r".to_vec(), false),
                (Vec::new(), false),
                (b"isready".to_vec(), false)
            ]
        );
        let mut input = vec![b'a'; MAX_LINE];
        input.extend_from_slice(b"\n");
        input.extend(vec![b'b'; MAX_LINE + 1]);
        input.extend_from_slice(b"\nquit\n");
        let read = lines(&input);
        assert_eq!(read.len(), 3);
        assert_eq!((read[0].0.len(), read[0].1), (MAX_LINE, false));
        assert_eq!((read[1].0.len(), read[1].1), (MAX_LINE, true));
        assert_eq!(read[2], (b"quit".to_vec(), false));
    }

    #[test]
    fn a_panicking_search_answers_bestmove_0000() {
        let out = Mutex::new(Vec::new());
        guarded(&out, JobKind::Search, || panic!("two\nlines")).unwrap();
        guarded(&out, JobKind::Perft, || panic!("boom")).unwrap();
        let text = String::from_utf8(out.into_inner().unwrap()).unwrap();
        assert_eq!(
            text,
            "info string search failed: two lines\nbestmove 0000\n\
             info string perft failed: boom\n"
        );
    }

    #[test]
    fn poisoned_heuristics_are_reset() {
        let heuristics = Mutex::new(Vec::new());
        heuristics
            .lock()
            .unwrap()
            .resize_with(1, Heuristics::default);
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            let _guard = heuristics.lock().unwrap();
            panic!("search bug");
        }));
        assert!(heuristics.is_poisoned());
        assert!(lock_heuristics(&heuristics).is_empty());
        assert!(!heuristics.is_poisoned());
    }

    #[test]
    fn numbers_saturate_and_echoes_are_short() {
        assert_eq!(parse_number("12"), Some(12));
        assert_eq!(parse_number("99999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_number("-99999999999999999999"), Some(i64::MIN));
        assert_eq!(parse_number("1e3"), None);
        assert_eq!(parse_number("-"), None);
        assert_eq!(quote("a\u{1b}b"), "a\u{FFFD}b");
        assert_eq!(quote(&"x".repeat(500)).chars().count(), MAX_ECHO + 1);
    }
}
