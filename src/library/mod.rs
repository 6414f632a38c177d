//! The scan library: every recognition kept, corrected by people,
//! searchable, and exported as training data.
//!
//! A scan is one picture: an image, or one page of a PDF, keyed by the
//! sha256 of the source's bytes and the page, so the same picture scanned
//! twice is one entry (its reading refreshed, its corrections kept). Each
//! of its boards keeps the reading as the API returned it (with any
//! analysis), a small PNG of the board, and its current FEN: the reading's,
//! or the last correction's, with every correction kept in order.
//!
//! Storage is behind [`backend::Backend`]: SQLite in a file (the default)
//! or PostgreSQL (a `postgres://` URL), with the same schema ([`schema`]).

mod backend;
pub mod command;
mod postgres;
mod schema;
mod sets;
pub mod signature;
mod sqlite;
pub mod transfer;

use std::{
    path::PathBuf,
    sync::Arc,
    time::{SystemTime, UNIX_EPOCH},
};

use serde::Serialize;

use backend::{Backend, Conn, Value};
pub use sets::PieceSet;
use signature::Keys;

pub use schema::CURRENT as SCHEMA_VERSION;

/// The most boards one scan (a picture) may hold: a book page holds a
/// dozen. With [`MAX_PER_PAGE`] it bounds what one page of the list holds.
pub const MAX_BOARDS_PER_SCAN: usize = 64;

/// The largest thumbnail the library stores.
pub const MAX_THUMBNAIL_BYTES: usize = crate::vision::thumbnail::MAX_BYTES;

/// Scans a new library keeps (its `max_scans` setting); past it the oldest
/// uncorrected ones go first, when a recognition is saved.
pub const DEFAULT_MAX_SCANS: u64 = 100_000;

/// What can go wrong with the library. Each names where the library is.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("the scan library {location} is damaged or not a library ({message}); move it aside to start a new one")]
    Corrupt { location: String, message: String },
    #[error("the scan library {location} was written by a newer boardscan (schema {found}; this one reads up to {supported})")]
    NewerSchema {
        location: String,
        found: i64,
        supported: i64,
    },
    #[error(
        "the scan library {location} is full: the disk (or the database's size limit) has no room"
    )]
    Full { location: String },
    #[error("the scan library {location} is busy (another process holds it); try again")]
    Busy { location: String },
    #[error("the scan library {location} cannot be reached: {message}")]
    Unavailable { location: String, message: String },
    #[error("the scan library {location}: {message}")]
    Io { location: String, message: String },
    #[error("the scan library {location} failed: {message}")]
    Storage { location: String, message: String },
    #[error("no scan {0} in the library")]
    NoSuchScan(i64),
    #[error("scan {scan} has no board {board}")]
    NoSuchBoard { scan: i64, board: usize },
    #[error("board {board} of scan {scan} has no thumbnail")]
    NoThumbnail { scan: i64, board: usize },
    #[error("a thumbnail of {bytes} bytes is over the limit of {MAX_THUMBNAIL_BYTES}")]
    ThumbnailTooLarge { bytes: usize },
    #[error(
        "no piece set {0:?} in the library (teach it one from photos of the starting position)"
    )]
    NoSuchSet(String),
    #[error("{0}")]
    BadInput(String),
    #[error("cannot find the user's data folder: set $XDG_DATA_HOME or $HOME, or give --library")]
    NoDataDir,
}

impl LibraryError {
    /// Whether the request named something that is not there.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            LibraryError::NoSuchScan(_)
                | LibraryError::NoSuchSet(_)
                | LibraryError::NoSuchBoard { .. }
                | LibraryError::NoThumbnail { .. }
        )
    }
}

/// A recognition to keep.
#[derive(Clone, Debug)]
pub struct NewScan {
    /// sha256 of the source's bytes, hex.
    pub source_hash: String,
    /// The PDF page, from 1; `None` for an image.
    pub page: Option<usize>,
    /// The file name, when known.
    pub source_name: Option<String>,
    pub boards: Vec<NewBoard>,
}

/// One board of a recognition to keep.
#[derive(Clone, Debug)]
pub struct NewBoard {
    pub fen: String,
    pub confidence: f32,
    /// The board as the API returned it (reading, warnings, analysis).
    pub reading: serde_json::Value,
    /// A PNG of the board.
    pub thumbnail: Option<Vec<u8>>,
}

