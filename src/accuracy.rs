//! Scoring recognition against a labelled set.
//!
//! The labels are a CSV file with the header `file,fen,view[,kind][,page,index]`
//! (columns in any order; `board_fen` may stand for `fen`): `file` relative to
//! the CSV's folder, `fen` the board part of the true FEN (empty for an image
//! without a board), `view` the side at the bottom (`white`, `black` or empty
//! when unknown), `kind` a free label to group the scores by.
//! A board counts as exact only when all 64 squares match; an image labelled
//! with no board counts as right only when no board is reported.
//!
//! A row with `page` and `index` (both from 1) names one diagram of a PDF:
//! the `index`-th board in reading order (rows from the top, left to right)
//! on that page, as [`crate::scan::scan_input`] reports them. The rows of a
//! PDF list every diagram in it: each labelled PDF is scanned once, and on
//! each page its boards are paired with the rows, those agreeing on the most
//! squares first, ties to the nearest index: a missed board does not shift
//! the later ones. A row left without a board is *missed* (so is every row
//! of a page or PDF that could not be read), a board left without a row is
//! *extra*, and a page whose boards are paired out of reading order is
//! listed among the failures. Every row of a file has a place, or none does.
//! For PDFs the report's time is per page.
//!
//! A PDF diagram's `fen` may be a full FEN (at least the board and the side
//! to move, `… b`, the rest ignored): the report then also says for how many
//! of the diagrams found the side to move read agrees (where the page's
//! caption gave it, else the highlight or White).

use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
    time::Instant,
};

use cozy_chess::Color;

use crate::{
    recognize::{RecognizeError, RecognizeOptions, Recognizer, SideSource, View},
    scan::{scan_input, ScanOptions},
};

/// One labelled image, or one labelled diagram of a PDF.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: PathBuf,
    pub board_fen: Option<String>,
    /// The side to move, when `fen` is a full FEN.
    pub side_to_move: Option<Color>,
    pub view: Option<View>,
    pub kind: String,
    /// Where the diagram is in a PDF; `None` for an image.
    pub place: Option<Place>,
}

/// A diagram's place in a PDF: its page and its index in reading order on
/// that page, both from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub page: usize,
    pub index: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "page={} index={}", self.page, self.index)
    }
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
    let (Some(file_col), Some(fen_col)) = (
        column("file"),
        column("fen").or_else(|| column("board_fen")),
    ) else {
        return Err(format_error(
            1,
            "the header needs `file` and `fen` columns".into(),
        ));
    };
    let (view_col, kind_col) = (column("view"), column("kind"));
    let (page_col, index_col) = (column("page"), column("index"));
    // Per file: whether its rows have places, the first row's line, and the
    // places seen, to refuse a file whose rows mix or repeat them.
    let mut files: BTreeMap<PathBuf, (bool, usize)> = BTreeMap::new();
    let mut places_seen: BTreeMap<(PathBuf, Place), usize> = BTreeMap::new();
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
        let line = index + 1;
        let mut fen_fields = field(Some(fen_col)).split_whitespace();
        let fen = fen_fields.next().unwrap_or("");
        let side_to_move = match fen_fields.next() {
            None => None,
            Some("w") => Some(Color::White),
            Some("b") => Some(Color::Black),
            Some(other) => {
                return Err(format_error(
                    line,
                    format!("the side to move in `fen` must be w or b, not `{other}`"),
                ))
            }
        };
        let number = |name: &str, text: &str| match text.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format_error(
                line,
                format!("`{name}` must be a number from 1, not `{text}`"),
            )),
        };
        let place = match (field(page_col), field(index_col)) {
            ("", "") => None,
            ("", _) | (_, "") => {
                return Err(format_error(
                    line,
                    "`page` and `index` go together: give both or neither".into(),
                ))
            }
            (page, index) => Some(Place {
                page: number("page", page)?,
                index: number("index", index)?,
            }),
        };
        if place.is_some() && fen.is_empty() {
            return Err(format_error(
                line,
                "a row with `page` and `index` names a diagram: it needs its `fen`".into(),
            ));
        }
        let path = base.join(file);
        let (has_places, first_line) =
            *files.entry(path.clone()).or_insert((place.is_some(), line));
        if has_places != place.is_some() {
            return Err(format_error(
                line,
                format!(
                    "{file}: every row of a file has `page` and `index` or none does (see line {first_line})"
                ),
            ));
        }
        if let Some(place) = place {
            if let Some(earlier) = places_seen.insert((path.clone(), place), line) {
                return Err(format_error(
                    line,
                    format!("{file} {place} is labelled twice (see line {earlier})"),
                ));
            }
        }
        labels.push(Label {
            file: path,
            board_fen: (!fen.is_empty()).then(|| fen.to_string()),
            side_to_move,
            view,
            kind: match field(kind_col) {
                "" => "unlabelled".to_string(),
                k => k.to_string(),
            },
            place,
        });
    }
    Ok(labels)
}

