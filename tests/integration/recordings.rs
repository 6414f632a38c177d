//! Recordings of games to PGN: `boardscan game` and `POST
//! /api/v1/game/recording` on the project's own recordings of games with
//! known moves (GIFs, and videos decoded by Debian's ffmpeg), and on
//! recordings that are not games.

use std::{path::PathBuf, process::Command, time::Duration};

use serde_json::Value;

use crate::util::{boardscan_within, describe, testdata, Server};

const LIMIT: Duration = Duration::from_secs(300);

/// A labelled recording of `testdata/recordings/labels.csv`.
struct Recorded {
    path: PathBuf,
    start_fen: String,
    moves: Vec<String>,
}

fn recorded(file: &str) -> Recorded {
    let dir = testdata().join("recordings");
    let labels = std::fs::read_to_string(dir.join("labels.csv")).unwrap();
    let line = labels
        .lines()
        .find(|l| l.starts_with(&format!("{file},")))
        .unwrap_or_else(|| panic!("{file} is not in labels.csv"));
    let fields: Vec<&str> = line.split(',').collect();
    Recorded {
        path: dir.join(file),
        start_fen: fields[1].to_owned(),
        moves: fields[2].split_whitespace().map(str::to_owned).collect(),
    }
}

/// A FEN without its move counters, which no picture shows.
fn position(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

fn has_ffmpeg() -> bool {
    let found = Command::new("ffmpeg").arg("-version").output().is_ok();
    if !found && std::env::var_os("BOARDSCAN_REQUIRE_FFMPEG").is_some() {
        panic!("ffmpeg is required (BOARDSCAN_REQUIRE_FFMPEG) but not installed");
    }
    if !found {
        eprintln!("skipped: ffmpeg is not installed");
    }
    found
}

/// The games `boardscan game FILE --no-analysis --json` reads.
fn read_games(path: &str) -> Vec<Value> {
    let args = ["game", path, "--no-analysis", "--json"];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn uci(game: &Value) -> Vec<String> {
    game["uci"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// The first game of a `--json` run's output.
fn first_game(stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    serde_json::from_str(text.lines().next().expect("a game")).unwrap()
}

/// The first game read is the start of the recorded one, and not all of it.
fn assert_read_in_part(stdout: &[u8], truth: &Recorded) {
    let read = uci(&first_game(stdout));
    assert!(
        !read.is_empty() && read.len() < truth.moves.len(),
        "{read:?}"
    );
    assert_eq!(read[..], truth.moves[..read.len()]);
}

fn assert_read_exactly(file: &str) {
    let truth = recorded(file);
    let games = read_games(truth.path.to_str().unwrap());
    assert_eq!(games.len(), 1, "{file}: {games:?}");
    assert_eq!(
        position(games[0]["startFen"].as_str().unwrap()),
        position(&truth.start_fen),
        "{file}"
    );
    assert_eq!(uci(&games[0]), truth.moves, "{file}");
}

#[test]
fn gifs_from_either_side_are_read_move_for_move() {
    assert_read_exactly("black.gif");
    assert_read_exactly("mate.gif");
}

#[test]
fn a_gif_ending_in_mate_gets_its_result() {
    let truth = recorded("mate.gif");
    let games = read_games(truth.path.to_str().unwrap());
    assert_eq!(games[0]["result"], "1-0");
}

#[test]
fn videos_with_a_turned_board_or_another_start_are_read_move_for_move() {
    if !has_ffmpeg() {
        return;
    }
    assert_read_exactly("flip.mp4");
    assert_read_exactly("fen.mp4");
    assert_read_exactly("short.webm");
}

#[test]
fn a_video_on_standard_input_is_read() {
    if !has_ffmpeg() {
        return;
    }
    let truth = recorded("short.webm");
    let out = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(["game", "-", "--no-analysis", "--json"])
        .stdin(std::fs::File::open(&truth.path).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(uci(&first_game(&out.stdout)), truth.moves);
}

#[test]
fn a_recording_flows_into_game_analysis_as_annotated_pgn() {
    let truth = recorded("fen.mp4");
    if !has_ffmpeg() {
        return;
    }
    let path = truth.path.to_str().unwrap();
    let args = ["game", path, "--nodes", "2000"];
    let out = boardscan_within(&args, LIMIT);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let pgn = String::from_utf8_lossy(&out.stdout);
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(
        pgn.contains(&format!("[FEN \"{} 0 1\"]", position(&truth.start_fen))),
        "{pgn}"
    );
    assert!(pgn.contains("[%eval "), "{pgn}");
    assert!(pgn.contains("1. axb4"), "{pgn}");
}

#[test]
fn a_recording_longer_than_the_limit_is_read_to_the_limit_and_says_so() {
    if !has_ffmpeg() {
        return;
    }
    let truth = recorded("flip.mp4");
    let args = [
        "game",
        truth.path.to_str().unwrap(),
        "--no-analysis",
        "--json",
        "--max-seconds",
        "6",
    ];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("only the first 6 s of the video were read"),
        "{stderr}"
    );
    assert_read_in_part(&out.stdout, &truth);
}

#[test]
fn a_video_without_ffmpeg_is_a_clear_error_and_a_gif_still_reads() {
    let truth = recorded("short.webm");
    let gif = recorded("black.gif");
    let empty = tempfile::tempdir().unwrap();
    let run = |path: &PathBuf| {
        Command::new(env!("CARGO_BIN_EXE_boardscan"))
            .args(["game", path.to_str().unwrap(), "--no-analysis"])
            .env("PATH", empty.path())
            .output()
            .unwrap()
    };
    let out = run(&truth.path);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs ffmpeg"), "{stderr}");
    let out = run(&gif.path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1. h3 e6"));
}

#[test]
fn broken_and_boardless_recordings_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    // A GIF cut short after its header.
    let gif = std::fs::read(recorded("black.gif").path).unwrap();
    let cut = dir.path().join("cut.gif");
    std::fs::write(&cut, &gif[..gif.len() / 3]).unwrap();
    let args = ["game", cut.to_str().unwrap(), "--no-analysis"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a readable GIF"), "{stderr}");
    if !has_ffmpeg() {
        return;
    }
    // An MP4 cut in half: the moves up to the cut, and a note saying so.
    let truth = recorded("fen.mp4");
    let mp4 = std::fs::read(&truth.path).unwrap();
    let cut = dir.path().join("cut.mp4");
    std::fs::write(&cut, &mp4[..mp4.len() / 2]).unwrap();
    let args = ["game", cut.to_str().unwrap(), "--no-analysis", "--json"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("could not be read to its end"), "{stderr}");
    assert_read_in_part(&out.stdout, &truth);
    // An MP4 whose head is gone is no video at all.
    let headless = dir.path().join("headless.mp4");
    let mut bytes = mp4[..8].to_vec();
    bytes.extend_from_slice(&mp4[mp4.len() / 2..]);
    std::fs::write(&headless, &bytes).unwrap();
    let args = ["game", headless.to_str().unwrap(), "--no-analysis"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a readable video"), "{stderr}");
    // A video of no chess game: ffmpeg's test pattern.
    let pattern = dir.path().join("pattern.mp4");
    let made = Command::new("ffmpeg")
        .args(["-loglevel", "error", "-f", "lavfi", "-i"])
        .arg("testsrc=duration=3:size=320x240:rate=10")
        .args(["-pix_fmt", "yuv420p"])
        .arg(&pattern)
        .status()
        .unwrap();
    assert!(made.success());
    let args = ["game", pattern.to_str().unwrap(), "--no-analysis"];
    let out = boardscan_within(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no chessboard found in the recording"),
        "{stderr}"
    );
}

#[test]
fn a_recording_is_read_through_the_api_and_its_pgn_analysed() {
    let server = Server::start(&[]);
    let truth = recorded("black.gif");
    let gif = std::fs::read(&truth.path).unwrap();
    let (status, body) = server
        .request("POST", "/api/v1/game/recording", &[], &gif)
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let games = reply["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{body}");
    assert_eq!(uci(&games[0]), truth.moves);
    // The PGN goes on to the game analysis as it is.
    let request = serde_json::json!({ "pgn": games[0]["pgn"], "nodes": 2000 });
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/game",
            &[("Content-Type", "application/json")],
            request.to_string().as_bytes(),
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let analysis: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        analysis["moves"].as_array().unwrap().len(),
        truth.moves.len()
    );
    // Not a recording.
    let (status, body) = server
        .request("POST", "/api/v1/game/recording", &[], b"1. e4 e5 2. Nf3")
        .unwrap();
    assert_eq!(status, 415, "{body}");
    assert!(body.contains("not-a-recording"), "{body}");
}
