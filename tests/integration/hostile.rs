//! Hostile and unlucky input against the real binary and the real server:
//! impossible positions, request bodies that are too big, doubled or never
//! finished, shutdown under load, and one analysis budget for many boards.

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::util::{boardscan, describe, fixtures, Server};

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[test]
fn impossible_positions_are_refused_before_any_search() {
    for fen in [
        "8/8/8/3kK3/8/8/8/8 b - - 0 1",
        "8/8/8/3kK3/8/8/8/8 w - - 0 1",
    ] {
        let args = ["analyze", fen, "--depth", "3"];
        let output = boardscan(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{}",
            describe(&args, &output)
        );
        assert!(
            stderr.contains("impossible position: the kings stand next to each other"),
            "{}",
            describe(&args, &output)
        );
        assert!(!stderr.contains("panicked"), "{}", describe(&args, &output));
    }
}

/// A multipart body with `fields` (name, bytes), optionally without its
/// closing boundary.
fn multipart(fields: &[(&str, &[u8])], closed: bool) -> (String, Vec<u8>) {
    let boundary = "hostile-boundary-x8Qm";
    let mut body = Vec::new();
    for (name, bytes) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"f\"\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    if closed {
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    }
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[test]
fn the_upload_limit_holds_for_the_whole_request_and_fields_come_once() {
    let image = std::fs::read(&fixtures()[0].file).unwrap();
    // Each part fits the limit, the two together do not.
    let limit = image.len() * 3 / 2;
    let server = Server::start(&["--max-upload-bytes", &limit.to_string()]);
    let post = |fields: &[(&str, &[u8])]| {
        let (content_type, body) = multipart(fields, true);
        let (status, text) = server
            .request(
                "POST",
                "/api/v1/recognize",
                &[("Content-Type", &content_type)],
                &body,
            )
            .unwrap();
        (
            status,
            json(&text)["code"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(post(&[("image", &image)]).0, 200);
    assert_eq!(
        post(&[("image", &image), ("options", &image)]),
        (413, "image-too-large".into())
    );
    assert_eq!(
        post(&[("image", &image), ("image", b"x")]),
        (400, "bad-request".into())
    );
    assert_eq!(
        post(&[("options", b"{}"), ("image", &image), ("options", b"{}")]),
        (400, "bad-request".into())
    );
}

/// Sends `head` and `body` and waits up to `guard` for an answer; returns the
/// status, or `None` when none came.
fn stalled_request(port: u16, head: &str, body: &[u8], guard: Duration) -> Option<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(guard)).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = [0u8; 64];
    let n = stream.read(&mut response).ok()?;
    let text = String::from_utf8_lossy(&response[..n]);
    text.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_body_that_never_ends_gets_408() {
    let server = Server::start(&["--body-timeout-ms", "1000"]);
    let image = std::fs::read(&fixtures()[0].file).unwrap();
    let guard = Duration::from_secs(15);
    // A multipart body with no closing boundary, the connection left open.
    let (content_type, body) = multipart(&[("image", &image)], false);
    let head = format!(
        "POST /api/v1/recognize HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let chunk = [format!("{:x}\r\n", body.len()).as_bytes(), &body, b"\r\n"].concat();
    assert_eq!(
        stalled_request(server.port, &head, &chunk, guard),
        Some(408)
    );
    // A raw body that stops halfway through its announced length.
    let head = format!(
        "POST /api/v1/recognize HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: {}\r\n\r\n",
        image.len()
    );
    let half = &image[..image.len() / 2];
    assert_eq!(stalled_request(server.port, &head, half, guard), Some(408));
    // The service is still healthy.
    assert_eq!(
        server.request("GET", "/api/v1/health", &[], b"").unwrap().0,
        200
    );
}

#[test]
fn sigterm_lets_running_jobs_finish_and_exits_within_the_deadline() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--shutdown-timeout-secs", "2", "--no-library"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    // An upload that never finishes: it must not hold the shutdown up.
    let mut stalled = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stalled
        .write_all(b"POST /api/v1/recognize HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\nabc")
        .unwrap();
    // A running analysis: it must be answered.
    let mut running = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let body = br#"{"fen":"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3","movetimeMs":1000}"#;
    running
        .write_all(
            format!(
                "POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )
        .unwrap();
    running.write_all(body).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    running
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut answer = [0u8; 16];
    let n = running.read(&mut answer).unwrap();
    assert!(
        answer[..n].starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&answer[..n])
    );
    // Exits within the 2 s deadline (plus start-up slack), not actix's 30 s.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("still running 15 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    drop(stalled);
    // Logs written to a pipe carry no colour escape codes.
    let mut log = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(log.contains("listening"), "{log}");
    assert!(!log.contains('\u{1b}'), "{log}");
}

#[test]
fn boards_of_one_picture_share_one_analysis_budget() {
    // Four boards in a row, as on a book page.
    let tiles: Vec<image::RgbImage> = fixtures()[..4]
        .iter()
        .map(|f| image::open(&f.file).unwrap().to_rgb8())
        .map(|i| image::imageops::resize(&i, 400, 400, image::imageops::FilterType::Triangle))
        .collect();
    let mut page = image::RgbImage::from_pixel(4 * 440 + 40, 480, image::Rgb([255, 255, 255]));
    for (i, tile) in tiles.iter().enumerate() {
        image::imageops::overlay(&mut page, tile, 40 + 440 * i as i64, 40);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("row.png");
    page.save(&path).unwrap();
    let path = path.to_str().unwrap();
    let args = ["scan", "--json", "--analyze", "--movetime", "1200", path];
    let output = boardscan(&args);
    assert!(output.status.success(), "{}", describe(&args, &output));
    let result = json(&String::from_utf8_lossy(&output.stdout));
    let analysed: Vec<u64> = result["boards"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|board| board["analysis"]["timeMs"].as_u64())
        .collect();
    assert!(analysed.len() >= 2, "{result}");
    let total: u64 = analysed.iter().sum();
    assert!(
        total <= 1_500,
        "{analysed:?} ms: more than the 1200 ms budget"
    );
}
