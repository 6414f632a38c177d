//! Notation in the reader's language, hints and grading, through the binary
//! and the HTTP server; grading is checked against a real Stockfish.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::Value;

use crate::util::{boardscan_within, describe, Server};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// White mates with Qxd8#; Qd7 puts the queen where the rook takes it.
const BACK_RANK: &str = "3r2k1/5ppp/8/8/8/8/3Q1PPP/6K1 w - - 0 1";
const LIMIT: Duration = Duration::from_secs(120);

/// Runs the binary; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = boardscan_within(args, LIMIT);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn run_json(args: &[&str]) -> Value {
    let output = boardscan_within(args, LIMIT);
    assert!(output.status.success(), "{}", describe(args, &output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", describe(args, &output)))
}

/// ICCF digits of a UCI move.
fn iccf(uci: &str) -> String {
    let b = uci.as_bytes();
    let mut out: String = b[..4]
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if i % 2 == 0 {
                (c - b'a' + b'1') as char
            } else {
                c as char
            }
        })
        .collect();
    if let Some(&p) = b.get(4) {
        out.push(match p {
            b'q' => '1',
            b'r' => '2',
            b'b' => '3',
            _ => '4',
        });
    }
    out
}

#[test]
fn cli_analyze_writes_moves_in_the_chosen_notation() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let body = run_json(&[
        "analyze",
        fen,
        "--depth",
        "3",
        "--notation",
        "iccf",
        "--multipv",
        "2",
        "--json",
    ]);
    let best = &body["bestMove"];
    assert_eq!(best["san"], iccf(best["uci"].as_str().unwrap()), "{body}");
    for pv in body["pvs"].as_array().unwrap() {
        let uci: Vec<&str> = pv["moves"].as_str().unwrap().split(' ').collect();
        let written: Vec<String> = uci.iter().map(|m| iccf(m)).collect();
        assert_eq!(pv["san"], serde_json::json!(written), "{body}");
    }
    let (code, out, err) = run(&[
        "analyze",
        START,
        "--depth",
        "2",
        "--lang",
        "ru",
        "--notation",
        "long",
    ]);
    assert_eq!(code, 0, "{err}");
    let best = out.lines().nth(1).unwrap();
    // "best move Кg1-f3 (g1f3)": the from- and to-squares joined by '-' or ':'.
    let uci = best.rsplit('(').next().unwrap().trim_end_matches(')');
    assert!(
        best.contains(&format!("{}-{}", &uci[..2], &uci[2..4]))
            || best.contains(&format!("{}:{}", &uci[..2], &uci[2..4])),
        "{out}"
    );
    let (code, _, err) = run(&["analyze", START, "--lang", "xx"]);
    assert_eq!(code, 2);
    assert!(err.contains("xx"), "{err}");
}

