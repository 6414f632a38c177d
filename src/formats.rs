//! The rows a batch writes for one picture (an image, or one page of a
//! PDF), and the way each format spells a file name and page so that
//! [`crate::batch`]'s resume and merge read them back exactly.
//!
//! | Picture | CSV `file,page,board,fen,confidence,legal,error` | NDJSON | EPD `id` |
//! |---|---|---|---|
//! | image, board I | `a.png,,I,FEN,0.9,true,` | `{"file","boards"}` | `"a.png"` |
//! | image, failed | `a.png,,,,,,why` | `{"file","error"}` | none (stderr) |
//! | PDF page P, board I | `b.pdf,P,I,FEN,0.9,true,` | `{"file","page","boards"}` | `"b.pdf#page=P"`, or `"b.pdf#page=P&diagram=I"` when the page has several |
//! | PDF page P, no board | `b.pdf,P,,,,,` | `{"file","page","boards":[]}` | none |
//! | PDF page P, failed | `b.pdf,P,,,,,why` | `{"file","page","error"}` | none (stderr) |
//! | PDF unreadable | `b.pdf,,,,,,why` | `{"file","error"}` | none (stderr) |
//!
//! PGN writes one game per board and is not read back (no `--resume`, no
//! `merge`): see [`pgn_game`].

use std::path::Path;

use serde_json::json;

use crate::{notation::pgn::SEVEN_TAG_ROSTER, scan::ScannedBoard};

/// Output formats of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// `file,page,board,fen,confidence,legal,error`; `page` is empty for an
    /// image, and a PDF page without a board has a row with no board.
    Csv,
    /// One JSON object per image or PDF page (`{"file", "page", "boards"}`),
    /// as `scan --json` prints.
    Ndjson,
    /// One EPD line per board with an `id` naming the file, and the page as
    /// `#page=P` (`&diagram=I` when the page has several); `\\`, `\"`, `\n`
    /// and `\r` escaped; failures go to stderr.
    Epd,
    /// One PGN game per board: the Seven Tag Roster, `FEN` and `SetUp`, a
    /// comment naming file, page and diagram, result `*`; failures go to
    /// stderr. Not read back: no `--resume`, no `merge`.
    Pgn,
}

/// The CSV header.
pub const CSV_HEADER: &str = "file,page,board,fen,confidence,legal,error";

/// The output rows for one picture of `file`, each ending in `\n`: `page` is
/// the PDF page (`None` for an image, and for a PDF that could not be opened
/// at all). Empty for a failure in EPD and PGN (it goes to stderr), and for
/// a page without a board in EPD and PGN.
pub fn format_rows(
    file: &Path,
    page: Option<usize>,
    result: &Result<Vec<ScannedBoard>, String>,
    format: OutputFormat,
) -> String {
    let name = file.display().to_string();
    let page_field = page.map(|p| p.to_string()).unwrap_or_default();
    // The board's number: its reading order on a page, its rank by size in
    // an image.
    let number = |i: usize, board: &ScannedBoard| board.index.unwrap_or(i + 1);
    match (format, result) {
        (OutputFormat::Csv, Ok(boards)) if boards.is_empty() && page.is_some() => {
            format!("{},{page_field},,,,,\n", csv_field(&name))
        }
        (OutputFormat::Csv, Ok(boards)) => boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                format!(
                    "{},{page_field},{},{},{:.4},{},\n",
                    csv_field(&name),
                    number(i, b),
                    b.reading.fen,
                    b.reading.confidence,
                    b.reading.legal
                )
            })
            .collect(),
        (OutputFormat::Csv, Err(message)) => {
            format!(
                "{},{page_field},,,,,{}\n",
                csv_field(&name),
                csv_field(message)
            )
        }
        (OutputFormat::Ndjson, Ok(boards)) => match page {
            Some(page) => format!(
                "{}\n",
                json!({ "file": name, "page": page, "boards": boards })
            ),
            None => format!("{}\n", json!({ "file": name, "boards": boards })),
        },
        (OutputFormat::Ndjson, Err(message)) => match page {
            Some(page) => format!(
                "{}\n",
                json!({ "file": name, "page": page, "error": message })
            ),
            None => format!("{}\n", json!({ "file": name, "error": message })),
        },
        (OutputFormat::Epd, Ok(boards)) => boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let epd: Vec<&str> = b.reading.fen.split(' ').take(4).collect();
                let id = match page {
                    Some(page) if boards.len() > 1 => {
                        format!("{name}#page={page}&diagram={}", number(i, b))
                    }
                    Some(page) => format!("{name}#page={page}"),
                    None => name.clone(),
                };
                format!("{} id {};\n", epd.join(" "), epd_string(&id))
            })
            .collect(),
        (OutputFormat::Pgn, Ok(boards)) => boards
            .iter()
            .enumerate()
            .map(|(i, b)| pgn_game(&name, page, number(i, b), &b.reading.fen, b.reading.legal))
            .collect(),
        (OutputFormat::Epd | OutputFormat::Pgn, Err(_)) => String::new(),
    }
}

