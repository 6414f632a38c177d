//! Whole-game analysis: every position of a game's main line searched once,
//! each move graded from the evaluations before and after it.
//!
//! The evaluation after move `n` is the evaluation before move `n + 1`, so
//! a game of `n` plies costs `n + 1` searches (none for a final checkmate or
//! stalemate). The engine is a closure from a board to an
//! [`Analysis`](crate::analysis::Analysis), as coaching takes it, so our engine
//! or any external UCI engine of the pool can stand behind it.
//!
//! Per move: the evaluations before and after (White's view, centipawns or
//! mate, and WDL), the engine's best move and line from the position before,
//! the grade by lost win chance exactly as [`crate::analysis::coach::grade`] grades a
//! move (lichess's thresholds: 5, 10 and 15 points of win chance for an
//! inaccuracy, a mistake and a blunder; the engine's own move is `best`),
//! the centipawn loss and the move's accuracy ([`super::accuracy`]).
//!
//! Per side: the counts of each grade, the average centipawn loss (cp
//! clamped to ±1000, a forced mate counted as ±1000, a gain counted as 0)
//! and lichess-style game accuracy.

use cozy_chess::{Board, Color, Move};
use serde::Serialize;

use super::{
    accuracy::{game_accuracy, move_accuracy},
    openings::{self, Opening},
    pgn::{move_number, Game},
};
use crate::{
    analysis::coach::{
        grade::{judge, white_win_percent, GradeKind},
        CoachError, Score,
    },
    analysis::{Analysis, BestMove, Line},
    notation::{
        lang::{format_line, Lang, MoveStyle},
        uci::line_to_uci,
    },
};

/// Plies of the engine's best line reported per move.
pub const BEST_LINE_PLIES: usize = 10;
/// Centipawns beyond this count as this in the centipawn loss.
const CP_CEILING: i32 = 1_000;

/// An evaluation from White's point of view.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
pub struct Eval {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// Moves to mate, positive when White mates; `0`: the side to move is
    /// checkmated (the WDL says who won).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// Win/draw/loss per mille for White.
    #[schema(value_type = Vec<u32>)]
    pub wdl: [u32; 3],
}

impl Eval {
    /// The evaluation of an engine's line.
    pub fn of(line: &Line) -> Eval {
        Eval {
            cp: line.score.cp(),
            mate: line.score.mate(),
            wdl: line.wdl,
        }
    }

    fn score(&self) -> Score {
        match (self.mate, self.cp) {
            (Some(m), _) => Score::Mate(m),
            (None, cp) => Score::Cp(cp.unwrap_or(0)),
        }
    }

    /// White's win chance in percent (lichess's curve).
    pub fn white_win(&self) -> f64 {
        match self.mate {
            Some(0) if self.wdl[0] == 1000 => 100.0,
            Some(0) => 0.0,
            _ => white_win_percent(self.score()),
        }
    }

    /// White's centipawns clamped to ±1000, a mate as ±1000.
    pub fn white_cp(&self) -> i32 {
        match (self.mate, self.cp) {
            (Some(0), _) if self.wdl[0] == 1000 => CP_CEILING,
            (Some(0), _) => -CP_CEILING,
            (Some(m), _) if m > 0 => CP_CEILING,
            (Some(_), _) => -CP_CEILING,
            (None, Some(cp)) => cp.clamp(-CP_CEILING, CP_CEILING),
            (None, None) => 0,
        }
    }

    /// The `[%eval]` value: pawns with two decimals, or `#N`; `None` for a
    /// finished game (checkmate).
    pub fn pgn_eval(&self) -> Option<String> {
        self.score().pgn_eval()
    }
}

/// Which side moved.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    White,
    Black,
}