#[test]
fn cli_hint_and_grade() {
    let (code, out, err) = run(&["hint", BACK_RANK, "--level", "1", "--depth", "3"]);
    assert_eq!((code, out.trim()), (0, "Move your queen on d2."), "{err}");
    let (code, out, err) = run(&[
        "hint", BACK_RANK, "--level", "2", "--depth", "3", "--lang", "ru",
    ]);
    assert_eq!(
        (code, out.trim()),
        (0, "Ферзь с поля d2: взятие с шахом."),
        "{err}"
    );
    let hint = run_json(&[
        "hint", BACK_RANK, "--level", "3", "--depth", "3", "--lang", "de", "--json",
    ]);
    assert_eq!(hint["move"]["san"], "Dxd8#", "{hint}");
    assert_eq!(
        hint["kinds"],
        serde_json::json!(["capture", "check"]),
        "{hint}"
    );
    // Black to move: White threatens the mate.
    let fen = "3r2k1/5ppp/8/8/8/8/3Q1PPP/6K1 b - - 0 1";
    let threat = run_json(&[
        "hint", fen, "--threat", "--level", "3", "--depth", "3", "--json",
    ]);
    assert_eq!(
        (threat["threat"].as_bool(), threat["move"]["uci"].as_str()),
        (Some(true), Some("d2d8")),
        "{threat}"
    );
    let (code, _, err) = run(&["hint", "4k3/8/8/8/8/8/8/4K2r w - - 0 1", "--threat"]);
    assert_eq!(code, 2);
    assert!(err.contains("in check"), "{err}");
    let (code, _, _) = run(&["hint", BACK_RANK, "--level", "4"]);
    assert_eq!(code, 2);

    // The move in Russian long notation with Cyrillic е: e2-e4.
    let grade = run_json(&[
        "grade", START, "е2-е4", "--depth", "3", "--lang", "ru", "--json",
    ]);
    assert_eq!(grade["move"]["uci"], "e2e4", "{grade}");
    assert_eq!(
        grade["fenAfter"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    let grade = run_json(&[
        "grade", BACK_RANK, "Фd2-d7", "--depth", "4", "--lang", "ru", "--json",
    ]);
    assert_eq!(grade["grade"], "blunder", "{grade}");
    assert_eq!(grade["best"]["san"], "Ф:d8#", "{grade}");
    let (code, out, err) = run(&["grade", BACK_RANK, "4248", "--depth", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Qxd8#: best"), "{out}");

    for (text, message) in [
        ("e5", "illegal move \"e5\""),
        ("Nd2", "illegal move \"Nd2\""),
        ("zz", "unreadable move \"zz\""),
    ] {
        let (code, _, err) = run(&["grade", START, text]);
        assert_eq!(code, 2, "{text}");
        assert!(err.contains(message), "{text}: {err}");
    }
    let (code, _, err) = run(&["grade", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "Nd2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ambiguous move \"Nd2\": could be Nbd2, Nfd2"),
        "{err}"
    );
    // A typo in English letters is not read as another language's piece
    // (R is the Romanian king): refused, naming that reading.
    let (code, _, err) = run(&["grade", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Re2"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("R is the king in Romanian, French, that would be Ke2"),
        "{err}"
    );
    // A letter English does not use is read in the others, saying how.
    let grade = run_json(&["grade", START, "Sf3", "--depth", "2", "--json"]);
    assert_eq!(grade["move"]["uci"], "g1f3", "{grade}");
    assert_eq!(grade["readAs"], "S is the knight in German", "{grade}");
}

fn post(server: &Server, path: &str, body: Value) -> (u16, Value) {
    let (status, text) = server
        .request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
        .unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, value)
}

#[test]
fn http_hint_grade_moves_and_lang() {
    let server = Server::start(&["--max-depth", "6", "--max-movetime-ms", "3000"]);
    let (status, body) = post(
        &server,
        "/api/v1/analyze",
        serde_json::json!({"fen": BACK_RANK, "depth": 3, "lang": "figurine"}),
    );
    assert_eq!(
        (status, body["bestMove"]["san"].as_str()),
        (200, Some("♕xd8#")),
        "{body}"
    );
    assert_eq!(body["pvs"][0]["san"][0], "♕xd8#", "{body}");
    let (status, body) = post(
        &server,
        "/api/v1/analyze",
        serde_json::json!({"fen": BACK_RANK, "depth": 3, "lang": "ru", "notation": "long"}),
    );
    assert_eq!(
        (status, body["bestMove"]["san"].as_str()),
        (200, Some("Фd2:d8#")),
        "{body}"
    );

    let (status, body) = post(
        &server,
        "/api/v1/hint",
        serde_json::json!({"fen": BACK_RANK, "level": 2, "depth": 3}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["piece"].as_str(), body["from"].as_str()),
        (Some("Q"), Some("d2")),
        "{body}"
    );
    assert_eq!(
        body["kinds"],
        serde_json::json!(["capture", "check"]),
        "{body}"
    );
    assert!(body.get("move").is_none(), "{body}");
    let (status, body) = post(
        &server,
        "/api/v1/hint",
        serde_json::json!({"fen": BACK_RANK, "level": 3, "lang": "fr", "notation": "long", "depth": 3}),
    );
    assert_eq!(
        (status, body["move"]["san"].as_str()),
        (200, Some("Dd2xd8#")),
        "{body}"
    );

    let (status, body) = post(
        &server,
        "/api/v1/grade",
        serde_json::json!({"fen": BACK_RANK, "move": "Qd7", "depth": 4}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["grade"], "blunder", "{body}");
    assert_eq!(body["best"]["uci"], "d2d8", "{body}");
    assert_eq!(body["before"]["mate"], 1, "{body}");
    assert!(body["winChanceLoss"].as_f64().unwrap() >= 0.15, "{body}");
    let (status, body) = post(
        &server,
        "/api/v1/grade",
        serde_json::json!({"fen": BACK_RANK, "move": "Ф:d8", "lang": "ru", "depth": 4}),
    );
    assert_eq!(
        (status, body["grade"].as_str(), body["move"]["san"].as_str()),
        (200, Some("best"), Some("Ф:d8#")),
        "{body}"
    );

    let (status, body) = post(
        &server,
        "/api/v1/moves",
        serde_json::json!({"fen": START, "lang": "de", "notation": "long"}),
    );
    assert_eq!(status, 200, "{body}");
    let moves = body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20, "{body}");
    assert!(
        moves
            .iter()
            .any(|m| m["uci"] == "g1f3" && m["san"] == "Sg1-f3"),
        "{body}"
    );
    assert_eq!(body["check"], false);
    let (status, body) = post(
        &server,
        "/api/v1/moves",
        serde_json::json!({"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}),
    );
    assert_eq!(
        (status, body["gameOver"].as_str(), body["check"].as_bool()),
        (200, Some("checkmate"), Some(true)),
        "{body}"
    );

    // Bad input: a clear 4xx each, and the server carries on.
    let ambiguous = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
    for (path, request, status, code) in [
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "e5"}),
            400,
            "illegal-move",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "Кр e1-e2"}),
            400,
            "illegal-move",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "xyzzy"}),
            400,
            "illegal-move",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "e".repeat(10_000)}),
            400,
            "illegal-move",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": ambiguous, "move": "Nd2"}),
            400,
            "illegal-move",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "e4", "lang": "xx"}),
            400,
            "bad-request",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": START, "move": "e4", "engine": "nope"}),
            400,
            "unknown-engine",
        ),
        (
            "/api/v1/grade",
            serde_json::json!({"fen": "8/8/8/8/8/8/8/8 w - - 0 1", "move": "e4"}),
            422,
            "illegal-position",
        ),
        (
            "/api/v1/hint",
            serde_json::json!({"fen": START, "level": 0}),
            400,
            "bad-request",
        ),
        (
            "/api/v1/hint",
            serde_json::json!({"fen": "4k3/8/8/8/8/8/8/4K2r w - - 0 1", "threat": true}),
            422,
            "in-check",
        ),
        (
            "/api/v1/hint",
            serde_json::json!({"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}),
            422,
            "game-over",
        ),
        (
            "/api/v1/moves",
            serde_json::json!({"fen": START, "notation": "pgn"}),
            400,
            "bad-request",
        ),
        (
            "/api/v1/analyze",
            serde_json::json!({"fen": START, "lang": "klingon"}),
            400,
            "bad-request",
        ),
    ] {
        let (got, body) = post(&server, path, request.clone());
        assert_eq!(
            (got, body["code"].as_str()),
            (status, Some(code)),
            "{path} {request}: {body}"
        );
        assert!(body["error"].as_str().unwrap().len() < 200, "{body}");
    }
    let (_, body) = post(
        &server,
        "/api/v1/grade",
        serde_json::json!({"fen": ambiguous, "move": "Nd2"}),
    );
    assert_eq!(
        body["error"], "ambiguous move \"Nd2\": could be Nbd2, Nfd2",
        "{body}"
    );

    let (status, text) = server.request("GET", "/openapi.json", &[], b"").unwrap();
    assert_eq!(status, 200);
    let spec: Value = serde_json::from_str(&text).unwrap();
    for path in ["/api/v1/hint", "/api/v1/grade", "/api/v1/moves"] {
        assert!(
            spec["paths"][path]["post"].is_object(),
            "{path} missing from the OpenAPI"
        );
    }
    let analyze = &spec["components"]["schemas"]["AnalyzeRequest"]["properties"];
    assert!(
        analyze["lang"].is_object() && analyze["notation"].is_object(),
        "{analyze}"
    );
}