/// What saving did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saved {
    pub id: i64,
    /// False when the picture was in the library already.
    pub created: bool,
    /// Older scans the library's retention removed to make room.
    pub removed: u64,
}

/// A kept scan.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scan {
    pub id: i64,
    /// sha256 of the source's bytes.
    pub source_hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// When it was first scanned (UTC, RFC 3339).
    pub first_scanned_at: String,
    /// When it was last scanned.
    pub scanned_at: String,
    pub times_scanned: i64,
    pub boards: Vec<StoredBoard>,
}

/// A kept board.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredBoard {
    /// The board's place in its scan, from 0.
    pub index: usize,
    /// The current FEN: the last correction's, else the reading's.
    pub fen: String,
    /// The FEN as recognition read it.
    pub read_fen: String,
    pub placement: String,
    /// Material signature, e.g. `KRPPvKR`.
    pub material: String,
    /// The reading's confidence that every square is right.
    pub confidence: f64,
    pub corrected: bool,
    pub has_thumbnail: bool,
    /// The reading as the API returned it.
    #[schema(value_type = Object)]
    pub reading: serde_json::Value,
    /// The last analysis run on the board from the page or the API
    /// (`/api/v1/analyze` with `scanId`); its `fen` says of which position.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub analysis: Option<serde_json::Value>,
    /// Every correction, oldest first.
    pub corrections: Vec<Correction>,
}

/// One correction of a board.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    pub previous_fen: String,
    pub fen: String,
    pub at: String,
}

/// Which scans to list: a page of them, newest first, and filters that a
/// scan matches when one of its boards does.
#[derive(Clone, Debug, Default)]
pub struct ScanQuery {
    /// From 1.
    pub page: u64,
    pub per_page: u64,
    /// The exact position (any FEN boardscan reads; normalised).
    pub fen: Option<String>,
    /// The same placement, any side to move and rights.
    pub placement: Option<String>,
    /// A material signature (`KRPvKR`), or a piece signature (`KRvKR`) for
    /// every such ending whatever its pawns.
    pub material: Option<String>,
    pub corrected: Option<bool>,
}

/// The most scans one page lists.
pub const MAX_PER_PAGE: u64 = 200;

/// One page of scans.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanPage {
    /// Scans matching, over all pages.
    pub total: u64,
    pub page: u64,
    pub per_page: u64,
    pub scans: Vec<Scan>,
}

/// The scan library.
#[derive(Clone)]
pub struct Library {
    backend: Arc<dyn Backend>,
}

/// Where the library lives unless told: `$XDG_DATA_HOME/boardscan/library.sqlite3`,
/// else `~/.local/share/boardscan/library.sqlite3`.
pub fn default_location() -> Result<PathBuf, LibraryError> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .ok_or(LibraryError::NoDataDir)?;
    Ok(data.join("boardscan").join("library.sqlite3"))
}

impl Library {
    /// Opens the library at `location` (a file path, or a `postgres://` /
    /// `postgresql://` URL), creating it if need be and bringing its schema
    /// up to date.
    pub fn open(location: &str) -> Result<Self, LibraryError> {
        let backend: Arc<dyn Backend> =
            if location.starts_with("postgres://") || location.starts_with("postgresql://") {
                Arc::new(postgres::Postgres::open(location)?)
            } else {
                Arc::new(sqlite::Sqlite::open(std::path::Path::new(location))?)
            };
        Self::on(backend)
    }

    /// Opens the library given by `--library`, else the default one.
    pub fn open_or_default(location: Option<&str>) -> Result<Self, LibraryError> {
        match location {
            Some(location) => Self::open(location),
            None => Self::open(&default_location()?.display().to_string()),
        }
    }

    fn on(backend: Arc<dyn Backend>) -> Result<Self, LibraryError> {
        let dialect = backend.dialect();
        let location = backend.location().to_string();
        backend.transaction(&mut |conn| schema::migrate(conn, dialect, &location))?;
        Ok(Self { backend })
    }

    /// How many scans the library keeps (0: no limit): its retention,
    /// stored in the library itself so that every front end and replica
    /// applies the same one.
    pub fn max_scans(&self) -> Result<u64, LibraryError> {
        self.tx(|conn| stored_max_scans(conn))
    }