/// Scores for one kind of image.
#[derive(Clone, Debug, Default)]
pub struct KindScore {
    /// Labelled images and PDF diagrams.
    pub images: usize,
    pub exact: usize,
    pub squares_right: usize,
    pub squares_total: usize,
    /// Labelled boards with no board found: for a PDF diagram, none at its
    /// page and index; for an image, none at all.
    pub missed: usize,
    /// Boards found that no label names: in a PDF, at a place no row names;
    /// in an image labelled with no board, every board found.
    pub extra: usize,
    /// Milliseconds per image, or per PDF page.
    pub millis: Vec<f64>,
    /// PDF diagrams found whose label gives the side to move.
    pub sides_labelled: usize,
    /// Of those, the ones read with that side to move.
    pub sides_right: usize,
}

/// The result of an evaluation, printable as a table.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub kinds: BTreeMap<String, KindScore>,
    /// Whether any label named a PDF diagram: the table then shows missed
    /// and extra boards.
    pub has_places: bool,
    /// `file: expected → got` for every image that was not exactly right.
    pub failures: Vec<String>,
    /// For every labelled board that was found: the confidence reported for
    /// it and whether it was exact, to check that the two agree.
    pub confidences: Vec<(f32, bool)>,
}

/// Board confidence ranges the report compares with how often boards in
/// them were exact.
const CONFIDENCE_BINS: [(f32, f32); 3] = [(0.9, 1.01), (0.5, 0.9), (0.0, 0.5)];

/// Runs the recognizer over every labelled image, and scans every labelled
/// PDF once (in the order their first rows come). With `use_labelled_view`,
/// the labelled orientation is given to the recognizer, which isolates
/// square errors from orientation errors (for a PDF, when all its rows agree).
/// `given` is what every recognition is told besides (a user's set).
pub fn measure(
    recognizer: &Recognizer,
    labels: &[Label],
    use_labelled_view: bool,
    given: &RecognizeOptions,
) -> Report {
    let mut report = Report::default();
    let mut pdfs_done: Vec<&Path> = Vec::new();
    for label in labels {
        if label.place.is_none() {
            measure_image(recognizer, label, use_labelled_view, given, &mut report);
        } else if !pdfs_done.contains(&label.file.as_path()) {
            pdfs_done.push(&label.file);
            let rows: Vec<&Label> = labels.iter().filter(|l| l.file == label.file).collect();
            measure_pdf(recognizer, &rows, use_labelled_view, given, &mut report);
        }
    }
    report
}

/// Scores one labelled image.
fn measure_image(
    recognizer: &Recognizer,
    label: &Label,
    use_labelled_view: bool,
    given: &RecognizeOptions,
    report: &mut Report,
) {
    let options = RecognizeOptions {
        view: if use_labelled_view { label.view } else { None },
        ..given.clone()
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
        (None, Ok(found)) => {
            score.extra += found.len();
            report.failures.push(format!(
                "{name}: expected no board, got {}",
                found
                    .iter()
                    .map(|(fen, _)| fen.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ))
        }
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
            if best.is_none() {
                score.missed += 1;
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
                score.missed += 1;
            }
            report.failures.push(format!("{name}: {err}"));
        }
    }
}