/// Stockfish's best move at `depth` for `fen`, in UCI, from a real process.
fn stockfish_best(fen: &str, depth: u32) -> String {
    let mut child = Command::new("/usr/games/stockfish")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Stockfish at /usr/games/stockfish (Debian package stockfish)");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "uci\nsetoption name Threads value 1\nposition fen {fen}\ngo depth {depth}"
    )
    .unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("bestmove ") {
                let _ = tx.send(
                    rest.split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                );
                return;
            }
        }
    });
    let best = rx.recv_timeout(Duration::from_secs(60));
    let _ = writeln!(stdin, "quit");
    drop(stdin);
    if best.is_err() {
        let _ = child.kill();
    }
    let _ = child.wait();
    best.expect("Stockfish answered bestmove within 60 s")
}

#[test]
fn grades_agree_with_stockfish() {
    if super::util::stockfish("grades_agree_with_stockfish").is_none() {
        return;
    }
    // (position, a move that hangs the queen)
    let cases = [
        (BACK_RANK, "Qd7"),
        // Scholar's mate is on (Qxf7#); Qxh7 loses the queen to the rook.
        (
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "Qxh7",
        ),
        // Ruy Lopez, Black to move; Qg5 is taken by the knight.
        (
            "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
            "Qg5",
        ),
        // Black's queen is attacked by the knight; Qxf2+ gives it for a pawn.
        (
            "r1b1kbnr/pppp1ppp/8/4p3/1n2P2q/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 0 1",
            "Qxf2+",
        ),
    ];
    for (fen, blunder) in cases {
        let graded = run_json(&["grade", fen, blunder, "--depth", "5", "--json"]);
        assert_eq!(graded["grade"], "blunder", "{fen} {blunder}: {graded}");
        let best = stockfish_best(fen, 12);
        let graded = run_json(&["grade", fen, &best, "--depth", "7", "--json"]);
        let grade = graded["grade"].as_str().unwrap();
        assert!(
            grade == "best" || grade == "good",
            "{fen}: Stockfish's {best} graded {grade}: {graded}"
        );
    }
}

