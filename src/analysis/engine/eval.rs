//! Static evaluation: tapered material and piece-square tables plus
//! mobility, pawn structure, outposts, rooks on open files, bishop pair,
//! king safety and threats.
//!
//! The weights live in [`super::weights`]; `training/engine-tuning/features.py`
//! mirrors this file term for term, so a change here must be made there too
//! (`training/engine-tuning/tune.py --check` compares the two).
//!
//! [`evaluate`] returns centipawns from the side to move's point of view.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_rook_moves, BitBoard, Board, Color,
    File, Piece, Rank, Square,
};

use super::weights::{
    BACKWARD, BISHOP_PAIR, CONNECTED, DOUBLED, HANGING, ISOLATED, KING_DANGER, MOBILITY_BISHOP,
    MOBILITY_KNIGHT, MOBILITY_QUEEN, MOBILITY_ROOK, OUTPOST_BISHOP, OUTPOST_KNIGHT, PASSED,
    PASSER_FREE, PASSER_KING_OURS, PASSER_KING_THEIRS, PASSER_SAFE_STOP, PIECE_VALUE, PST,
    ROOK_OPEN, ROOK_SEMI_OPEN, SHIELD_MISSING, TEMPO, THREAT_BY_MINOR, THREAT_BY_PAWN,
    THREAT_BY_ROOK, UNSTOPPABLE,
};

/// A middlegame/endgame score pair.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Term {
    mg: i32,
    eg: i32,
}

/// Shorthand for [`Term`]s in the weight tables.
pub const fn s(mg: i32, eg: i32) -> Term {
    Term { mg, eg }
}

impl Term {
    fn add(&mut self, other: Term) {
        self.mg += other.mg;
        self.eg += other.eg;
    }

    fn add_scaled(&mut self, other: Term, n: i32) {
        self.mg += other.mg * n;
        self.eg += other.eg * n;
    }
}

const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;
/// King-zone attack units by attacker [`Piece`] index.
const KING_ATTACK_WEIGHT: [usize; 6] = [0, 2, 2, 3, 5, 0];
/// Attack units for a safe check by attacker [`Piece`] index (once per kind).
pub const SAFE_CHECK_WEIGHT: [usize; 6] = [0, 6, 4, 7, 6, 0];
/// Attack units for each weak square next to the enemy king: one the
/// attacker reaches and that only the king or queen defend.
const WEAK_ZONE_WEIGHT: usize = 2;

/// What the evaluation takes from the pawns alone, so that it can be
/// cached by pawn structure ([`super::pawn_cache`]).
#[derive(Clone, Copy, Default)]
pub struct PawnInfo {
    /// Isolated, doubled, backward, connected and passed-pawn terms,
    /// White's minus Black's.
    structure: Term,
    /// Passed pawns by [`Color`] index.
    passed: [BitBoard; 2],
    /// Outpost squares by [`Color`] index: on the fourth to sixth rank,
    /// defended by a pawn and out of reach of every enemy pawn.
    outposts: [BitBoard; 2],
}

impl PawnInfo {
    pub fn of(board: &Board) -> Self {
        let white = board.colored_pieces(Color::White, Piece::Pawn);
        let black = board.colored_pieces(Color::Black, Piece::Pawn);
        let passed = [
            passed_pawns(white, black, Color::White),
            passed_pawns(black, white, Color::Black),
        ];
        let mut structure = pawn_structure(white, black, passed[0], Color::White);
        structure.add_scaled(pawn_structure(black, white, passed[1], Color::Black), -1);
        let outposts = [
            outposts(white, black, Color::White),
            outposts(black, white, Color::Black),
        ];
        Self {
            structure,
            passed,
            outposts,
        }
    }
}

/// Evaluates `board` from the side to move's point of view, in centipawns.
pub fn evaluate(board: &Board) -> i32 {
    evaluate_with(board, &PawnInfo::of(board))
}

