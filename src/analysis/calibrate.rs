//! `boardscan calibrate`: a match between one of our levels and an external
//! engine at a fixed `UCI_Elo`, and the Elo it implies with a 95% interval.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use cozy_chess::{Board, Color};

use super::play::Strength;
use super::{EngineError, Engines};
use crate::analysis::GameOver;

/// Openings the games start from (each played with both colours).
const OPENINGS: [&str; 8] = [
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkb1r/pppppppp/5n2/8/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - 1 2",
    "rnbqkbnr/pppp1ppp/4p3/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2",
    "rnbqkbnr/pp1ppppp/2p5/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2",
    "rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2",
    "rnbqkbnr/ppp1pppp/8/3p4/8/5NP1/PPPPPP1P/RNBQKB1R b KQkq - 0 2",
];
/// Plies after which a game is adjudicated a draw.
const MAX_PLIES: usize = 300;

/// What one match asks for.
pub struct MatchConfig {
    pub level: u8,
    pub opponent: String,
    pub opponent_elo: u32,
    pub games: usize,
    pub movetime: Duration,
}

/// Our level's results against the opponent.
#[derive(Debug, Default, PartialEq)]
pub struct MatchResult {
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
}

impl MatchResult {
    fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }

    /// Elo difference (ours minus the opponent's) with a 95% interval from
    /// the games' standard error; a score of 0 or 1 gives an open bound.
    pub fn elo_difference(&self) -> (f64, f64, f64) {
        let n = self.games().max(1) as f64;
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let margin = 1.96 * (var / n).sqrt();
        let elo = |s: f64| {
            let s = s.clamp(0.5 / n, 1.0 - 0.5 / n);
            -400.0 * (1.0 / s - 1.0).log10()
        };
        (elo(s - margin), elo(s), elo(s + margin))
    }
}

impl fmt::Display for MatchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (low, mid, high) = self.elo_difference();
        write!(
            f,
            "+{} ={} -{} ({} games, score {:.3}): Elo difference {mid:+.0} [{low:+.0}, {high:+.0}]",
            self.wins,
            self.draws,
            self.losses,
            self.games(),
            self.score()
        )
    }
}

/// Plays `config.games` games, alternating colours over [`OPENINGS`].
pub fn run(engines: &Engines, config: &MatchConfig) -> Result<MatchResult, EngineError> {
    let mut result = MatchResult::default();
    for game in 0..config.games {
        let start: Board = OPENINGS[(game / 2) % OPENINGS.len()]
            .parse()
            .expect("valid opening FEN");
        let ours = if game % 2 == 0 {
            start.side_to_move()
        } else {
            !start.side_to_move()
        };
        match play_game(engines, config, start, ours, game as u64)? {
            Some(winner) if winner == ours => result.wins += 1,
            Some(_) => result.losses += 1,
            None => result.draws += 1,
        }
    }
    Ok(result)
}

/// One game; the winner, or `None` for a draw.
fn play_game(
    engines: &Engines,
    config: &MatchConfig,
    mut board: Board,
    ours: Color,
    seed: u64,
) -> Result<Option<Color>, EngineError> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for ply in 0..MAX_PLIES {
        let (name, strength) = if board.side_to_move() == ours {
            (None, Strength::Level(config.level))
        } else {
            (
                Some(config.opponent.as_str()),
                Strength::Elo(config.opponent_elo),
            )
        };
        let mover = board.side_to_move();
        let seed = seed.wrapping_mul(1_000).wrapping_add(ply as u64);
        let played = engines.play(name, &board, strength, config.movetime, seed)?;
        board = played.fen_after.parse().expect("the engine's own FEN");
        if let Some(end) = played.game_over {
            return Ok((end == GameOver::Checkmate).then_some(mover));
        }
        let repeated = seen.entry(board.hash()).or_default();
        *repeated += 1;
        if *repeated >= 3 {
            return Ok(None);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_follows_the_score() {
        let even = MatchResult {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        let (low, mid, high) = even.elo_difference();
        assert!(mid.abs() < 1e-9 && low < -100.0 && high > 100.0);
        let strong = MatchResult {
            wins: 15,
            draws: 2,
            losses: 3,
        };
        assert!(strong.elo_difference().1 > 150.0);
        let all = MatchResult {
            wins: 20,
            draws: 0,
            losses: 0,
        };
        assert!(all.elo_difference().1.is_finite());
    }
}
