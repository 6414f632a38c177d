//! `boardscan merge`: the outputs of the shards of a batch, as one output.
//!
//! The merged output holds every row of every input once, in one order that
//! does not depend on how the inputs were sharded or in which order their
//! rows were written: by file name (the name as the rows spell it, compared
//! byte by byte), then by PDF page (images and rows for a whole file first),
//! then by board number (CSV; EPD where a page has several), then in the
//! order the input holds them (the boards of one image in EPD). CSV gets one header. So the
//! merge of the N shard outputs of a folder equals the merge of one unsharded
//! output of it, when the shards and the unsharded run were given the folder
//! by the same name.
//!
//! Each input is read as `--resume` reads an earlier output (the same code,
//! in `batch/resume.rs`): a record cut at the end by a crash is dropped, with
//! the rows of the file written before it when a file has several rows, and
//! a note on stderr names the input: its shard should be resumed and the
//! merge run again. Two inputs holding rows of the same file are refused:
//! the shards overlap, so they were not run with the same folder and count.
//! Within one input, a row repeated exactly (the same picture and board,
//! the same text) is written once and counted; two different rows for the
//! same picture and board are refused. Lines may end in `\r\n`; the output's
//! end in `\n`.
//!
//! Memory holds the names of the files, not the rows: each input is read
//! whole once to index its records, and the records are copied from the
//! inputs in order. The output is written beside its final name and renamed
//! into place, so a failed merge leaves no half-written file, and an input
//! may be named as the output.