/// [`evaluate`] with the pawn terms already worked out.
pub fn evaluate_with(board: &Board, pawns: &PawnInfo) -> i32 {
    let mut phase = 0;
    for piece in Piece::ALL {
        phase += PHASE_WEIGHT[piece as usize] * board.pieces(piece).len() as i32;
    }
    let phase = phase.min(MAX_PHASE);
    let (mut white, white_attacks) = side(board, Color::White, pawns);
    let (mut black, black_attacks) = side(board, Color::Black, pawns);
    white.add(king_danger(
        board,
        Color::White,
        &white_attacks,
        &black_attacks,
    ));
    black.add(king_danger(
        board,
        Color::Black,
        &black_attacks,
        &white_attacks,
    ));
    white.add(threats(board, Color::White, &white_attacks, &black_attacks));
    black.add(threats(board, Color::Black, &black_attacks, &white_attacks));
    white.add(pawns.structure);
    white.add(passers(board, Color::White, pawns, &black_attacks));
    black.add(passers(board, Color::Black, pawns, &white_attacks));
    let mg = white.mg - black.mg;
    let eg = white.eg - black.eg;
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let eg = eg * endgame_scale(board, strong, pawns.passed[strong as usize]) / SCALE_NORMAL;
    let score = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let score = match board.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    score + TEMPO
}

/// The endgame scale that means "no adjustment".
pub const SCALE_NORMAL: i32 = 64;

/// Material of the pieces (not pawns or kings) of `color`, in pawns.
fn piece_material(board: &Board, color: Color) -> i32 {
    const VALUE: [i32; 6] = [0, 3, 3, 5, 9, 0];
    Piece::ALL
        .iter()
        .map(|&p| VALUE[p as usize] * board.colored_pieces(color, p).len() as i32)
        .sum()
}

/// How much of the endgame score `strong` (the side it favours) keeps, out
/// of [`SCALE_NORMAL`]: nothing with at most a minor piece and no pawns,
/// little when a pawnless side is at most a minor piece ahead, about half
/// with opposite-coloured bishops, and, unless `strong` is a rook or more
/// ahead in pieces, less the fewer pawns `strong` has. `passed` holds
/// `strong`'s passed pawns.
pub fn endgame_scale(board: &Board, strong: Color, passed: BitBoard) -> i32 {
    let weak = !strong;
    let strong_pawns = board.colored_pieces(strong, Piece::Pawn);
    let (ours, theirs) = (piece_material(board, strong), piece_material(board, weak));
    if strong_pawns.is_empty() && ours - theirs <= 3 {
        return if ours < 5 {
            0
        } else if theirs <= 3 {
            4
        } else {
            14
        };
    }
    let bishops = board.pieces(Piece::Bishop);
    let strong_bishops = bishops & board.colors(strong);
    let weak_bishops = bishops & board.colors(weak);
    if strong_bishops.len() == 1
        && weak_bishops.len() == 1
        && strong_bishops.is_disjoint(DARK) != weak_bishops.is_disjoint(DARK)
    {
        if ours == 3 && theirs == 3 {
            return 18 + 4 * passed.len() as i32;
        }
        return 22 + 3 * board.colors(strong).len() as i32;
    }
    if ours - theirs >= 5 {
        return SCALE_NORMAL;
    }
    SCALE_NORMAL.min(36 + 7 * strong_pawns.len() as i32)
}

/// Dark squares (a1, c1, ...).
pub(super) const DARK: BitBoard = BitBoard(0xAA55_AA55_AA55_AA55);

/// The pawns of `ours` (of colour `us`) that no pawn of `theirs` can stop.
fn passed_pawns(ours: BitBoard, theirs: BitBoard, us: Color) -> BitBoard {
    let mut passed = BitBoard::EMPTY;
    for sq in ours {
        if is_passed(sq, theirs, us) {
            passed |= sq.bitboard();
        }
    }
    passed
}

/// Whether no pawn of `theirs` stands ahead of `us`'s pawn on `sq`, on its
/// file or the files beside it.
fn is_passed(sq: Square, theirs: BitBoard, us: Color) -> bool {
    let file = sq.file();
    (theirs & (file.bitboard() | file.adjacent()) & ahead_of(sq, us)).is_empty()
}

