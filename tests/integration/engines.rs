//! Several engines, live analysis and play, against the real Stockfish of
//! Debian (`/usr/games/stockfish`) and our engine.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::util::{boardscan, boardscan_within, describe, exchange, Server};

const STOCKFISH: &str = "/usr/games/stockfish";
const ITALIAN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3";

fn stockfish_flag() -> String {
    format!("stockfish={STOCKFISH}")
}

fn post(server: &Server, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
    let reply = exchange(
        server.port,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
    .expect("request");
    (reply.status, reply.json())
}

/// An open SSE stream: the connection, read line by line.
struct Stream {
    reader: BufReader<TcpStream>,
    pub status: u16,
}

impl Stream {
    fn open(port: u16, query: &str) -> Stream {
        let mut socket = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        socket
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            socket,
            "GET /api/v1/analyze/stream?{query} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut reader = BufReader::new(socket);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).unwrap();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {status_line:?}"));
        Stream { reader, status }
    }

    /// The next event (name and JSON data), `None` at the end of the stream.
    /// Chunk sizes of the chunked encoding and comments are skipped.
    fn next_event(&mut self) -> Option<(String, serde_json::Value)> {
        let mut name = None;
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if let Some(n) = line.strip_prefix("event: ") {
                name = Some(n.to_owned());
            } else if let Some(data) = line.strip_prefix("data: ") {
                let value = serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}"));
                return Some((name.take().expect("event before data"), value));
            }
        }
    }

    /// Every event up to and including `done` or `error`.
    fn until_end(&mut self) -> Vec<(String, serde_json::Value)> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event() {
            let last = event.0 == "done" || event.0 == "error";
            events.push(event);
            if last {
                break;
            }
        }
        events
    }
}

/// A child process of `parent`: pid, command name, state letter, CPU ticks.
#[derive(Debug)]
struct Child {
    pid: u32,
    comm: String,
    state: char,
    ticks: u64,
}

fn children(parent: u32) -> Vec<Child> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ... utime(14) stime(15)
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let comm = head.split_once(" (").map_or("", |(_, c)| c).to_owned();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) != Some(parent) {
            continue;
        }
        let tick = |i: usize| fields[i].parse::<u64>().unwrap_or(0);
        found.push(Child {
            pid,
            comm,
            state: fields[0].chars().next().unwrap_or('?'),
            ticks: tick(11) + tick(12),
        });
    }
    found
}

/// CPU ticks `pid` uses over `window`.
fn ticks_over(server: &Server, pid: u32, window: Duration) -> u64 {
    let ticks = |children: Vec<Child>| children.iter().find(|c| c.pid == pid).map(|c| c.ticks);
    let before = ticks(children(server.pid())).expect("child alive");
    std::thread::sleep(window);
    ticks(children(server.pid())).expect("child alive") - before
}

