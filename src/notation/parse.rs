//! The lenient move reader: UCI, ICCF numeric, and SAN or long algebraic
//! in any language of [`Lang`].
//!
//! Leniency rules:
//! - surrounding whitespace, a leading move number (`12.`, `12...`),
//!   spaces inside, and trailing annotations (`+ # ! ? ‡ †`, `e.p.`, `ep`)
//!   are ignored;
//! - capture signs `x X : ×` and `-` may be present or not, and are not
//!   checked against the board (`Nxf3` to an empty square is `Nf3`), except
//!   that a pawn move with no from-file and no capture sign is a push;
//!   a trailing `:` (old Russian `Кf3:`) is a capture sign too;
//! - castling: `O-O`, `0-0`, `o-o` and Cyrillic `О-О`, with or without the
//!   dashes, or the king's two-square move (`Ke1-g1`, `e1g1`, `5171`);
//! - Cyrillic letters that look like Latin ones stand for them in
//!   coordinates and signs (`а с е` for `a c e`, `х` for `x`, `о О` for `O`);
//! - promotion: `e8=Q`, `e8Q`, `e8/Q`, `e8(Q)`, `e7e8q`; a promotion with no
//!   piece named matches all four, so it is refused as ambiguous;
//! - piece letters must be upper case (`b` is a file); `Кр` (or `КР`) is the
//!   Russian king;
//! - a move with its full from-square needs no piece letter (`g1-f3`).
//!
//! A piece letter can mean different pieces in different languages (`R` is
//! the English rook and the French king, `N` the English knight and the
//! Romanian bishop, `C` the French knight and, as a look-alike of Cyrillic
//! `С`, the Russian bishop). The reader resolves them by legality, in tiers:
//! 1. the letters of the preferred language ([`parse_move`]: English);
//! 2. the letters of every language (figurines included);
//! 3. also the look-alikes across scripts (Latin `K C T B`, Cyrillic
//!    `К С Т В`).
//!
//! The first tier under which some legal move matches decides: exactly one
//! match is the move, several are [`ParseMoveError::Ambiguous`] (naming them),
//! none under any tier is [`ParseMoveError::Illegal`]. But a text whose
//! letters are all the preferred language's is read in that language alone:
//! a typo (`Re2` where no rook reaches e2) is never taken for another
//! language's piece (the Romanian king); it is
//! [`ParseMoveError::IllegalAsWritten`], naming the other reading. A move read
//! under a later tier says how ([`ReadMove::reading`]).

use cozy_chess::{Board, File, Move, Piece, Rank, Square};

use super::{
    conventional_to, is_castling,
    lang::{format_move, Lang, MoveStyle},
    uci::parse_uci_move,
};

/// Longest move text read; the longest real one is under 20 characters.
const MAX_LEN: usize = 40;

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// Not a move in any notation the reader knows.
    #[error("unreadable move {0:?}")]
    Unreadable(String),
    /// A move in form, but no legal move in the position matches it.
    #[error("illegal move {0:?}")]
    Illegal(String),
    /// Several legal moves match; `candidates` are in SAN of the preferred language.
    #[error("ambiguous move {text:?}: could be {}", candidates.join(", "))]
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
    /// No legal move in the preferred language's letters, which the text
    /// is written in; another language's reading of them would be legal.
    #[error("illegal move {text:?} as its letters read in {}; {reading}, that would be {other}: write it so if it was meant", lang_name(*prefer))]
    IllegalAsWritten {
        text: String,
        prefer: Lang,
        /// How the other reading reads the letters (`R is the king in French, Romanian`).
        reading: String,
        /// That reading's move, in SAN of the preferred language.
        other: String,
    },
}

/// A move as read from text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadMove {
    pub mv: Move,
    /// How a letter was read when not as the preferred language writes it
    /// (`S is the knight in German`); `None` when it was.
    pub reading: Option<String>,
}

/// Reads `text` as a legal move on `board`, preferring English letters.
pub fn parse_move(board: &Board, text: &str) -> Result<Move, ParseMoveError> {
    parse_move_as(board, text, Lang::En)
}

/// Reads `text` as a legal move on `board`, preferring the letters of
/// `prefer` where a letter means different pieces in different languages.
pub fn parse_move_as(board: &Board, text: &str, prefer: Lang) -> Result<Move, ParseMoveError> {
    read_move(board, text, prefer).map(|read| read.mv)
}