/// The squares one colour attacks, by kind of attacker.
#[derive(Default)]
struct Attacks {
    all: BitBoard,
    pawns: BitBoard,
    minors: BitBoard,
    rooks: BitBoard,
    /// Squares attacked by each kind of piece, by [`Piece`] index.
    by: [BitBoard; 6],
    /// Attack units on the enemy king zone, and how many pieces attack it.
    king_units: usize,
    king_attackers: i32,
}

/// The attack on the enemy king, by the [`KING_DANGER`] table of
/// [`king_attack_units`].
fn king_danger(board: &Board, us: Color, ours: &Attacks, theirs: &Attacks) -> Term {
    let units = king_attack_units(board, us, ours, theirs);
    KING_DANGER[units.min(KING_DANGER.len() - 1)]
}

/// Attack units of `us` against the enemy king, with two or more
/// attackers (else none): those of the pieces that reach its zone, of safe
/// checks (from squares the enemy neither occupies nor attacks) and of weak
/// squares next to the king, halved when `us` has no queen.
fn king_attack_units(board: &Board, us: Color, ours: &Attacks, theirs: &Attacks) -> usize {
    if ours.king_attackers < 2 {
        return 0;
    }
    let king = board.king(!us);
    let occupied = board.occupied();
    let safe = !(theirs.all | board.colors(us));
    let diagonal = get_bishop_moves(king, occupied);
    let straight = get_rook_moves(king, occupied);
    let checks = [
        (Piece::Knight, get_knight_moves(king)),
        (Piece::Bishop, diagonal),
        (Piece::Rook, straight),
        (Piece::Queen, diagonal | straight),
    ];
    let mut units = ours.king_units;
    for (piece, from) in checks {
        if !(from & ours.by[piece as usize] & safe).is_empty() {
            units += SAFE_CHECK_WEIGHT[piece as usize];
        }
    }
    let defenders = theirs.pawns | theirs.minors | theirs.rooks;
    let weak = get_king_moves(king) & ours.all & !defenders;
    units += WEAK_ZONE_WEIGHT * weak.len() as usize;
    if board.colored_pieces(us, Piece::Queen).is_empty() {
        units /= 2;
    }
    units
}

/// Pieces of `them` that `us` attacks with something cheaper, or that hang.
fn threats(board: &Board, us: Color, ours: &Attacks, theirs: &Attacks) -> Term {
    let them = !us;
    let their = |piece| board.colored_pieces(them, piece);
    let pieces = board.colors(them) & !their(Piece::Pawn) & !their(Piece::King);
    let majors = their(Piece::Rook) | their(Piece::Queen);
    let mut t = Term::default();
    t.add_scaled(THREAT_BY_PAWN, (ours.pawns & pieces).len() as i32);
    t.add_scaled(THREAT_BY_MINOR, (ours.minors & majors).len() as i32);
    t.add_scaled(
        THREAT_BY_ROOK,
        (ours.rooks & their(Piece::Queen)).len() as i32,
    );
    let hanging = pieces & ours.all & !theirs.all & !ours.pawns;
    t.add_scaled(HANGING, hanging.len() as i32);
    t
}

/// How much a passed pawn's king-distance and free-path terms count, by
/// its relative rank.
pub const PASSER_WEIGHT: [i32; 8] = [0, 0, 0, 1, 3, 5, 7, 0];

/// Distance in king moves between two squares.
fn distance(a: Square, b: Square) -> i32 {
    let files = (a.file() as i32 - b.file() as i32).abs();
    let ranks = (a.rank() as i32 - b.rank() as i32).abs();
    files.max(ranks)
}

