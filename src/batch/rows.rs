//! The rows a batch writes for one file, and the way each format spells a
//! file name so that [`super::resume`] reads it back exactly.

use std::path::Path;

use serde_json::json;

use super::OutputFormat;
use crate::scan::ScannedBoard;

/// The CSV header.
pub const CSV_HEADER: &str = "file,board,fen,confidence,legal,error";

/// The output rows for one file, each ending in `\n`; empty for a failure in
/// EPD.
pub fn format_rows(
    file: &Path,
    result: &Result<Vec<ScannedBoard>, String>,
    format: OutputFormat,
) -> String {
    let name = file.display().to_string();
    match (format, result) {
        (OutputFormat::Csv, Ok(boards)) => boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                format!(
                    "{},{},{},{:.4},{},\n",
                    csv_field(&name),
                    i + 1,
                    b.reading.fen,
                    b.reading.confidence,
                    b.reading.legal
                )
            })
            .collect(),
        (OutputFormat::Csv, Err(message)) => {
            format!("{},,,,,{}\n", csv_field(&name), csv_field(message))
        }
        (OutputFormat::Ndjson, Ok(boards)) => {
            format!("{}\n", json!({ "file": name, "boards": boards }))
        }
        (OutputFormat::Ndjson, Err(message)) => {
            format!("{}\n", json!({ "file": name, "error": message }))
        }
        (OutputFormat::Epd, Ok(boards)) => boards
            .iter()
            .map(|b| {
                let epd: Vec<&str> = b.reading.fen.split(' ').take(4).collect();
                format!("{} id {};\n", epd.join(" "), epd_string(&name))
            })
            .collect(),
        (OutputFormat::Epd, Err(_)) => String::new(),
    }
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

/// The file an EPD record written by [`format_rows`] names.
pub fn epd_record_file(line: &str) -> Option<String> {
    let (_, operand) = line.split_once(" id ")?;
    let (name, rest) = parse_epd_string(operand)?;
    rest.starts_with(';').then_some(name)
}

/// The first field of a CSV record (which may span lines inside quotes).
pub fn csv_first_field(record: &str) -> Option<String> {
    csv_split_first(record).map(|(field, _)| field)
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
    fn error_rows_name_the_file() {
        let row = format_rows(
            Path::new("dir/a.png"),
            &Err("not an image".into()),
            OutputFormat::Csv,
        );
        assert_eq!(row, "dir/a.png,,,,,not an image\n");
        let row = format_rows(Path::new("a.png"), &Err("bad".into()), OutputFormat::Ndjson);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&row).unwrap()["error"],
            "bad"
        );
    }

    #[test]
    fn epd_ids_escape_quotes_backslashes_and_line_breaks() {
        assert_eq!(epd_string("a\"b\\c\nd\re"), r#""a\"b\\c\nd\re""#);
        let line = format!("8/8/8/8/8/8/8/8 w - - id {};", epd_string("x id \"y\";\n"));
        assert!(!line.contains('\n'));
        assert_eq!(epd_record_file(&line).as_deref(), Some("x id \"y\";\n"));
        assert_eq!(epd_record_file("8/8/8/8/8/8/8/8 w - - id \"cut"), None);
        assert_eq!(epd_record_file("8/8/8/8/8/8/8/8 w - - id \"a\\qb\";"), None);
    }

    proptest! {
        #[test]
        fn names_round_trip_through_every_format(name in "\\PC*|[a,\"\\\\\n\r ;]{0,12}") {
            let csv = format!("{},1,8/8/8/8/8/8/8/8 w - - 0 1,1.0000,false,\n", csv_field(&name));
            prop_assert_eq!(csv_first_field(&csv), Some(name.clone()));
            let (_, rest) = csv_split_first(&csv).unwrap();
            prop_assert!(rest.starts_with("1,8/8/8/8/8/8/8/8 w"), "{:?}", rest);

            let line = format!("8/8/8/8/8/8/8/8 w - - id {};", epd_string(&name));
            prop_assert!(!line.contains(['\n', '\r']));
            prop_assert_eq!(epd_record_file(&line), Some(name.clone()));

            let json = format_rows(Path::new(&name), &Err("e".into()), OutputFormat::Ndjson);
            prop_assert_eq!(json.matches('\n').count(), 1);
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(value["file"].as_str(), Some(name.as_str()));
        }
    }
}
