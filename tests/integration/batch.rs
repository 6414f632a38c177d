//! `boardscan batch` (and `scan`) against what a real folder holds: an output
//! cut by a crash, names that need quoting, symbolic links, named pipes, and
//! files that are not images.

#![cfg(unix)]

use std::{
    collections::BTreeSet,
    ffi::CString,
    fs,
    os::unix::{ffi::OsStrExt, fs::symlink},
    path::{Path, PathBuf},
    process::Output,
    time::Duration,
};

use crate::util::{batch_args, boardscan_within, describe, fixtures, Fixture};

/// Long enough for a debug build on a slow machine; a hang fails after it.
pub(crate) const LIMIT: Duration = Duration::from_secs(180);

pub(crate) const HEADER: &str = "file,page,board,fen,confidence,legal,error";

pub(crate) fn run(args: &[&str]) -> Output {
    boardscan_within(args, LIMIT)
}

pub(crate) fn run_ok(args: &[&str]) -> Output {
    let output = run(args);
    assert!(output.status.success(), "{}", describe(args, &output));
    output
}

/// A temporary folder holding `images/` with copies of the first `n`
/// fixtures; outputs go beside `images/`.
pub(crate) fn workspace(n: usize) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let images = root.path().join("images");
    fs::create_dir(&images).unwrap();
    for fixture in fixtures().iter().take(n) {
        fs::copy(
            &fixture.file,
            images.join(fixture.file.file_name().unwrap()),
        )
        .unwrap();
    }
    (root, images)
}

fn mkfifo(path: &Path) {
    let name = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `name` is a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(name.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo {}", path.display());
}

/// The fields of each CSV record (RFC 4180: quoted fields may hold commas,
/// doubled quotes and line breaks). Panics on a malformed record.
pub(crate) fn csv_records(text: &str) -> Vec<Vec<String>> {
    assert!(text.is_empty() || text.ends_with('\n'), "{text:?}");
    let mut records = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => {
                quoted = false;
                assert!(matches!(chars.peek(), Some(',' | '\n')), "{text:?}");
            }
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, '\n') => {
                fields.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut fields));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(!quoted && fields.is_empty() && field.is_empty(), "{text:?}");
    records
}

/// The id of an EPD record: a PGN-style string with `\\`, `\"`, `\n` and
/// `\r` escapes.
pub(crate) fn epd_id(line: &str) -> String {
    let start = line
        .find(" id \"")
        .unwrap_or_else(|| panic!("no id: {line:?}"))
        + 5;
    let mut id = String::new();
    let mut chars = line[start..].chars();
    loop {
        match chars.next() {
            Some('"') => break,
            Some('\\') => id.push(match chars.next() {
                Some('\\') => '\\',
                Some('"') => '"',
                Some('n') => '\n',
                Some('r') => '\r',
                other => panic!("bad escape {other:?} in {line:?}"),
            }),
            Some(c) => id.push(c),
            None => panic!("unterminated id: {line:?}"),
        }
    }
    assert_eq!(chars.as_str(), ";", "{line:?}");
    id
}

/// The records of an output, each as written, sorted.
pub(crate) fn sorted_records(text: &str, format: &str) -> Vec<String> {
    assert!(text.ends_with('\n'), "output ends in a cut row: {text:?}");
    let mut records: Vec<String> = match format {
        "csv" => csv_records(text)
            .into_iter()
            .map(|fields| fields.join("\u{1f}"))
            .collect(),
        _ => text.lines().map(str::to_string).collect(),
    };
    records.sort();
    records
}

