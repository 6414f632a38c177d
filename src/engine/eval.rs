//! Static evaluation: tapered PeSTO material and piece-square tables plus
//! mobility, pawn structure, rooks on open files, bishop pair and king safety.
//!
//! [`evaluate`] returns centipawns from the side to move's point of view.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_rook_moves, BitBoard, Board, Color,
    File, Piece, Rank, Square,
};

use super::pst::{pst, EG_VALUE, MG_VALUE};

/// A middlegame/endgame score pair.
#[derive(Clone, Copy, Default)]
struct Term {
    mg: i32,
    eg: i32,
}

impl Term {
    const fn new(mg: i32, eg: i32) -> Self {
        Self { mg, eg }
    }

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
const TEMPO: i32 = 10;

const BISHOP_PAIR: Term = Term::new(30, 50);
/// Per reachable square beyond the piece's typical count, by [`Piece`] index.
const MOBILITY: [Term; 6] = [
    Term::new(0, 0),
    Term::new(4, 4),
    Term::new(5, 5),
    Term::new(2, 4),
    Term::new(1, 2),
    Term::new(0, 0),
];
const MOBILITY_BASE: [i32; 6] = [0, 4, 6, 6, 12, 0];
const DOUBLED: Term = Term::new(-10, -20);
const ISOLATED: Term = Term::new(-10, -12);
/// Passed pawn bonus by relative rank.
const PASSED: [Term; 8] = [
    Term::new(0, 0),
    Term::new(0, 5),
    Term::new(0, 10),
    Term::new(5, 20),
    Term::new(15, 40),
    Term::new(30, 70),
    Term::new(50, 110),
    Term::new(0, 0),
];
const ROOK_OPEN: Term = Term::new(25, 10);
const ROOK_SEMI_OPEN: Term = Term::new(10, 5);
/// King-zone attack weight by attacker [`Piece`] index.
const KING_ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];
const SHIELD_MISSING: i32 = -12;

/// Evaluates `board` from the side to move's point of view, in centipawns.
pub fn evaluate(board: &Board) -> i32 {
    let mut phase = 0;
    for piece in Piece::ALL {
        phase += PHASE_WEIGHT[piece as usize] * board.pieces(piece).len() as i32;
    }
    let phase = phase.min(MAX_PHASE);
    let white = side(board, Color::White);
    let black = side(board, Color::Black);
    let mg = white.mg - black.mg;
    let eg = white.eg - black.eg;
    let score = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let score = match board.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    score + TEMPO
}

/// All terms for one colour, from that colour's point of view.
fn side(board: &Board, us: Color) -> Term {
    let them = !us;
    let occupied = board.occupied();
    let ours = board.colors(us);
    let our_pawns = board.colored_pieces(us, Piece::Pawn);
    let their_pawns = board.colored_pieces(them, Piece::Pawn);
    let safe = !(ours | pawn_attacks(their_pawns, them));
    let their_king = board.king(them);
    let king_zone = get_king_moves(their_king) | their_king.bitboard();

    let mut t = Term::default();
    let mut attack_units = 0;
    let mut attackers = 0;
    for piece in Piece::ALL {
        let p = piece as usize;
        for sq in board.colored_pieces(us, piece) {
            let (mg, eg) = pst(piece, us, sq);
            t.add(Term::new(MG_VALUE[p] + mg, EG_VALUE[p] + eg));
            let attacks = match piece {
                Piece::Knight => get_knight_moves(sq),
                Piece::Bishop => get_bishop_moves(sq, occupied),
                Piece::Rook => get_rook_moves(sq, occupied),
                Piece::Queen => get_bishop_moves(sq, occupied) | get_rook_moves(sq, occupied),
                Piece::Pawn | Piece::King => continue,
            };
            let reach = (attacks & safe).len() as i32;
            t.add_scaled(MOBILITY[p], reach - MOBILITY_BASE[p]);
            let hits = (attacks & king_zone).len() as i32;
            if hits > 0 {
                attackers += 1;
                attack_units += KING_ATTACK_WEIGHT[p] * hits;
            }
        }
    }
    if attackers >= 2 {
        t.mg += (attack_units * attack_units / 6).min(400);
    }
    if board.colored_pieces(us, Piece::Bishop).len() >= 2 {
        t.add(BISHOP_PAIR);
    }
    t.add(pawn_structure(our_pawns, their_pawns, us));
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
    t.mg += king_shield(board.king(us), our_pawns, us);
    t
}

fn pawn_structure(ours: BitBoard, theirs: BitBoard, us: Color) -> Term {
    let mut t = Term::default();
    for sq in ours {
        let file = sq.file();
        let file_bb = file.bitboard();
        if (ours & file.adjacent()).is_empty() {
            t.add(ISOLATED);
        }
        let ahead = ahead_of(sq, us);
        if !(ours & file_bb & ahead).is_empty() {
            t.add(DOUBLED);
        }
        if (theirs & (file_bb | file.adjacent()) & ahead).is_empty() {
            t.add(PASSED[sq.rank().relative_to(us) as usize]);
        }
    }
    t
}

/// Penalty for each missing shield pawn on the king's and adjacent files,
/// for a king still on its first two ranks.
fn king_shield(king: Square, pawns: BitBoard, us: Color) -> i32 {
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
    let missing = (king_file - 1..=king_file + 1)
        .filter(|f| (0..8).contains(f))
        .filter(|&f| (pawns.0 & shield & File::index(f as usize).bitboard().0) == 0)
        .count() as i32;
    SHIELD_MISSING * missing
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

    #[test]
    fn pawn_attack_masks() {
        let pawns = Square::A2.bitboard() | Square::H2.bitboard();
        let attacks = Square::B3.bitboard() | Square::G3.bitboard();
        assert_eq!(pawn_attacks(pawns, Color::White), attacks);
        let pawns = Square::A7.bitboard();
        assert_eq!(pawn_attacks(pawns, Color::Black), Square::B6.bitboard());
    }
}
