//! `boardscan batch --shard I/N` and `boardscan merge`: N shards convert a
//! folder once between them, and their merged outputs equal one run's.

#![cfg(unix)]

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use crate::{
    batch::{csv_records, epd_id, sorted_records, workspace, HEADER},
    util::{batch_args, describe, fixtures},
};

const SHARDS: u64 = 3;
const FORMATS: [&str; 3] = ["csv", "ndjson", "epd"];

/// The documented assignment, written again here: FNV-1a 64 of the path
/// relative to the folder, times N, high 64 bits.
fn expected_shard(relative: &str, count: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in relative.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
    }
    ((u128::from(hash) * u128::from(count)) >> 64) as u64
}

/// Runs `boardscan` with `args` and `env` and without the shard variables of
/// the calling environment.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_boardscan"));
    command
        .args(args)
        .env_remove("BOARDSCAN_SHARD")
        .env_remove("JOB_COMPLETION_INDEX")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("running boardscan")
}

fn assert_code(args: &[&str], output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}",
        describe(args, output)
    );
}

/// The file each record of an output names, in order (the CSV header aside).
fn record_files(text: &str, format: &str) -> Vec<String> {
    match format {
        "csv" => {
            let records = csv_records(text);
            assert_eq!(records[0].join(","), HEADER, "{text}");
            records[1..].iter().map(|r| r[0].clone()).collect()
        }
        "ndjson" => text
            .lines()
            .map(|line| {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                value["file"].as_str().unwrap().to_string()
            })
            .collect(),
        _ => text.lines().map(epd_id).collect(),
    }
}

