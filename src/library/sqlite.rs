//! The SQLite backend (rusqlite with SQLite bundled into the binary): one
//! file in WAL mode, so readers (the CLI, a second process) never wait for
//! the service's writes, with `synchronous = FULL` so that a saved scan
//! survives a killed process or a power cut. Every transaction of this
//! process goes through one connection behind a mutex, so the service's own
//! requests never see "database is locked"; another process waits up to the
//! busy timeout.

use std::{
    path::{Path, PathBuf},
    sync::Mutex,
    time::Duration,
};

use rusqlite::{types::ValueRef, Connection, ErrorCode, TransactionBehavior};

use super::{
    backend::{Backend, Conn, Dialect, Value},
    LibraryError,
};

/// How long a transaction waits for another process's write.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Sqlite {
    conn: Mutex<Connection>,
    location: String,
}

impl Sqlite {
    /// Opens (creating it and its folder if need be) the library at `path`.
    pub fn open(path: &Path) -> Result<Self, LibraryError> {
        let location = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| LibraryError::Io {
                location: dir.display().to_string(),
                message: e.to_string(),
            })?;
        }
        let fail = |e: rusqlite::Error| classify(e, &location);
        let conn = Connection::open(PathBuf::from(path)).map_err(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        // The first read of the file: a file that is not SQLite fails here.
        conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        })
        .map_err(fail)?;
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
            .map_err(fail)?;
        Ok(Self {
            conn: Mutex::new(conn),
            location,
        })
    }

    /// Caps the file at `pages` pages of the database, as a full disk would.
    #[cfg(test)]
    pub fn limit_pages(&self, pages: u64) {
        let conn = self.conn.lock().unwrap();
        conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .unwrap();
    }
}

/// A SQLite error as the library reports it, naming the file.
fn classify(err: rusqlite::Error, location: &str) -> LibraryError {
    let location = location.to_string();
    if let rusqlite::Error::SqliteFailure(code, _) = &err {
        match code.code {
            ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => {
                return LibraryError::Corrupt {
                    location,
                    message: err.to_string(),
                }
            }
            ErrorCode::DiskFull => return LibraryError::Full { location },
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return LibraryError::Busy { location }
            }
            ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied => {
                return LibraryError::Io {
                    location,
                    message: err.to_string(),
                }
            }
            _ => {}
        }
    }
    LibraryError::Storage {
        location,
        message: err.to_string(),
    }
}

struct Tx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    location: &'a str,
}

fn to_sql(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match value {
        Value::Null | Value::NullText | Value::NullBlob => V::Null,
        Value::Int(n) => V::Integer(*n),
        Value::Real(x) => V::Real(*x),
        Value::Text(s) => V::Text(s.clone()),
        Value::Blob(b) => V::Blob(b.clone()),
    }
}

impl Conn for Tx<'_> {
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, LibraryError> {
        let params: Vec<_> = params.iter().map(to_sql).collect();
        self.tx
            .execute(sql, rusqlite::params_from_iter(params))
            .map(|n| n as u64)
            .map_err(|e| classify(e, self.location))
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, LibraryError> {
        let fail = |e| classify(e, self.location);
        let mut statement = self.tx.prepare_cached(sql).map_err(fail)?;
        let columns = statement.column_count();
        let params: Vec<_> = params.iter().map(to_sql).collect();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params))
            .map_err(fail)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(fail)? {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                values.push(match row.get_ref(i).map_err(fail)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => Value::Int(n),
                    ValueRef::Real(x) => Value::Real(x),
                    ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Value::Blob(b.to_vec()),
                });
            }
            out.push(values);
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), LibraryError> {
        self.tx
            .execute_batch(sql)
            .map_err(|e| classify(e, self.location))
    }
}

impl Backend for Sqlite {
    fn transaction(
        &self,
        work: &mut dyn FnMut(&mut dyn Conn) -> Result<(), LibraryError>,
    ) -> Result<(), LibraryError> {
        let fail = |e| classify(e, &self.location);
        // A panic while holding the lock leaves no transaction open (the
        // rusqlite transaction rolls back on drop), so the connection is fine.
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        // IMMEDIATE takes the write lock up front: two processes never
        // deadlock upgrading read locks, they wait (busy timeout) instead.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        work(&mut Tx {
            tx: &tx,
            location: &self.location,
        })?;
        tx.commit().map_err(fail)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn location(&self) -> &str {
        &self.location
    }
}
