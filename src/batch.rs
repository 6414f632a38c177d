//! Folder conversion: every image under a folder to FEN, in parallel.
//!
//! A file that cannot be read or recognized becomes an error row and the batch
//! goes on. With `--resume`, files already in the output are skipped and new
//! rows are appended.

use std::{
    collections::HashSet,
    fs::{self, OpenOptions},
    io::{self, BufWriter, IsTerminal, Write},
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::json;

use crate::{
    recognize::{BoardReading, RecognizeOptions, Recognizer},
    vision::DecodeLimits,
};

/// Output formats of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// `file,board,fen,confidence,legal,error`
    Csv,
    /// One JSON object per image, as `scan --json` prints.
    Ndjson,
    /// One EPD line per board with an `id` naming the file (failures go to stderr).
    Epd,
}

/// Options of `boardscan batch`.
#[derive(Clone, Debug, clap::Args)]
pub struct BatchConfig {
    /// The folder to walk, recursively.
    pub dir: PathBuf,
    /// Output file; standard output when not given.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: OutputFormat,
    /// Images to process at once (default: all cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Skip files already present in the output file, and append to it.
    #[arg(long, requires = "output")]
    pub resume: bool,
}

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub skipped: usize,
    pub boards: usize,
    pub failed: usize,
}

/// Runs a batch and prints its summary to stderr.
pub fn run(config: &BatchConfig) -> anyhow::Result<Summary> {
    let jobs = config
        .jobs
        .unwrap_or_else(rayon::current_num_threads)
        .max(1);
    let mut files = list_files(&config.dir)?;
    if let Some(output) = &config.output {
        let output = fs::canonicalize(output).unwrap_or_else(|_| output.clone());
        files.retain(|f| fs::canonicalize(f).map_or(true, |f| f != output));
    }
    let done = match (&config.output, config.resume) {
        (Some(output), true) if output.exists() => files_in_output(output, config.format)?,
        _ => HashSet::new(),
    };
    let total = files.len();
    files.retain(|f| !done.contains(&f.display().to_string()));
    let skipped = total - files.len();

    let appending = config.resume && config.output.as_ref().is_some_and(|p| p.exists());
    let mut writer: Box<dyn Write + Send> = match &config.output {
        Some(path) => {
            let fresh = !appending;
            let file = OpenOptions::new()
                .create(true)
                .write(true)
                .append(!fresh)
                .truncate(fresh)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?;
            Box::new(BufWriter::new(file))
        }
        None => Box::new(BufWriter::new(io::stdout())),
    };
    if config.format == OutputFormat::Csv && !appending {
        writeln!(writer, "file,board,fen,confidence,legal,error")?;
    }
    let writer = Mutex::new(writer);

    let recognizer = Recognizer::bundled(jobs, DecodeLimits::default())?;
    let progress = progress_bar(files.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting worker threads")?;
    let started = Instant::now();
    let counts = Mutex::new(Summary {
        files: files.len(),
        skipped,
        ..Summary::default()
    });
    pool.install(|| {
        files.par_iter().try_for_each(|file| -> io::Result<()> {
            let result = fs::read(file)
                .map_err(|e| format!("unreadable file: {e}"))
                .and_then(|bytes| {
                    recognizer
                        .recognize(&bytes, &RecognizeOptions::default())
                        .map_err(|e| e.to_string())
                });
            let rows = format_rows(file, &result, config.format);
            {
                let mut counts = counts.lock().expect("counts lock");
                match &result {
                    Ok(boards) => counts.boards += boards.len(),
                    Err(message) => {
                        counts.failed += 1;
                        if config.format == OutputFormat::Epd || config.output.is_some() {
                            progress.suspend(|| eprintln!("{}: {message}", file.display()));
                        }
                    }
                }
            }
            writer
                .lock()
                .expect("writer lock")
                .write_all(rows.as_bytes())?;
            progress.inc(1);
            Ok(())
        })
    })?;
    writer.into_inner().expect("writer lock").flush()?;
    progress.finish_and_clear();
    let summary = counts.into_inner().expect("counts lock");
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{} images ({} skipped as already done): {} boards, {} failed, in {:.1} s ({:.1} images/s)",
        summary.files,
        summary.skipped,
        summary.boards,
        summary.failed,
        seconds,
        summary.files as f64 / seconds.max(1e-9)
    );
    Ok(summary)
}

/// Every regular, non-hidden file under `dir`, sorted.
fn list_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder", dir.display());
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        match entry {
            Ok(entry) if entry.file_type().is_file() => {
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    files.push(entry.into_path());
                }
            }
            Ok(_) => {}
            Err(err) => eprintln!("skipping: {err}"),
        }
    }
    Ok(files)
}

fn progress_bar(len: u64) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} images, {per_sec}, {eta} left")
            .expect("valid template"),
    );
    bar
}

/// The output rows for one file.
fn format_rows(
    file: &Path,
    result: &Result<Vec<BoardReading>, String>,
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
                    b.fen,
                    b.confidence,
                    b.legal
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
                let epd: Vec<&str> = b.fen.split(' ').take(4).collect();
                format!("{} id \"{}\";\n", epd.join(" "), name.replace('"', "'"))
            })
            .collect(),
        (OutputFormat::Epd, Err(_)) => String::new(),
    }
}

/// Quotes a CSV field when it needs it.
fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// The files an earlier run already wrote to `output`.
fn files_in_output(output: &Path, format: OutputFormat) -> anyhow::Result<HashSet<String>> {
    let text =
        fs::read_to_string(output).with_context(|| format!("reading {}", output.display()))?;
    let mut done = HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let file = match format {
            OutputFormat::Csv => parse_first_csv_field(line),
            OutputFormat::Ndjson => serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("file").and_then(|f| f.as_str()).map(str::to_string)),
            OutputFormat::Epd => line
                .split_once(" id \"")
                .and_then(|(_, rest)| rest.split_once("\";"))
                .map(|(name, _)| name.to_string()),
        };
        done.extend(file);
    }
    Ok(done)
}

fn parse_first_csv_field(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    value.push('"');
                    chars.next();
                }
                '"' => return Some(value),
                c => value.push(c),
            }
        }
        None
    } else {
        line.split(',').next().map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_round_trip_through_resume_parser() {
        for name in ["plain.png", "with,comma.png", "with \"quotes\".png"] {
            let line = format!("{},1,8/8/8/8/8/8/8/8 w - - 0 1,1.0,false,", csv_field(name));
            assert_eq!(parse_first_csv_field(&line).as_deref(), Some(name));
        }
    }

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
}