#[test]
fn engines_are_listed_and_analyse_through_the_api() {
    if super::util::stockfish("engines_are_listed_and_analyse_through_the_api").is_none() {
        return;
    }
    let server = Server::start(&["--engine", &stockfish_flag()]);
    let (status, body) = server.request("GET", "/api/v1/engines", &[], b"").unwrap();
    assert_eq!(status, 200, "{body}");
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let engines = list["engines"].as_array().unwrap();
    assert_eq!(engines[0]["name"], "boardscan");
    assert_eq!(engines[0]["default"], true);
    assert_eq!(engines[1]["name"], "stockfish");
    assert_eq!(engines[1]["id"], "Stockfish 15.1", "{body}");
    let elo = engines[1]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "UCI_Elo")
        .expect("UCI_Elo listed");
    assert_eq!(
        (elo["type"].as_str(), elo["min"].as_i64()),
        (Some("spin"), Some(1350))
    );

    let (status, analysis) = post(
        &server,
        "/api/v1/analyze",
        serde_json::json!({"fen": ITALIAN, "engine": "stockfish", "depth": 10, "multiPv": 2}),
    );
    assert_eq!(status, 200, "{analysis}");
    assert_eq!(analysis["depth"], 10, "{analysis}");
    let pvs = analysis["pvs"].as_array().unwrap();
    assert_eq!(pvs.len(), 2, "{analysis}");
    // Black to move in an even opening: a small score from White's view,
    // legal SAN for every move of the line.
    let cp = pvs[0]["cp"].as_i64().expect("a centipawn score");
    assert!(cp.abs() < 150, "{analysis}");
    let moves = pvs[0]["moves"].as_str().unwrap().split(' ').count();
    assert_eq!(pvs[0]["san"].as_array().unwrap().len(), moves);
    assert!(analysis["bestMove"]["san"].as_str().is_some());
    let wdl: u64 = pvs[0]["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(wdl, 1000);

    let (status, error) = post(
        &server,
        "/api/v1/analyze",
        serde_json::json!({"fen": ITALIAN, "engine": "komodo"}),
    );
    assert_eq!(
        (status, error["code"].as_str()),
        (400, Some("unknown-engine")),
        "{error}"
    );
    let stream = Stream::open(
        server.port,
        "fen=8/8/8/8/8/8/8/K1k5%20w%20-%20-%200%201&engine=komodo",
    );
    assert_eq!(stream.status, 400);

    let openapi: serde_json::Value =
        serde_json::from_str(&server.request("GET", "/openapi.json", &[], b"").unwrap().1).unwrap();
    for (path, method) in [
        ("/api/v1/engines", "get"),
        ("/api/v1/analyze/stream", "get"),
        ("/api/v1/play", "post"),
    ] {
        assert!(
            openapi["paths"][path][method].is_object(),
            "{method} {path} missing from /openapi.json"
        );
    }
    for schema in ["EngineInfo", "PlayRequest", "PlayResponse"] {
        assert!(
            openapi["components"]["schemas"][schema].is_object(),
            "{schema} missing"
        );
    }
}

#[test]
fn streams_send_each_depth_then_done() {
    if super::util::stockfish("streams_send_each_depth_then_done").is_none() {
        return;
    }
    let server = Server::start(&["--engine", &stockfish_flag()]);
    let fen = ITALIAN.replace(' ', "%20").replace('/', "%2F");
    for (engine, depth) in [("stockfish", 9), ("boardscan", 6)] {
        let mut stream = Stream::open(
            server.port,
            &format!("fen={fen}&engine={engine}&depth={depth}&multiPv=2&movetimeMs=5000"),
        );
        assert_eq!(stream.status, 200, "{engine}");
        let events = stream.until_end();
        let ((first, limits), events) = events.split_first().expect("events");
        assert_eq!(first, "limits", "{engine}: {events:?}");
        assert_eq!(
            (
                &limits["depth"],
                &limits["movetimeMs"],
                &limits["multiPv"],
                &limits["infinite"]
            ),
            (&depth.into(), &5000.into(), &2.into(), &false.into()),
            "{engine}: {limits}"
        );
        let (last, depths) = events.split_last().expect("events");
        assert_eq!(last.0, "done", "{engine}: {events:?}");
        assert_eq!(last.1["depth"], depth, "{engine}");
        let seen: Vec<u64> = depths
            .iter()
            .map(|(name, data)| {
                assert_eq!(name, "depth");
                assert_eq!(data["pvs"].as_array().unwrap().len(), 2, "{engine}: {data}");
                data["depth"].as_u64().unwrap()
            })
            .collect();
        assert_eq!(seen, (1..=depth).collect::<Vec<_>>(), "{engine}");
    }
}

