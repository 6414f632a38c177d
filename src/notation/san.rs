//! Standard Algebraic Notation writer.
//!
//! Output follows the PGN standard: piece letter, minimal disambiguation
//! (file, then rank, then both), `x` for captures, `=Q` for promotions,
//! `O-O`/`O-O-O` for castling and a `+` or `#` suffix.

use cozy_chess::{Board, Move, Piece};

use super::{is_castling, piece_char_lower};

/// Writes `mv` in SAN. `mv` must be legal on `board`; an illegal move is
/// written in UCI form (e.g. `e2e5`) so that callers never panic.
pub fn move_to_san(board: &Board, mv: Move) -> String {
    if !board.is_legal(mv) {
        return super::uci::move_to_uci(board, mv, true);
    }
    let mut san = body(board, mv);
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        let has_reply = after.generate_moves(|_| true);
        san.push(if has_reply { '+' } else { '#' });
    }
    san
}

/// Writes a line of moves in SAN, playing each one in turn. Stops at the
/// first illegal move (which is written in UCI form).
pub fn line_to_san(board: &Board, moves: &[Move]) -> Vec<String> {
    let mut board = board.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        out.push(move_to_san(&board, mv));
        if board.try_play(mv).is_err() {
            break;
        }
    }
    out
}

/// The SAN of a legal move without the check suffix.
fn body(board: &Board, mv: Move) -> String {
    if is_castling(board, mv) {
        return if mv.to.file() > mv.from.file() {
            "O-O".to_owned()
        } else {
            "O-O-O".to_owned()
        };
    }
    let piece = board.piece_on(mv.from).expect("legal move has a piece");
    let capture = board.color_on(mv.to) == Some(!board.side_to_move())
        || (piece == Piece::Pawn && mv.from.file() != mv.to.file());
    let mut san = String::with_capacity(8);
    if piece == Piece::Pawn {
        if capture {
            san.push_str(&mv.from.file().to_string());
        }
    } else {
        san.push(piece_char_lower(piece).to_ascii_uppercase());
        san.push_str(&disambiguation(board, mv, piece));
    }
    if capture {
        san.push('x');
    }
    san.push_str(&mv.to.to_string());
    if let Some(promo) = mv.promotion {
        san.push('=');
        san.push(piece_char_lower(promo).to_ascii_uppercase());
    }
    san
}

/// The minimal from-square qualifier that tells `mv` apart from other legal
/// moves of the same piece kind to the same square.
fn disambiguation(board: &Board, mv: Move, piece: Piece) -> String {
    let mut rivals = Vec::new();
    board.generate_moves_for(board.pieces(piece), |moves| {
        if moves.from != mv.from && moves.to.has(mv.to) {
            rivals.push(moves.from);
        }
        false
    });
    if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|sq| sq.file() != mv.from.file()) {
        mv.from.file().to_string()
    } else if rivals.iter().all(|sq| sq.rank() != mv.from.rank()) {
        mv.from.rank().to_string()
    } else {
        mv.from.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn san(fen: &str, uci: &str) -> String {
        let board: Board = fen.parse().unwrap();
        let mv = crate::notation::uci::parse_uci_move(&board, uci, false).unwrap();
        move_to_san(&board, mv)
    }

    #[test]
    fn pawn_moves_and_captures() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(san(start, "e2e4"), "e4");
        assert_eq!(san(start, "g1f3"), "Nf3");
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        assert_eq!(san(fen, "e4d5"), "exd5");
    }

    #[test]
    fn en_passant() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        assert_eq!(san(fen, "e5f6"), "exf6");
    }

    #[test]
    fn disambiguation_by_file_rank_and_both() {
        // Knights on b1 and f1 (hypothetical) both reach d2: file.
        let fen = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
        assert_eq!(san(fen, "b1d2"), "Nbd2");
        // Rooks on a1 and a5 both reach a3: rank.
        let fen = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
        assert_eq!(san(fen, "a1a3"), "R1a3");
        assert_eq!(san(fen, "a5a3"), "R5a3");
        // Queens on a1, a4 and h4 all reach d4: a4 shares its file with a1
        // and its rank with h4, so it needs both.
        let fen = "1k6/8/8/8/Q6Q/8/8/Q3K3 w - - 0 1";
        assert_eq!(san(fen, "a4d4"), "Qa4d4");
        assert_eq!(san(fen, "h4d4"), "Qhd4");
        assert_eq!(san(fen, "a1d4"), "Q1d4");
    }

    #[test]
    fn pinned_piece_does_not_need_disambiguation() {
        // The knight on e2 is pinned by the rook on e8, so Nc3 is unambiguous.
        let fen = "4r1k1/8/8/8/8/8/4N3/1N2K3 w - - 0 1";
        assert_eq!(san(fen, "b1c3"), "Nc3");
    }

    #[test]
    fn promotions_and_underpromotions() {
        let fen = "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(san(fen, "e7e8q"), "e8=Q+");
        assert_eq!(san(fen, "e7e8n"), "e8=N");
        assert_eq!(san(fen, "e7d8r"), "exd8=R+");
        assert_eq!(san(fen, "e7d8b"), "exd8=B");
    }

    #[test]
    fn castling_both_sides() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(san(fen, "e1g1"), "O-O");
        assert_eq!(san(fen, "e1c1"), "O-O-O");
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1";
        assert_eq!(san(fen, "e8g8"), "O-O");
        assert_eq!(san(fen, "e8c8"), "O-O-O");
    }

    #[test]
    fn castling_with_check() {
        let fen = "5k2/8/8/8/8/8/8/4K2R w K - 0 1";
        assert_eq!(san(fen, "e1g1"), "O-O+");
    }

    #[test]
    fn check_and_mate() {
        let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(san(fen, "a1a8"), "Ra8#");
        let fen = "6k1/5pp1/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(san(fen, "a1a8"), "Ra8+");
        // Fool's mate.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2";
        assert_eq!(san(fen, "d8h4"), "Qh4#");
    }

    #[test]
    fn captures_by_pieces() {
        let fen = "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1";
        assert_eq!(san(fen, "c3d5"), "Nxd5");
    }

    #[test]
    fn line_is_played_move_by_move() {
        let board = Board::default();
        let moves: Vec<Move> = ["e2e4", "e7e5", "g1f3"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(line_to_san(&board, &moves), ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn illegal_move_falls_back_to_uci() {
        let board = Board::default();
        assert_eq!(move_to_san(&board, "e2e5".parse().unwrap()), "e2e5");
    }
}