/// Passed pawns of `us` beyond the third rank: the kings' distances to the
/// square in front of each (capped at 5), whether the way to promotion is
/// free of enemy pieces and attacks (or at least the square in front is),
/// and, against a side with no pieces, a pawn the enemy king cannot catch.
fn passers(board: &Board, us: Color, pawns: &PawnInfo, theirs: &Attacks) -> Term {
    let them = !us;
    let their_pawns = board.colored_pieces(them, Piece::Pawn);
    let (our_king, their_king) = (board.king(us), board.king(them));
    let blockers = board.colors(them) | theirs.all;
    let pawn_ending = board.colors(them) == their_pawns | their_king.bitboard();
    let mut t = Term::default();
    for sq in pawns.passed[us as usize] {
        let rank = sq.rank().relative_to(us) as usize;
        let w = PASSER_WEIGHT[rank];
        let path = sq.file().bitboard() & ahead_of(sq, us);
        if w > 0 {
            let stop = stop_square(sq, us);
            t.add_scaled(PASSER_KING_THEIRS, w * distance(their_king, stop).min(5));
            t.add_scaled(PASSER_KING_OURS, w * distance(our_king, stop).min(5));
            if !board.occupied().has(stop) {
                if (path & blockers).is_empty() {
                    t.add_scaled(PASSER_FREE, w);
                } else if !blockers.has(stop) {
                    t.add_scaled(PASSER_SAFE_STOP, w);
                }
            }
        }
        if pawn_ending {
            let queening = Square::new(sq.file(), Rank::Eighth.relative_to(us));
            let moves = 7 - rank.max(2) as i32;
            let tempo = i32::from(board.side_to_move() == them);
            if (path & board.colors(us)).is_empty()
                && distance(their_king, queening) - tempo > moves
            {
                t.add(UNSTOPPABLE);
            }
        }
    }
    t
}

/// All terms for one colour but the pawn structure, threats and passed-pawn
/// detail, from that colour's point of view, and the squares it attacks.
fn side(board: &Board, us: Color, pawns: &PawnInfo) -> (Term, Attacks) {
    let them = !us;
    let occupied = board.occupied();
    let ours = board.colors(us);
    let our_pawns = board.colored_pieces(us, Piece::Pawn);
    let their_pawns = board.colored_pieces(them, Piece::Pawn);
    let safe = !(ours | pawn_attacks(their_pawns, them));
    let their_king = board.king(them);
    let king_zone = get_king_moves(their_king) | their_king.bitboard();

    let mut t = Term::default();
    let mut attacked = Attacks {
        pawns: pawn_attacks(our_pawns, us),
        ..Attacks::default()
    };
    attacked.all = attacked.pawns | get_king_moves(board.king(us));
    for piece in Piece::ALL {
        let p = piece as usize;
        for sq in board.colored_pieces(us, piece) {
            t.add(PIECE_VALUE[p]);
            t.add(PST[p][pst_index(us, sq)]);
            let (attacks, mobility): (_, &[Term]) = match piece {
                Piece::Knight => (get_knight_moves(sq), &MOBILITY_KNIGHT),
                Piece::Bishop => (get_bishop_moves(sq, occupied), &MOBILITY_BISHOP),
                Piece::Rook => (get_rook_moves(sq, occupied), &MOBILITY_ROOK),
                Piece::Queen => (
                    get_bishop_moves(sq, occupied) | get_rook_moves(sq, occupied),
                    &MOBILITY_QUEEN,
                ),
                Piece::Pawn | Piece::King => continue,
            };
            attacked.all |= attacks;
            attacked.by[p] |= attacks;
            match piece {
                Piece::Knight | Piece::Bishop => attacked.minors |= attacks,
                Piece::Rook => attacked.rooks |= attacks,
                _ => {}
            }
            t.add(mobility[(attacks & safe).len() as usize]);
            let hits = (attacks & king_zone).len() as usize;
            if hits > 0 {
                attacked.king_attackers += 1;
                attacked.king_units += KING_ATTACK_WEIGHT[p] * hits;
            }
        }
    }
    if board.colored_pieces(us, Piece::Bishop).len() >= 2 {
        t.add(BISHOP_PAIR);
    }
    let outposts = pawns.outposts[us as usize];
    t.add_scaled(
        OUTPOST_KNIGHT,
        (board.colored_pieces(us, Piece::Knight) & outposts).len() as i32,
    );
    t.add_scaled(
        OUTPOST_BISHOP,
        (board.colored_pieces(us, Piece::Bishop) & outposts).len() as i32,
    );
    for sq in board.colored_pieces(us, Piece::Rook) {
        let file = sq.file().bitboard();
        if (file & our_pawns).is_empty() {
            t.add(if (file & their_pawns).is_empty() {
                ROOK_OPEN
            } else {
                ROOK_SEMI_OPEN
            });
        }
    }
    t.add_scaled(
        SHIELD_MISSING,
        missing_shield(board.king(us), our_pawns, us),
    );
    (t, attacked)
}

