//! Joining the positions seen in a recording into moves.
//!
//! Each sighting of the board is scored against the positions the game can
//! have reached from the last one: the legal moves, and sequences of up to
//! [`MAX_PLIES`] moves for positions that were on screen too briefly to be
//! seen. A candidate's fit is the log-probability the square classifier
//! gives its pieces, so one misread square (a cursor, an arrow, a premove
//! mark) costs a little and the move that explains the other 63 still
//! wins. The board may be turned over at any time: each candidate is also
//! scored from the other side, at a small cost. A sighting that no move
//! explains is a passing frame (a piece in flight, a dialog over the
//! board) unless it is read with confidence and stays on screen; then the
//! game goes on from it, as a new segment.

use std::time::Duration;

use cozy_chess::{Board, Color, GameStatus, Move, Piece, Square};

use crate::{
    notation::conventional_to,
    recognize::{legal_position, SquareScores, View, CLASSES},
};

/// The longest sequence of moves looked for between two sightings.
const MAX_PLIES: usize = 3;

/// Log-probability a candidate of up to two moves may fall short of the
/// best reading of the squares before three-move sequences are looked at
/// too: about one square read confidently wrong.
const ACCEPT: f32 = 12.0;

/// Cost of each move of a candidate, so that a position is reached by the
/// fewest moves that explain it equally.
const PLY_COST: f32 = 2.0;

/// Cost of a sequence whose last move is not the one the board's last-move
/// highlight marks: two sequences that reach the same picture by the same
/// moves in another order (a dragged piece held on the way) differ there.
const HIGHLIGHT_COST: f32 = 3.0;

/// Cost of turning the board over.
const FLIP_COST: f32 = 6.0;

/// Least probability a class is given, so that one misread square costs a
/// bounded amount (ln 10⁻⁴ ≈ −9.2).
const FLOOR: f32 = 1e-4;

/// A position no move explains starts a new segment only when it stays on
/// screen this long (or ends the recording).
const JUMP_SHOWN: Duration = Duration::from_millis(750);

/// Squares whose best class is below this probability are doubtful.
const SURE: f32 = 0.8;

/// A sighting with more doubtful squares than this cannot start a game
/// from the position it shows.
const MAX_DOUBTFUL: usize = 6;

/// Log-probability the usual starting position may fall short of the best
/// reading of the squares and still be taken as the start: a piece set the
/// classifier reads poorly may misread a few pieces.
const START_ACCEPT: f32 = 40.0;

/// Moves taken back at most to explain a sighting.
const MAX_RETRACT: usize = 2;

/// Cost of taking back a move: less than a move's, so that a move taken
/// wrongly is replaced rather than followed by moves that undo it.
const RETRACT_COST: f32 = 1.0;

/// Further cost of take-backs with no move after them (a piece dragged and
/// put back): more than the moves of a repetition that reach the same
/// position forward.
const RETRACT_ALONE_COST: f32 = 3.0;

/// Squares a sighting may show changed, surely and otherwise than its
/// explanation says (a cursor, an arrow, a mark), and still be taken.
const MAX_UNEXPLAINED: usize = 1;

/// One settled picture of the board: its 64 squares' scores in picture
/// order (top row first), and how long it was on screen.
pub struct Sighting {
    pub at: Duration,
    pub until: Duration,
    pub scores: Vec<SquareScores>,
    /// The two cells a last-move highlight marks, where exactly two are.
    pub highlight: Option<[usize; 2]>,
    /// The side at the bottom, as the recognizer read the first picture.
    pub view_hint: Option<View>,
    /// The side to move, as a last-move highlight says.
    pub side_hint: Option<Color>,
}

/// Per picture cell, the log-probability of each class.
struct Fit {
    log_p: Vec<[f32; 13]>,
    /// Sum of the empty class's log-probabilities.
    empty: f32,
    /// Sum of each cell's best log-probability: what no candidate beats.
    best: f32,
    doubtful: usize,
}

impl Fit {
    fn of(scores: &[SquareScores]) -> Self {
        let log_p: Vec<[f32; 13]> = scores
            .iter()
            .map(|s| CLASSES.map(|class| s.calibrated(class).max(FLOOR).ln()))
            .collect();
        let empty = log_p.iter().map(|c| c[0]).sum();
        let best = log_p
            .iter()
            .map(|c| c.iter().copied().fold(f32::MIN, f32::max))
            .sum();
        let doubtful = scores.iter().filter(|s| s.best().1 < SURE).count();
        Self {
            log_p,
            empty,
            best,
            doubtful,
        }
    }

