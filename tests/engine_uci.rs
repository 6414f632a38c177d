//! The UCI loop driven through in-memory and piped input.

use std::io::{self, BufReader, Cursor, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use boardscan::engine::uci;

fn session(commands: &str) -> String {
    let mut out = Vec::new();
    uci::run(Cursor::new(commands.to_owned()), &mut out).unwrap();
    String::from_utf8(out).unwrap()
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
