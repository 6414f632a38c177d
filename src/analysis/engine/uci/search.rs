//! The job of a `go` (a search, the mate solver or a perft) or a `bench`,
//! on its own thread, and what it prints.

use std::{
    any::Any,
    io::{self, Write},
    panic::{self, AssertUnwindSafe},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex, MutexGuard,
    },
    thread,
    time::Duration,
};

use cozy_chess::Board;

use super::{
    command::{mate_moves_asked, parse_go, perft_depth},
    options::Options,
    send, State, NO_POSITION,
};
use crate::{
    analysis::engine::{
        bench,
        iterate::Iteration,
        mate::{self, MateLimits, MateStatus},
        nps, perft,
        score::{to_score, wdl},
        search::Heuristics,
        threads::{search, Progress},
        time::SearchLimits,
        tt::TranspositionTable,
    },
    analysis::Score,
    notation::uci::{line_to_uci, move_to_uci},
};

/// Flags shared with the job thread.
#[derive(Default)]
pub(super) struct Flags {
    /// Watched by the search at every node. A search also sets it itself
    /// when it ends, to stop its helper threads.
    pub(super) stop: AtomicBool,
    /// Set only by the input thread, to end the job in progress.
    pub(super) cancel: AtomicBool,
}

impl Flags {
    pub(super) fn reset(&self) {
        self.stop.store(false, Ordering::SeqCst);
        self.cancel.store(false, Ordering::SeqCst);
    }

    /// Ends the job in progress: `cancel` first, then `stop` (see
    /// [`bench::run_until`]).
    pub(super) fn raise(&self) {
        self.cancel.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum JobKind {
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
pub(super) struct Job<'scope> {
    pub(super) kind: JobKind,
    pub(super) infinite: bool,
    pub(super) handle: thread::ScopedJoinHandle<'scope, io::Result<()>>,
}

/// Starts the job of a `go` command (a search or a perft).
pub(super) fn go<'scope, 'env, W: Write + Send>(
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

/// Starts `bench` (to `depth`, or the default) as the job: the report, or
/// only `info string bench stopped` when it is ended first.
pub(super) fn start_bench<'scope, 'env, W: Write + Send>(
    s: &'scope thread::Scope<'scope, 'env>,
    depth: Option<u32>,
    out: &'env Mutex<W>,
    flags: &'env Flags,
) -> Job<'scope> {
    flags.reset();
    let handle = s.spawn(move || {
        guarded(out, JobKind::Bench, || {
            match bench::run_until(depth, &flags.cancel, &flags.stop) {
                Some(report) => send(out, &report.to_string()),
                None => send(out, "info string bench stopped"),
            }
        })
    });
    Job {
        kind: JobKind::Bench,
        infinite: false,
        handle,
    }
}

/// Ends the job in progress, if any, and waits for it.
pub(super) fn finish<W: Write>(
    job: &mut Option<Job<'_>>,
    flags: &Flags,
    out: &Mutex<W>,
) -> io::Result<()> {
    if job.is_some() {
        flags.raise();
    }
    join(job, out)
}

/// Waits for the job in progress, if any, to end.
pub(super) fn join<W: Write>(job: &mut Option<Job<'_>>, out: &Mutex<W>) -> io::Result<()> {
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
pub(super) fn guarded<W: Write>(
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
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
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
pub(super) fn lock_heuristics(
    heuristics: &Mutex<Vec<Heuristics>>,
) -> MutexGuard<'_, Vec<Heuristics>> {
    heuristics.lock().unwrap_or_else(|poisoned| {
        let mut guard = poisoned.into_inner();
        guard.clear();
        heuristics.clear_poison();
        guard
    })
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

/// The answer for a checkmated or stalemated root: a score and no move.
fn answer_no_move(board: &Board, out: &Mutex<impl Write>) -> io::Result<()> {
    let score = if board.checkers().is_empty() {
        Score::Cp(0)
    } else {
        Score::Mate(0)
    };
    send(out, &format!("info depth 0 score {}", score.uci()))?;
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
                    "info depth {} score {} nodes {} nps {} time {time_ms} pv {}",
                    2 * mate_in - 1,
                    Score::Mate(mate_in as i32).uci(),
                    result.nodes,
                    nps(result.nodes, result.elapsed),
                    line_to_uci(board, &result.line, chess960)
                ),
            )?;
            line_to_uci(board, &result.line[..result.line.len().min(2)], chess960)
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
    let nps = nps(*nodes, *elapsed);
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let score = to_score(line.score).uci();
            let wdl_text = if options.show_wdl {
                let [w, d, l] = wdl(line.score);
                format!(" wdl {w} {d} {l}")
            } else {
                String::new()
            };
            format!(
                "info depth {depth} seldepth {seldepth} multipv {} score {score}{wdl_text} nodes {nodes} nps {nps} hashfull {hashfull} time {time_ms} pv {}",
                i + 1,
                line_to_uci(board, &line.moves, options.chess960)
            )
        })
        .collect()
}
