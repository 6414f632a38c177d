//! The library's schema and its migrations, the same tables in SQLite and
//! PostgreSQL; checked (and brought up to date) every time a library opens.
//!
//! `schema_version` holds one row, the version of the last migration run. A
//! library written by a newer boardscan (a version above [`CURRENT`]) is
//! refused rather than guessed at.

use super::{
    backend::{Conn, Dialect, Value},
    LibraryError,
};

/// One step of the schema: its version and its SQL in each dialect.
struct Migration {
    version: i64,
    sqlite: &'static str,
    postgres: &'static str,
}

/// The schema version this build writes.
pub const CURRENT: i64 = 3;

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sqlite: "
        CREATE TABLE scans (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            source_hash TEXT NOT NULL,
            page INTEGER NOT NULL,
            source_name TEXT,
            first_scanned_ms INTEGER NOT NULL,
            scanned_ms INTEGER NOT NULL,
            times_scanned INTEGER NOT NULL,
            UNIQUE (source_hash, page)
        );
        CREATE TABLE boards (
            scan_id INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            read_fen TEXT NOT NULL,
            fen TEXT NOT NULL,
            placement TEXT NOT NULL,
            material TEXT NOT NULL,
            pieces TEXT NOT NULL,
            confidence REAL NOT NULL,
            corrected INTEGER NOT NULL,
            reading TEXT NOT NULL,
            analysis TEXT,
            thumbnail BLOB,
            PRIMARY KEY (scan_id, idx)
        );
        CREATE INDEX boards_fen ON boards (fen);
        CREATE INDEX boards_placement ON boards (placement);
        CREATE INDEX boards_material ON boards (material);
        CREATE INDEX boards_pieces ON boards (pieces);
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            scan_id INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            previous_fen TEXT NOT NULL,
            fen TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            FOREIGN KEY (scan_id, idx) REFERENCES boards (scan_id, idx) ON DELETE CASCADE
        );
        CREATE INDEX corrections_board ON corrections (scan_id, idx);
    ",
        postgres: "
        CREATE TABLE scans (
            id BIGSERIAL PRIMARY KEY,
            source_hash TEXT NOT NULL,
            page BIGINT NOT NULL,
            source_name TEXT,
            first_scanned_ms BIGINT NOT NULL,
            scanned_ms BIGINT NOT NULL,
            times_scanned BIGINT NOT NULL,
            UNIQUE (source_hash, page)
        );
        CREATE TABLE boards (
            scan_id BIGINT NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
            idx BIGINT NOT NULL,
            read_fen TEXT NOT NULL,
            fen TEXT NOT NULL,
            placement TEXT NOT NULL,
            material TEXT NOT NULL,
            pieces TEXT NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            corrected BIGINT NOT NULL,
            reading TEXT NOT NULL,
            analysis TEXT,
            thumbnail BYTEA,
            PRIMARY KEY (scan_id, idx)
        );
        CREATE INDEX boards_fen ON boards (fen);
        CREATE INDEX boards_placement ON boards (placement);
        CREATE INDEX boards_material ON boards (material);
        CREATE INDEX boards_pieces ON boards (pieces);
        CREATE TABLE corrections (
            id BIGSERIAL PRIMARY KEY,
            scan_id BIGINT NOT NULL,
            idx BIGINT NOT NULL,
            previous_fen TEXT NOT NULL,
            fen TEXT NOT NULL,
            at_ms BIGINT NOT NULL,
            FOREIGN KEY (scan_id, idx) REFERENCES boards (scan_id, idx) ON DELETE CASCADE
        );
        CREATE INDEX corrections_board ON corrections (scan_id, idx);
    ",
    },
    Migration {
        version: 2,
        sqlite: SETTINGS,
        postgres: SETTINGS,
    },
    Migration {
        version: 3,
        sqlite: "
        CREATE TABLE piece_sets (
            name TEXT PRIMARY KEY,
            photos INTEGER NOT NULL,
            created_ms INTEGER NOT NULL,
            adaptation BLOB NOT NULL
        );
    ",
        postgres: "
        CREATE TABLE piece_sets (
            name TEXT PRIMARY KEY,
            photos BIGINT NOT NULL,
            created_ms BIGINT NOT NULL,
            adaptation BYTEA NOT NULL
        );
    ",
    },
];

/// The library's own settings, one row each; retention (`max_scans`) starts
/// at [`DEFAULT_MAX_SCANS`](super::DEFAULT_MAX_SCANS).
const SETTINGS: &str = "
    CREATE TABLE settings (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
    INSERT INTO settings (name, value) VALUES ('max_scans', 100000);
";

/// Brings the schema up to [`CURRENT`] inside the caller's transaction, or
/// refuses a library from a newer boardscan.
pub fn migrate(conn: &mut dyn Conn, dialect: Dialect, location: &str) -> Result<(), LibraryError> {
    if dialect == Dialect::Postgres {
        // Replicas starting together migrate one at a time.
        conn.batch("SELECT pg_advisory_xact_lock(4218316351)")?;
    }
    conn.batch("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
    let rows = conn.query("SELECT version FROM schema_version", &[])?;
    let found = match rows.first() {
        Some(row) => row[0].int(),
        None => {
            conn.execute("INSERT INTO schema_version (version) VALUES (0)", &[])?;
            0
        }
    };
    if found > CURRENT {
        return Err(LibraryError::NewerSchema {
            location: location.to_string(),
            found,
            supported: CURRENT,
        });
    }
    for migration in MIGRATIONS.iter().filter(|m| m.version > found) {
        conn.batch(match dialect {
            Dialect::Sqlite => migration.sqlite,
            Dialect::Postgres => migration.postgres,
        })?;
        conn.execute(
            "UPDATE schema_version SET version = ?",
            &[Value::Int(migration.version)],
        )?;
    }
    Ok(())
}
