//! Reading the commands' words: input lines, `position`, `go` and numbers.

use std::{
    io::{self, BufRead},
    time::Duration,
};

use cozy_chess::{Board, Color, Move};

use super::{options::Options, quote, State, MAX_LINE};
use crate::{
    analysis::engine::time::{Clock, SearchLimits, MAX_DEPTH},
    notation::{fen::parse_fen, uci::parse_uci_move},
};

/// Deepest `go perft` accepted (anything near it would run for ages anyway).
const MAX_PERFT_DEPTH: u32 = 20;

/// Reads one line into `buf` without its newline, keeping at most
/// [`MAX_LINE`] bytes of it. Returns `None` at the end of input, else
/// whether the line was longer (the rest of it is skipped).
pub(super) fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<bool>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let end = newline.unwrap_or(available.len());
        if !too_long {
            let room = MAX_LINE - buf.len();
            too_long = end > room;
            buf.extend_from_slice(&available[..end.min(room)]);
        }
        let used = newline.map_or(end, |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(Some(too_long));
        }
    }
}

/// Reads `position [startpos | fen F] [moves ...]` into a board and the
/// keys of the positions before it.
pub(super) fn set_position(state: &State, args: &[&str]) -> Result<(Board, Vec<u64>), String> {
    let moves_at = args
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(args.len());
    let (setup, moves) = args.split_at(moves_at);
    let moves = moves.get(1..).unwrap_or_default();
    let mut board = match setup {
        ["startpos"] => Board::default(),
        ["startpos", extra, ..] => {
            return Err(format!(
                "position startpos followed by {} instead of moves",
                quote(extra)
            ))
        }
        ["fen", fen @ ..] => {
            let text = fen.join(" ");
            parse_fen(&text).map_err(|e| format!("bad FEN ({e}): {}", quote(&text)))?
        }
        _ => return Err("position needs startpos or fen".to_owned()),
    };
    let mut game = Vec::with_capacity(moves.len());
    for text in moves {
        let mv = read_move(&board, text, state.options.chess960)
            .map_err(|e| format!("bad move in position ({e}): {}", quote(text)))?;
        game.push(board.hash());
        board.play_unchecked(mv);
    }
    Ok((board, game))
}

/// A legal move in UCI notation, or why not.
fn read_move(board: &Board, text: &str, chess960: bool) -> Result<Move, String> {
    parse_uci_move(board, text, chess960).map_err(|e| format!("{e}"))
}

/// The depth of `go perft N`, or a message.
pub(super) fn perft_depth(args: &[&str]) -> Result<u32, String> {
    let Some(text) = args.get(1) else {
        return Err("go perft needs a depth".to_owned());
    };
    match text.parse::<u32>() {
        Ok(depth) if depth <= MAX_PERFT_DEPTH => Ok(depth),
        _ => Err(format!(
            "bad perft depth (0 to {MAX_PERFT_DEPTH}): {}",
            quote(text)
        )),
    }
}

/// A number as a GUI may write it: too large ones saturate.
pub(super) fn parse_number(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let (digits, saturated) = match text.strip_prefix('-') {
        Some(digits) => (digits, i64::MIN),
        None => (text.strip_prefix('+').unwrap_or(text), i64::MAX),
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(saturated)
}

/// Resolves a `go` command into search limits for the side to move, with
/// a message for each part of it that could not be read.
pub(super) fn parse_go(
    args: &[&str],
    board: &Board,
    options: Options,
) -> (SearchLimits, Vec<String>) {
    const NUMERIC: [&str; 9] = [
        "depth",
        "nodes",
        "movetime",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "mate",
    ];
    let mut limits = SearchLimits {
        multipv: options.multipv,
        threads: options.threads,
        nnue: options.nnue,
        ..SearchLimits::default()
    };
    let mut warnings = Vec::new();
    let (mut white, mut black) = (Clock::default(), Clock::default());
    let mut clock_given = false;
    let mut words = args.iter().peekable();
    while let Some(&word) = words.next() {
        if matches!(word, "infinite" | "ponder") {
            limits.infinite = true;
            continue;
        }
        // The moves run up to the first word that is not a legal move.
        if word == "searchmoves" {
            while let Some(mv) = words
                .peek()
                .and_then(|text| read_move(board, text, options.chess960).ok())
            {
                limits.search_moves.push(mv);
                words.next();
            }
            continue;
        }
        if !NUMERIC.contains(&word) {
            warnings.push(format!("go: unknown parameter {}", quote(word)));
            continue;
        }
        // Every other parameter takes a number; a missing or unreadable one
        // reads as 0.
        let value = match words.peek() {
            None => None,
            Some(next)
                if NUMERIC.contains(next)
                    || matches!(**next, "infinite" | "ponder" | "searchmoves") =>
            {
                None
            }
            Some(_) => words.next().copied(),
        };
        let value = match value {
            None => {
                warnings.push(format!("go: {word} needs a number"));
                0
            }
            Some(text) => parse_number(text).unwrap_or_else(|| {
                warnings.push(format!("go: bad {word} value: {}", quote(text)));
                0
            }),
        };
        let ms = Duration::from_millis(value.max(0) as u64);
        match word {
            "depth" => limits.depth = value.clamp(1, i64::from(MAX_DEPTH)) as u32,
            "nodes" => limits.nodes = Some(value.max(1) as u64),
            "movetime" => limits.hard = Some(ms),
            "wtime" => (white.time, clock_given) = (ms, true),
            "btime" => (black.time, clock_given) = (ms, true),
            "winc" => white.inc = ms,
            "binc" => black.inc = ms,
            "movestogo" => {
                let mtg = Some(value.clamp(1, i64::from(u32::MAX)) as u32);
                (white.movestogo, black.movestogo) = (mtg, mtg);
            }
            // Read again by `mate_moves_asked`.
            "mate" => {}
            _ => warnings.push(format!("go {word} is not supported; ignored")),
        }
    }
    if clock_given && limits.hard.is_none() && !limits.infinite {
        let clock = if board.side_to_move() == Color::White {
            white
        } else {
            black
        };
        let (soft, hard) = clock.budget();
        limits.soft = Some(soft);
        limits.hard = Some(hard);
    }
    (limits, warnings)
}

/// The number after `mate` in a `go` command, if there is one (0 when it
/// is missing or unreadable, as [`parse_go`] reports).
pub(super) fn mate_moves_asked(args: &[&str]) -> Option<i64> {
    let at = args.iter().position(|&w| w == "mate")?;
    Some(args.get(at + 1).and_then(|t| parse_number(t)).unwrap_or(0))
}
