//! Move lists and move ordering: hash move, winning captures by the value
//! they take plus the capture history, killers, countermoves, and for quiet
//! moves the butterfly history plus the continuation history of the
//! previous two plies.

use cozy_chess::{
    get_bishop_moves, get_knight_moves, get_rook_moves, BitBoard, Board, Color, Move, Piece, Square,
};

use super::check::gives_check;
use super::eval::pawn_attacks;

use super::see::{captured_value, see_ge, SEE_VALUE};

/// Enough for any legal chess position (the known maximum is 218).
pub const CAPACITY: usize = 256;

const HASH_MOVE: i32 = 2_000_000;
const GOOD_CAPTURE: i32 = 1_000_000;
const QUEEN_PROMOTION: i32 = 950_000;
/// Killer moves score at or above this.
pub const KILLER: i32 = 900_000;
const COUNTER: i32 = 850_000;
const BAD_CAPTURE: i32 = -1_000_000;
/// History scores stay within ±this.
const HISTORY_MAX: i32 = 16_384;

/// A list of moves with ordering scores, picked best first. Its buffer can
/// be recycled with [`MoveList::into_buffer`] to avoid allocating per node.
pub struct MoveList {
    moves: Vec<(Move, i32)>,
    next: usize,
}

impl MoveList {
    /// All legal moves of `board`, stored in `buffer` (cleared first).
    pub fn legal(board: &Board, buffer: Vec<(Move, i32)>) -> Self {
        let mut list = Self::with_buffer(buffer);
        board.generate_moves(|moves| {
            for mv in moves {
                list.push(mv);
            }
            false
        });
        list
    }

    /// Legal captures and queen promotions (for quiescence search).
    pub fn noisy(board: &Board, buffer: Vec<(Move, i32)>) -> Self {
        let mut list = Self::with_buffer(buffer);
        let stm = board.side_to_move();
        let enemy = board.colors(!stm);
        let ep = board.en_passant().map_or(BitBoard::EMPTY, |file| {
            Square::new(file, cozy_chess::Rank::Sixth.relative_to(stm)).bitboard()
        });
        let promo_rank = cozy_chess::Rank::Eighth.relative_to(stm).bitboard();
        board.generate_moves(|mut moves| {
            if moves.piece == Piece::Pawn {
                moves.to &= enemy | ep | promo_rank;
            } else {
                moves.to &= enemy;
            }
            for mv in moves {
                if matches!(mv.promotion, None | Some(Piece::Queen)) {
                    list.push(mv);
                }
            }
            false
        });
        list
    }

    /// Quiet moves (no capture, no promotion, no king move) that give a
    /// direct check, for the first ply of quiescence search.
    pub fn quiet_checks(board: &Board, buffer: Vec<(Move, i32)>) -> Self {
        let mut list = Self::with_buffer(buffer);
        let stm = board.side_to_move();
        let king = board.king(!stm);
        let occupied = board.occupied();
        let bishop = get_bishop_moves(king, occupied);
        let rook = get_rook_moves(king, occupied);
        let promo_rank = cozy_chess::Rank::Eighth.relative_to(stm).bitboard();
        board.generate_moves(|mut moves| {
            moves.to &= !occupied
                & match moves.piece {
                    Piece::Pawn => pawn_attacks(king.bitboard(), !stm) & !promo_rank,
                    Piece::Knight => get_knight_moves(king),
                    Piece::Bishop => bishop,
                    Piece::Rook => rook,
                    Piece::Queen => bishop | rook,
                    Piece::King => BitBoard::EMPTY,
                };
            for mv in moves {
                list.push(mv);
            }
            false
        });
        list
    }

    fn with_buffer(mut moves: Vec<(Move, i32)>) -> Self {
        moves.clear();
        Self { moves, next: 0 }
    }

    /// Gives the buffer back for reuse.
    pub fn into_buffer(self) -> Vec<(Move, i32)> {
        self.moves
    }