/// A folder of images: fixtures, one in a subfolder, a `.png` that is not an
/// image (an error row), and two files that are not images by name.
/// Returns the root, the folder, and the image inputs relative to it.
fn folder() -> (tempfile::TempDir, PathBuf, Vec<String>) {
    let (root, images) = workspace(9);
    let mut inputs: Vec<String> = fixtures()
        .iter()
        .take(9)
        .map(|f| f.file.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    fs::create_dir(images.join("sub")).unwrap();
    fs::copy(&fixtures()[9].file, images.join("sub/page-10.png")).unwrap();
    inputs.push("sub/page-10.png".into());
    fs::write(images.join("bad.png"), "not a picture").unwrap();
    inputs.push("bad.png".into());
    fs::write(images.join("notes.txt"), "notes\n").unwrap();
    fs::write(images.join("README.md"), "# scans\n").unwrap();
    (root, images, inputs)
}

/// One unsharded run and the N shard runs of [`folder`] in `format`.
struct Sharded {
    root: tempfile::TempDir,
    images: PathBuf,
    inputs: Vec<String>,
    single: PathBuf,
    parts: Vec<PathBuf>,
}

impl Sharded {
    fn run(format: &str) -> Sharded {
        let (root, images, inputs) = folder();
        let single = root.path().join(format!("single.{format}"));
        let args = batch_args(&images, &single, format, &[]);
        // bad.png fails: exit 1, as for any batch with an error row.
        assert_code(&args, &run_env(&args, &[]), 1);
        let mut parts = Vec::new();
        for index in 0..SHARDS {
            let part = root.path().join(format!("part-{index}.{format}"));
            let shard = format!("{index}/{SHARDS}");
            let mut args = batch_args(&images, &part, format, &[]);
            args.extend(["--shard", &shard]);
            let output = run_env(&args, &[]);
            let has_bad = expected_shard("bad.png", SHARDS) == index;
            assert_code(&args, &output, if has_bad { 1 } else { 0 });
            parts.push(part);
        }
        Sharded {
            root,
            images,
            inputs,
            single,
            parts,
        }
    }

    fn path_of(&self, relative: &str) -> String {
        self.images.join(relative).display().to_string()
    }

    /// Merges `inputs` to `name` in `format`; returns its text and stderr.
    fn merge(&self, name: &str, format: &str, inputs: &[&PathBuf]) -> (String, String) {
        let out = self.root.path().join(name);
        let mut args = vec!["merge", "-o", out.to_str().unwrap(), "--format", format];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        let output = run_env(&args, &[]);
        assert_code(&args, &output, 0);
        (
            fs::read_to_string(&out).unwrap(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

#[test]
fn merged_shards_equal_one_run_in_every_format() {
    for format in FORMATS {
        let sharded = Sharded::run(format);
        let single = fs::read_to_string(&sharded.single).unwrap();

        // Each file is in the shard the documented hash names, in one shard
        // only, and the shards together hold every file of the single run.
        let mut owner: BTreeMap<String, usize> = BTreeMap::new();
        for (index, part) in sharded.parts.iter().enumerate() {
            let files: BTreeSet<String> = record_files(&fs::read_to_string(part).unwrap(), format)
                .into_iter()
                .collect();
            assert!(!files.is_empty(), "{format}: shard {index} is empty");
            for file in files {
                if let Some(other) = owner.insert(file.clone(), index) {
                    panic!("{format}: {file} is in shards {other} and {index}");
                }
            }
        }
        let expected: BTreeMap<String, usize> = sharded
            .inputs
            .iter()
            .filter(|relative| format != "epd" || *relative != "bad.png")
            .map(|relative| {
                (
                    sharded.path_of(relative),
                    expected_shard(relative, SHARDS) as usize,
                )
            })
            .collect();
        assert_eq!(owner, expected, "{format}");
        let single_files: BTreeSet<String> = record_files(&single, format).into_iter().collect();
        assert_eq!(
            owner.keys().cloned().collect::<BTreeSet<_>>(),
            single_files,
            "{format}"
        );

        // The merge: every row of the single run once, one header, sorted
        // by file; the same bytes as the single run merged on its own.
        let parts: Vec<&PathBuf> = sharded.parts.iter().collect();
        let (merged, stderr) = sharded.merge(&format!("merged.{format}"), format, &parts);
        let (reference, _) =
            sharded.merge(&format!("reference.{format}"), format, &[&sharded.single]);
        assert_eq!(
            sorted_records(&merged, format),
            sorted_records(&single, format),
            "{format}: merged:\n{merged}\nsingle:\n{single}"
        );
        let files = record_files(&merged, format);
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted, "{format}: not sorted by file:\n{merged}");
        if format == "csv" {
            assert_eq!(merged.matches(HEADER).count(), 1, "{merged}");
        }
        assert_eq!(
            merged, reference,
            "{format}: the merged shards differ from the merged single run"
        );
        let (images, errors) = if format == "epd" { (10, 0) } else { (11, 1) };
        let rows = files.len();
        let error_rows = if errors == 1 {
            "1 error row"
        } else {
            "0 error rows"
        };
        assert!(
            stderr.contains(&format!(
                "merged 3 outputs: {rows} rows for {images} files ({error_rows})"
            )),
            "{format}: {stderr}"
        );
    }
}

#[test]
fn merge_drops_a_cut_end_and_a_resumed_shard_completes_it() {
    for format in FORMATS {
        let sharded = Sharded::run(format);
        let parts: Vec<&PathBuf> = sharded.parts.iter().collect();
        let (full, _) = sharded.merge(&format!("full.{format}"), format, &parts);

        // The shard with the most rows is cut in the middle of its last row.
        let (index, part) = sharded
            .parts
            .iter()
            .enumerate()
            .max_by_key(|(_, p)| record_files(&fs::read_to_string(p).unwrap(), format).len())
            .unwrap();
        let whole = fs::read_to_string(part).unwrap();
        let last = whole[..whole.len() - 1].rfind('\n').map_or(0, |i| i + 1);
        fs::write(part, &whole.as_bytes()[..last + (whole.len() - last) / 2]).unwrap();

        let (cut, stderr) = sharded.merge(&format!("cut.{format}"), format, &parts);
        assert!(
            stderr.contains(&format!("{}: dropping its cut end", part.display())),
            "{format}: {stderr}"
        );
        // What is left is the full merge less the rows of some files of
        // that shard, the last one at least, in the same order.
        let kept: BTreeSet<String> = record_files(&cut, format).into_iter().collect();
        let full_files: BTreeSet<String> = record_files(&full, format).into_iter().collect();
        let lost: BTreeSet<&String> = full_files.difference(&kept).collect();
        let part_files: BTreeSet<String> = record_files(&whole, format).into_iter().collect();
        assert!(!lost.is_empty(), "{format}: nothing dropped:\n{cut}");
        assert!(
            lost.iter().all(|f| part_files.contains(*f)),
            "{format}: dropped {lost:?}, not all of shard {index}"
        );
        assert!(kept.is_subset(&full_files), "{format}");
        let full_sorted = sorted_records(&full, format);
        for record in sorted_records(&cut, format) {
            assert!(full_sorted.contains(&record), "{format}: {record:?}");
        }

        // Resuming the shard, then merging again, gives the full merge.
        let shard = format!("{index}/{SHARDS}");
        let mut args = batch_args(&sharded.images, part, format, &[]);
        args.extend(["--shard", &shard, "--resume"]);
        let output = run_env(&args, &[]);
        assert!(
            output.status.code().unwrap() <= 1,
            "{}",
            describe(&args, &output)
        );
        let (again, _) = sharded.merge(&format!("again.{format}"), format, &parts);
        assert_eq!(again, full, "{format}");
    }
}

#[test]
fn a_file_stays_in_its_shard_when_files_are_added_whichever_way_the_shard_is_given() {
    let (root, images) = workspace(4);
    // Shard i of 3 by --shard, BOARDSCAN_SHARD, and --shard-count with
    // JOB_COMPLETION_INDEX (as an Indexed Job runs it).
    let run_shards = |tag: &str| -> BTreeMap<String, u64> {
        let mut owner = BTreeMap::new();
        for index in 0..SHARDS {
            let out = root.path().join(format!("{tag}-{index}.csv"));
            let shard = format!("{index}/{SHARDS}");
            let count = SHARDS.to_string();
            let index_text = index.to_string();
            let mut args = batch_args(&images, &out, "csv", &[]);
            let env: Vec<(&str, &str)> = match index {
                0 => {
                    args.extend(["--shard", &shard]);
                    vec![]
                }
                1 => vec![("BOARDSCAN_SHARD", &shard)],
                _ => {
                    args.extend(["--shard-count", &count]);
                    vec![("JOB_COMPLETION_INDEX", &index_text)]
                }
            };
            let output = run_env(&args, &env);
            assert_code(&args, &output, 0);
            for file in record_files(&fs::read_to_string(&out).unwrap(), "csv") {
                assert!(owner.insert(file.clone(), index).is_none(), "{file}");
            }
        }
        owner
    };
    let before = run_shards("before");
    assert_eq!(before.len(), 4, "{before:?}");

    // Six more files, two of them in a new subfolder, listed before and
    // between the first four (which an assignment by position would move).
    let fixtures = fixtures();
    fs::create_dir(images.join("00-more")).unwrap();
    for (i, fixture) in fixtures[4..10].iter().enumerate() {
        let name = match i {
            0 | 1 => format!("00-more/added-{i}.png"),
            2 | 3 => format!("00-added-{i}.png"),
            _ => format!("02-added-{i}.png"),
        };
        fs::copy(&fixture.file, images.join(name)).unwrap();
    }
    let after = run_shards("after");
    assert_eq!(after.len(), 10, "{after:?}");
    for (file, index) in &before {
        assert_eq!(after.get(file), Some(index), "{file} moved");
    }
    for (file, index) in &after {
        let relative = Path::new(file).strip_prefix(&images).unwrap();
        assert_eq!(
            expected_shard(relative.to_str().unwrap(), SHARDS),
            *index,
            "{file}"
        );
    }
}

/// Extra arguments, environment, and what stderr must say.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[test]
fn bad_shards_are_clear_errors_and_write_nothing() {
    let (root, images) = workspace(1);
    let out = root.path().join("out.csv");
    let cases: [Case; 8] = [
        (&["--shard", "3/3"], &[], "index is 0 to 2"),
        (&["--shard", "x"], &[], "write I/N"),
        (&["--shard", "1/0"], &[], "at least 1"),
        (&["--shard=-1/3"], &[], "write I/N"),
        (&[], &[("BOARDSCAN_SHARD", "5/2")], "out of range"),
        (
            &["--shard-count", "3"],
            &[],
            "JOB_COMPLETION_INDEX, which is not set",
        ),
        (
            &["--shard-count", "3"],
            &[("JOB_COMPLETION_INDEX", "3")],
            "out of range",
        ),
        (
            &["--shard-count", "3", "--shard", "0/3"],
            &[],
            "cannot be used with",
        ),
    ];
    for (extra, env, message) in cases {
        let mut args = batch_args(&images, &out, "csv", &[]);
        args.extend(extra);
        let output = run_env(&args, env);
        assert_code(&args, &output, 2);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(message),
            "{env:?}: {}",
            describe(&args, &output)
        );
        assert!(!out.exists(), "{env:?}: {}", describe(&args, &output));
    }
}

#[test]
fn merge_refuses_overlapping_shard_outputs() {
    let (root, images) = workspace(2);
    let a = root.path().join("a.csv");
    let b = root.path().join("b.csv");
    for out in [&a, &b] {
        let args = batch_args(&images, out, "csv", &[]);
        assert_code(&args, &run_env(&args, &[]), 0);
    }
    let merged = root.path().join("merged.csv");
    let args = [
        "merge",
        "-o",
        merged.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ];
    let output = run_env(&args, &[]);
    assert_code(&args, &output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{} and {} both hold rows for",
            a.display(),
            b.display()
        )) && stderr.contains("the shards overlap"),
        "{}",
        describe(&args, &output)
    );
    assert!(!merged.exists(), "{}", describe(&args, &output));

    // The same in NDJSON and EPD, and one output named twice.
    for (format, row) in [
        ("ndjson", "{\"file\":\"x.png\",\"error\":\"bad\"}\n"),
        ("epd", "8/8/8/8/8/8/8/8 w - - id \"x.png\";\n"),
    ] {
        let c = root.path().join(format!("c.{format}"));
        let d = root.path().join(format!("d.{format}"));
        fs::write(&c, row).unwrap();
        fs::write(&d, row).unwrap();
        let args = [
            "merge",
            "--format",
            format,
            c.to_str().unwrap(),
            d.to_str().unwrap(),
        ];
        let output = run_env(&args, &[]);
        assert_code(&args, &output, 2);
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("both hold rows for \"x.png\""),
            "{}",
            describe(&args, &output)
        );
        assert!(output.stdout.is_empty(), "{}", describe(&args, &output));
    }
    let args = ["merge", a.to_str().unwrap(), a.to_str().unwrap()];
    let output = run_env(&args, &[]);
    assert_code(&args, &output, 2);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is given twice"),
        "{}",
        describe(&args, &output)
    );
}
