use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cozy_chess::{Board, Move};

use super::*;
use crate::notation::san::move_to_san;

fn board(fen: &str) -> Board {
    crate::notation::fen::parse_fen(fen).unwrap()
}

fn run(fen: &str, n: u32) -> (Board, MateResult) {
    let b = board(fen);
    let limits = MateLimits {
        max_cooks: None,
        hash_mb: 4,
        ..MateLimits::default()
    };
    let result = solve(&b, n, &limits, &AtomicBool::new(false));
    (b, result)
}

fn san(b: &Board, mv: Option<Move>) -> String {
    mv.map_or("-".into(), |mv| move_to_san(b, mv))
}

/// Every legal move that checkmates at once, by brute force.
fn mates_in_one(b: &Board) -> Vec<Move> {
    let mut all = Vec::new();
    b.generate_moves(|moves| {
        all.extend(moves);
        false
    });
    all.into_iter()
        .filter(|&mv| {
            let mut child = b.clone();
            child.play_unchecked(mv);
            !child.checkers().is_empty() && !child.generate_moves(|_| true)
        })
        .collect()
}

/// Plays `line` and says whether it ends in checkmate.
fn ends_in_mate(b: &Board, line: &[Move]) -> bool {
    let mut b = b.clone();
    for &mv in line {
        assert!(b.is_legal(mv), "illegal {mv} in the line");
        b.play_unchecked(mv);
    }
    !b.checkers().is_empty() && !b.generate_moves(|_| true)
}

#[test]
fn every_mate_in_one_is_found() {
    for fen in [
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 1",
        "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1",
        "k7/8/1K6/8/8/8/8/1R5R w - - 0 1",
        "7k/8/5KQ1/8/8/8/8/8 w - - 0 1",
    ] {
        let (b, r) = run(fen, 1);
        let mut ours: Vec<Move> = r.key.into_iter().chain(r.cooks.iter().copied()).collect();
        let mut expected = mates_in_one(&b);
        ours.sort_by_key(|m| m.to_string());
        expected.sort_by_key(|m| m.to_string());
        assert_eq!(ours, expected, "{fen}");
        assert_eq!(r.status, MateStatus::Found { mate_in: 1 }, "{fen}");
        assert!(r.cooks_complete && r.proven());
        assert_eq!(r.line, [r.key.unwrap()]);
        assert_eq!(r.threat, None);
    }
}