    /// Sets the library's retention (0: no limit). Nothing is removed now;
    /// the next recognition saved removes what is over it.
    pub fn set_max_scans(&self, max: u64) -> Result<(), LibraryError> {
        let max = i64::try_from(max)
            .map_err(|_| LibraryError::BadInput(format!("{max} scans is too many to keep")))?;
        self.tx(|conn| {
            conn.execute(
                "UPDATE settings SET value = ? WHERE name = 'max_scans'",
                &[Value::Int(max)],
            )
            .map(drop)
        })
    }

    /// Where the library is (a path, or a URL without its password).
    pub fn location(&self) -> &str {
        self.backend.location()
    }

    /// Runs `work` in one transaction and returns what it made.
    fn tx<T>(
        &self,
        mut work: impl FnMut(&mut dyn Conn) -> Result<T, LibraryError>,
    ) -> Result<T, LibraryError> {
        let mut out = None;
        self.backend.transaction(&mut |conn| {
            out = Some(work(conn)?);
            Ok(())
        })?;
        Ok(out.expect("set by a committed transaction"))
    }

    /// Keeps a recognition; the same picture (hash and page) again refreshes
    /// the entry's readings and keeps its corrections. A new entry past the
    /// library's retention removes the oldest uncorrected scans, and says
    /// how many. Returns once the scan is durably stored.
    pub fn save(&self, scan: &NewScan) -> Result<Saved, LibraryError> {
        let keyed = keyed_boards(scan)?;
        self.tx(|conn| {
            let mut saved = store(conn, scan, &keyed)?;
            if saved.created {
                saved.removed = enforce_retention(conn)?;
            }
            Ok(saved)
        })
    }

    /// Adds scans from elsewhere (an import) in one transaction: all are
    /// stored or none. Never removes a scan, whatever the retention.
    pub fn add_all(&self, scans: &[NewScan]) -> Result<Vec<Saved>, LibraryError> {
        let keyed = scans
            .iter()
            .map(keyed_boards)
            .collect::<Result<Vec<_>, _>>()?;
        self.tx(|conn| {
            scans
                .iter()
                .zip(&keyed)
                .map(|(scan, keyed)| store(conn, scan, keyed))
                .collect()
        })
    }

    /// One page of scans, newest first.
    pub fn list(&self, query: &ScanQuery) -> Result<ScanPage, LibraryError> {
        let per_page = query.per_page.clamp(1, MAX_PER_PAGE);
        // Past the last page is an empty page, never an overflow.
        let page = query.page.clamp(1, i64::MAX as u64 / MAX_PER_PAGE);
        let (condition, params) = filters(query)?;
        self.tx(|conn| {
            let total = conn.query(
                &format!("SELECT COUNT(*) FROM scans s WHERE {condition}"),
                &params,
            )?[0][0]
                .int() as u64;
            let mut page_params = params.clone();
            page_params.push(Value::Int(per_page as i64));
            page_params.push(Value::Int(((page - 1) * per_page) as i64));
            let ids = conn.query(
                &format!(
                    "SELECT id FROM scans s WHERE {condition}
                     ORDER BY s.scanned_ms DESC, s.id DESC LIMIT ? OFFSET ?"
                ),
                &page_params,
            )?;
            let mut scans = Vec::with_capacity(ids.len());
            for row in ids {
                scans.push(load_scan(conn, row[0].int())?);
            }
            Ok(ScanPage {
                total,
                page,
                per_page,
                scans,
            })
        })
    }

    /// Every scan matching `query`'s filters, page by page.
    pub fn each(
        &self,
        query: &ScanQuery,
        mut visit: impl FnMut(&Scan) -> Result<(), LibraryError>,
    ) -> Result<(), LibraryError> {
        let mut query = ScanQuery {
            page: 1,
            per_page: MAX_PER_PAGE,
            ..query.clone()
        };
        loop {
            let page = self.list(&query)?;
            for scan in &page.scans {
                visit(scan)?;
            }
            if page.page * page.per_page >= page.total || page.scans.is_empty() {
                return Ok(());
            }
            query.page += 1;
        }
    }

    /// One scan.
    pub fn get(&self, id: i64) -> Result<Scan, LibraryError> {
        self.tx(|conn| load_scan(conn, id))
    }

