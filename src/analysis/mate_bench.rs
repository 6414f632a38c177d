//! `boardscan bench-mate`: the solver timed on a collection of problems and
//! compared with another engine's `go mate N` (Stockfish's, typically).
//!
//! The collection is EPD with `dm N;` (the shortest mate) and `bm` (the
//! key). Each problem is solved twice: asked as #N, where the solver must
//! find a mate in N whose key is among the `bm` moves, and, for N > 1,
//! asked as #(N-1), where it must prove that there is none. The other
//! engine is asked only `go mate N`: it answers with a mate when it finds
//! one and cannot prove that none exists.

use std::fmt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cozy_chess::Board;

use super::external::process::{EngineProcess, ProcessError};
use crate::{
    analysis::engine::mate::{solve, MateLimits, MateStatus},
    notation::{fen::parse_fen, san::move_to_san},
};

#[derive(Debug, thiserror::Error)]
pub enum MateBenchError {
    #[error("line {line}: {message}")]
    Epd { line: usize, message: String },
    #[error("{engine}: {message}")]
    Engine { engine: String, message: String },
}

/// One problem of a collection.
#[derive(Clone, Debug)]
pub struct Problem {
    pub id: String,
    pub board: Board,
    /// Moves of the shortest mate.
    pub dm: u32,
    /// The accepted keys, in SAN as the EPD writes them (`+`/`#` ignored).
    pub keys: Vec<String>,
}

/// Reads EPD lines (`#` comments and blank lines skipped); each needs a
/// `dm` and a `bm` opcode.
pub fn read_problems(text: &str) -> Result<Vec<Problem>, MateBenchError> {
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: String| MateBenchError::Epd {
            line: i + 1,
            message,
        };
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        let [placement, side, castling, ep, ops] = fields[..] else {
            return Err(bad("expected four FEN fields and opcodes".into()));
        };
        let board = parse_fen(&format!("{placement} {side} {castling} {ep} 0 1"))
            .map_err(|e| bad(e.to_string()))?;
        let op = |name: &str| {
            ops.split(';')
                .map(str::trim)
                .find_map(|o| o.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
                .map(|rest| rest.trim().trim_matches('"').to_owned())
        };
        let dm = op("dm")
            .and_then(|d| d.parse().ok())
            .filter(|&d| d >= 1)
            .ok_or_else(|| bad("no `dm N` opcode".into()))?;
        let keys: Vec<String> = op("bm")
            .ok_or_else(|| bad("no `bm` opcode".into()))?
            .split_whitespace()
            .map(|k| k.trim_end_matches(['+', '#']).to_owned())
            .collect();
        problems.push(Problem {
            id: op("id").unwrap_or_else(|| format!("line {}", i + 1)),
            board,
            dm,
            keys,
        });
    }
    Ok(problems)
}

/// What one problem gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub dm: u32,
    /// Our solver asked #dm.
    pub time: Duration,
    pub nodes: u64,
    /// Found a mate in `dm` with a key among the `bm` moves.
    pub agrees: bool,
    /// Our solver asked #(dm-1): the time to prove no mate (dm > 1).
    pub none_time: Option<Duration>,
    pub none_proven: bool,
    /// The other engine's `go mate dm`.
    pub engine: Option<EngineAnswer>,
    pub note: Option<String>,
}

/// What the other engine's `go mate N` gave.
#[derive(Clone, Copy, Debug)]
pub struct EngineAnswer {
    /// Wall time from `go` to `bestmove`.
    pub time: Duration,
    /// Its last reported node count.
    pub nodes: u64,
    /// Whether it reported a mate in at most N.
    pub mated: bool,
}