    /// Each board square's (a1 first) class, where it is read surely, seen
    /// from `view`.
    fn sure_classes(&self, view: View) -> Vec<SquareRead> {
        Square::ALL
            .iter()
            .map(|&square| {
                let cell = &self.log_p[cell_of(square, view)];
                let (class, log_p) = cell
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .expect("13 classes");
                (log_p.exp() >= SURE).then_some(class)
            })
            .collect()
    }

    /// Log-probability of `board`'s pieces seen from `view`.
    fn of_board(&self, board: &Board, view: View) -> f32 {
        let mut total = self.empty;
        for square in board.occupied() {
            let (Some(piece), Some(colour)) = (board.piece_on(square), board.color_on(square))
            else {
                continue;
            };
            let cell = &self.log_p[cell_of(square, view)];
            total += cell[class_of(piece, colour)] - cell[0];
        }
        total
    }
}

/// The picture cell (top row first) where `square` is seen from `view`.
fn cell_of(square: Square, view: View) -> usize {
    let (file, rank) = (square.file() as usize, square.rank() as usize);
    match view {
        View::White => (7 - rank) * 8 + file,
        View::Black => rank * 8 + (7 - file),
    }
}

/// The index in [`CLASSES`] of a piece.
fn class_of(piece: Piece, colour: Color) -> usize {
    let index = match piece {
        Piece::Pawn => 1,
        Piece::Knight => 2,
        Piece::Bishop => 3,
        Piece::Rook => 4,
        Piece::Queen => 5,
        Piece::King => 6,
    };
    match colour {
        Color::White => index,
        Color::Black => index + 6,
    }
}

fn flipped(view: View) -> View {
    match view {
        View::White => View::Black,
        View::Black => View::White,
    }
}

/// A stretch of the game joined by legal moves.
#[derive(Clone, Debug)]
pub struct Segment {
    pub start: Board,
    pub moves: Vec<Move>,
    /// When the segment's first position was seen.
    pub from: Duration,
}

/// The best explanation of a sighting.
struct Candidate {
    /// Moves of the segment taken back first.
    retract: usize,
    /// Which of the positions a picked-up board may stand at it starts from.
    side: usize,
    moves: Vec<Move>,
    view: View,
    /// Log-probability of the candidate's pieces.
    fit: f32,
    /// Fit less the costs of moves, take-backs, a turn of the board and a
    /// last move other than the one highlighted.
    score: f32,
}

/// What a square was last read as: its class, where the reading was sure.
type SquareRead = Option<usize>;

/// Turns sightings into segments of moves.
pub struct Joiner {
    /// The segment's positions: its start, then one after each move.
    history: Vec<Board>,
    /// Before the first move from a picked-up position, the position with
    /// the other side to move (the less likely one).
    other_side: Option<Board>,
    view: View,
    /// Each board square (a1 first) as last read, to tell a change on the
    /// board from a standing misreading.
    last_read: Vec<SquareRead>,
    done: Vec<Segment>,
    segment: Option<Segment>,
    /// Sightings no move explained and left as passing pictures.
    pub passing: usize,
}

impl Default for Joiner {
    fn default() -> Self {
        Self {
            history: Vec::new(),
            other_side: None,
            view: View::White,
            last_read: vec![None; 64],
            done: Vec::new(),
            segment: None,
            passing: 0,
        }
    }
}

impl Joiner {
    /// Takes the next sighting; `last` says it ends the recording.
    pub fn see(&mut self, sighting: &Sighting, last: bool) {
        let fit = Fit::of(&sighting.scores);
        if self.segment.is_none() {
            self.start(sighting, &fit);
            return;
        }
        let best = self.explain(&fit, sighting.highlight);
        let mut board = match best.side {
            0 => self.history[self.history.len() - 1 - best.retract].clone(),
            _ => self.other_side.clone().expect("a second side"),
        };
        for &mv in &best.moves {
            board.play_unchecked(mv);
        }
        let read = fit.sure_classes(best.view);
        if self.unexplained(&read, &board) > MAX_UNEXPLAINED {
            let stays = last || sighting.until.saturating_sub(sighting.at) >= JUMP_SHOWN;
            if stays && fit.doubtful <= MAX_DOUBTFUL {
                if let Some(segment) = self.segment.take() {
                    self.done.push(segment);
                }
                self.start(sighting, &fit);
            } else {
                self.passing += 1;
            }
            return;
        }
        self.view = best.view;
        self.last_read = read;
        let segment = self.segment.as_mut().expect("started");
        if best.side == 1 {
            let other = self.other_side.take().expect("a second side");
            segment.start = other.clone();
            self.history = vec![other];
        }
        if best.moves.is_empty() && best.retract == 0 {
            return;
        }
        self.other_side = None;
        let kept = segment.moves.len() - best.retract;
        segment.moves.truncate(kept);
        self.history.truncate(kept + 1);
        let mut position = self.history[kept].clone();
        for &mv in &best.moves {
            position.play_unchecked(mv);
            segment.moves.push(mv);
            self.history.push(position.clone());
        }
    }

