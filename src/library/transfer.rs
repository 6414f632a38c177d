//! The library in and out of files: export as PGN, EPD or CSV; import of a
//! batch's CSV or NDJSON; corrected boards as labelled training examples;
//! and the report of what people corrected.

use std::{
    collections::{BTreeMap, HashMap},
    io::Write,
    path::Path,
};

use super::{source_hash, Library, LibraryError, NewBoard, NewScan, Scan, ScanQuery, StoredBoard};
use crate::{
    formats::{csv_field, csv_split_first, epd_string, pgn_game},
    notation::fen::parse_placement,
    source::file::read_regular_file,
};

/// The header of a batch's CSV output.
const BATCH_CSV_HEADER: &str = "file,page,board,fen,confidence,legal,error";
/// The header of the library's CSV export.
const EXPORT_CSV_HEADER: &str =
    "scan,board,source,page,fen,readFen,corrected,confidence,material,scannedAt";

/// A file format for export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ExportFormat {
    /// One game per board with its FEN.
    Pgn,
    /// One line per board, `id "scan 12 board 0"`.
    Epd,
    /// `scan,board,source,page,fen,readFen,corrected,confidence,material,scannedAt`.
    Csv,
}

impl ExportFormat {
    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Pgn => "application/vnd.chess-pgn; charset=utf-8",
            ExportFormat::Epd => "text/plain; charset=utf-8",
            ExportFormat::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// Writes every board of the scans matching `query` (newest scan first).
pub fn export(
    library: &Library,
    query: &ScanQuery,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<u64, LibraryError> {
    let io = |e: std::io::Error| LibraryError::Io {
        location: "the export".into(),
        message: e.to_string(),
    };
    if format == ExportFormat::Csv {
        writeln!(out, "{EXPORT_CSV_HEADER}").map_err(io)?;
    }
    let mut boards = 0;
    library.each(query, |scan| {
        let name = scan
            .source_name
            .clone()
            .unwrap_or_else(|| format!("scan {}", scan.id));
        let page = scan.page.map(|p| p as usize);
        for board in &scan.boards {
            let text = match format {
                ExportFormat::Pgn => pgn_game(&name, page, board.index + 1, &board.fen, true),
                ExportFormat::Epd => {
                    let fen4: Vec<&str> = board.fen.split(' ').take(4).collect();
                    format!(
                        "{} id {}; c0 {};\n",
                        fen4.join(" "),
                        epd_string(&format!("scan {} board {}", scan.id, board.index)),
                        epd_string(&name)
                    )
                }
                ExportFormat::Csv => format!(
                    "{},{},{},{},{},{},{},{:.4},{},{}\n",
                    scan.id,
                    board.index,
                    csv_field(scan.source_name.as_deref().unwrap_or_default()),
                    scan.page.map(|p| p.to_string()).unwrap_or_default(),
                    board.fen,
                    board.read_fen,
                    board.corrected,
                    board.confidence,
                    board.material,
                    scan.scanned_at
                ),
            };
            out.write_all(text.as_bytes()).map_err(io)?;
            boards += 1;
        }
        Ok(())
    })?;
    Ok(boards)
}

/// What an import did. An import never removes a scan.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// New scans.
    pub created: u64,
    /// Scans that were in the library already (refreshed).
    pub refreshed: u64,
    /// Records without a board (error rows, pages without a diagram).
    pub skipped: u64,
}

/// Imports a batch output, CSV (`file,page,board,fen,confidence,legal,error`)
/// or NDJSON (`{"file","page","boards"}` per line), chosen by the file's
/// first character, or the library's own CSV export (by its header; a
/// corrected board comes in with its corrected position, the read one kept
/// in its reading). Each image or PDF page becomes one scan, keyed by the
/// sha256 of the file when it is there (as named, or relative to the
/// batch file's folder), so that scanning it later finds the same entry,
/// and by its name otherwise. The batch file and the files it names must be
/// regular files (not a pipe or a device) within
/// [`MAX_INPUT_BYTES`](crate::source::file::MAX_INPUT_BYTES); anything else
/// refuses the import before anything is written. Imported boards have no picture. Every scan
/// is added in one transaction, and none is removed, whatever the
/// library's retention.
pub fn import(library: &Library, path: &Path) -> Result<Imported, LibraryError> {
    let io = |e: std::io::Error| LibraryError::Io {
        location: path.display().to_string(),
        message: e.to_string(),
    };
    let text = String::from_utf8(read_regular_file(path).map_err(io)?)
        .map_err(|_| LibraryError::BadInput(format!("{}: not UTF-8 text", path.display())))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut result = Imported::default();
    let records = if text.trim_start().starts_with('{') {
        ndjson_records(&text, path, &mut result)?
    } else {
        csv_records(&text, path, &mut result)?
    };
    let scans = records
        .into_iter()
        .map(|((file, page), boards)| {
            Ok(NewScan {
                source_hash: picture_hash(&file, base, path)?,
                page,
                source_name: Some(file),
                boards,
            })
        })
        .collect::<Result<Vec<NewScan>, LibraryError>>()?;
    for saved in library.add_all(&scans)? {
        if saved.created {
            result.created += 1;
        } else {
            result.refreshed += 1;
        }
    }
    Ok(result)
}

/// The library's key of a picture a batch file names: the sha256 of the
/// file (as named, else beside the batch file), or of its name when it is
/// in neither place. A file that is there but not a regular file within the
/// size limit is an error.
fn picture_hash(file: &str, base: &Path, batch: &Path) -> Result<String, LibraryError> {
    for candidate in [Path::new(file).to_path_buf(), base.join(file)] {
        match read_regular_file(&candidate) {
            Ok(bytes) => return Ok(source_hash(&bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(LibraryError::BadInput(format!(
                    "{}: names {}: {e}",
                    batch.display(),
                    candidate.display()
                )))
            }
        }
    }
    Ok(source_hash(format!("name:{file}").as_bytes()))
}

type Records = BTreeMap<(String, Option<usize>), Vec<NewBoard>>;

fn bad(path: &Path, line: usize, message: impl std::fmt::Display) -> LibraryError {
    LibraryError::BadInput(format!("{}:{line}: {message}", path.display()))
}

/// Where a CSV's columns are: a batch's or the library's export.
struct CsvColumns {
    count: usize,
    file: usize,
    page: usize,
    fen: usize,
    confidence: usize,
    /// The export's: whose number names a scan without a source name.
    scan: Option<usize>,
}

impl CsvColumns {
    fn of(header: &str) -> Option<Self> {
        match header {
            BATCH_CSV_HEADER => Some(Self {
                count: 7,
                file: 0,
                page: 1,
                fen: 3,
                confidence: 4,
                scan: None,
            }),
            EXPORT_CSV_HEADER => Some(Self {
                count: 10,
                file: 2,
                page: 3,
                fen: 4,
                confidence: 7,
                scan: Some(0),
            }),
            _ => None,
        }
    }

    /// What the library keeps of a row as the board's reading.
    fn reading(&self, fields: &[String], confidence: f32) -> serde_json::Value {
        let fen = fields[self.fen].trim();
        if self.scan.is_some() {
            serde_json::json!({
                "fen": fen,
                "readFen": fields[5].trim(),
                "corrected": fields[6].trim() == "true",
                "confidence": confidence,
            })
        } else {
            serde_json::json!({ "fen": fen, "confidence": confidence, "legal": fields[5].trim() == "true" })
        }
    }
}

fn csv_records(text: &str, path: &Path, result: &mut Imported) -> Result<Records, LibraryError> {
    let header = text.lines().next().unwrap_or_default().trim();
    let Some(columns) = CsvColumns::of(header) else {
        return Err(bad(
            path,
            1,
            format!("not a batch CSV ({BATCH_CSV_HEADER}), the library's CSV export ({EXPORT_CSV_HEADER}) nor NDJSON"),
        ));
    };
    let mut rest: &str = &text[text.find('\n').map_or(text.len(), |i| i + 1)..];
    let mut records = Records::new();
    let mut line = 1;
    while !rest.trim().is_empty() {
        line += 1;
        let mut fields = Vec::with_capacity(columns.count);
        for _ in 0..columns.count {
            let (field, after) = csv_split_first(rest)
                .ok_or_else(|| bad(path, line, "an unterminated quoted field"))?;
            fields.push(field);
            rest = after;
        }
        rest = rest
            .strip_prefix("\r\n")
            .or_else(|| rest.strip_prefix('\n'))
            .unwrap_or(rest);
        let fen = fields[columns.fen].trim();
        if fen.is_empty() {
            result.skipped += 1;
            continue;
        }
        let page = match fields[columns.page].trim() {
            "" => None,
            p => Some(
                p.parse::<usize>()
                    .map_err(|_| bad(path, line, format!("page {p:?} is not a number")))?,
            ),
        };
        let confidence = match fields[columns.confidence].trim() {
            "" => 0.0,
            text => text
                .parse::<f32>()
                .ok()
                .filter(|c| (0.0..=1.0).contains(c))
                .ok_or_else(|| {
                    bad(
                        path,
                        line,
                        format!("confidence {text:?} is not a number from 0 to 1"),
                    )
                })?,
        };
        let file = match (fields[columns.file].as_str(), columns.scan) {
            ("", Some(scan)) => format!("scan {}", fields[scan].trim()),
            (file, _) => file.to_string(),
        };
        records.entry((file, page)).or_default().push(NewBoard {
            fen: fen.to_string(),
            confidence,
            reading: columns.reading(&fields, confidence),
            thumbnail: None,
        });
    }
    Ok(records)
}

fn ndjson_records(text: &str, path: &Path, result: &mut Imported) -> Result<Records, LibraryError> {
    let mut records = Records::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(path, i + 1, format!("not JSON: {e}")))?;
        let file = value["file"]
            .as_str()
            .ok_or_else(|| bad(path, i + 1, "no \"file\""))?
            .to_string();
        let page = value["page"].as_u64().map(|p| p as usize);
        let boards: Vec<NewBoard> = value["boards"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|board| {
                let fen = board["fen"].as_str()?.to_string();
                let confidence = match &board["confidence"] {
                    serde_json::Value::Null => Some(0.0),
                    value => value.as_f64().filter(|c| (0.0..=1.0).contains(c)),
                };
                Some(
                    confidence
                        .map(|confidence| NewBoard {
                            fen,
                            confidence: confidence as f32,
                            reading: board.clone(),
                            thumbnail: None,
                        })
                        .ok_or_else(|| {
                            bad(
                                path,
                                i + 1,
                                format!(
                                    "confidence {} is not a number from 0 to 1",
                                    board["confidence"]
                                ),
                            )
                        }),
                )
            })
            .collect::<Result<_, _>>()?;
        if boards.is_empty() {
            result.skipped += 1;
            continue;
        }
        records.entry((file, page)).or_default().extend(boards);
    }
    Ok(records)
}

