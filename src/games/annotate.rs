//! The annotated game as PGN: the game's tags (plus `Annotator`, and `ECO`
//! and `Opening` when the game has none), each analysed move followed by
//! `{ [%eval …] }` (the position after it, White's view, as lichess writes
//! it), a NAG for a bad move (`?!` inaccuracy, `?` mistake, `??` blunder)
//! with the engine's better line as a variation, and the game's own
//! comments, NAGs and variations kept. Moves are written in the reader's
//! language and notation; lines are wrapped at 79 columns.

use cozy_chess::{Board, Color};

use super::{
    analyse::{GameAnalysis, MoveReport},
    pgn::{Game, PgnMove},
};
use crate::{
    analysis::coach::grade::GradeKind,
    notation::{
        lang::{format_move, Lang, MoveStyle},
        pgn::SEVEN_TAG_ROSTER,
    },
};

/// The glyph of a grade: `?!`, `?` or `??`; none for good moves.
pub fn grade_glyph(grade: GradeKind) -> Option<&'static str> {
    match grade {
        GradeKind::Inaccuracy => Some("?!"),
        GradeKind::Mistake => Some("?"),
        GradeKind::Blunder => Some("??"),
        GradeKind::Best | GradeKind::Good => None,
    }
}

fn grade_word(grade: GradeKind) -> &'static str {
    match grade {
        GradeKind::Inaccuracy => "Inaccuracy",
        GradeKind::Mistake => "Mistake",
        GradeKind::Blunder => "Blunder",
        GradeKind::Best => "Best",
        GradeKind::Good => "Good",
    }
}

/// Writes `game` with `analysis` as annotated PGN (ending with a blank line).
pub fn annotated_pgn(game: &Game, analysis: &GameAnalysis, lang: Lang, style: MoveStyle) -> String {
    write_pgn(game, Some(analysis), lang, style)
}

/// Writes `game` as PGN, as read (ending with a blank line).
pub fn plain_pgn(game: &Game, lang: Lang, style: MoveStyle) -> String {
    write_pgn(game, None, lang, style)
}

fn write_pgn(game: &Game, analysis: Option<&GameAnalysis>, lang: Lang, style: MoveStyle) -> String {
    let mut out = String::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    for (name, default) in SEVEN_TAG_ROSTER {
        let value = game.tag(name).unwrap_or(default);
        let value = match (name, &game.result) {
            ("Result", Some(result)) if value == "*" => result.as_str(),
            _ => value,
        };
        tags.push((name.to_owned(), value.to_owned()));
    }
    for (name, value) in &game.tags {
        if !SEVEN_TAG_ROSTER.iter().any(|(n, _)| n == name) {
            tags.push((name.clone(), value.clone()));
        }
    }
    if let Some(opening) = analysis.and_then(|a| a.opening.as_ref()) {
        if game.tag("ECO").is_none() {
            tags.push(("ECO".into(), opening.eco.clone()));
        }
        if game.tag("Opening").is_none() {
            tags.push(("Opening".into(), opening.name.clone()));
        }
    }
    if let (Some(analysis), None) = (analysis, game.tag("Annotator")) {
        tags.push((
            "Annotator".into(),
            format!("boardscan ({})", analysis.engine),
        ));
    }
    for (name, value) in tags {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{escaped}\"]\n"));
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    for comment in &game.intro {
        tokens.push(comment_token(comment));
    }
    let mut board = game.start.clone();
    let mut need_number = true;
    for (index, played) in game.moves.iter().enumerate() {
        let report = analysis.and_then(|a| a.moves.get(index));
        let mut text = String::new();
        if need_number || board.side_to_move() == Color::White {
            text.push_str(&number(&board));
            text.push(' ');
        }
        text.push_str(&format_move(&board, played.mv, lang, style));
        let glyph = report.and_then(|r| grade_glyph(r.grade));
        if let Some(glyph) = glyph {
            text.push_str(glyph);
        }
        tokens.push(text);
        for &nag in &played.nags {
            if glyph.is_none() || !(1..=6).contains(&nag) {
                tokens.push(format!("${nag}"));
            }
        }
        need_number = false;
        if let Some(report) = report {
            if let Some(eval) = report.after.pgn_eval() {
                tokens.push(format!("{{ [%eval {eval}] }}"));
                need_number = true;
            }
        }
        for comment in &played.comments {
            tokens.push(comment_token(comment));
            need_number = true;
        }
        if let (Some(report), Some(_)) = (report, glyph) {
            tokens.push(comment_token(&format!(
                "{}. {} was best.",
                grade_word(report.grade),
                report.best.san
            )));
            if let Some(line) = best_line(&board, report) {
                tokens.push(format!("({})", variation(&board, &line, lang, style)));
            }
            need_number = true;
        }
        for alternative in &played.variations {
            tokens.push(format!(
                "({})",
                variation_moves(&board, alternative, lang, style)
            ));
            need_number = true;
        }
        board.play_unchecked(played.mv);
    }
    tokens.push(game.result.clone().unwrap_or_else(|| "*".into()));
    out.push_str(&wrap(&tokens, 79));
    out.push_str("\n\n");
    out
}