#[test]
fn resume_after_a_cut_last_row_writes_the_rows_of_a_fresh_run() {
    for format in ["csv", "ndjson", "epd"] {
        let (root, images) = workspace(3);
        let out = root.path().join(format!("out.{format}"));
        run_ok(&batch_args(&images, &out, format, &[]));
        let fresh = fs::read_to_string(&out).unwrap();
        let expected = sorted_records(&fresh, format);
        assert_eq!(
            expected.len(),
            if format == "csv" { 4 } else { 3 },
            "{fresh}"
        );

        // A crash or a full disk cuts the last row in its middle.
        let last = fresh[..fresh.len() - 1].rfind('\n').map_or(0, |i| i + 1);
        let cut = last + (fresh.len() - last) / 2;
        fs::write(&out, &fresh.as_bytes()[..cut]).unwrap();
        run_ok(&batch_args(&images, &out, format, &["--resume"]));
        let resumed = fs::read_to_string(&out).unwrap();
        assert_eq!(
            sorted_records(&resumed, format),
            expected,
            "{format}: fresh:\n{fresh}\nresumed:\n{resumed}"
        );
    }
}

#[test]
fn resume_after_a_cut_header_writes_the_rows_of_a_fresh_run() {
    let (root, images) = workspace(2);
    let out = root.path().join("out.csv");
    run_ok(&batch_args(&images, &out, "csv", &[]));
    let fresh = fs::read_to_string(&out).unwrap();
    let expected = sorted_records(&fresh, "csv");
    // The header without its line break, then an empty file.
    for start in [HEADER, ""] {
        fs::write(&out, start).unwrap();
        run_ok(&batch_args(&images, &out, "csv", &["--resume"]));
        let resumed = fs::read_to_string(&out).unwrap();
        assert!(resumed.starts_with(&format!("{HEADER}\n")), "{resumed}");
        assert_eq!(
            sorted_records(&resumed, "csv"),
            expected,
            "{start:?}:\n{resumed}"
        );
    }
}

#[test]
fn names_with_line_breaks_and_quotes_round_trip_in_every_format() {
    let names = [
        "a\nb.png",
        "q\"uote.png",
        "back\\slash.png",
        "semi;colon, id \"x\".png",
    ];
    let fixture = &fixtures()[0];
    let (root, images) = workspace(0);
    for name in names {
        fs::copy(&fixture.file, images.join(name)).unwrap();
    }
    let expected: BTreeSet<String> = names
        .iter()
        .map(|n| images.join(n).display().to_string())
        .collect();
    for format in ["csv", "ndjson", "epd"] {
        let out = root.path().join(format!("out.{format}"));
        run_ok(&batch_args(&images, &out, format, &[]));
        let text = fs::read_to_string(&out).unwrap();
        let files: Vec<String> = match format {
            "csv" => {
                let records = csv_records(&text);
                assert_eq!(records[0].join(","), HEADER);
                for record in &records[1..] {
                    assert_eq!(record.len(), 7, "{record:?}");
                    assert_eq!(record[1], "", "{record:?}");
                    assert_eq!(record[2], "1", "{record:?}");
                    assert!(record[3].starts_with(&fixture.board_fen), "{record:?}");
                }
                records[1..].iter().map(|r| r[0].clone()).collect()
            }
            "ndjson" => text
                .lines()
                .map(|line| {
                    let value: serde_json::Value = serde_json::from_str(line).unwrap();
                    assert_eq!(value["boards"].as_array().unwrap().len(), 1, "{line}");
                    value["file"].as_str().unwrap().to_string()
                })
                .collect(),
            _ => text
                .lines()
                .map(|line| {
                    assert!(line.starts_with(&fixture.board_fen), "{line:?}");
                    epd_id(line)
                })
                .collect(),
        };
        assert_eq!(
            files.len(),
            names.len(),
            "{format}: one record per board:\n{text}"
        );
        assert_eq!(
            files.into_iter().collect::<BTreeSet<_>>(),
            expected,
            "{format}"
        );

        // A resume finds every file done and redoes nothing.
        let output = run_ok(&batch_args(&images, &out, format, &["--resume"]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("0 images (4 skipped as already done)"),
            "{format}: {stderr}"
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), text, "{format}");
    }
}

