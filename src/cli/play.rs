//! `play` and `calibrate`: the engine's moves at a chosen strength.

use std::{io::Write, process::ExitCode, time::Duration};

use boardscan::{
    analysis::{self, calibrate::MatchConfig, play::Strength, BestMove, EngineSpec, Engines},
    notation::fen::parse_fen,
};

use super::options::{EngineArgs, NotationArgs};

/// Options of `play`.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// The position, in FEN (quote it).
    fen: String,
    /// Strength, 1 (weakest) to 8 (full strength).
    #[arg(long, conflicts_with = "elo", value_parser = clap::value_parser!(u8).range(1..=8))]
    level: Option<u8>,
    /// An Elo: Stockfish's UCI_Elo, or our nearest level.
    #[arg(long)]
    elo: Option<u32>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Thinking time at most, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Seed of the random choice among near-best moves at our lower levels.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Play this many moves, both sides, from the position (stops when the game ends).
    #[arg(long, default_value_t = 1)]
    plies: usize,
    #[command(flatten)]
    notation: NotationArgs,
    /// Print each move as JSON.
    #[arg(long)]
    json: bool,
}

/// Options of `calibrate`.
#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// Our level, 1 to 8.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=8))]
    level: u8,
    /// The opponent's UCI_Elo.
    #[arg(long)]
    opponent_elo: u32,
    /// The opponent, `NAME=PATH` (a UCI engine with UCI_LimitStrength and UCI_Elo).
    #[arg(
        long,
        value_name = "NAME=PATH",
        default_value = "stockfish=/usr/games/stockfish"
    )]
    opponent: EngineSpec,
    /// Games (colours alternate over eight openings).
    #[arg(long, default_value_t = 16)]
    games: usize,
    /// Thinking time per move of each side, in milliseconds.
    #[arg(long, default_value_t = 50)]
    movetime: u64,
}

/// `play`: one move per ply, as text (the move, the FEN after it, and
/// whether the game is over) or one JSON object each.
pub fn play(args: &PlayArgs) -> anyhow::Result<ExitCode> {
    let NotationArgs { lang, notation } = args.notation;
    let mut board = parse_fen(&args.fen)?;
    let strength = match (args.level, args.elo) {
        (Some(level), _) => Strength::Level(level),
        (None, Some(elo)) => Strength::Elo(elo),
        (None, None) => Strength::Full,
    };
    let engines = args.engine.start()?;
    let movetime = Duration::from_millis(args.movetime.max(1));
    for ply in 0..args.plies.max(1) {
        let seed = args.seed.wrapping_add(ply as u64);
        let played = engines.play(args.engine.name(), &board, strength, movetime, seed)?;
        let mv = BestMove::new(&board, played.mv, lang, notation);
        if args.json {
            let line = serde_json::json!({
                "move": mv, "fenAfter": played.fen_after,
                "gameOver": played.game_over, "level": played.level, "elo": played.elo,
            });
            outln!("{line}")?;
        } else {
            let elo = played
                .elo
                .map(|e| format!(", about {e} Elo"))
                .unwrap_or_default();
            outln!("{} ({}) at level {}{elo}", mv.san, mv.uci, played.level)?;
            outln!("{}", played.fen_after)?;
            if let Some(end) = played.game_over {
                outln!(
                    "game over: {}",
                    serde_json::to_value(end)?.as_str().unwrap_or("")
                )?;
            }
        }
        if played.game_over.is_some() {
            break;
        }
        board = parse_fen(&played.fen_after)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `calibrate`: our level against the opponent's UCI_Elo, the score and Elo.
pub fn calibrate(args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let config = MatchConfig {
        level: args.level,
        opponent: args.opponent.name.clone(),
        opponent_elo: args.opponent_elo,
        games: args.games,
        movetime: Duration::from_millis(args.movetime.max(1)),
    };
    let engines = Engines::start(vec![args.opponent.clone()], 1)?;
    let result = analysis::calibrate::run(&engines, &config)?;
    outln!(
        "level {} vs {} at UCI_Elo {}: {result}",
        args.level,
        config.opponent,
        args.opponent_elo
    )?;
    Ok(ExitCode::SUCCESS)
}
