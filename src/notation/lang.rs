//! Moves in the reader's language: SAN and long algebraic with the piece
//! letters of English, Russian, Romanian, German, French or figurines, and
//! ICCF numeric notation.
//!
//! | | King | Queen | Rook | Bishop | Knight | Castling | Capture |
//! |---|---|---|---|---|---|---|---|
//! | `en` | K | Q | R | B | N | `O-O` | `x` |
//! | `ru` | Кр | Ф | Л | С | К | `0-0` | `:` |
//! | `ro` | R | D | T | N | C | `0-0` | `x` |
//! | `de` | K | D | T | L | S | `0-0` | `x` |
//! | `fr` | R | D | T | F | C | `0-0` | `x` |
//! | `figurine` | ♔/♚ | ♕/♛ | ♖/♜ | ♗/♝ | ♘/♞ | `O-O` | `x` |
//!
//! Figurines: White's moves use the white glyphs (♔♕♖♗♘), Black's moves the
//! black ones (♚♛♜♝♞); the reader accepts either set for either side.
//!
//! Styles:
//! - [`MoveStyle::San`]: PGN's SAN with the language's letters (`Кf3`,
//!   `e:d5` in Russian, `e8=Ф`), `+` for check and `#` for mate;
//! - [`MoveStyle::Long`]: piece letter, from-square, `-` or the capture
//!   sign, to-square, promotion letter without `=`: `Кg1-f3`, `e4:d5`,
//!   `e7-e8Ф`; castling as in SAN; `+`/`#` as in SAN;
//! - [`MoveStyle::Iccf`]: ICCF numeric, files and ranks as digits 1-8 and a
//!   promotion digit (1 queen, 2 rook, 3 bishop, 4 knight): `7163`, `57581`;
//!   castling is the king's move (`5171`), no check marks.
//!
//! The reader of all these forms is [`parse_move`].

use std::str::FromStr;

use cozy_chess::{Board, Color, Move, Piece};
use serde::{Deserialize, Serialize};

use super::{is_castling, san::move_to_san, uci::move_to_uci};

pub use super::parse::{parse_move, parse_move_as, read_move, ParseMoveError, ReadMove};

/// The language of piece letters.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    utoipa::ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Lang {
    #[default]
    En,
    Ru,
    Ro,
    De,
    Fr,
    Figurine,
}

/// How a move is written.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    utoipa::ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum MoveStyle {
    /// Standard algebraic notation (`Nf3`).
    #[default]
    San,
    /// Long algebraic notation (`Ng1-f3`).
    Long,
    /// ICCF numeric notation (`7163`).
    Iccf,
}

/// How moves are written, as the command line's `--lang` and `--notation`:
/// declared once and flattened into every command that writes moves.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct NotationArgs {
    /// Language of the piece letters (written, and preferred when reading a move).
    #[arg(long, value_enum, default_value_t = Lang::En)]
    pub lang: Lang,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = MoveStyle::San)]
    pub notation: MoveStyle,
}

impl Lang {
    /// Every language, for tests and the reader.
    pub const ALL: [Lang; 6] = [
        Lang::En,
        Lang::Ru,
        Lang::Ro,
        Lang::De,
        Lang::Fr,
        Lang::Figurine,
    ];

    /// The letter(s) of `piece` moved by `side`; empty for a pawn.
    pub fn piece(self, piece: Piece, side: Color) -> &'static str {
        let letters: [&str; 5] = match (self, side) {
            (Lang::En, _) => ["K", "Q", "R", "B", "N"],
            (Lang::Ru, _) => ["Кр", "Ф", "Л", "С", "К"],
            (Lang::Ro, _) => ["R", "D", "T", "N", "C"],
            (Lang::De, _) => ["K", "D", "T", "L", "S"],
            (Lang::Fr, _) => ["R", "D", "T", "F", "C"],
            (Lang::Figurine, Color::White) => ["♔", "♕", "♖", "♗", "♘"],
            (Lang::Figurine, Color::Black) => ["♚", "♛", "♜", "♝", "♞"],
        };
        match piece {
            Piece::King => letters[0],
            Piece::Queen => letters[1],
            Piece::Rook => letters[2],
            Piece::Bishop => letters[3],
            Piece::Knight => letters[4],
            Piece::Pawn => "",
        }
    }

    /// The capture sign.
    pub fn capture(self) -> char {
        match self {
            Lang::Ru => ':',
            _ => 'x',
        }
    }

    /// Short castling.
    fn castle(self) -> &'static str {
        match self {
            Lang::En | Lang::Figurine => "O-O",
            _ => "0-0",
        }
    }

    /// Long castling.
    fn castle_long(self) -> &'static str {
        match self {
            Lang::En | Lang::Figurine => "O-O-O",
            _ => "0-0-0",
        }
    }
}

