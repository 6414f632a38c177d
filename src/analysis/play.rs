//! Playing a move at a chosen strength.
//!
//! Our engine has eight levels: each caps the nodes searched and picks at
//! random (from a seed) among the lines within a centipawn tolerance of the
//! best, the way Stockfish's skill level does; level 8 is full strength.
//! An external engine with `UCI_LimitStrength`/`UCI_Elo` (Stockfish) plays
//! at an Elo: the one asked for, or its range split in eight levels.
//! `docs/engines.md` gives the measured Elo of each of our levels.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cozy_chess::{Board, Color, Move};

use super::{external::search, with_process, EngineError, Engines};
use crate::analysis::{engine, game_over, Analysis, AnalysisLimits, GameOver, Line, Score};

/// Levels of strength, 1 (weakest) to `LEVELS`.
pub const LEVELS: u8 = 8;

/// What one of our levels may search and how freely it chooses.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// Nodes searched at most; `None`: the move time alone.
    pub nodes: Option<u64>,
    /// Lines searched, among which the move is drawn.
    pub lines: usize,
    /// Centipawns a drawn line may be worse than the best.
    pub tolerance_cp: i32,
    /// Approximate Elo, measured against Stockfish's `UCI_Elo` (docs/engines.md).
    pub elo: u32,
}

/// Our levels, 1 to 8; `elo` from `benches/level_elo.py` over the
/// `boardscan calibrate` runs listed in docs/engines.md.
pub const OUR_LEVELS: [Level; LEVELS as usize] = [
    Level {
        nodes: Some(64),
        lines: 5,
        tolerance_cp: 400,
        elo: 1060,
    },
    Level {
        nodes: Some(256),
        lines: 4,
        tolerance_cp: 250,
        elo: 1200,
    },
    Level {
        nodes: Some(1_000),
        lines: 4,
        tolerance_cp: 150,
        elo: 1560,
    },
    Level {
        nodes: Some(4_000),
        lines: 3,
        tolerance_cp: 80,
        elo: 1840,
    },
    Level {
        nodes: Some(16_000),
        lines: 3,
        tolerance_cp: 40,
        elo: 1960,
    },
    Level {
        nodes: Some(64_000),
        lines: 2,
        tolerance_cp: 20,
        elo: 2170,
    },
    Level {
        nodes: Some(250_000),
        lines: 1,
        tolerance_cp: 0,
        elo: 2260,
    },
    Level {
        nodes: None,
        lines: 1,
        tolerance_cp: 0,
        elo: 2290,
    },
];

/// The strength asked for: a level, an Elo, or full strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strength {
    Level(u8),
    Elo(u32),
    Full,
}

/// A move played.
#[derive(Clone, Debug)]
pub struct Played {
    pub mv: Move,
    pub fen_after: String,
    pub game_over: Option<GameOver>,
    /// The level played at (the nearest level to an Elo asked for).
    pub level: u8,
    /// The Elo played at, when the engine has one.
    pub elo: Option<u32>,
}

/// A small seeded generator (SplitMix64): the same seed draws the same move.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A line's value for the side to move, mates beyond every centipawn score.
fn value(line: &Line, white: bool) -> i32 {
    let sign = if white { 1 } else { -1 };
    match line.score {
        Score::Mate(m) if m * sign > 0 => 100_000 - m.abs(),
        Score::Mate(m) => -100_000 + m.abs(),
        Score::Cp(cp) => cp * sign,
    }
}

/// Draws one of `analysis`'s lines within `tolerance` centipawns of the
/// best, the better ones more likely; `None` when it has no line.
pub fn choose(analysis: &Analysis, white: bool, tolerance: i32, seed: u64) -> Option<Move> {
    let best = analysis.pvs.iter().map(|pv| value(pv, white)).max()?;
    let weights: Vec<(u64, Move)> = analysis
        .pvs
        .iter()
        .filter_map(|pv| {
            let loss = best - value(pv, white);
            let &first = pv.moves.first()?;
            (loss <= tolerance).then(|| ((tolerance - loss + 1) as u64, first))
        })
        .collect();
    let total: u64 = weights.iter().map(|(w, _)| w).sum();
    let mut pick = Rng(seed).next() % total.max(1);
    for &(weight, mv) in &weights {
        if pick < weight {
            return Some(mv);
        }
        pick -= weight;
    }
    weights.first().map(|&(_, mv)| mv)
}

/// Our level nearest to `elo`.
fn nearest_level(elo: u32) -> u8 {
    (1..=LEVELS)
        .min_by_key(|&l| OUR_LEVELS[usize::from(l) - 1].elo.abs_diff(elo))
        .unwrap_or(LEVELS)
}