/// One PGN game (export format) for a board: the Seven Tag Roster with
/// unknown values ([`SEVEN_TAG_ROSTER`]), then `Annotator`, `FEN` and `SetUp`
/// in ASCII order of their names, as the PGN standard (8.1.1) orders tags
/// after the roster; a blank line; the movetext, a comment naming the file,
/// page and diagram, and the result `*`; a blank line. Tag values escape
/// `\\` and `"`; the comment cannot hold `}` (PGN has no escape there), so a
/// `}` in a name is written `)`, and line breaks as spaces.
pub fn pgn_game(name: &str, page: Option<usize>, number: usize, fen: &str, legal: bool) -> String {
    let mut comment: String = name
        .chars()
        .map(|c| match c {
            '}' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    if let Some(page) = page {
        comment.push_str(&format!(", page {page}"));
    }
    comment.push_str(&format!(", diagram {number}"));
    if !legal {
        comment.push_str(", not a legal position");
    }
    let mut game = String::new();
    let roster: [(&str, &str); 7] = SEVEN_TAG_ROSTER;
    let tags = [("Annotator", "boardscan"), ("FEN", fen), ("SetUp", "1")];
    for (tag, value) in roster.into_iter().chain(tags) {
        game.push_str(&format!("[{tag} {}]\n", pgn_string(value)));
    }
    game.push_str(&format!("\n{{{comment}}} *\n\n"));
    game
}

/// A PGN string token: in double quotes, with `\\` for a backslash and `\"`
/// for a quote (PGN standard, 7).
pub fn pgn_string(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Quotes a CSV field when it needs it (RFC 4180: `"` doubled; a quoted field
/// may hold line breaks).
pub fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// An EPD string operand: in double quotes, with `\\` for a backslash and
/// `\"` for a quote as in PGN, and `\n` and `\r` for line breaks, so that a
/// record stays on one line.
pub fn epd_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads back what [`epd_string`] wrote, from its opening quote on; returns
/// the value and the rest of `text` after the closing quote, or `None` when
/// the string is unterminated or has an unknown escape.
pub fn parse_epd_string(text: &str) -> Option<(String, &str)> {
    let rest = text.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &rest[i + 1..])),
            '\\' => match chars.next()?.1 {
                '\\' => value.push('\\'),
                '"' => value.push('"'),
                'n' => value.push('\n'),
                'r' => value.push('\r'),
                _ => return None,
            },
            c => value.push(c),
        }
    }
    None
}

/// What a record says about the work done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowKey {
    /// The file, as `Path::display` wrote it.
    pub file: String,
    /// The PDF page; `None` for an image, and for a PDF that could not be
    /// opened (a row for the whole file).
    pub page: Option<u64>,
    /// The board's number (CSV; EPD when the page has several).
    pub board: Option<u64>,
    /// Whether the record is a failure (CSV, NDJSON; EPD has none).
    pub error: bool,
}

/// Reads the key of a complete record (without its final `\n`) written by
/// [`format_rows`]; `None` when it does not parse. PGN is never read back.
pub fn parse_record(line: &str, format: OutputFormat) -> Option<RowKey> {
    match format {
        OutputFormat::Csv => {
            let (file, rest) = csv_split_first(line)?;
            // Only the error, last, may hold a comma (quoted).
            let fields: Vec<&str> = rest.splitn(6, ',').collect();
            let [page, board, _fen, _confidence, _legal, error] = fields[..] else {
                return None;
            };
            Some(RowKey {
                file,
                page: optional_number(page)?,
                board: optional_number(board)?,
                error: !error.is_empty(),
            })
        }
        OutputFormat::Ndjson => {
            let value: serde_json::Value = serde_json::from_str(line).ok()?;
            let page = match value.get("page") {
                None => None,
                Some(page) => Some(page.as_u64()?),
            };
            Some(RowKey {
                file: value.get("file")?.as_str()?.to_string(),
                page,
                board: None,
                error: value.get("error").is_some(),
            })
        }
        OutputFormat::Epd => {
            let (_, operand) = line.split_once(" id ")?;
            let (id, rest) = parse_epd_string(operand)?;
            if !rest.starts_with(';') {
                return None;
            }
            let (file, page, board) = split_epd_id(&id);
            Some(RowKey {
                file,
                page,
                board,
                error: false,
            })
        }
        OutputFormat::Pgn => None,
    }
}

