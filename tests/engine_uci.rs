//! The UCI loop driven through in-memory and piped input.

use std::io::{self, BufReader, Cursor, Write};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use boardscan::analysis::engine::uci;

fn session(commands: &str) -> String {
    let mut out = Vec::new();
    uci::run(Cursor::new(commands.to_owned()), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn session_bytes(input: &[u8]) -> String {
    let mut out = Vec::new();
    uci::run(Cursor::new(input.to_vec()), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Hang guard for sessions that must end soon but would run for minutes
/// (or forever) if a job ignored `stop`/`quit`.
const HANG_GUARD: Duration = Duration::from_secs(20);

/// [`session`] on its own thread; fails after [`HANG_GUARD`].
fn session_guarded(commands: &str) -> String {
    let (tx, rx) = mpsc::channel();
    let owned = commands.to_owned();
    thread::spawn(move || tx.send(session(&owned)));
    rx.recv_timeout(HANG_GUARD)
        .unwrap_or_else(|e| panic!("session did not end ({e}): {commands:?}"))
}

fn bestmove(output: &str) -> &str {
    output
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a bestmove line")
        .split(' ')
        .next()
        .unwrap()
}

#[test]
fn handshake_and_options() {
    let out = session("uci\nisready\n");
    assert!(out.contains("id name boardscan"));
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "UCI_ShowWDL",
        "UCI_Chess960",
        "Use NNUE",
    ] {
        assert!(out.contains(&format!("option name {option} ")), "{option}");
    }
    assert!(out.contains("uciok") && out.contains("readyok"));
}

#[test]
fn go_depth_reports_info_and_bestmove() {
    let out = session(
        "setoption name UCI_ShowWDL value true\nposition startpos moves e2e4 e7e5\ngo depth 4\n",
    );
    assert!(out.contains("info depth 4 "));
    assert!(out.contains(" wdl "));
    assert!(out.contains(" pv "));
    assert_eq!(out.matches("bestmove").count(), 1);
}

/// The same fixed-depth search with the network and with the hand-written
/// evaluation visits different trees, and `eval` prints both evaluations.
#[test]
fn use_nnue_switches_the_evaluation() {
    let nodes = |setup: &str| {
        let out = session(&format!(
            "{setup}position startpos moves e2e4\ngo depth 6\n"
        ));
        let info = out
            .lines()
            .rfind(|l| l.starts_with("info depth 6 "))
            .unwrap()
            .to_owned();
        let words: Vec<&str> = info.split(' ').collect();
        let at = words.iter().position(|&w| w == "nodes").unwrap();
        words[at + 1].parse::<u64>().unwrap()
    };
    assert_ne!(nodes(""), nodes("setoption name Use NNUE value false\n"));
    let out = session("position fen 4k3/8/8/8/8/8/8/3QK3 w - - 0 1\neval\n");
    let words: Vec<&str> = out.split_whitespace().collect();
    let hand_written: i32 = words[4].parse().unwrap();
    let network: i32 = words[words.len() - 2].parse().unwrap();
    assert!(hand_written > 500 && network > 300, "{out}");
}

#[test]
fn mate_score_is_from_side_to_move() {
    let out = session("position fen 7k/8/6K1/8/8/8/8/R7 b - - 0 1\ngo depth 4\n");
    assert!(out.contains("score mate -1"), "{out}");
    assert_eq!(bestmove(&out), "h8g8");
}

#[test]
fn perft_prints_nodes_searched() {
    let out = session("position startpos\ngo perft 3\n");
    assert!(out.contains("Nodes searched: 8902"));
    let kiwipete = "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\ngo perft 2\n";
    let out = session(kiwipete);
    assert!(out.contains("Nodes searched: 2039"));
    assert!(out.contains("e1g1: "));
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let pos = "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\ngo perft 1\n";
    assert!(session(pos).contains("e1g1: 1"));
    let out = session(&format!("setoption name UCI_Chess960 value true\n{pos}"));
    assert!(out.contains("e1h1: 1"));
}

#[test]
fn repetition_from_move_history_is_a_draw() {
    // A rook down, White can only hold by walking back into a position
    // that already occurred in the game (after Kg1).
    let fen = "position fen 6k1/8/8/8/8/r7/8/7K w - - 0 1";
    let out = session(&format!("{fen}\ngo depth 3\n"));
    assert!(!out.contains("score cp 0 "), "{out}");
    let out = session(&format!("{fen} moves h1g1 a3a4 g1h1 a4a3\ngo depth 3\n"));
    assert!(out.contains("score cp 0 "), "{out}");
    assert_eq!(bestmove(&out), "h1g1");
}

/// A writer that records when "bestmove" first appears.
struct Watch {
    seen: Arc<Mutex<Option<Instant>>>,
}

impl Write for Watch {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if String::from_utf8_lossy(buf).contains("bestmove") {
            self.seen.lock().unwrap().get_or_insert_with(Instant::now);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn stop_answers_quickly() {
    let (reader, mut writer) = io::pipe().unwrap();
    let seen = Arc::new(Mutex::new(None));
    let watch = Watch { seen: seen.clone() };
    let engine = thread::spawn(move || uci::run(BufReader::new(reader), watch));
    writeln!(writer, "position startpos\ngo infinite").unwrap();
    thread::sleep(Duration::from_millis(300));
    assert!(
        seen.lock().unwrap().is_none(),
        "infinite search ended early"
    );
    let sent = Instant::now();
    writeln!(writer, "stop").unwrap();
    while seen.lock().unwrap().is_none() && sent.elapsed() < Duration::from_secs(2) {
        thread::sleep(Duration::from_millis(1));
    }
    let answered = seen.lock().unwrap().expect("bestmove after stop");
    let latency = answered.duration_since(sent);
    eprintln!("stop answered in {latency:?}");
    assert!(latency < Duration::from_millis(50), "{latency:?}");
    writeln!(writer, "quit").unwrap();
    engine.join().unwrap().unwrap();
}

#[test]
fn go_parameters_are_parsed() {
    let out = session("position startpos\ngo nodes 3000\n");
    assert!(out.contains("bestmove"));
    let out = session(
        "position startpos moves e2e4\ngo wtime 1000 btime 1000 winc 10 binc 10 movestogo 5\n",
    );
    assert!(out.contains("bestmove"));
    let out = session("position startpos\ngo movetime 50\n");
    assert!(out.contains("bestmove"));
    assert!(session("position startpos\ngo perft 0\n").contains("Nodes searched: 1"));
}

/// `searchmoves` keeps the search to the listed root moves (Ra8# is left
/// out here), MultiPV cannot report more lines than it lists, and the words
/// after the moves are read as `go` parameters again.
#[test]
fn searchmoves_restricts_the_root() {
    let position = "position fen 7k/8/6K1/8/8/8/8/R7 w - - 0 1\n";
    let out = session(&format!("{position}go depth 3\n"));
    assert_eq!(bestmove(&out), "a1a8");
    let out = session(&format!(
        "setoption name MultiPV value 3\n{position}go searchmoves g6f6 g6h6 depth 3\n"
    ));
    assert!(["g6f6", "g6h6"].contains(&bestmove(&out)), "{out}");
    assert!(
        out.contains("info depth 3 ") && out.contains(" multipv 2 "),
        "{out}"
    );
    assert!(
        !out.contains(" multipv 3 ") && !out.contains("info depth 4 "),
        "{out}"
    );
}

/// A writer whose output another thread can read while the engine runs.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// Waits until the output contains `needle`; fails after the hang guard.
    fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if text.contains(needle) {
                return text;
            }
            assert!(start.elapsed() < HANG_GUARD, "no {needle:?} in {text:?}");
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Truncated and garbled `setoption` lines are each answered with one
/// `info string`, and the options and commands after them still work.
#[test]
fn garbled_setoption_is_reported_and_ignored() {
    let bad = [
        "setoption",
        "setoption name",
        "setoption value 1",
        "setoption value 1 name",
        "setoption name value 1",
        "setoption name Hash",
        "setoption name Hash value",
        "setoption name Hash value abc",
        "setoption name Hash value -3",
        "setoption name Threads value 2 3",
        "setoption name UCI_ShowWDL value maybe",
        "setoption name No Such Option value 1",
    ];
    let out = session(&format!(
        "{}\nsetoption name MultiPV value 2\nposition startpos\ngo depth 2\nisready\n",
        bad.join("\n")
    ));
    let reports: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string "))
        .collect();
    assert_eq!(reports.len(), bad.len(), "{out}");
    assert!(reports[5].contains("Hash needs a value"), "{out}");
    assert!(reports[7].contains("bad Hash value: abc"), "{out}");
    assert!(
        out.contains(" multipv 2 ") && out.contains("readyok"),
        "{out}"
    );
    assert_ne!(bestmove(&out), "0000");
}

/// A line that is not UTF-8 is reported and read with U+FFFD in place of
/// the bad bytes (so the `position` with one is rejected), and the loop
/// goes on with the next lines.
#[test]
fn non_utf8_lines_do_not_end_the_loop() {
    let out = session_bytes(
        b"isready\n\xff\xfe\n\
          position startpos moves e2e4\xe9\ngo depth 1\n\
          position startpos moves e2e4\nd\nisready\n",
    );
    assert_eq!(out.matches("not valid UTF-8").count(), 2, "{out}");
    assert!(
        out.contains("info string unknown command: \u{FFFD}\u{FFFD}"),
        "{out}"
    );
    assert_eq!(bestmove(&out), "0000", "{out}");
    assert!(
        out.contains("info string fen rnbqkbnr/pppppppp/8/8/4P3/"),
        "{out}"
    );
    assert_eq!(out.matches("readyok").count(), 2, "{out}");
}

/// A gigantic line is skipped with a short report (not echoed back), a
/// `position` line cut that way leaves no valid position, and a `position`
/// with thousands of moves is still read.
#[test]
fn huge_lines_are_refused_but_long_move_lists_work() {
    let mut input = vec![b'x'; 3 << 20];
    input.extend_from_slice(b"\nisready\nposition startpos moves ");
    input.extend("g1f3 ".repeat(300_000).bytes());
    input.extend_from_slice(b"\ngo depth 1\n");
    let out = session_bytes(&input);
    assert!(out.len() < 2_000, "{} bytes of output", out.len());
    assert_eq!(out.matches("longer than").count(), 2, "{out}");
    assert!(
        out.contains("readyok") && out.contains("no valid position"),
        "{out}"
    );
    assert_eq!(bestmove(&out), "0000", "{out}");

    let moves = "g1f3 g8f6 f3g1 f6g8 ".repeat(1_000);
    let out = session(&format!("position startpos moves {moves}\nd\ngo depth 1\n"));
    assert!(
        out.contains(
            "info string fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 100 2001"
        ),
        "{out}"
    );
    assert_ne!(bestmove(&out), "0000");
}

/// `go perft` and `bench` run on the job thread: `stop` and `quit` end
/// them (printing `info string ... stopped` and no totals), and a
/// `readyok` after the `stop` comes after the job ended.
#[test]
fn perft_and_bench_obey_stop_and_quit() {
    let out = session_guarded("position startpos\ngo perft 7\nstop\nisready\n");
    assert!(
        out.ends_with("info string perft stopped\nreadyok\n"),
        "{out}"
    );
    assert!(!out.contains("Nodes searched"), "{out}");
    let out = session_guarded("position startpos\ngo perft 7\nquit\n");
    assert_eq!(out, "info string perft stopped\n");
    // The deepest perft accepted goes that deep at once: no stack overflow.
    let out = session_guarded("position startpos\ngo perft 20\nstop\nisready\n");
    assert_eq!(out, "info string perft stopped\nreadyok\n");
    let out = session_guarded("bench\nquit\n");
    assert_eq!(out, "info string bench stopped\n");
    let out = session_guarded("bench 16\nposition startpos\ngo perft 2\n");
    assert!(out.starts_with("info string bench stopped\n"), "{out}");
    assert!(out.contains("Nodes searched: 400"), "{out}");
}

/// While a long perft runs, `isready` is answered at once, and `stop`
/// ends it.
#[test]
fn isready_is_answered_during_perft() {
    let (reader, mut writer) = io::pipe().unwrap();
    let out = Shared::default();
    let engine = {
        let out = out.clone();
        thread::spawn(move || uci::run(BufReader::new(reader), out))
    };
    writeln!(writer, "position startpos\ngo perft 8\nisready").unwrap();
    let text = out.wait_for("readyok");
    assert!(!text.contains("Nodes searched"), "{text}");
    writeln!(writer, "stop").unwrap();
    out.wait_for("info string perft stopped");
    writeln!(writer, "quit").unwrap();
    engine.join().unwrap().unwrap();
    assert!(!out.text().contains("Nodes searched"));
}

/// After a rejected `position` the engine has no position: it searches
/// nothing, answers a search `go` with `bestmove 0000` and `go perft`,
/// `eval` and `d` with an `info string`, until a valid `position` comes.
#[test]
fn a_rejected_position_is_never_searched() {
    for bad in [
        "position",
        "position fen",
        "position fen moves e2e4",
        "position fen 8/8/8/8 w - - 0 1",
        "position fen not a fen at all",
        "position startpos e2e4",
        "position startpos moves e2e5",
        "position startpos moves e2e4 e2e4",
        "position startpos moves e2e4 zz",
        "position startpos moves e2e4x",
        "position startpos moves e7e8qq",
        "position moves e2e4",
        "position something",
    ] {
        let out = session(&format!(
            "position startpos moves e2e4\n{bad}\ngo depth 2\ngo perft 1\neval\nd\n\
             position startpos moves d2d4\ngo perft 1\n"
        ));
        assert_eq!(bestmove(&out), "0000", "{bad}: {out}");
        assert_eq!(out.matches("bestmove").count(), 1, "{bad}: {out}");
        assert!(!out.contains("info depth"), "{bad}: {out}");
        assert_eq!(out.matches("no valid position").count(), 5, "{bad}: {out}");
        assert_eq!(out.matches("Nodes searched").count(), 1, "{bad}: {out}");
        assert!(out.contains("Nodes searched: 20"), "{bad}: {out}");
    }
}

/// An impossible position (kings side by side) must not take the engine
/// down: whether the FEN is rejected or the search fails on it, the GUI
/// gets an `info string` and `bestmove 0000`, and the next game works.
#[test]
fn an_impossible_position_does_not_kill_the_engine() {
    let out = session_guarded(
        "position fen 8/8/8/3kK3/8/8/8/8 w - - 0 1\ngo depth 3\nisready\n\
         position startpos\ngo depth 2\n",
    );
    let bestmoves: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect();
    assert_eq!(bestmoves.len(), 2, "{out}");
    assert_eq!(bestmoves[0], "0000", "{out}");
    assert_ne!(bestmoves[1], "0000", "{out}");
    assert!(out.contains("info string "), "{out}");
    assert!(out.contains("readyok"), "{out}");
}

/// Garbled `go` parameters are reported and read as 0 (a quick search),
/// never a panic; bad `go perft` depths are refused.
#[test]
fn garbled_go_parameters_are_reported() {
    let out = session_guarded(
        "position startpos\ngo depth abc\ngo movetime -5\ngo wtime\ngo wtime btime 100\n\
         go nodes 99999999999999999999999 depth 1\ngo sideways depth 1\n\
         go perft\ngo perft x\ngo perft 99\nisready\n",
    );
    assert_eq!(out.matches("bestmove").count(), 6, "{out}");
    assert!(!out.contains("bestmove 0000"), "{out}");
    for report in [
        "info string go: bad depth value: abc",
        "info string go: wtime needs a number",
        "info string go: unknown parameter sideways",
        "info string go perft needs a depth",
        "info string bad perft depth (0 to 20): x",
        "info string bad perft depth (0 to 20): 99",
    ] {
        assert!(out.contains(report), "{report}: {out}");
    }
    assert!(!out.contains("Nodes searched") && out.contains("readyok"));
}

/// `go infinite` keeps its `bestmove` until `stop`, even when the search
/// itself has nothing left to do (a mate in one is found at once).
#[test]
fn go_infinite_waits_for_stop_even_when_done() {
    let (reader, mut writer) = io::pipe().unwrap();
    let out = Shared::default();
    let engine = {
        let out = out.clone();
        thread::spawn(move || uci::run(BufReader::new(reader), out))
    };
    writeln!(
        writer,
        "position fen 7k/8/6K1/8/8/8/8/R7 w - - 0 1\ngo infinite"
    )
    .unwrap();
    out.wait_for("score mate 1");
    thread::sleep(Duration::from_millis(500));
    writeln!(writer, "isready").unwrap();
    let text = out.wait_for("readyok");
    assert!(!text.contains("bestmove"), "{text}");
    writeln!(writer, "stop").unwrap();
    out.wait_for("bestmove a1a8");
    drop(writer);
    engine.join().unwrap().unwrap();
}