#[test]
fn stalemate_is_not_mate() {
    // Black to move has no move and is not in check.
    let (_, r) = run("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert_eq!(r.status, MateStatus::NoMate);
    assert!(r.proven() && r.key.is_none());
    // Only Qf7 takes every square from the king, and it stalemates; the
    // mate needs the king's help: 1.Kg6 (threat Qf8#) Kg8 2.Qc4+ Kh8 3.Qg8#
    // or the like.
    let fen = "7k/8/8/6K1/8/8/8/5Q2 w - - 0 1";
    for n in [1, 2] {
        let (b, r) = run(fen, n);
        assert_eq!(r.status, MateStatus::NoMate, "#{n}: {}", san(&b, r.key));
        assert_eq!(r.no_mate_within, n);
    }
    let (b, r) = run(fen, 3);
    assert_eq!(r.status, MateStatus::Found { mate_in: 3 });
    assert_eq!(san(&b, r.key), "Kg6");
    assert_eq!(r.line.len(), 5);
    assert!(ends_in_mate(&b, &r.line), "{:?}", r.line);
    // The side to move is mated: it mates nobody.
    let (_, r) = run("6Rk/6pp/8/8/8/8/8/6K1 b - - 0 1", 2);
    assert_eq!(r.status, MateStatus::NoMate);
}

#[test]
fn a_stop_gives_unknown_never_no_mate() {
    let b = board("r1b2rk1/pp1p1pBp/1qn1p1pQ/8/8/2P5/P1P2PPP/R3KB1R w KQ - 0 1");
    let stop = AtomicBool::new(true);
    let r = solve(&b, 4, &MateLimits::default(), &stop);
    assert_eq!(r.status, MateStatus::Unknown);
    assert!(!r.proven() && !r.found() && r.key.is_none());
    let limits = MateLimits {
        max_nodes: Some(1),
        ..MateLimits::default()
    };
    let r = solve(&b, 4, &limits, &AtomicBool::new(false));
    assert_eq!(r.status, MateStatus::Unknown);
    let limits = MateLimits {
        max_time: Some(Duration::ZERO),
        ..MateLimits::default()
    };
    let r = solve(&b, 4, &limits, &AtomicBool::new(false));
    assert_eq!(r.status, MateStatus::Unknown);
}

fn legal_moves(b: &Board) -> Vec<Move> {
    let mut all = Vec::new();
    b.generate_moves(|moves| {
        all.extend(moves);
        false
    });
    all
}

/// The first moves that force mate within `k`, by plain minimax without
/// any pruning: the reference the solver is checked against.
fn naive_keys(b: &Board, k: u32) -> Vec<Move> {
    fn mates_within(b: &Board, k: u32) -> bool {
        !naive_keys(b, k).is_empty()
    }
    legal_moves(b)
        .into_iter()
        .filter(|&mv| {
            let mut child = b.clone();
            child.play_unchecked(mv);
            let replies = legal_moves(&child);
            if replies.is_empty() {
                return !child.checkers().is_empty();
            }
            k > 1
                && replies.into_iter().all(|r| {
                    let mut after = child.clone();
                    after.play_unchecked(r);
                    mates_within(&after, k - 1)
                })
        })
        .collect()
}

fn sorted(mut moves: Vec<Move>) -> Vec<String> {
    moves.sort_by_key(|m| m.to_string());
    moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn a_two_mover_key_threat_and_line() {
    // Generated (testdata/mate/generate.py): a unique, quiet key.
    let (b, r) = run("8/5N1K/1Q3R2/8/8/7k/8/8 w - - 0 1", 2);
    assert_eq!(r.status, MateStatus::Found { mate_in: 2 });
    assert_eq!(san(&b, r.key), "Qg1");
    assert_eq!(sorted(naive_keys(&b, 2)), sorted(vec![r.key.unwrap()]));
    assert!(r.cooks.is_empty() && r.cooks_complete);
    let mut after_key = b.clone();
    after_key.play_unchecked(r.key.unwrap());
    let passed = after_key.null_move().unwrap();
    assert_eq!(san(&passed, r.threat), "Rh6#");
    assert_eq!(r.line.len(), 3);
    assert!(ends_in_mate(&b, &r.line));
}

#[test]
fn cooks_are_every_other_key() {
    let (b, r) = run("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2);
    assert!(r.found() && r.cooks_complete);
    let ours: Vec<Move> = r.key.into_iter().chain(r.cooks.iter().copied()).collect();
    assert!(ours.len() > 1, "cooked");
    assert_eq!(sorted(ours), sorted(naive_keys(&b, 2)));
    // Asked as a three-mover, the unique two-mover has no cook: the cooks are
    // the other keys of the shortest mate, not every move that mates in 3.
    let (b, r) = run("8/5N1K/1Q3R2/8/8/7k/8/8 w - - 0 1", 3);
    assert_eq!(r.mate_in(), Some(2));
    assert!(naive_keys(&b, 3).len() > 1);
    assert!(r.cooks.is_empty() && r.cooks_complete);
    // Capped: the first cook only.
    let b = board("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1");
    let limits = MateLimits {
        max_cooks: Some(1),
        ..MateLimits::default()
    };
    let r = solve(&b, 2, &limits, &AtomicBool::new(false));
    assert_eq!((r.cooks.len(), r.cooks_complete), (1, false));
}

#[test]
fn a_three_mover_asked_as_two_is_proven_none() {
    let fen = "r1b2rk1/pp1p1pBp/1qn1p1pQ/8/8/2P5/P1P2PPP/R3KB1R w KQ - 0 1";
    let (b, r) = run(fen, 2);
    assert_eq!(r.status, MateStatus::NoMate);
    assert!(r.proven() && r.key.is_none() && r.line.is_empty());
    assert_eq!(r.no_mate_within, 2);
    assert!(naive_keys(&b, 2).is_empty());
    let (b, r) = run(fen, 3);
    assert_eq!(r.status, MateStatus::Found { mate_in: 3 });
    assert_eq!(san(&b, r.key), "Bf6");
    // Asked as a six-mover it is the same mate in 3, proven at once: no
    // search for every first move that would mate within six.
    let six = MateLimits {
        max_cooks: None,
        max_nodes: Some(2_000_000),
        hash_mb: 4,
        ..MateLimits::default()
    };
    let r6 = solve(&b, 6, &six, &AtomicBool::new(false));
    assert_eq!(r6.status, MateStatus::Found { mate_in: 3 });
    assert!(r6.cooks_complete, "{} nodes", r6.nodes);
    assert_eq!(r.line.len(), 5);
    assert!(ends_in_mate(&b, &r.line));
}