/// Opens a long stream, waits for its first depth, drops the connection and
/// returns how long until a new analysis was admitted on a one-worker server.
fn disconnect_then_admit(server: &Server, engine: &str) -> Duration {
    let fen = ITALIAN.replace(' ', "%20").replace('/', "%2F");
    let mut stream = Stream::open(
        server.port,
        &format!("fen={fen}&engine={engine}&infinite=true"),
    );
    assert_eq!(stream.status, 200);
    let (name, limits) = stream.next_event().expect("the limits");
    assert_eq!(
        (name.as_str(), &limits["infinite"]),
        ("limits", &true.into()),
        "{limits}"
    );
    let (name, _) = stream.next_event().expect("a first depth");
    assert_eq!(name, "depth");
    // The only job slot is taken while the stream runs.
    let (status, busy) = post(
        server,
        "/api/v1/analyze",
        serde_json::json!({"fen": ITALIAN, "engine": engine, "depth": 2}),
    );
    assert_eq!(
        (status, busy["code"].as_str()),
        (503, Some("busy")),
        "{busy}"
    );
    drop(stream);
    let left = Instant::now();
    loop {
        let (status, body) = post(
            server,
            "/api/v1/analyze",
            serde_json::json!({"fen": ITALIAN, "engine": engine, "depth": 2}),
        );
        if status == 200 {
            return left.elapsed();
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            left.elapsed() < Duration::from_secs(10),
            "the worker was not freed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_infinite_stream_outlasts_the_movetime_cap_and_ends_at_the_live_cap() {
    let server = Server::start(&["--max-movetime-ms", "500", "--max-live-seconds", "3"]);
    let fen = ITALIAN.replace(' ', "%20").replace('/', "%2F");
    let started = Instant::now();
    let mut stream = Stream::open(
        server.port,
        &format!("fen={fen}&infinite=true&movetimeMs=200"),
    );
    assert_eq!(stream.status, 200);
    let events = stream.until_end();
    let elapsed = started.elapsed();
    let (name, limits) = &events[0];
    assert_eq!(name, "limits");
    assert_eq!(
        (&limits["infinite"], &limits["movetimeMs"], &limits["depth"]),
        (&true.into(), &3000.into(), &100.into()),
        "{limits}"
    );
    let (name, done) = events.last().unwrap();
    assert_eq!(name, "done", "{events:?}");
    assert!(
        elapsed >= Duration::from_millis(2500) && elapsed < Duration::from_secs(30),
        "an infinite search ran {elapsed:?}, not until the 3 s live cap"
    );
    assert!(done["depth"].as_u64().unwrap() >= 5, "{done}");
}

#[test]
fn a_client_that_leaves_frees_the_worker_and_stops_the_search() {
    if super::util::stockfish("a_client_that_leaves_frees_the_worker_and_stops_the_search")
        .is_none()
    {
        return;
    }
    let server = Server::start(&[
        "--engine",
        &stockfish_flag(),
        "--cpu-workers",
        "1",
        "--max-jobs",
        "1",
        "--max-movetime-ms",
        "60000",
    ]);
    for engine in ["stockfish", "boardscan"] {
        let freed = disconnect_then_admit(&server, engine);
        eprintln!("{engine}: worker free {freed:?} after the disconnect");
        // The search stops at the next write after the disconnect: the
        // keep-alive comment each second, or the next depth.
        assert!(
            freed < Duration::from_secs(4),
            "{engine}: freed after {freed:?}"
        );
    }
    // One Stockfish process (the pool's size), idle: it uses no CPU.
    let kids = children(server.pid());
    assert_eq!(kids.len(), 1, "{kids:?}");
    assert_eq!(kids[0].comm, "stockfish");
    assert_eq!(
        ticks_over(&server, kids[0].pid, Duration::from_millis(500)),
        0
    );
}

/// An engine script: the UCI handshake, then on `go` it crashes, hangs or
/// floods garbage; once `marker` exists it runs the real Stockfish instead.
fn write_faulty_engine(dir: &Path) -> String {
    let path = dir.join("faulty-engine");
    std::fs::write(
        &path,
        format!(
            r#"#!/bin/sh
mode=$1 marker=$2
[ -e "$marker" ] && exec {STOCKFISH}
while read -r line; do
  case "$line" in
    uci) echo "id name faulty"; echo uciok ;;
    isready) echo readyok ;;
    go*)
      touch "$marker"
      case "$mode" in
        crash) exit 3 ;;
        hang) sleep 600 & echo $! >"$marker.sleep"; wait ;;
        garbage) while :; do echo "this is not UCI"; done ;;
      esac ;;
  esac
