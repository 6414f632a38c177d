//! Grading a proposed move by the win chances it gives away, with the
//! formula and thresholds lichess uses for its inaccuracies, mistakes and
//! blunders.
//!
//! The engine searches the position (its best move and score) and, unless
//! the proposed move is that best move, the position after the proposed move,
//! both with the same limits. Each score becomes the mover's win chance:
//!
//! `win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`
//!
//! with `cp` clamped to ±1000 as lichess does, and a forced mate counted as
//! 100% (or 0% when the mover is the one mated). The loss is the drop in the
//! mover's win chance, as a fraction (`winChanceLoss`, 0 to 1). The grade:
//!
//! | grade | rule |
//! |---|---|
//! | `best` | the engine's best move, or a loss of 0 (as good as it) |
//! | `good` | loss under 0.05 |
//! | `inaccuracy` | loss from 0.05 |
//! | `mistake` | loss from 0.10 |
//! | `blunder` | loss from 0.15 |
//!
//! These are lichess's thresholds: lichess measures "winning chances" on a
//! scale of -1 to 1 (`2 / (1 + exp(-0.00368208 * cp)) - 1`) and judges a
//! drop of 0.1, 0.2 and 0.3 there, which is 5, 10 and 15 points of `win%`.
//!
//! Forced mates are judged as lichess judges them, by the centipawns on the
//! other side of the change (from the mover's view): a move that lets a
//! forced mate of the mover's go is an inaccuracy when the mover keeps more
//! than 999 cp, a mistake above 700 cp and a blunder otherwise; a move that
//! walks into a forced mate against the mover is an inaccuracy when the
//! mover stood below -999 cp before, a mistake below -700 cp and a blunder
//! otherwise.

use cozy_chess::{Board, Color, Move};
use serde::Serialize;

use super::{has_moves, CoachError, Score};
use crate::{
    analysis::{Analysis, BestMove},
    notation::{
        lang::{format_line, Lang, MoveStyle},
        uci::parse_uci_move,
    },
};

/// lichess's slope of the win-chance curve, per centipawn.
const SLOPE: f64 = 0.003_682_08;
/// Centipawns beyond this count as this (lichess's ceiling).
const CP_CEILING: i32 = 1_000;

/// The judgement of a move.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GradeKind {
    Best,
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
}

/// A graded move.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Grade {
    /// The proposed move (`san` in the requested notation).
    #[serde(rename = "move")]
    pub mv: BestMove,
    pub grade: GradeKind,
    /// Drop in the mover's win chance, 0 to 1.
    pub win_chance_loss: f64,
    /// Evaluation before the move (the best line's), from White's view.
    pub before: Score,
    /// Evaluation after the proposed move, from White's view.
    pub after: Score,
    /// The engine's best move.
    pub best: BestMove,
    /// The engine's best line from the position before the move.
    pub best_line: Vec<String>,
    pub fen_after: String,
    /// How the move's text was read when its letters are not the requested
    /// language's (`S is the knight in German`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_as: Option<String>,
}

/// White's win chance in percent for a score from White's view.
pub fn white_win_percent(score: Score) -> f64 {
    match score {
        Score::Mate(m) if m > 0 => 100.0,
        Score::Mate(_) => 0.0,
        Score::Cp(cp) => {
            let cp = f64::from(cp.clamp(-CP_CEILING, CP_CEILING));
            50.0 + 50.0 * (2.0 / (1.0 + (-SLOPE * cp).exp()) - 1.0)
        }
    }
}

/// The grade of a move that is not the engine's best, from the scores
/// before and after it (White's view), the side that moved and the loss.
pub fn judge(before: Score, after: Score, mover: Color, loss: f64) -> GradeKind {
    let sign = if mover == Color::White { 1 } else { -1 };
    let mate = |s: Score| s.mate().map(|m| m * sign);
    let cp = |s: Score| s.cp().map_or(0, |c| c * sign);
    match (mate(before), mate(after)) {
        // A forced mate let go.
        (Some(m), None) if m > 0 => match cp(after) {
            c if c > 999 => GradeKind::Inaccuracy,
            c if c > 700 => GradeKind::Mistake,
            _ => GradeKind::Blunder,
        },
        // A forced mate walked into.
        (None, Some(m)) if m < 0 => match cp(before) {
            c if c < -999 => GradeKind::Inaccuracy,
            c if c < -700 => GradeKind::Mistake,
            _ => GradeKind::Blunder,
        },
        _ => classify(false, loss),
    }
}

/// The grade for a loss of win chance (a fraction), by the table above.
pub fn classify(is_best: bool, loss: f64) -> GradeKind {
    if is_best || loss <= 0.0 {
        GradeKind::Best
    } else if loss < 0.05 {
        GradeKind::Good
    } else if loss < 0.10 {
        GradeKind::Inaccuracy
    } else if loss < 0.15 {
        GradeKind::Mistake
    } else {
        GradeKind::Blunder
    }
}