    fn push(&mut self, mv: Move) {
        self.moves.push((mv, 0));
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Scores captures by the value they take and the capture history
    /// (for quiescence search).
    pub fn score_captures(&mut self, board: &Board, captures: &CaptureHistory) {
        for entry in &mut self.moves {
            entry.1 = capture_score(board, entry.0, captures);
        }
    }

    /// The best remaining move and its score (selection sort step).
    pub fn pick(&mut self) -> Option<(Move, i32)> {
        if self.next >= self.moves.len() {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.moves.len() {
            if self.moves[i].1 > self.moves[best].1 {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

/// The moves of one node of the main search, best first, in stages: the
/// hash move before anything is generated (it often refutes the node
/// alone), then captures that do not lose material and queen promotions,
/// then quiet moves (scored only when reached), then losing captures.
pub struct MovePicker {
    /// Captures and queen promotions in `moves[..noisy_end]`, quiet moves
    /// (underpromotions included) after them; the hash move is left out.
    moves: Vec<(Move, i32)>,
    noisy_end: usize,
    next_noisy: usize,
    next_quiet: usize,
    hash_move: Option<Move>,
    stage: Stage,
    generated: bool,
    /// The quiet moves left are only checks and underpromotions.
    checks_only: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    HashMove,
    GoodNoisy,
    Quiets,
    BadNoisy,
}

impl MovePicker {
    /// A picker that starts with `hash_move`, which must be legal.
    pub fn new(hash_move: Option<Move>, mut buffer: Vec<(Move, i32)>) -> Self {
        buffer.clear();
        Self {
            moves: buffer,
            noisy_end: 0,
            next_noisy: 0,
            next_quiet: 0,
            hash_move,
            stage: Stage::HashMove,
            generated: false,
            checks_only: false,
        }
    }

    /// Generates the legal moves and scores the captures and queen
    /// promotions, unless already done, and says whether the node has any
    /// legal move.
    pub fn generate(&mut self, board: &Board, captures: &CaptureHistory) -> bool {
        if !self.generated {
            self.generated = true;
            self.generate_split(board);
            for entry in &mut self.moves[..self.noisy_end] {
                entry.1 = noisy_score(board, entry.0, captures);
            }
        }
        self.hash_move.is_some() || !self.moves.is_empty()
    }

    /// Fills `moves` with the captures and queen promotions first.
    fn generate_split(&mut self, board: &Board) {
        let (moves, noisy_end, hash_move) = (&mut self.moves, &mut self.noisy_end, self.hash_move);
        board.generate_moves(|set| {
            for mv in set {
                if Some(mv) == hash_move {
                    continue;
                }
                moves.push((mv, 0));
                if mv.promotion == Some(Piece::Queen) || is_capture(board, mv) {
                    let last = moves.len() - 1;
                    moves.swap(*noisy_end, last);
                    *noisy_end += 1;
                }
            }
            false
        });
    }

    /// The next move and its ordering score. `ctx` is asked for only when
    /// moves are generated and when the quiet moves are scored.
    pub fn next<'c>(
        &mut self,
        board: &Board,
        ctx: impl Fn() -> OrderContext<'c>,
    ) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = Stage::GoodNoisy;
                    if let Some(mv) = self.hash_move {
                        return Some((mv, HASH_MOVE));
                    }
                }
                Stage::GoodNoisy => {
                    self.generate(board, ctx().captures);
                    match select_best(&mut self.moves[self.next_noisy..self.noisy_end]) {
                        Some(entry) if entry.1 >= 0 => {
                            self.next_noisy += 1;
                            return Some(entry);
                        }
                        _ => {
                            self.score_quiets(board, &ctx());
                            self.stage = Stage::Quiets;
                        }
                    }
                }
                Stage::Quiets => {
                    let start = self.noisy_end + self.next_quiet;
                    match select_best(&mut self.moves[start..]) {
                        Some(entry) => {
                            self.next_quiet += 1;
                            return Some(entry);
                        }
                        None => self.stage = Stage::BadNoisy,
                    }
                }
                Stage::BadNoisy => {
                    let entry = select_best(&mut self.moves[self.next_noisy..self.noisy_end])?;
                    self.next_noisy += 1;
                    return Some(entry);
                }
            }
        }
    }

    /// Drops the quiet moves not yet handed out, except those that give
    /// check and underpromotions: the search prunes all the others from
    /// here on. Only has an effect during the quiet stage.
    pub fn keep_only_checking_quiets(&mut self, board: &Board) {
        if self.stage != Stage::Quiets || self.checks_only {
            return;
        }
        self.checks_only = true;
        let first = self.noisy_end + self.next_quiet;
        let mut kept = first;
        for i in first..self.moves.len() {
            let mv = self.moves[i].0;
            if mv.promotion.is_some() || gives_check(board, mv) {
                self.moves.swap(kept, i);
                kept += 1;
            }
        }
        self.moves.truncate(kept);
    }

    fn score_quiets(&mut self, board: &Board, ctx: &OrderContext) {
        for entry in &mut self.moves[self.noisy_end..] {
            let mv = entry.0;
            entry.1 = if Some(mv) == ctx.killers[0] {
                KILLER + 1
            } else if Some(mv) == ctx.killers[1] {
                KILLER
            } else if Some(mv) == ctx.counter {
                COUNTER
            } else {
                ctx.quiet_score(board, mv)
            };
        }
    }

    /// Gives the buffer back for reuse.
    pub fn into_buffer(self) -> Vec<(Move, i32)> {
        self.moves
    }
}

/// Moves the best-scored entry of `moves` to its front and returns it.
fn select_best(moves: &mut [(Move, i32)]) -> Option<(Move, i32)> {
    if moves.is_empty() {
        return None;
    }
    let mut best = 0;
    for i in 1..moves.len() {
        if moves[i].1 > moves[best].1 {
            best = i;
        }
    }
    moves.swap(0, best);
    Some(moves[0])
}

/// A capture's score: winning or even ones (by SEE) before every quiet
/// move, losing ones after; a quiet queen promotion just below the former.
fn noisy_score(board: &Board, mv: Move, captures: &CaptureHistory) -> i32 {
    if !is_capture(board, mv) {
        return QUEEN_PROMOTION;
    }
    let score = capture_score(board, mv, captures);
    if see_ge(board, mv, 0) {
        GOOD_CAPTURE + score
    } else {
        BAD_CAPTURE + score
    }
}

/// Order among captures: most valuable victim first, then the captures of
/// this piece type by this piece on this square that cut off before, then
/// the least valuable attacker.
fn capture_score(board: &Board, mv: Move, captures: &CaptureHistory) -> i32 {
    let attacker = board.piece_on(mv.from).map_or(0, |p| p as i32);
    let promo = mv.promotion.map_or(0, |p| SEE_VALUE[p as usize]);
    (captured_value(board, mv) + promo) * 8 - attacker + captures.get(board, mv) / 4
}

/// True if `mv` captures an enemy piece (including en passant).
pub fn is_capture(board: &Board, mv: Move) -> bool {
    match board.color_on(mv.to) {
        Some(color) => color != board.side_to_move(),
        None => board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file(),
    }
}

/// What the orderer needs to know about the current node.
pub struct OrderContext<'a> {
    pub killers: [Option<Move>; 2],
    pub counter: Option<Move>,
    pub history: &'a History,
    /// The moves played one and two plies earlier (`None` after a null move).
    pub previous: [Option<PieceTo>; 2],
    pub continuation: &'a ContinuationHistory,
    pub captures: &'a CaptureHistory,
}

