//! What an earlier run left in the output: the images and PDF pages it
//! finished, and where a cut (a crash, a full disk) left an incomplete row to
//! drop.
//!
//! A record is complete when its final `\n` was written. CSV records may span
//! lines inside quoted fields; NDJSON and EPD records never do. A run writes
//! all the rows of one picture (an image, or one page of a PDF) at once, so
//! only the last picture in the output can be incomplete: when the output
//! ends in a cut record, that record goes and so do the rows of the picture
//! written just before it, when a picture may have several rows (CSV, EPD),
//! since the cut may have split that picture's rows (an EPD record names its
//! file only at its end), unless the cut record itself says it belongs to
//! another picture (a CSV record cut after its page field). Those pictures
//! are redone.
//!
//! What counts as done:
//! - an image, or a PDF that could not be opened: any row naming it without
//!   a page;
//! - a PDF page: any row naming it, in CSV and NDJSON. A page without a board
//!   has its own row there (`b.pdf,P,,,,,`, `{"file","page","boards":[]}`),
//!   and so has a page that failed.
//! - in EPD, which has records for boards only, a book's pages are written in
//!   page order, so every page from the first to the last that the output
//!   names for a book is done (the pages between had no board or failed).
//!   Pages before the first are redone: they give no rows again.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::formats::{
    csv_split_first, optional_number, parse_record, OutputFormat, RowKey, CSV_HEADER,
};

/// The part of an earlier output to keep, and what it holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Previous {
    pub done: Done,
    /// Length in bytes of the kept part: the output is truncated to it.
    pub keep: usize,
    /// The first complete line of a CSV output, when it is not the header.
    pub foreign_header: Option<String>,
}

/// The pictures an earlier output holds (file names as `Path::display`
/// writes them).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Files done as a whole: images, and PDFs that could not be opened.
    pub files: HashSet<String>,
    /// The pages done of each PDF.
    pub pages: HashMap<String, BTreeSet<usize>>,
}

impl Done {
    /// Whether the whole of `file` is done.
    pub fn whole(&self, file: &str) -> bool {
        self.files.contains(file)
    }

    /// The pages of `file` done (empty for a file not started).
    pub fn pages_of(&self, file: &str) -> Option<&BTreeSet<usize>> {
        self.pages.get(file)
    }
}

/// A complete record of an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Byte offset of its first byte.
    pub start: usize,
    /// Byte offset just after its final `\n`.
    pub end: usize,
    /// What it names; `None` for the CSV header and for a record that does
    /// not parse.
    pub key: Option<RowKey>,
}

impl Record {
    /// The picture it belongs to: file and page.
    fn picture(&self) -> Option<(&str, Option<u64>)> {
        self.key.as_ref().map(|k| (k.file.as_str(), k.page))
    }
}

/// Reads an earlier output.
pub fn read_previous(bytes: &[u8], format: OutputFormat) -> Previous {
    let kept = kept_records(bytes, format);
    let foreign_header = match (format, kept.first()) {
        (OutputFormat::Csv, Some(first)) => {
            let line = String::from_utf8_lossy(&bytes[first.start..first.end]);
            let line = line.trim_end_matches('\n');
            (line != CSV_HEADER).then(|| line.to_string())
        }
        _ => None,
    };
    let mut done = Done::default();
    for key in kept.iter().filter_map(|r| r.key.as_ref()) {
        match key.page {
            None => {
                done.files.insert(key.file.clone());
            }
            Some(page) => {
                let page = usize::try_from(page).unwrap_or(usize::MAX);
                done.pages.entry(key.file.clone()).or_default().insert(page);
            }
        }
    }
    if format == OutputFormat::Epd {
        for pages in done.pages.values_mut() {
            if let (Some(&first), Some(&last)) = (pages.first(), pages.last()) {
                *pages = (first..=last).collect();
            }
        }
    }
    Previous {
        keep: kept.last().map_or(0, |r| r.end),
        done,
        foreign_header,
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
            let line = record_line(&text);
            let header = format == OutputFormat::Csv && i == 0 && line == CSV_HEADER;
            Record {
                start,
                end,
                key: if header {
                    None
                } else {
                    parse_record(line, format)
                },
            }
        })
        .collect();
    let cut = complete_end < bytes.len();
    if cut && format != OutputFormat::Ndjson {
        let torn = torn_picture(&bytes[complete_end..], format);
        let last = kept.last().and_then(Record::picture);
        let same = |last: (&str, Option<u64>)| {
            torn.as_ref()
                .is_none_or(|(file, page)| (file.as_str(), *page) == last)
        };
        if let Some(last) = last.filter(|&last| same(last)) {
            let (file, page) = (last.0.to_string(), last.1);
            while kept
                .last()
                .and_then(Record::picture)
                .is_some_and(|p| p == (file.as_str(), page))
            {
                kept.pop();
            }
        }
    }
    kept
}

