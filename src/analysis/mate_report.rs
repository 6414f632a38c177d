//! The mate report: [`MateSearch`], a [`MateResult`] of the exact mate
//! solver ([`crate::analysis::engine::mate`]) written in the reader's
//! language, as the CLI's `--json` and the API write it, and the solver's
//! answer as an [`Analysis`].

use cozy_chess::{Board, Color, Move};
use serde::Serialize;

use super::{
    engine::mate::{MateResult, MateStatus},
    Analysis, BestMove, Line, Score,
};
use crate::notation::{
    lang::{format_line, Lang, MoveStyle},
    uci::move_to_uci,
};

/// The answer of a mate search. `found` with `proven` is a forced mate,
/// `proven` alone is a proof that none exists in `n` moves, and neither
/// means the search was stopped first (`noMateWithin` then says how far
/// it got).
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MateSearch {
    /// Moves asked for.
    pub n: u32,
    pub found: bool,
    /// Moves to mate (the shortest), when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate_in: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<BestMove>,
    /// The main line in SAN, from the key to the mate.
    pub line: Vec<String>,
    /// The same line as space-separated UCI moves.
    pub line_uci: String,
    /// What the key threatens; absent for a checking or waiting key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threat: Option<BestMove>,
    /// Other first moves that also mate in at most `n`.
    pub cooks: Vec<BestMove>,
    /// Whether every first move was examined for cooks.
    pub cooks_complete: bool,
    /// Largest number of moves in which no mate was proven to exist.
    pub no_mate_within: u32,
    pub nodes: u64,
    pub time_ms: u64,
    /// True when the search completed: `found` is then a fact either way.
    pub proven: bool,
}

impl MateSearch {
    /// The moves' `san` fields are written in `lang` and `style`.
    pub fn new(board: &Board, result: &MateResult, lang: Lang, style: MoveStyle) -> Self {
        let text = |board: &Board, mv: Move| BestMove::new(board, mv, lang, style);
        let mut after_key = board.clone();
        if let Some(key) = result.key {
            after_key.play_unchecked(key);
        }
        let threat = result.threat.and_then(|mv| {
            let passed = after_key.null_move()?;
            Some(text(&passed, mv))
        });
        let mut uci = Vec::with_capacity(result.line.len());
        let mut b = board.clone();
        for &mv in &result.line {
            uci.push(move_to_uci(&b, mv, false));
            b.play_unchecked(mv);
        }
        Self {
            n: result.n,
            found: result.found(),
            mate_in: match result.status {
                MateStatus::Found { mate_in } => Some(mate_in),
                _ => None,
            },
            key: result.key.map(|mv| text(board, mv)),
            line: format_line(board, &result.line, lang, style),
            line_uci: uci.join(" "),
            threat,
            cooks: result.cooks.iter().map(|&mv| text(board, mv)).collect(),
            cooks_complete: result.cooks_complete,
            no_mate_within: result.no_mate_within,
            nodes: result.nodes,
            time_ms: result.elapsed.as_millis() as u64,
            proven: result.proven(),
        }
    }
}

/// The [`Analysis`] of a mate search: the key as the best move and the main
/// line as the one line, scored as mate from White's point of view. When
/// no mate was found there is no best move and no line (the answer is in
/// [`MateSearch`]).
pub fn analysis(board: &Board, result: &MateResult) -> Analysis {
    let plies = result.line.len() as u32;
    let mut analysis = Analysis {
        depth: plies,
        seldepth: plies,
        nodes: result.nodes,
        nps: crate::analysis::engine::nps(result.nodes, result.elapsed),
        time_ms: result.elapsed.as_millis() as u64,
        ended: None,
        ..Analysis::empty(board)
    };
    if let (Some(key), Some(m)) = (result.key, result.mate_in()) {
        let white = board.side_to_move() == Color::White;
        analysis.best_move = Some(key);
        analysis.pvs.push(Line {
            score: Score::Mate(m as i32).for_white(white),
            wdl: if white { [1000, 0, 0] } else { [0, 0, 1000] },
            moves: result.line.clone(),
        });
    }
    analysis
}
