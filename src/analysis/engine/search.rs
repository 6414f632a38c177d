//! One search thread: principal variation search with quiescence, using the
//! shared transposition table.
//!
//! Pruning and reductions: mate distance pruning, reverse futility pruning,
//! null move pruning, internal iterative reduction, late move pruning,
//! futility pruning, SEE pruning and late move reductions.
//! Checks, mate threats (a null move that gets mated) and singular hash
//! moves extend the search by one ply, clearly singular ones outside PV
//! nodes by two. Pruning works on the static evaluation corrected by
//! [`CorrectionHistory`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use cozy_chess::{Board, Move, Piece};

use super::check::gives_check;
use super::correction::{CorrectionHistory, Slots};
use super::draw::{insufficient_material, is_repetition};
use super::evaluator::Evaluator;
use super::ordering::{
    is_capture, CaptureHistory, ContinuationHistory, CounterMoves, History, MoveList, MovePicker,
    OrderContext, PieceTo, CAPACITY, KILLER,
};
use super::score::{from_tt, is_mate, mate_in, mated_in, to_tt, DRAW, INFINITE, MATE_BOUND};
use super::see::{captured_value, see_ge, threatens_bigger};
use super::time::SearchLimits;
use super::tt::{Bound, TranspositionTable};

/// Reverse futility pruning: a node at depth 8 or less whose evaluation
/// beats beta by this much per ply fails high without a search.
const REVERSE_FUTILITY_MARGIN: i32 = 120;

/// Quiet moves that lose more than this times the depth by exchange are
/// pruned at depth 6 and below.
const SEE_QUIET_MARGIN: i32 = 50;
/// Captures that lose more than this times the depth by exchange are
/// pruned at depth 6 and below. A rook for a pawn (−400) is still searched
/// from depth 2 on: exchange sacrifices are much of what tactics are made of.
const SEE_CAPTURE_MARGIN: i32 = 200;

/// Shallowest depth at which ProbCut is tried.
const PROBCUT_DEPTH: i32 = 5;
/// How far above beta a capture must score in ProbCut's shallow search.
const PROBCUT_MARGIN: i32 = 200;
/// How much shallower ProbCut searches.
const PROBCUT_REDUCTION: i32 = 4;

/// Shallowest depth at which the hash move is tested for singularity.
const SINGULAR_DEPTH: i32 = 8;
/// A singular hash move whose alternatives fall this far below the
/// singular bound is extended by two plies instead of one (outside PV nodes).
const DOUBLE_EXTENSION_MARGIN: i32 = 25;
/// Most double extensions on one path, so that they cannot grow it forever.
const MAX_DOUBLE_EXTENSIONS: u8 = 8;

/// Deepest ply the search can reach (including extensions and quiescence).
pub const MAX_PLY: usize = 128;

/// State shared by all threads of one search.
pub struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    pub stop: &'a AtomicBool,
    /// Nodes searched by all threads, updated every few thousand nodes.
    pub nodes: AtomicU64,
    pub start: Instant,
    pub limits: &'a SearchLimits,
}

#[derive(Clone, Copy, Default)]
struct Frame {
    /// Static evaluation at this ply (`-INFINITE` when in check).
    eval: i32,
    /// Move played from this ply; `None` for a null move.
    mv: Option<Move>,
    /// Piece and destination of `mv`, for the continuation history.
    moved: Option<PieceTo>,
    killers: [Option<Move>; 2],
    /// Move left out of this ply's search (the singular extension test).
    excluded: Option<Move>,
    /// Double extensions on the path from the root to this ply.
    double_extensions: u8,
}

/// What one search thread learns about the game beyond the hash table:
/// move-ordering statistics and the evaluation's correction. Kept between
/// the searches of one game, one per thread.
#[derive(Default)]
pub struct Heuristics {
    history: History,
    continuation: ContinuationHistory,
    counters: CounterMoves,
    captures: CaptureHistory,
    correction: CorrectionHistory,
}