/// [`parse_move_as`], also saying how the letters were read.
pub fn read_move(board: &Board, text: &str, prefer: Lang) -> Result<ReadMove, ParseMoveError> {
    let original = text;
    let plain = |mv| ReadMove { mv, reading: None };
    if text.chars().count() > MAX_LEN {
        return Err(ParseMoveError::Unreadable(truncate(text)));
    }
    let unreadable = || ParseMoveError::Unreadable(original.trim().to_owned());
    let cleaned = clean(text);
    if cleaned.is_empty() {
        return Err(unreadable());
    }
    if let Some(long) = castling_side(&cleaned) {
        return castle(board, long)
            .map(plain)
            .ok_or_else(|| ParseMoveError::Illegal(original.trim().into()));
    }
    let ascii: String = cleaned.iter().collect();
    if let Some(mv) = iccf(board, &ascii) {
        return mv
            .map(plain)
            .map_err(|()| ParseMoveError::Illegal(original.trim().into()));
    }
    if ascii.len() <= 5 {
        if let Ok(mv) = parse_uci_move(board, &ascii, false) {
            return Ok(plain(mv));
        }
    }
    let pattern = Pattern::read(&cleaned).ok_or_else(unreadable)?;
    let matching = |tier| {
        let mut matches = Vec::new();
        board.generate_moves(|moves| {
            matches.extend(
                moves
                    .into_iter()
                    .filter(|&mv| pattern.matches(board, mv, tier)),
            );
            false
        });
        matches
    };
    for tier in [Tier::Preferred(prefer), Tier::Every, Tier::LookAlike] {
        let matches = matching(tier);
        match matches.as_slice() {
            [] if matches!(tier, Tier::Preferred(_)) && pattern.written_in(prefer) => {
                // Written in the preferred language: a typo, not another language.
                let other = [Tier::Every, Tier::LookAlike].into_iter().find_map(|tier| {
                    match matching(tier).as_slice() {
                        [mv] => Some((*mv, tier)),
                        _ => None,
                    }
                });
                return Err(match other {
                    Some((mv, tier)) => ParseMoveError::IllegalAsWritten {
                        text: original.trim().to_owned(),
                        prefer,
                        reading: pattern.reading(board, mv, tier),
                        other: format_move(board, mv, prefer, MoveStyle::San),
                    },
                    None => ParseMoveError::Illegal(original.trim().to_owned()),
                });
            }
            [] => continue,
            [mv] => {
                return Ok(ReadMove {
                    mv: *mv,
                    reading: match tier {
                        Tier::Preferred(_) => None,
                        _ => Some(pattern.reading(board, *mv, tier)).filter(|r| !r.is_empty()),
                    },
                })
            }
            _ => {
                let mut candidates: Vec<String> = matches
                    .iter()
                    .map(|&mv| format_move(board, mv, prefer, MoveStyle::San))
                    .collect();
                candidates.sort();
                return Err(ParseMoveError::Ambiguous {
                    text: original.trim().to_owned(),
                    candidates,
                });
            }
        }
    }
    Err(ParseMoveError::Illegal(original.trim().to_owned()))
}

/// A language's name in messages.
fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "English",
        Lang::Ru => "Russian",
        Lang::Ro => "Romanian",
        Lang::De => "German",
        Lang::Fr => "French",
        Lang::Figurine => "figurines",
    }
}

fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "pawn",
        Piece::Knight => "knight",
        Piece::Bishop => "bishop",
        Piece::Rook => "rook",
        Piece::Queen => "queen",
        Piece::King => "king",
    }
}

fn truncate(text: &str) -> String {
    let mut short: String = text.chars().take(MAX_LEN).collect();
    short.push('…');
    short
}

/// The text with look-alikes mapped, whitespace, a leading move number and
/// trailing annotations removed.
fn clean(text: &str) -> Vec<char> {
    let mut chars: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            'а' => 'a',
            'с' => 'c',
            'е' => 'e',
            'х' | 'X' | '×' => 'x',
            'о' | 'О' | 'o' => 'O',
            '–' | '—' | '‐' | '−' => '-',
            c => c,
        })
        .collect();
    // A move number: digits then at least one dot.
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && chars.get(digits) == Some(&'.') {
        let dots = chars[digits..].iter().take_while(|&&c| c == '.').count();
        chars.drain(..digits + dots);
    }
    loop {
        let before = chars.len();
        while chars.last().is_some_and(|c| "+#!?‡†".contains(*c)) {
            chars.pop();
        }
        for suffix in [&['e', '.', 'p', '.'][..], &['e', 'p']] {
            if chars.ends_with(suffix) && chars.len() > suffix.len() {
                chars.truncate(chars.len() - suffix.len());
            }
        }
        if chars.len() == before {
            break;
        }
    }
    chars
}

