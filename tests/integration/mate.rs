//! The mate solver through the binary (`mate`, `uci`'s `go mate`), the API's
//! `mate` field, and a cross-check of our keys with a real Stockfish.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{boardscan_within, describe, testdata, Server};

const STOCKFISH: &str = "/usr/games/stockfish";
/// A mate in 3 (1.Bf6, threatening Qg7#), with no mate in 2.
const THREE: &str = "r1b2rk1/pp1p1pBp/1qn1p1pQ/8/8/2P5/P1P2PPP/R3KB1R w KQ - 0 1";
/// No mate in 5 from the start: the whole tree is to search, so a
/// millisecond always runs out (a position with a short mate may be solved
/// within it).
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// WAC.004: 1.Qxh7+ Kxh7 2.hxg6#.
const TWO: &str = "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1";

fn mate_cli(args: &[&str]) -> (i32, String) {
    let mut all = vec!["mate"];
    all.extend_from_slice(args);
    let out = boardscan_within(&all, Duration::from_secs(30));
    let code = out.status.code().unwrap_or(-1);
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned() + &describe(&all, &out),
    )
}

#[test]
fn mate_cli_answers_with_exit_codes() {
    let (code, text) = mate_cli(&[TWO, "2", "--json"]);
    assert_eq!(code, 0, "{text}");
    let json: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(json["found"], true);
    assert_eq!(json["proven"], true);
    assert_eq!(json["mateIn"], 2);
    assert_eq!(json["key"]["san"], "Qxh7+");
    assert_eq!(json["lineUci"], "h6h7 h8h7 h5g6");
    assert!(json.get("threat").is_none(), "a checking key has no threat");

    let (code, text) = mate_cli(&[THREE, "3"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("mate in 3") && text.contains("key: Bf6"),
        "{text}"
    );
    assert!(text.contains("threat: Qg7#"), "{text}");

    let (code, text) = mate_cli(&[THREE, "3", "--lang", "de"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("key: Lf6") && text.contains("threat: Dg7#"),
        "{text}"
    );

    let (code, text) = mate_cli(&[THREE, "2"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("no mate in 2 (proven"), "{text}");

    for bad in [
        &[THREE, "0"][..],
        &[THREE, "11"],
        &[THREE, "two"],
        &["not a fen", "2"],
        &[THREE, "2", "--max-seconds", "-1"],
    ] {
        let (code, text) = mate_cli(bad);
        assert_eq!(code, 2, "{text}");
    }

    let args = ["analyze", TWO, "--mate", "2", "--json"];
    let out = boardscan_within(&args, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&args, &out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["bestMove"]["san"], "Qxh7+");
    assert_eq!(json["pvs"][0]["mate"], 2);
    assert_eq!(json["mateSearch"]["key"]["uci"], "h6h7");

    let (code, text) = mate_cli(&[START, "5", "--max-seconds", "0.001", "--json"]);
    assert_eq!(code, 3, "{text}");
    let json: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (json["found"].clone(), json["proven"].clone()),
        (false.into(), false.into())
    );
}

#[test]
fn uci_go_mate() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // Sends `commands` and reads up to the `bestmove` (a new command would stop the job).
    let mut ask = |commands: &str| -> Vec<String> {
        writeln!(stdin, "{commands}").unwrap();
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "{lines:?}");
            let done = line.starts_with("bestmove");
            lines.push(line.trim_end().to_owned());
            if done {
                return lines;
            }
        }
    };
    let two = ask(&format!("position fen {TWO}\ngo mate 2"));
    assert_eq!(two.last().unwrap(), "bestmove h6h7 ponder h8h7", "{two:?}");
    assert!(
        two[0].starts_with("info depth 3 score mate 2 nodes ")
            && two[0].ends_with(" pv h6h7 h8h7 h5g6"),
        "{two:?}"
    );
    let none = ask(&format!("position fen {THREE}\ngo mate 2"));
    assert!(
        none[0].starts_with("info string no mate in 2 (proven)"),
        "{none:?}"
    );
    assert_eq!(none[1], "bestmove 0000");
    let bad = ask("go mate 0");
    assert_eq!(
        bad,
        ["info string go mate needs 1 to 10 moves", "bestmove 0000"]
    );
    let three = ask("go mate 3");
    assert!(three[0].contains(" score mate 3 "), "{three:?}");
    assert!(three[1].starts_with("bestmove g7f6 ponder "), "{three:?}");
    let stopped = ask("go mate 5 nodes 1");
    assert_eq!(
        stopped,
        [
            "info string mate search stopped; no mate in 1 proven",
            "bestmove 0000"
        ]
    );
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn api_mate_field() {
    let server = Server::start(&["--max-mate", "5", "--max-movetime-ms", "20000"]);
    let post = |body: serde_json::Value| {
        let (status, text) = server
            .request(
                "POST",
                "/api/v1/analyze",
                &[("Content-Type", "application/json")],
                body.to_string().as_bytes(),
            )
            .unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, json)
    };
    let (status, json) = post(serde_json::json!({"fen": THREE, "mate": 3}));
    assert_eq!(status, 200, "{json}");
    let search = &json["mateSearch"];
    assert_eq!(
        (search["found"].clone(), search["proven"].clone()),
        (true.into(), true.into())
    );
    assert_eq!(search["key"]["uci"], "g7f6", "{json}");
    assert_eq!(search["threat"]["san"], "Qg7#", "{json}");
    assert_eq!(json["bestMove"]["san"], "Bf6", "{json}");
    assert_eq!(json["pvs"][0]["mate"], 3, "{json}");

    // The moves in the reader's language: Russian long algebraic.
    let (status, json) =
        post(serde_json::json!({"fen": THREE, "mate": 3, "lang": "ru", "notation": "long"}));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["mateSearch"]["key"]["san"], "Сg7-f6", "{json}");
    assert_eq!(json["mateSearch"]["threat"]["san"], "Фh6-g7#", "{json}");
    assert_eq!(json["bestMove"]["san"], "Сg7-f6", "{json}");

    let (status, json) = post(serde_json::json!({"fen": THREE, "mate": 2}));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["mateSearch"]["found"], false);
    assert_eq!(json["mateSearch"]["proven"], true);
    assert!(json.get("bestMove").is_none() && json["pvs"].as_array().unwrap().is_empty());

    for n in [0, 6, 1000] {
        let (status, json) = post(serde_json::json!({"fen": THREE, "mate": n}));
        assert_eq!(
            (status, json["code"].clone()),
            (400, "bad-request".into()),
            "{json}"
        );
    }
    let (status, json) = post(serde_json::json!({"fen": THREE, "mate": -1}));
    assert_eq!(
        (status, json["code"].clone()),
        (400, "bad-request".into()),
        "{json}"
    );

    let (status, spec) = server.request("GET", "/openapi.json", &[], b"").unwrap();
    assert_eq!(status, 200);
    let spec: serde_json::Value = serde_json::from_str(&spec).unwrap();
    for schema in ["MateSearch", "MateAnalysis"] {
        assert!(
            spec["components"]["schemas"][schema].is_object(),
            "{schema} missing"
        );
    }
    assert!(
        spec["components"]["schemas"]["AnalyzeRequest"]["properties"]["mate"].is_object(),
        "{spec}"
    );

    // Out of time: a clear answer, not a guess.
    let (status, json) = post(serde_json::json!({"fen": START, "mate": 5, "movetimeMs": 1}));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["mateSearch"]["proven"], false, "{json}");
    assert_eq!(json["mateSearch"]["found"], false, "{json}");
}