impl OrderContext<'_> {
    /// Combined history score of a quiet move.
    pub fn quiet_score(&self, board: &Board, mv: Move) -> i32 {
        let mut score = self.history.get(board.side_to_move(), mv);
        if let Some(current) = PieceTo::of(board, mv) {
            for prev in self.previous.iter().flatten() {
                score += self.continuation.get(*prev, current);
            }
        }
        score
    }
}

/// A moved piece (with its colour) and its destination square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo {
    piece: u8,
    to: u8,
}

impl PieceTo {
    /// The piece moved by `mv` on `board`, before the move is played.
    pub fn of(board: &Board, mv: Move) -> Option<Self> {
        let piece = board.piece_on(mv.from)? as u8;
        let color = board.side_to_move() as u8;
        Some(Self {
            piece: piece + 6 * color,
            to: mv.to as u8,
        })
    }

    fn index(self) -> usize {
        usize::from(self.piece) * 64 + usize::from(self.to)
    }
}

/// A history entry `value` after adding `bonus` (clamped to
/// ±[`HISTORY_MAX`]), pulled toward zero in proportion to how full it
/// already is, so that the entry stays within ±[`HISTORY_MAX`].
fn with_gravity(value: i32, bonus: i32) -> i32 {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    value + bonus - value * bonus.abs() / HISTORY_MAX
}

/// [`with_gravity`] for the compact tables, whose entries fit an `i16`.
fn add_with_gravity(entry: &mut i16, bonus: i32) {
    *entry = with_gravity(i32::from(*entry), bonus) as i16;
}

/// Continuation history: how often a quiet move (piece, to) caused a cutoff
/// as a reply to an earlier move (piece, to), with the same gravity as
/// [`History`].
pub struct ContinuationHistory {
    table: Vec<i16>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        Self {
            table: vec![0; 768 * 768],
        }
    }
}

impl ContinuationHistory {
    pub fn get(&self, prev: PieceTo, current: PieceTo) -> i32 {
        i32::from(self.table[prev.index() * 768 + current.index()])
    }

    pub fn update(&mut self, prev: PieceTo, current: PieceTo, bonus: i32) {
        add_with_gravity(&mut self.table[prev.index() * 768 + current.index()], bonus);
    }
}

