//! Repairing an impossible reading into the most likely legal position.
//!
//! A picture read square by square can come out impossible: two white kings,
//! a pawn on the last rank, the side not to move in check. Following
//! lila-tablebase's habit, the repair goes in small steps, each choosing
//! what the square scores make most likely, and each reported:
//!
//! 1. each side gets exactly one king: the square most likely to hold it,
//!    which may be the other side's second king read in the wrong colour,
//!    and never next to the other king; extra kings become their next most
//!    likely piece;
//! 2. when the two kings stand side by side, the less likely of them moves
//!    to its next most likely square away from the other;
//! 3. pawns on the first or last rank become their next most likely piece;
//! 4. a side with more than eight pawns, or more promoted pieces than
//!    missing pawns, loses its least likely surplus piece to that square's
//!    next most likely content that is no surplus for either side;
//! 5. when the side not to move is in check and the side to move was not
//!    given, the side in check is to move.
//!
//! Before any of this, [`prefer_unpromoted`] applies to every reading: a
//! piece that only a promotion would explain takes the likeliest reading
//! that needs none (the other colour, a pawn, an empty square) when the
//! classifier gave that at least a twentieth of its probability.

use cozy_chess::Color;

use super::{classifier::CLASSES, Placement, SideSource};
use crate::legality::{initial_count, square_name, touching, Impossibility};

/// A piece that only a promotion explains (a third rook, a second queen)
/// takes a reading that needs none when that is at least this likely
/// relative to it. Promoted pieces are rare in real games (a second queen
/// is uncommon, a third rook, bishop or knight rarer still), so a reading
/// that needs one must be about twenty times likelier to stand; the
/// classifier's doubt between the two colours of one piece, or a pawn and a
/// bishop, is common.
/// (0.5, 0.2, 0.05 and 0.02 measured: see the model card.)
const PROMOTION_DOUBT: f32 = 0.05;

/// Reads a piece that would need a promotion (a third rook, a second queen)
/// as the square's likeliest content that needs none, where the classifier
/// did not rule that out: the other colour's piece of the same kind, a pawn,
/// another piece, or an empty square. Applies to any reading, legal or not;
/// returns one line per change.
pub fn prefer_unpromoted(position: &mut Placement) -> Vec<String> {
    let mut changes = Vec::new();
    let mut order: Vec<usize> = (0..64).collect();
    order.sort_by(|&a, &b| {
        position.squares[a]
            .confidence
            .total_cmp(&position.squares[b].confidence)
    });
    for index in order {
        let Some(piece) = position.squares[index].piece else {
            continue;
        };
        if !matches!(piece.to_ascii_lowercase(), 'q' | 'r' | 'b' | 'n')
            || position.count(piece) <= initial_count(piece)
        {
            continue;
        }
        let scores = &position.scores[index];
        let Some(alternative) = CLASSES
            .iter()
            .copied()
            .filter(|&class| class != Some(piece) && needs_no_promotion(position, index, class))
            .max_by(|a, b| scores.probability(*a).total_cmp(&scores.probability(*b)))
        else {
            continue;
        };
        if scores.probability(alternative) >= PROMOTION_DOUBT * scores.probability(Some(piece)) {
            change(
                position,
                index,
                alternative,
                "that was possible too and needs no promotion",
                &mut changes,
            );
        }
    }
    changes
}

/// Whether `class` on square `index` would stand without a promotion: an
/// empty square, a pawn off the back ranks of a side with fewer than eight,
/// or a piece of a kind its side has fewer of than at the start. Kings are
/// left to [`repair`].
fn needs_no_promotion(position: &Placement, index: usize, class: Option<char>) -> bool {
    match class {
        None => true,
        Some('K' | 'k') => false,
        Some(pawn @ ('P' | 'p')) => (8..56).contains(&index) && position.count(pawn) < 8,
        Some(piece) => position.count(piece) < initial_count(piece),
    }
}

