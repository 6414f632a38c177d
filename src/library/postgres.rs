//! The PostgreSQL backend, for replicas sharing one library: the sync
//! `postgres` client (it runs its own small runtime, so it is called from
//! the service's blocking pool like SQLite is; sqlx would have brought a
//! second async stack and compile-time query checking the dynamic filters do
//! not need). One connection behind a mutex per process, reconnected when it
//! drops; transactions are PostgreSQL's own, so replicas never overwrite
//! each other.

use std::sync::Mutex;

use postgres::{types::ToSql, Client, NoTls};

use super::{
    backend::{numbered_placeholders, Backend, Conn, Dialect, Value},
    LibraryError,
};

pub struct Postgres {
    url: String,
    client: Mutex<Option<Client>>,
    location: String,
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://user:pass@host:port/db`).
    pub fn open(url: &str) -> Result<Self, LibraryError> {
        let location = without_password(url);
        let client = connect(url, &location)?;
        Ok(Self {
            url: url.to_string(),
            client: Mutex::new(Some(client)),
            location,
        })
    }
}

fn connect(url: &str, location: &str) -> Result<Client, LibraryError> {
    Client::connect(url, NoTls).map_err(|e| LibraryError::Unavailable {
        location: location.to_string(),
        message: with_causes(&e),
    })
}

/// An error with what caused it (`error connecting to server: Connection
/// refused (os error 111)`): the client's own message alone does not say.
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut cause = err.source();
    while let Some(inner) = cause {
        message.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    message
}

/// The URL as messages may show it: the password replaced by `***`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}")
        }
        _ => url.to_string(),
    }
}

fn classify(err: postgres::Error, location: &str) -> LibraryError {
    let location = location.to_string();
    match err.code().map(|c| c.code()) {
        Some("53100") => LibraryError::Full { location },
        Some("40001") | Some("40P01") | Some("55P03") => LibraryError::Busy { location },
        _ if err.is_closed() || err.as_db_error().is_none() => LibraryError::Unavailable {
            location,
            message: err.to_string(),
        },
        _ => LibraryError::Storage {
            location,
            message: err.to_string(),
        },
    }
}

fn to_sql(value: &Value) -> Box<dyn ToSql + Sync> {
    match value {
        Value::Null => Box::new(None::<i64>),
        Value::NullText => Box::new(None::<String>),
        Value::NullBlob => Box::new(None::<Vec<u8>>),
        Value::Int(n) => Box::new(*n),
        Value::Real(x) => Box::new(*x),
        Value::Text(s) => Box::new(s.clone()),
        Value::Blob(b) => Box::new(b.clone()),
    }
}

struct Tx<'a, 'b> {
    tx: &'a mut postgres::Transaction<'b>,
    location: &'a str,
}

impl Conn for Tx<'_, '_> {
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, LibraryError> {
        let boxed: Vec<_> = params.iter().map(to_sql).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
        self.tx
            .execute(numbered_placeholders(sql).as_str(), &refs)
            .map_err(|e| classify(e, self.location))
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, LibraryError> {
        use postgres::types::Type;
        let fail = |e| classify(e, self.location);
        let boxed: Vec<_> = params.iter().map(to_sql).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
        let rows = self
            .tx
            .query(numbered_placeholders(sql).as_str(), &refs)
            .map_err(fail)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut values = Vec::with_capacity(row.len());
            for (i, column) in row.columns().iter().enumerate() {
                let ty = column.type_();
                let value = if *ty == Type::INT8 {
                    row.try_get::<_, Option<i64>>(i).map(|v| v.map(Value::Int))
                } else if *ty == Type::INT4 {
                    row.try_get::<_, Option<i32>>(i)
                        .map(|v| v.map(|n| Value::Int(n.into())))
                } else if *ty == Type::FLOAT8 {
                    row.try_get::<_, Option<f64>>(i).map(|v| v.map(Value::Real))
                } else if *ty == Type::BYTEA {
                    row.try_get::<_, Option<Vec<u8>>>(i)
                        .map(|v| v.map(Value::Blob))
                } else {
                    row.try_get::<_, Option<String>>(i)
                        .map(|v| v.map(Value::Text))
                };
                values.push(value.map_err(fail)?.unwrap_or(Value::Null));
            }
            out.push(values);
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), LibraryError> {
        self.tx
            .batch_execute(sql)
            .map_err(|e| classify(e, self.location))
    }
}

impl Backend for Postgres {
    fn transaction(
        &self,
        work: &mut dyn FnMut(&mut dyn Conn) -> Result<(), LibraryError>,
    ) -> Result<(), LibraryError> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(|c| c.is_closed()) {
            *slot = Some(connect(&self.url, &self.location)?);
        }
        let client = slot.as_mut().expect("connected above");
        let result = (|| {
            let mut tx = client
                .transaction()
                .map_err(|e| classify(e, &self.location))?;
            work(&mut Tx {
                tx: &mut tx,
                location: &self.location,
            })?;
            tx.commit().map_err(|e| classify(e, &self.location))
        })();
        if matches!(result, Err(LibraryError::Unavailable { .. })) {
            // Reconnect on the next transaction.
            *slot = None;
        }
        result
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn location(&self) -> &str {
        &self.location
    }
}

impl Drop for Postgres {
    /// Closes the connection on a thread of its own: the client's close runs
    /// its own runtime, which may not start on a thread already running one
    /// (the service drops its state on actix's thread at shutdown).
    fn drop(&mut self) {
        let client = self
            .client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(client) = client {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_hide_the_password() {
        assert_eq!(
            without_password("postgres://scan:secret@db:5432/lib"),
            "postgres://scan:***@db:5432/lib"
        );
        assert_eq!(without_password("postgres://db/lib"), "postgres://db/lib");
    }
}