/// What [`export_corrections`] wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ExportedCorrections {
    pub written: u64,
    /// Corrected boards without a picture (imported ones).
    pub without_picture: u64,
}

/// Writes every corrected board that has a picture as a labelled example:
/// `DIR/images/scan-ID-BOARD.png`, a row of `DIR/labels.csv`
/// (`file,fen,view,kind`, the format `boardscan eval` and `training/` read,
/// `fen` being the corrected placement and `kind` `correction`), and a line of
/// `DIR/corrections.ndjson` with the whole corrected and read FENs.
pub fn export_corrections(
    library: &Library,
    dir: &Path,
) -> Result<ExportedCorrections, LibraryError> {
    let io = |e: std::io::Error| LibraryError::Io {
        location: dir.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir.join("images")).map_err(io)?;
    let mut labels = String::from("file,fen,view,kind\n");
    let mut details = String::new();
    let mut exported = ExportedCorrections::default();
    let query = ScanQuery {
        corrected: Some(true),
        ..ScanQuery::default()
    };
    library.each(&query, |scan| {
        for board in scan.boards.iter().filter(|b| b.corrected) {
            if !board.has_thumbnail {
                exported.without_picture += 1;
                continue;
            }
            let png = library.thumbnail(scan.id, board.index)?;
            let file = format!("images/scan-{}-{}.png", scan.id, board.index);
            std::fs::write(dir.join(&file), png).map_err(io)?;
            let view = board.reading["orientation"].as_str().unwrap_or("white");
            labels.push_str(&format!("{file},{},{view},correction\n", board.placement));
            details.push_str(&format!(
                "{}\n",
                serde_json::json!({
                    "file": file, "fen": board.fen, "readFen": board.read_fen, "view": view,
                    "scan": scan.id, "board": board.index, "source": scan.source_name,
                })
            ));
            exported.written += 1;
        }
        Ok(())
    })?;
    std::fs::write(dir.join("labels.csv"), labels).map_err(io)?;
    std::fs::write(dir.join("corrections.ndjson"), details).map_err(io)?;
    Ok(exported)
}

