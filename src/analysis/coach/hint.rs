//! Graded hints, as a coach gives them: level 1 names the piece to move,
//! level 2 adds the kind of move (capture, check, promotion, castling or a
//! quiet move), level 3 gives the move itself.
//!
//! A threat hint is the same about the opponent: the best move of the side
//! not to move, found by a null move (the turn passes on a copy of the
//! board). It is refused when the side to move is in check, where passing
//! is not possible.

use cozy_chess::{Board, Color, Move, Piece};
use serde::Serialize;

use super::{
    has_moves,
    phrases::{sentence, Said},
    CoachError, GameOver,
};
use crate::{
    analysis::{game_over, Analysis, BestMove},
    notation::{
        is_castling,
        lang::{format_move, Lang, MoveStyle},
        uci::move_to_uci,
    },
};

/// What kind of move a hint's move is; a move may be several (a capture
/// with check), a quiet move is none of the others.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MoveKind {
    Capture,
    Check,
    Promotion,
    Castling,
    Quiet,
}

/// A hint at one level.
#[derive(Serialize, Clone, Debug, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hint {
    pub level: u8,
    /// The hint as a sentence in the requested language (English for
    /// figurines), with the move (level 3) in the requested notation.
    pub text: String,
    /// Upper-case English letter of the piece to move (`P` for a pawn).
    pub piece: String,
    /// The square of the piece to move.
    pub from: String,
    /// Level 2 and up.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<MoveKind>,
    /// Level 3.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<BestMove>,
    /// Whether the hint is about the opponent's threat.
    pub threat: bool,
}

/// What a hint is asked for.
#[derive(Clone, Copy, Debug)]
pub struct HintRequest {
    pub level: u8,
    pub threat: bool,
    pub lang: Lang,
    pub style: MoveStyle,
}

/// The position a hint is about: `board` itself, or after a null move for
/// a threat.
pub fn hint_position(board: &Board, threat: bool) -> Result<Board, CoachError> {
    let position = if threat {
        board.null_move().ok_or(CoachError::InCheck)?
    } else {
        board.clone()
    };
    if !has_moves(&position) {
        let over = game_over(&position).unwrap_or(GameOver::Stalemate);
        return Err(CoachError::NoMove(over));
    }
    Ok(position)
}

/// Asks `analyse` for the best move of the hint's position and words the
/// hint. `analyse` is called once.
pub fn hint<E: From<CoachError>>(
    board: &Board,
    request: HintRequest,
    analyse: impl FnOnce(&Board) -> Result<Analysis, E>,
) -> Result<Hint, E> {
    if !(1..=3).contains(&request.level) {
        return Err(CoachError::Level(request.level).into());
    }
    let position = hint_position(board, request.threat)?;
    let analysis = analyse(&position)?;
    let best = analysis
        .best_move
        .filter(|&mv| position.is_legal(mv))
        .ok_or(CoachError::NoEngineMove)?;
    Ok(word(&position, best, request))
}

/// The hint for playing `mv` on `position` (the position after the null
/// move for a threat).
pub fn word(position: &Board, mv: Move, request: HintRequest) -> Hint {
    let piece = position.piece_on(mv.from).expect("legal move has a piece");
    let kinds = kinds(position, mv);
    let written = format_move(position, mv, request.lang, request.style);
    let from = mv.from.to_string();
    let text = sentence(
        request.lang,
        &Said {
            level: request.level,
            threat: request.threat,
            piece,
            from: &from,
            kinds: &kinds,
            written: &written,
        },
    );
    Hint {
        level: request.level,
        text,
        piece: english_letter(piece).to_string(),
        from,
        kinds: if request.level >= 2 {
            kinds
        } else {
            Vec::new()
        },
        mv: (request.level >= 3).then(|| BestMove {
            uci: move_to_uci(position, mv, false),
            san: written,
        }),
        threat: request.threat,
    }
}