    /// The PNG of one board.
    pub fn thumbnail(&self, id: i64, board: usize) -> Result<Vec<u8>, LibraryError> {
        self.tx(|conn| {
            let rows = conn.query(
                "SELECT thumbnail FROM boards WHERE scan_id = ? AND idx = ?",
                &[Value::Int(id), Value::Int(board as i64)],
            )?;
            match rows.into_iter().next() {
                Some(row) => row
                    .into_iter()
                    .next()
                    .and_then(Value::into_blob)
                    .ok_or(LibraryError::NoThumbnail { scan: id, board }),
                None => Err(missing(conn, id, board)),
            }
        })
    }

    /// Records a person's correction of one board: `fen` becomes its current
    /// FEN and the change joins its history. The same FEN as now records
    /// nothing. Returns the board as it now is.
    pub fn correct(&self, id: i64, board: usize, fen: &str) -> Result<StoredBoard, LibraryError> {
        let keys =
            Keys::of(fen).map_err(|e| LibraryError::BadInput(format!("the corrected FEN: {e}")))?;
        let now = now_ms();
        self.tx(|conn| {
            let rows = conn.query(
                "SELECT fen, read_fen FROM boards WHERE scan_id = ? AND idx = ?",
                &[Value::Int(id), Value::Int(board as i64)],
            )?;
            let Some(row) = rows.first() else {
                return Err(missing(conn, id, board));
            };
            let current = row[0].text().unwrap_or_default().to_string();
            let read = row[1].text().unwrap_or_default();
            if current != keys.fen {
                conn.execute(
                    "INSERT INTO corrections (scan_id, idx, previous_fen, fen, at_ms) VALUES (?, ?, ?, ?, ?)",
                    &[
                        Value::Int(id),
                        Value::Int(board as i64),
                        Value::Text(current),
                        Value::Text(keys.fen.clone()),
                        Value::Int(now),
                    ],
                )?;
                conn.execute(
                    "UPDATE boards SET fen = ?, placement = ?, material = ?, pieces = ?, corrected = ?
                     WHERE scan_id = ? AND idx = ?",
                    &[
                        Value::Text(keys.fen.clone()),
                        Value::Text(keys.placement.clone()),
                        Value::Text(keys.material.clone()),
                        Value::Text(keys.pieces.clone()),
                        Value::Int(i64::from(read != keys.fen)),
                        Value::Int(id),
                        Value::Int(board as i64),
                    ],
                )?;
            }
            let scan = load_scan(conn, id)?;
            Ok(scan.boards.into_iter().nth(board).expect("the board exists"))
        })
    }

    /// Keeps `analysis` (an analysis's JSON) with one board, replacing the
    /// one it had.
    pub fn set_analysis(
        &self,
        id: i64,
        board: usize,
        analysis: &serde_json::Value,
    ) -> Result<(), LibraryError> {
        self.tx(|conn| {
            let changed = conn.execute(
                "UPDATE boards SET analysis = ? WHERE scan_id = ? AND idx = ?",
                &[
                    Value::Text(analysis.to_string()),
                    Value::Int(id),
                    Value::Int(board as i64),
                ],
            )?;
            if changed == 0 {
                return Err(missing(conn, id, board));
            }
            Ok(())
        })
    }

    /// Deletes one scan with its boards and corrections.
    pub fn delete(&self, id: i64) -> Result<(), LibraryError> {
        self.tx(|conn| {
            if conn.execute("DELETE FROM scans WHERE id = ?", &[Value::Int(id)])? == 0 {
                return Err(LibraryError::NoSuchScan(id));
            }
            Ok(())
        })
    }

    /// Deletes every scan; returns how many there were.
    pub fn delete_all(&self) -> Result<u64, LibraryError> {
        self.tx(|conn| {
            conn.execute("DELETE FROM corrections", &[])?;
            conn.execute("DELETE FROM boards", &[])?;
            conn.execute("DELETE FROM scans", &[])
        })
    }

    /// How many scans the library holds.
    pub fn count(&self) -> Result<u64, LibraryError> {
        self.tx(|conn| Ok(conn.query("SELECT COUNT(*) FROM scans", &[])?[0][0].int() as u64))
    }
}