/// Scores the labelled diagrams of one PDF (`rows`, all of one file, each
/// with a place) from one scan of the whole file.
fn measure_pdf(
    recognizer: &Recognizer,
    rows: &[&Label],
    use_labelled_view: bool,
    given: &RecognizeOptions,
    report: &mut Report,
) {
    let Some(first) = rows.first() else {
        return;
    };
    report.has_places = true;
    let name = first.file.display();
    let view = match first.view {
        Some(v) if use_labelled_view && rows.iter().all(|r| r.view == Some(v)) => Some(v),
        _ => None,
    };
    let options = ScanOptions {
        recognize: RecognizeOptions {
            view,
            ..given.clone()
        },
        ..Default::default()
    };
    let mut page_millis = Vec::new();
    let mut last = Instant::now();
    let pictures = std::fs::read(&first.file)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            scan_input(recognizer, bytes, &options, |_, _| {
                page_millis.push(last.elapsed().as_secs_f64() * 1000.0);
                last = Instant::now();
            })
            .map_err(|e| e.to_string())
        });
    // The kind a page's time and extra boards count for: that of its rows,
    // or of the file's first row for a page without any.
    let kind_of_page = |page: Option<usize>| {
        rows.iter()
            .find(|r| r.place.map(|p| p.page) == page)
            .unwrap_or(first)
            .kind
            .clone()
    };
    let mut found: BTreeMap<Place, (String, f32, Color, SideSource)> = BTreeMap::new();
    let mut page_errors: BTreeMap<usize, String> = BTreeMap::new();
    let file_error = match pictures {
        Err(err) => Some(err),
        Ok(pictures) => {
            for (picture, millis) in pictures.iter().zip(&page_millis) {
                report
                    .kinds
                    .entry(kind_of_page(picture.page))
                    .or_default()
                    .millis
                    .push(*millis);
            }
            let mut not_a_pdf = None;
            for picture in pictures {
                let Some(page) = picture.page else {
                    not_a_pdf = Some("rows with `page` and `index` need a PDF".to_string());
                    continue;
                };
                match picture.boards {
                    Ok(boards) => {
                        for board in boards {
                            let index = board.index.unwrap_or(0);
                            let place = Place { page, index };
                            let reading = board.reading;
                            found.insert(
                                place,
                                (
                                    reading.board_fen,
                                    reading.confidence,
                                    reading.side_to_move,
                                    reading.side_to_move_source,
                                ),
                            );
                        }
                    }
                    Err(err) => {
                        page_errors.insert(page, err.to_string());
                    }
                }
            }
            not_a_pdf
        }
    };
    if let Some(err) = &file_error {
        report.failures.push(format!("{name}: {err}"));
    }
    for (page, err) in &page_errors {
        report.failures.push(format!("{name}#page={page}: {err}"));
    }
    let mut rows: Vec<&Label> = rows.to_vec();
    rows.sort_by_key(|r| r.place);
    let pairs = pair_by_content(&rows, &found);
    for page in out_of_order(&pairs) {
        report.failures.push(format!(
            "{name}#page={page}: boards found out of reading order"
        ));
    }
    for row in rows {
        let (Some(place), Some(expected)) = (row.place, &row.board_fen) else {
            continue;
        };
        let score = report.kinds.entry(row.kind.clone()).or_default();
        score.images += 1;
        score.squares_total += 64;
        let at = pairs.get(&place).copied();
        let Some((got, confidence, side, source)) = at.and_then(|at| found.remove(&at)) else {
            score.missed += 1;
            if file_error.is_none() && !page_errors.contains_key(&place.page) {
                report
                    .failures
                    .push(format!("{name} {place}: expected {expected}, got no board"));
            }
            continue;
        };
        let right = squares_matching(expected, &got);
        score.squares_right += right;
        report.confidences.push((confidence, right == 64));
        if right == 64 {
            score.exact += 1;
        } else {
            let elsewhere = at
                .filter(|at| at.index != place.index)
                .map_or(String::new(), |at| format!(", found as index {}", at.index));
            report.failures.push(format!(
                "{name} {place}: expected {expected}, got {got} ({right}/64{elsewhere})"
            ));
        }
        if let Some(expected_side) = row.side_to_move {
            score.sides_labelled += 1;
            if side == expected_side {
                score.sides_right += 1;
            } else {
                let source = format!("{source:?}").to_lowercase();
                report.failures.push(format!(
                    "{name} {place}: expected {expected_side} to move, got {side} ({source})"
                ));
            }
        }
    }
    for (place, (got, ..)) in found {
        report
            .kinds
            .entry(kind_of_page(Some(place.page)))
            .or_default()
            .extra += 1;
        report
            .failures
            .push(format!("{name} {place}: extra board {got}"));
    }
}

