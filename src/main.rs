//! The `boardscan` command line: a thin shell over the library. The commands
//! are in [`cli`], one file per command group.

use std::process::ExitCode;

use clap::Parser;

mod cli;

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        // A closed pipe (`boardscan scan … | head`) is not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("boardscan: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Parses the command line and runs the command; its exit status.
fn try_main() -> anyhow::Result<ExitCode> {
    cli::run(cli::Cli::parse())
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
