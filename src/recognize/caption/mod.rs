//! The side to move from the text printed next to a diagram, where a page
//! has a text layer (a born-digital PDF): "Black to move" under the board,
//! "24. White to play" above it.
//!
//! A line of the page's text is a caption of the board that it is nearest
//! to, above or below, when
//! - it overlaps the board horizontally by at least half the narrower of
//!   the two (a caption under the left board of a pair is not the right
//!   board's);
//! - the gap between them is at most [`MAX_GAP`] of the board's height;
//! - no other board qualifies at nearly the same gap (a line midway between
//!   two boards of a column belongs to neither). So in a column, the
//!   caption under the upper board goes to that board, not to the lower one
//!   it also sits above.
//!
//! Of a board's captions, the nearest that names a side
//! ([`phrases::side_named`]) decides; when none does alone, the lines below
//! the board, then those above it, are read joined, for a phrase broken
//! over two lines.

mod phrases;

use cozy_chess::Color;
pub use phrases::side_named;

use crate::source::{PageText, TextLine};

/// The widest gap between a board and its caption, as a share of the
/// board's height.
const MAX_GAP: f32 = 0.5;

/// For each board (`[x, y, width, height]` in the page's pixels), the side
/// to move its captions name, if any.
pub fn sides_to_move(boards: &[[u32; 4]], text: &PageText) -> Vec<Option<Color>> {
    let mut captions: Vec<Vec<(f32, Place, &TextLine)>> = vec![Vec::new(); boards.len()];
    for line in &text.lines {
        if let Some((board, gap, place)) = owner(boards, line) {
            captions[board].push((gap, place, line));
        }
    }
    captions
        .into_iter()
        .map(|mut lines| {
            lines.sort_by(|a, b| a.0.total_cmp(&b.0));
            let nearest = lines.iter().find_map(|(_, _, line)| side_named(&line.text));
            nearest.or_else(|| {
                [Place::Below, Place::Above].into_iter().find_map(|place| {
                    let mut side: Vec<&TextLine> = lines
                        .iter()
                        .filter(|(_, p, _)| *p == place)
                        .map(|(_, _, line)| *line)
                        .collect();
                    side.sort_by(|a, b| a.bbox[1].total_cmp(&b.bbox[1]));
                    let joined: Vec<&str> = side.iter().map(|line| line.text.as_str()).collect();
                    side_named(&joined.join(" "))
                })
            })
        })
        .collect()
}

/// Where a caption is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Above,
    Below,
}

/// The board a line is a caption of, with the gap between them and where
/// the line is.
fn owner(boards: &[[u32; 4]], line: &TextLine) -> Option<(usize, f32, Place)> {
    let mut near: Vec<(usize, f32, Place)> = boards
        .iter()
        .enumerate()
        .filter_map(|(i, board)| placed(board, line).map(|(gap, place)| (i, gap, place)))
        .collect();
    near.sort_by(|a, b| a.1.total_cmp(&b.1));
    let line_height = line.bbox[3];
    match near.as_slice() {
        [] => None,
        [only] => Some(*only),
        [first, second, ..] => (second.1 - first.1 > line_height / 2.0).then_some(*first),
    }
}