/// A few collection problems: our key, then Stockfish must see the
/// defender mated within the moves left.
#[test]
fn stockfish_confirms_our_keys() {
    if super::util::stockfish("stockfish_confirms_our_keys").is_none() {
        return;
    }
    let text = std::fs::read_to_string(testdata().join("mate/problems.epd")).unwrap();
    let problems: Vec<(String, u32)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let dm = l.split("dm ").nth(1).unwrap().split(';').next().unwrap();
            (
                format!("{} 0 1", f[..4].join(" ")),
                dm.trim().parse().unwrap(),
            )
        })
        .collect();
    let picks: Vec<&(String, u32)> = [1, 2, 3]
        .iter()
        .filter_map(|&n| problems.iter().find(|p| p.1 == n))
        .collect();
    assert_eq!(picks.len(), 3, "the collection has #1, #2 and #3 problems");
    let mut sf = Command::new(STOCKFISH)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("{STOCKFISH} must be installed (apt-get install stockfish): {e}")
        });
    let mut sf_in = sf.stdin.take().unwrap();
    let mut sf_out = BufReader::new(sf.stdout.take().unwrap());
    for (fen, dm) in picks {
        let (code, text) = mate_cli(&[fen, &dm.to_string(), "--json"]);
        assert_eq!(code, 0, "{text}");
        let json: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let key = json["key"]["uci"].as_str().unwrap();
        writeln!(
            sf_in,
            "position fen {fen} moves {key}\ngo depth {}",
            2 * dm + 6
        )
        .unwrap();
        let mut last_mate = None;
        loop {
            let mut line = String::new();
            assert!(sf_out.read_line(&mut line).unwrap() > 0, "stockfish exited");
            let words: Vec<&str> = line.split_whitespace().collect();
            if let Some(i) = words.iter().position(|&w| w == "mate") {
                last_mate = words.get(i + 1).and_then(|m| m.parse::<i32>().ok());
            }
            if line.starts_with("bestmove") {
                break;
            }
        }
        let left = *dm as i32 - 1;
        let mate = last_mate.unwrap_or_else(|| panic!("no mate score after {key} in {fen}"));
        assert!(
            (-left..=0).contains(&mate) && (mate < 0 || left == 0),
            "{fen} {key}: stockfish says mate {mate}"
        );
    }
    writeln!(sf_in, "quit").unwrap();
    sf.wait().unwrap();
}