/// A square read wrong: what was read and what people said it is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Confusion {
    /// The piece read (`P`, `n`, …), or `-` for an empty square.
    pub read: char,
    pub truth: char,
}

/// What the corrections say about the model.
#[derive(Debug, Default)]
pub struct CorrectionReport {
    pub corrected_boards: u64,
    /// Corrected boards whose reading was confident (every square at least
    /// [`CONFIDENT`]) yet wrong: likely model errors, not doubtful pictures.
    pub confident_errors: u64,
    /// Squares corrected, by what was read and what is true, most first.
    pub confusions: Vec<(Confusion, u64)>,
    /// Squares corrected where the reading was confident, by true piece type.
    pub confident_by_piece: Vec<(char, u64)>,
    /// Corrected boards by source (a picture's piece set shows in its name when it has one).
    pub by_source: Vec<(String, u64)>,
    /// Corrections of the side to move or castling alone.
    pub side_or_castling: u64,
}

/// A square read at least this confidently and corrected is a likely model error.
pub const CONFIDENT: f64 = 0.9;

/// Compares each corrected board's reading with its correction square by square.
pub fn correction_report(library: &Library) -> Result<CorrectionReport, LibraryError> {
    let mut report = CorrectionReport::default();
    let mut confusions: HashMap<Confusion, u64> = HashMap::new();
    let mut by_piece: HashMap<char, u64> = HashMap::new();
    let mut by_source: HashMap<String, u64> = HashMap::new();
    let query = ScanQuery {
        corrected: Some(true),
        ..ScanQuery::default()
    };
    library.each(&query, |scan: &Scan| {
        for board in scan.boards.iter().filter(|b| b.corrected) {
            report.corrected_boards += 1;
            *by_source
                .entry(
                    scan.source_name
                        .clone()
                        .unwrap_or_else(|| "(unnamed)".into()),
                )
                .or_default() += 1;
            let diffs = square_differences(board);
            if diffs.is_empty() {
                report.side_or_castling += 1;
                continue;
            }
            let mut confident = false;
            for (square, confusion) in diffs {
                if square_confidence(board, square) >= CONFIDENT {
                    confident = true;
                    *by_piece
                        .entry(confusion.truth.to_ascii_uppercase())
                        .or_default() += 1;
                }
                *confusions.entry(confusion).or_default() += 1;
            }
            if confident || board.confidence >= CONFIDENT {
                report.confident_errors += 1;
            }
        }
        Ok(())
    })?;
    report.confusions = sorted(confusions);
    report.confident_by_piece = sorted(by_piece);
    report.by_source = sorted(by_source);
    Ok(report)
}