/// `Some(false)` for short castling, `Some(true)` for long, from `O-O`,
/// `0-0`, `OO`, `O-O-O`, ...
fn castling_side(chars: &[char]) -> Option<bool> {
    let letters: Vec<char> = chars.iter().filter(|&&c| c != '-').copied().collect();
    if chars.first() == Some(&'-') || chars.last() == Some(&'-') {
        return None;
    }
    if !letters.iter().all(|&c| c == 'O' || c == '0') {
        return None;
    }
    match letters.len() {
        2 => Some(false),
        3 => Some(true),
        _ => None,
    }
}

fn castle(board: &Board, long: bool) -> Option<Move> {
    let mut found = None;
    board.generate_moves(|moves| {
        for mv in moves {
            if is_castling(board, mv) && (mv.to.file() < mv.from.file()) == long {
                found = Some(mv);
            }
        }
        found.is_some()
    });
    found
}

/// ICCF numeric (`5254`, `57581`): `None` when `text` is not in that form,
/// `Some(Err)` when it is but the move is illegal.
fn iccf(board: &Board, text: &str) -> Option<Result<Move, ()>> {
    let digits = text.as_bytes();
    if !(4..=5).contains(&digits.len())
        || !digits[..4].iter().all(|c| (b'1'..=b'8').contains(c))
        || !digits[4..].iter().all(|c| (b'1'..=b'4').contains(c))
    {
        return None;
    }
    let mut uci = String::with_capacity(5);
    for (i, &d) in digits[..4].iter().enumerate() {
        uci.push(char::from(if i % 2 == 0 { b'a' + d - b'1' } else { d }));
    }
    if let Some(&p) = digits.get(4) {
        uci.push(['q', 'r', 'b', 'n'][usize::from(p - b'1')]);
    }
    Some(parse_uci_move(board, &uci, false).map_err(|_| ()))
}

/// A piece named in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Letter {
    /// One upper-case letter, Latin or Cyrillic.
    Char(char),
    /// The Russian `Кр`.
    RussianKing,
    /// A figurine, of either colour.
    Figurine(Piece),
}

/// Which readings of a letter count.
#[derive(Clone, Copy, Debug)]
enum Tier {
    Preferred(Lang),
    Every,
    LookAlike,
}

impl Letter {
    /// Reads a piece at the start of `chars`, returning it and its length.
    fn read(chars: &[char]) -> Option<(Letter, usize)> {
        let &first = chars.first()?;
        if let Some(piece) = figurine(first) {
            return Some((Letter::Figurine(piece), 1));
        }
        if matches!(first, 'К' | 'K') && matches!(chars.get(1), Some('р' | 'Р' | 'p' | 'P')) {
            return Some((Letter::RussianKing, 2));
        }
        if !readings(first).is_empty() || !readings(look_alike(first)).is_empty() {
            return Some((Letter::Char(first), 1));
        }
        None
    }

    /// Whether this letter is one of `lang`'s piece letters.
    fn is_of(self, lang: Lang) -> bool {
        match self {
            Letter::Figurine(_) => lang == Lang::Figurine,
            Letter::RussianKing => lang == Lang::Ru,
            Letter::Char(c) => readings(c).iter().any(|&(_, l)| l == lang),
        }
    }

    /// How this letter names `piece` under `tier`: `R is the king in
    /// French, Romanian`; `None` for a figurine, which needs no saying.
    fn describe(self, piece: Piece, tier: Tier) -> Option<String> {
        let Letter::Char(c) = self else {
            return match self {
                Letter::RussianKing => Some("Кр is the king in Russian".into()),
                _ => None,
            };
        };
        let langs = |letter: char| -> Vec<&str> {
            readings(letter)
                .iter()
                .filter(|&&(p, _)| p == piece)
                .map(|&(_, lang)| lang_name(lang))
                .collect()
        };
        let own = langs(c);
        if !own.is_empty() {
            return Some(format!(
                "{c} is the {} in {}",
                piece_name(piece),
                own.join(", ")
            ));
        }
        let other = look_alike(c);
        let alike = langs(other);
        (matches!(tier, Tier::LookAlike) && !alike.is_empty()).then(|| {
            format!(
                "{c}, taken for the look-alike {other}, is the {} in {}",
                piece_name(piece),
                alike.join(", ")
            )
        })
    }