    /// Squares whose reading changed, surely, since the last sighting taken,
    /// to something other than what `board` has there: a change the
    /// explanation leaves out.
    fn unexplained(&self, read: &[SquareRead], board: &Board) -> usize {
        Square::ALL
            .iter()
            .filter(|&&square| {
                let now = read[square as usize];
                let before = self.last_read[square as usize];
                let has = match (board.piece_on(square), board.color_on(square)) {
                    (Some(piece), Some(colour)) => class_of(piece, colour),
                    _ => 0,
                };
                now.is_some() && before.is_some() && now != before && now != Some(has)
            })
            .count()
    }

    /// Starts a segment at a sighting: the usual starting position where it
    /// fits, else the position read (when read with confidence), with
    /// either side to move until its first move says which.
    fn start(&mut self, sighting: &Sighting, fit: &Fit) {
        let initial = Board::default();
        let hint = sighting.view_hint.unwrap_or(self.view);
        let view = [hint, flipped(hint)]
            .into_iter()
            .max_by(|a, b| {
                fit.of_board(&initial, *a)
                    .total_cmp(&fit.of_board(&initial, *b))
            })
            .expect("two views");
        let mut starts = if fit.best - fit.of_board(&initial, view) <= START_ACCEPT {
            self.view = view;
            vec![initial]
        } else if fit.doubtful <= MAX_DOUBTFUL {
            self.view = hint;
            let first = sighting.side_hint.unwrap_or(Color::White);
            [first, !first]
                .into_iter()
                .filter_map(|side| legal_position(&sighting.scores, hint, side))
                .collect()
        } else {
            Vec::new()
        };
        if starts.is_empty() {
            self.passing += 1;
            return;
        }
        let start = starts.remove(0);
        self.other_side = starts.pop();
        self.last_read = fit.sure_classes(self.view);
        self.history = vec![start.clone()];
        self.segment = Some(Segment {
            start,
            moves: Vec::new(),
            from: sighting.at,
        });
    }

    /// The candidate that explains `fit` best: no move, a move or a short
    /// sequence, from the position the game stands at, or from one or two
    /// moves before it (a move taken wrongly, from a piece held still while
    /// dragged, is taken back), or from the other side to move, seen from
    /// either side.
    fn explain(&self, fit: &Fit, highlight: Option<[usize; 2]>) -> Candidate {
        let mut bases: Vec<(usize, usize, &Board)> = (0..=MAX_RETRACT)
            .take_while(|&k| k < self.history.len())
            .map(|k| (k, 0, &self.history[self.history.len() - 1 - k]))
            .collect();
        if let Some(other) = &self.other_side {
            bases.push((0, 1, other));
        }
        let mut best: Option<Candidate> = None;
        for &(retract, side, board) in &bases {
            walk(board, &mut Vec::new(), 2, &mut |b, m| {
                self.consider(fit, highlight, (retract, side, board), b, m, &mut best)
            });
        }
        let found = best.as_ref().is_some_and(|b| fit.best - b.fit <= ACCEPT);
        if !found {
            let current = self.history.last().expect("started");
            walk(current, &mut Vec::new(), MAX_PLIES, &mut |b, m| {
                if m.len() == MAX_PLIES {
                    self.consider(fit, highlight, (0, 0, current), b, m, &mut best)
                }
            });
        }
        best.expect("the position itself is a candidate")
    }

    /// What a candidate's score is short of its fit.
    fn costs(&self, retract: usize, side: usize, plies: usize, view: View) -> f32 {
        let flip = if view == self.view { 0.0 } else { FLIP_COST };
        let alone = if retract > 0 && plies == 0 {
            RETRACT_ALONE_COST
        } else {
            0.0
        };
        flip + PLY_COST * plies as f32 + RETRACT_COST * retract as f32 + alone + side as f32
    }