/// Per-thread search state.
pub struct Searcher<'a> {
    pub shared: &'a Shared<'a>,
    /// Thread index; thread 0 is the main thread that owns the clock.
    pub id: usize,
    pub nodes: u64,
    flushed: u64,
    pub seldepth: usize,
    pub stopped: bool,
    /// False while the main thread must finish its first iteration.
    pub can_stop: bool,
    /// Position keys of the game and of the current search path.
    keys: Vec<u64>,
    frames: Vec<Frame>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    heuristics: Heuristics,
    evaluator: Evaluator,
    /// Recycled move-list and quiet-move buffers, one per ply.
    buffers: Vec<Vec<(Move, i32)>>,
    quiet_buffers: Vec<Vec<Move>>,
    capture_buffers: Vec<Vec<Move>>,
    /// Root moves to skip (those already reported for earlier MultiPV lines).
    pub root_excluded: Vec<Move>,
    /// Score of the root move that last raised alpha (the head of `root_pv`).
    pub root_score: i32,
    /// Nodes searched under each root move since the last [`Self::clear_root_nodes`]
    /// (main thread only: helpers leave it empty).
    root_nodes: Vec<(Move, u64)>,
    lmr: Box<[[i32; 64]; 64]>,
}

impl<'a> Searcher<'a> {
    /// A searcher for `root`, reached after the positions keyed in `game`.
    pub fn new(
        shared: &'a Shared<'a>,
        id: usize,
        game: &[u64],
        root: &Board,
        heuristics: Heuristics,
    ) -> Self {
        let mut keys = Vec::with_capacity(game.len() + MAX_PLY + 1);
        keys.extend_from_slice(game);
        keys.push(root.hash());
        let mut lmr = Box::new([[0; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
            }
        }
        Self {
            shared,
            id,
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            stopped: false,
            can_stop: true,
            keys,
            frames: vec![Frame::default(); MAX_PLY + 2],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            heuristics,
            evaluator: Evaluator::new(root, shared.limits.nnue),
            buffers: (0..=MAX_PLY)
                .map(|_| Vec::with_capacity(CAPACITY))
                .collect(),
            quiet_buffers: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            capture_buffers: (0..=MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            root_excluded: Vec::new(),
            root_score: 0,
            root_nodes: Vec::new(),
            lmr,
        }
    }

    /// Ends the search, handing back what it learned for the next one.
    pub fn into_heuristics(self) -> Heuristics {
        self.heuristics
    }

    /// The principal variation of the last root search.
    pub fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// Forgets the node counts of the root moves (before a new iteration).
    pub fn clear_root_nodes(&mut self) {
        self.root_nodes.clear();
    }

    /// Share of the root nodes counted since [`Self::clear_root_nodes`] that
    /// went to `mv`, from 0 to 1.
    pub fn root_node_share(&self, mv: Move) -> f64 {
        let total: u64 = self.root_nodes.iter().map(|&(_, n)| n).sum();
        let ours = self
            .root_nodes
            .iter()
            .find(|&&(m, _)| m == mv)
            .map_or(0, |&(_, n)| n);
        ours as f64 / total.max(1) as f64
    }

    fn count_root_nodes(&mut self, mv: Move, nodes: u64) {
        match self.root_nodes.iter_mut().find(|(m, _)| *m == mv) {
            Some((_, n)) => *n += nodes,
            None => self.root_nodes.push((mv, nodes)),
        }
    }

    /// Adds this thread's uncounted nodes to the shared total.
    pub fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// Counts a node and says whether the search must stop. The shared stop
    /// flag is read at every node (one relaxed load), so a `stop` is obeyed
    /// at once however slow the nodes are (a debug build, a busy machine);
    /// the clock and the node budget are checked every 256 nodes.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        let poll_budget = self.nodes & 255 == 0;
        if poll_budget {
            self.flush_nodes();
        }
        if self.can_stop && !self.stopped {
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            } else if poll_budget && self.id == 0 && self.out_of_budget() {
                self.shared.stop.store(true, Ordering::Relaxed);
                self.stopped = true;
            }
        }
        self.stopped
    }