/// The WHERE condition (over `scans s`) and its parameters for a query's filters.
fn filters(query: &ScanQuery) -> Result<(String, Vec<Value>), LibraryError> {
    let mut board = Vec::new();
    let mut params = Vec::new();
    if let Some(fen) = &query.fen {
        let keys = Keys::of(fen).map_err(|e| LibraryError::BadInput(format!("fen: {e}")))?;
        board.push("b.fen = ?");
        params.push(Value::Text(keys.fen));
    }
    if let Some(placement) = &query.placement {
        let placement = signature::placement_of(placement)
            .map_err(|e| LibraryError::BadInput(format!("placement: {e}")))?;
        board.push("b.placement = ?");
        params.push(Value::Text(placement));
    }
    if let Some(material) = &query.material {
        let material = signature::material_of(material).ok_or_else(|| {
            LibraryError::BadInput(format!(
                "material: {material:?} is not a signature such as KRPvKR or KRvKR"
            ))
        })?;
        board.push("(b.material = ? OR b.pieces = ?)");
        params.push(Value::Text(material.clone()));
        params.push(Value::Text(material));
    }
    if let Some(corrected) = query.corrected {
        board.push("b.corrected = ?");
        params.push(Value::Int(i64::from(corrected)));
    }
    if board.is_empty() {
        return Ok(("1 = 1".into(), params));
    }
    Ok((
        format!(
            "EXISTS (SELECT 1 FROM boards b WHERE b.scan_id = s.id AND {})",
            board.join(" AND ")
        ),
        params,
    ))
}

/// A scan's boards with their search keys; refuses what cannot be kept.
fn keyed_boards(scan: &NewScan) -> Result<Vec<(&NewBoard, Keys)>, LibraryError> {
    if scan.boards.len() > MAX_BOARDS_PER_SCAN {
        return Err(LibraryError::BadInput(format!(
            "{} has {} boards, over the limit of {MAX_BOARDS_PER_SCAN} for one picture",
            scan.source_name.as_deref().unwrap_or("a scan"),
            scan.boards.len()
        )));
    }
    let mut keyed = Vec::with_capacity(scan.boards.len());
    for board in &scan.boards {
        if let Some(bytes) = board.thumbnail.as_ref().map(Vec::len) {
            if bytes > MAX_THUMBNAIL_BYTES {
                return Err(LibraryError::ThumbnailTooLarge { bytes });
            }
        }
        let keys = Keys::of(&board.fen)
            .map_err(|e| LibraryError::BadInput(format!("cannot keep FEN {:?}: {e}", board.fen)))?;
        keyed.push((board, keys));
    }
    Ok(keyed)
}

/// Stores one scan (or refreshes the entry of the same picture); removes nothing.
fn store(
    conn: &mut dyn Conn,
    scan: &NewScan,
    keyed: &[(&NewBoard, Keys)],
) -> Result<Saved, LibraryError> {
    let now = now_ms();
    let row = conn.query(
            "INSERT INTO scans (source_hash, page, source_name, first_scanned_ms, scanned_ms, times_scanned)
             VALUES (?, ?, ?, ?, ?, 1)
             ON CONFLICT (source_hash, page) DO UPDATE
             SET scanned_ms = excluded.scanned_ms, times_scanned = scans.times_scanned + 1
             RETURNING id, times_scanned",
            &[
                Value::Text(scan.source_hash.clone()),
                Value::Int(scan.page.unwrap_or(0) as i64),
                Value::opt_text(scan.source_name.as_deref()),
                Value::Int(now),
                Value::Int(now),
            ],
        )?;
    let (id, times) = (row[0][0].int(), row[0][1].int());
    for (index, (board, keys)) in keyed.iter().enumerate() {
        conn.execute(
                "INSERT INTO boards (scan_id, idx, read_fen, fen, placement, material, pieces,
                                     confidence, corrected, reading, thumbnail)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                 ON CONFLICT (scan_id, idx) DO UPDATE SET
                     read_fen = excluded.read_fen,
                     confidence = excluded.confidence,
                     reading = excluded.reading,
                     thumbnail = excluded.thumbnail,
                     fen = CASE WHEN boards.corrected = 1 THEN boards.fen ELSE excluded.fen END,
                     placement = CASE WHEN boards.corrected = 1 THEN boards.placement ELSE excluded.placement END,
                     material = CASE WHEN boards.corrected = 1 THEN boards.material ELSE excluded.material END,
                     pieces = CASE WHEN boards.corrected = 1 THEN boards.pieces ELSE excluded.pieces END",
                &[
                    Value::Int(id),
                    Value::Int(index as i64),
                    Value::Text(keys.fen.clone()),
                    Value::Text(keys.fen.clone()),
                    Value::Text(keys.placement.clone()),
                    Value::Text(keys.material.clone()),
                    Value::Text(keys.pieces.clone()),
                    Value::Real(f64::from(board.confidence)),
                    Value::Text(board.reading.to_string()),
                    match &board.thumbnail {
                        Some(png) => Value::Blob(png.clone()),
                        None => Value::NullBlob,
                    },
                ],
            )?;
    }
    Ok(Saved {
        id,
        created: times == 1,
        removed: 0,
    })
}

