//! Iterative deepening with aspiration windows and MultiPV, for one thread.

use std::time::Duration;

use cozy_chess::{Board, Move};

use super::score::{is_mate, INFINITE};
use super::search::Searcher;
use super::time::{soft_scale, IterationSignals};

/// One principal variation of a completed iteration.
#[derive(Clone, Debug)]
pub struct Line {
    /// Score from the side to move's point of view.
    pub score: i32,
    pub moves: Vec<Move>,
}

/// The result of a completed iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    /// Best line first.
    pub lines: Vec<Line>,
}

const ASPIRATION_DEPTH: u32 = 5;
const ASPIRATION_DELTA: i32 = 25;

impl Searcher<'_> {
    /// Searches `root` with increasing depth until a limit is hit. Calls
    /// `report` after each completed iteration (main thread only) and returns
    /// the last completed one. The main thread always completes depth 1.
    pub fn iterative_deepening(
        &mut self,
        root: &Board,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<Iteration> {
        let limits = self.shared.limits;
        let mut legal_moves = Vec::new();
        root.generate_moves(|moves| {
            legal_moves.extend(moves);
            false
        });
        // Root moves outside `go searchmoves` are never searched.
        let outside: Vec<Move> = legal_moves
            .iter()
            .copied()
            .filter(|mv| !limits.search_moves.is_empty() && !limits.search_moves.contains(mv))
            .collect();
        let legal = legal_moves.len() - outside.len();
        let multipv = if self.id == 0 {
            limits.multipv.clamp(1, legal.max(1))
        } else {
            1
        };
        let mut last: Option<Iteration> = None;
        let mut stable = 0;
        // Best score of each completed iteration.
        let mut scores: Vec<i32> = Vec::new();
        // Helper threads start one ply deeper on odd ids to spread the work.
        let first = 1 + (self.id as u32 & 1);
        for depth in first..=limits.depth.max(1) {
            self.can_stop = self.id != 0 || depth > 1;
            self.seldepth = 0;
            self.root_excluded.clone_from(&outside);
            self.clear_root_nodes();
            let mut lines: Vec<Line> = Vec::with_capacity(multipv);
            let mut partial = None;
            for pv_index in 0..multipv {
                let center = last
                    .as_ref()
                    .and_then(|it| it.lines.get(pv_index))
                    .map(|l| l.score);
                let score = self.aspiration(root, depth, center, &mut partial);
                if self.stopped {
                    break;
                }
                let moves = self.root_pv();
                let Some(&first_move) = moves.first() else {
                    break;
                };
                self.root_excluded.push(first_move);
                lines.push(Line { score, moves });
            }
            if self.stopped || lines.is_empty() {
                if multipv == 1 {
                    adopt_partial(&mut last, partial);
                }
                break;
            }
            lines.sort_by_key(|l| -l.score);
            let best = lines[0].moves[0];
            let previous = last.as_ref().map(|it| it.lines[0].moves[0]);
            stable = if previous == Some(best) {
                stable + 1
            } else {
                0
            };
            let signals = IterationSignals {
                stable_iterations: stable,
                best_move_effort: self.root_node_share(best),
                score_drop: score_drop(&scores, lines[0].score),
            };
            scores.push(lines[0].score);
            let iteration = Iteration {
                depth,
                seldepth: self.seldepth as u32,
                lines,
            };
            if self.id == 0 {
                self.flush_nodes();
                report(&iteration);
            }
            last = Some(iteration);
            if self.id == 0 && self.soft_limit_reached(depth, signals) {
                break;
            }
        }
        self.flush_nodes();
        last
    }

    fn soft_limit_reached(&self, depth: u32, signals: IterationSignals) -> bool {
        let Some(soft) = self.shared.limits.soft else {
            return false;
        };
        let scaled = Duration::from_secs_f64(soft.as_secs_f64() * soft_scale(depth, signals));
        self.shared.start.elapsed() >= scaled
    }

    /// Searches the root in a window around the previous score, widening it
    /// on failure. `partial` keeps the best line found so far at this depth:
    /// the move of a fail high, or one that beat the previous best move
    /// before the search was stopped. Each fail high in a row searches one
    /// ply shallower, so a move that suddenly wins (a sacrifice) gets its
    /// score and its line sooner; a fail low restores the full depth.
    fn aspiration(
        &mut self,
        root: &Board,
        depth: u32,
        center: Option<i32>,
        partial: &mut Option<Line>,
    ) -> i32 {
        let depth = depth as i32;
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = match center {
            Some(c) if depth >= ASPIRATION_DEPTH as i32 && !is_mate(c) => {
                ((c - delta).max(-INFINITE), (c + delta).min(INFINITE))
            }
            _ => (-INFINITE, INFINITE),
        };
        let mut failed_high = 0;
        loop {
            let searched_depth = (depth - failed_high).max(1);
            let score = self.negamax(root, searched_depth, alpha, beta, 0, false);
            let moves = self.root_pv();
            if !moves.is_empty() {
                *partial = Some(Line {
                    score: self.root_score,
                    moves,
                });
            } else if !self.stopped {
                *partial = None;
            }
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
                failed_high = 0;
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
                failed_high += 1;
            } else {
                return score;
            }
            delta += delta / 2;
        }
    }
}

/// Iterations back whose score a falling score is measured from.
const FALLING_LOOKBACK: usize = 3;

/// How far `score` is below the best score [`FALLING_LOOKBACK`] iterations
/// back (or the first one), ignoring mate scores; 0 without history.
fn score_drop(scores: &[i32], score: i32) -> i32 {
    let Some(&then) = scores
        .len()
        .checked_sub(FALLING_LOOKBACK)
        .and_then(|i| scores.get(i))
        .or(scores.first())
    else {
        return 0;
    };
    if is_mate(then) || is_mate(score) {
        0
    } else {
        then - score
    }
}

/// After a stopped iteration, plays the best line it found (searched one ply
/// deeper than the last completed iteration) if it has one; the iteration
/// keeps the completed depth.
fn adopt_partial(last: &mut Option<Iteration>, partial: Option<Line>) {
    if let (Some(last), Some(line)) = (last.as_mut(), partial) {
        last.lines[0] = line;
    }
}

#[cfg(test)]
mod tests {
    use super::super::score::MATE_BOUND;
    use super::*;

    fn line(score: i32, mv: &str) -> Line {
        Line {
            score,
            moves: vec![mv.parse().unwrap()],
        }
    }

    #[test]
    fn score_drop_looks_a_few_iterations_back() {
        assert_eq!(score_drop(&[], 50), 0);
        assert_eq!(score_drop(&[40], 10), 30);
        assert_eq!(score_drop(&[100, 80, 60, 40, 20], 0), 60);
        assert_eq!(score_drop(&[100, 80, 60, 40, 20], 90), -30);
        assert_eq!(score_drop(&[100, 80, 60], MATE_BOUND + 5), 0);
    }

    #[test]
    fn a_stopped_iteration_hands_on_its_best_line() {
        let mut last = Some(Iteration {
            depth: 7,
            seldepth: 12,
            lines: vec![line(10, "e2e4")],
        });
        adopt_partial(&mut last, None);
        assert_eq!(last.as_ref().unwrap().lines[0].moves[0].to_string(), "e2e4");
        adopt_partial(&mut last, Some(line(90, "d2d4")));
        let it = last.unwrap();
        assert_eq!((it.depth, it.lines[0].score), (7, 90));
        assert_eq!(it.lines[0].moves[0].to_string(), "d2d4");
    }
}
