//! `library`: the scan library's commands ([`boardscan::library::command`]).

use std::process::ExitCode;

use boardscan::library::command::LibraryArgs;

/// `library`: list, show, export, import, export-corrections, report, delete.
pub fn library(args: &LibraryArgs) -> anyhow::Result<ExitCode> {
    boardscan::library::command::run(args, &mut std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}