    /// Keeps `board`, reached by `moves` from `base`, in `best` where it
    /// scores higher, seen from either side.
    fn consider(
        &self,
        fit: &Fit,
        highlight: Option<[usize; 2]>,
        (retract, side, base): (usize, usize, &Board),
        board: &Board,
        moves: &[Move],
        best: &mut Option<Candidate>,
    ) {
        for view in [self.view, flipped(self.view)] {
            let pieces = fit.of_board(board, view);
            let mut score = pieces - self.costs(retract, side, moves.len(), view);
            if let (Some(marked), Some(_)) = (highlight, moves.last()) {
                if !last_move_marked(base, moves, view, marked) {
                    score -= HIGHLIGHT_COST;
                }
            }
            if best.as_ref().is_none_or(|b| score > b.score) {
                *best = Some(Candidate {
                    retract,
                    side,
                    moves: moves.to_vec(),
                    view,
                    fit: pieces,
                    score,
                });
            }
        }
    }

    /// The segments, the last one closed.
    pub fn finish(mut self) -> Vec<Segment> {
        if let Some(segment) = self.segment.take() {
            self.done.push(segment);
        }
        self.done
    }
}

/// Calls `visit` on `board` and on every position up to `depth` legal
/// moves from it, with the moves that lead there.
fn walk(
    board: &Board,
    moves: &mut Vec<Move>,
    depth: usize,
    visit: &mut impl FnMut(&Board, &[Move]),
) {
    visit(board, moves);
    if depth == 0 || board.status() != GameStatus::Ongoing {
        return;
    }
    let mut legal = Vec::new();
    board.generate_moves(|set| {
        legal.extend(set);
        false
    });
    for mv in legal {
        let mut next = board.clone();
        next.play_unchecked(mv);
        moves.push(mv);
        walk(&next, moves, depth - 1, visit);
        moves.pop();
    }
}

/// Whether the last of `moves` (played from `base`) goes between the two
/// `marked` cells, seen from `view`.
fn last_move_marked(base: &Board, moves: &[Move], view: View, marked: [usize; 2]) -> bool {
    let mut board = base.clone();
    for &mv in &moves[..moves.len() - 1] {
        board.play_unchecked(mv);
    }
    let last = moves[moves.len() - 1];
    let ends = [last.from, conventional_to(&board, last)].map(|s| cell_of(s, view));
    ends == marked || ends == [marked[1], marked[0]]
}