/// The gap between `board` and `line` and where the line is, when the line
/// can be the board's caption.
fn placed(board: &[u32; 4], line: &TextLine) -> Option<(f32, Place)> {
    let [bx, by, bw, bh] = board.map(|v| v as f32);
    let [lx, ly, lw, lh] = line.bbox;
    let overlap = (bx + bw).min(lx + lw) - bx.max(lx);
    if overlap < 0.5 * bw.min(lw) {
        return None;
    }
    // A line may reach a little into the board's box (a descender, a box
    // found a pixel too large).
    let slack = lh / 4.0;
    let (gap, place) = if ly >= by + bh - slack {
        ((ly - (by + bh)).max(0.0), Place::Below)
    } else if ly + lh <= by + slack {
        ((by - (ly + lh)).max(0.0), Place::Above)
    } else {
        return None;
    };
    (gap <= MAX_GAP * bh).then_some((gap, place))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    /// A line of 10-pixel text.
    fn line(text: &str, x: f32, y: f32, width: f32) -> TextLine {
        TextLine {
            text: text.into(),
            bbox: [x, y, width, 10.0],
        }
    }

    fn page(lines: Vec<TextLine>) -> PageText {
        PageText { lines }
    }

    #[test]
    fn a_caption_under_or_over_a_board_names_its_side() {
        let board = [100, 100, 200, 200];
        let below = page(vec![
            line("a b c d e f g h", 100.0, 302.0, 200.0),
            line(
                "Black to move. The main lines are 3...Bc5",
                40.0,
                330.0,
                320.0,
            ),
        ]);
        assert_eq!(sides_to_move(&[board], &below), [Some(Black)]);
        let above = page(vec![line("24. White to play", 150.0, 80.0, 100.0)]);
        assert_eq!(sides_to_move(&[board], &above), [Some(White)]);
        // Too far off (more than half the board's height), beside the
        // board, or inside it: not a caption.
        for far in [
            line("Black to move", 100.0, 420.0, 100.0),
            line("Black to move", 320.0, 200.0, 100.0),
            line("Black to move", 120.0, 200.0, 100.0),
        ] {
            assert_eq!(sides_to_move(&[board], &page(vec![far])), [None]);
        }
        assert_eq!(sides_to_move(&[board], &PageText::default()), [None]);
    }

    #[test]
    fn each_board_of_a_pair_has_its_own_caption() {
        let (left, right) = ([40, 100, 150, 150], [230, 100, 150, 150]);
        let captions = page(vec![
            line("1. Black to move", 70.0, 260.0, 90.0),
            line("2. White to move", 260.0, 260.0, 90.0),
        ]);
        assert_eq!(
            sides_to_move(&[left, right], &captions),
            [Some(Black), Some(White)]
        );
        // The left board's caption alone is not given to the right board.
        let one = page(vec![line("1. Black to move", 70.0, 260.0, 90.0)]);
        assert_eq!(sides_to_move(&[left, right], &one), [Some(Black), None]);
        // A line under both boards at once belongs to neither.
        let across = page(vec![line("Black to move in both", 40.0, 260.0, 340.0)]);
        assert_eq!(sides_to_move(&[left, right], &across), [None, None]);
    }

    #[test]
    fn in_a_column_the_upper_boards_caption_stays_with_it() {
        let (upper, lower) = ([100, 100, 150, 150], [100, 320, 150, 150]);
        // Captions under the boards: the upper one's is also above the
        // lower board, but nearer the upper.
        let captions = page(vec![line("Black to move", 120.0, 258.0, 100.0)]);
        assert_eq!(
            sides_to_move(&[upper, lower], &captions),
            [Some(Black), None]
        );
        // Captions over the boards: the lower one's is nearer the lower.
        let captions = page(vec![
            line("1. White to move", 120.0, 80.0, 100.0),
            line("2. Black to move", 120.0, 302.0, 100.0),
        ]);
        assert_eq!(
            sides_to_move(&[upper, lower], &captions),
            [Some(White), Some(Black)]
        );
        // Midway between the two: neither board's.
        let midway = page(vec![line("Black to move", 120.0, 280.0, 100.0)]);
        assert_eq!(sides_to_move(&[upper, lower], &midway), [None, None]);
    }

    #[test]
    fn the_nearest_caption_wins_and_broken_phrases_are_joined() {
        let board = [100, 100, 200, 200];
        let two = page(vec![
            line("Black to move", 150.0, 80.0, 100.0),
            line("White to move", 150.0, 305.0, 100.0),
        ]);
        assert_eq!(sides_to_move(&[board], &two), [Some(White)]);
        let broken = page(vec![
            line("24. Чёрные", 150.0, 305.0, 60.0),
            line("начинают и выигрывают", 150.0, 317.0, 100.0),
            line("Ход", 150.0, 330.0, 30.0),
            line("белых", 150.0, 342.0, 40.0),
        ]);
        assert_eq!(sides_to_move(&[board], &broken), [Some(Black)]);
        let wrapped = page(vec![
            line("Diagram 3:", 150.0, 305.0, 100.0),
            line("Trait aux", 150.0, 317.0, 60.0),
            line("Noirs", 150.0, 329.0, 40.0),
        ]);
        assert_eq!(sides_to_move(&[board], &wrapped), [Some(Black)]);
    }
}
