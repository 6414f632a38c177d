//! Measuring the reading of recordings against games with known moves
//! (`boardscan eval-recordings DIR`): a folder of recordings and its
//! `labels.csv`, as `training/make_recordings.py` makes them.
//!
//! `labels.csv` has the header `file,start_fen,moves,kind,theme,set,view,seconds`;
//! `moves` are the main line's UCI moves, space-separated. A game counts as
//! read when the recording gives one game, from the labelled start, with
//! exactly the labelled moves.

use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use super::{read_recording, RecordingInput};
use crate::{
    games::summary::GameSummary,
    recognize::Recognizer,
    source::recording::{RecordingKind, RecordingLimits},
};

/// One labelled recording.
struct Label {
    file: String,
    start_fen: String,
    moves: Vec<String>,
    kind: String,
}

/// Reads `labels.csv`: its header names the columns, in any order.
fn read_labels(path: &Path) -> Result<Vec<Label>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("{} is empty", path.display()))?
        .split(',')
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| format!("{} has no column {name:?}", path.display()))
    };
    let (file, fen, moves, kind) = (
        column("file")?,
        column("start_fen")?,
        column("moves")?,
        column("kind")?,
    );
    lines
        .enumerate()
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let field = |c: usize| {
                fields
                    .get(c)
                    .map(|f| f.trim().to_owned())
                    .ok_or_else(|| format!("{} line {}: too few fields", path.display(), i + 2))
            };
            Ok(Label {
                file: field(file)?,
                start_fen: field(fen)?,
                moves: field(moves)?
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect(),
                kind: field(kind)?,
            })
        })
        .collect()
}

/// Whether two FENs name the same position: the move counters, which no
/// picture shows, aside.
fn same_position(a: &str, b: &str) -> bool {
    let fields = |fen: &str| fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    fields(a) == fields(b)
}

/// The figures of one kind of recording.
#[derive(Default)]
struct Tally {
    games: usize,
    exact: usize,
    plies: usize,
    /// Plies read right from the start, before the first difference.
    plies_right: usize,
    recording: Duration,
    reading: Duration,
}

/// What reading a labelled folder of recordings gave.
pub struct RecordingEval {
    by_kind: BTreeMap<String, Tally>,
    /// Each recording not read exactly, and how it went wrong.
    pub failures: Vec<String>,
}

/// Reads every recording of `labels` (a `labels.csv`; the files lie beside it).
pub fn eval_recordings(labels: &Path, recognizer: &Recognizer) -> Result<RecordingEval, String> {
    let dir = labels.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut eval = RecordingEval {
        by_kind: BTreeMap::new(),
        failures: Vec::new(),
    };
    for label in read_labels(labels)? {
        let path = dir.join(&label.file);
        let bytes = std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let input = match RecordingKind::of(&bytes) {
            Some(RecordingKind::Gif) => RecordingInput::Gif(bytes),
            Some(RecordingKind::Video) => RecordingInput::Video(&path),
            None => return Err(format!("{} is not a recording", path.display())),
        };
        let started = Instant::now();
        let read = read_recording(input, recognizer, RecordingLimits::default(), |_| {});
        let tally = eval.by_kind.entry(label.kind.clone()).or_default();
        tally.reading += started.elapsed();
        tally.games += 1;
        tally.plies += label.moves.len();
        let recording = match read {
            Ok(recording) => recording,
            Err(e) => {
                eval.failures.push(format!("{}: {e}", label.file));
                continue;
            }
        };
        tally.recording += recording.duration;
        let games: Vec<GameSummary> = recording.games.iter().map(GameSummary::of).collect();
        let read_moves: Vec<&String> = games.iter().flat_map(|g| &g.uci).collect();
        let right = label
            .moves
            .iter()
            .zip(&read_moves)
            .take_while(|(a, b)| a == *b)
            .count();
        let same_start = games
            .first()
            .is_some_and(|g| same_position(&g.start_fen, &label.start_fen));
        tally.plies_right += if same_start { right } else { 0 };
        if games.len() == 1 && same_start && right == label.moves.len() && read_moves.len() == right
        {
            tally.exact += 1;
        } else {
            let first_wrong = read_moves.get(right).map_or("nothing", |m| m.as_str());
            let expected = label.moves.get(right).map_or("the end", |m| m.as_str());
            eval.failures.push(format!(
                "{}: {} game(s), start {}, {right}/{} plies right, then {first_wrong} for {expected}",
                label.file,
                games.len(),
                match games.first() {
                    Some(_) if same_start => "right".to_owned(),
                    Some(g) => format!("{} for {}", g.start_fen, label.start_fen),
                    None => "none".to_owned(),
                },
                label.moves.len(),
            ));
        }
    }
    Ok(eval)
}

impl fmt::Display for RecordingEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<6} {:>6} {:>14} {:>16} {:>12} {:>22}",
            "kind", "games", "exact", "plies right", "recording", "reading / min of it"
        )?;
        let mut all = Tally::default();
        for (kind, t) in &self.by_kind {
            write_row(f, kind, t)?;
            all.games += t.games;
            all.exact += t.exact;
            all.plies += t.plies;
            all.plies_right += t.plies_right;
            all.recording += t.recording;
            all.reading += t.reading;
        }
        write_row(f, "all", &all)
    }
}

fn write_row(f: &mut fmt::Formatter<'_>, kind: &str, t: &Tally) -> fmt::Result {
    let percent = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let minutes = t.recording.as_secs_f64() / 60.0;
    writeln!(
        f,
        "{kind:<6} {:>6} {:>6} ({:>5.1}%) {:>7} ({:>5.1}%) {:>9.1} min {:>18.1} s",
        t.games,
        t.exact,
        percent(t.exact, t.games),
        t.plies_right,
        percent(t.plies_right, t.plies),
        minutes,
        t.reading.as_secs_f64() / minutes.max(1e-9),
    )
}