/// The library's retention, as stored.
fn stored_max_scans(conn: &mut dyn Conn) -> Result<u64, LibraryError> {
    let rows = conn.query("SELECT value FROM settings WHERE name = 'max_scans'", &[])?;
    Ok(rows
        .first()
        .map_or(DEFAULT_MAX_SCANS, |row| row[0].int().max(0) as u64))
}

/// Deletes the oldest scans without corrections beyond the library's
/// retention; returns how many went.
fn enforce_retention(conn: &mut dyn Conn) -> Result<u64, LibraryError> {
    let max = stored_max_scans(conn)?;
    let count = conn.query("SELECT COUNT(*) FROM scans", &[])?[0][0].int() as u64;
    if max == 0 || count <= max {
        return Ok(0);
    }
    conn.execute(
        "DELETE FROM scans WHERE id IN (
             SELECT s.id FROM scans s
             WHERE NOT EXISTS (SELECT 1 FROM corrections c WHERE c.scan_id = s.id)
             ORDER BY s.scanned_ms ASC, s.id ASC LIMIT ?)",
        &[Value::Int((count - max) as i64)],
    )
}

/// The error for a board that is not there: its scan is missing, or only the board.
fn missing(conn: &mut dyn Conn, id: i64, board: usize) -> LibraryError {
    match conn.query("SELECT 1 FROM scans WHERE id = ?", &[Value::Int(id)]) {
        Ok(rows) if rows.is_empty() => LibraryError::NoSuchScan(id),
        Ok(_) => LibraryError::NoSuchBoard { scan: id, board },
        Err(e) => e,
    }
}

fn load_scan(conn: &mut dyn Conn, id: i64) -> Result<Scan, LibraryError> {
    let rows = conn.query(
        "SELECT id, source_hash, page, source_name, first_scanned_ms, scanned_ms, times_scanned
         FROM scans WHERE id = ?",
        &[Value::Int(id)],
    )?;
    let row = rows.first().ok_or(LibraryError::NoSuchScan(id))?;
    let corrections = conn.query(
        "SELECT idx, previous_fen, fen, at_ms FROM corrections WHERE scan_id = ? ORDER BY id",
        &[Value::Int(id)],
    )?;
    let boards = conn
        .query(
            "SELECT idx, fen, read_fen, placement, material, confidence, corrected, reading,
                    CASE WHEN thumbnail IS NULL THEN 0 ELSE 1 END, analysis
             FROM boards WHERE scan_id = ? ORDER BY idx",
            &[Value::Int(id)],
        )?
        .into_iter()
        .map(|b| {
            let index = b[0].int();
            StoredBoard {
                index: index as usize,
                fen: text(&b[1]),
                read_fen: text(&b[2]),
                placement: text(&b[3]),
                material: text(&b[4]),
                confidence: b[5].real(),
                corrected: b[6].int() != 0,
                reading: serde_json::from_str(b[7].text().unwrap_or("null"))
                    .unwrap_or(serde_json::Value::Null),
                has_thumbnail: b[8].int() != 0,
                analysis: b[9].text().and_then(|a| serde_json::from_str(a).ok()),
                corrections: corrections
                    .iter()
                    .filter(|c| c[0].int() == index)
                    .map(|c| Correction {
                        previous_fen: text(&c[1]),
                        fen: text(&c[2]),
                        at: rfc3339(c[3].int()),
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(Scan {
        id: row[0].int(),
        source_hash: text(&row[1]),
        page: Some(row[2].int()).filter(|&p| p > 0),
        source_name: row[3].text().map(str::to_string),
        first_scanned_at: rfc3339(row[4].int()),
        scanned_at: rfc3339(row[5].int()),
        times_scanned: row[6].int(),
        boards,
    })
}

fn text(value: &Value) -> String {
    value.text().unwrap_or_default().to_string()
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Milliseconds since 1970 as `2026-12-03T22:36:05.123Z`.
fn rfc3339(ms: i64) -> String {
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The sha256 of a source's bytes, as the library keys it.
pub fn source_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests;
