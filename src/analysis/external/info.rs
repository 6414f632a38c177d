//! `info` lines of an external engine, turned into [`Analysis`] lines with
//! scores from White's point of view and typed moves, as our own engine
//! gives them.

use cozy_chess::{Board, Color, Move};

use crate::analysis::{wdl, Analysis, Ended, Line, Score};
use crate::notation::uci::parse_uci_move;

/// Centipawns beyond which a score is clamped before the WDL model (far
/// below our mate scores, far above any real evaluation).
const WDL_CLAMP: i32 = 10_000;

/// The fields of one `info` line that carries a principal variation.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    /// From the side to move's point of view (moves to mate negative when
    /// the side to move is mated).
    pub score: Score,
    /// `wdl W D L`, per mille for the side to move, when the engine sends it.
    pub wdl: Option<[u32; 3]>,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
}

/// Parses an `info` line with a depth, an exact score and a PV; `None` for
/// other info lines (`currmove`, `string`, bounds of a failed aspiration
/// window) and for malformed ones.
pub fn parse_info(line: &str) -> Option<Info> {
    let mut tokens = line.split_whitespace();
    if tokens.next()? != "info" {
        return None;
    }
    let mut depth = None;
    let mut score = None;
    let mut info = Info {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score: Score::Cp(0),
        wdl: None,
        nodes: 0,
        nps: 0,
        time_ms: 0,
        pv: Vec::new(),
    };
    while let Some(token) = tokens.next() {
        match token {
            "depth" => depth = Some(tokens.next()?.parse().ok()?),
            "seldepth" => info.seldepth = tokens.next()?.parse().ok()?,
            "multipv" => info.multipv = tokens.next()?.parse().ok()?,
            "nodes" => info.nodes = tokens.next()?.parse().ok()?,
            "nps" => info.nps = tokens.next()?.parse().ok()?,
            "time" => info.time_ms = tokens.next()?.parse().ok()?,
            "score" => {
                score = Some(match tokens.next()? {
                    "cp" => Score::Cp(tokens.next()?.parse().ok()?),
                    "mate" => Score::Mate(tokens.next()?.parse().ok()?),
                    _ => return None,
                })
            }
            "lowerbound" | "upperbound" | "string" => return None,
            "wdl" => {
                let mut next = || tokens.next()?.parse::<u32>().ok();
                info.wdl = Some([next()?, next()?, next()?]);
            }
            "pv" => {
                info.pv = tokens.by_ref().map(str::to_owned).collect();
            }
            _ => {}
        }
    }
    info.depth = depth?;
    info.score = score?;
    (!info.pv.is_empty() && info.multipv >= 1).then_some(info)
}

/// The PV's legal prefix as moves; `None` when even the first move is not
/// legal in `board` (then the line is garbage).
pub fn legal_moves(board: &Board, pv: &[String]) -> Option<Vec<Move>> {
    let mut b = board.clone();
    let mut moves = Vec::new();
    for text in pv {
        let Ok(mv) = parse_uci_move(&b, text, false) else {
            break;
        };
        moves.push(mv);
        b.play_unchecked(mv);
    }
    (!moves.is_empty()).then_some(moves)
}

/// One [`Line`] of `board` from an info line and its legal moves.
pub fn to_line(board: &Board, info: &Info, moves: &[Move]) -> Line {
    let white = board.side_to_move() == Color::White;
    let score = info.score.for_white(white);
    let wdl = match (info.wdl, score) {
        (Some([w, d, l]), _) if w + d + l == 1000 => {
            if white {
                [w, d, l]
            } else {
                [l, d, w]
            }
        }
        (_, Score::Mate(m)) if m > 0 => [1000, 0, 0],
        (_, Score::Mate(_)) => [0, 0, 1000],
        (_, Score::Cp(cp)) => wdl(cp.clamp(-WDL_CLAMP, WDL_CLAMP)),
    };
    Line {
        score,
        wdl,
        moves: moves.to_vec(),
    }
}

/// An [`Analysis`] of `board` from the lines of one depth (best first).
pub fn to_analysis(board: &Board, lines: &[(Info, Vec<Move>)]) -> Analysis {
    let first = lines.first().map(|(info, _)| info);
    Analysis {
        board: board.clone(),
        depth: first.map_or(0, |i| i.depth),
        seldepth: lines.iter().map(|(i, _)| i.seldepth).max().unwrap_or(0),
        nodes: lines.iter().map(|(i, _)| i.nodes).max().unwrap_or(0),
        nps: lines.iter().map(|(i, _)| i.nps).max().unwrap_or(0),
        time_ms: lines.iter().map(|(i, _)| i.time_ms).max().unwrap_or(0),
        best_move: lines.first().map(|(_, moves)| moves[0]),
        pvs: lines
            .iter()
            .map(|(info, moves)| to_line(board, info, moves))
            .collect(),
        ended: lines.is_empty().then(|| Ended::of(board)).flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "info depth 6 seldepth 5 multipv 2 score cp -43 wdl 1 928 71 nodes 1670 nps 835000 hashfull 0 tbhits 0 time 2 pv d7d5 e4d5 d8d5 d2d4";

    #[test]
    fn stockfish_info_parses() {
        let info = parse_info(LINE).unwrap();
        assert_eq!((info.depth, info.seldepth, info.multipv), (6, 5, 2));
        assert_eq!(info.score, Score::Cp(-43));
        assert_eq!(info.wdl, Some([1, 928, 71]));
        assert_eq!((info.nodes, info.nps, info.time_ms), (1670, 835000, 2));
        assert_eq!(info.pv, ["d7d5", "e4d5", "d8d5", "d2d4"]);
        let mate = parse_info("info depth 3 score mate -2 pv e1e2").unwrap();
        assert_eq!(mate.score, Score::Mate(-2));
    }

    #[test]
    fn lines_without_an_exact_scored_pv_are_skipped() {
        for line in [
            "info depth 3 currmove e2e4 currmovenumber 1",
            "info string NNUE evaluation enabled",
            "info depth 9 score cp 30 lowerbound nodes 5 pv e2e4",
            "info depth x score cp 3 pv e2e4",
            "info depth 2 score cp 3",
            "info score cp 3 pv e2e4",
            "infodepth 2 score cp 3 pv e2e4",
        ] {
            assert_eq!(parse_info(line), None, "{line}");
        }
    }

    #[test]
    fn scores_turn_to_whites_view() {
        let board: Board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .unwrap();
        let info = parse_info(LINE).unwrap();
        let moves = legal_moves(&board, &info.pv).unwrap();
        let analysis = to_analysis(&board, &[(info, moves)]);
        let pv = &analysis.pvs[0];
        assert_eq!((pv.score, pv.wdl), (Score::Cp(43), [71, 928, 1]));
        assert_eq!(pv.moves.len(), 4);
        assert_eq!(analysis.best_move, Some("d7d5".parse().unwrap()));
        let view = analysis.render(crate::notation::lang::Lang::En, Default::default());
        assert_eq!(view.pvs[0].san, ["d5", "exd5", "Qxd5", "d4"]);
    }

    #[test]
    fn an_illegal_pv_is_cut_or_refused() {
        let board = Board::default();
        let pv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(legal_moves(&board, &pv("e2e4 e2e4")).unwrap().len(), 1);
        assert_eq!(legal_moves(&board, &pv("e7e5 e2e4")), None);
    }
}