/// Grades `mv` (legal on `board`), asking `analyse` about the position and,
/// unless `mv` is the engine's choice, the position after `mv`. Moves are
/// written in `lang` and `style`.
pub fn grade<E: From<CoachError>>(
    board: &Board,
    mv: Move,
    lang: Lang,
    style: MoveStyle,
    mut analyse: impl FnMut(&Board) -> Result<Analysis, E>,
) -> Result<Grade, E> {
    let before = analyse(board)?;
    let line = before.pvs.first().ok_or(CoachError::NoEngineMove)?;
    let best_moves = &line.moves;
    let &best = best_moves.first().ok_or(CoachError::NoEngineMove)?;
    let before_score = line.score;
    let mut after_board = board.clone();
    after_board.play_unchecked(mv);
    let after_score = if mv == best {
        before_score
    } else if !has_moves(&after_board) {
        ended(&after_board)
    } else {
        let after = analyse(&after_board)?;
        after
            .pvs
            .first()
            .map(|line| line.score)
            .ok_or(CoachError::NoEngineMove)?
    };
    let mover = |score| match board.side_to_move() {
        Color::White => white_win_percent(score),
        Color::Black => 100.0 - white_win_percent(score),
    };
    let loss = if mv == best {
        0.0
    } else if after_score == Score::Mate(0) {
        // The proposed move mates: nothing is lost.
        0.0
    } else {
        ((mover(before_score) - mover(after_score)) / 100.0).max(0.0)
    };
    Ok(Grade {
        mv: BestMove::new(board, mv, lang, style),
        grade: if mv == best {
            GradeKind::Best
        } else {
            judge(before_score, after_score, board.side_to_move(), loss)
        },
        win_chance_loss: (loss * 10_000.0).round() / 10_000.0,
        before: before_score,
        after: after_score,
        best: BestMove::new(board, best, lang, style),
        best_line: format_line(board, best_moves, lang, style),
        fen_after: after_board.to_string(),
        read_as: None,
    })
}

/// The score of a position without legal moves: mated (`mate: 0`) or
/// stalemated (0 cp).
fn ended(board: &Board) -> Score {
    if board.checkers().is_empty() {
        Score::Cp(0)
    } else {
        Score::Mate(0)
    }
}

/// The legal prefix of a space-separated UCI line.
pub(crate) fn replay(board: &Board, line: &str) -> Vec<Move> {
    let mut board = board.clone();
    let mut moves = Vec::new();
    for text in line.split_whitespace() {
        let Ok(mv) = parse_uci_move(&board, text, false) else {
            break;
        };
        board.play_unchecked(mv);
        moves.push(mv);
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{engine::analyze, AnalysisLimits};

    fn cp(cp: i32) -> Score {
        Score::Cp(cp)
    }

    #[test]
    fn win_percent_matches_lichess() {
        assert!((white_win_percent(cp(0)) - 50.0).abs() < 1e-9);
        // lichess: +100 cp is about 59.1%, +300 cp about 75.1%.
        assert!((white_win_percent(cp(100)) - 59.1).abs() < 0.1);
        assert!((white_win_percent(cp(300)) - 75.1).abs() < 0.1);
        assert_eq!(white_win_percent(cp(5_000)), white_win_percent(cp(1_000)));
        let mate = Score::Mate;
        assert_eq!(white_win_percent(mate(3)), 100.0);
        assert_eq!(white_win_percent(mate(-2)), 0.0);
    }

    #[test]
    fn thresholds() {
        assert_eq!(classify(true, 0.4), GradeKind::Best);
        assert_eq!(classify(false, 0.0), GradeKind::Best);
        assert_eq!(classify(false, 0.049), GradeKind::Good);
        assert_eq!(classify(false, 0.05), GradeKind::Inaccuracy);
        assert_eq!(classify(false, 0.10), GradeKind::Mistake);
        assert_eq!(classify(false, 0.15), GradeKind::Blunder);
    }

    #[test]
    fn mates_let_go_or_walked_into() {
        let mate = Score::Mate;
        // White had mate and keeps +12, +8 or +3 pawns.
        assert_eq!(
            judge(mate(2), cp(1200), Color::White, 0.01),
            GradeKind::Inaccuracy
        );
        assert_eq!(
            judge(mate(2), cp(800), Color::White, 0.04),
            GradeKind::Mistake
        );
        assert_eq!(
            judge(mate(2), cp(300), Color::White, 0.25),
            GradeKind::Blunder
        );
        // Black, at -2 pawns (White's +200), walks into mate.
        assert_eq!(
            judge(cp(200), mate(3), Color::Black, 0.24),
            GradeKind::Blunder
        );
        assert_eq!(
            judge(cp(1500), mate(3), Color::Black, 0.01),
            GradeKind::Inaccuracy
        );
        // A longer mate is still a mate: judged by the win chance (none lost).
        assert_eq!(
            judge(mate(-1), mate(-4), Color::Black, 0.0),
            GradeKind::Best
        );
        assert_eq!(judge(cp(30), cp(-20), Color::White, 0.046), GradeKind::Good);
    }

    fn graded(fen: &str, text: &str) -> Grade {
        let board: Board = fen.parse().unwrap();
        let mv = crate::notation::lang::parse_move(&board, text).unwrap();
        let limits = AnalysisLimits {
            depth: Some(5),
            ..AnalysisLimits::default()
        };
        grade(&board, mv, Lang::En, MoveStyle::San, |b| {
            Ok::<_, CoachError>(analyze(b, &limits))
        })
        .unwrap()
    }

    #[test]
    fn hanging_the_queen_is_a_blunder_and_mate_is_best() {
        // White to move; Qd1-d7 puts the queen where the rook on d8 takes it.
        let fen = "3r2k1/5ppp/8/8/8/8/3Q1PPP/6K1 w - - 0 1";
        let hung = graded(fen, "Qd7");
        assert_eq!(hung.grade, GradeKind::Blunder, "{hung:?}");
        assert!(hung.win_chance_loss >= 0.15);
        assert_eq!(hung.best.san, "Qxd8#");
        // Missing the mate but keeping the queen (about +8 pawns): a mistake.
        let missed = graded("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "Rd7");
        assert_eq!(missed.before, Score::Mate(1), "{missed:?}");
        assert_eq!(missed.grade, GradeKind::Mistake, "{missed:?}");
        let mate = graded(fen, "Qxd8#");
        assert_eq!(mate.grade, GradeKind::Best);
        assert_eq!(mate.win_chance_loss, 0.0);
        assert_eq!(mate.fen_after, "3Q2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1");
    }
}
