//! The UCI protocol loop.
//!
//! Supported: `uci`, `isready`, `setoption` (`Hash`, `Clear Hash`, `Threads`,
//! `MultiPV`, `UCI_ShowWDL`, `UCI_Chess960`, `Use NNUE`), `ucinewgame`, `position
//! [startpos | fen F] [moves ...]`, `go` with `depth`, `nodes`, `movetime`,
//! `wtime`/`btime`/`winc`/`binc`/`movestogo`, `searchmoves`, `infinite` and `perft N`,
//! `mate N` (the mate solver: see `search::mate_job`), `stop`, `quit`, plus the
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
//!
//! The loop and the commands' dispatch are here; [`command`] reads the
//! commands' words, [`options`] the engine's options, and [`search`] runs
//! a `go`, `go perft` or `bench` job on its own thread.

mod command;
mod options;
mod search;

use std::{
    borrow::Cow,
    io::{self, BufRead, Write},
    panic::{self, AssertUnwindSafe},
    sync::{Arc, Mutex, PoisonError},
    thread,
};

use cozy_chess::Board;

pub use self::options::uci_banner;
use self::{
    command::{parse_number, read_line, set_position},
    options::{set_option, Options},
    search::{finish, go, join, lock_heuristics, panic_message, start_bench, Flags, Job},
};
use super::{
    eval, nnue,
    search::Heuristics,
    time::MAX_DEPTH,
    tt::{TranspositionTable, DEFAULT_MB},
};

/// Longest input line read, in bytes without the newline: far more than a
/// `position` with thousands of moves needs.
pub const MAX_LINE: usize = 1 << 20;

/// Longest piece of input echoed back in an `info string`, in characters.
const MAX_ECHO: usize = 80;

const NO_POSITION: &str = "info string no valid position: send a position command first";

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
        options: Options::default(),
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
            *job = Some(start_bench(s, depth, out, flags));
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

fn fen(board: &Board, state: &State) -> String {
    if state.options.chess960 {
        format!("{board:#}")
    } else {
        board.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{
        search::{guarded, JobKind},
        *,
    };

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