/// The file, page and diagram an EPD `id` names: `NAME#page=P` or
/// `NAME#page=P&diagram=I` for a PDF page, `NAME` for an image. An input's
/// name ends in its extension, never in `#page=` and digits, so the split is
/// unambiguous.
fn split_epd_id(id: &str) -> (String, Option<u64>, Option<u64>) {
    if let Some(at) = id.rfind("#page=") {
        let suffix = &id[at + "#page=".len()..];
        let (page, diagram) = match suffix.split_once("&diagram=") {
            Some((page, diagram)) => (page, Some(diagram)),
            None => (suffix, None),
        };
        let diagram = match diagram.map(digits) {
            None => Some(None),
            Some(Some(n)) => Some(Some(n)),
            Some(None) => None,
        };
        if let (Some(page), Some(diagram)) = (digits(page), diagram) {
            return (id[..at].to_string(), Some(page), diagram);
        }
    }
    (id.to_string(), None, None)
}

/// A number of ASCII digits.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// An empty field (`Some(None)`) or a number (`Some(Some(n))`); `None` when
/// it is neither.
pub fn optional_number(text: &str) -> Option<Option<u64>> {
    if text.is_empty() {
        Some(None)
    } else {
        digits(text).map(Some)
    }
}

/// The first field of a CSV record, and the rest of the record after the
/// comma that ends it; `None` when a quoted field is unterminated.
pub fn csv_split_first(record: &str) -> Option<(String, &str)> {
    if let Some(rest) = record.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' if chars.peek().map(|&(_, c)| c) == Some('"') => {
                    value.push('"');
                    chars.next();
                }
                '"' => {
                    let after = &rest[i + 1..];
                    return Some((value, after.strip_prefix(',').unwrap_or(after)));
                }
                c => value.push(c),
            }
        }
        None
    } else {
        let end = record.find([',', '\n']).unwrap_or(record.len());
        let after = &record[end..];
        Some((
            record[..end].to_string(),
            after.strip_prefix(',').unwrap_or(after),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn error_rows_name_the_file_and_page() {
        let bad = Err("not an image".to_string());
        let row = format_rows(Path::new("dir/a.png"), None, &bad, OutputFormat::Csv);
        assert_eq!(row, "dir/a.png,,,,,,not an image\n");
        let row = format_rows(Path::new("b.pdf"), Some(3), &bad, OutputFormat::Csv);
        assert_eq!(row, "b.pdf,3,,,,,not an image\n");
        let row = format_rows(Path::new("a.png"), None, &bad, OutputFormat::Ndjson);
        let value: serde_json::Value = serde_json::from_str(&row).unwrap();
        assert_eq!(value["error"], "not an image");
        assert!(value.get("page").is_none(), "{row}");
        let row = format_rows(Path::new("b.pdf"), Some(3), &bad, OutputFormat::Ndjson);
        let value: serde_json::Value = serde_json::from_str(&row).unwrap();
        assert_eq!(value["page"], 3);
        for format in [OutputFormat::Epd, OutputFormat::Pgn] {
            assert_eq!(format_rows(Path::new("b.pdf"), Some(3), &bad, format), "");
        }
    }

    #[test]
    fn a_page_without_a_board_is_recorded_as_done() {
        let none = Ok(Vec::new());
        let row = format_rows(Path::new("b.pdf"), Some(4), &none, OutputFormat::Csv);
        assert_eq!(row, "b.pdf,4,,,,,\n");
        let key = parse_record(row.trim_end(), OutputFormat::Csv).unwrap();
        assert_eq!(
            key,
            RowKey {
                file: "b.pdf".into(),
                page: Some(4),
                board: None,
                error: false
            }
        );
        let row = format_rows(Path::new("b.pdf"), Some(4), &none, OutputFormat::Ndjson);
        assert_eq!(row, "{\"boards\":[],\"file\":\"b.pdf\",\"page\":4}\n");
        let key = parse_record(row.trim_end(), OutputFormat::Ndjson).unwrap();
        assert_eq!((key.page, key.error), (Some(4), false));
    }

    #[test]
    fn records_read_back_with_their_page_and_board() {
        let key = |line: &str, format| parse_record(line, format);
        let csv = "\"a,\"\"b\"\".pdf\",12,2,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,";
        assert_eq!(
            key(csv, OutputFormat::Csv),
            Some(RowKey {
                file: "a,\"b\".pdf".into(),
                page: Some(12),
                board: Some(2),
                error: false
            })
        );
        let error = "a.png,,,,,,\"bad, very\"";
        let parsed = key(error, OutputFormat::Csv).unwrap();
        assert_eq!(
            (parsed.page, parsed.board, parsed.error),
            (None, None, true)
        );
        // The old header's rows (no page column) and junk do not parse.
        assert_eq!(
            key(
                "a.png,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9,false,",
                OutputFormat::Csv
            ),
            None
        );
        assert_eq!(key("a.png,x,1,f,0.9,true,", OutputFormat::Csv), None);

        for (id, file, page, board) in [
            ("b.pdf#page=37", "b.pdf", Some(37), None),
            ("b.pdf#page=2&diagram=3", "b.pdf", Some(2), Some(3)),
            ("x#page=3.png", "x#page=3.png", None, None),
            ("a#page=1.pdf#page=1", "a#page=1.pdf", Some(1), None),
            ("c.png", "c.png", None, None),
        ] {
            let line = format!("8/8/8/8/8/8/8/8 w - - id {};", epd_string(id));
            assert_eq!(
                key(&line, OutputFormat::Epd),
                Some(RowKey {
                    file: file.into(),
                    page,
                    board,
                    error: false
                }),
                "{id}"
            );
        }
        assert_eq!(
            key("8/8/8/8/8/8/8/8 w - - id \"cut", OutputFormat::Epd),
            None
        );
        assert_eq!(
            key("{\"file\":\"a.pdf\",\"page\":\"x\"}", OutputFormat::Ndjson),
            None
        );
    }

    #[test]
    fn pgn_games_have_the_seven_tag_roster_a_setup_position_and_a_comment() {
        let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
        let game = pgn_game("dir/b}x.pdf", Some(2), 1, fen, true);
        assert_eq!(
            game,
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
             [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[Annotator \"boardscan\"]\n\
             [FEN \"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\"]\n[SetUp \"1\"]\n\n\
             {dir/b)x.pdf, page 2, diagram 1} *\n\n"
        );
        let game = pgn_game("a\nb.png", None, 2, fen, false);
        assert!(
            game.contains("\n{a b.png, diagram 2, not a legal position} *\n"),
            "{game}"
        );
        assert_eq!(pgn_string(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn epd_ids_escape_quotes_backslashes_and_line_breaks() {
        assert_eq!(epd_string("a\"b\\c\nd\re"), r#""a\"b\\c\nd\re""#);
        let line = format!("8/8/8/8/8/8/8/8 w - - id {};", epd_string("x id \"y\";\n"));
        assert!(!line.contains('\n'));
        assert_eq!(
            parse_record(&line, OutputFormat::Epd)
                .map(|k| k.file)
                .as_deref(),
            Some("x id \"y\";\n")
        );
        assert_eq!(
            parse_record("8/8/8/8/8/8/8/8 w - - id \"a\\qb\";", OutputFormat::Epd),
            None
        );
    }

    proptest! {
        #[test]
        fn names_round_trip_through_every_format(name in "\\PC*|[a,\"\\\\\n\r ;#=&]{0,12}", page in proptest::option::of(1usize..5000)) {
            let page_field = page.map(|p| p.to_string()).unwrap_or_default();
            let csv = format!("{},{page_field},1,8/8/8/8/8/8/8/8 w - - 0 1,1.0000,false,\n", csv_field(&name));
            let key = parse_record(csv.trim_end_matches('\n'), OutputFormat::Csv).unwrap();
            prop_assert_eq!(&key.file, &name);
            prop_assert_eq!(key.page, page.map(|p| p as u64));
            prop_assert_eq!(key.board, Some(1));

            let id = match page {
                Some(page) => format!("{name}.pdf#page={page}"),
                None => format!("{name}.png"),
            };
            let line = format!("8/8/8/8/8/8/8/8 w - - id {};", epd_string(&id));
            prop_assert!(!line.contains(['\n', '\r']));
            let key = parse_record(&line, OutputFormat::Epd).unwrap();
            prop_assert_eq!(key.page, page.map(|p| p as u64));
            prop_assert_eq!(key.file, if page.is_some() { format!("{name}.pdf") } else { id.clone() });

            let json = format_rows(Path::new(&name), page, &Err("e".into()), OutputFormat::Ndjson);
            prop_assert_eq!(json.matches('\n').count(), 1);
            let key = parse_record(json.trim_end(), OutputFormat::Ndjson).unwrap();
            prop_assert_eq!(key.file, name);
            prop_assert_eq!(key.page, page.map(|p| p as u64));
            prop_assert!(key.error);
        }
    }
}