    /// Whether this letter can name `piece` under `tier`.
    fn names(self, piece: Piece, tier: Tier) -> bool {
        let readings: Vec<(Piece, Lang)> = match self {
            Letter::Figurine(p) => vec![(p, Lang::Figurine)],
            Letter::RussianKing => vec![(Piece::King, Lang::Ru)],
            Letter::Char(c) => match tier {
                Tier::LookAlike => readings(c)
                    .iter()
                    .chain(readings(look_alike(c)))
                    .copied()
                    .collect(),
                _ => readings(c).to_vec(),
            },
        };
        readings.iter().any(|&(p, lang)| {
            p == piece && !matches!(tier, Tier::Preferred(prefer) if prefer != lang)
        })
    }
}

fn figurine(c: char) -> Option<Piece> {
    Some(match c {
        '♔' | '♚' => Piece::King,
        '♕' | '♛' => Piece::Queen,
        '♖' | '♜' => Piece::Rook,
        '♗' | '♝' => Piece::Bishop,
        '♘' | '♞' => Piece::Knight,
        '♙' | '♟' => Piece::Pawn,
        _ => return None,
    })
}

/// What an upper-case letter means in each language that uses it.
fn readings(c: char) -> &'static [(Piece, Lang)] {
    use Lang::*;
    use Piece::*;
    match c {
        'K' => &[(King, En), (King, De)],
        'Q' => &[(Queen, En)],
        'R' => &[(Rook, En), (King, Ro), (King, Fr)],
        'B' => &[(Bishop, En)],
        'N' => &[(Knight, En), (Bishop, Ro)],
        'D' => &[(Queen, Ro), (Queen, De), (Queen, Fr)],
        'T' => &[(Rook, Ro), (Rook, De), (Rook, Fr)],
        'C' => &[(Knight, Ro), (Knight, Fr)],
        'L' => &[(Bishop, De)],
        'S' => &[(Knight, De)],
        'F' => &[(Bishop, Fr)],
        'К' => &[(Knight, Ru)],
        'Ф' => &[(Queen, Ru)],
        'Л' => &[(Rook, Ru)],
        'С' => &[(Bishop, Ru)],
        _ => &[],
    }
}

/// The letter of the other script that looks like `c`, or `c`.
fn look_alike(c: char) -> char {
    match c {
        'K' => 'К',
        'К' => 'K',
        'C' => 'С',
        'С' => 'C',
        'Т' => 'T',
        'В' => 'B',
        c => c,
    }
}

/// A SAN or long-algebraic move, read but not yet matched.
#[derive(Debug)]
struct Pattern {
    piece: Option<Letter>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Letter>,
}

impl Pattern {
    /// `[piece] [file] [rank] [- x :] file rank [= / ( ] [promotion] [)] [:]`.
    fn read(chars: &[char]) -> Option<Pattern> {
        let (piece, start) = match Letter::read(chars) {
            Some((letter, len)) => (Some(letter), len),
            None => (None, 0),
        };
        let rest = &chars[start..];
        let to_at = (0..rest.len().saturating_sub(1))
            .rev()
            .find(|&i| file(rest[i]).is_some() && rank(rest[i + 1]).is_some())?;
        let to = Square::new(file(rest[to_at])?, rank(rest[to_at + 1])?);
        let mut pattern = Pattern {
            piece,
            from_file: None,
            from_rank: None,
            capture: false,
            to,
            promotion: None,
        };
        // Between the piece and the destination: file, rank, sign, in order.
        let mut stage = 0;
        for &c in &rest[..to_at] {
            if let (Some(f), 0) = (file(c), stage) {
                pattern.from_file = Some(f);
                stage = 1;
            } else if let (Some(r), 0..=1) = (rank(c), stage) {
                pattern.from_rank = Some(r);
                stage = 2;
            } else if matches!(c, '-' | 'x' | ':') && stage < 3 {
                pattern.capture = c != '-';
                stage = 3;
            } else {
                return None;
            }
        }
        let mut tail = &rest[to_at + 2..];
        if tail.last() == Some(&':') {
            pattern.capture = true;
            tail = &tail[..tail.len() - 1];
        }
        let tail: Vec<char> = tail
            .iter()
            .filter(|c| !matches!(c, '=' | '/' | '(' | ')'))
            .map(|c| match c {
                'q' | 'r' | 'b' | 'n' => c.to_ascii_uppercase(),
                &c => c,
            })
            .collect();
        if !tail.is_empty() {
            let (letter, len) = Letter::read(&tail)?;
            if len != tail.len() {
                return None;
            }
            pattern.promotion = Some(letter);
        }
        Some(pattern)
    }

