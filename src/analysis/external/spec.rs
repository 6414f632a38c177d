//! Which external engines to run: `--engine NAME=PATH` flags and the JSON
//! engines file of `--engines-config`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Deserialize;

use crate::analysis::{EngineError, OURS};

/// One external engine to run.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    pub name: String,
    pub path: PathBuf,
    pub args: Vec<String>,
    /// `setoption` sent to each new process, in order.
    pub options: Vec<(String, String)>,
    /// Processes at most; `None`: the service's `--engine-processes`.
    pub processes: Option<usize>,
}

impl FromStr for EngineSpec {
    type Err = String;

    /// `NAME=PATH`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (name, path) = text
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=PATH, got {text:?}"))?;
        check_name(name)?;
        if path.is_empty() {
            return Err(format!("engine {name:?} has an empty path"));
        }
        Ok(EngineSpec {
            name: name.to_owned(),
            path: PathBuf::from(path),
            args: Vec::new(),
            options: Vec::new(),
            processes: None,
        })
    }
}

/// Engine names are short words clients put in JSON and URLs.
fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if !valid {
        return Err(format!(
            "engine name {name:?} must be 1 to 32 letters, digits, '-', '_' or '.'"
        ));
    }
    if name.eq_ignore_ascii_case(OURS) {
        return Err(format!("the name {OURS:?} is taken by the built-in engine"));
    }
    Ok(())
}

/// The engines file: `{"engines": [{"name", "path", "args"?, "options"?, "processes"?}]}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    engines: Vec<FileEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    name: String,
    path: PathBuf,
    #[serde(default)]
    args: Vec<String>,
    /// Option values: strings, numbers or booleans.
    #[serde(default)]
    options: BTreeMap<String, serde_json::Value>,
    processes: Option<usize>,
}

/// Reads an engines file.
pub fn read_config(path: &Path) -> Result<Vec<EngineSpec>, EngineError> {
    let bad = |reason: String| EngineError::Config(format!("{}: {reason}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let file: EnginesFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    file.engines
        .into_iter()
        .map(|entry| {
            check_name(&entry.name).map_err(bad)?;
            let options = entry
                .options
                .into_iter()
                .map(|(name, value)| match value {
                    serde_json::Value::String(s) => Ok((name, s)),
                    v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)) => {
                        Ok((name, v.to_string()))
                    }
                    other => Err(bad(format!("option {name}: {other} is not a scalar"))),
                })
                .collect::<Result<_, _>>()?;
            Ok(EngineSpec {
                name: entry.name,
                path: entry.path,
                args: entry.args,
                options,
                processes: entry.processes,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        let spec: EngineSpec = "stockfish=/usr/games/stockfish".parse().unwrap();
        assert_eq!(
            (spec.name.as_str(), spec.path.as_path()),
            ("stockfish", Path::new("/usr/games/stockfish"))
        );
        for bad in ["stockfish", "=/bin/x", "sf=", "boardscan=/x", "a b=/x"] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_engines_file_parses_and_refuses_mistakes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("engines.json");
        std::fs::write(
            &file,
            r#"{"engines": [{"name": "sf", "path": "/usr/games/stockfish",
                "options": {"Hash": 64, "Threads": 1, "UCI_ShowWDL": true}, "processes": 2}]}"#,
        )
        .unwrap();
        let specs = read_config(&file).unwrap();
        assert_eq!(specs[0].processes, Some(2));
        assert_eq!(
            specs[0].options,
            [
                ("Hash".to_owned(), "64".to_owned()),
                ("Threads".to_owned(), "1".to_owned()),
                ("UCI_ShowWDL".to_owned(), "true".to_owned())
            ]
        );
        std::fs::write(&file, r#"{"engines": [{"name": "sf", "pth": "/x"}]}"#).unwrap();
        let err = read_config(&file).unwrap_err().to_string();
        assert!(err.contains("pth"), "{err}");
    }
}