/// The result a segment's last position shows: a mate or a stalemate.
pub fn result_of(segment: &Segment) -> Option<&'static str> {
    let mut board = segment.start.clone();
    for &mv in &segment.moves {
        board.play_unchecked(mv);
    }
    match board.status() {
        GameStatus::Won => Some(match board.side_to_move() {
            Color::White => "0-1",
            Color::Black => "1-0",
        }),
        GameStatus::Drawn if !board.generate_moves(|_| true) => Some("1/2-1/2"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scores a perfect reader gives `board` seen from `view`, with
    /// `noise` squares (by cell) read confidently as something else.
    fn scores(board: &Board, view: View, misread: &[(usize, usize)]) -> Vec<SquareScores> {
        let mut out = vec![SquareScores(one_hot(0)); 64];
        for square in board.occupied() {
            let class = class_of(
                board.piece_on(square).unwrap(),
                board.color_on(square).unwrap(),
            );
            out[cell_of(square, view)] = SquareScores(one_hot(class));
        }
        for &(cell, class) in misread {
            out[cell] = SquareScores(one_hot(class));
        }
        out
    }

    fn one_hot(class: usize) -> [f32; 13] {
        let mut p = [0.0005; 13];
        p[class] = 1.0 - 12.0 * 0.0005;
        p
    }

    fn sighting(board: &Board, view: View, misread: &[(usize, usize)], at: u64) -> Sighting {
        Sighting {
            at: Duration::from_secs(at),
            until: Duration::from_secs(at + 1),
            scores: scores(board, view, misread),
            highlight: None,
            view_hint: None,
            side_hint: None,
        }
    }

    fn play(board: &Board, uci: &[&str]) -> Vec<Board> {
        let mut b = board.clone();
        uci.iter()
            .map(|m| {
                let mv = crate::notation::uci::parse_uci_move(&b, m, false).unwrap();
                b.play(mv);
                b.clone()
            })
            .collect()
    }

    fn uci(segment: &Segment) -> Vec<String> {
        let mut board = segment.start.clone();
        segment
            .moves
            .iter()
            .map(|&mv| {
                let text = crate::notation::uci::move_to_uci(&board, mv, false);
                board.play_unchecked(mv);
                text
            })
            .collect()
    }

    #[test]
    fn moves_seen_one_by_one_are_joined() {
        let start = Board::default();
        let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"];
        let positions = play(&start, &line);
        let mut joiner = Joiner::default();
        joiner.see(&sighting(&start, View::White, &[], 0), false);
        for (i, p) in positions.iter().enumerate() {
            joiner.see(
                &sighting(p, View::White, &[], i as u64 + 1),
                i + 1 == positions.len(),
            );
        }
        let segments = joiner.finish();
        assert_eq!(segments.len(), 1);
        assert_eq!(uci(&segments[0]), line);
    }

    #[test]
    fn skipped_positions_misreads_and_a_turned_board_do_not_break_the_chain() {
        let start = Board::default();
        let line = ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6"];
        let p = play(&start, &line);
        let mut joiner = Joiner::default();
        joiner.see(&sighting(&start, View::Black, &[], 0), false);
        // d4 and d5 seen only together; a pointer read as a queen on an empty cell.
        joiner.see(&sighting(&p[1], View::Black, &[(27, 5)], 1), false);
        joiner.see(&sighting(&p[2], View::Black, &[], 2), false);
        // The board is turned over before ...e6.
        joiner.see(&sighting(&p[3], View::White, &[], 3), false);
        joiner.see(&sighting(&p[4], View::White, &[], 4), false);
        joiner.see(&sighting(&p[5], View::White, &[], 5), true);
        let segments = joiner.finish();
        assert_eq!(segments.len(), 1);
        assert_eq!(uci(&segments[0]), line);
    }

    #[test]
    fn a_repetition_is_played_forward_and_a_dragged_piece_held_on_the_way_is_taken_back() {
        let start = Board::default();
        let line = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "e2e4"];
        let p = play(&start, &line);
        let mut joiner = Joiner::default();
        joiner.see(&sighting(&start, View::White, &[], 0), false);
        for (i, board) in p.iter().enumerate().take(6) {
            joiner.see(&sighting(board, View::White, &[], i as u64 + 1), false);
        }
        // The e-pawn dragged and held over e3, then put down on e4.
        let held = play(&p[5], &["e2e3"]);
        joiner.see(&sighting(&held[0], View::White, &[], 7), false);
        joiner.see(&sighting(&p[6], View::White, &[], 8), true);
        let segments = joiner.finish();
        assert_eq!(uci(&segments[0]), line);
    }

    #[test]
    fn the_last_move_highlight_tells_a_held_piece_from_a_move() {
        // ...Bg6-d3+ Ke2-f3, the bishop held over f5 on the way: without the
        // highlight, ...Bf5 Kf3 ...Bd3 explains the pictures as well.
        let start: Board = "4k3/8/6b1/8/8/8/4K3/8 b - - 0 1".parse().unwrap();
        let truth = ["g6d3", "e2f3"];
        let end = play(&start, &truth);
        let held = play(&start, &["g6f5"]);
        let mut joiner = Joiner::default();
        joiner.see(&sighting(&start, View::White, &[], 0), false);
        joiner.see(&sighting(&held[0], View::White, &[], 1), false);
        let mut after = sighting(&end[1], View::White, &[], 2);
        after.highlight = Some([
            cell_of(Square::E2, View::White),
            cell_of(Square::F3, View::White),
        ]);
        joiner.see(&after, true);
        let segments = joiner.finish();
        assert_eq!(uci(&segments[0]), truth);
    }

    #[test]
    fn a_position_no_move_reaches_starts_a_new_segment_with_its_side_to_move() {
        let start = Board::default();
        let p = play(&start, &["e2e4"]);
        let elsewhere: Board = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".parse().unwrap();
        let mate = play(&elsewhere, &["d1d8"]);
        let mut joiner = Joiner::default();
        joiner.see(&sighting(&start, View::White, &[], 0), false);
        joiner.see(&sighting(&p[0], View::White, &[], 1), false);
        // A passing picture: no move explains it and it is gone at once.
        let mut passing = sighting(&elsewhere, View::White, &[], 2);
        passing.until = passing.at + Duration::from_millis(100);
        joiner.see(&passing, false);
        joiner.see(&sighting(&elsewhere, View::White, &[], 3), false);
        joiner.see(&sighting(&mate[0], View::White, &[], 4), true);
        assert_eq!(joiner.passing, 1);
        let segments = joiner.finish();
        assert_eq!(segments.len(), 2);
        assert_eq!(uci(&segments[0]), ["e2e4"]);
        assert_eq!(uci(&segments[1]), ["d1d8"]);
        assert_eq!(segments[1].start.side_to_move(), Color::White);
        assert_eq!(result_of(&segments[1]), Some("1-0"));
    }
}