#[test]
fn hint_and_grade_run_on_a_named_engine() {
    if super::util::stockfish("hint_and_grade_run_on_a_named_engine").is_none() {
        return;
    }
    let server = Server::start(&[
        "--engine",
        "stockfish=/usr/games/stockfish",
        "--max-movetime-ms",
        "3000",
    ]);
    let (status, graded) = post(
        &server,
        "/api/v1/grade",
        serde_json::json!({"fen": BACK_RANK, "move": "Qd7", "engine": "stockfish", "depth": 10}),
    );
    assert_eq!(status, 200, "{graded}");
    assert_eq!(graded["grade"], "blunder", "{graded}");
    assert_eq!(graded["best"]["uci"], "d2d8", "{graded}");
    let (status, hint) = post(
        &server,
        "/api/v1/hint",
        serde_json::json!({"fen": BACK_RANK, "level": 3, "engine": "stockfish", "depth": 10}),
    );
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["move"]["uci"], "d2d8", "{hint}");
}

#[test]
fn cli_play_writes_its_move_in_the_chosen_notation() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let played = run_json(&[
        "play",
        fen,
        "--lang",
        "de",
        "--notation",
        "long",
        "--movetime",
        "200",
        "--json",
    ]);
    let uci = played["move"]["uci"].as_str().unwrap();
    let san = played["move"]["san"].as_str().unwrap();
    // German letters (T for the rook, K for the king), long algebraic.
    let (from, to) = (&uci[..2], &uci[2..4]);
    assert!(
        san == format!("T{from}-{to}") || san == format!("K{from}-{to}"),
        "{played}"
    );
}

#[test]
fn hint_and_grade_agree_in_the_cli_and_the_api() {
    // After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5: several moves are close at shallow depth.
    const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let server = Server::start(&["--max-movetime-ms", "60000"]);
    let cli = run_json(&["hint", ITALIAN, "--level", "3", "--depth", "6", "--json"]);
    let (status, api) = post(
        &server,
        "/api/v1/hint",
        serde_json::json!({"fen": ITALIAN, "level": 3, "depth": 6}),
    );
    assert_eq!(status, 200, "{api}");
    let best = cli["move"]["uci"].as_str().expect("a move").to_string();
    assert_eq!(api["move"]["uci"], best.as_str(), "CLI {cli} vs API {api}");
    let graded = run_json(&["grade", ITALIAN, &best, "--depth", "6", "--json"]);
    assert_eq!(graded["grade"], "best", "{graded}");
    let (status, graded) = post(
        &server,
        "/api/v1/grade",
        serde_json::json!({"fen": ITALIAN, "move": best, "depth": 6}),
    );
    assert_eq!(
        (status, graded["grade"].as_str()),
        (200, Some("best")),
        "{graded}"
    );
    // The CLI's hint can use a pool engine too, as the API's can.
    if let Some(stockfish) = super::util::stockfish("hint_and_grade_agree_in_the_cli_and_the_api") {
        let path = format!("stockfish={stockfish}");
        let hint = run_json(&[
            "hint",
            BACK_RANK,
            "--level",
            "3",
            "--depth",
            "8",
            "--engine",
            "stockfish",
            "--engine-path",
            &path,
            "--json",
        ]);
        assert_eq!(hint["move"]["uci"], "d2d8", "{hint}");
    }
}
