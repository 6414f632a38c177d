//! `game`: every move of a game analysed ([`boardscan::games::command`]).

use std::process::ExitCode;

use boardscan::games::command::GameArgs;

use super::success_if;

/// `game`: exit status 1 when some game was unreadable or a limit reached.
pub fn game(args: &GameArgs) -> anyhow::Result<ExitCode> {
    let all_read = boardscan::games::command::run(args, &mut std::io::stdout().lock())?;
    Ok(success_if(all_read))
}