    /// Whether every letter of the text (piece, promotion) is one of `lang`'s.
    fn written_in(&self, lang: Lang) -> bool {
        [self.piece, self.promotion]
            .into_iter()
            .flatten()
            .all(|letter| letter.is_of(lang))
    }

    /// How the letters were read to match `mv` under `tier`.
    fn reading(&self, board: &Board, mv: Move, tier: Tier) -> String {
        let piece = self
            .piece
            .zip(board.piece_on(mv.from))
            .and_then(|(letter, piece)| letter.describe(piece, tier));
        let promotion = self
            .promotion
            .zip(mv.promotion)
            .and_then(|(letter, piece)| letter.describe(piece, tier));
        [piece, promotion]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn matches(&self, board: &Board, mv: Move, tier: Tier) -> bool {
        let Some(piece) = board.piece_on(mv.from) else {
            return false;
        };
        // Castling is cozy-chess's king-takes-rook; the text names the king's square.
        if conventional_to(board, mv) != self.to
            || self.from_file.is_some_and(|f| f != mv.from.file())
            || self.from_rank.is_some_and(|r| r != mv.from.rank())
        {
            return false;
        }
        let piece_ok = match self.piece {
            Some(letter) => letter.names(piece, tier),
            None if self.from_file.is_some() && self.from_rank.is_some() => true,
            None => {
                piece == Piece::Pawn
                    && (self.from_file.is_some() || self.capture)
                        == (mv.from.file() != mv.to.file())
            }
        };
        let promotion_ok = match (self.promotion, mv.promotion) {
            (Some(letter), Some(promo)) => letter.names(promo, tier),
            (Some(_), None) => false,
            (None, _) => true,
        };
        piece_ok && promotion_ok
    }
}

fn file(c: char) -> Option<File> {
    ('a'..='h')
        .contains(&c)
        .then(|| File::index(usize::from(c as u8 - b'a')))
}

fn rank(c: char) -> Option<Rank> {
    ('1'..='8')
        .contains(&c)
        .then(|| Rank::index(usize::from(c as u8 - b'1')))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::notation::uci::move_to_uci;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn uci(fen: &str, text: &str) -> Result<String, ParseMoveError> {
        let board: Board = fen.parse().unwrap();
        parse_move(&board, text).map(|mv| move_to_uci(&board, mv, false))
    }

    fn uci_as(fen: &str, text: &str, lang: Lang) -> Result<String, ParseMoveError> {
        let board: Board = fen.parse().unwrap();
        parse_move_as(&board, text, lang).map(|mv| move_to_uci(&board, mv, false))
    }

    #[test]
    fn every_form_of_e4_and_nf3() {
        for text in [
            "e4", "e2-e4", "e2e4", "5254", "1. e4", "e4!?", "е2-е4", "e2–e4",
        ] {
            assert_eq!(uci(START, text).as_deref(), Ok("e2e4"), "{text:?}");
        }
        for text in [
            "Nf3",
            "Ng1-f3",
            "Кf3",
            "Кg1-f3",
            "Cf3",
            "Sf3",
            "♘f3",
            "♞f3",
            "7163",
            "g1f3",
            "g1-f3",
            "Nxf3",
            "12...Nf3+",
            "N g1 f3",
        ] {
            assert_eq!(uci(START, text).as_deref(), Ok("g1f3"), "{text:?}");
        }
    }

    #[test]
    fn cyrillic_look_alikes_in_coordinates() {
        // Cyrillic а, с, е in the squares.
        assert_eq!(uci(START, "с2-с4").as_deref(), Ok("c2c4"));
        assert_eq!(uci(START, "а2а3").as_deref(), Ok("a2a3"));
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        assert_eq!(uci(fen, "ехd5").as_deref(), Ok("e4d5"));
        assert_eq!(uci(fen, "e:d5").as_deref(), Ok("e4d5"));
        assert_eq!(uci(fen, "ed5").as_deref(), Ok("e4d5"));
        // `d5` alone is a push, which is illegal here.
        assert!(matches!(uci(fen, "d5"), Err(ParseMoveError::Illegal(_))));
    }

    #[test]
    fn russian_king_and_bishop_versus_knights() {
        let fen = "4k3/8/8/8/8/8/8/4K1NB w - - 0 1";
        assert_eq!(uci(fen, "Крf2").as_deref(), Ok("e1f2"));
        assert_eq!(uci(fen, "КРf1").as_deref(), Ok("e1f1"));
        // Cyrillic К alone is the Russian knight; Latin K is the king.
        assert_eq!(uci(fen, "Кf3").as_deref(), Ok("g1f3"));
        assert_eq!(uci(fen, "Kf1").as_deref(), Ok("e1f1"));
        // Cyrillic С is the Russian bishop, Latin C the French knight.
        assert_eq!(uci(fen, "Сg2").as_deref(), Ok("h1g2"));
        assert_eq!(uci(fen, "Cе2").as_deref(), Ok("g1e2"));
        // Latin C to a square only a bishop reaches: the look-alike reading.
        assert_eq!(uci(fen, "Cf3").as_deref(), Ok("g1f3"));
        assert_eq!(uci(fen, "Cd5").as_deref(), Ok("h1d5"));
    }

    #[test]
    fn letters_that_differ_between_languages() {
        // Rook a1 and king g1 both reach f1: R is the English rook ...
        let fen = "4k3/8/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(uci(fen, "Rf1").as_deref(), Ok("a1f1"));
        // ... and the French king when French is preferred.
        assert_eq!(uci_as(fen, "Rf1", Lang::Fr).as_deref(), Ok("g1f1"));
        // N: English knight, Romanian bishop.
        let fen = "4k3/8/8/8/8/8/8/4KBN1 w - - 0 1";
        assert_eq!(uci(fen, "Nh3").as_deref(), Ok("g1h3"));
        assert_eq!(uci_as(fen, "Nh3", Lang::Ro).as_deref(), Ok("f1h3"));
        // In German neither reading is German, so both count: ambiguous.
        let err = uci_as(fen, "Nh3", Lang::De).unwrap_err();
        assert_eq!(
            err,
            ParseMoveError::Ambiguous {
                text: "Nh3".into(),
                candidates: vec!["Lh3".into(), "Sh3".into()],
            }
        );
        assert_eq!(err.to_string(), "ambiguous move \"Nh3\": could be Lh3, Sh3");
    }

    #[test]
    fn a_typo_in_english_letters_is_not_read_as_another_language() {
        // No rook reaches e2 (R is the Romanian and French king) ...
        let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let err = uci(fen, "Re2").unwrap_err();
        assert_eq!(
            err,
            ParseMoveError::IllegalAsWritten {
                text: "Re2".into(),
                prefer: Lang::En,
                reading: "R is the king in Romanian, French".into(),
                other: "Ke2".into(),
            }
        );
        assert!(err.to_string().contains("that would be Ke2"), "{err}");
        // ... and no knight reaches b5 (N is the Romanian bishop).
        let fen = "4k3/8/8/8/8/8/8/4KB1N w - - 0 1";
        assert!(matches!(
            uci(fen, "Nb5"),
            Err(ParseMoveError::IllegalAsWritten { .. })
        ));
        // A letter that is not English is read in the other languages, saying how.
        let board: Board = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1".parse().unwrap();
        let read = read_move(&board, "Sf3", Lang::En).unwrap();
        assert_eq!(read.reading.as_deref(), Some("S is the knight in German"));
        let read = read_move(&board, "Nf3", Lang::En).unwrap();
        assert_eq!(read.reading, None);
    }

    #[test]
    fn castling_forms() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for text in [
            "O-O", "0-0", "о-о", "OO", "Ke1-g1", "e1g1", "e1h1", "5171", "Kg1", "0-0+",
        ] {
            assert_eq!(uci(fen, text).as_deref(), Ok("e1g1"), "{text:?}");
        }
        for text in ["O-O-O", "0-0-0", "О-О-О", "Кр e1-c1", "5131"] {
            assert_eq!(uci(fen, text).as_deref(), Ok("e1c1"), "{text:?}");
        }
        assert!(matches!(uci(START, "O-O"), Err(ParseMoveError::Illegal(_))));
    }

