//! Accuracy in the style lichess publishes (lila's `AccuracyPercent`).
//!
//! Every evaluation becomes White's win chance in percent with the formula
//! grading uses ([`white_win_percent`](crate::analysis::coach::grade::white_win_percent):
//! `50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`, cp clamped to ±1000,
//! a forced mate 100 or 0). For one move, with `before` and `after` the
//! mover's win chances:
//!
//! `accuracy = 103.1668 * exp(-0.04354 * (before - after)) - 3.1669 + 1`,
//!
//! clamped to 0..100, and 100 when the move did not lose win chance (the
//! `+ 1` is lichess's allowance for imperfect analysis).
//!
//! A side's game accuracy is lichess's: the mean of a volatility-weighted
//! mean and the harmonic mean of its moves' accuracies. The weight of move
//! `i` is the standard deviation of White's win chances in a window of
//! `clamp(moves / 10, 2, 8)` positions ending after it (the first windows
//! repeat the first full one), clamped to 0.5..12. One difference from
//! lichess: the series starts from the engine's evaluation of the starting
//! position, where lichess assumes +0.15 for every game.

/// lichess's fitted constants of move accuracy.
const A: f64 = 103.166_810_071_164_9;
const K: f64 = 0.043_544_153_867_539_51;
const B: f64 = 3.166_924_740_191_411;

/// The accuracy of one move from the mover's win chances (percent) before and after it.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    (A * (-K * (before - after)).exp() - B + 1.0).clamp(0.0, 100.0)
}

/// Game accuracy of White and of Black (`None` for a side with no move).
///
/// `white_wins` are White's win chances in percent: the start position
/// first, then after each move. `white_first` says who made the first move.
pub fn game_accuracy(white_wins: &[f64], white_first: bool) -> [Option<f64>; 2] {
    let moves = white_wins.len().saturating_sub(1);
    if moves == 0 {
        return [None, None];
    }
    let window = (moves / 10).clamp(2, 8).min(white_wins.len());
    let mut windows: Vec<&[f64]> = Vec::with_capacity(moves);
    for _ in 0..window.saturating_sub(2) {
        windows.push(&white_wins[..window]);
    }
    windows.extend(white_wins.windows(window));
    let weights: Vec<f64> = windows
        .iter()
        .map(|w| std_dev(w).clamp(0.5, 12.0))
        .collect();
    let mut per_side: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (i, pair) in white_wins.windows(2).enumerate() {
        let white = i.is_multiple_of(2) == white_first;
        let (before, after) = if white {
            (pair[0], pair[1])
        } else {
            (100.0 - pair[0], 100.0 - pair[1])
        };
        let weight = weights.get(i).copied().unwrap_or(0.5);
        per_side[usize::from(!white)].push((move_accuracy(before, after), weight));
    }
    per_side.map(|moves| {
        if moves.is_empty() {
            return None;
        }
        let total: f64 = moves.iter().map(|(_, w)| w).sum();
        let weighted = moves.iter().map(|(a, w)| a * w).sum::<f64>() / total;
        let harmonic = if moves.iter().any(|&(a, _)| a <= 0.0) {
            0.0
        } else {
            moves.len() as f64 / moves.iter().map(|(a, _)| 1.0 / a).sum::<f64>()
        };
        Some((weighted + harmonic) / 2.0)
    })
}

/// Population standard deviation.
fn std_dev(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_accuracy_matches_lichess_curve() {
        assert_eq!(move_accuracy(50.0, 50.0), 100.0);
        assert_eq!(move_accuracy(40.0, 60.0), 100.0);
        // A loss of 10 points of win chance: 103.1668 * e^-0.4354 - 3.1669 + 1.
        let ten = move_accuracy(60.0, 50.0);
        assert!((ten - 64.58).abs() < 0.01, "{ten}");
        // Losing everything is (almost) zero.
        assert!(move_accuracy(100.0, 0.0) < 0.1);
        // A tiny loss is nearly perfect.
        assert!(move_accuracy(50.0, 49.0) > 96.0);
    }

    #[test]
    fn a_blunder_costs_the_blunderer_only() {
        // White keeps the balance; Black throws a piece away on the 4th move.
        let wins = [
            50.0, 51.0, 50.0, 51.0, 50.0, 52.0, 50.0, 51.0, 80.0, 81.0, 80.0,
        ];
        let [white, black] = game_accuracy(&wins, true);
        let (white, black) = (white.unwrap(), black.unwrap());
        assert!(white > 90.0, "{white}");
        assert!(black < white - 20.0, "{black} vs {white}");
        // Perfect play is 100.
        let [w, b] = game_accuracy(&[50.0; 9], true);
        assert_eq!((w, b), (Some(100.0), Some(100.0)));
        assert_eq!(game_accuracy(&[50.0], true), [None, None]);
        // Black moving first: the first move is Black's.
        let [w, b] = game_accuracy(&[50.0, 90.0], false);
        assert_eq!(w, None);
        // Black's only move lost 40 points: 103.1668 * e^-1.7418 - 2.1669.
        assert!((b.unwrap() - 15.91).abs() < 0.05, "{b:?}");
    }
}
