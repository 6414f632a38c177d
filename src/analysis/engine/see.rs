//! Static exchange evaluation: does a capture sequence on one square win at
//! least a given amount? Pins are ignored; x-ray attackers are revealed as
//! pieces leave the square's lines.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, Move, Piece, Square,
};

/// Exchange values by [`Piece`] index.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// Value of the piece captured by `mv` (a pawn for en passant, zero for a
/// quiet move or castling).
pub fn captured_value(board: &Board, mv: Move) -> i32 {
    match board.piece_on(mv.to) {
        Some(p) if board.color_on(mv.to) != Some(board.side_to_move()) => SEE_VALUE[p as usize],
        Some(_) => 0,
        None if is_en_passant(board, mv) => SEE_VALUE[Piece::Pawn as usize],
        None => 0,
    }
}

/// True if `mv` is an en-passant capture.
pub fn is_en_passant(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
}

/// True if the piece that `mv` put down (in `child`, the position after it)
/// attacks an enemy piece worth more than itself, the king left out: a
/// threat the opponent must answer, like a fork or a hit on the queen.
pub fn threatens_bigger(child: &Board, mv: Move) -> bool {
    let Some(piece) = child.piece_on(mv.to) else {
        return false;
    };
    let mover = !child.side_to_move();
    let occupied = child.occupied();
    let attacks = match piece {
        Piece::Pawn => get_pawn_attacks(mv.to, mover),
        Piece::Knight => get_knight_moves(mv.to),
        Piece::Bishop => get_bishop_moves(mv.to, occupied),
        Piece::Rook => get_rook_moves(mv.to, occupied),
        Piece::Queen => get_bishop_moves(mv.to, occupied) | get_rook_moves(mv.to, occupied),
        Piece::King => return false,
    };
    let targets = attacks & child.colors(child.side_to_move()) & !child.pieces(Piece::King);
    targets.into_iter().any(|sq| {
        child
            .piece_on(sq)
            .is_some_and(|t| SEE_VALUE[t as usize] > SEE_VALUE[piece as usize])
    })
}

fn attackers_to(board: &Board, sq: Square, occupied: BitBoard) -> BitBoard {
    let diag = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let orth = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    (get_pawn_attacks(sq, Color::Black) & board.colored_pieces(Color::White, Piece::Pawn))
        | (get_pawn_attacks(sq, Color::White) & board.colored_pieces(Color::Black, Piece::Pawn))
        | (get_knight_moves(sq) & board.pieces(Piece::Knight))
        | (get_king_moves(sq) & board.pieces(Piece::King))
        | (get_bishop_moves(sq, occupied) & diag)
        | (get_rook_moves(sq, occupied) & orth)
}

/// True if the exchange started by `mv` gains at least `threshold`
/// centipawns for the side to move.
pub fn see_ge(board: &Board, mv: Move, threshold: i32) -> bool {
    if board.color_on(mv.to) == Some(board.side_to_move()) {
        // Castling exchanges nothing.
        return threshold <= 0;
    }
    let Some(mover) = board.piece_on(mv.from) else {
        return false;
    };
    let mut swap = captured_value(board, mv) - threshold;
    if let Some(promo) = mv.promotion {
        swap += SEE_VALUE[promo as usize] - SEE_VALUE[0];
    }
    if swap < 0 {
        return false;
    }
    let first = mv.promotion.unwrap_or(mover);
    swap = SEE_VALUE[first as usize] - swap;
    if swap <= 0 {
        return true;
    }
    let to = mv.to;
    let mut occupied = board.occupied() ^ mv.from.bitboard() ^ to.bitboard();
    if is_en_passant(board, mv) {
        occupied ^= Square::new(mv.to.file(), mv.from.rank()).bitboard();
    }
    let diag = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let orth = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    let mut attackers = attackers_to(board, to, occupied);
    let mut stm = board.side_to_move();
    let mut result = true;
    loop {
        stm = !stm;
        attackers &= occupied;
        let ours = attackers & board.colors(stm);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let Some(piece) = Piece::ALL
            .into_iter()
            .find(|&p| !(ours & board.pieces(p)).is_empty())
        else {
            break;
        };
        if piece == Piece::King {
            // The king may only recapture if the square is no longer defended.
            if !(attackers & board.colors(!stm)).is_empty() {
                result = !result;
            }
            break;
        }
        swap = SEE_VALUE[piece as usize] - swap;
        if swap < i32::from(result) {
            break;
        }
        let sq = (ours & board.pieces(piece))
            .next_square()
            .expect("non-empty");
        occupied ^= sq.bitboard();
        if matches!(piece, Piece::Pawn | Piece::Bishop | Piece::Queen) {
            attackers |= get_bishop_moves(to, occupied) & diag;
        }
        if matches!(piece, Piece::Rook | Piece::Queen) {
            attackers |= get_rook_moves(to, occupied) & orth;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, mv: &str, threshold: i32) -> bool {
        let board: Board = fen.parse().unwrap();
        see_ge(&board, mv.parse().unwrap(), threshold)
    }

    #[test]
    fn undefended_pawn_wins_a_pawn() {
        let fen = "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1";
        assert!(see(fen, "e1e5", 100));
        assert!(!see(fen, "e1e5", 101));
    }

    #[test]
    fn defended_pawn_loses_the_knight() {
        let fen = "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1";
        assert!(!see(fen, "d3e5", 0));
        assert!(see(fen, "d3e5", -220));
    }

    #[test]
    fn xray_recapture_counts() {
        // Rxe5 is met by ...Rxe5 Rxe5: white wins a pawn thanks to the second rook.
        let fen = "4r1k1/8/8/4p3/8/8/4R3/4R1K1 w - - 0 1";
        assert!(see(fen, "e2e5", 0));
    }

    fn threat(fen: &str, mv: &str) -> bool {
        let mut board: Board = fen.parse().unwrap();
        let mv: Move = mv.parse().unwrap();
        board.play(mv);
        threatens_bigger(&board, mv)
    }

    #[test]
    fn a_knight_that_hits_the_queen_threatens_bigger() {
        // WAC.256: Nf5 attacks the queen on e7 (and is en prise to a pawn).
        let fen = "3r1rk1/1pb1qp1p/2p3p1/p7/P2Np2R/1P5P/1BP2PP1/3Q1BK1 w - - 0 1";
        assert!(threat(fen, "d4f5"));
        // From f3 the knight attacks no black piece at all.
        assert!(!threat(fen, "d4f3"));
    }

    #[test]
    fn pawns_threaten_pieces_but_not_pawns_or_the_king() {
        // WAC.291: h3 attacks the queen on g4.
        let fen = "5r1k/3b2p1/p6p/1pRpR3/1P1P2q1/P4pP1/5QnP/1B4K1 w - - 0 1";
        assert!(threat(fen, "h2h3"));
        // A pawn attacking only a pawn, and a rook attacking only a king.
        assert!(!threat("4k3/8/3p4/8/4P3/8/8/4K3 w - - 0 1", "e4e5"));
        assert!(!threat("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8"));
    }
}