/// The kinds of a legal move.
pub fn kinds(board: &Board, mv: Move) -> Vec<MoveKind> {
    let piece = board.piece_on(mv.from);
    let castling = is_castling(board, mv);
    let capture = !castling
        && (board.color_on(mv.to) == Some(!board.side_to_move())
            || (piece == Some(Piece::Pawn) && mv.from.file() != mv.to.file()));
    let mut after = board.clone();
    after.play_unchecked(mv);
    let check = !after.checkers().is_empty();
    let mut kinds = Vec::new();
    if capture {
        kinds.push(MoveKind::Capture);
    }
    if check {
        kinds.push(MoveKind::Check);
    }
    if mv.promotion.is_some() {
        kinds.push(MoveKind::Promotion);
    }
    if castling {
        kinds.push(MoveKind::Castling);
    }
    if kinds.is_empty() {
        kinds.push(MoveKind::Quiet);
    }
    kinds
}

fn english_letter(piece: Piece) -> char {
    match piece {
        Piece::Pawn => 'P',
        piece => Lang::En
            .piece(piece, Color::White)
            .chars()
            .next()
            .unwrap_or('P'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        analysis::{engine::analyze, AnalysisLimits},
        notation::uci::parse_uci_move,
    };

    fn ask(fen: &str, level: u8, threat: bool, lang: Lang) -> Result<Hint, CoachError> {
        let board: Board = fen.parse().unwrap();
        let request = HintRequest {
            level,
            threat,
            lang,
            style: MoveStyle::San,
        };
        hint(&board, request, |b| {
            Ok::<_, CoachError>(analyze(
                b,
                &AnalysisLimits {
                    depth: Some(4),
                    ..AnalysisLimits::default()
                },
            ))
        })
    }

    /// White's queen on d1 takes the undefended rook on d8 with mate.
    const MATE_IN_ONE: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

    #[test]
    fn three_levels_of_one_move() {
        let one = ask(MATE_IN_ONE, 1, false, Lang::En).unwrap();
        assert_eq!((one.piece.as_str(), one.from.as_str()), ("Q", "d1"));
        assert_eq!(one.text, "Move your queen on d1.");
        assert!(one.kinds.is_empty() && one.mv.is_none());
        let two = ask(MATE_IN_ONE, 2, false, Lang::En).unwrap();
        assert_eq!(two.kinds, [MoveKind::Capture, MoveKind::Check]);
        assert_eq!(two.text, "Your queen on d1 has a capture with check.");
        let three = ask(MATE_IN_ONE, 3, false, Lang::Ru).unwrap();
        let mv = three.mv.unwrap();
        assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("d1d8", "Ф:d8#"));
        assert_eq!(three.text, "Сделайте ход Ф:d8#.");
    }

    #[test]
    fn threat_is_the_opponents_best_move() {
        // Black to move; White threatens Qxd8#.
        let fen = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 b - - 0 1";
        let threat = ask(fen, 3, true, Lang::En).unwrap();
        assert!(threat.threat);
        assert_eq!(threat.mv.unwrap().uci, "d1d8");
        assert_eq!(threat.text, "Your opponent threatens Qxd8#.");
    }

    #[test]
    fn refusals() {
        // In check: no threat.
        let fen = "4k3/8/8/8/8/8/8/4K2r w - - 0 1";
        assert_eq!(
            ask(fen, 1, true, Lang::En).unwrap_err(),
            CoachError::InCheck
        );
        // Checkmated: no hint.
        let fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(
            ask(fen, 1, false, Lang::En).unwrap_err(),
            CoachError::NoMove(GameOver::Checkmate)
        );
        assert_eq!(
            ask(MATE_IN_ONE, 4, false, Lang::En).unwrap_err(),
            CoachError::Level(4)
        );
    }

    #[test]
    fn kinds_of_special_moves() {
        let board: Board = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        let mv = |uci| parse_uci_move(&board, uci, false).unwrap();
        assert_eq!(kinds(&board, mv("e1g1")), [MoveKind::Castling]);
        assert_eq!(
            kinds(&board, mv("b7a8q")),
            [MoveKind::Capture, MoveKind::Check, MoveKind::Promotion]
        );
        assert_eq!(kinds(&board, mv("b7b8n")), [MoveKind::Promotion]);
        assert_eq!(kinds(&board, mv("a1a2")), [MoveKind::Quiet]);
        let promotes = kinds(&board, mv("b7a8q"));
        let said = Said {
            level: 2,
            threat: false,
            piece: Piece::Pawn,
            from: "b7",
            kinds: &promotes,
            written: "",
        };
        assert_eq!(
            sentence(Lang::En, &said),
            "Your pawn on b7 has a capture that promotes with check."
        );
    }
}