/// The report's best line as moves from `board`.
fn best_line(board: &Board, report: &MoveReport) -> Option<Vec<cozy_chess::Move>> {
    let moves = crate::analysis::coach::grade::replay(board, &report.best_line_uci);
    (!moves.is_empty()).then_some(moves)
}

/// `12.` or `12...` for the side to move on `board`.
fn number(board: &Board) -> String {
    let n = board.fullmove_number();
    match board.side_to_move() {
        Color::White => format!("{n}."),
        Color::Black => format!("{n}..."),
    }
}

/// A line of moves from `board` with move numbers.
fn variation(board: &Board, moves: &[cozy_chess::Move], lang: Lang, style: MoveStyle) -> String {
    let mut board = board.clone();
    let mut parts = Vec::new();
    for (i, &mv) in moves.iter().enumerate() {
        if i == 0 || board.side_to_move() == Color::White {
            parts.push(number(&board));
        }
        parts.push(format_move(&board, mv, lang, style));
        board.play_unchecked(mv);
    }
    parts.join(" ")
}

/// A variation of the source PGN, with its comments, NAGs and sub-variations.
fn variation_moves(board: &Board, moves: &[PgnMove], lang: Lang, style: MoveStyle) -> String {
    let mut board = board.clone();
    let mut parts = Vec::new();
    let mut need_number = true;
    for m in moves {
        if need_number || board.side_to_move() == Color::White {
            parts.push(number(&board));
        }
        parts.push(format_move(&board, m.mv, lang, style));
        need_number = false;
        parts.extend(m.nags.iter().map(|n| format!("${n}")));
        for comment in &m.comments {
            parts.push(comment_token(comment));
            need_number = true;
        }
        for sub in &m.variations {
            parts.push(format!("({})", variation_moves(&board, sub, lang, style)));
            need_number = true;
        }
        board.play_unchecked(m.mv);
    }
    parts.join(" ")
}

fn comment_token(text: &str) -> String {
    format!("{{ {} }}", text.replace('}', ")"))
}

/// Joins tokens with spaces, breaking lines before `width` where possible.
/// A move stays with its number; a long comment may break between words.
fn wrap(tokens: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut column = 0;
    let words = tokens.iter().flat_map(|t| {
        if (t.starts_with('{') || t.starts_with('(')) && t.chars().count() > 24 {
            // Break between words, but keep a move number with its move.
            let mut words: Vec<String> = Vec::new();
            for word in t.split(' ') {
                match words.last_mut() {
                    Some(last) if t.starts_with('(') && last.ends_with('.') => {
                        last.push(' ');
                        last.push_str(word);
                    }
                    _ => words.push(word.to_owned()),
                }
            }
            // Keep the braces with the first and last words of a comment.
            if words.len() > 2 && words[0] == "{" {
                let first = words.remove(0);
                words[0] = format!("{first} {}", words[0]);
                let last = words.pop().unwrap_or_default();
                if let Some(word) = words.last_mut() {
                    word.push(' ');
                    word.push_str(&last);
                }
            }
            words
        } else {
            vec![t.clone()]
        }
    });
    for token in words {
        let len = token.chars().count();
        if column > 0 && column + 1 + len > width {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(&token);
        column += len;
    }
    out
}