/// One analysed move.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveReport {
    /// Ply from the game's start, from 1.
    pub ply: usize,
    /// `12.` or `12...`, as PGN numbers the move.
    pub move_number: String,
    pub side: Side,
    /// The move played (`san` in the requested language and notation).
    #[serde(rename = "move")]
    pub mv: BestMove,
    /// The position after the move.
    pub fen: String,
    /// Evaluation of the position before the move.
    pub before: Eval,
    /// Evaluation of the position after the move.
    pub after: Eval,
    /// The engine's best move in the position before.
    pub best: BestMove,
    /// The engine's best line from the position before (at most 10 plies).
    pub best_line: Vec<String>,
    /// The same line as space-separated UCI moves.
    pub best_line_uci: String,
    pub grade: GradeKind,
    /// Drop in the mover's win chance, 0 to 1.
    pub win_chance_loss: f64,
    /// Centipawns lost by the mover (clamped evaluations; 0 for a gain).
    pub cp_loss: i32,
    /// The move's accuracy, 0 to 100 (lichess's formula).
    pub accuracy: f64,
    /// Depth of the search before the move.
    pub depth: u32,
}

/// A side's totals.
#[derive(Serialize, Clone, Debug, Default, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SideSummary {
    pub moves: usize,
    pub best: usize,
    pub good: usize,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// Average centipawn loss, rounded.
    pub acpl: i32,
    /// Game accuracy, 0 to 100, one decimal (lichess's method).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

/// The search budget each position got.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

/// A whole game analysed.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameAnalysis {
    /// The game's number in the PGN text, from 1.
    pub game: usize,
    /// The tag pairs, in the order given, as `[name, value]`.
    #[schema(value_type = Vec<Vec<String>>)]
    pub tags: Vec<[String; 2]>,
    pub start_fen: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub chess960: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The deepest position of the game that the opening table names; the
    /// game leaves the table at the ply after `opening.ply`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening: Option<Opening>,
    /// The engine (`boardscan` is ours).
    pub engine: String,
    pub budget: Budget,
    /// Evaluation of the starting position.
    pub start: Eval,
    pub moves: Vec<MoveReport>,
    pub white: SideSummary,
    pub black: SideSummary,
    /// False when the analysis was stopped before the last move.
    pub complete: bool,
    /// The PGN's main line went past the ply limit; later moves were not read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// What the reader skipped or repaired.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// How moves are written and what the report names as its engine.
#[derive(Clone, Debug, Default)]
pub struct AnalyseOptions {
    pub lang: Lang,
    pub style: MoveStyle,
    pub engine: String,
    pub budget: Budget,
}

/// Analyses `game`'s main line. `analyse` searches one position;
/// `on_move` gets each move's report as soon as it is graded and returns
/// false to stop (the result then has `complete: false`).
pub fn analyse_game<E: From<CoachError>>(
    game: &Game,
    options: &AnalyseOptions,
    mut analyse: impl FnMut(&Board) -> Result<Analysis, E>,
    mut on_move: impl FnMut(&MoveReport) -> bool,
) -> Result<GameAnalysis, E> {
    let positions = game.positions();
    let (lang, style) = (options.lang, options.style);
    let mut evaluate = |board: &Board| -> Result<(Eval, Option<Analysis>), E> {
        if !board.generate_moves(|_| true) {
            return Ok((ended(board), None));
        }
        let analysis = analyse(board)?;
        let pv = analysis.pvs.first().ok_or(CoachError::NoEngineMove)?;
        Ok((Eval::of(pv), Some(analysis)))
    };
    let (start, mut previous) = evaluate(&positions[0])?;
    let mut current = start;
    let mut moves = Vec::with_capacity(game.moves.len());
    let mut complete = true;
    for (index, played) in game.moves.iter().enumerate() {
        let board = &positions[index];
        let Some(analysis) = previous.take() else {
            break;
        };
        let (after, next) = evaluate(&positions[index + 1])?;
        let report = report(
            board,
            played.mv,
            index + 1,
            &game.start,
            current,
            after,
            &analysis,
            lang,
            style,
        )
        .ok_or(CoachError::NoEngineMove)?;
        let go_on = on_move(&report);
        moves.push(report);
        current = after;
        previous = next;
        if !go_on && index + 1 < game.moves.len() {
            complete = false;
            break;
        }
    }
    let mut white_wins = vec![start.white_win()];
    white_wins.extend(moves.iter().map(|m| m.after.white_win()));
    let white_first = game.start.side_to_move() == Color::White;
    let [white_accuracy, black_accuracy] = game_accuracy(&white_wins, white_first);
    let summary = |side: Side, accuracy: Option<f64>| {
        let mine: Vec<&MoveReport> = moves.iter().filter(|m| m.side == side).collect();
        let count = |grade| mine.iter().filter(|m| m.grade == grade).count();
        let loss: i32 = mine.iter().map(|m| m.cp_loss).sum();
        SideSummary {
            moves: mine.len(),
            best: count(GradeKind::Best),
            good: count(GradeKind::Good),
            inaccuracies: count(GradeKind::Inaccuracy),
            mistakes: count(GradeKind::Mistake),
            blunders: count(GradeKind::Blunder),
            acpl: if mine.is_empty() {
                0
            } else {
                (f64::from(loss) / mine.len() as f64).round() as i32
            },
            accuracy: accuracy.map(|a| (a * 10.0).round() / 10.0),
        }
    };
    let white = summary(Side::White, white_accuracy);
    let black = summary(Side::Black, black_accuracy);
    let played = &positions[..=moves.len()];
    Ok(GameAnalysis {
        game: game.number,
        tags: game
            .tags
            .iter()
            .map(|(n, v)| [n.clone(), v.clone()])
            .collect(),
        start_fen: fen_of(&game.start, game.chess960),
        chess960: game.chess960,
        result: game.result.clone(),
        opening: openings::opening(played),
        engine: options.engine.clone(),
        budget: options.budget.clone(),
        start,
        moves,
        white,
        black,
        complete,
        truncated: game.truncated,
        warnings: game.warnings.clone(),
    })
}

