//! Scoring recognition against a labelled set.
//!
//! The labels are a CSV file with the header `file,fen,view[,kind]`: `file`
//! relative to the CSV's folder, `fen` the board part of the true FEN (empty
//! for an image without a board), `view` the side at the bottom (`white`,
//! `black` or empty when unknown), `kind` a free label to group the scores by.
//! A board counts as exact only when all 64 squares match; an image labelled
//! with no board counts as right only when no board is reported.

use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
    time::Instant,
};

use crate::recognize::{RecognizeError, RecognizeOptions, Recognizer, View};

/// One labelled image.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: PathBuf,
    pub board_fen: Option<String>,
    pub view: Option<View>,
    pub kind: String,
}

/// Errors reading a labels file.
#[derive(Debug, thiserror::Error)]
pub enum LabelsError {
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Format {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// Reads a labels CSV (or `labels.csv`/`boards.csv` inside a folder).
pub fn read_labels(path: &Path) -> Result<Vec<Label>, LabelsError> {
    let csv_path = if path.is_dir() {
        ["labels.csv", "boards.csv"]
            .iter()
            .map(|name| path.join(name))
            .find(|p| p.is_file())
            .unwrap_or_else(|| path.join("labels.csv"))
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&csv_path).map_err(|source| LabelsError::Io {
        path: csv_path.clone(),
        source,
    })?;
    let base = csv_path.parent().unwrap_or(Path::new("."));
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines
        .next()
        .map(|(_, h)| h.split(',').map(str::trim).collect())
        .unwrap_or_default();
    let column = |name: &str| header.iter().position(|h| *h == name);
    let format_error = |line: usize, message: String| LabelsError::Format {
        path: csv_path.clone(),
        line,
        message,
    };
    let (Some(file_col), Some(fen_col)) = (column("file"), column("fen")) else {
        return Err(format_error(
            1,
            "the header needs `file` and `fen` columns".into(),
        ));
    };
    let (view_col, kind_col) = (column("view"), column("kind"));
    let mut labels = Vec::new();
    for (index, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let field = |col: Option<usize>| col.and_then(|c| fields.get(c)).copied().unwrap_or("");
        let file = field(Some(file_col));
        if file.is_empty() {
            return Err(format_error(index + 1, "empty file name".into()));
        }
        let view = match field(view_col) {
            "" => None,
            v => Some(v.parse().map_err(|e: String| format_error(index + 1, e))?),
        };
        let fen = field(Some(fen_col));
        labels.push(Label {
            file: base.join(file),
            board_fen: (!fen.is_empty()).then(|| fen.to_string()),
            view,
            kind: match field(kind_col) {
                "" => "unlabelled".to_string(),
                k => k.to_string(),
            },
        });
    }
    Ok(labels)
}

/// Scores for one kind of image.
#[derive(Clone, Debug, Default)]
pub struct KindScore {
    pub images: usize,
    pub exact: usize,
    pub squares_right: usize,
    pub squares_total: usize,
    pub millis: Vec<f64>,
}

/// The result of an evaluation, printable as a table.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub kinds: BTreeMap<String, KindScore>,
    /// `file: expected → got` for every image that was not exactly right.
    pub failures: Vec<String>,
    /// For every labelled board that was found: the confidence reported for
    /// it and whether it was exact, to check that the two agree.
    pub confidences: Vec<(f32, bool)>,
}

/// Board confidence ranges the report compares with how often boards in
/// them were exact.
const CONFIDENCE_BINS: [(f32, f32); 3] = [(0.9, 1.01), (0.5, 0.9), (0.0, 0.5)];

/// Runs the recognizer over every labelled image. With `use_labelled_view`,
/// the labelled orientation is given to the recognizer, which isolates square
/// errors from orientation errors.
pub fn measure(recognizer: &Recognizer, labels: &[Label], use_labelled_view: bool) -> Report {
    let mut report = Report::default();
    for label in labels {
        let options = RecognizeOptions {
            view: if use_labelled_view { label.view } else { None },
            ..Default::default()
        };
        let started = Instant::now();
        let result = std::fs::read(&label.file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| match recognizer.recognize(&bytes, &options) {
                Ok(boards) => Ok(boards
                    .into_iter()
                    .map(|b| (b.board_fen, b.confidence))
                    .collect::<Vec<_>>()),
                Err(RecognizeError::NoBoardFound) => Ok(Vec::new()),
                Err(err) => Err(err.to_string()),
            });
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        let score = report.kinds.entry(label.kind.clone()).or_default();
        score.images += 1;
        score.millis.push(millis);
        let name = label.file.display();
        match (&label.board_fen, result) {
            (None, Ok(found)) if found.is_empty() => score.exact += 1,
            (None, Ok(found)) => report.failures.push(format!(
                "{name}: expected no board, got {}",
                found
                    .iter()
                    .map(|(fen, _)| fen.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
            (Some(expected), Ok(found)) => {
                // Several boards in one picture: the label names one of them.
                let best = found
                    .iter()
                    .map(|(fen, confidence)| (squares_matching(expected, fen), fen, *confidence))
                    .max_by_key(|(n, _, _)| *n);
                let right = best.map_or(0, |(n, _, _)| n);
                score.squares_right += right;
                score.squares_total += 64;
                if let Some((_, _, confidence)) = best {
                    report.confidences.push((confidence, right == 64));
                }
                if right == 64 {
                    score.exact += 1;
                } else {
                    let got = best.map_or("no board".to_string(), |(_, f, _)| f.clone());
                    report.failures.push(format!(
                        "{name}: expected {expected}, got {got} ({right}/64)"
                    ));
                }
            }
            (expected, Err(err)) => {
                if expected.is_some() {
                    score.squares_total += 64;
                }
                report.failures.push(format!("{name}: {err}"));
            }
        }
    }
    report
}

/// How many of the 64 squares two board FENs agree on.
pub fn squares_matching(a: &str, b: &str) -> usize {
    let (a, b) = (expand(a), expand(b));
    if a.len() != 64 || b.len() != 64 {
        return 0;
    }
    a.iter().zip(&b).filter(|(x, y)| x == y).count()
}

/// The 64 squares of a board FEN, `'.'` for empty, a8 first.
fn expand(board_fen: &str) -> Vec<char> {
    let mut squares = Vec::with_capacity(64);
    for c in board_fen.chars().filter(|c| *c != '/') {
        match c.to_digit(10) {
            Some(n) => squares.extend(std::iter::repeat_n('.', n as usize)),
            None => squares.push(c),
        }
    }
    squares
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<24} {:>6} {:>12} {:>9} {:>10}",
            "kind", "images", "exact", "squares", "median ms"
        )?;
        let mut all = KindScore::default();
        for (kind, s) in &self.kinds {
            write_row(f, kind, s)?;
            all.images += s.images;
            all.exact += s.exact;
            all.squares_right += s.squares_right;
            all.squares_total += s.squares_total;
            all.millis.extend(&s.millis);
        }
        write_row(f, "all", &all)?;
        if self.confidences.is_empty() {
            return Ok(());
        }
        writeln!(
            f,
            "\n{:<24} {:>6} {:>12} {:>9}",
            "board confidence", "boards", "exact", "mean conf"
        )?;
        for (lo, hi) in CONFIDENCE_BINS {
            let inside: Vec<_> = self
                .confidences
                .iter()
                .filter(|(c, _)| (lo..hi).contains(c))
                .collect();
            let exact = inside.iter().filter(|(_, e)| *e).count();
            let mean = inside.iter().map(|(c, _)| c).sum::<f32>() / inside.len().max(1) as f32;
            let range = format!("{lo:.1}-{:.1}", hi.min(1.0));
            writeln!(
                f,
                "{range:<24} {:>6} {:>12} {:>9.3}",
                inside.len(),
                format!("{exact}/{}", inside.len()),
                mean
            )?;
        }
        Ok(())
    }
}

fn write_row(f: &mut fmt::Formatter<'_>, kind: &str, s: &KindScore) -> fmt::Result {
    let exact = format!(
        "{}/{} {:>3.0}%",
        s.exact,
        s.images,
        100.0 * s.exact as f64 / s.images.max(1) as f64
    );
    let squares = if s.squares_total == 0 {
        "-".to_string()
    } else {
        format!(
            "{:.1}%",
            100.0 * s.squares_right as f64 / s.squares_total as f64
        )
    };
    writeln!(
        f,
        "{kind:<24} {:>6} {exact:>12} {squares:>9} {:>10.1}",
        s.images,
        median(&s.millis)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_matching_squares() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(squares_matching(start, start), 64);
        assert_eq!(
            squares_matching(start, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"),
            62
        );
        assert_eq!(squares_matching(start, "8/8"), 0);
    }

    #[test]
    fn report_compares_confidence_with_exactness() {
        let report = Report {
            confidences: vec![(0.95, true), (0.99, true), (0.7, false), (0.2, true)],
            ..Default::default()
        };
        let text = report.to_string();
        let row = |range: &str| {
            text.lines()
                .find(|l| l.starts_with(range))
                .unwrap_or_else(|| panic!("no {range} row in\n{text}"))
                .split_whitespace()
                .skip(1)
                .collect::<Vec<_>>()
        };
        assert_eq!(row("0.9-1.0"), ["2", "2/2", "0.970"]);
        assert_eq!(row("0.5-0.9"), ["1", "0/1", "0.700"]);
        assert_eq!(row("0.0-0.5"), ["1", "1/1", "0.200"]);
    }

    #[test]
    fn reads_labels_with_and_without_kind() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("labels.csv"),
            "file,fen,view,kind\na.png,8/8/8/8/8/8/8/K6k,black,screenshot\nb.png,,,negative_no_board\n",
        )
        .unwrap();
        let labels = read_labels(dir.path()).unwrap();
        assert_eq!(labels.len(), 2);
        assert_eq!(labels[0].view, Some(View::Black));
        assert_eq!(labels[0].kind, "screenshot");
        assert!(labels[1].board_fen.is_none());
        std::fs::write(
            dir.path().join("x.csv"),
            "file,fen,view\nc.png,8/8/8/8/8/8/8/8,sideways\n",
        )
        .unwrap();
        assert!(read_labels(&dir.path().join("x.csv")).is_err());
    }
}