use std::{
    collections::{hash_map::Entry, HashMap},
    fs::{self, File, OpenOptions},
    hash::{DefaultHasher, Hash, Hasher},
    io::{self, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use anyhow::{bail, Context};

use super::{
    count,
    resume::{kept_records, record_line},
};
use crate::{
    formats::{OutputFormat, CSV_HEADER},
    source::file::{check_output, open_nonblocking, read_regular_file},
};

/// Options of `boardscan merge`.
#[derive(Clone, Debug, clap::Args)]
pub struct MergeConfig {
    /// The outputs of the shards (`boardscan batch --shard I/N -o FILE`), all
    /// in the same format.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The merged output; standard output when not given.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The format of the inputs and of the output.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: OutputFormat,
}

/// What a merge did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Inputs read.
    pub inputs: usize,
    /// Distinct files named by the rows.
    pub files: usize,
    /// Rows written (the CSV header aside).
    pub rows: usize,
    /// Rows that record a failed file (CSV and NDJSON; EPD has none).
    pub error_rows: usize,
    /// Inputs whose cut end was dropped.
    pub cut_inputs: usize,
    /// Rows left out as exact repeats of a row of the same input.
    pub repeated_rows: usize,
}

/// One record of an input, and where it sorts.
struct Row {
    file: String,
    /// The PDF page; 0 for an image and a row for a whole file.
    page: u64,
    /// The board number (CSV, and EPD where a page has several); 0 where
    /// there is none.
    board: u64,
    /// Whether no other row may have the same file, page and board (all
    /// but the boards of an image in EPD, which are not numbered).
    unique: bool,
    /// A hash of the row's text, to tell a repeat from a conflict.
    text: u64,
    input: usize,
    start: u64,
    len: usize,
}

/// Merges the inputs and prints a summary to stderr.
pub fn run(config: &MergeConfig) -> anyhow::Result<MergeSummary> {
    if let Some(output) = &config.output {
        check_output(output)?;
    }
    if config.format == OutputFormat::Pgn {
        bail!("merge does not read PGN: run the shards with --format csv, ndjson or epd, merge those, and convert the merged output");
    }
    refuse_repeats(&config.inputs)?;
    let mut summary = MergeSummary {
        inputs: config.inputs.len(),
        ..MergeSummary::default()
    };
    let mut rows = Vec::new();
    // File name → the input holding its rows.
    let mut owners: HashMap<String, usize> = HashMap::new();
    for (input, path) in config.inputs.iter().enumerate() {
        let bytes =
            read_regular_file(path).with_context(|| format!("reading {}", path.display()))?;
        let records = kept_records(&bytes, config.format);
        let keep = records.last().map_or(0, |r| r.end);
        if keep < bytes.len() {
            summary.cut_inputs += 1;
            eprintln!(
                "{}: dropping its cut end ({} bytes); the files it named are not in the merged output: resume that shard (--resume) and merge again",
                path.display(),
                bytes.len() - keep
            );
        }
        for (i, record) in records.into_iter().enumerate() {
            let text = String::from_utf8_lossy(&bytes[record.start..record.end]);
            let line = record_line(&text);
            let not_a_row = || {
                let number = bytes[..record.start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                anyhow::anyhow!(
                    "{}: line {number} is not a boardscan {} row: {}",
                    path.display(),
                    format_name(config.format),
                    shorten(line)
                )
            };
            if config.format == OutputFormat::Csv && i == 0 {
                if line != CSV_HEADER {
                    bail!(
                        "{}: not a boardscan CSV output: its first line is not the header {CSV_HEADER:?} (is --format right?)",
                        path.display()
                    );
                }
                continue;
            }
            let key = record.key.clone().ok_or_else(not_a_row)?;
            let file = key.file;
            match owners.entry(file.clone()) {
                Entry::Occupied(owner) if *owner.get() != input => bail!(
                    "{} and {} both hold rows for {file:?}: the shards overlap (run every shard on the same folder, by the same name, with the same shard count)",
                    config.inputs[*owner.get()].display(),
                    path.display(),
                ),
                Entry::Occupied(_) => {}
                Entry::Vacant(slot) => {
                    slot.insert(input);
                }
            }
            summary.error_rows += usize::from(key.error);
            let mut hasher = DefaultHasher::new();
            line.hash(&mut hasher);
            rows.push(Row {
                file,
                page: key.page.unwrap_or(0),
                board: key.board.unwrap_or(0),
                unique: config.format != OutputFormat::Epd || key.board.is_some(),
                text: hasher.finish(),
                input,
                start: record.start as u64,
                len: record.end - record.start,
            });
        }
    }
    // Stable: the boards of one file keep their order where it is not numbered.
    rows.sort_by(|a, b| {
        (a.file.as_str(), a.page, a.board).cmp(&(b.file.as_str(), b.page, b.board))
    });
    let rows = without_repeats(rows, config, &mut summary)?;
    summary.files = owners.len();
    summary.rows = rows.len();

    match &config.output {
        Some(output) => write_in_place(output, |out| write_rows(out, config, &rows))?,
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            write_rows(&mut out, config, &rows)?;
            out.flush()?;
        }
    }
    eprintln!(
        "merged {}: {} for {} ({}){}{}",
        count(summary.inputs, "output"),
        count(summary.rows, "row"),
        count(summary.files, "file"),
        count(summary.error_rows, "error row"),
        if summary.repeated_rows > 0 {
            format!(
                "; left out {} repeated within its input",
                count(summary.repeated_rows, "row")
            )
        } else {
            String::new()
        },
        if summary.cut_inputs > 0 {
            format!(
                "; {} had a cut end, see above",
                count(summary.cut_inputs, "input")
            )
        } else {
            String::new()
        }
    );
    Ok(summary)
}

/// The sorted rows with each exact repeat left out (and counted); two
/// different rows for one picture and board are refused.
fn without_repeats(
    rows: Vec<Row>,
    config: &MergeConfig,
    summary: &mut MergeSummary,
) -> anyhow::Result<Vec<Row>> {
    let mut kept: Vec<Row> = Vec::with_capacity(rows.len());
    for row in rows {
        if let Some(last) = kept.last() {
            let same_place = row.unique
                && (last.file.as_str(), last.page, last.board)
                    == (row.file.as_str(), row.page, row.board);
            if same_place && last.text == row.text {
                summary.repeated_rows += 1;
                continue;
            }
            if same_place {
                bail!(
                    "{} holds two different rows for {:?}{}{}: which is right cannot be told; remove one and merge again",
                    config.inputs[row.input].display(),
                    row.file,
                    if row.page > 0 { format!(" page {}", row.page) } else { String::new() },
                    if row.board > 0 { format!(" board {}", row.board) } else { String::new() },
                );
            }
        }
        kept.push(row);
    }
    Ok(kept)
}

/// Refuses an input named twice (its rows would all overlap with themselves).
fn refuse_repeats(inputs: &[PathBuf]) -> anyhow::Result<()> {
    let mut seen: HashMap<PathBuf, &Path> = HashMap::new();
    for input in inputs {
        let key = fs::canonicalize(input).unwrap_or_else(|_| input.clone());
        if let Some(first) = seen.insert(key, input) {
            bail!(
                "{} is given twice (as {}): name each shard output once",
                input.display(),
                first.display()
            );
        }
    }
    Ok(())
}

/// Copies the rows, in order, from the inputs to `out`.
fn write_rows(out: &mut dyn Write, config: &MergeConfig, rows: &[Row]) -> anyhow::Result<()> {
    if config.format == OutputFormat::Csv {
        writeln!(out, "{CSV_HEADER}")?;
    }
    let mut inputs: Vec<File> = config
        .inputs
        .iter()
        .map(|path| {
            open_nonblocking(path, OpenOptions::new().read(true))
                .with_context(|| format!("opening {}", path.display()))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut buffer = Vec::new();
    for row in rows {
        let input = &mut inputs[row.input];
        buffer.resize(row.len, 0);
        input
            .seek(SeekFrom::Start(row.start))
            .and_then(|_| input.read_exact(&mut buffer))
            .with_context(|| {
                format!(
                    "reading {} again (did it change during the merge?)",
                    config.inputs[row.input].display()
                )
            })?;
        // Every line ends in `\n`, whatever the input's line endings.
        match buffer.strip_suffix(b"\r\n") {
            Some(line) => {
                out.write_all(line)?;
                out.write_all(b"\n")?;
            }
            None => out.write_all(&buffer)?,
        }
    }
    Ok(())
}

/// Writes a file beside `path` with `write`, then renames it to `path`.
fn write_in_place(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let temporary = path.with_file_name(format!(
        ".{}.merging-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let file = File::create(&temporary)
            .with_context(|| format!("creating {}", temporary.display()))?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&temporary, path)
            .with_context(|| format!("renaming {} to {}", temporary.display(), path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

fn format_name(format: OutputFormat) -> &'static str {
    match format {
        OutputFormat::Csv => "CSV",
        OutputFormat::Ndjson => "NDJSON",
        OutputFormat::Epd => "EPD",
        OutputFormat::Pgn => "PGN",
    }
}

/// A record for an error message: at most 80 characters.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(80) {
        Some((end, _)) => format!("{:?}…", &line[..end]),
        None => format!("{line:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEN: &str = "8/8/8/8/8/8/8/8 w - - 0 1";

    /// Writes `inputs` into a temporary folder and merges them to `out.*`.
    fn merge(
        format: OutputFormat,
        inputs: &[&str],
    ) -> (anyhow::Result<MergeSummary>, String, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let inputs: Vec<PathBuf> = inputs
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let path = dir.path().join(format!("part-{i}"));
                fs::write(&path, text).unwrap();
                path
            })
            .collect();
        let output = dir.path().join("out");
        let config = MergeConfig {
            inputs,
            output: Some(output.clone()),
            format,
        };
        let result = run(&config);
        let text = fs::read_to_string(&output).unwrap_or_default();
        (result, text, dir)
    }

    fn csv_row(file: &str, board: &str) -> String {
        format!("{file},,{board},{FEN},0.9000,false,\n")
    }

    #[test]
    fn rows_sort_by_file_then_board_number_under_one_header() {
        let a = format!(
            "{CSV_HEADER}\n{}{}{}",
            csv_row("b.png", "2"),
            csv_row("b.png", "10"),
            "\"c,\n\"\"q\"\".png\",,,,,,no board\n"
        );
        let b = format!(
            "{CSV_HEADER}\n{}{}",
            csv_row("a.png", "1"),
            csv_row("b.png", "1")
        );
        let b = b.replace("b.png,,1", "d.png,,1");
        let (result, text, _dir) = merge(OutputFormat::Csv, &[&a, &b]);
        let summary = result.unwrap();
        let expected = format!(
            "{CSV_HEADER}\n{}{}{}{}{}",
            csv_row("a.png", "1"),
            csv_row("b.png", "2"),
            csv_row("b.png", "10"),
            "\"c,\n\"\"q\"\".png\",,,,,,no board\n",
            csv_row("d.png", "1"),
        );
        assert_eq!(text, expected);
        assert_eq!(
            summary,
            MergeSummary {
                inputs: 2,
                files: 4,
                rows: 5,
                error_rows: 1,
                cut_inputs: 0,
                repeated_rows: 0
            }
        );
    }

    #[test]
    fn crlf_inputs_are_read_and_written_with_lf() {
        let a = format!(
            "{CSV_HEADER}\r\n{}",
            csv_row("a.png", "1").replace('\n', "\r\n")
        );
        let (result, text, _dir) = merge(OutputFormat::Csv, &[&a]);
        assert_eq!(result.unwrap().rows, 1);
        assert_eq!(text, format!("{CSV_HEADER}\n{}", csv_row("a.png", "1")));
    }

    #[test]
    fn a_row_repeated_in_one_input_is_written_once_and_a_conflict_is_refused() {
        let a = format!(
            "{CSV_HEADER}\n{}{}{}",
            csv_row("a.png", "1"),
            csv_row("b.png", "1"),
            csv_row("a.png", "1")
        );
        let (result, text, _dir) = merge(OutputFormat::Csv, &[&a]);
        let summary = result.unwrap();
        assert_eq!((summary.rows, summary.repeated_rows), (2, 1));
        assert_eq!(
            text,
            format!(
                "{CSV_HEADER}\n{}{}",
                csv_row("a.png", "1"),
                csv_row("b.png", "1")
            )
        );
        let conflict = format!(
            "{CSV_HEADER}\n{}{}",
            csv_row("a.png", "1"),
            csv_row("a.png", "1").replace("0.9000", "0.5000")
        );
        let (result, _, _dir) = merge(OutputFormat::Csv, &[&conflict]);
        let err = result.unwrap_err().to_string();
        assert!(
            err.contains("two different rows for \"a.png\" board 1"),
            "{err}"
        );
    }

    #[test]
    fn pdf_rows_sort_by_page_then_board() {
        let a = format!(
            "{CSV_HEADER}\nb.pdf,10,1,{FEN},0.9000,false,\nb.pdf,2,2,{FEN},0.9000,false,\nb.pdf,3,,,,,\nb.pdf,2,1,{FEN},0.9000,false,\n"
        );
        let (result, text, _dir) = merge(OutputFormat::Csv, &[&a]);
        assert_eq!(result.unwrap().files, 1);
        let pages: Vec<&str> = text.lines().skip(1).map(|l| &l[6..10]).collect();
        assert_eq!(pages, ["2,1,", "2,2,", "3,,,", "10,1"], "{text}");

        let epd = "8/8/8/8/8/8/8/8 w - - id \"b.pdf#page=10\";\n8/8/8/8/8/8/8/8 w - - id \"b.pdf#page=2&diagram=2\";\n8/8/8/8/8/8/8/8 w - - id \"b.pdf#page=2&diagram=1\";\n";
        let (result, text, _dir) = merge(OutputFormat::Epd, &[epd]);
        assert_eq!(result.unwrap().files, 1);
        let ids: Vec<&str> = text.lines().map(|l| &l[25..]).collect();
        assert_eq!(
            ids,
            [
                "\"b.pdf#page=2&diagram=1\";",
                "\"b.pdf#page=2&diagram=2\";",
                "\"b.pdf#page=10\";"
            ]
        );
    }

    #[test]
    fn pgn_is_refused() {
        let err = merge(OutputFormat::Pgn, &[""]).0.unwrap_err();
        assert!(format!("{err:#}").contains("does not read PGN"), "{err:#}");
    }

    #[test]
    fn epd_boards_of_a_file_keep_their_order_and_empty_inputs_are_fine() {
        let a = "k7/8/8/8/8/8/8/K7 w - - id \"b.png\";\n8/8/8/8/8/8/8/K6k w - - id \"b.png\";\n";
        let b = "8/8/8/8/8/8/8/8 w - - id \"a.png\";\n";
        let (result, text, _dir) = merge(OutputFormat::Epd, &[a, "", b]);
        assert_eq!(result.unwrap().files, 2);
        assert_eq!(text, format!("{b}{a}"));
    }

    #[test]
    fn a_cut_end_is_dropped_as_resume_drops_it() {
        // As in `--resume`, the rows of the picture before the cut one go
        // too (a cut may split a picture's rows), unless what is left of
        // the cut row names another picture.
        let whole = format!(
            "{CSV_HEADER}\n{}{}{}",
            csv_row("a.png", "1"),
            csv_row("b.png", "1"),
            csv_row("c.png", "1")
        );
        let last = csv_row("c.png", "1").len();
        for (cut, kept) in [
            (last - 3, vec!["a.png"]),
            (last - 7, vec!["a.png", "b.png"]),
        ] {
            let (result, text, _dir) = merge(OutputFormat::Csv, &[&whole[..whole.len() - cut]]);
            assert_eq!(result.unwrap().cut_inputs, 1);
            let rows: String = kept.iter().map(|f| csv_row(f, "1")).collect();
            assert_eq!(text, format!("{CSV_HEADER}\n{rows}"), "{cut}");
        }

        let ndjson = "{\"file\":\"a.png\",\"error\":\"bad\"}\n{\"file\":\"b.png\",\"boa";
        let (result, text, _dir) = merge(OutputFormat::Ndjson, &[ndjson]);
        let summary = result.unwrap();
        assert_eq!((summary.rows, summary.error_rows), (1, 1));
        assert_eq!(text, "{\"file\":\"a.png\",\"error\":\"bad\"}\n");
    }

    #[test]
    fn overlapping_inputs_are_refused_and_nothing_is_written() {
        let a = format!("{CSV_HEADER}\n{}", csv_row("a.png", "1"));
        let b = format!(
            "{CSV_HEADER}\n{}{}",
            csv_row("z.png", "1"),
            csv_row("a.png", "1")
        );
        let (result, text, _dir) = merge(OutputFormat::Csv, &[&a, &b]);
        let err = format!("{:#}", result.unwrap_err());
        assert!(err.contains("both hold rows for \"a.png\""), "{err}");
        assert!(err.contains("part-0") && err.contains("part-1"), "{err}");
        assert_eq!(text, "");
    }

    #[test]
    fn inputs_of_another_format_are_refused() {
        let csv = format!("{CSV_HEADER}\n{}", csv_row("a.png", "1"));
        let ndjson = "{\"file\":\"a.png\",\"boards\":[]}\n";
        let err = merge(OutputFormat::Ndjson, &[&csv]).0.unwrap_err();
        assert!(
            format!("{err:#}").contains("line 1 is not a boardscan NDJSON row"),
            "{err:#}"
        );
        let err = merge(OutputFormat::Csv, &[ndjson]).0.unwrap_err();
        assert!(format!("{err:#}").contains("is not the header"), "{err:#}");
        let err = merge(OutputFormat::Epd, &[ndjson]).0.unwrap_err();
        assert!(
            format!("{err:#}").contains("not a boardscan EPD row"),
            "{err:#}"
        );
    }
}
