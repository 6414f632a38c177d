//! Score constants and every conversion of a search score: to a
//! [`Score`] (centipawns or mate in moves) and the win/draw/loss model.

use crate::analysis::Score;

/// Larger than any reachable score.
pub const INFINITE: i32 = 32_000;
/// Score of delivering mate at the root; mate at ply `p` scores `MATE - p`.
pub const MATE: i32 = 31_000;
/// Scores at or beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Score of a drawn position.
pub const DRAW: i32 = 0;

/// Score for the side to move being mated at `ply`.
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score for the side to move mating at `ply`.
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// True if `score` announces a forced mate for either side.
pub const fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Signed number of moves to mate (positive: the side whose point of view
/// `score` has mates), using `(plies + 1) / 2`.
pub fn mate_moves(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-((MATE + score + 1) / 2))
    } else {
        None
    }
}

/// A search score as a [`Score`], from the same side's point of view.
pub fn to_score(score: i32) -> Score {
    match mate_moves(score) {
        Some(m) => Score::Mate(m),
        None => Score::Cp(score),
    }
}

/// Converts a score relative to the current node into the form stored in the
/// transposition table (mate distance relative to that node).
pub const fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Inverse of [`to_tt`].
pub const fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Win/draw/loss expectation in per mille for the side whose point of view
/// `score` has.
///
/// The model is logistic: `win(cp) = 1 / (1 + exp((A - cp) / B))` and
/// `loss(cp) = win(-cp)`, with `A = 200` and `B = 75`. It gives 6.5% wins and
/// losses at 0 cp, about 50% wins at +2 pawns and near-certain wins beyond
/// +5 pawns. Mate scores give `[1000, 0, 0]` or `[0, 0, 1000]`.
pub fn wdl(score: i32) -> [u32; 3] {
    match mate_moves(score) {
        Some(m) if m > 0 => return [1000, 0, 0],
        Some(_) => return [0, 0, 1000],
        None => {}
    }
    const A: f64 = 200.0;
    const B: f64 = 75.0;
    let cp = f64::from(score);
    let rate = |x: f64| 1000.0 / (1.0 + ((A - x) / B).exp());
    let win = rate(cp).round() as u32;
    let loss = rate(-cp).round() as u32;
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_counts_in_moves() {
        assert_eq!(mate_moves(mate_in(1)), Some(1));
        assert_eq!(mate_moves(mate_in(3)), Some(2));
        assert_eq!(mate_moves(mated_in(2)), Some(-1));
        assert_eq!(mate_moves(mated_in(0)), Some(0));
        assert_eq!(mate_moves(150), None);
    }

    #[test]
    fn tt_round_trip() {
        for s in [mate_in(7), mated_in(4), 35, -80] {
            assert_eq!(from_tt(to_tt(s, 5), 5), s);
        }
    }

    #[test]
    fn wdl_is_symmetric_and_sums_to_1000() {
        for cp in [-900, -150, 0, 40, 300, 2000] {
            let [w, d, l] = wdl(cp);
            assert_eq!(w + d + l, 1000);
            assert_eq!(wdl(-cp), [l, d, w]);
        }
        assert_eq!(wdl(mate_in(3)), [1000, 0, 0]);
    }
}