/// The FEN of `board`; Shredder-FEN castling for Chess960.
pub fn fen_of(board: &Board, chess960: bool) -> String {
    if chess960 {
        format!("{board:#}")
    } else {
        board.to_string()
    }
}

/// The report of `mv` (ply `ply`) played on `board`, or `None` when the
/// engine's line does not start with a legal move.
#[allow(clippy::too_many_arguments)]
fn report(
    board: &Board,
    mv: Move,
    ply: usize,
    start: &Board,
    before: Eval,
    after: Eval,
    analysis: &Analysis,
    lang: Lang,
    style: MoveStyle,
) -> Option<MoveReport> {
    let line = &analysis.pvs.first()?.moves;
    let &best = line.first()?;
    let mover = board.side_to_move();
    let for_mover = |white_win: f64| match mover {
        Color::White => white_win,
        Color::Black => 100.0 - white_win,
    };
    let (win_before, win_after) = (for_mover(before.white_win()), for_mover(after.white_win()));
    let is_best = mv == best;
    let loss = if is_best {
        0.0
    } else {
        ((win_before - win_after) / 100.0).max(0.0)
    };
    let grade = if is_best {
        GradeKind::Best
    } else {
        judge(before.score(), after.score(), mover, loss)
    };
    let sign = if mover == Color::White { 1 } else { -1 };
    let cp_loss = if is_best {
        0
    } else {
        ((before.white_cp() - after.white_cp()) * sign).max(0)
    };
    let mut after_board = board.clone();
    after_board.play_unchecked(mv);
    let shown = &line[..line.len().min(BEST_LINE_PLIES)];
    Some(MoveReport {
        ply,
        move_number: move_number(start, ply),
        side: match mover {
            Color::White => Side::White,
            Color::Black => Side::Black,
        },
        mv: BestMove::new(board, mv, lang, style),
        fen: after_board.to_string(),
        before,
        after,
        best: BestMove::new(board, best, lang, style),
        best_line: format_line(board, shown, lang, style),
        best_line_uci: line_to_uci(board, shown, false),
        grade,
        win_chance_loss: (loss * 10_000.0).round() / 10_000.0,
        cp_loss,
        accuracy: (move_accuracy(win_before, win_after) * 10.0).round() / 10.0,
        depth: analysis.depth,
    })
}