/// The picture a cut record belongs to, when what is left of it says so: a
/// CSV record whose file and page fields are whole (each followed by its
/// comma).
fn torn_picture(bytes: &[u8], format: OutputFormat) -> Option<(String, Option<u64>)> {
    if format != OutputFormat::Csv {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    let (file, rest) = csv_split_first(&text)?;
    if !text[..text.len() - rest.len()].ends_with(',') {
        return None;
    }
    let (page, _) = rest.split_once(',')?;
    Some((file, optional_number(page)?))
}

/// A record without its line ending, `\n` or `\r\n` (a file that passed
/// through a Windows editor).
pub fn record_line(record: &str) -> &str {
    let line = record.strip_suffix('\n').unwrap_or(record);
    line.strip_suffix('\r').unwrap_or(line)
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

#[cfg(test)]
mod tests {
    use super::*;

    const A1: &str = "a.png,,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";
    const B1: &str = "\"b,\n\"\"x\"\".png\",,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";
    const B2: &str = "\"b,\n\"\"x\"\".png\",,2,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n";

    fn names(previous: &Previous) -> Vec<&str> {
        let mut names: Vec<&str> = previous.done.files.iter().map(String::as_str).collect();
        names.sort();
        names
    }

    fn pages(previous: &Previous, file: &str) -> Vec<usize> {
        previous
            .done
            .pages_of(file)
            .map(|p| p.iter().copied().collect())
            .unwrap_or_default()
    }

    #[test]
    fn complete_csv_output_is_kept_whole() {
        let text = format!("{CSV_HEADER}\n{A1}{B1}{B2}");
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous.keep, text.len());
        assert_eq!(names(&previous), ["a.png", "b,\n\"x\".png"]);
        assert_eq!(previous.foreign_header, None);
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
    fn pdf_pages_are_done_one_by_one_and_a_cut_takes_one_page() {
        let rows = [
            "b.pdf,1,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n",
            "b.pdf,2,,,,,\n",
            "b.pdf,3,,,,,page 3 is 1×1 points\n",
            "b.pdf,4,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n",
            "b.pdf,4,2,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n",
            "b.pdf,5,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9000,false,\n",
            "c.pdf,,,,,,not a readable PDF\n",
        ];
        let text = format!("{CSV_HEADER}\n{}", rows.concat());
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(pages(&previous, "b.pdf"), [1, 2, 3, 4, 5]);
        assert_eq!(names(&previous), ["c.pdf"]);

        // Cut in the second board of page 4: page 4 goes whole.
        let text = format!("{CSV_HEADER}\n{}{}", rows[..4].concat(), &rows[4][..9]);
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(
            previous.keep,
            CSV_HEADER.len() + 1 + rows[..3].concat().len()
        );
        assert_eq!(pages(&previous, "b.pdf"), [1, 2, 3]);
    }

    #[test]
    fn epd_pages_between_the_first_and_last_named_are_done() {
        let line = |id: &str| format!("8/8/8/8/8/8/8/8 w - - id \"{id}\";\n");
        let text = [
            line("b.pdf#page=3"),
            line("b.pdf#page=7&diagram=1"),
            line("b.pdf#page=7&diagram=2"),
            line("a.png"),
        ]
        .concat();
        let previous = read_previous(text.as_bytes(), OutputFormat::Epd);
        assert_eq!(pages(&previous, "b.pdf"), [3, 4, 5, 6, 7]);
        assert_eq!(names(&previous), ["a.png"]);
        // A cut after page 7's first diagram drops it: page 7 is redone.
        let text = [line("b.pdf#page=3"), line("b.pdf#page=7&diagram=1")].concat() + "8/8/8";
        let previous = read_previous(text.as_bytes(), OutputFormat::Epd);
        assert_eq!(pages(&previous, "b.pdf"), [3]);
    }

    #[test]
    fn a_header_without_its_line_break_is_dropped() {
        let previous = read_previous(CSV_HEADER.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous, Previous::default());
        let text = format!("{CSV_HEADER}\n");
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(previous.keep, text.len());
        assert_eq!(previous.done, Done::default());
    }

    #[test]
    fn an_output_of_the_old_header_is_told() {
        let text =
            "file,board,fen,confidence,legal,error\na.png,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9,false,\n";
        let previous = read_previous(text.as_bytes(), OutputFormat::Csv);
        assert_eq!(
            previous.foreign_header.as_deref(),
            Some("file,board,fen,confidence,legal,error")
        );
    }

    #[test]
    fn a_cut_inside_a_multibyte_character_is_dropped() {
        let row = "é.png,,,,,,bad\n";
        let text = format!("{CSV_HEADER}\n{A1}{row}");
        let cut = &text.as_bytes()[..CSV_HEADER.len() + 1 + A1.len() + 1];
        let previous = read_previous(cut, OutputFormat::Csv);
        assert_eq!(previous.keep, CSV_HEADER.len() + 1);
        assert_eq!(previous.done, Done::default());
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

        let ndjson = "{\"file\":\"a.png\",\"boards\":[]}\n{\"file\":\"b.pdf\",\"page\":2,\"boards\":[]}\n{\"file\":\"b.pdf\",\"boa";
        let previous = read_previous(ndjson.as_bytes(), OutputFormat::Ndjson);
        assert_eq!(previous.keep, ndjson.rfind("{\"file\":\"b").unwrap());
        assert_eq!(names(&previous), ["a.png"]);
        assert_eq!(pages(&previous, "b.pdf"), [2]);
    }
}