done
"#
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn a_failing_engine_gets_502_and_a_fresh_process_serves_the_next_request() {
    if super::util::stockfish(
        "a_failing_engine_gets_502_and_a_fresh_process_serves_the_next_request",
    )
    .is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = write_faulty_engine(dir.path());
    let entries: Vec<_> = ["crash", "hang", "garbage"]
        .iter()
        .map(|mode| {
            let marker = dir.path().join(format!("{mode}.ran")).display().to_string();
            serde_json::json!({"name": mode, "path": script, "args": [mode, marker], "processes": 1})
        })
        .collect();
    let config = dir.path().join("engines.json");
    std::fs::write(
        &config,
        serde_json::json!({ "engines": entries }).to_string(),
    )
    .unwrap();
    let server = Server::start(&["--engines-config", config.to_str().unwrap()]);
    for mode in ["crash", "hang", "garbage"] {
        let started = Instant::now();
        let (status, error) = post(
            &server,
            "/api/v1/analyze",
            serde_json::json!({"fen": ITALIAN, "engine": mode, "movetimeMs": 200}),
        );
        assert_eq!(
            (status, error["code"].as_str()),
            (502, Some("engine-failed")),
            "{mode}: {error}"
        );
        // Hung: the move time and the grace of 3 s, not longer.
        assert!(started.elapsed() < Duration::from_secs(8), "{mode}");
        let (status, analysis) = post(
            &server,
            "/api/v1/analyze",
            serde_json::json!({"fen": ITALIAN, "engine": mode, "depth": 6}),
        );
        assert_eq!(status, 200, "{mode}, the restarted process: {analysis}");
        assert_eq!(analysis["depth"], 6);
    }
    // The hung script's own child was killed with it.
    let sleeper = std::fs::read_to_string(dir.path().join("hang.ran.sleep")).unwrap();
    let proc_dir = format!("/proc/{}", sleeper.trim());
    let gone = Instant::now() + Duration::from_secs(2);
    while Path::new(&proc_dir).exists() && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !Path::new(&proc_dir).exists(),
        "the hung engine's child {sleeper} still runs"
    );
    // The failed processes were killed and reaped: one live process per
    // engine (each now the real Stockfish), no zombie.
    let kids = children(server.pid());
    assert_eq!(kids.len(), 3, "{kids:?}");
    assert!(
        kids.iter().all(|c| c.state != 'Z' && c.comm == "stockfish"),
        "{kids:?}"
    );
}

#[test]
fn a_path_that_is_not_an_engine_stops_serve_with_a_clear_message() {
    for path in ["/bin/true", "/bin/cat", "/nonexistent/stockfish"] {
        let flag = format!("bad={path}");
        let args = ["serve", "--bind", "127.0.0.1:0", "--engine", &flag];
        let output = boardscan_within(&args, Duration::from_secs(30));
        assert!(!output.status.success(), "{}", describe(&args, &output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{path} is not a UCI engine")),
            "{}",
            describe(&args, &output)
        );
    }
    let args = ["analyze", ITALIAN, "--engine", "nope"];
    let output = boardscan(&args);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("unknown engine \"nope\""),
        "{}",
        describe(&args, &output)
    );
}

