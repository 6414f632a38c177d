//! A hint's sentence in the reader's language. The sentences are built so
//! that no word has to agree with another beyond what each table holds
//! (Russian keeps the nominative, German and Romanian carry the article
//! with the piece's name). Figurine readers get English sentences.

use cozy_chess::Piece;

use super::hint::MoveKind;
use crate::notation::lang::Lang;

/// What a sentence says.
pub struct Said<'a> {
    pub level: u8,
    pub threat: bool,
    pub piece: Piece,
    /// The square the piece stands on (`d1`).
    pub from: &'a str,
    pub kinds: &'a [MoveKind],
    /// The move in the requested notation (level 3).
    pub written: &'a str,
}

/// The sentence for `said` in `lang`.
pub fn sentence(lang: Lang, said: &Said) -> String {
    let words = Words::of(lang);
    let name = words.piece[piece_index(said.piece)];
    let kind = describe(&words, said.kinds);
    let (from, written) = (said.from, said.written);
    let text = match (said.level, said.threat) {
        (1, false) => words.move_piece,
        (1, true) => words.threat_piece,
        (2, false) => words.piece_has,
        (2, true) => words.threat_kind,
        (_, false) => words.play,
        (_, true) => words.threat_move,
    }
    .replace("{piece}", name)
    .replace("{from}", from)
    .replace("{kind}", &kind)
    .replace("{move}", written);
    capitalise(&text)
}

/// One language's words. `piece` is indexed pawn, knight, bishop, rook,
/// queen, king, in the form the templates need.
struct Words {
    piece: [&'static str; 6],
    move_piece: &'static str,
    threat_piece: &'static str,
    piece_has: &'static str,
    threat_kind: &'static str,
    play: &'static str,
    threat_move: &'static str,
    /// Castling, capture with promotion, capture, promotion, check, quiet.
    kinds: [&'static str; 6],
    /// Appended to a capture, promotion or castling that also checks.
    with_check: &'static str,
}

impl Words {
    fn of(lang: Lang) -> Words {
        match lang {
            Lang::En | Lang::Figurine => Words {
                piece: ["pawn", "knight", "bishop", "rook", "queen", "king"],
                move_piece: "move your {piece} on {from}.",
                threat_piece: "your opponent threatens to move their {piece} on {from}.",
                piece_has: "your {piece} on {from} has {kind}.",
                threat_kind: "your opponent threatens {kind} with their {piece} on {from}.",
                play: "play {move}.",
                threat_move: "your opponent threatens {move}.",
                kinds: [
                    "castling",
                    "a capture that promotes",
                    "a capture",
                    "a promotion",
                    "a check",
                    "a quiet move",
                ],
                with_check: " with check",
            },
            Lang::Ru => Words {
                piece: ["пешка", "конь", "слон", "ладья", "ферзь", "король"],
                move_piece: "ходит {piece} с поля {from}.",
                threat_piece: "соперник угрожает ходом: {piece} с поля {from}.",
                piece_has: "{piece} с поля {from}: {kind}.",
                threat_kind: "соперник угрожает: {piece} с поля {from}, {kind}.",
                play: "сделайте ход {move}.",
                threat_move: "соперник угрожает ходом {move}.",
                kinds: [
                    "рокировка",
                    "взятие с превращением",
                    "взятие",
                    "превращение",
                    "шах",
                    "тихий ход",
                ],
                with_check: " с шахом",
            },
            Lang::Ro => Words {
                piece: ["pionul", "calul", "nebunul", "turnul", "dama", "regele"],
                move_piece: "mutați {piece} de pe {from}.",
                threat_piece: "adversarul amenință să mute {piece} de pe {from}.",
                piece_has: "{piece} de pe {from} are {kind}.",
                threat_kind: "adversarul amenință {kind} cu {piece} de pe {from}.",
                play: "jucați {move}.",
                threat_move: "adversarul amenință {move}.",
                kinds: [
                    "o rocadă",
                    "o captură cu transformare",
                    "o captură",
                    "o transformare",
                    "un șah",
                    "o mutare liniștită",
                ],
                with_check: " cu șah",
            },
            Lang::De => Words {
                piece: [
                    "der Bauer",
                    "der Springer",
                    "der Läufer",
                    "der Turm",
                    "die Dame",
                    "der König",
                ],
                move_piece: "ziehen Sie: {piece} auf {from}.",
                threat_piece: "der Gegner droht einen Zug: {piece} auf {from}.",
                piece_has: "{piece} auf {from} hat {kind}.",
                threat_kind: "der Gegner droht {kind}: {piece} auf {from}.",
                play: "spielen Sie {move}.",
                threat_move: "der Gegner droht {move}.",
                kinds: [
                    "eine Rochade",
                    "einen Schlagzug mit Umwandlung",
                    "einen Schlagzug",
                    "eine Umwandlung",
                    "ein Schach",
                    "einen ruhigen Zug",
                ],
                with_check: " mit Schach",
            },
            Lang::Fr => Words {
                piece: [
                    "le pion",
                    "le cavalier",
                    "le fou",
                    "la tour",
                    "la dame",
                    "le roi",
                ],
                move_piece: "jouez {piece} en {from}.",
                threat_piece: "l'adversaire menace de jouer {piece} en {from}.",
                piece_has: "{piece} en {from} a {kind}.",
                threat_kind: "l'adversaire menace {kind} avec {piece} en {from}.",
                play: "jouez {move}.",
                threat_move: "l'adversaire menace {move}.",
                kinds: [
                    "un roque",
                    "une prise avec promotion",
                    "une prise",
                    "une promotion",
                    "un échec",
                    "un coup tranquille",
                ],
                with_check: " avec échec",
            },
        }
    }
}

/// "a capture with check", "a quiet move", "castling", ... in `words`.
fn describe(words: &Words, kinds: &[MoveKind]) -> String {
    let has = |k| kinds.contains(&k);
    let [castling, capture_promotes, capture, promotion, check, quiet] = words.kinds;
    let base = if has(MoveKind::Castling) {
        castling
    } else if has(MoveKind::Capture) && has(MoveKind::Promotion) {
        capture_promotes
    } else if has(MoveKind::Capture) {
        capture
    } else if has(MoveKind::Promotion) {
        promotion
    } else if has(MoveKind::Check) {
        return check.to_owned();
    } else {
        return quiet.to_owned();
    };
    if has(MoveKind::Check) {
        format!("{base}{}", words.with_check)
    } else {
        base.to_owned()
    }
}

fn piece_index(piece: Piece) -> usize {
    match piece {
        Piece::Pawn => 0,
        Piece::Knight => 1,
        Piece::Bishop => 2,
        Piece::Rook => 3,
        Piece::Queen => 4,
        Piece::King => 5,
    }
}

/// The text with its first letter in upper case.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said<'a>(level: u8, threat: bool, kinds: &'a [MoveKind]) -> Said<'a> {
        Said {
            level,
            threat,
            piece: Piece::Queen,
            from: "d1",
            kinds,
            written: "Ф:d8#",
        }
    }

