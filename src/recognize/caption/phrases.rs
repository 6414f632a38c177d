//! The side to move as a caption names it: "White to move", "24. Black to
//! play and win", "White mates in 2", "Ход белых", "Чёрные начинают и
//! выигрывают", "Albul la mutare", "Mută negrul", "Weiß am Zug", "Trait aux
//! Noirs", "Les Blancs jouent"…
//!
//! Leniency: case, diacritics (`ё` and `е`, `ß` and `ss`, `ă`/`â`/`ș`/`ț`,
//! accents), punctuation and numbering ("24.") do not matter; words are
//! runs of letters and digits. A phrase must name a side and say that it
//! moves, plays, begins or mates; a bare "Mate in 2" or "Diagram 7" says
//! nothing. When a text holds several phrases, the first one counts.

use cozy_chess::Color;

/// Words naming a side, in every language read (their case forms too:
/// "ход белых", "ход за белыми").
const SIDES: &[(&str, Color)] = &[
    ("white", Color::White),
    ("black", Color::Black),
    // Russian, after folding ё to е.
    ("белые", Color::White),
    ("белых", Color::White),
    ("белыми", Color::White),
    ("черные", Color::Black),
    ("черных", Color::Black),
    ("черными", Color::Black),
    // Romanian, without diacritics.
    ("albul", Color::White),
    ("albii", Color::White),
    ("alb", Color::White),
    ("negrul", Color::Black),
    ("negrii", Color::Black),
    ("negru", Color::Black),
    // German, with ß as ss.
    ("weiss", Color::White),
    ("schwarz", Color::Black),
    // French.
    ("blancs", Color::White),
    ("blanc", Color::White),
    ("noirs", Color::Black),
    ("noir", Color::Black),
];

/// The phrases: words separated by spaces, `|` between a word's
/// alternatives, `SIDE` for a word of [`SIDES`].
const PHRASES: &[&str] = &[
    // English: "White to move", "Black to play (and win)", "White to mate
    // in 3", "White mates in 2", "Black plays and wins".
    "SIDE to move|play|mate",
    "SIDE mates",
    "SIDE plays|moves and",
    // Russian: "Ход белых", "Ход за чёрными", "Белые начинают (и
    // выигрывают)", "Ходят чёрные", "Белые дают мат в 2 хода".
    "ход SIDE",
    "ход за SIDE",
    "SIDE начинают|ходят|играют|матуют",
    "SIDE дают|ставят|объявляют мат",
    "начинают|ходят|играют SIDE",
    // Romanian: "Albul la mutare", "La mutare: negrul", "Mută albul",
    // "Negrul mută (și câștigă)", "Albul dă mat în 2 mutări".
    "SIDE la mutare",
    "la mutare SIDE",
    "muta SIDE",
    "SIDE muta",
    "SIDE da|face mat",
    // German: "Weiß am Zug", "Am Zug: Schwarz", "Weiß zieht (und
    // gewinnt)", "Schwarz setzt (in 2 Zügen) matt".
    "SIDE am zug",
    "am zug SIDE",
    "SIDE zieht|setzt",
    // French: "Trait aux Blancs", "Les Noirs au trait", "Les Blancs jouent
    // (et gagnent)", "Les Noirs font mat en 2", "Les Blancs matent en 3".
    "trait aux|au|les SIDE",
    "SIDE au trait",
    "SIDE jouent|joue|matent|mate",
    "SIDE font|donnent mat",
];

/// The side a text says is to move, if it says.
pub fn side_named(text: &str) -> Option<Color> {
    let words = words(text);
    (0..words.len()).find_map(|start| {
        PHRASES
            .iter()
            .find_map(|phrase| match_at(phrase, &words[start..]))
    })
}

/// The side of `phrase` when `words` start with it.
fn match_at(phrase: &str, words: &[String]) -> Option<Color> {
    let mut side = None;
    let mut words = words.iter();
    for slot in phrase.split(' ') {
        let word = words.next()?;
        if slot == "SIDE" {
            side = Some(SIDES.iter().find(|(name, _)| name == word)?.1);
        } else if !slot.split('|').any(|alternative| alternative == word) {
            return None;
        }
    }
    side
}