    #[test]
    fn promotions() {
        let fen = "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1";
        for text in [
            "e8=Q", "e8Q", "e8/Q", "e8(Q)", "e7e8q", "e7-e8Ф", "e8=D", "57581", "e8♕",
        ] {
            assert_eq!(uci(fen, text).as_deref(), Ok("e7e8q"), "{text:?}");
        }
        assert_eq!(uci(fen, "exd8=N").as_deref(), Ok("e7d8n"));
        assert_eq!(uci(fen, "e:d8К").as_deref(), Ok("e7d8n"));
        assert_eq!(uci_as(fen, "exd8N", Lang::Ro).as_deref(), Ok("e7d8b"));
        let err = uci(fen, "e8").unwrap_err();
        assert!(
            matches!(&err, ParseMoveError::Ambiguous { candidates, .. } if candidates.len() == 4),
            "{err}"
        );
    }

    #[test]
    fn ambiguous_illegal_and_unreadable() {
        let fen = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
        assert_eq!(
            uci(fen, "Nd2"),
            Err(ParseMoveError::Ambiguous {
                text: "Nd2".into(),
                candidates: vec!["Nbd2".into(), "Nfd2".into()],
            })
        );
        assert_eq!(uci(fen, "Nbd2").as_deref(), Ok("b1d2"));
        assert_eq!(uci(START, "e5"), Err(ParseMoveError::Illegal("e5".into())));
        assert_eq!(
            uci(START, "Qh5"),
            Err(ParseMoveError::Illegal("Qh5".into()))
        );
        assert_eq!(
            uci(START, "5255"),
            Err(ParseMoveError::Illegal("5255".into()))
        );
        for junk in [
            "", "  ", "hello", "Zf3", "e9", "Nf3f3f3", "♘", "e2-e4-e5", "=Q",
        ] {
            assert!(
                matches!(uci(START, junk), Err(ParseMoveError::Unreadable(_))),
                "{junk:?}: {:?}",
                uci(START, junk)
            );
        }
        let long = "e".repeat(1000);
        let err = uci(START, &long).unwrap_err().to_string();
        assert!(err.len() < 100, "{err}");
    }