/// Why a language or style name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {name:?}; expected one of {expected}")]
pub struct UnknownName {
    kind: &'static str,
    name: String,
    expected: &'static str,
}

impl FromStr for Lang {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "en" => Lang::En,
            "ru" => Lang::Ru,
            "ro" => Lang::Ro,
            "de" => Lang::De,
            "fr" => Lang::Fr,
            "figurine" => Lang::Figurine,
            _ => {
                return Err(UnknownName {
                    kind: "language",
                    name: s.to_owned(),
                    expected: "en, ru, ro, de, fr, figurine",
                })
            }
        })
    }
}

impl FromStr for MoveStyle {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "san" => MoveStyle::San,
            "long" => MoveStyle::Long,
            "iccf" => MoveStyle::Iccf,
            _ => {
                return Err(UnknownName {
                    kind: "notation",
                    name: s.to_owned(),
                    expected: "san, long, iccf",
                })
            }
        })
    }
}

/// Writes `mv` (legal on `board`) in `lang` and `style`. An illegal move is
/// written in UCI form, as [`move_to_san`] does.
pub fn format_move(board: &Board, mv: Move, lang: Lang, style: MoveStyle) -> String {
    if !board.is_legal(mv) {
        return move_to_uci(board, mv, false);
    }
    match style {
        MoveStyle::San => san(board, mv, lang),
        MoveStyle::Long => long(board, mv, lang),
        MoveStyle::Iccf => iccf(board, mv),
    }
}

/// Writes a line of moves, playing each in turn; stops after the first
/// illegal move (written in UCI form).
pub fn format_line(board: &Board, moves: &[Move], lang: Lang, style: MoveStyle) -> Vec<String> {
    let mut board = board.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        out.push(format_move(&board, mv, lang, style));
        if board.try_play(mv).is_err() {
            break;
        }
    }
    out
}

/// SAN in `lang`: the English SAN with its letters, capture sign and
/// castling translated.
fn san(board: &Board, mv: Move, lang: Lang) -> String {
    let english = move_to_san(board, mv);
    if lang == Lang::En {
        return english;
    }
    let side = board.side_to_move();
    if let Some(rest) = english.strip_prefix("O-O-O") {
        return format!("{}{rest}", lang.castle_long());
    }
    if let Some(rest) = english.strip_prefix("O-O") {
        return format!("{}{rest}", lang.castle());
    }
    let mut out = String::with_capacity(english.len() + 4);
    for (i, c) in english.chars().enumerate() {
        match c {
            'K' | 'Q' | 'R' | 'B' | 'N' if i == 0 || out.ends_with('=') => {
                out.push_str(lang.piece(english_piece(c), side));
            }
            'x' => out.push(lang.capture()),
            c => out.push(c),
        }
    }
    out
}

fn english_piece(c: char) -> Piece {
    match c {
        'K' => Piece::King,
        'Q' => Piece::Queen,
        'R' => Piece::Rook,
        'B' => Piece::Bishop,
        _ => Piece::Knight,
    }
}

/// Long algebraic in `lang`.
fn long(board: &Board, mv: Move, lang: Lang) -> String {
    let side = board.side_to_move();
    let mut out = if is_castling(board, mv) {
        if mv.to.file() > mv.from.file() {
            lang.castle().to_owned()
        } else {
            lang.castle_long().to_owned()
        }
    } else {
        let piece = board.piece_on(mv.from).expect("legal move has a piece");
        let capture = board.color_on(mv.to) == Some(!side)
            || (piece == Piece::Pawn && mv.from.file() != mv.to.file());
        let mut s = String::with_capacity(10);
        s.push_str(lang.piece(piece, side));
        s.push_str(&mv.from.to_string());
        s.push(if capture { lang.capture() } else { '-' });
        s.push_str(&mv.to.to_string());
        if let Some(promo) = mv.promotion {
            s.push_str(lang.piece(promo, side));
        }
        s
    };
    out.push_str(check_suffix(board, mv));
    out
}

/// `+`, `#` or nothing.
fn check_suffix(board: &Board, mv: Move) -> &'static str {
    let mut after = board.clone();
    after.play_unchecked(mv);
    if after.checkers().is_empty() {
        ""
    } else if after.generate_moves(|_| true) {
        "+"
    } else {
        "#"
    }
}