    #[test]
    fn every_language_fills_every_template() {
        let kinds = [MoveKind::Capture, MoveKind::Check];
        for lang in Lang::ALL {
            for level in 1..=3 {
                for threat in [false, true] {
                    let text = sentence(lang, &said(level, threat, &kinds));
                    assert!(!text.contains('{'), "{lang:?} {level} {threat}: {text}");
                    assert!(text.chars().next().unwrap().is_uppercase(), "{text}");
                    let expected = if level >= 3 { "Ф:d8#" } else { "d1" };
                    assert!(text.contains(expected), "{lang:?} {level}: {text}");
                }
            }
        }
    }

    #[test]
    fn sentences_read_as_written() {
        let kinds = [MoveKind::Capture, MoveKind::Check];
        assert_eq!(
            sentence(Lang::Ru, &said(2, false, &kinds)),
            "Ферзь с поля d1: взятие с шахом."
        );
        assert_eq!(
            sentence(Lang::De, &said(1, false, &kinds)),
            "Ziehen Sie: die Dame auf d1."
        );
        assert_eq!(
            sentence(Lang::Ro, &said(2, false, &[MoveKind::Quiet])),
            "Dama de pe d1 are o mutare liniștită."
        );
        assert_eq!(
            sentence(Lang::Fr, &said(3, true, &kinds)),
            "L'adversaire menace Ф:d8#."
        );
        assert_eq!(
            sentence(Lang::En, &said(2, true, &[MoveKind::Check])),
            "Your opponent threatens a check with their queen on d1."
        );
    }
}
