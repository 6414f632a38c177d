//! The `boardscan` command line: a thin adapter over the library.

use std::io::{self, BufReader};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use boardscan::{engine, notation::fen::parse_fen};
use clap::{Parser, Subcommand};

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

#[derive(Subcommand)]
enum Command {
    /// Analyses one position given as FEN.
    Analyze {
        /// The position, in FEN (quote it).
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
        /// Print the analysis as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Runs the UCI engine on standard input and output.
    Uci,
    /// Searches built-in positions to a fixed depth and prints the speed.
    Bench {
        /// Search depth.
        #[arg(long)]
        depth: Option<u32>,
    },
}

fn main() -> ExitCode {
    match try_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("boardscan: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn try_main() -> Result<()> {
    match Cli::parse().command {
        Command::Analyze {
            fen,
            depth,
            movetime,
            multipv,
            threads,
            json,
        } => {
            let board = parse_fen(&fen).with_context(|| format!("invalid FEN: {fen}"))?;
            let limits = engine::Limits {
                depth,
                movetime: movetime.map(Duration::from_millis),
                nodes: None,
                multipv,
                threads,
            };
            let analysis = engine::analyze(&board, &limits);
            if json {
                println!("{}", serde_json::to_string(&analysis)?);
            } else {
                print_analysis(&analysis);
            }
        }
        Command::Uci => engine::uci::run(BufReader::new(io::stdin()), io::stdout())?,
        Command::Bench { depth } => println!("{}", engine::bench::run(depth)),
    }
    Ok(())
}

fn print_analysis(a: &engine::Analysis) {
    println!(
        "depth {} seldepth {} nodes {} nps {} time {} ms",
        a.depth, a.seldepth, a.nodes, a.nps, a.time_ms
    );
    match &a.best_move {
        Some(best) => println!("best move {} ({})", best.san, best.uci),
        None => println!("no legal move (checkmate or stalemate)"),
    }
    for (i, pv) in a.pvs.iter().enumerate() {
        let score = match (pv.mate, pv.cp) {
            (Some(m), _) => format!("mate {m}"),
            (None, Some(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
            (None, None) => String::new(),
        };
        println!("{}. {score:>8}  {}", i + 1, pv.san.join(" "));
    }
}