/// ICCF numeric notation of a legal move.
fn iccf(board: &Board, mv: Move) -> String {
    let uci = move_to_uci(board, mv, false);
    let b = uci.as_bytes();
    let mut out = String::with_capacity(5);
    for (i, &c) in b[..4].iter().enumerate() {
        let digit = if i % 2 == 0 { c - b'a' + 1 } else { c - b'0' };
        out.push(char::from(b'0' + digit));
    }
    if let Some(promo) = mv.promotion {
        out.push(match promo {
            Piece::Queen => '1',
            Piece::Rook => '2',
            Piece::Bishop => '3',
            _ => '4',
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::uci::parse_uci_move;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn fmt(fen: &str, uci: &str, lang: Lang, style: MoveStyle) -> String {
        let board: Board = fen.parse().unwrap();
        let mv = parse_uci_move(&board, uci, false).unwrap();
        format_move(&board, mv, lang, style)
    }

    #[test]
    fn knight_to_f3_in_every_language() {
        let cases = [
            (Lang::En, "Nf3", "Ng1-f3"),
            (Lang::Ru, "Кf3", "Кg1-f3"),
            (Lang::Ro, "Cf3", "Cg1-f3"),
            (Lang::De, "Sf3", "Sg1-f3"),
            (Lang::Fr, "Cf3", "Cg1-f3"),
            (Lang::Figurine, "♘f3", "♘g1-f3"),
        ];
        for (lang, san, long) in cases {
            assert_eq!(fmt(START, "g1f3", lang, MoveStyle::San), san, "{lang:?}");
            assert_eq!(fmt(START, "g1f3", lang, MoveStyle::Long), long, "{lang:?}");
            assert_eq!(fmt(START, "g1f3", lang, MoveStyle::Iccf), "7163");
        }
        assert_eq!(fmt(START, "e2e4", Lang::Ru, MoveStyle::Long), "e2-e4");
        assert_eq!(fmt(START, "e2e4", Lang::En, MoveStyle::Iccf), "5254");
    }

    #[test]
    fn black_figurines_and_king_letters() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(fmt(fen, "g8f6", Lang::Figurine, MoveStyle::San), "♞f6");
        let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(fmt(fen, "e1d2", Lang::Ru, MoveStyle::San), "Крd2");
        assert_eq!(fmt(fen, "e1d2", Lang::Fr, MoveStyle::Long), "Re1-d2");
        assert_eq!(fmt(fen, "e1d2", Lang::De, MoveStyle::San), "Kd2");
    }

    #[test]
    fn captures_promotions_and_castling() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        assert_eq!(fmt(fen, "e4d5", Lang::Ru, MoveStyle::San), "e:d5");
        assert_eq!(fmt(fen, "e4d5", Lang::Ru, MoveStyle::Long), "e4:d5");
        assert_eq!(fmt(fen, "e4d5", Lang::De, MoveStyle::Long), "e4xd5");
        let fen = "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(fmt(fen, "e7e8q", Lang::Ru, MoveStyle::Long), "e7-e8Ф+");
        assert_eq!(fmt(fen, "e7d8n", Lang::Ro, MoveStyle::San), "exd8=C");
        assert_eq!(fmt(fen, "e7e8q", Lang::Figurine, MoveStyle::San), "e8=♕+");
        assert_eq!(fmt(fen, "e7e8q", Lang::En, MoveStyle::Iccf), "57581");
        assert_eq!(fmt(fen, "e7d8n", Lang::En, MoveStyle::Iccf), "57484");
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(fmt(fen, "e1g1", Lang::Ru, MoveStyle::San), "0-0");
        assert_eq!(fmt(fen, "e1c1", Lang::De, MoveStyle::Long), "0-0-0");
        assert_eq!(fmt(fen, "e1c1", Lang::En, MoveStyle::Long), "O-O-O");
        assert_eq!(fmt(fen, "e1g1", Lang::En, MoveStyle::Iccf), "5171");
    }

    #[test]
    fn mate_sign_in_long_notation() {
        let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(fmt(fen, "a1a8", Lang::Ru, MoveStyle::Long), "Лa1-a8#");
    }

    #[test]
    fn names_parse() {
        assert_eq!("figurine".parse::<Lang>(), Ok(Lang::Figurine));
        assert_eq!("iccf".parse::<MoveStyle>(), Ok(MoveStyle::Iccf));
        let err = "xx".parse::<Lang>().unwrap_err().to_string();
        assert!(err.contains("unknown language"), "{err}");
    }
}
