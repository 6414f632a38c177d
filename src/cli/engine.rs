//! Engine utilities: `uci`, `bench` and `bench-mate`.

use std::{io::BufReader, io::Write, path::PathBuf, process::ExitCode, time::Duration};

use anyhow::Context;
use boardscan::{
    analysis::engine::{self, mate::MateLimits},
    analysis::mate_bench,
};

use super::success_if;

/// Options of `bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search depth.
    #[arg(long)]
    depth: Option<u32>,
}

/// Options of `bench-mate`.
#[derive(clap::Args)]
pub struct BenchMateArgs {
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
}

/// `uci`: our engine on standard input and output.
pub fn uci() -> anyhow::Result<ExitCode> {
    engine::uci::run(BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(ExitCode::SUCCESS)
}

/// `bench`: the node count and speed over the built-in positions.
pub fn bench(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    outln!("{}", engine::bench::run(args.depth))?;
    Ok(ExitCode::SUCCESS)
}

/// `bench-mate`: a Markdown table per N; exit status 1 when the solver
/// disagrees with a problem.
pub fn bench_mate(args: &BenchMateArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.epd)
        .with_context(|| format!("reading {}", args.epd.display()))?;
    let problems = mate_bench::read_problems(&text)?;
    let mut other = args
        .engine
        .as_deref()
        .map(mate_bench::UciEngine::start)
        .transpose()?;
    let limits = MateLimits {
        max_time: Some(Duration::from_secs(args.max_seconds)),
        max_cooks: Some(0),
        ..MateLimits::default()
    };
    let outcomes = mate_bench::run(
        &problems,
        &limits,
        other.as_mut(),
        Duration::from_secs(args.engine_timeout),
        |p, o| {
            if args.verbose {
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
    let name = args.engine.as_deref().map(|e| {
        std::path::Path::new(e)
            .file_name()
            .map_or(e.to_owned(), |f| f.to_string_lossy().into_owned())
    });
    out!(
        "{}",
        mate_bench::Table {
            outcomes: &outcomes,
            engine_name: name.as_deref(),
        }
    )?;
    let notes: Vec<&String> = outcomes.iter().filter_map(|o| o.note.as_ref()).collect();
    for note in &notes {
        outln!("disagreement: {note}")?;
    }
    Ok(success_if(notes.is_empty()))
}