/// Repairs `position` in place; returns one line per change made.
pub fn repair(position: &mut Placement) -> Vec<String> {
    let mut changes = Vec::new();
    // A side without a king first: it may take the other side's second one.
    let mut kings = ['K', 'k'];
    kings.sort_by_key(|&king| position.count(king));
    for king in kings {
        fix_king_count(position, king, &mut changes);
    }
    separate_kings(position, &mut changes);
    for index in (0..8).chain(56..64) {
        if matches!(position.squares[index].piece, Some('P' | 'p')) {
            let replacement = best_excluding(position, index, &['P', 'p', 'K', 'k']);
            change(
                position,
                index,
                replacement,
                "no pawn can stand there",
                &mut changes,
            );
        }
    }
    // Each step removes one surplus piece and adds none to either side: at
    // most 16 steps.
    for _ in 0..16 {
        let Some(white) = [true, false]
            .into_iter()
            .find(|&white| has_surplus(position, white))
        else {
            break;
        };
        let Some(index) = least_likely_surplus(position, white) else {
            break;
        };
        let mut excluded = vec!['K', 'k'];
        excluded.extend(full_piece_types(position, true));
        excluded.extend(full_piece_types(position, false));
        let replacement = best_excluding(position, index, &excluded);
        change(
            position,
            index,
            replacement,
            "too many pieces for the pawns missing",
            &mut changes,
        );
    }
    if position.side_to_move_source == SideSource::Default
        && position.impossibilities().contains(&Impossibility::Checks)
    {
        let other = match position.side_to_move {
            Color::White => Color::Black,
            Color::Black => Color::White,
        };
        let previous = position.side_to_move;
        position.side_to_move = other;
        if position.impossibilities().is_empty() {
            let name = if other == Color::White {
                "White"
            } else {
                "Black"
            };
            changes.push(format!("{name} to move: {name} is in check"));
        } else {
            position.side_to_move = previous;
        }
    }
    changes
}

fn fix_king_count(position: &mut Placement, king: char, changes: &mut Vec<String>) {
    let kings: Vec<usize> = (0..64)
        .filter(|&i| position.squares[i].piece == Some(king))
        .collect();
    let likelihood = |i: usize| position.scores[i].probability(Some(king));
    match kings.len() {
        1 => {}
        0 => {
            // The other side's second king may be this one in the wrong colour.
            let other = if king == 'K' { 'k' } else { 'K' };
            let other_kings: Vec<usize> = (0..64)
                .filter(|&i| position.squares[i].piece == Some(other))
                .collect();
            let spare_other = other_kings.len() > 1;
            // Next to the other side's only king, a king cannot stand.
            let beside_other =
                |i: usize| !spare_other && other_kings.iter().any(|&k| touching(i, k));
            let candidate = (0..64)
                .filter(|&i| !beside_other(i))
                .filter(|&i| match position.squares[i].piece {
                    Some(p) if p == other => spare_other,
                    Some(p) => p != king,
                    None => true,
                })
                .max_by(|&a, &b| likelihood(a).total_cmp(&likelihood(b)));
            if let Some(index) = candidate {
                change(position, index, Some(king), "a king was missing", changes);
            }
        }
        _ => {
            let keep = kings
                .iter()
                .copied()
                .max_by(|&a, &b| likelihood(a).total_cmp(&likelihood(b)))
                .expect("at least two kings");
            for index in kings.into_iter().filter(|&i| i != keep) {
                let replacement = best_excluding(position, index, &['K', 'k']);
                change(
                    position,
                    index,
                    replacement,
                    "there was a second king",
                    changes,
                );
            }
        }
    }
}

/// Moves the less likely of two neighbouring kings to its next most likely
/// square away from the other king.
fn separate_kings(position: &mut Placement, changes: &mut Vec<String>) {
    let square_of = |king: char| (0..64).find(|&i| position.squares[i].piece == Some(king));
    let (Some(white), Some(black)) = (square_of('K'), square_of('k')) else {
        return;
    };
    if !touching(white, black) {
        return;
    }
    let likelihood = |i: usize, king: char| position.scores[i].probability(Some(king));
    let (index, king) = if likelihood(white, 'K') < likelihood(black, 'k') {
        (white, 'K')
    } else {
        (black, 'k')
    };
    let replacement = best_excluding(position, index, &['K', 'k']);
    change(
        position,
        index,
        replacement,
        "the kings cannot stand side by side",
        changes,
    );
    fix_king_count(position, king, changes);
}

