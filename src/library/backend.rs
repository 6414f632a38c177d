//! The little SQL both backends speak: values, one connection inside a
//! transaction, and a backend that runs work in one.
//!
//! The library's queries are written once, with `?` placeholders, over
//! [`Conn`]; SQLite runs them as they are and PostgreSQL with `$1, $2, …`.

use super::LibraryError;

/// A value bound to a query or read from a row. Integers are 64-bit in both
/// backends (`BIGINT` in PostgreSQL).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
    /// A NULL bound where text goes (PostgreSQL wants a typed NULL).
    NullText,
    /// A NULL bound where bytes go.
    NullBlob,
}

impl Value {
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(n) => *n,
            Value::Real(x) => *x as i64,
            _ => 0,
        }
    }

    pub fn real(&self) -> f64 {
        match self {
            Value::Real(x) => *x,
            Value::Int(n) => *n as f64,
            _ => 0.0,
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    pub fn into_blob(self) -> Option<Vec<u8>> {
        match self {
            Value::Blob(b) => Some(b),
            _ => None,
        }
    }

    /// Text or a typed NULL.
    pub fn opt_text(text: Option<&str>) -> Value {
        text.map_or(Value::NullText, |t| Value::Text(t.to_string()))
    }
}

/// One connection, inside a transaction.
pub trait Conn {
    /// Runs a statement; returns the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, LibraryError>;
    /// Runs a query; returns its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, LibraryError>;
    /// Runs several statements without parameters (a migration).
    fn batch(&mut self, sql: &str) -> Result<(), LibraryError>;
}

/// A database that runs work in a transaction: committed when the work
/// returns `Ok`, rolled back otherwise.
pub trait Backend: Send + Sync {
    fn transaction(
        &self,
        work: &mut dyn FnMut(&mut dyn Conn) -> Result<(), LibraryError>,
    ) -> Result<(), LibraryError>;
    /// Which dialect the schema is written in.
    fn dialect(&self) -> Dialect;
    /// Where the data lives, for messages (a path, or a URL without its password).
    fn location(&self) -> &str;
}

/// The SQL dialect of a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// `?` placeholders numbered as PostgreSQL wants them (`$1`, `$2`, …). The
/// library's SQL has no `?` inside string literals.
pub fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push_str(&format!("${n}"));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_in_order() {
        assert_eq!(
            numbered_placeholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
        );
    }
}
