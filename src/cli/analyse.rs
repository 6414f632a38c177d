//! `analyze`, `hint`, `grade` and `mate`: one position, searched, and the
//! printers of their plain-text answers.

use std::{
    io::Write,
    process::ExitCode,
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use anyhow::Context;
use boardscan::{
    analysis::{
        coach::{
            self,
            grade::{self, Grade},
            hint::{self, Hint, HintRequest},
        },
        engine::mate::{self, MateLimits, MateStatus},
        mate_report::{self, MateSearch},
        Analysis, AnalysisLimits, AnalysisView, Ended, Engines,
    },
    notation::{fen::parse_fen, lang::read_move},
};
use cozy_chess::Board;

use super::options::{EngineArgs, NotationArgs};

/// Options of `analyze`.
#[derive(clap::Args)]
pub struct AnalyzeArgs {
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
    #[command(flatten)]
    notation: NotationArgs,
    /// Print the analysis as JSON (with --follow: one line per depth, then the final one).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    engine: EngineArgs,
    /// Print each completed depth as the search goes.
    #[arg(long)]
    follow: bool,
    /// Run the mate solver for a mate in at most N moves instead (as `mate`;
    /// --json adds `mateSearch` to the analysis, as the API does).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(mate::MAX_N)))]
    mate: Option<u32>,
}

/// Search and notation options of `hint` and `grade`.
#[derive(clap::Args)]
pub struct CoachArgs {
    #[command(flatten)]
    notation: NotationArgs,
    /// Search to this depth (each search, for `grade`); with neither this nor
    /// --movetime, the default of every front end: depth 12 (within 10 s).
    #[arg(long)]
    depth: Option<u32>,
    /// Search for this many milliseconds (each search, for `grade`).
    #[arg(long)]
    movetime: Option<u64>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

impl CoachArgs {
    fn limits(&self) -> AnalysisLimits {
        coach::limits(self.depth, self.movetime.map(Duration::from_millis))
    }

    /// Starts the engines given and checks that the one chosen is among them.
    fn engines(&self) -> anyhow::Result<Engines> {
        let engines = self.engine.start()?;
        engines.check(self.engine.name())?;
        Ok(engines)
    }

    /// The search of `board` a hint or a grade asks for, on the engine chosen.
    fn search(&self, engines: &Engines, board: &Board) -> anyhow::Result<Analysis> {
        let stop = AtomicBool::new(false);
        let limits = self.limits();
        Ok(engines.analyze(self.engine.name(), board, &limits, |_| {}, &stop)?)
    }
}

/// Options of `hint`.
#[derive(clap::Args)]
pub struct HintArgs {
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
}

/// Options of `grade`.
#[derive(clap::Args)]
pub struct GradeArgs {
    /// The position, in FEN (quote it).
    fen: String,
    /// The move: UCI, ICCF, or SAN / long algebraic in any language (`Nf3`, `Кg1-f3`, `7163`).
    #[arg(name = "MOVE")]
    mv: String,
    #[command(flatten)]
    coach: CoachArgs,
}

/// Options of `mate`.
#[derive(clap::Args)]
pub struct MateArgs {
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
    #[command(flatten)]
    notation: NotationArgs,
}

/// `analyze`: the search's result (and with --follow each depth as it
/// completes), or with --mate the mate solver's answer and exit status.
pub fn analyze(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let board = parse_fen(&args.fen)?;
    if let Some(n) = args.mate {
        let limits = MateLimits {
            max_time: Some(
                args.movetime
                    .map_or(Duration::from_secs(60), Duration::from_millis),
            ),
            ..MateLimits::default()
        };
        return solve_mate(&board, n, &limits, args.json, true, args.notation);
    }
    let limits = AnalysisLimits {
        depth: args.depth,
        movetime: args.movetime.map(Duration::from_millis),
        nodes: None,
        multipv: args.multipv.max(1),
        threads: args.threads.max(1),
    };
    let engines = args.engine.start()?;
    let stop = AtomicBool::new(false);
    let NotationArgs { lang, notation } = args.notation;
    let on_depth = |a: &Analysis| {
        let written = match (args.follow, args.json) {
            (false, _) => Ok(()),
            (true, true) => outln!(
                "{}",
                serde_json::to_string(&a.render(lang, notation)).unwrap_or_default()
            ),
            (true, false) => print_depth(a, &a.render(lang, notation)),
        };
        // Nobody reads the lines any more: stop searching.
        if written.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let analysis = engines.analyze(args.engine.name(), &board, &limits, on_depth, &stop)?;
    let text = analysis.render(lang, notation);
    if args.json {
        outln!("{}", serde_json::to_string(&text)?)?;
    } else {
        print_analysis(&analysis, &text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hint`.
pub fn hint(args: &HintArgs) -> anyhow::Result<ExitCode> {
    let coach = &args.coach;
    let board = parse_fen(&args.fen)?;
    let request = HintRequest {
        level: args.level,
        threat: args.threat,
        lang: coach.notation.lang,
        style: coach.notation.notation,
    };
    let engines = coach.engines()?;
    let hint = hint::hint(&board, request, |b| coach.search(&engines, b))?;
    if coach.json {
        outln!("{}", serde_json::to_string(&hint)?)?;
    } else {
        print_hint(&hint)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `grade`.
pub fn grade(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    let coach = &args.coach;
    let NotationArgs { lang, notation } = coach.notation;
    let board = parse_fen(&args.fen)?;
    let read = read_move(&board, &args.mv, lang)?;
    let engines = coach.engines()?;
    let grade = Grade {
        read_as: read.reading,
        ..grade::grade(&board, read.mv, lang, notation, |b| {
            coach.search(&engines, b)
        })?
    };
    if coach.json {
        outln!("{}", serde_json::to_string(&grade)?)?;
    } else {
        print_grade(&grade)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mate`: see [`solve_mate`].
pub fn mate(args: &MateArgs) -> anyhow::Result<ExitCode> {
    let board = parse_fen(&args.fen)?;
    let limits = MateLimits {
        max_time: (args.max_seconds > 0.0)
            .then(|| Duration::try_from_secs_f64(args.max_seconds))
            .transpose()
            .context("--max-seconds")?,
        max_cooks: if args.all_cooks {
            None
        } else {
            Some(mate::DEFAULT_MAX_COOKS)
        },
        ..MateLimits::default()
    };
    solve_mate(&board, args.n, &limits, args.json, false, args.notation)
}

/// One line per line of a completed depth:
/// `depth 12 multipv 1 score cp 34 wdl 60 880 60 nodes … nps … time … pv e4 e5 …`.
/// `a` is the analysis, `text` its rendering in the reader's notation.
fn print_depth(a: &Analysis, text: &AnalysisView) -> std::io::Result<()> {
    for (i, (line, pv)) in a.pvs.iter().zip(&text.pvs).enumerate() {
        let [w, d, l] = line.wdl;
        outln!(
            "depth {} multipv {} score {} wdl {w} {d} {l} nodes {} nps {} time {} pv {}",
            a.depth,
            i + 1,
            line.score.uci(),
            a.nodes,
            a.nps,
            a.time_ms,
            pv.san.join(" ")
        )?;
    }
    Ok(())
}

/// `a` is the analysis, `text` its rendering in the reader's notation.
fn print_analysis(a: &Analysis, text: &AnalysisView) -> std::io::Result<()> {
    outln!(
        "depth {} seldepth {} nodes {} nps {} time {} ms",
        a.depth,
        a.seldepth,
        a.nodes,
        a.nps,
        a.time_ms
    )?;
    match &text.best_move {
        Some(best) => outln!("best move {} ({})", best.san, best.uci)?,
        None => match a.ended {
            Some(Ended::Stalemate) => outln!("no legal move: stalemate, a draw")?,
            Some(Ended::Checkmate) => outln!("no legal move: checkmate")?,
            None => outln!("no move found")?,
        },
    }
    for (i, (line, pv)) in a.pvs.iter().zip(&text.pvs).enumerate() {
        outln!("{}. {:>8}  {}", i + 1, line.score, pv.san.join(" "))?;
    }
    Ok(())
}

fn print_hint(hint: &Hint) -> std::io::Result<()> {
    outln!("{}", hint.text)
}

fn print_grade(g: &Grade) -> std::io::Result<()> {
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
    writeln!(out, "before {}  after {}", g.before, g.after)?;
    writeln!(out, "best {}: {}", g.best.san, g.best_line.join(" "))
}

/// Runs the solver for `mate` and `analyze --mate` and prints its answer:
/// as text, or as JSON (the `mateSearch` object, or with `with_analysis`
/// the analysis plus `mateSearch`, as the API answers). The exit status
/// is 0 for a mate, 1 for a proof of none, 3 when stopped first.
fn solve_mate(
    board: &Board,
    n: u32,
    limits: &MateLimits,
    json: bool,
    with_analysis: bool,
    NotationArgs { lang, notation }: NotationArgs,
) -> anyhow::Result<ExitCode> {
    let result = mate::solve(board, n, limits, &AtomicBool::new(false));
    let report = MateSearch::new(board, &result, lang, notation);
    let analysis = with_analysis.then(|| {
        let analysis = mate_report::analysis(board, &result);
        let text = analysis.render(lang, notation);
        (analysis, text)
    });
    match (json, &analysis) {
        (true, Some((_, text))) => {
            let mut value = serde_json::to_value(text)?;
            value["mateSearch"] = serde_json::to_value(&report)?;
            outln!("{value}")?;
        }
        (true, None) => outln!("{}", serde_json::to_string(&report)?)?,
        (false, analysis) => {
            if let Some((analysis, text)) = analysis {
                print_analysis(analysis, text)?;
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

fn print_mate(m: &MateSearch) -> std::io::Result<()> {
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