    fn out_of_budget(&self) -> bool {
        let limits = self.shared.limits;
        limits
            .hard
            .is_some_and(|hard| self.shared.start.elapsed() >= hard)
            || limits
                .nodes
                .is_some_and(|n| self.shared.nodes.load(Ordering::Relaxed) >= n)
    }

    fn is_draw(&self, board: &Board) -> bool {
        board.halfmove_clock() >= 100
            || insufficient_material(board)
            || is_repetition(&self.keys, board.halfmove_clock())
    }

    /// Principal variation search of `board` to `depth` plies.
    pub fn negamax(
        &mut self,
        board: &Board,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if depth <= 0 {
            return self.qsearch(board, alpha, beta, ply, true);
        }
        if self.tick() {
            return 0;
        }
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        let in_check = !board.checkers().is_empty();
        self.seldepth = self.seldepth.max(ply);
        if !root {
            if self.is_draw(board) && !(in_check && board.halfmove_clock() >= 100) {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check {
                    DRAW
                } else {
                    self.evaluator.evaluate(board, ply)
                };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        let key = board.hash();
        let excluded = self.frames[ply].excluded;
        let entry = self.shared.tt.probe(key);
        let tt_move = entry.and_then(|e| e.mv).filter(|&mv| board.is_legal(mv));
        if let Some(e) = entry.filter(|_| excluded.is_none()) {
            let score = from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if !pv_node && e.depth >= depth && usable {
                return score;
            }
        }

        // The table keeps the evaluation as written; pruning uses it corrected.
        let slots = (!in_check).then(|| Slots::of(board));
        let raw_eval = match entry {
            _ if in_check => -INFINITE,
            Some(e) => e.eval,
            None => self.evaluator.evaluate(board, ply),
        };
        let static_eval = self.corrected(slots, raw_eval);
        self.frames[ply].eval = static_eval;
        // A hash score bounded on the right side is a better guess than the
        // static evaluation for pruning.
        let eval = match entry.map(|e| (from_tt(e.score, ply), e.bound)) {
            Some((score, bound)) if !in_check && excluded.is_none() && !is_mate(score) => {
                match bound {
                    Bound::Exact => score,
                    Bound::Lower => score.max(static_eval),
                    Bound::Upper => score.min(static_eval),
                }
            }
            _ => static_eval,
        };
        self.frames[ply + 1].killers = [None; 2];
        // For the null move and ProbCut searches; the move loop below sets
        // it again for each move it extends or not.
        self.frames[ply + 1].double_extensions = self.frames[ply].double_extensions;
        let improving = !in_check && ply >= 2 && static_eval > self.frames[ply - 2].eval;

        // Set when the null move search below is mated: the opponent
        // threatens mate, and this node is searched a ply deeper.
        let mut mate_threat = false;
        if !pv_node && !in_check && !root {
            // Reverse futility pruning.
            let margin = REVERSE_FUTILITY_MARGIN * (depth - i32::from(improving));
            if depth <= 8 && eval - margin >= beta && !is_mate(beta) {
                return eval;
            }
            // Null move pruning.
            if depth >= 3
                && excluded.is_none()
                && eval >= beta
                && self.frames[ply - 1].mv.is_some()
                && has_pieces(board)
            {
                if let Some(child) = board.null_move() {
                    self.evaluator.play(ply + 1, board, &child);
                    let r = 3 + depth / 3 + ((eval - beta) / 200).min(3);
                    self.frames[ply].mv = None;
                    self.frames[ply].moved = None;
                    self.keys.push(child.hash());
                    let score =
                        -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut_node);
                    self.keys.pop();
                    if self.stopped {
                        return 0;
                    }
                    if score >= beta {
                        return if is_mate(score) { beta } else { score };
                    }
                    mate_threat = score <= -MATE_BOUND;
                }
            }
        }

        if !pv_node && !in_check && excluded.is_none() && depth >= PROBCUT_DEPTH {
            if let Some(score) = self.probcut(
                board,
                entry,
                raw_eval,
                static_eval,
                depth,
                beta,
                ply,
                cut_node,
            ) {
                return score;
            }
            if self.stopped {
                return 0;
            }
        }

        let depth = depth + i32::from(mate_threat);
        // Internal iterative reduction: without a hash move, search shallower.
        let depth =
            if tt_move.is_none() && excluded.is_none() && depth >= 4 && (pv_node || cut_node) {
                depth - 1
            } else {
                depth
            };

        let mut moves = MovePicker::new(tt_move, std::mem::take(&mut self.buffers[ply]));
        if tt_move.is_none() && !moves.generate(board, &self.heuristics.captures) {
            self.buffers[ply] = moves.into_buffer();
            return if in_check { mated_in(ply) } else { DRAW };
        }

        let mut best_score = -INFINITE;
        let mut best_move = None;
        let mut bound = Bound::Upper;
        let mut searched = 0usize;
        let mut quiets = std::mem::take(&mut self.quiet_buffers[ply]);
        quiets.clear();
        let mut captures = std::mem::take(&mut self.capture_buffers[ply]);
        captures.clear();
        let lmp_limit = (3 + depth * depth) as usize / if improving { 1 } else { 2 };

        while let Some((mv, order)) = moves.next(board, || self.order_context(ply)) {
            if (root && self.root_excluded.contains(&mv)) || Some(mv) == excluded {
                continue;
            }
            let capture = is_capture(board, mv);
            let quiet = !capture && mv.promotion.is_none();
            let gives_check = gives_check(board, mv);
            // Shallow pruning of moves that neither check nor are likely to
            // matter; never before one move has been searched.
            if !root && !gives_check && best_score > -MATE_BOUND {
                if quiet {
                    // Late move and futility pruning: each would prune every
                    // later quiet move too (the move count and alpha only
                    // grow), so the picker drops those that do not check.
                    let late = !pv_node && !in_check && depth <= 6 && quiets.len() >= lmp_limit;
                    let futile = !in_check && depth <= 6 && eval + 100 + 80 * depth <= alpha;
                    if late || futile {
                        moves.keep_only_checking_quiets(board);
                        continue;
                    }
                    if depth <= 6 && !see_ge(board, mv, -SEE_QUIET_MARGIN * depth) {
                        continue;
                    }
                } else if depth <= 6 && !see_ge(board, mv, -SEE_CAPTURE_MARGIN * depth) {
                    continue;
                }
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.shared.tt.prefetch(child.hash());
            let mut extension = i32::from(gives_check);
            if !root && Some(mv) == tt_move && excluded.is_none() && depth >= SINGULAR_DEPTH {
                match self.singularity(board, entry, depth, beta, ply, cut_node) {
                    Singularity::Singular { margin } => {
                        let double = !pv_node
                            && margin > DOUBLE_EXTENSION_MARGIN
                            && self.frames[ply].double_extensions < MAX_DOUBLE_EXTENSIONS;
                        extension = 1 + i32::from(double);
                    }
                    Singularity::MultiCut(score) => {
                        self.buffers[ply] = moves.into_buffer();
                        self.quiet_buffers[ply] = quiets;
                        self.capture_buffers[ply] = captures;
                        return score;
                    }
                    Singularity::Doubtful => extension -= 1,
                    Singularity::Untested => {}
                }
                if self.stopped {
                    break;
                }
            }
            // After the singular test, which searches other moves from here.
            self.evaluator.play(ply + 1, board, &child);
            self.frames[ply].mv = Some(mv);
            self.frames[ply].moved = PieceTo::of(board, mv);
            self.keys.push(child.hash());
            searched += 1;
            if quiet {
                quiets.push(mv);
            } else if capture {
                captures.push(mv);
            }
            let new_depth = depth - 1 + extension;
            self.frames[ply + 1].double_extensions =
                self.frames[ply].double_extensions + u8::from(extension > 1);
            let nodes_before = self.nodes;

            let score = if searched == 1 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false)
            } else {
                let mut r = 0;
                // Late quiet moves, losing captures and underpromotions are
                // reduced, except captures that give check (sacrifices).
                // A move that leaves its piece attacking a bigger one is
                // reduced a ply less: the threat is often the point of a
                // sacrifice.
                let reducible = quiet || (order < 0 && !gives_check);
                if depth >= 3 && searched > 1 + usize::from(pv_node) && reducible {
                    r = self.lmr[depth.min(63) as usize][searched.min(63)];
                    r += i32::from(!improving) + i32::from(cut_node) - i32::from(pv_node);
                    r -= i32::from(gives_check) + i32::from(order >= KILLER);
                    if quiet {
                        r -= order / 12_000;
                    }
                    r -= i32::from(threatens_bigger(&child, mv));
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && r > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false);
                }
                s
            };
            self.keys.pop();
            // Only the main thread's time manager reads the root node counts.
            if root && self.id == 0 {
                self.count_root_nodes(mv, self.nodes - nodes_before);
            }
            if self.stopped {
                break;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    bound = Bound::Exact;
                    self.update_pv(ply, mv);
                    if root {
                        self.root_score = score;
                    }
                    if score >= beta {
                        bound = Bound::Lower;
                        if quiet {
                            self.reward_quiet(board, ply, mv, &quiets, depth);
                        }
                        self.reward_capture(board, mv, &captures, depth);
                        break;
                    }
                }
            }
        }

        self.buffers[ply] = moves.into_buffer();
        self.quiet_buffers[ply] = quiets;
        self.capture_buffers[ply] = captures;
        if self.stopped {
            return 0;
        }
        if excluded.is_some() {
            // Every other move was pruned: no evidence against singularity.
            return if searched == 0 { alpha } else { best_score };
        }
        if !root || self.root_excluded.is_empty() {
            self.shared.tt.store(
                key,
                best_move,
                to_tt(best_score, ply),
                raw_eval,
                depth,
                bound,
            );
        }
        // Learn from a score that says where the true value is relative to the
        // static evaluation, unless a capture or promotion explains the gap.
        let tactical = best_move.is_some_and(|mv| is_capture(board, mv) || mv.promotion.is_some());
        let informative = match bound {
            Bound::Exact => true,
            Bound::Lower => best_score > static_eval,
            Bound::Upper => best_score < static_eval,
        };
        if let Some(slots) = slots.filter(|_| !tactical && informative && !is_mate(best_score)) {
            self.heuristics
                .correction
                .update(slots, raw_eval, best_score, depth);
        }
        best_score
    }

    /// Singular extension test of the hash move: searches every other move
    /// at half depth against a bound a little below the hash score. If none
    /// reaches it, the hash move is singular (extended); if the bound is
    /// above `beta` and another move reaches it, this node fails high
    /// already (multi-cut).
    fn singularity(
        &mut self,
        board: &Board,
        entry: Option<super::tt::Entry>,
        depth: i32,
        beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> Singularity {
        let Some(e) = entry else {
            return Singularity::Untested;
        };
        let tt_score = from_tt(e.score, ply);
        if e.depth < depth - 3 || e.bound == Bound::Upper || is_mate(tt_score) {
            return Singularity::Untested;
        }
        let singular_beta = tt_score - 2 * depth;
        self.frames[ply].excluded = e.mv;
        let score = self.negamax(
            board,
            (depth - 1) / 2,
            singular_beta - 1,
            singular_beta,
            ply,
            cut_node,
        );
        self.frames[ply].excluded = None;
        self.pv_len[ply] = 0;
        if score < singular_beta {
            Singularity::Singular {
                margin: singular_beta - score,
            }
        } else if singular_beta >= beta {
            Singularity::MultiCut(singular_beta)
        } else if tt_score >= beta {
            Singularity::Doubtful
        } else {
            Singularity::Untested
        }
    }

    /// ProbCut: a capture that beats `beta` by a margin in a search
    /// [`PROBCUT_REDUCTION`] plies shallower almost surely beats `beta` at
    /// full depth, so the node fails high without a full search. Captures
    /// that cannot win enough by exchange alone are not tried, nor is the
    /// test when the hash already says the margin will not be reached.
    #[allow(clippy::too_many_arguments)]
    fn probcut(
        &mut self,
        board: &Board,
        entry: Option<super::tt::Entry>,
        raw_eval: i32,
        static_eval: i32,
        depth: i32,
        beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> Option<i32> {
        let probcut_beta = beta + PROBCUT_MARGIN;
        if is_mate(beta) {
            return None;
        }
        if let Some(e) = entry {
            if e.depth >= depth - (PROBCUT_REDUCTION - 1) && from_tt(e.score, ply) < probcut_beta {
                return None;
            }
        }
        let mut list = MoveList::noisy(board, std::mem::take(&mut self.buffers[ply]));
        list.score_captures(board, &self.heuristics.captures);
        let mut result = None;
        while let Some((mv, _)) = list.pick() {
            if !see_ge(board, mv, probcut_beta - static_eval) {
                continue;
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.evaluator.play(ply + 1, board, &child);
            self.frames[ply].mv = Some(mv);
            self.frames[ply].moved = PieceTo::of(board, mv);
            self.keys.push(child.hash());
            let mut score = -self.qsearch(&child, -probcut_beta, -probcut_beta + 1, ply + 1, false);
            if score >= probcut_beta {
                score = -self.negamax(
                    &child,
                    depth - PROBCUT_REDUCTION,
                    -probcut_beta,
                    -probcut_beta + 1,
                    ply + 1,
                    !cut_node,
                );
            }
            self.keys.pop();
            if self.stopped {
                break;
            }
            if score >= probcut_beta {
                self.shared.tt.store(
                    board.hash(),
                    Some(mv),
                    to_tt(score, ply),
                    raw_eval,
                    depth - (PROBCUT_REDUCTION - 1),
                    Bound::Lower,
                );
                result = Some(score);
                break;
            }
        }
        self.buffers[ply] = list.into_buffer();
        result
    }

    /// The static evaluation that pruning and stand pat use: `raw` corrected
    /// by the correction history, or `raw` itself (`-INFINITE`) in check,
    /// where there are no `slots`.
    fn corrected(&self, slots: Option<Slots>, raw: i32) -> i32 {
        slots.map_or(raw, |slots| self.heuristics.correction.correct(slots, raw))
    }

    /// What move ordering needs to know about the node at `ply`.
    fn order_context(&self, ply: usize) -> OrderContext<'_> {
        let prev = ply.checked_sub(1).and_then(|p| self.frames[p].mv);
        OrderContext {
            killers: self.frames[ply].killers,
            counter: prev.and_then(|p| self.heuristics.counters.get(p)),
            history: &self.heuristics.history,
            previous: self.previous_moves(ply),
            continuation: &self.heuristics.continuation,
            captures: &self.heuristics.captures,
        }
    }

    /// The moves played one and two plies before `ply`.
    fn previous_moves(&self, ply: usize) -> [Option<PieceTo>; 2] {
        [
            ply.checked_sub(1).and_then(|p| self.frames[p].moved),
            ply.checked_sub(2).and_then(|p| self.frames[p].moved),
        ]
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = if ply < MAX_PLY {
            self.pv_len[ply + 1]
        } else {
            0
        };
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = Some(mv);
        if child_len > 0 {
            head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Killer, countermove and history updates after a quiet beta cutoff:
    /// `mv` gets a bonus and the quiet moves tried before it a malus.
    fn reward_quiet(&mut self, board: &Board, ply: usize, mv: Move, quiets: &[Move], depth: i32) {
        let prev = ply.checked_sub(1).and_then(|p| self.frames[p].mv);
        let previous = self.previous_moves(ply);
        let killers = &mut self.frames[ply].killers;
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        if let Some(prev) = prev {
            self.heuristics.counters.set(prev, mv);
        }
        let stm = board.side_to_move();
        let bonus = history_bonus(depth);
        for &q in quiets {
            let b = if q == mv { bonus } else { -bonus };
            self.heuristics.history.update(stm, q, b);
            if let Some(current) = PieceTo::of(board, q) {
                for p in previous.iter().flatten() {
                    self.heuristics.continuation.update(*p, current, b);
                }
            }
        }
    }

    /// Capture history updates after a beta cutoff by `best`: it gets a
    /// bonus if it is a capture, and the captures tried before it a malus.
    fn reward_capture(&mut self, board: &Board, best: Move, captures: &[Move], depth: i32) {
        let bonus = history_bonus(depth);
        for &c in captures {
            let b = if c == best { bonus } else { -bonus };
            self.heuristics.captures.update(board, c, b);
        }
    }

    /// Quiescence search: captures and queen promotions until the position
    /// is quiet, then (with `checks`, at its first ply) quiet direct checks
    /// that do not lose material; all evasions when in check.
    fn qsearch(
        &mut self,
        board: &Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        checks: bool,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = !board.checkers().is_empty();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluator.evaluate(board, ply)
            };
        }
        let key = board.hash();
        let entry = self.shared.tt.probe(key);
        if let Some(e) = entry {
            let score = from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if beta - alpha == 1 && usable {
                return score;
            }
        }

        let raw_eval = if in_check {
            -INFINITE
        } else {
            match entry {
                Some(e) => e.eval,
                None => self.evaluator.evaluate(board, ply),
            }
        };
        let stand_pat = self.corrected((!in_check).then(|| Slots::of(board)), raw_eval);
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);

        let buffer = std::mem::take(&mut self.buffers[ply]);
        let mut list = if in_check {
            MoveList::legal(board, buffer)
        } else {
            MoveList::noisy(board, buffer)
        };
        if in_check && list.is_empty() {
            self.buffers[ply] = list.into_buffer();
            return mated_in(ply);
        }
        list.score_captures(board, &self.heuristics.captures);
        let mut best_score = stand_pat;
        let mut best_move = None;
        let mut checks = checks && !in_check;
        loop {
            let Some((mv, _)) = list.pick() else {
                if !checks {
                    break;
                }
                // Captures are done: now the quiet checks.
                checks = false;
                list = MoveList::quiet_checks(board, list.into_buffer());
                continue;
            };
            if !in_check {
                let gain = captured_value(board, mv) + if mv.promotion.is_some() { 800 } else { 0 };
                if stand_pat + gain + 200 <= alpha || !see_ge(board, mv, 0) {
                    continue;
                }
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.shared.tt.prefetch(child.hash());
            self.evaluator.play(ply + 1, board, &child);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
                break;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = list.into_buffer();
        if self.stopped {
            return 0;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        self.shared
            .tt
            .store(key, best_move, to_tt(best_score, ply), raw_eval, 0, bound);
        best_score
    }
}

/// History bonus (or malus) for a cutoff found at `depth`.
fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16).min(1_600)
}

/// Outcome of [`Searcher::singularity`].
enum Singularity {
    /// Not tested, or no conclusion.
    Untested,
    /// Only the hash move holds the score, the others falling `margin`
    /// short of the singular bound: extend it.
    Singular { margin: i32 },
    /// Another move also beats `beta`: the node fails high with this score.
    MultiCut(i32),
    /// The hash move is expected to fail high but is not singular: reduce it.
    Doubtful,
}

/// True if the side to move has a piece other than pawns and king (null move
/// pruning is unsound in pawn endings because of zugzwang).
fn has_pieces(board: &Board) -> bool {
    let ours = board.colors(board.side_to_move());
    !(ours & !(board.pieces(Piece::Pawn) | board.pieces(Piece::King))).is_empty()
}