/// `bench-mate` on three problems with a real Stockfish: both solve them,
/// and a wrong `dm` is reported as a disagreement (exit status 1).
#[test]
fn bench_mate_against_stockfish() {
    if super::util::stockfish("bench_mate_against_stockfish").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let epd = dir.path().join("few.epd");
    let good = format!(
        "{}\n{}\n",
        "8/5N1K/1Q3R2/8/8/7k/8/8 w - - bm Qg1; dm 2; id \"a\";",
        "r1b2rk1/pp1p1pBp/1qn1p1pQ/8/8/2P5/P1P2PPP/R3KB1R w KQ - bm Bf6 Bxf8 Bh8; dm 3; id \"b\";"
    );
    std::fs::write(&epd, &good).unwrap();
    let path = epd.to_str().unwrap();
    let args = [
        "bench-mate",
        path,
        "--engine",
        STOCKFISH,
        "--engine-timeout",
        "20",
    ];
    let out = boardscan_within(&args, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&args, &out));
    // N, problems, solved, …, proven none, …, Stockfish's mates.
    for n in ["2", "3"] {
        let row: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with(&format!("| {n} |")))
            .unwrap_or_else(|| panic!("no row {n}: {text}"))
            .split('|')
            .map(str::trim)
            .collect();
        assert_eq!(
            (row[2], row[3], row[7], row[10]),
            ("1", "1", "1", "1"),
            "{text}"
        );
    }
    std::fs::write(&epd, good.replace("dm 3", "dm 4")).unwrap();
    let out = boardscan_within(&args, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    assert!(
        text.contains("disagreement: b: asked #4, got Found { mate_in: 3 }"),
        "{text}"
    );
}