fn sorted<K: Ord>(counts: HashMap<K, u64>) -> Vec<(K, u64)> {
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// The squares (FEN order, a8 first) where the reading and the current FEN differ.
fn square_differences(board: &StoredBoard) -> Vec<(usize, Confusion)> {
    let place = |fen: &str| parse_placement(fen.split(' ').next().unwrap_or_default()).ok();
    let (Some(read), Some(truth)) = (place(&board.read_fen), place(&board.fen)) else {
        return Vec::new();
    };
    read.iter()
        .zip(&truth)
        .enumerate()
        .filter(|(_, (r, t))| r != t)
        .map(|(i, (r, t))| {
            (
                i,
                Confusion {
                    read: r.unwrap_or('-'),
                    truth: t.unwrap_or('-'),
                },
            )
        })
        .collect()
}

/// The reading's confidence in one square (FEN order), from its `squares`;
/// the board's confidence when the reading has no squares (an import).
fn square_confidence(board: &StoredBoard, fen_index: usize) -> f64 {
    let name = format!(
        "{}{}",
        (b'a' + (fen_index % 8) as u8) as char,
        8 - fen_index / 8
    );
    board.reading["squares"]
        .as_array()
        .and_then(|squares| squares.iter().find(|s| s["square"] == name.as_str()))
        .and_then(|s| s["confidence"].as_f64())
        .unwrap_or(board.confidence)
}

impl std::fmt::Display for CorrectionReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "corrected boards: {}", self.corrected_boards)?;
        writeln!(
            f,
            "likely model errors (a confident reading corrected): {}",
            self.confident_errors
        )?;
        writeln!(
            f,
            "side to move or castling only: {}",
            self.side_or_castling
        )?;
        writeln!(f, "squares corrected (read -> true):")?;
        for (c, n) in &self.confusions {
            writeln!(f, "  {} -> {}\t{n}", c.read, c.truth)?;
        }
        writeln!(f, "confidently misread, by true piece:")?;
        for (piece, n) in &self.confident_by_piece {
            writeln!(f, "  {piece}\t{n}")?;
        }
        writeln!(f, "corrected boards by source:")?;
        for (source, n) in &self.by_source {
            writeln!(f, "  {source}\t{n}")?;
        }
        Ok(())
    }
}