fn assert_reads(text: &str, expected: &[(PathBuf, &Fixture)]) {
    let records = csv_records(text);
    assert_eq!(records.len(), expected.len() + 1, "{text}");
    for (path, fixture) in expected {
        let path = path.display().to_string();
        let record = records
            .iter()
            .find(|r| r[0] == path)
            .unwrap_or_else(|| panic!("no row for {path}:\n{text}"));
        let board = record[3].split(' ').next().unwrap();
        assert_eq!(board, fixture.board_fen, "{path}");
    }
}

#[test]
fn batch_follows_symbolic_links_and_survives_link_loops() {
    let fixtures = fixtures();
    let (root, images) = workspace(0);
    symlink(&fixtures[0].file, images.join("a.png")).unwrap();
    symlink(&fixtures[1].file, images.join("b.png")).unwrap();
    symlink(&images, images.join("loop")).unwrap();
    symlink("self.png", images.join("self.png")).unwrap();
    let out = root.path().join("out.csv");
    let args = batch_args(&images, &out, "csv", &[]);
    let output = run_ok(&args);
    assert_reads(
        &fs::read_to_string(&out).unwrap(),
        &[
            (images.join("a.png"), &fixtures[0]),
            (images.join("b.png"), &fixtures[1]),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("2 images"), "{}", describe(&args, &output));
    assert!(stderr.contains("skipping"), "{}", describe(&args, &output));
}

#[test]
fn scan_refuses_a_named_pipe_and_reads_the_other_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe.png");
    mkfifo(&pipe);
    let fixture = &fixtures()[0];
    let file = fixture.file.to_str().unwrap();
    let args = [
        "scan",
        "--view",
        &fixture.view,
        pipe.to_str().unwrap(),
        file,
    ];
    let output = run(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "reading {}: not a regular file (a named pipe)",
            pipe.display()
        )),
        "{}",
        describe(&args, &output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "{}", describe(&args, &output));
    assert!(
        stdout.starts_with(&format!("{file}\t{}", fixture.board_fen)),
        "{}",
        describe(&args, &output)
    );
}

#[test]
fn batch_refuses_a_named_pipe_as_output() {
    let (root, images) = workspace(1);
    let pipe = root.path().join("out.csv");
    mkfifo(&pipe);
    for resume in [false, true] {
        let args = batch_args(
            &images,
            &pipe,
            "csv",
            if resume { &["--resume"] } else { &[] },
        );
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{}",
            describe(&args, &output)
        );
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("not a regular file (a named pipe)"),
            "{}",
            describe(&args, &output)
        );
    }
}

#[test]
fn batch_skips_a_named_pipe_in_the_folder() {
    let fixtures = fixtures();
    let (root, images) = workspace(1);
    let pipe = images.join("pipe.png");
    mkfifo(&pipe);
    let out = root.path().join("out.csv");
    let args = batch_args(&images, &out, "csv", &[]);
    let output = run_ok(&args);
    let image = images.join(fixtures[0].file.file_name().unwrap());
    assert_reads(&fs::read_to_string(&out).unwrap(), &[(image, &fixtures[0])]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(&format!(
            "skipping {}: not a regular file (a named pipe)",
            pipe.display()
        )),
        "{}",
        describe(&args, &output)
    );
}

#[test]
fn batch_reads_images_by_extension_and_counts_the_rest() {
    let fixtures = fixtures();
    let (root, images) = workspace(1);
    fs::copy(&fixtures[1].file, images.join("SECOND.PNG")).unwrap();
    fs::write(images.join("README.md"), "# Diagrams\n").unwrap();
    fs::write(images.join("labels.csv"), "file,fen\n").unwrap();
    fs::write(images.join("notes"), "no extension\n").unwrap();
    let out = root.path().join("out.csv");
    let args = batch_args(&images, &out, "csv", &[]);
    let output = run_ok(&args);
    assert_reads(
        &fs::read_to_string(&out).unwrap(),
        &[
            (
                images.join(fixtures[0].file.file_name().unwrap()),
                &fixtures[0],
            ),
            (images.join("SECOND.PNG"), &fixtures[1]),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("3 files skipped (not inputs by extension"),
        "{}",
        describe(&args, &output)
    );
}
