//! What every engine answers, as typed data, and its rendering in the
//! reader's language.
//!
//! An [`Analysis`] holds moves ([`cozy_chess::Move`]) and [`Score`]s, never
//! text. [`Analysis::render`] writes it once, at the edge, as an
//! [`AnalysisView`]: the JSON the API and the CLI print (a superset of
//! lichess cloud-eval), with moves in UCI and in the reader's language and
//! notation. Serializing an [`Analysis`] directly writes its English SAN view.

use cozy_chess::{Board, Move};
use serde::{Serialize, Serializer};

#[cfg(doc)]
use super::engine::wdl;
use super::score::Score;
use crate::notation::{
    lang::{format_line, format_move, Lang, MoveStyle},
    uci::{line_to_uci, move_to_uci},
};

/// An engine's analysis of one position: scores from White's point of
/// view, lines as moves.
///
/// A checkmated or stalemated root has no best move and no lines: then
/// `best_move` is `None`, `pvs` is empty, `depth` is 0 and `ended` says why.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position analysed.
    pub board: Board,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    /// The move to play (an external engine's `bestmove`, which may differ
    /// from its first line's first move).
    pub best_move: Option<Move>,
    /// The lines, best first.
    pub pvs: Vec<Line>,
    /// Why there is no move to analyse: the game is over.
    pub ended: Option<Ended>,
}

/// One principal variation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line's evaluation, from White's point of view.
    pub score: Score,
    /// Win/draw/loss per mille for White (see [`super::engine::wdl`]).
    pub wdl: [u32; 3],
    /// The moves, each legal after the ones before it.
    pub moves: Vec<Move>,
}

/// How a game with no legal move ended.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ended {
    Checkmate,
    Stalemate,
}

impl Ended {
    /// How the game on `board` ended, when the side to move has no legal move.
    pub fn of(board: &Board) -> Option<Ended> {
        if board.generate_moves(|_| true) {
            None
        } else if board.checkers().is_empty() {
            Some(Ended::Stalemate)
        } else {
            Some(Ended::Checkmate)
        }
    }
}

impl Analysis {
    /// An analysis of `board` with nothing searched yet: no lines, and
    /// `ended` set when the side to move has no legal move.
    pub fn empty(board: &Board) -> Analysis {
        Analysis {
            board: board.clone(),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            nps: 0,
            time_ms: 0,
            best_move: None,
            pvs: Vec::new(),
            ended: Ended::of(board),
        }
    }

    /// The analysis written for a reader: moves in UCI and in `lang` and
    /// `style`.
    pub fn render(&self, lang: Lang, style: MoveStyle) -> AnalysisView {
        let board = &self.board;
        AnalysisView {
            fen: board.to_string(),
            depth: self.depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            nps: self.nps,
            time_ms: self.time_ms,
            best_move: self
                .best_move
                .map(|mv| BestMove::new(board, mv, lang, style)),
            pvs: self
                .pvs
                .iter()
                .map(|line| PvView {
                    cp: line.score.cp(),
                    mate: line.score.mate(),
                    wdl: line.wdl,
                    moves: line_to_uci(board, &line.moves, false),
                    san: format_line(board, &line.moves, lang, style),
                })
                .collect(),
            ended: self.ended,
        }
    }
}

impl Serialize for Analysis {
    /// The English SAN view ([`Analysis::render`]).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.render(Lang::En, MoveStyle::San).serialize(serializer)
    }
}

/// An [`Analysis`] as text for a reader, a superset of lichess cloud-eval.
/// (Its OpenAPI description is the analysis's, as the API has always given it.)
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    as = Analysis,
    description = "Result of [`analyze`], a superset of lichess cloud-eval.\n\nA checkmated or stalemated root has no best move and no lines: then\n`best_move` is `None`, `pvs` is empty, `depth` is 0 and `ended` says why."
)]
pub struct AnalysisView {
    pub fen: String,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_move: Option<BestMove>,
    pub pvs: Vec<PvView>,
    /// Why there is no move to analyse: the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
}

/// A move in both notations.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[schema(description = "The move to play, in both notations.")]
pub struct BestMove {
    pub uci: String,
    pub san: String,
}

impl BestMove {
    /// `mv` on `board`, in UCI and in `lang` and `style`.
    pub fn new(board: &Board, mv: Move, lang: Lang, style: MoveStyle) -> BestMove {
        BestMove {
            uci: move_to_uci(board, mv, false),
            san: format_move(board, mv, lang, style),
        }
    }
}

/// One principal variation as text. Exactly one of `cp` and `mate` is set;
/// both are from White's point of view, and `mate` counts moves (not plies).
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[schema(
    as = Pv,
    description = "One principal variation. Exactly one of `cp` and `mate` is set; both are\nfrom White's point of view, and `mate` counts moves (not plies)."
)]
pub struct PvView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// Win/draw/loss per mille for White (see [`wdl`]).
    #[schema(value_type = Vec<u32>)]
    pub wdl: [u32; 3],
    /// Space-separated UCI moves.
    pub moves: String,
    pub san: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::engine::{analyze, AnalysisLimits};

    #[test]
    fn render_writes_every_line_in_the_readers_notation() {
        let analysis = analyze(
            &Board::default(),
            &AnalysisLimits {
                depth: Some(3),
                multipv: 2,
                ..Default::default()
            },
        );
        let view = analysis.render(Lang::En, MoveStyle::Iccf);
        let best = view.best_move.as_ref().unwrap();
        assert!(best.san.len() == 4 && best.san.chars().all(|c| c.is_ascii_digit()));
        assert_eq!(view.pvs.len(), 2);
        for pv in &view.pvs {
            assert_eq!(pv.san.len(), pv.moves.split_whitespace().count());
            assert!(pv.san.iter().all(|m| m.chars().all(|c| c.is_ascii_digit())));
        }
    }

    #[test]
    fn the_json_is_the_english_view() {
        let board: Board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .unwrap();
        let d5 = "d7d5".parse().unwrap();
        let analysis = Analysis {
            best_move: Some(d5),
            pvs: vec![Line {
                score: Score::Cp(43),
                wdl: [71, 928, 1],
                moves: vec![d5, "e4d5".parse().unwrap()],
            }],
            ..Analysis::empty(&board)
        };
        assert_eq!(
            serde_json::to_string(&analysis).unwrap(),
            r#"{"fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","depth":0,"seldepth":0,"nodes":0,"nps":0,"timeMs":0,"bestMove":{"uci":"d7d5","san":"d5"},"pvs":[{"cp":43,"wdl":[71,928,1],"moves":"d7d5 e4d5","san":["d5","exd5"]}]}"#
        );
        let ru = analysis.render(Lang::Ru, MoveStyle::San);
        assert_eq!(ru.pvs[0].san, ["d5", "e:d5"]);
    }
}
