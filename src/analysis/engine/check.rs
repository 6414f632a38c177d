//! Does a move give check? Answered from the board before the move, so the
//! search can prune a move without playing it first.

use cozy_chess::{
    get_bishop_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board, Move,
    Piece,
};

/// True if `mv`, a legal move of `board`, leaves the opponent in check.
/// Castling, en passant and promotions are played out; every other move is
/// checked for a direct check by the moved piece and a discovered check by
/// a slider behind it.
pub fn gives_check(board: &Board, mv: Move) -> bool {
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return false;
    };
    let castling = board.colors(us).has(mv.to);
    let en_passant =
        piece == Piece::Pawn && mv.from.file() != mv.to.file() && board.piece_on(mv.to).is_none();
    if castling || en_passant || mv.promotion.is_some() {
        let mut child = board.clone();
        child.play_unchecked(mv);
        return !child.checkers().is_empty();
    }
    let king = board.king(!us);
    let occupied = (board.occupied() ^ mv.from.bitboard()) | mv.to.bitboard();
    let direct = match piece {
        Piece::Pawn => get_pawn_attacks(mv.to, us).has(king),
        Piece::Knight => get_knight_moves(mv.to).has(king),
        Piece::Bishop => get_bishop_moves(mv.to, occupied).has(king),
        Piece::Rook => get_rook_moves(mv.to, occupied).has(king),
        Piece::Queen => {
            (get_bishop_moves(mv.to, occupied) | get_rook_moves(mv.to, occupied)).has(king)
        }
        Piece::King => false,
    };
    direct || discovers_check(board, mv, occupied, king)
}

/// A slider of the side to move that sees the enemy king once `mv.from` is
/// vacated (the moved piece itself left out).
fn discovers_check(board: &Board, mv: Move, occupied: BitBoard, king: cozy_chess::Square) -> bool {
    let ours = board.colors(board.side_to_move()) & !mv.from.bitboard();
    let queens = board.pieces(Piece::Queen);
    let diagonal = (board.pieces(Piece::Bishop) | queens) & ours;
    let straight = (board.pieces(Piece::Rook) | queens) & ours;
    !(get_bishop_moves(king, occupied) & diagonal).is_empty()
        || !(get_rook_moves(king, occupied) & straight).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every legal move of every position up to `depth` plies from `board`
    /// agrees with playing it out.
    fn agrees_with_playing(board: &Board, depth: u32, checked: &mut usize) {
        let mut moves = Vec::new();
        board.generate_moves(|list| {
            moves.extend(list);
            false
        });
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            assert_eq!(
                gives_check(board, mv),
                !child.checkers().is_empty(),
                "{mv} in {board}"
            );
            *checked += 1;
            if depth > 1 {
                agrees_with_playing(&child, depth - 1, checked);
            }
        }
    }

    #[test]
    fn agrees_with_playing_the_move() {
        let positions = [
            // Kiwipete: castling, en passant, pins, discovered attacks.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            // Promotions with check, discovered checks along ranks.
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            // Discovered checks by a moving pawn and a moving king.
            "4k3/8/8/4P3/8/8/4R3/4K3 w - - 0 1",
            "7k/8/8/8/3K4/8/1B6/8 w - - 0 1",
        ];
        let mut checked = 0;
        for fen in positions {
            let board: Board = fen.parse().unwrap();
            agrees_with_playing(&board, 3, &mut checked);
        }
        assert!(checked > 100_000, "{checked}");
    }
}