/// Whether one side has more pawns, or more promoted pieces, than a game allows.
fn has_surplus(position: &Placement, white: bool) -> bool {
    let colour = if white {
        cozy_chess::Color::White
    } else {
        cozy_chess::Color::Black
    };
    crate::legality::placement_impossibilities(&position.pieces())
        .iter()
        .any(|problem| {
            matches!(problem,
                Impossibility::TooManyPawns { colour: c, .. } | Impossibility::TooManyPieces { colour: c, .. }
                if *c == colour)
        })
}

/// The pieces of one side (FEN letters) that it already has as many of as
/// at the start, or more: turning a square into one would add a surplus.
fn full_piece_types(position: &Placement, white: bool) -> Vec<char> {
    ['q', 'r', 'b', 'n', 'p']
        .into_iter()
        .map(|p| if white { p.to_ascii_uppercase() } else { p })
        .filter(|&p| position.count(p) >= initial_count(p))
        .collect()
}

/// The least confident square holding a piece of a type that side has more
/// of than at the start (pawns only past eight).
fn least_likely_surplus(position: &Placement, white: bool) -> Option<usize> {
    (0..64)
        .filter(|&i| {
            position.squares[i].piece.is_some_and(|p| {
                !matches!(p, 'K' | 'k')
                    && p.is_ascii_uppercase() == white
                    && position.count(p) > initial_count(p)
            })
        })
        .min_by(|&a, &b| {
            position.squares[a]
                .confidence
                .total_cmp(&position.squares[b].confidence)
        })
}

/// The most likely content of a square among classes not in `excluded`.
fn best_excluding(position: &Placement, index: usize, excluded: &[char]) -> Option<char> {
    CLASSES
        .iter()
        .copied()
        .filter(|class| class.is_none_or(|c| !excluded.contains(&c)))
        .max_by(|a, b| {
            let scores = &position.scores[index];
            scores.probability(*a).total_cmp(&scores.probability(*b))
        })
        .flatten()
}

