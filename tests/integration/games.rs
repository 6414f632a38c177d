//! `boardscan game` and `POST /api/v1/game`: whole games from PGN, analysed
//! by the real engines (ours, and Debian's Stockfish in the pool).

use std::{io::Write, process::Command, process::Stdio, time::Duration};

use serde_json::Value;

use crate::util::{boardscan_within, describe, exchange, testdata, Server};

const LIMIT: Duration = Duration::from_secs(300);

fn pgn(name: &str) -> String {
    testdata()
        .join("games")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The JSON lines of a `--json` run.
fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn grades(game: &Value) -> Vec<(String, String)> {
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"]["san"].as_str().unwrap().to_owned(),
                m["grade"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn game_grades_the_scholars_mate_blunder_with_our_engine() {
    let file = pgn("scholar.pgn");
    let args = ["game", &file, "--json", "--nodes", "30000"];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1, "{}", describe(&args, &out));
    let game = &games[0];
    let grades = grades(game);
    assert_eq!(grades.len(), 7);
    assert_eq!(grades[5], ("Nf6".into(), "blunder".into()), "{grades:?}");
    assert_eq!(grades[6], ("Qxf7#".into(), "best".into()), "{grades:?}");
    assert_eq!(game["moves"][5]["after"]["mate"], 1);
    assert_eq!(game["moves"][5]["moveNumber"], "3...");
    assert_eq!(game["black"]["blunders"], 1);
    assert_eq!(game["white"]["blunders"], 0);
    assert_eq!(game["opening"]["eco"], "C23");
    assert_eq!(game["opening"]["name"], "Bishop's Opening");
    assert_eq!(game["budget"], serde_json::json!({"nodes": 30_000}));
    // Every position before the mate was searched past depth 1.
    for m in game["moves"].as_array().unwrap() {
        assert!(m["depth"].as_u64().unwrap() > 1, "{m}");
    }
    assert_eq!(game["engine"], "boardscan");
    assert_eq!(game["result"], "1-0");
    assert!(
        game["white"]["accuracy"].as_f64().unwrap() > game["black"]["accuracy"].as_f64().unwrap()
    );
    // Each move's evaluation before is the one after the move before it.
    let moves = game["moves"].as_array().unwrap();
    for pair in moves.windows(2) {
        assert_eq!(pair[0]["after"], pair[1]["before"]);
    }
}

#[test]
fn game_reads_standard_input_and_prints_annotated_pgn_in_the_readers_language() {
    let text = std::fs::read(pgn("scholar.pgn")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(["game", "-", "--depth", "5", "--lang", "de"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = describe(&["game", "-", "--depth", "5", "--lang", "de"], &out);
    assert!(out.status.success(), "{shown}");
    // Lines are wrapped at 79 columns: compare with single spaces.
    let pgn = String::from_utf8(out.stdout).unwrap();
    assert!(pgn.lines().all(|l| l.chars().count() <= 79), "{shown}");
    let pgn = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(pgn.contains("[Event \"Test: Scholar's mate\"]"), "{shown}");
    assert!(pgn.contains("[ECO \"C23\"]"), "{shown}");
    assert!(pgn.contains("3... Sf6??"), "{shown}");
    assert!(pgn.contains("[%eval #1]"), "{shown}");
    assert!(pgn.contains("{ Black misses the threat. }"), "{shown}");
    assert!(pgn.contains("4. Dxf7#"), "{shown}");
    assert!(pgn.trim_end().ends_with("1-0"), "{shown}");
}

#[test]
fn game_with_stockfish_in_the_pool_finds_the_trap() {
    let Some(stockfish) = crate::util::stockfish("game_with_stockfish_in_the_pool_finds_the_trap")
    else {
        return;
    };
    let file = pgn("blackburne.pgn");
    let spec = format!("stockfish={stockfish}");
    let args = [
        "game",
        &file,
        "--json",
        "--engine-path",
        &spec,
        "--engine",
        "stockfish",
        "--nodes",
        "50000",
    ];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["engine"], "stockfish");
    let grades = grades(game);
    assert_eq!(grades.len(), 14);
    // 5. Nxf7 loses at once (Qxg2, then mate): a blunder. 7... Nf3# is best.
    assert_eq!(grades[8], ("Nxf7".into(), "blunder".into()), "{grades:?}");
    // Black wins at least a rook: a forced mate, or -3 pawns and worse.
    let after = &game["moves"][8]["after"];
    assert!(
        after["mate"].as_i64().is_some_and(|m| m < 0)
            || after["cp"].as_i64().is_some_and(|cp| cp <= -300),
        "{after}"
    );
    assert_eq!(grades[13], ("Nf3#".into(), "best".into()), "{grades:?}");
    assert!(game["white"]["blunders"].as_u64().unwrap() >= 1);
    assert_eq!(game["opening"]["eco"], "C50");
    // A Chess960 game goes to our engine only.
    let file = pgn("chess960.pgn");
    let args = [
        "game",
        &file,
        "--engine-path",
        &spec,
        "--engine",
        "stockfish",
    ];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Chess960"));
}

#[test]
fn game_reads_chess960_with_our_engine() {
    let file = pgn("chess960.pgn");
    let args = ["game", &file, "--json", "--depth", "4"];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["chess960"], true);
    let moves: Vec<String> = grades(game).into_iter().map(|(m, _)| m).collect();
    assert_eq!(moves, ["O-O-O", "O-O", "d4", "d5"]);
    assert_eq!(
        game["startFen"],
        "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
    );
}

#[test]
fn an_illegal_move_is_named_and_the_other_games_are_analysed() {
    let file = pgn("illegal.pgn");
    let args = ["game", &file, "--json", "--depth", "3"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("game 2, ply 6 (3...), line 10: illegal move \"Qxf2\""),
        "{}",
        describe(&args, &out)
    );
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["game"], 1);
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 3);
}

#[test]
fn not_a_pgn_is_refused_clearly() {
    let image = testdata()
        .join("boards")
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let dir = tempfile::tempdir().unwrap();
    let prose = dir.path().join("letter.txt");
    std::fs::write(&prose, "Dear friend, the weather is fine.\n").unwrap();
    for file in [image, prose] {
        let file = file.to_str().unwrap().to_owned();
        let args = ["game", &file];
        let out = boardscan_within(&args, LIMIT);
        assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not a PGN"),
            "{}",
            describe(&args, &out)
        );
        assert!(out.stdout.is_empty());
    }
    let args = ["game", "/no/such/file.pgn"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
}

#[test]
fn ten_thousand_games_and_huge_comments_stay_within_limits() {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many.pgn");
    let mut text = String::new();
    for i in 1..=10_000 {
        text.push_str(&format!("[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 *\n\n"));
    }
    std::fs::write(&many, &text).unwrap();
    let many = many.to_str().unwrap().to_owned();
    // The default limit reads 100 games; asking for a later one is an error.
    let args = ["game", &many, "--json", "--depth", "1", "--game", "101"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped after 100 games"), "{stderr}");
    assert!(
        stderr.contains("--game 101: the PGN has 100 game(s)"),
        "{stderr}"
    );
    // All 10,000 are read when the limit allows; the last one is analysed.
    let args = [
        "game",
        &many,
        "--json",
        "--depth",
        "1",
        "--max-games",
        "10000",
        "--game",
        "10000",
    ];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["tags"][0], serde_json::json!(["Event", "10000"]));
    // Three games, then the limit: a partial result that says so.
    let args = ["game", &many, "--json", "--depth", "1", "--max-games", "3"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    assert_eq!(json_lines(&out.stdout).len(), 3);

    // 2 MB of comments: read, cut, analysed.
    let huge = dir.path().join("huge.pgn");
    let comment = "blah ".repeat(400_000);
    std::fs::write(&huge, format!("1. e4 {{{comment}}} e5 {{{comment}}} *\n")).unwrap();
    let huge = huge.to_str().unwrap().to_owned();
    let args = ["game", &huge, "--depth", "2"];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let pgn = String::from_utf8_lossy(&out.stdout);
    assert!(pgn.len() < 20_000, "{} bytes", pgn.len());
    assert!(pgn.contains("blah blah"));
    assert!(pgn.contains('…'));
    // A byte limit stops reading and says where.
    let args = [
        "game",
        &many,
        "--depth",
        "1",
        "--max-bytes",
        "100",
        "--json",
    ];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than 100 bytes"));
}

fn post(server: &Server, path: &str, body: &Value) -> (u16, String) {
    let reply = exchange(
        server.port,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
    .expect("request");
    (reply.status, reply.body)
}

#[test]
fn the_game_api_analyses_streams_and_refuses_bad_input() {
    let server = Server::start(&["--no-library"]);
    let scholar = std::fs::read_to_string(pgn("scholar.pgn")).unwrap();
    let (status, body) = post(
        &server,
        "/api/v1/game",
        &serde_json::json!({"pgn": scholar, "depth": 5, "lang": "fr"}),
    );
    assert_eq!(status, 200, "{body}");
    let game: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(game["moves"][5]["grade"], "blunder", "{body}");
    assert_eq!(game["moves"][5]["move"]["san"], "Cf6");
    assert_eq!(game["games"], 1);
    assert_eq!(game["black"]["blunders"], 1);
    assert!(game["annotatedPgn"]
        .as_str()
        .unwrap()
        .contains("3... Cf6??"));

    // The stream: one `move` event per ply, then `done`.
    let (status, body) = post(
        &server,
        "/api/v1/game/stream",
        &serde_json::json!({"pgn": scholar, "depth": 3}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body.matches("event: move\n").count(), 7, "{body}");
    assert_eq!(body.matches("event: done\n").count(), 1, "{body}");

    let cases = [
        (
            serde_json::json!({"pgn": "Dear friend, hello."}),
            422,
            "not-a-pgn",
        ),
        (
            serde_json::json!({"pgn": std::fs::read_to_string(pgn("illegal.pgn")).unwrap(), "game": 2}),
            400,
            "illegal-move",
        ),
        (
            serde_json::json!({"pgn": scholar, "game": 2}),
            400,
            "bad-request",
        ),
        (
            serde_json::json!({"pgn": scholar, "engine": "nosuch"}),
            400,
            "unknown-engine",
        ),
        (
            serde_json::json!({"pgn": format!("1. e4 {{{}}} *", "x".repeat(1_500_000))}),
            413,
            "game-too-large",
        ),
        (
            serde_json::json!({"pgn": "x".repeat(3_000_000)}),
            413,
            "game-too-large",
        ),
    ];
    for (body, want, code) in cases {
        let (status, answer) = post(&server, "/api/v1/game", &body);
        assert_eq!(status, want, "{answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["code"], code, "{answer}");
    }
    let (_, illegal) = post(
        &server,
        "/api/v1/game",
        &serde_json::json!({"pgn": std::fs::read_to_string(pgn("illegal.pgn")).unwrap(), "game": 2}),
    );
    assert!(illegal.contains("ply 6 (3...)"), "{illegal}");

    let (status, spec) = server.request("GET", "/openapi.json", &[], b"").unwrap();
    assert_eq!(status, 200);
    let spec: Value = serde_json::from_str(&spec).unwrap();
    assert!(spec["paths"]["/api/v1/game"]["post"].is_object());
    assert!(spec["paths"]["/api/v1/game/stream"]["post"].is_object());
    assert!(spec["components"]["schemas"]["MoveReport"].is_object());
}