/// Which board each labelled diagram is scored against: on each page, the
/// pairs that agree on the most squares first (ties to the same index), so
/// that a board missed or found out of reading order (a page photographed at
/// a slant) does not make every later diagram of its page count as misread.
fn pair_by_content(
    rows: &[&Label],
    found: &BTreeMap<Place, (String, f32, Color, SideSource)>,
) -> BTreeMap<Place, Place> {
    let mut candidates: Vec<(usize, usize, Place, Place)> = Vec::new();
    for row in rows {
        let (Some(place), Some(expected)) = (row.place, &row.board_fen) else {
            continue;
        };
        let on_page = found.range(
            Place {
                page: place.page,
                index: 0,
            }..=Place {
                page: place.page,
                index: usize::MAX,
            },
        );
        for (&at, (got, ..)) in on_page {
            let right = squares_matching(expected, got);
            candidates.push((right, place.index.abs_diff(at.index), place, at));
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut pairs = BTreeMap::new();
    let mut taken = std::collections::BTreeSet::new();
    for (_, _, row, board) in candidates {
        if !pairs.contains_key(&row) && taken.insert(board) {
            pairs.insert(row, board);
        }
    }
    pairs
}

/// The pages on which a diagram is paired with a board of another index
/// although the page's boards keep their rows' order: every board of such a
/// page was found, just numbered in another order.
fn out_of_order(pairs: &BTreeMap<Place, Place>) -> Vec<usize> {
    let mut pages: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    for (row, board) in pairs {
        pages
            .entry(row.page)
            .or_default()
            .push((row.index, board.index));
    }
    pages
        .into_iter()
        .filter(|(_, indices)| indices.iter().any(|(row, board)| row != board))
        .filter(|(_, indices)| {
            let mut boards: Vec<usize> = indices.iter().map(|&(_, board)| board).collect();
            boards.sort_unstable();
            boards.iter().enumerate().all(|(i, &b)| b == i + 1)
                && indices
                    .iter()
                    .enumerate()
                    .all(|(i, &(row, _))| row == i + 1)
        })
        .map(|(page, _)| page)
        .collect()
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
        if self.has_places {
            // PDF diagrams: missed and extra boards too; times are per page.
            writeln!(
                f,
                "{:<24} {:>6} {:>12} {:>9} {:>6} {:>6} {:>10}",
                "kind", "boards", "exact", "squares", "missed", "extra", "median ms"
            )?;
        } else {
            writeln!(
                f,
                "{:<24} {:>6} {:>12} {:>9} {:>10}",
                "kind", "images", "exact", "squares", "median ms"
            )?;
        }
        let mut all = KindScore::default();
        for (kind, s) in &self.kinds {
            write_row(f, kind, s, self.has_places)?;
            all.images += s.images;
            all.exact += s.exact;
            all.squares_right += s.squares_right;
            all.squares_total += s.squares_total;
            all.missed += s.missed;
            all.extra += s.extra;
            all.millis.extend(&s.millis);
            all.sides_labelled += s.sides_labelled;
            all.sides_right += s.sides_right;
        }
        write_row(f, "all", &all, self.has_places)?;
        if all.sides_labelled > 0 {
            writeln!(
                f,
                "\n{:<24} {:>6} {:>12}",
                "side to move", "boards", "right"
            )?;
            let labelled = self.kinds.iter().filter(|(_, s)| s.sides_labelled > 0);
            for (kind, s) in labelled.chain([(&"all".to_string(), &all)]) {
                let right = format!(
                    "{}/{} {:>3.0}%",
                    s.sides_right,
                    s.sides_labelled,
                    100.0 * s.sides_right as f64 / s.sides_labelled as f64
                );
                writeln!(f, "{kind:<24} {:>6} {right:>12}", s.sides_labelled)?;
            }
        }
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
            // An empty sum of floats is -0.0; an empty bin shows 0.000.
            let mean = inside.iter().map(|(c, _)| c).fold(0.0, |sum, c| sum + c)
                / inside.len().max(1) as f32;
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

fn write_row(
    f: &mut fmt::Formatter<'_>,
    kind: &str,
    s: &KindScore,
    missed_and_extra: bool,
) -> fmt::Result {
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
    if missed_and_extra {
        writeln!(
            f,
            "{kind:<24} {:>6} {exact:>12} {squares:>9} {:>6} {:>6} {:>10.1}",
            s.images,
            s.missed,
            s.extra,
            median(&s.millis)
        )
    } else {
        writeln!(
            f,
            "{kind:<24} {:>6} {exact:>12} {squares:>9} {:>10.1}",
            s.images,
            median(&s.millis)
        )
    }
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
    fn diagrams_pair_with_the_boards_that_read_them_on_their_page() {
        let (a, b, c) = (
            "8/8/8/8/8/8/8/K6k",
            "8/8/8/8/8/8/8/KQ5k",
            "8/8/8/8/8/8/8/KR5k",
        );
        let label = |page, index, fen: &str| Label {
            file: PathBuf::from("book.pdf"),
            board_fen: Some(fen.to_string()),
            side_to_move: None,
            view: None,
            kind: "scanned".into(),
            place: Some(Place { page, index }),
        };
        let rows = [
            label(1, 1, a),
            label(1, 2, b),
            label(1, 3, c),
            label(2, 1, a),
        ];
        let rows: Vec<&Label> = rows.iter().collect();
        let board = |fen: &str| (fen.to_string(), 0.9, Color::White, SideSource::Default);
        // Page 1's second diagram was missed, so its third is board 2; board 1
        // reads the first diagram with one square wrong. Page 2's board reads
        // another page's diagram, and still pairs with its only row.
        let found = BTreeMap::from([
            (Place { page: 1, index: 1 }, board("8/8/8/8/8/8/8/KN5k")),
            (Place { page: 1, index: 2 }, board(c)),
            (Place { page: 2, index: 1 }, board(b)),
        ]);
        let pairs = pair_by_content(&rows, &found);
        let paired = |page, index| pairs.get(&Place { page, index }).map(|p| p.index);
        assert_eq!(paired(1, 3), Some(2));
        assert_eq!(paired(1, 1), Some(1));
        assert_eq!(paired(1, 2), None);
        assert_eq!(paired(2, 1), Some(1));
        // With a missed diagram the boards' numbers shift: not out of order.
        assert!(out_of_order(&pairs).is_empty());
        // Every board found, numbered the other way round: out of order.
        let swapped = BTreeMap::from([
            (Place { page: 1, index: 1 }, Place { page: 1, index: 2 }),
            (Place { page: 1, index: 2 }, Place { page: 1, index: 1 }),
        ]);
        assert_eq!(out_of_order(&swapped), [1]);
    }

    #[test]
    fn reads_pdf_rows_with_page_and_index() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(dir.path().join("labels.csv"), text).unwrap();
        write(
            "file,fen,view,kind,page,index\n\
             a.png,8/8/8/8/8/8/8/K6k,white,photo,,\n\
             book.pdf,8/8/8/8/8/8/8/K6k,white,typeset,2,1\n\
             book.pdf,8/8/8/8/8/8/8/k6K,,typeset,2,2\n\
             book.pdf,8/8/8/8/8/8/8/1K5k,,typeset,10,1\n",
        );
        let labels = read_labels(dir.path()).unwrap();
        let places: Vec<_> = labels.iter().map(|l| l.place).collect();
        assert_eq!(
            places,
            [
                None,
                Some(Place { page: 2, index: 1 }),
                Some(Place { page: 2, index: 2 }),
                Some(Place { page: 10, index: 1 }),
            ]
        );
        assert_eq!(labels[2].file, dir.path().join("book.pdf"));
        assert_eq!(labels[2].board_fen.as_deref(), Some("8/8/8/8/8/8/8/k6K"));
        assert_eq!(labels[3].kind, "typeset");

        // A full FEN gives the side to move too.
        write(
            "file,fen,page,index
             book.pdf,8/8/8/8/8/8/8/K6k b - - 0 1,1,1
             book.pdf,8/8/8/8/8/8/8/K6k w,1,2
             book.pdf,8/8/8/8/8/8/8/K6k,1,3
",
        );
        let labels = read_labels(dir.path()).unwrap();
        let sides: Vec<_> = labels.iter().map(|l| l.side_to_move).collect();
        assert_eq!(sides, [Some(Color::Black), Some(Color::White), None]);
        assert_eq!(labels[0].board_fen.as_deref(), Some("8/8/8/8/8/8/8/K6k"));

        // `board_fen` stands for `fen`, columns in any order (testdata/pdf/books.csv).
        write("file,page,index,board_fen\nbook.pdf,3,2,8/8/8/8/8/8/8/K6k\n");
        let labels = read_labels(dir.path()).unwrap();
        assert_eq!(labels[0].place, Some(Place { page: 3, index: 2 }));
        assert_eq!(labels[0].kind, "unlabelled");

        // Refused: half a place, a place from 0 or not a number, a diagram
        // without its FEN, a file whose rows mix places and none, a place twice.
        for (bad, says) in [
            ("book.pdf,8/8/8/8/8/8/8/K6k,,,2,\n", "go together"),
            ("book.pdf,8/8/8/8/8/8/8/K6k,,,0,1\n", "from 1"),
            ("book.pdf,8/8/8/8/8/8/8/K6k,,,2,x\n", "from 1"),
            ("book.pdf,,,,2,1\n", "needs its `fen`"),
            ("book.pdf,8/8/8/8/8/8/8/K6k x,,,2,1\n", "must be w or b"),
            (
                "book.pdf,8/8/8/8/8/8/8/K6k,,,2,1\nbook.pdf,8/8/8/8/8/8/8/K6k,,,,\n",
                "or none does",
            ),
            (
                "book.pdf,8/8/8/8/8/8/8/K6k,,,2,1\nbook.pdf,8/8/8/8/8/8/8/k6K,,,2,1\n",
                "labelled twice",
            ),
        ] {
            write(&format!("file,fen,view,kind,page,index\n{bad}"));
            let err = read_labels(dir.path()).unwrap_err().to_string();
            assert!(err.contains(says), "{bad:?} gave {err:?}");
        }
    }

    #[test]
    fn report_shows_missed_and_extra_only_for_pdf_labels() {
        let score = KindScore {
            images: 4,
            exact: 2,
            squares_right: 190,
            squares_total: 256,
            missed: 1,
            extra: 3,
            millis: vec![10.0, 30.0],
            ..KindScore::default()
        };
        let mut report = Report::default();
        report.kinds.insert("typeset".into(), score);
        let images = report.to_string();
        assert!(images.starts_with("kind "), "{images}");
        assert!(!images.contains("missed"), "{images}");
        // No label gave a side to move: no table of them.
        assert!(!images.contains("side to move"), "{images}");
        report.has_places = true;
        let text = report.to_string();
        let row: Vec<_> = text
            .lines()
            .find(|l| l.starts_with("typeset"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(
            row,
            ["typeset", "4", "2/4", "50%", "74.2%", "1", "3", "20.0"]
        );
        assert!(text.lines().next().unwrap().contains("missed"), "{text}");
    }

    #[test]
    fn report_shows_side_to_move_agreement_where_labels_give_it() {
        let mut report = Report {
            has_places: true,
            ..Report::default()
        };
        for (kind, labelled, right) in [("scanned", 3, 1), ("typeset", 3, 3), ("photo", 0, 0)] {
            let score = KindScore {
                images: 3,
                sides_labelled: labelled,
                sides_right: right,
                ..KindScore::default()
            };
            report.kinds.insert(kind.into(), score);
        }
        let text = report.to_string();
        let table: Vec<Vec<&str>> = text
            .split("\n\n")
            .nth(1)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            table,
            [
                vec!["side", "to", "move", "boards", "right"],
                vec!["scanned", "3", "1/3", "33%"],
                vec!["typeset", "3", "3/3", "100%"],
                vec!["all", "6", "4/6", "67%"],
            ],
            "{text}"
        );
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
