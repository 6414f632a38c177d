//! Search results through the public `analyze` API: mates, terminal
//! positions, MultiPV and the JSON shape.

use std::fs;
use std::path::Path;
use std::time::Duration;

use boardscan::{
    analysis::{engine::analyze, AnalysisLimits, AnalysisView, Score},
    notation::lang::{Lang, MoveStyle},
};
use cozy_chess::{Board, Color};

fn depth(d: u32) -> AnalysisLimits {
    AnalysisLimits {
        depth: Some(d),
        ..AnalysisLimits::default()
    }
}

/// (fen, best move in SAN without suffix, moves to mate) from `mates.epd`.
fn mates() -> Vec<(String, String, i32)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/epd/mates.epd");
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let fen = format!("{} 0 1", fields[..4].join(" "));
            let op = |name: &str| {
                let i = fields.iter().position(|&w| w == name).unwrap();
                fields[i + 1].trim_end_matches(';').to_owned()
            };
            (fen, op("bm"), op("dm").parse().unwrap())
        })
        .collect()
}

/// The analysis as the API writes it, in English SAN.
fn english(analysis: boardscan::analysis::Analysis) -> AnalysisView {
    analysis.render(Lang::En, MoveStyle::San)
}

#[test]
fn finds_forced_mates() {
    for (fen, bm, dm) in mates() {
        let board: Board = fen.parse().unwrap();
        let a = english(analyze(&board, &depth(2 * dm as u32 + 1)));
        let best = a.best_move.as_ref().expect("a best move");
        assert_eq!(best.san.trim_end_matches(['+', '#']), bm, "{fen}");
        let sign = if board.side_to_move() == Color::White {
            1
        } else {
            -1
        };
        assert_eq!(a.pvs[0].mate, Some(sign * dm), "{fen}");
        assert_eq!(a.pvs[0].cp, None);
        assert!(a.pvs[0].san.last().unwrap().ends_with('#'), "{fen}");
    }
}

#[test]
fn side_being_mated_gets_negative_count() {
    // Black to move must play Kg8, then Ra8 mates: White mates in 1.
    let board: Board = "7k/8/6K1/8/8/8/8/R7 b - - 0 1".parse().unwrap();
    let a = analyze(&board, &depth(4));
    assert_eq!(a.best_move.unwrap().to_string(), "h8g8");
    assert_eq!(a.pvs[0].score, Score::Mate(1));
    assert_eq!(a.pvs[0].wdl, [1000, 0, 0]);
}

#[test]
fn terminal_positions_have_no_best_move() {
    for fen in [
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        let a = analyze(&fen.parse().unwrap(), &depth(3));
        assert!(a.best_move.is_none(), "{fen}");
        assert!(a.pvs.is_empty(), "{fen}");
        assert_eq!(a.depth, 0);
    }
}

#[test]
fn multipv_lines_are_distinct_and_ordered() {
    let board = Board::default();
    let limits = AnalysisLimits {
        depth: Some(4),
        multipv: 3,
        ..AnalysisLimits::default()
    };
    let a = english(analyze(&board, &limits));
    assert_eq!(a.pvs.len(), 3);
    let firsts: Vec<&str> = a
        .pvs
        .iter()
        .map(|p| p.moves.split(' ').next().unwrap())
        .collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    let cps: Vec<i32> = a.pvs.iter().map(|p| p.cp.unwrap()).collect();
    assert!(cps.windows(2).all(|w| w[0] >= w[1]), "{cps:?}");
    assert_eq!(a.best_move.unwrap().uci, firsts[0]);
}

#[test]
fn multipv_is_capped_by_legal_moves() {
    let board: Board = "7k/8/8/8/8/8/8/K7 w - - 0 1".parse().unwrap();
    let limits = AnalysisLimits {
        depth: Some(2),
        multipv: 10,
        ..AnalysisLimits::default()
    };
    assert_eq!(analyze(&board, &limits).pvs.len(), 3);
}

#[test]
fn scores_are_from_whites_point_of_view() {
    // Black is a queen up; Black to move.
    let board: Board = "3qk3/8/8/8/8/8/8/4K3 b - - 0 1".parse().unwrap();
    let a = analyze(&board, &depth(3));
    assert!(a.pvs[0].score.cp().unwrap() < -500);
    let [w, _, l] = a.pvs[0].wdl;
    assert!(l > w);
}

#[test]
fn insufficient_material_is_a_draw() {
    let board: Board = "8/8/4k3/8/8/3KB3/8/8 w - - 0 1".parse().unwrap();
    let a = analyze(&board, &depth(5));
    assert_eq!(a.pvs[0].score, Score::Cp(0));
}

#[test]
fn limits_by_time_nodes_and_threads_terminate() {
    let board = Board::default();
    let timed = AnalysisLimits {
        movetime: Some(Duration::from_millis(100)),
        threads: 2,
        ..AnalysisLimits::default()
    };
    let a = analyze(&board, &timed);
    assert!(a.best_move.is_some());
    assert!(a.time_ms < 1_000);
    let nodes = AnalysisLimits {
        nodes: Some(5_000),
        ..AnalysisLimits::default()
    };
    let a = analyze(&board, &nodes);
    assert!(a.nodes < 50_000, "{}", a.nodes);
}

#[test]
fn json_shape_matches_cloud_eval() {
    let a = analyze(&Board::default(), &depth(2));
    let v = serde_json::to_value(&a).unwrap();
    for key in [
        "fen", "depth", "seldepth", "nodes", "nps", "timeMs", "bestMove", "pvs",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let pv = &v["pvs"][0];
    assert!(pv.get("cp").is_some() && pv.get("mate").is_none());
    assert!(pv["wdl"].as_array().unwrap().len() == 3);
    assert!(v["bestMove"]["san"].is_string() && v["bestMove"]["uci"].is_string());
}
