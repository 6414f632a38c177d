//! What an earlier run left in the output: the files it finished, and where a
//! cut (a crash, a full disk) left an incomplete row to drop.
//!
//! A record is complete when its final `\n` was written. CSV records may span
//! lines inside quoted fields; NDJSON and EPD records never do. A run writes
//! all the rows of a file at once, so only the last file in the output can be
//! incomplete: when the output ends in a cut record, that record goes and so
//! do the rows of the file written just before it, when a file may have
//! several rows (CSV, EPD), since the cut may have split that file's rows (an
//! EPD record names its file only at its end). Those files are redone.

use std::collections::HashSet;

use super::{
    rows::{csv_first_field, epd_record_file, CSV_HEADER},
    OutputFormat,
};

/// The part of an earlier output to keep, and the files it holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Previous {
    /// The files with rows in the kept part (as `Path::display` writes them).
    pub done: HashSet<String>,
    /// Length in bytes of the kept part: the output is truncated to it.
    pub keep: usize,
}

/// A complete record of an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Byte offset of its first byte.
    pub start: usize,
    /// Byte offset just after its final `\n`.
    pub end: usize,
    /// The file it names; `None` for the CSV header and for a record that
    /// does not parse.
    pub file: Option<String>,
}

/// Reads an earlier output.
pub fn read_previous(bytes: &[u8], format: OutputFormat) -> Previous {
    let kept = kept_records(bytes, format);
    Previous {
        keep: kept.last().map_or(0, |r| r.end),
        done: kept.into_iter().filter_map(|r| r.file).collect(),
    }
}

/// The records of an output to keep: the complete ones, less those a cut at
/// the end may have split (see the module documentation). The kept part is
/// `bytes[..last.end]`; the rest is a cut end to drop.
pub fn kept_records(bytes: &[u8], format: OutputFormat) -> Vec<Record> {
    let records = split_records(bytes, format);
    let complete_end = records.last().map_or(0, |r| r.1);
    let mut kept: Vec<Record> = records
        .into_iter()
        .enumerate()
        .map(|(i, (start, end))| {
            let text = String::from_utf8_lossy(&bytes[start..end]);
            Record {
                start,
                end,
                file: record_file(&text, i == 0, format),
            }
        })
        .collect();
    let cut = complete_end < bytes.len();
    if cut && format != OutputFormat::Ndjson {
        if let Some(Record {
            file: Some(last), ..
        }) = kept.last()
        {
            let last = last.clone();
            while kept.last().is_some_and(|r| r.file.as_ref() == Some(&last)) {
                kept.pop();
            }
        }
    }
    kept
}

/// The `(start, end)` of each complete record; `end` is just after its `\n`.
fn split_records(bytes: &[u8], format: OutputFormat) -> Vec<(usize, usize)> {
    let mut records = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, &byte) in bytes.iter().enumerate() {
        match byte {
            b'"' if format == OutputFormat::Csv => quoted = !quoted,
            b'\n' if !quoted => {
                records.push((start, i + 1));
                start = i + 1;
            }
            _ => {}
        }
    }
    records
}

/// The file a complete record names; `None` for the CSV header and for a
/// record that does not parse.
fn record_file(record: &str, first: bool, format: OutputFormat) -> Option<String> {
    let line = record.strip_suffix('\n').unwrap_or(record);
    match format {
        OutputFormat::Csv if first && line == CSV_HEADER => None,
        OutputFormat::Csv => csv_first_field(line),
        OutputFormat::Ndjson => serde_json::from_str::<serde_json::Value>(line)
            .ok()?
            .get("file")?
            .as_str()
            .map(str::to_string),
        OutputFormat::Epd => epd_record_file(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A1: &str = "a.png,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";
    const B1: &str = "\"b,\n\"\"x\"\".png\",1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";
    const B2: &str = "\"b,\n\"\"x\"\".png\",2,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";

    fn names(previous: &Previous) -> Vec<&str> {
        let mut names: Vec<&str> = previous.done.iter().map(String::as_str).collect();
        names.sort();
        names
    }

    #[test]
    fn complete_csv_output_is_kept_whole() {
        let text = format!("{CSV_HEADER}\n{A1}{B1}{B2}");
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous.keep, text.len());
        assert_eq!(names(&previous), ["a.png", "b,\n\"x\".png"]);
    }

    #[test]
    fn a_cut_row_goes_with_the_rows_of_its_file() {
        // Cut inside the quoted name, after its line break, of the second row.
        let text = format!("{CSV_HEADER}\n{A1}{B1}{}", &B2[..4]);
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous.keep, CSV_HEADER.len() + 1 + A1.len());
        assert_eq!(names(&previous), ["a.png"]);
    }

    #[test]
    fn a_header_without_its_line_break_is_dropped() {
        let previous = read_previous(CSV_HEADER.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous, Previous::default());
        let text = format!("{CSV_HEADER}\n");
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous.keep, text.len());
        assert!(previous.done.is_empty());
    }

    #[test]
    fn a_cut_inside_a_multibyte_character_is_dropped() {
        let row = "é.png,,,,,bad\n";
        let text = format!("{CSV_HEADER}\n{A1}{row}");
        let cut = &text.as_bytes()[..CSV_HEADER.len() + 1 + A1.len() + 1];
        let previous = read_previous(cut, OutputFormat::Csv);
        assert_eq!(previous.keep, CSV_HEADER.len() + 1);
        assert!(previous.done.is_empty());
    }

    #[test]
    fn epd_cut_drops_the_file_before_it_and_ndjson_does_not() {
        let epd = "8/8/8/8/8/8/8/8 w - - id \"a.png\";\n8/8/8/8/8/8/8/8 w - - id \"b.png\";\n8/8/8/8/8/8/8/8 w - - id \"b.png\";\n8/8/8";
        let previous = read_previous(epd.as_bytes(), OutputFormat::Epd);
        assert_eq!(
            previous.keep,
            epd.find("8/8/8/8/8/8/8/8 w - - id \"b").unwrap()
        );
        assert_eq!(names(&previous), ["a.png"]);

        let ndjson = "{\"file\":\"a.png\",\"boards\":[]}\n{\"file\":\"b.png\",\"boa";
        let previous = read_previous(ndjson.as_bytes(), OutputFormat::Ndjson);
        assert_eq!(previous.keep, ndjson.find("{\"file\":\"b").unwrap());
        assert_eq!(names(&previous), ["a.png"]);
    }
}
