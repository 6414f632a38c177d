//! Side to move from last-move highlights.
//!
//! Sites mark the last move by tinting its two squares. A square whose
//! background differs clearly, and in hue rather than only in brightness,
//! from the other squares of its colour is taken as highlighted; when exactly
//! two are, tinted alike, and one of them holds a piece, that piece's side
//! moved last, so the other side is to move. Grey book diagrams never count.

use cozy_chess::Color;

/// Smallest colour distance (0–255 RGB) from the usual square colour that
/// counts as a highlight.
const MIN_TINT: f32 = 30.0;
/// Smallest change of hue (the shift's part away from grey) in a highlight.
const MIN_CHROMA_SHIFT: f32 = 20.0;

/// The two highlighted squares, as picture indices, when there are exactly two.
pub fn last_move_squares(colours: &[[f32; 3]]) -> Option<[usize; 2]> {
    if colours.len() != 64 {
        return None;
    }
    let mut highlighted: Vec<(usize, [f32; 3])> = Vec::new();
    for parity in 0..2 {
        let members: Vec<usize> = (0..64).filter(|i| (i / 8 + i % 8) % 2 == parity).collect();
        let usual: [f32; 3] = std::array::from_fn(|c| {
            let mut values: Vec<f32> = members.iter().map(|&i| colours[i][c]).collect();
            values.sort_by(f32::total_cmp);
            values[values.len() / 2]
        });
        let distance = |i: usize| {
            (0..3)
                .map(|c| (colours[i][c] - usual[c]).powi(2))
                .sum::<f32>()
                .sqrt()
        };
        let mut distances: Vec<f32> = members.iter().map(|&i| distance(i)).collect();
        distances.sort_by(f32::total_cmp);
        // A textured board (wood, marble) varies everywhere: no clear outliers.
        let spread = distances[distances.len() * 3 / 4];
        let threshold = MIN_TINT.max(4.0 * spread);
        for i in members {
            let shift: [f32; 3] = std::array::from_fn(|c| colours[i][c] - usual[c]);
            if distance(i) > threshold && chroma(shift) >= MIN_CHROMA_SHIFT {
                highlighted.push((i, shift));
            }
        }
    }
    match highlighted[..] {
        [(a, shift_a), (b, shift_b)] if cosine(shift_a, shift_b) > 0.3 => Some([a, b]),
        _ => None,
    }
}

/// Length of the part of a colour shift that is not a change of brightness.
fn chroma(shift: [f32; 3]) -> f32 {
    let grey = shift.iter().sum::<f32>() / 3.0;
    shift.iter().map(|v| (v - grey).powi(2)).sum::<f32>().sqrt()
}

fn cosine(a: [f32; 3], b: [f32; 3]) -> f32 {
    let dot: f32 = (0..3).map(|c| a[c] * b[c]).sum();
    let norm = |v: [f32; 3]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b)).max(1e-6)
}

/// The side to move given the pieces (FEN letters, `None` for empty) on the
/// two highlighted squares: the side that did not just move.
pub fn side_to_move(pieces: [Option<char>; 2]) -> Option<Color> {
    let mover = match pieces {
        [Some(p), None] | [None, Some(p)] => p,
        _ => return None,
    };
    Some(if mover.is_ascii_uppercase() {
        Color::Black
    } else {
        Color::White
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_colours() -> Vec<[f32; 3]> {
        (0..64)
            .map(|i| {
                if (i / 8 + i % 8) % 2 == 0 {
                    [235.0, 236.0, 210.0]
                } else {
                    [118.0, 150.0, 86.0]
                }
            })
            .collect()
    }

    #[test]
    fn finds_two_tinted_squares() {
        let mut colours = board_colours();
        colours[52] = [245.0, 246.0, 130.0]; // e2 tinted yellow (light square)
        colours[36] = [186.0, 202.0, 68.0]; // e4 tinted (dark square)
        let mut found = last_move_squares(&colours).unwrap();
        found.sort();
        assert_eq!(found, [36, 52]);
    }

    #[test]
    fn grey_outliers_are_not_highlights() {
        let mut colours = board_colours();
        colours[52] = [170.0, 171.0, 145.0]; // darker, same hue
        colours[36] = [60.0, 92.0, 28.0];
        assert_eq!(last_move_squares(&colours), None);
    }

    #[test]
    fn no_highlight_or_too_many() {
        assert_eq!(last_move_squares(&board_colours()), None);
        let mut colours = board_colours();
        for i in [1, 10, 20, 30] {
            colours[i] = [250.0, 60.0, 60.0];
        }
        assert_eq!(last_move_squares(&colours), None);
    }

    #[test]
    fn the_side_that_did_not_move_is_to_move() {
        assert_eq!(side_to_move([None, Some('P')]), Some(Color::Black));
        assert_eq!(side_to_move([Some('n'), None]), Some(Color::White));
        assert_eq!(side_to_move([Some('n'), Some('P')]), None);
        assert_eq!(side_to_move([None, None]), None);
    }
}