/// The evaluation of a position without legal moves.
fn ended(board: &Board) -> Eval {
    if board.checkers().is_empty() {
        return Eval {
            cp: Some(0),
            mate: None,
            wdl: [0, 1000, 0],
        };
    }
    let wdl = match board.side_to_move() {
        Color::White => [0, 0, 1000],
        Color::Black => [1000, 0, 0],
    };
    Eval {
        cp: None,
        mate: Some(0),
        wdl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        analysis::{engine::analyze, AnalysisLimits},
        games::{
            annotate::annotated_pgn,
            pgn::{read_pgn, ReadLimits},
        },
    };

    const SCHOLAR: &str =
        "[White \"a\"]\n[Black \"b\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";

    fn game(text: &str) -> Game {
        read_pgn(text, &ReadLimits::default(), Lang::En)
            .unwrap()
            .games
            .remove(0)
            .unwrap()
    }

    fn analysed(text: &str, lang: Lang) -> (Game, GameAnalysis, usize) {
        let game = game(text);
        let limits = AnalysisLimits {
            depth: Some(6),
            ..AnalysisLimits::default()
        };
        let mut searches = 0;
        let mut seen = Vec::new();
        let options = AnalyseOptions {
            lang,
            engine: "boardscan".into(),
            ..AnalyseOptions::default()
        };
        let analysis = analyse_game(
            &game,
            &options,
            |board| {
                searches += 1;
                Ok::<_, CoachError>(analyze(board, &limits))
            },
            |report| {
                seen.push(report.ply);
                true
            },
        )
        .unwrap();
        assert_eq!(seen, (1..=game.moves.len()).collect::<Vec<_>>());
        (game, analysis, searches)
    }

    #[test]
    fn scholars_mate_the_blunder_and_the_mate() {
        let (_, a, searches) = analysed(SCHOLAR, Lang::En);
        // Seven positions before the mate, each searched once; none after it.
        assert_eq!(searches, 7);
        let nf6 = &a.moves[5];
        assert_eq!(
            (nf6.mv.san.as_str(), nf6.move_number.as_str()),
            ("Nf6", "3...")
        );
        assert_eq!(nf6.grade, GradeKind::Blunder, "{nf6:?}");
        assert_eq!(nf6.after.mate, Some(1));
        assert_eq!(nf6.after.wdl, [1000, 0, 0]);
        assert!(nf6.accuracy < 10.0, "{nf6:?}");
        assert_ne!(nf6.best.san, "Nf6");
        let mate = &a.moves[6];
        assert_eq!(mate.mv.san, "Qxf7#");
        assert_eq!(mate.grade, GradeKind::Best);
        assert_eq!(mate.after.mate, Some(0));
        assert_eq!(mate.after.white_win(), 100.0);
        // Each move's "before" is the previous move's "after".
        for pair in a.moves.windows(2) {
            assert_eq!(pair[0].after, pair[1].before);
        }
        assert_eq!(a.black.blunders, 1);
        assert_eq!(a.white.blunders + a.white.mistakes, 0, "{:?}", a.white);
        assert!(a.black.accuracy.unwrap() < a.white.accuracy.unwrap());
        assert!(a.black.acpl > a.white.acpl);
        assert_eq!(a.opening.as_ref().map(|o| o.eco.as_str()), Some("C23"));
        assert!(a.complete);
    }

    #[test]
    fn the_annotated_pgn_reads_back_with_evals_glyphs_and_the_better_line() {
        let (game, a, _) = analysed(SCHOLAR, Lang::En);
        let pgn = annotated_pgn(&game, &a, Lang::En, MoveStyle::San);
        // Lines are wrapped: compare with single spaces.
        let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(pgn.lines().all(|l| l.chars().count() <= 79), "{pgn}");
        assert!(pgn.contains("3... Nf6??"), "{pgn}");
        assert!(pgn.contains("[%eval #1]"), "{pgn}");
        assert!(flat.contains("{ Blunder. "), "{pgn}");
        assert!(flat.contains("(3... "), "{pgn}");
        assert!(
            pgn.contains("[Annotator \"boardscan (boardscan)\"]"),
            "{pgn}"
        );
        assert!(pgn.contains("[ECO \"C23\"]"), "{pgn}");
        assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
        let back = self::game(&pgn);
        assert_eq!(
            back.moves.iter().map(|m| m.mv).collect::<Vec<_>>(),
            game.moves.iter().map(|m| m.mv).collect::<Vec<_>>()
        );
        assert_eq!(back.moves[5].nags, [4]);
        assert_eq!(back.moves[5].variations.len(), 1);
        // In German: Springer is S; it reads back too.
        let de = annotated_pgn(&game, &a, Lang::De, MoveStyle::San);
        assert!(de.contains("3... Sf6??"), "{de}");
        let back = read_pgn(&de, &ReadLimits::default(), Lang::De).unwrap();
        assert_eq!(back.games[0].as_ref().unwrap().moves.len(), 7);
    }

    /// An engine that answers from a script: the score and best move by FEN.
    fn scripted<'a>(
        script: &'a [(&'a str, i32, &'a str)],
    ) -> impl FnMut(&Board) -> Result<Analysis, CoachError> + 'a {
        move |board: &Board| {
            let fen = board.to_string();
            let &(_, cp, best) = script
                .iter()
                .find(|(f, _, _)| fen.starts_with(f))
                .unwrap_or_else(|| panic!("no script for {fen}"));
            let best = crate::notation::uci::parse_uci_move(board, best, false).unwrap();
            Ok(Analysis {
                depth: 7,
                seldepth: 7,
                nodes: 1,
                nps: 1,
                time_ms: 1,
                pvs: vec![Line {
                    score: Score::Cp(cp),
                    wdl: [0, 1000, 0],
                    moves: vec![best],
                }],
                ..Analysis::empty(board)
            })
        }
    }

    #[test]
    fn grades_and_centipawn_loss_follow_the_scores() {
        let game = game("1. e4 e5 2. Nf3 Nc6 *");
        let script = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", 20, "e2e4"),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b",
                30,
                "c7c5",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w",
                110,
                "b1c3",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b",
                100,
                "g8f6",
            ),
            (
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w",
                500,
                "f1b5",
            ),
        ];
        let mut calls = 0;
        let mut engine = scripted(&script);
        let a = analyse_game(
            &game,
            &AnalyseOptions::default(),
            |b| {
                calls += 1;
                engine(b)
            },
            |_| true,
        )
        .unwrap();
        assert_eq!(calls, 5);
        let grades: Vec<GradeKind> = a.moves.iter().map(|m| m.grade).collect();
        // e4 is the engine's move; e5 gives 7 points of win chance, Nf3 1,
        // Nc6 27.
        assert_eq!(
            grades,
            [
                GradeKind::Best,
                GradeKind::Inaccuracy,
                GradeKind::Good,
                GradeKind::Blunder
            ]
        );
        let losses: Vec<i32> = a.moves.iter().map(|m| m.cp_loss).collect();
        assert_eq!(losses, [0, 80, 10, 400]);
        assert_eq!((a.white.acpl, a.black.acpl), (5, 240));
        assert_eq!((a.black.inaccuracies, a.black.blunders), (1, 1));
        assert_eq!((a.white.best, a.white.good), (1, 1));
        assert_eq!(a.moves[1].best.san, "c5");
        assert_eq!(a.moves[1].best_line_uci, "c7c5");
        assert_eq!(a.start.cp, Some(20));
        let expected = move_accuracy(
            100.0 - white_win_percent(Score::Cp(100)),
            100.0 - white_win_percent(Score::Cp(500)),
        );
        assert!((a.moves[3].accuracy - expected).abs() < 0.05);
    }

    #[test]
    fn stopping_early_marks_the_analysis_incomplete() {
        let game = game(SCHOLAR);
        let limits = AnalysisLimits {
            depth: Some(3),
            ..AnalysisLimits::default()
        };
        let a = analyse_game(
            &game,
            &AnalyseOptions::default(),
            |b| Ok::<_, CoachError>(analyze(b, &limits)),
            |report| report.ply < 3,
        )
        .unwrap();
        assert_eq!(a.moves.len(), 3);
        assert!(!a.complete);
    }
}