/// Capture history: how often a capture (moved piece, destination,
/// captured piece type) caused a beta cutoff, with the same gravity as
/// [`History`].
pub struct CaptureHistory {
    table: Vec<i16>,
}

impl Default for CaptureHistory {
    fn default() -> Self {
        Self {
            table: vec![0; 768 * 6],
        }
    }
}

impl CaptureHistory {
    fn index(board: &Board, mv: Move) -> Option<usize> {
        let captured = board.piece_on(mv.to).unwrap_or(Piece::Pawn) as usize;
        PieceTo::of(board, mv).map(|moved| moved.index() * 6 + captured)
    }

    pub fn get(&self, board: &Board, mv: Move) -> i32 {
        Self::index(board, mv).map_or(0, |i| i32::from(self.table[i]))
    }

    pub fn update(&mut self, board: &Board, mv: Move, bonus: i32) {
        if let Some(i) = Self::index(board, mv) {
            add_with_gravity(&mut self.table[i], bonus);
        }
    }
}

/// Butterfly history: how often a quiet move (by side, from, to) caused a
/// beta cutoff, with "gravity" so that scores stay bounded.
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        Self {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl History {
    pub fn get(&self, color: Color, mv: Move) -> i32 {
        self.table[color as usize][mv.from as usize][mv.to as usize]
    }

    /// Adds `bonus` (negative for a malus) with gravity towards zero.
    pub fn update(&mut self, color: Color, mv: Move, bonus: i32) {
        let entry = &mut self.table[color as usize][mv.from as usize][mv.to as usize];
        *entry = with_gravity(*entry, bonus);
    }
}

/// Countermove table: the quiet reply that refuted a move, by its from/to.
pub struct CounterMoves {
    table: Box<[[Option<Move>; 64]; 64]>,
}

impl Default for CounterMoves {
    fn default() -> Self {
        Self {
            table: Box::new([[None; 64]; 64]),
        }
    }
}

impl CounterMoves {
    pub fn get(&self, prev: Move) -> Option<Move> {
        self.table[prev.from as usize][prev.to as usize]
    }

    pub fn set(&mut self, prev: Move, reply: Move) {
        self.table[prev.from as usize][prev.to as usize] = Some(reply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::engine::perft::perft;

    #[test]
    fn noisy_moves_are_captures_and_queen_promotions() {
        let board: Board = "r3k3/1P6/8/3p4/4P3/8/8/4K3 w - - 0 1".parse().unwrap();
        let mut list = MoveList::noisy(&board, Vec::new());
        let mut found = Vec::new();
        while let Some((mv, _)) = list.pick() {
            found.push(mv.to_string());
        }
        found.sort();
        assert_eq!(found, ["b7a8q", "b7b8q", "e4d5"]);
    }

    #[test]
    fn quiet_checks_are_direct_checks() {
        let board: Board = "4k3/8/3P4/8/4N3/8/8/R3K3 w Q - 0 1".parse().unwrap();
        let mut list = MoveList::quiet_checks(&board, Vec::new());
        let mut found = Vec::new();
        while let Some((mv, _)) = list.pick() {
            found.push(mv.to_string());
        }
        found.sort();
        assert_eq!(found, ["a1a8", "d6d7", "e4f6"]);
    }

    /// History tables for an order context.
    #[derive(Default)]
    struct Tables {
        history: History,
        continuation: ContinuationHistory,
        captures: CaptureHistory,
    }

    impl Tables {
        fn context(&self, killers: [Option<Move>; 2]) -> OrderContext<'_> {
            OrderContext {
                killers,
                counter: None,
                history: &self.history,
                previous: [None; 2],
                continuation: &self.continuation,
                captures: &self.captures,
            }
        }
    }

    #[test]
    fn move_picker_hands_out_the_hash_move_before_generating_and_never_twice() {
        let board: Board = "4k3/8/8/3q4/4P3/8/8/4K2R w K - 0 1".parse().unwrap();
        let hash: Move = "h1h8".parse().unwrap();
        let mut picker = MovePicker::new(Some(hash), Vec::new());
        let first = picker.next(&board, || -> OrderContext {
            panic!("generated for the hash move")
        });
        assert_eq!(first, Some((hash, HASH_MOVE)));
        let tables = Tables::default();
        let mut rest = Vec::new();
        while let Some((mv, _)) = picker.next(&board, || tables.context([None; 2])) {
            rest.push(mv);
        }
        assert_eq!(
            rest[0],
            "e4d5".parse::<Move>().unwrap(),
            "winning capture after the hash move"
        );
        assert!(!rest.contains(&hash));
        assert_eq!(rest.len() as u64 + 1, perft(&board, 1));
    }

    #[test]
    fn move_picker_without_moves_reports_none() {
        let stalemate: Board = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
        let tables = Tables::default();
        let mut picker = MovePicker::new(None, Vec::new());
        assert!(!picker.generate(&stalemate, &tables.captures));
        assert_eq!(picker.next(&stalemate, || tables.context([None; 2])), None);
    }

    #[test]
    fn move_picker_stages_good_captures_killers_history_then_bad_captures() {
        // Bxd5 wins a pawn; Qxc6 loses the queen to the b7 pawn.
        let board: Board = "4k3/1p6/2n5/3p4/8/5B2/8/2Q1K3 w - - 0 1".parse().unwrap();
        let mut tables = Tables::default();
        let killer: Move = "e1d1".parse().unwrap();
        let liked: Move = "c1g5".parse().unwrap();
        let disliked: Move = "c1h6".parse().unwrap();
        for _ in 0..20 {
            tables.history.update(Color::White, liked, 2_000);
            tables.history.update(Color::White, disliked, -2_000);
        }
        let mut picker = MovePicker::new(None, Vec::new());
        let mut order = Vec::new();
        while let Some((mv, _)) = picker.next(&board, || tables.context([Some(killer), None])) {
            order.push(mv.to_string());
        }
        let at = |mv: &str| order.iter().position(|m| m == mv).unwrap();
        assert_eq!(&order[..3], ["f3d5", "e1d1", "c1g5"], "{order:?}");
        assert!(at("c1h6") > at("c1c2"), "{order:?}");
        assert_eq!(order.last().unwrap(), "c1c6", "{order:?}");
        assert_eq!(order.len() as u64, perft(&board, 1));
    }

    #[test]
    fn move_picker_can_drop_the_quiet_moves_that_do_not_check() {
        // After a8=Q and the killer Kd2, only Rb8+ and the underpromotions
        // are left.
        let board: Board = "4k3/P7/8/8/8/8/8/1R2K3 w - - 0 1".parse().unwrap();
        let killer: Move = "e1d2".parse().unwrap();
        let tables = Tables::default();
        let mut picker = MovePicker::new(None, Vec::new());
        let mut order = Vec::new();
        while let Some((mv, _)) = picker.next(&board, || tables.context([Some(killer), None])) {
            if order.len() == 2 {
                picker.keep_only_checking_quiets(&board);
            }
            order.push(mv.to_string());
        }
        let mut after: Vec<&str> = order[2..].iter().map(String::as_str).collect();
        after.sort();
        assert_eq!(&order[..2], ["a7a8q", "e1d2"]);
        assert_eq!(after, ["a7a8b", "a7a8n", "a7a8r", "b1b8"]);
    }

    #[test]
    fn capture_history_reorders_captures_of_equal_value() {
        // The knight on c3 and the bishop on g2 can both take the pawn on e4.
        let board: Board = "4k3/8/8/8/4p3/2N5/6B1/4K3 w - - 0 1".parse().unwrap();
        let by_knight: Move = "c3e4".parse().unwrap();
        let by_bishop: Move = "g2e4".parse().unwrap();
        let first = |captures: &CaptureHistory| {
            let mut list = MoveList::noisy(&board, Vec::new());
            list.score_captures(&board, captures);
            list.pick().unwrap().0
        };
        let mut captures = CaptureHistory::default();
        assert_eq!(first(&captures), by_knight, "least valuable attacker first");
        for _ in 0..10 {
            captures.update(&board, by_bishop, 1_600);
            captures.update(&board, by_knight, -1_600);
        }
        assert_eq!(first(&captures), by_bishop);
    }

    #[test]
    fn continuation_history_rewards_the_reply() {
        let board = Board::default();
        let mut cont = ContinuationHistory::default();
        let e4: Move = "e2e4".parse().unwrap();
        let nf3: Move = "g1f3".parse().unwrap();
        let prev = PieceTo::of(&board, e4).unwrap();
        let reply = PieceTo::of(&board, nf3).unwrap();
        for _ in 0..100 {
            cont.update(prev, reply, 2000);
        }
        let score = cont.get(prev, reply);
        assert!(score > 10_000 && score <= HISTORY_MAX, "{score}");
        assert_eq!(cont.get(reply, prev), 0);
    }

    #[test]
    fn history_stays_bounded() {
        let mut h = History::default();
        let mv: Move = "e2e4".parse().unwrap();
        for _ in 0..1000 {
            h.update(Color::White, mv, 5000);
        }
        assert!(h.get(Color::White, mv) <= HISTORY_MAX);
    }
}