/// Solves every problem (and its #(dm-1) twin), and asks `engine`, if
/// given, `go mate dm` with `engine_timeout` each.
pub fn run(
    problems: &[Problem],
    limits: &MateLimits,
    mut engine: Option<&mut UciEngine>,
    engine_timeout: Duration,
    mut progress: impl FnMut(&Problem, &Outcome),
) -> Result<Vec<Outcome>, MateBenchError> {
    let stop = AtomicBool::new(false);
    let mut outcomes = Vec::with_capacity(problems.len());
    for p in problems {
        let found = solve(&p.board, p.dm, limits, &stop);
        let key_san = found.key.map(|k| move_to_san(&p.board, k));
        let key_plain = key_san
            .as_deref()
            .map(|s| s.trim_end_matches(['+', '#']).to_owned());
        let agrees = found.status == MateStatus::Found { mate_in: p.dm }
            && key_plain.as_ref().is_some_and(|k| p.keys.contains(k));
        let mut note = (!agrees).then(|| {
            format!(
                "{}: asked #{}, got {:?} key {}",
                p.id,
                p.dm,
                found.status,
                key_san.as_deref().unwrap_or("-")
            )
        });
        let (none_time, none_proven) = if p.dm > 1 {
            let none = solve(&p.board, p.dm - 1, limits, &stop);
            if none.status != MateStatus::NoMate {
                note.get_or_insert_with(|| {
                    format!("{}: asked #{}, got {:?}", p.id, p.dm - 1, none.status)
                });
            }
            (Some(none.elapsed), none.status == MateStatus::NoMate)
        } else {
            (None, true)
        };
        let engine_answer = match engine.as_deref_mut() {
            Some(e) => Some(e.go_mate(&p.board, p.dm, engine_timeout)?),
            None => None,
        };
        let outcome = Outcome {
            dm: p.dm,
            time: found.elapsed,
            nodes: found.nodes,
            agrees,
            none_time,
            none_proven,
            engine: engine_answer.map(|(time, nodes, mate)| EngineAnswer {
                time,
                nodes,
                mated: mate.is_some_and(|m| m > 0 && m <= p.dm as i32),
            }),
            note,
        };
        progress(p, &outcome);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// The per-N table of a run, in Markdown.
pub struct Table<'a> {
    pub outcomes: &'a [Outcome],
    pub engine_name: Option<&'a str>,
}

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut header = "| N | problems | solved | median ms | max ms | median nodes | no mate in N-1 proven | median ms | max ms |".to_owned();
        let mut rule = "|---|---|---|---|---|---|---|---|---|".to_owned();
        if let Some(name) = self.engine_name {
            header.push_str(&format!(
                " {name} mate ≤ N | median ms | max ms | median nodes |"
            ));
            rule.push_str("---|---|---|---|");
        }
        writeln!(f, "{header}\n{rule}")?;
        let mut ns: Vec<u32> = self.outcomes.iter().map(|o| o.dm).collect();
        ns.sort_unstable();
        ns.dedup();
        for n in ns {
            let rows: Vec<&Outcome> = self.outcomes.iter().filter(|o| o.dm == n).collect();
            let times: Vec<Duration> = rows.iter().map(|o| o.time).collect();
            let nodes: Vec<u64> = rows.iter().map(|o| o.nodes).collect();
            let none: Vec<Duration> = rows.iter().filter_map(|o| o.none_time).collect();
            let solved = rows.iter().filter(|o| o.agrees).count();
            let proven = rows.iter().filter(|o| o.none_proven).count();
            let (none_median, none_max) = if n > 1 {
                (ms(median(&none)), ms(none.iter().max().copied()))
            } else {
                ("–".into(), "–".into())
            };
            write!(
                f,
                "| {n} | {} | {solved} | {} | {} | {} | {} | {none_median} | {none_max} |",
                rows.len(),
                ms(median(&times)),
                ms(times.iter().max().copied()),
                median(&nodes).map_or("–".into(), |v| v.to_string()),
                if n > 1 {
                    proven.to_string()
                } else {
                    "–".into()
                },
            )?;
            if self.engine_name.is_some() {
                let answers: Vec<EngineAnswer> = rows.iter().filter_map(|o| o.engine).collect();
                let times: Vec<Duration> = answers.iter().map(|a| a.time).collect();
                let nodes: Vec<u64> = answers.iter().map(|a| a.nodes).collect();
                write!(
                    f,
                    " {} | {} | {} | {} |",
                    answers.iter().filter(|a| a.mated).count(),
                    ms(median(&times)),
                    ms(times.iter().max().copied()),
                    median(&nodes).map_or("–".into(), |v| v.to_string()),
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

fn median<T: Copy + Ord>(values: &[T]) -> Option<T> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len().saturating_sub(1) / 2).copied()
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("–".into(), |d| format!("{:.1}", d.as_secs_f64() * 1000.0))
}

/// An external UCI engine (a process of [`EngineProcess`]), for `go mate`.
pub struct UciEngine {
    name: String,
    process: EngineProcess,
}

impl UciEngine {
    /// Starts `path` and waits (up to 10 s) for `uciok`.
    pub fn start(path: &str) -> Result<Self, MateBenchError> {
        let process =
            EngineProcess::start(Path::new(path), &[], Duration::from_secs(10)).map_err(|e| {
                MateBenchError::Engine {
                    engine: path.to_owned(),
                    message: e.to_string(),
                }
            })?;
        Ok(Self {
            name: path.to_owned(),
            process,
        })
    }

    /// `go mate n` on `board`: the wall time to `bestmove`, the last node
    /// count and the last `score mate M` reported (from the side to move's
    /// view), if any. The search is sent `stop` after `timeout`.
    pub fn go_mate(
        &mut self,
        board: &Board,
        n: u32,
        timeout: Duration,
    ) -> Result<(Duration, u64, Option<i32>), MateBenchError> {
        self.search(board, n, timeout)
            .map_err(|e| MateBenchError::Engine {
                engine: self.name.clone(),
                message: e.to_string(),
            })
    }

    fn search(
        &mut self,
        board: &Board,
        n: u32,
        timeout: Duration,
    ) -> Result<(Duration, u64, Option<i32>), ProcessError> {
        let engine = &mut self.process;
        engine.send("ucinewgame")?;
        engine.send(&format!("position fen {board}"))?;
        engine.sync(Duration::from_secs(10))?;
        let started = Instant::now();
        engine.send(&format!("go mate {n}"))?;
        let mut lines = Vec::new();
        if let Err(e) = read_to_bestmove(engine, started + timeout, &mut lines) {
            if !matches!(e, ProcessError::Timeout(_)) {
                return Err(e);
            }
            engine.send("stop")?;
            read_to_bestmove(engine, Instant::now() + Duration::from_secs(10), &mut lines)?;
        }
        let elapsed = started.elapsed();
        let after = |word: &str| {
            lines.iter().rev().find_map(|l| {
                let mut words = l.split_whitespace().skip_while(|&w| w != word);
                words.next()?;
                words.next()?.parse::<i64>().ok()
            })
        };
        let nodes = after("nodes").map_or(0, |n| n.max(0) as u64);
        Ok((elapsed, nodes, after("mate").map(|m| m as i32)))
    }
}

/// Appends the engine's lines to `lines` up to and with `bestmove`.
fn read_to_bestmove(
    engine: &mut EngineProcess,
    deadline: Instant,
    lines: &mut Vec<String>,
) -> Result<(), ProcessError> {
    loop {
        let line = engine.read(deadline)?;
        let done = line.starts_with("bestmove");
        lines.push(line);
        if done {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_problems_and_rejects_lines_without_dm() {
        let text = "# comment\n\
            6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#; dm 1; id \"back rank\";\n";
        let problems = read_problems(text).unwrap();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].dm, 1);
        assert_eq!(problems[0].keys, ["Ra8"]);
        assert_eq!(problems[0].id, "back rank");
        let err = read_problems("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8;").unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn median_takes_the_lower_middle() {
        assert_eq!(median(&[3, 1, 2]), Some(2));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
        assert_eq!(median::<u64>(&[]), None);
    }
}