    /// A position after `plies` random legal moves from the start.
    fn playout(seed: u64, plies: usize) -> Board {
        let mut board = Board::default();
        let mut state = seed | 1;
        for _ in 0..plies {
            let mut moves = Vec::new();
            board.generate_moves(|m| {
                moves.extend(m);
                false
            });
            if moves.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            board.play_unchecked(moves[(state % moves.len() as u64) as usize]);
        }
        board
    }

    /// Every legal move of `board`, written in every language and style,
    /// reads back as itself with that language preferred; English,
    /// figurines and ICCF also read back with no preference.
    fn round_trip(board: &Board) -> Result<(), String> {
        let mut moves = Vec::new();
        board.generate_moves(|m| {
            moves.extend(m);
            false
        });
        for mv in moves {
            for lang in Lang::ALL {
                for style in [MoveStyle::San, MoveStyle::Long, MoveStyle::Iccf] {
                    let text = format_move(board, mv, lang, style);
                    let mut readings = vec![parse_move_as(board, &text, lang)];
                    if matches!(lang, Lang::En | Lang::Figurine) || style == MoveStyle::Iccf {
                        readings.push(parse_move(board, &text));
                    }
                    for read in readings {
                        if read != Ok(mv) {
                            return Err(format!("{board}: {text:?} ({lang:?}) read as {read:?}"));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn special_moves_read_back() {
        for fen in [
            // Castling both ways, both sides, and promotions with captures.
            "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
            "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1",
            // En passant.
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            // Three queens reaching one square; knights and rooks needing
            // file, rank or both.
            "1k6/8/8/8/Q6Q/8/8/Q3K3 w - - 0 1",
            "4k3/8/8/2N1N3/1N5N/8/R6R/R3K3 w - - 0 1",
            // A knight and a bishop, a rook and a king, reaching one square
            // (letters that differ between languages).
            "4k3/8/8/8/8/8/8/4KBN1 w - - 0 1",
            "4k3/8/8/8/8/8/8/R5K1 w - - 0 1",
        ] {
            let board: Board = fen.parse().expect(fen);
            round_trip(&board).unwrap();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn every_written_move_reads_back(seed in any::<u64>(), plies in 0usize..120) {
            let board = playout(seed, plies);
            prop_assert_eq!(round_trip(&board), Ok(()));
        }
    }
}