/// The words of `text`, lower case and folded: runs of letters and digits,
/// apostrophes inside a word dropped ("Black’s" is `blacks`).
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if matches!(c, '\'' | '’' | 'ʼ') {
            continue;
        }
        match fold(c) {
            Some(folded) => word.push_str(folded),
            None if c.is_alphanumeric() => word.push(c),
            None => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A lower-case letter with its diacritics taken off, where it has any
/// in the languages read (and the ligatures that PDFs' glyph names give).
fn fold(c: char) -> Option<&'static str> {
    Some(match c {
        'ё' => "е",
        'ß' => "ss",
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ă' => "a",
        'ç' => "c",
        'è' | 'é' | 'ê' | 'ë' => "e",
        'ì' | 'í' | 'î' | 'ï' => "i",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' => "o",
        'ù' | 'ú' | 'û' | 'ü' => "u",
        'ș' | 'ş' => "s",
        'ț' | 'ţ' => "t",
        'œ' => "oe",
        'ﬀ' => "ff",
        'ﬁ' => "fi",
        'ﬂ' => "fl",
        'ﬃ' => "ffi",
        'ﬄ' => "ffl",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    #[test]
    fn captions_in_five_languages_name_the_side_to_move() {
        for (caption, side) in [
            ("White to move", White),
            ("Black to move.", Black),
            ("24. Black to play", Black),
            ("1. White to move", White),
            ("White to play and win", White),
            ("BLACK TO PLAY AND DRAW", Black),
            ("White mates in 2", White),
            ("Black to mate in three moves", Black),
            ("White plays and wins", White),
            ("Ход белых", White),
            ("Ход черных", Black),
            ("Ход чёрных", Black),
            ("12. Ход за чёрными", Black),
            ("Белые начинают", White),
            ("Чёрные начинают и выигрывают", Black),
            ("Белые дают мат в 2 хода", White),
            ("Мат в 3 хода. Ходят чёрные", Black),
            ("Albul la mutare", White),
            ("Negrul la mutare", Black),
            ("Mută albul", White),
            ("Muta negrul", Black),
            ("Negrul mută și câștigă", Black),
            ("Albul dă mat în 2 mutări", White),
            ("Weiß am Zug", White),
            ("Weiss am Zug", White),
            ("Schwarz am Zug", Black),
            ("Weiß zieht und gewinnt", White),
            ("Schwarz setzt in 2 Zügen matt", Black),
            ("Trait aux Blancs", White),
            ("Trait aux Noirs", Black),
            ("Les Blancs jouent", White),
            ("Les Noirs jouent et gagnent", Black),
            ("Les Noirs font mat en 2", Black),
            ("Les Blancs matent en 3 coups", White),
        ] {
            assert_eq!(side_named(caption), Some(side), "{caption:?}");
        }
    }

    #[test]
    fn texts_that_name_no_mover_say_nothing() {
        for text in [
            "",
            "Diagram 7",
            "Mate in 2",
            "Мат в 2 хода",
            "1. Rd8 mates. 2. Qxh7+ Kxh7 hxg6 mates.",
            "the weakest square in Black’s camp",
            "White’s bishop pair gives a lasting edge",
            "a b c d e f g h",
            "rZblkans",
            "Whitehall to move", // not the word "white"
        ] {
            assert_eq!(side_named(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_first_phrase_of_a_text_counts() {
        assert_eq!(
            side_named("Black to move. White to play was the old line."),
            Some(Black)
        );
        assert_eq!(side_named("After 3...Bc5 White to move"), Some(White));
    }

    #[test]
    fn words_are_folded_and_split_at_punctuation() {
        assert_eq!(
            words("24.Black-to-MOVE! Weiß, Ёж: ﬁle Mută"),
            ["24", "black", "to", "move", "weiss", "еж", "file", "muta"]
        );
    }
}