/// Isolated, doubled, backward, connected and passed-pawn terms of `ours`
/// (of colour `us`, against `theirs`), whose passed pawns are `passed`.
///
/// A pawn is connected when a pawn of its own defends it or stands beside
/// it, and backward when no pawn of its own on the files beside it is level
/// with or behind it (none can come to defend it) and an enemy pawn
/// guards the square in front of it.
fn pawn_structure(ours: BitBoard, theirs: BitBoard, passed: BitBoard, us: Color) -> Term {
    let mut t = Term::default();
    let defended = pawn_attacks(ours, us);
    let their_guard = pawn_attacks(theirs, !us);
    for sq in ours {
        let file = sq.file();
        let file_bb = file.bitboard();
        let neighbours = ours & file.adjacent();
        let rank = sq.rank().relative_to(us) as usize;
        let ahead = ahead_of(sq, us);
        if neighbours.is_empty() {
            t.add(ISOLATED);
        } else if defended.has(sq) || !(neighbours & sq.rank().bitboard()).is_empty() {
            t.add(CONNECTED[rank]);
        } else if (neighbours & !ahead).is_empty() {
            let stop = stop_square(sq, us);
            if their_guard.has(stop) {
                t.add(BACKWARD);
            }
        }
        if !(ours & file_bb & ahead).is_empty() {
            t.add(DOUBLED);
        }
        if passed.has(sq) {
            t.add(PASSED[rank]);
        }
    }
    t
}

/// White's fourth to sixth ranks.
const OUTPOST_RANKS_WHITE: BitBoard = BitBoard(0x0000_FFFF_FF00_0000);

/// Squares on `us`'s fourth to sixth ranks that a pawn of `ours` defends
/// and that no pawn of `theirs` can ever attack.
fn outposts(ours: BitBoard, theirs: BitBoard, us: Color) -> BitBoard {
    let mut reachable = BitBoard::EMPTY;
    for sq in theirs {
        reachable |= sq.file().adjacent() & ahead_of(sq, !us);
    }
    let ranks = match us {
        Color::White => OUTPOST_RANKS_WHITE,
        Color::Black => OUTPOST_RANKS_WHITE.flip_ranks(),
    };
    ranks & pawn_attacks(ours, us) & !reachable
}

/// Missing shield pawns (one or two ranks ahead) on the king's and adjacent
/// files, for a king still on its first two ranks.
fn missing_shield(king: Square, pawns: BitBoard, us: Color) -> i32 {
    if king.rank().relative_to(us) > Rank::Second {
        return 0;
    }
    let rank = king.rank() as i32;
    let step = if us == Color::White { 1 } else { -1 };
    let shield = [rank + step, rank + 2 * step]
        .into_iter()
        .filter(|r| (0..8).contains(r))
        .fold(0u64, |acc, r| acc | (0xFF << (8 * r)));
    let king_file = king.file() as i32;
    (king_file - 1..=king_file + 1)
        .filter(|f| (0..8).contains(f))
        .filter(|&f| (pawns.0 & shield & File::index(f as usize).bitboard().0) == 0)
        .count() as i32
}