impl Engines {
    /// The move engine `name` (ours when `None`) plays in `board` at
    /// `strength`, thinking at most `movetime`; `seed` draws among our
    /// level's candidate lines.
    pub fn play(
        &self,
        name: Option<&str>,
        board: &Board,
        strength: Strength,
        movetime: Duration,
        seed: u64,
    ) -> Result<Played, EngineError> {
        if !board.generate_moves(|_| true) {
            return Err(EngineError::NoMove);
        }
        let stop = AtomicBool::new(false);
        let (mv, level, elo) = match self.pool(name)? {
            None => {
                let level = match strength {
                    Strength::Level(l) => l.clamp(1, LEVELS),
                    Strength::Elo(elo) => nearest_level(elo),
                    Strength::Full => LEVELS,
                };
                let spec = OUR_LEVELS[usize::from(level) - 1];
                let limits = AnalysisLimits {
                    depth: None,
                    movetime: Some(movetime),
                    nodes: spec.nodes,
                    multipv: spec.lines,
                    threads: 1,
                };
                let analysis = engine::analyze_with(board, &limits, &stop, |_| {});
                let white = board.side_to_move() == Color::White;
                let mv = choose(&analysis, white, spec.tolerance_cp, seed).ok_or_else(|| {
                    EngineError::Failed {
                        engine: super::OURS.to_owned(),
                        reason: "the search found no move".to_owned(),
                    }
                })?;
                (mv, level, Some(spec.elo))
            }
            Some(pool) => {
                let range = pool
                    .identity
                    .options
                    .iter()
                    .find(|o| o.name == "UCI_Elo")
                    .and_then(|o| Some((o.min?, o.max?)));
                let limited = range.filter(|_| strength != Strength::Full);
                let (level, elo) = match (limited, strength) {
                    (Some((min, max)), Strength::Elo(elo)) => {
                        let elo = i64::from(elo).clamp(min, max);
                        let step = (max - min) as f64 / f64::from(LEVELS - 1);
                        let level = ((elo - min) as f64 / step).round() as u8 + 1;
                        (level, Some(elo as u32))
                    }
                    (Some((min, max)), Strength::Level(l)) => {
                        let l = l.clamp(1, LEVELS);
                        let elo = min + (max - min) * i64::from(l - 1) / i64::from(LEVELS - 1);
                        (l, Some(elo as u32))
                    }
                    _ => (LEVELS, None),
                };
                let limits = AnalysisLimits {
                    movetime: Some(movetime),
                    ..AnalysisLimits::default()
                };
                let analysis = with_process(pool, |process| {
                    match elo {
                        Some(elo) => {
                            process.set_option("UCI_LimitStrength", "true")?;
                            process.set_option("UCI_Elo", &elo.to_string())?;
                        }
                        None => process.set_option("UCI_LimitStrength", "false")?,
                    }
                    search::search(process, board, &limits, &stop, &mut |_| {})
                })?;
                let mv = analysis.best_move.ok_or_else(|| EngineError::Failed {
                    engine: pool.spec.name.clone(),
                    reason: "it gave no move".to_owned(),
                })?;
                (mv, level, elo)
            }
        };
        let mut after = board.clone();
        after.play_unchecked(mv);
        Ok(Played {
            mv,
            fen_after: after.to_string(),
            game_over: game_over(&after),
            level,
            elo,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(score: Score, moves: &str) -> Line {
        Line {
            score,
            wdl: [0, 1000, 0],
            moves: moves.split(' ').map(|m| m.parse().unwrap()).collect(),
        }
    }

    #[test]
    fn choice_stays_within_the_tolerance() {
        let analysis = Analysis {
            depth: 1,
            seldepth: 1,
            nodes: 1,
            nps: 1,
            pvs: vec![
                pv(Score::Cp(-50), "a7a6"),
                pv(Score::Cp(-20), "b7b6 c2c3"),
                pv(Score::Cp(300), "c7c6"),
            ],
            ..Analysis::empty(&Board::default())
        };
        let text = |mv: Option<Move>| mv.map(|m| m.to_string());
        // Black to move: -50 is best for Black, -20 is 30 cp worse, 300 far worse.
        let picks: std::collections::BTreeSet<_> = (0..200)
            .filter_map(|seed| text(choose(&analysis, false, 40, seed)))
            .collect();
        assert_eq!(picks.into_iter().collect::<Vec<_>>(), ["a7a6", "b7b6"]);
        assert!(
            (0..50).all(|seed| text(choose(&analysis, false, 0, seed)).as_deref() == Some("a7a6"))
        );
        let mates = Analysis {
            pvs: vec![pv(Score::Mate(2), "a1a8"), pv(Score::Cp(900), "b1b8")],
            ..analysis
        };
        assert!(
            (0..50).all(|seed| text(choose(&mates, true, 500, seed)).as_deref() == Some("a1a8"))
        );
    }

    #[test]
    fn elo_maps_to_the_nearest_level() {
        assert_eq!(nearest_level(0), 1);
        assert_eq!(nearest_level(OUR_LEVELS[4].elo + 1), 5);
        assert_eq!(nearest_level(5_000), LEVELS);
    }
}