fn change(
    position: &mut Placement,
    index: usize,
    piece: Option<char>,
    reason: &str,
    changes: &mut Vec<String>,
) {
    let name = |p: Option<char>| p.map_or("empty".to_string(), |c| c.to_string());
    let before = position.squares[index].piece;
    position.set_piece(index, piece);
    changes.push(format!(
        "{} read as {}, changed to {} ({reason})",
        square_name(index),
        name(before),
        name(piece)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::{SquareScores, View};

    /// Scores that read `board_fen` with `p` for each piece and share the rest.
    fn reading(board_fen: &str, tweaks: &[(usize, char, f32)]) -> Placement {
        let mut squares = Vec::new();
        for c in board_fen.chars().filter(|c| *c != '/') {
            match c.to_digit(10) {
                Some(n) => squares.extend(std::iter::repeat_n(None, n as usize)),
                None => squares.push(Some(c)),
            }
        }
        let scores: Vec<SquareScores> = squares
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let mut p = [0.01f32; 13];
                p[CLASSES.iter().position(|c| c == piece).unwrap()] = 0.8;
                for &(index, class, value) in tweaks {
                    if index == i {
                        p[CLASSES.iter().position(|c| *c == Some(class)).unwrap()] = value;
                    }
                }
                SquareScores(p)
            })
            .collect();
        Placement::from_picture(&scores, View::White, (Color::White, SideSource::Default))
    }

    #[test]
    fn a_second_king_becomes_its_next_best_piece() {
        // e1 and d1 both read as K; d1 is more likely a queen.
        let mut position = reading("4k3/8/8/8/8/8/8/3KK3", &[(59, 'Q', 0.5), (59, 'K', 0.6)]);
        let changes = repair(&mut position);
        assert_eq!(position.board_fen(), "4k3/8/8/8/8/8/8/3QK3", "{changes:?}");
        assert_eq!(changes.len(), 1);
        assert!(
            changes[0].starts_with("d1 read as K, changed to Q"),
            "{changes:?}"
        );
    }

    #[test]
    fn a_second_king_of_one_colour_may_be_the_missing_king_of_the_other() {
        // White's king on e1 read as black, 0.6 against 0.35; e8 is clear.
        let (e8, e1) = (4, 60);
        let mut position = reading("4k3/8/8/8/8/8/8/4k3", &[(e1, 'k', 0.6), (e1, 'K', 0.35)]);
        repair(&mut position);
        assert_eq!(position.board_fen(), "4k3/8/8/8/8/8/8/4K3");
        // And Black's king on e8 read as white.
        let mut position = reading("4K3/8/8/8/8/8/8/4K3", &[(e8, 'K', 0.6), (e8, 'k', 0.35)]);
        repair(&mut position);
        assert_eq!(position.board_fen(), "4k3/8/8/8/8/8/8/4K3");
    }

    #[test]
    fn a_missing_king_goes_where_it_is_most_likely() {
        let mut position = reading("4k3/8/8/8/8/8/8/4B3", &[(60, 'K', 0.3)]);
        repair(&mut position);
        assert_eq!(position.board_fen(), "4k3/8/8/8/8/8/8/4K3");
    }

    #[test]
    fn a_second_queen_without_a_missing_pawn_changes_colour() {
        // The chess.com case: d8's black queen read as white (0.8 vs 0.3).
        let italian = "r1bQk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R";
        let mut position = reading(italian, &[(3, 'q', 0.3)]);
        assert!(!position.legality_warnings().is_empty());
        repair(&mut position);
        assert_eq!(
            position.board_fen(),
            "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R"
        );
        // With a pawn missing, a second queen is possible and stays.
        let promoted = "4k3/8/8/8/8/8/PPPPPPP1/3QK2Q";
        assert!(reading(promoted, &[]).legality_warnings().is_empty());
    }

    #[test]
    fn a_third_rook_in_doubt_takes_the_other_colour() {
        // f8's black rook read as white, 0.5 against 0.45: White would need a
        // promotion for a third rook while Black would have only one.
        let fen = "2r2R2/4k3/8/7R/8/8/PP1K4/2R5";
        let mut position = reading(fen, &[(5, 'R', 0.5), (5, 'r', 0.45)]);
        assert!(position.legality_warnings().is_empty(), "legal as read");
        let changes = prefer_unpromoted(&mut position);
        assert_eq!(position.board_fen(), "2r2r2/4k3/8/7R/8/8/PP1K4/2R5");
        assert!(
            changes[0].starts_with("f8 read as R, changed to r"),
            "{changes:?}"
        );
        // A clear reading, or a side that has its two rooks already, stays;
        // a reading one-eighth as likely is doubt enough.
        let mut sure = reading(fen, &[(5, 'R', 0.8), (5, 'r', 0.03)]);
        assert!(prefer_unpromoted(&mut sure).is_empty());
        let mut unsure = reading(fen, &[(5, 'R', 0.8), (5, 'r', 0.1)]);
        assert_eq!(prefer_unpromoted(&mut unsure).len(), 1);
        let both_full = "r1r2R2/4k3/8/7R/8/8/PP1K4/2R5";
        let mut full = reading(both_full, &[(5, 'R', 0.5), (5, 'r', 0.45)]);
        assert!(prefer_unpromoted(&mut full).is_empty());
        // Two rooks each: nothing to prefer.
        let mut normal = reading("2r2r2/4k3/8/7R/8/8/PP1K4/2R5", &[(5, 'R', 0.45)]);
        assert!(prefer_unpromoted(&mut normal).is_empty());
    }

    #[test]
    fn a_third_bishop_in_doubt_is_a_pawn_and_a_third_rook_an_empty_square() {
        // a3 read as a third white bishop, a white pawn a tenth as likely.
        let fen = "4k3/8/8/8/8/B7/1P3B2/4KB2";
        let a3 = 40;
        let mut position = reading(fen, &[(a3, 'B', 0.6), (a3, 'P', 0.06)]);
        let changes = prefer_unpromoted(&mut position);
        assert_eq!(
            position.board_fen(),
            "4k3/8/8/8/8/P7/1P3B2/4KB2",
            "{changes:?}"
        );
        // An arrowhead on the empty a8 read as a third black rook.
        let a8 = 0;
        let fen = "r3k2r/8/8/8/8/8/8/r3K3";
        let mut position = reading(fen, &[(a8, 'r', 0.4)]);
        position.scores[a8].0[0] = 0.35;
        prefer_unpromoted(&mut position);
        assert_eq!(position.board_fen(), "4k2r/8/8/8/8/8/8/r3K3");
        // A pawn cannot stand on the back rank: a third bishop there stays
        // unless something else is likely.
        let mut position = reading("4k3/8/8/8/8/8/5B2/B3KB2", &[(56, 'P', 0.3)]);
        assert!(prefer_unpromoted(&mut position).is_empty());
    }

    #[test]
    fn a_surplus_piece_does_not_become_a_surplus_of_the_other_side() {
        // A mouse pointer on f3 read as a third black knight (0.4), a white
        // knight next (0.35), empty after (0.2): White has its two knights,
        // so the square is empty.
        let fen = "rnbqkb1r/ppp1pp1p/5np1/3p4/2PP4/2N2n2/PP2PPPP/R1BQKBNR";
        let f3 = 45;
        let mut position = reading(fen, &[(f3, 'n', 0.4), (f3, 'N', 0.35)]);
        position.scores[f3].0[0] = 0.2;
        repair(&mut position);
        assert_eq!(
            position.board_fen(),
            "rnbqkb1r/ppp1pp1p/5np1/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR"
        );
        assert!(position.legality_warnings().is_empty());
    }

    #[test]
    fn repair_ends_on_a_board_full_of_queens() {
        let mut position = reading("QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k3K3", &[]);
        repair(&mut position);
        assert!(!has_surplus(&position, true), "{}", position.board_fen());
    }

    #[test]
    fn neighbouring_kings_are_parted() {
        // d5 and e5 both kings; the black one is less sure and e7 was its
        // second choice.
        let (d5, e7) = (27, 12);
        let mut position = reading("8/8/8/3kK3/8/8/8/8", &[(d5, 'k', 0.5), (e7, 'k', 0.3)]);
        position.scores[d5].0[0] = 0.3;
        assert!(position
            .impossibilities()
            .contains(&Impossibility::KingsAdjacent));
        let changes = repair(&mut position);
        assert_eq!(position.board_fen(), "8/4k3/8/4K3/8/8/8/8", "{changes:?}");
        assert!(position.impossibilities().is_empty(), "{changes:?}");
        // A missing king is never placed next to the other one, however likely.
        let e4 = 36;
        let mut position = reading("8/8/8/4K3/8/8/8/8", &[(e4, 'k', 0.7), (e7, 'k', 0.2)]);
        repair(&mut position);
        assert_eq!(position.board_fen(), "8/4k3/8/4K3/8/8/8/8");
    }

    #[test]
    fn a_ninth_pawn_becomes_its_next_best_reading() {
        let a3 = 40;
        let mut position = reading(
            "4k3/8/8/8/8/P7/PPPPPPPP/4K3",
            &[(a3, 'P', 0.5), (a3, 'B', 0.4)],
        );
        assert!(!position.impossibilities().is_empty());
        repair(&mut position);
        assert_eq!(position.board_fen(), "4k3/8/8/8/8/B7/PPPPPPPP/4K3");
    }

    #[test]
    fn back_rank_pawns_and_check_are_repaired() {
        let mut position = reading("4k2P/8/8/8/8/8/8/4K3", &[(7, 'B', 0.3)]);
        repair(&mut position);
        assert_eq!(position.board_fen(), "4k2B/8/8/8/8/8/8/4K3");

        // White to move by default, but Black's king is in check: Black moves.
        let mut position = reading("4k3/8/8/8/8/8/8/4R1K1", &[]);
        let changes = repair(&mut position);
        assert_eq!(position.side_to_move, Color::Black, "{changes:?}");
        assert!(position.legality_warnings().is_empty());
    }
}
