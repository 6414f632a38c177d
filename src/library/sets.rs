//! Users' own physical piece sets: the correction of the standing-piece
//! model learnt from photos of each (`recognize::SetAdaptation`, stored as
//! its bytes), kept by name beside the scans.

use super::{now_ms, Conn, Library, LibraryError, Value};

/// One stored set.
#[derive(Clone, Debug, PartialEq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PieceSet {
    pub name: String,
    /// How many photos of the starting position it was learnt from.
    pub photos: u32,
    /// When it was learnt, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The correction's bytes.
    #[serde(skip)]
    pub adaptation: Vec<u8>,
}

/// The longest set name.
const MAX_NAME: usize = 64;

impl Library {
    /// Keeps `adaptation` as the set `name`, replacing one of that name.
    pub fn save_set(
        &self,
        name: &str,
        photos: u32,
        adaptation: &[u8],
    ) -> Result<PieceSet, LibraryError> {
        let name = checked_name(name)?;
        let set = PieceSet {
            name: name.to_string(),
            photos,
            created_ms: now_ms(),
            adaptation: adaptation.to_vec(),
        };
        self.tx(|conn| {
            conn.execute(
                "DELETE FROM piece_sets WHERE name = ?",
                &[Value::Text(set.name.clone())],
            )?;
            conn.execute(
                "INSERT INTO piece_sets (name, photos, created_ms, adaptation) VALUES (?, ?, ?, ?)",
                &[
                    Value::Text(set.name.clone()),
                    Value::Int(i64::from(set.photos)),
                    Value::Int(set.created_ms),
                    Value::Blob(set.adaptation.clone()),
                ],
            )
            .map(drop)
        })?;
        Ok(set)
    }

    /// The set `name`.
    pub fn set(&self, name: &str) -> Result<PieceSet, LibraryError> {
        self.tx(|conn| {
            let rows = conn.query(
                "SELECT name, photos, created_ms, adaptation FROM piece_sets WHERE name = ?",
                &[Value::Text(name.to_string())],
            )?;
            rows.into_iter()
                .next()
                .map(piece_set)
                .ok_or_else(|| LibraryError::NoSuchSet(name.to_string()))
        })
    }

    /// Every stored set, by name, without their corrections' bytes.
    pub fn sets(&self) -> Result<Vec<PieceSet>, LibraryError> {
        self.tx(|conn: &mut dyn Conn| {
            let rows = conn.query(
                "SELECT name, photos, created_ms, NULL FROM piece_sets ORDER BY name",
                &[],
            )?;
            Ok(rows.into_iter().map(piece_set).collect())
        })
    }

    /// Forgets the set `name`.
    pub fn delete_set(&self, name: &str) -> Result<(), LibraryError> {
        let removed = self.tx(|conn| {
            conn.execute(
                "DELETE FROM piece_sets WHERE name = ?",
                &[Value::Text(name.to_string())],
            )
        })?;
        if removed == 0 {
            return Err(LibraryError::NoSuchSet(name.to_string()));
        }
        Ok(())
    }
}

fn piece_set(row: Vec<Value>) -> PieceSet {
    let mut row = row.into_iter();
    let mut next = || row.next().unwrap_or(Value::Null);
    PieceSet {
        name: next().text().unwrap_or_default().to_string(),
        photos: u32::try_from(next().int()).unwrap_or(0),
        created_ms: next().int(),
        adaptation: next().into_blob().unwrap_or_default(),
    }
}

/// A set name: 1 to 64 letters, digits, spaces, `-`, `_` or `.`.
fn checked_name(name: &str) -> Result<&str, LibraryError> {
    let name = name.trim();
    let fits = !name.is_empty()
        && name.chars().count() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'));
    if fits {
        Ok(name)
    } else {
        Err(LibraryError::BadInput(format!(
            "a set's name is 1 to {MAX_NAME} letters, digits, spaces, '-', '_' or '.', not {name:?}"
        )))
    }
}