#[test]
fn follow_prints_each_depth_from_the_cli() {
    if super::util::stockfish("follow_prints_each_depth_from_the_cli").is_none() {
        return;
    }
    let flag = stockfish_flag();
    for engine in ["stockfish", "boardscan"] {
        let args = [
            "analyze",
            ITALIAN,
            "--follow",
            "--depth",
            "7",
            "--engine",
            engine,
            "--engine-path",
            &flag,
        ];
        let output = boardscan_within(&args, Duration::from_secs(60));
        assert!(output.status.success(), "{}", describe(&args, &output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let depths: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("depth ") && l.contains(" pv "))
            .map(|l| l.split(' ').nth(1).unwrap())
            .collect();
        assert_eq!(depths, ["1", "2", "3", "4", "5", "6", "7"], "{stdout}");
        assert!(stdout.contains("best move "), "{stdout}");
    }
    let args = ["analyze", ITALIAN, "--follow", "--json", "--depth", "4"];
    let output = boardscan_within(&args, Duration::from_secs(60));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let depths: Vec<u64> = lines.iter().map(|l| l["depth"].as_u64().unwrap()).collect();
    assert_eq!(
        depths,
        [1, 2, 3, 4, 4],
        "one line per depth, then the final analysis"
    );
    // Each depth is written in the reader's notation, as the final answer is.
    let args = [
        "analyze", ITALIAN, "--follow", "--depth", "5", "--lang", "ru",
    ];
    let output = boardscan_within(&args, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = (stdout.lines())
        .filter_map(|l| {
            l.strip_prefix("depth ")?
                .split_once(" pv ")
                .map(|(_, pv)| pv)
        })
        .collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(
        lines
            .iter()
            .all(|pv| !pv.contains(['N', 'B', 'R', 'Q', 'K'])),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|pv| pv.contains(['К', 'С', 'Л', 'Ф'])),
        "{stdout}"
    );
}

#[test]
fn play_returns_legal_moves_and_levels_differ() {
    if super::util::stockfish("play_returns_legal_moves_and_levels_differ").is_none() {
        return;
    }
    let server = Server::start(&["--engine", &stockfish_flag()]);
    // White to move wins the unprotected knight on d5 (exd5 or Nxd5).
    let fen = "r1bqkb1r/pppp1ppp/2n5/3n4/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 5";
    let moves_at = |level: u8| -> Vec<String> {
        (0..12)
            .map(|seed| {
                let (status, played) = post(
                    &server,
                    "/api/v1/play",
                    serde_json::json!({"fen": fen, "level": level, "seed": seed, "movetimeMs": 300}),
                );
                assert_eq!(status, 200, "{played}");
                assert_eq!(played["level"], level);
                assert!(played["elo"].as_u64().is_some(), "{played}");
                let board: cozy_chess::Board = played["fenAfter"].as_str().unwrap().parse().unwrap();
                assert_eq!(board.side_to_move(), cozy_chess::Color::Black);
                played["move"]["uci"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    let strongest = moves_at(8);
    let wins = |m: &String| m == "e4d5" || m == "c3d5";
    assert!(strongest.iter().all(wins), "{strongest:?}");
    let weakest = moves_at(1);
    assert!(
        !weakest.iter().all(wins),
        "level 1 always found it: {weakest:?}"
    );

    for level in [1, 8] {
        let (status, played) = post(
            &server,
            "/api/v1/play",
            serde_json::json!({"fen": fen, "level": level, "engine": "stockfish", "movetimeMs": 200}),
        );
        assert_eq!(status, 200, "{played}");
        let elo = if level == 1 { 1350 } else { 2850 };
        assert_eq!(played["elo"], elo, "{played}");
    }
    let (status, mated) = post(
        &server,
        "/api/v1/play",
        serde_json::json!({"fen": "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"}),
    );
    assert_eq!(status, 200, "{mated}");
    assert_eq!(mated["move"]["san"], "Qh5#", "{mated}");
    assert_eq!(mated["gameOver"], "checkmate", "{mated}");
    assert_eq!(mated["level"], 8, "{mated}");
    for bad in [
        serde_json::json!({"fen": fen, "level": 9}),
        serde_json::json!({"fen": fen, "level": 2, "elo": 1500}),
        serde_json::json!({"fen": fen, "engine": "nope"}),
    ] {
        let (status, error) = post(&server, "/api/v1/play", bad.clone());
        assert_eq!(status, 400, "{bad}: {error}");
    }
}

#[test]
fn play_from_the_cli_plays_both_sides_and_stops_at_mate() {
    let args = [
        "play",
        ITALIAN,
        "--level",
        "2",
        "--plies",
        "4",
        "--movetime",
        "100",
        "--json",
    ];
    let output = boardscan_within(&args, Duration::from_secs(60));
    assert!(output.status.success(), "{}", describe(&args, &output));
    let moves: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(moves.len(), 4);
    let mut board: cozy_chess::Board = ITALIAN.parse().unwrap();
    for played in &moves {
        assert_eq!(played["level"], 2);
        let mv = played["move"]["uci"].as_str().unwrap();
        let legal = boardscan::notation::uci::parse_uci_move(&board, mv, false)
            .unwrap_or_else(|e| panic!("{mv} in {board}: {e}"));
        board.play(legal);
        assert_eq!(played["fenAfter"], board.to_string());
    }
    // White mates at once; the game is over after one move of the four.
    let fool = "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3";
    let args = ["play", fool, "--plies", "4", "--movetime", "100"];
    let output = boardscan_within(&args, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("Qh5# (d1h5) at level 8"), "{stdout}");
    assert!(
        stdout.trim_end().ends_with("game over: checkmate"),
        "{stdout}"
    );
}