/// Index into [`PST`] (a8 first, from White's side) for a piece of `color` on `sq`.
#[inline]
fn pst_index(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

/// The square in front of a pawn of `color` on `sq` (not on its last rank).
fn stop_square(sq: Square, color: Color) -> Square {
    sq.offset(0, if color == Color::White { 1 } else { -1 })
}

/// Squares on ranks strictly in front of `sq` from `color`'s point of view.
fn ahead_of(sq: Square, color: Color) -> BitBoard {
    let rank = sq.rank() as u32;
    match color {
        Color::White => BitBoard(u64::MAX.checked_shl(8 * (rank + 1)).unwrap_or(0)),
        Color::Black => BitBoard((1u64 << (8 * rank)) - 1),
    }
}

/// Squares attacked by `pawns` of `color`.
pub fn pawn_attacks(pawns: BitBoard, color: Color) -> BitBoard {
    let not_a = !File::A.bitboard().0;
    let not_h = !File::H.bitboard().0;
    let p = pawns.0;
    BitBoard(match color {
        Color::White => ((p & not_a) << 7) | ((p & not_h) << 9),
        Color::Black => ((p & not_a) >> 9) | ((p & not_h) >> 7),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&fen.parse().unwrap())
    }

    #[test]
    fn start_position_is_balanced() {
        let board = Board::default();
        assert_eq!(evaluate(&board), TEMPO);
    }

    #[test]
    fn colour_symmetry() {
        let fens = [
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
                "rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
            ),
            (
                "8/5k2/8/3P4/8/8/2K5/8 w - - 0 1",
                "8/2k5/8/8/3p4/8/5K2/8 b - - 0 1",
            ),
        ];
        for (a, b) in fens {
            assert_eq!(eval(a), eval(b), "{a} vs {b}");
        }
    }

    #[test]
    fn extra_queen_is_winning() {
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 800);
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -800);
    }

    fn scale(fen: &str, strong: Color) -> i32 {
        let board = fen.parse().unwrap();
        endgame_scale(&board, strong, PawnInfo::of(&board).passed[strong as usize])
    }

    #[test]
    fn a_minor_piece_without_pawns_cannot_win() {
        // White's bishop against two pawns: more material, no winning chances.
        let fen = "8/6p1/5pk1/8/8/3KB3/8/8 w - - 0 1";
        assert_eq!(scale(fen, Color::White), 0);
        assert!(eval(fen) < 40, "{}", eval(fen));
        // With a pawn of its own the bishop's side keeps its advantage.
        let fen = "8/6p1/5pk1/8/8/3KB3/P7/8 w - - 0 1";
        assert_eq!(scale(fen, Color::White), 43);
        assert!(eval(fen) > 100, "{}", eval(fen));
    }

    #[test]
    fn rook_against_minor_is_drawish() {
        assert_eq!(scale("8/8/4kb2/8/8/R2K4/8/8 w - - 0 1", Color::White), 4);
        assert_eq!(scale("8/8/3bkb2/8/8/R2K4/8/8 b - - 0 1", Color::White), 14);
        assert!(eval("8/8/4kb2/8/8/R2K4/8/8 w - - 0 1") < 60);
        // A rook against nothing is not.
        assert_eq!(scale("8/8/4k3/8/8/R2K4/8/8 w - - 0 1", Color::White), 64);
        assert!(eval("8/8/4k3/8/8/R2K4/8/8 w - - 0 1") > 400);
    }

    #[test]
    fn opposite_coloured_bishops_halve_the_advantage() {
        // Three pawns up (all passed: 18 + 4 × 3) with bishops on opposite
        // colours (f1 light, d6 dark), against the same with both bishops
        // on dark squares (e1 and d6; 36 + 7 × 3).
        let opposite = "8/5k2/3b4/8/2P1P3/3P4/8/4KB2 w - - 0 1";
        let same = "8/5k2/3b4/8/2P1P3/3P4/8/4B1K1 w - - 0 1";
        assert_eq!(scale(opposite, Color::White), 30);
        assert_eq!(scale(same, Color::White), 57);
        assert!(
            eval(opposite) + 40 < eval(same),
            "{} {}",
            eval(opposite),
            eval(same)
        );
    }

    /// The endgame part of the passed-pawn terms of `us`.
    fn passer_eg(fen: &str, us: Color) -> i32 {
        let board: Board = fen.parse().unwrap();
        let pawns = PawnInfo::of(&board);
        let (_, theirs) = side(&board, !us, &pawns);
        passers(&board, us, &pawns, &theirs).eg
    }

    #[test]
    fn passer_wants_the_enemy_king_far_and_its_own_king_near() {
        // d5 pawn; Black's king on a8 (three squares from d6) or in front on d7.
        let far = passer_eg("k7/8/8/3P4/8/8/8/K7 w - - 0 1", Color::White);
        let near = passer_eg("8/3k4/8/3P4/8/8/8/K7 w - - 0 1", Color::White);
        assert!(far > near + 40, "{far} {near}");
        // The same pawn with White's king beside its stop square, or far away.
        let escorted = passer_eg("k7/8/4K3/3P4/8/8/8/8 w - - 0 1", Color::White);
        let alone = passer_eg("k7/8/8/3P4/8/8/8/7K w - - 0 1", Color::White);
        assert!(escorted > alone, "{escorted} {alone}");
    }

    #[test]
    fn passer_with_a_free_path_scores_more() {
        // The e6 pawn's way is free, or watched by the rook on a8.
        let free = passer_eg("7k/8/4P3/8/8/8/r7/K7 w - - 0 1", Color::White);
        let watched = passer_eg("r6k/8/4P3/8/8/8/8/K7 w - - 0 1", Color::White);
        let blocked = passer_eg("4r2k/8/4P3/8/8/8/8/K7 w - - 0 1", Color::White);
        assert!(
            free > watched && watched > blocked,
            "{free} {watched} {blocked}"
        );
    }

    #[test]
    fn rule_of_the_square() {
        let unstoppable = UNSTOPPABLE.eg;
        // The b5 pawn needs three moves; Black's king on h1 is out of reach.
        assert!(passer_eg("8/8/8/1P6/8/8/8/K6k w - - 0 1", Color::White) >= unstoppable);
        // On e5 it is in the square.
        assert!(passer_eg("8/8/8/1P2k3/8/8/8/K7 w - - 0 1", Color::White) < unstoppable);
        // On f5 it catches the pawn only with Black to move.
        assert!(passer_eg("8/8/8/1P3k2/8/8/8/K7 w - - 0 1", Color::White) >= unstoppable);
        assert!(passer_eg("8/8/8/1P3k2/8/8/8/K7 b - - 0 1", Color::White) < unstoppable);
        // Not against a side with a piece.
        assert!(passer_eg("8/8/8/1P6/8/8/8/K5nk w - - 0 1", Color::White) < unstoppable);
    }

    #[test]
    fn safe_checks_add_to_the_king_attack() {
        // Queen and knight attack g8's zone in both; White's rook on a3 can
        // check safely from a8 in the first, not with Black's rook on c8.
        let units = |fen: &str| {
            let board: Board = fen.parse().unwrap();
            let pawns = PawnInfo::of(&board);
            let (_, white) = side(&board, Color::White, &pawns);
            let (_, black) = side(&board, Color::Black, &pawns);
            king_danger(&board, Color::White, &white, &black).mg
        };
        let open = units("6k1/5ppp/8/6N1/8/R7/5Q2/6K1 w - - 0 1");
        let guarded = units("2r3k1/5ppp/8/6N1/8/R7/5Q2/6K1 w - - 0 1");
        assert!(open > guarded, "{open} {guarded}");
    }

    #[test]
    fn weak_squares_add_to_the_king_attack_and_no_queen_halves_it() {
        let units = |fen: &str| {
            let board: Board = fen.parse().unwrap();
            let pawns = PawnInfo::of(&board);
            let (_, white) = side(&board, Color::White, &pawns);
            let (_, black) = side(&board, Color::Black, &pawns);
            king_attack_units(&board, Color::White, &white, &black)
        };
        // Queen (f7, h7: 2 x 5) and knight (f7, h7: 2 x 2), no safe check,
        // f7 and h7 weak (2 x 2).
        assert_eq!(units("6k1/5ppp/8/6NQ/8/8/8/6K1 w - - 0 1"), 18);
        // A knight on f8 defends h7: one weak square fewer.
        assert_eq!(units("5nk1/5ppp/8/6NQ/8/8/8/6K1 w - - 0 1"), 16);
        // Rook (h7: 3) and knight (4), f7 and h7 weak (4): 11, halved.
        assert_eq!(units("6k1/5ppp/8/6N1/8/7R/8/6K1 w - - 0 1"), 5);
        // One attacker is no attack.
        assert_eq!(units("6k1/5ppp/8/6N1/8/8/8/6K1 w - - 0 1"), 0);
    }

    fn bb(squares: &[Square]) -> BitBoard {
        squares
            .iter()
            .fold(BitBoard::EMPTY, |acc, sq| acc | sq.bitboard())
    }

    #[test]
    fn connected_and_backward_pawns() {
        use Square::*;
        let total = |terms: &[Term]| {
            let mut t = Term::default();
            terms.iter().for_each(|&x| t.add(x));
            t
        };
        // Side by side on the fourth rank: both connected.
        let phalanx = pawn_structure(
            bb(&[D4, E4]),
            BitBoard::EMPTY,
            BitBoard::EMPTY,
            Color::White,
        );
        assert_eq!(phalanx, total(&[CONNECTED[3], CONNECTED[3]]));
        // d3 defends c4 but nothing can come to defend d3; it is backward
        // only once Black's e5 pawn guards d4.
        let ours = bb(&[C4, D3]);
        let free = pawn_structure(ours, BitBoard::EMPTY, BitBoard::EMPTY, Color::White);
        assert_eq!(free, CONNECTED[3]);
        let guarded = pawn_structure(ours, bb(&[E5]), BitBoard::EMPTY, Color::White);
        assert_eq!(guarded, total(&[CONNECTED[3], BACKWARD]));
        // The same from Black's side: c5 and d6 against a white e4 pawn.
        let black = pawn_structure(bb(&[C5, D6]), bb(&[E4]), BitBoard::EMPTY, Color::Black);
        assert_eq!(black, total(&[CONNECTED[3], BACKWARD]));
    }

    #[test]
    fn outposts_are_defended_and_out_of_enemy_pawn_reach() {
        use Square::*;
        // e4 defends d5 and f5; Black's c7 pawn can still reach c6 to hit d5.
        assert_eq!(outposts(bb(&[E4]), bb(&[C7]), Color::White), bb(&[F5]));
        // Too far back: e2 defends d3 and f3, on White's third rank.
        assert_eq!(
            outposts(bb(&[E2]), BitBoard::EMPTY, Color::White),
            BitBoard::EMPTY
        );
        // Black's mirror: e5 defends d4 and f4; White's c2 pawn reaches d4.
        assert_eq!(outposts(bb(&[E5]), bb(&[C2]), Color::Black), bb(&[F4]));
        // A knight on f5 scores the outpost bonus, once.
        let board: Board = "4k3/2p5/8/5N2/4P3/8/8/4K3 w - - 0 1".parse().unwrap();
        let pawns = PawnInfo::of(&board);
        let no_outposts = PawnInfo {
            outposts: [BitBoard::EMPTY; 2],
            ..pawns
        };
        let (with, _) = side(&board, Color::White, &pawns);
        let (without, _) = side(&board, Color::White, &no_outposts);
        assert_eq!(with.mg - without.mg, OUTPOST_KNIGHT.mg);
        assert_eq!(with.eg - without.eg, OUTPOST_KNIGHT.eg);
    }

    #[test]
    fn pawn_attack_masks() {
        let pawns = Square::A2.bitboard() | Square::H2.bitboard();
        let attacks = Square::B3.bitboard() | Square::G3.bitboard();
        assert_eq!(pawn_attacks(pawns, Color::White), attacks);
        let pawns = Square::A7.bitboard();
        assert_eq!(pawn_attacks(pawns, Color::Black), Square::B6.bitboard());
    }
}
