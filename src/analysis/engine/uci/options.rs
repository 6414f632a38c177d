//! The engine's options: what `uci` announces and what `setoption` sets.

use std::sync::Arc;

use super::{command::parse_number, quote, State};
use crate::analysis::engine::tt::{TranspositionTable, DEFAULT_MB};

const NAME: &str = concat!("boardscan ", env!("CARGO_PKG_VERSION"));
const MAX_HASH_MB: usize = 4096;
const MAX_THREADS: usize = 64;
const MAX_MULTIPV: usize = 256;

/// The options `setoption` sets, as each search reads them.
#[derive(Clone, Copy)]
pub(super) struct Options {
    pub(super) threads: usize,
    pub(super) multipv: usize,
    pub(super) show_wdl: bool,
    pub(super) chess960: bool,
    pub(super) nnue: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            multipv: 1,
            show_wdl: false,
            chess960: false,
            nnue: true,
        }
    }
}

/// The answer to `uci`: id, options and `uciok`, one per line.
pub fn uci_banner() -> String {
    [
        format!("id name {NAME}"),
        "id author the boardscan developers".to_owned(),
        format!("option name Hash type spin default {DEFAULT_MB} min 1 max {MAX_HASH_MB}"),
        "option name Clear Hash type button".to_owned(),
        format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
        format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
        "option name UCI_ShowWDL type check default false".to_owned(),
        "option name UCI_Chess960 type check default false".to_owned(),
        "option name Use NNUE type check default true".to_owned(),
        "uciok".to_owned(),
    ]
    .join("\n")
}

/// Applies `setoption name N [value V]`; returns a message for bad input.
pub(super) fn set_option(state: &mut State, args: &[&str]) -> Result<(), String> {
    const USAGE: &str = "setoption name <id> [value <x>]";
    let ["name", rest @ ..] = args else {
        return Err(format!("setoption without name; expected: {USAGE}"));
    };
    let (name_words, value) = match rest.iter().position(|&w| w == "value") {
        Some(at) => (&rest[..at], Some(rest[at + 1..].join(" "))),
        None => (rest, None),
    };
    let name = name_words.join(" ");
    if name.is_empty() {
        return Err(format!(
            "setoption without an option name; expected: {USAGE}"
        ));
    }
    let value = value.filter(|v| !v.is_empty());
    let missing = || format!("setoption {} needs a value", quote(&name));
    let bad = |v: &str| format!("bad {} value: {}", quote(&name), quote(v));
    let number = || -> Result<usize, String> {
        let v = value.as_deref().ok_or_else(missing)?;
        match parse_number(v) {
            Some(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => Err(bad(v)),
        }
    };
    let flag = || -> Result<bool, String> {
        let v = value.as_deref().ok_or_else(missing)?;
        if v.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if v.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(bad(v))
        }
    };
    match name.to_ascii_lowercase().as_str() {
        "hash" => {
            let mb = number()?.clamp(1, MAX_HASH_MB);
            state.tt = Arc::new(TranspositionTable::new(mb));
        }
        "clear hash" => state.tt.clear(),
        "threads" => state.options.threads = number()?.clamp(1, MAX_THREADS),
        "multipv" => state.options.multipv = number()?.clamp(1, MAX_MULTIPV),
        "uci_showwdl" => state.options.show_wdl = flag()?,
        "uci_chess960" => state.options.chess960 = flag()?,
        "use nnue" => state.options.nnue = flag()?,
        _ => return Err(format!("unknown option: {}", quote(&name))),
    }
    Ok(())
}
