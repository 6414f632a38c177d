use crate::util::{fixtures, Server};

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[test]
fn recognize_health_and_errors() {
    let server = Server::start(&["--max-upload-bytes", "2000000", "--max-pixels", "4000000"]);

    let (status, body) = server.request("GET", "/api/v1/health", &[], b"").unwrap();
    assert_eq!((status, json(&body)["status"].clone()), (200, "ok".into()));

    // Multipart with options.
    let fixture = fixtures()
        .into_iter()
        .find(|f| f.view == "black")
        .expect("a black-view fixture");
    let image = std::fs::read(&fixture.file).unwrap();
    let options = br#"{"sideToMove": "b", "view": "black"}"#;
    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[
            ("image", Some("board.png"), &image),
            ("options", None, options),
        ],
    );
    assert_eq!(status, 200, "{body}");
    let board = &json(&body)["boards"][0];
    assert_eq!(board["boardFen"], fixture.board_fen.as_str(), "{body}");
    assert_eq!(board["orientation"], "black");
    assert_eq!(board["orientationSource"], "given");
    assert_eq!(board["sideToMove"], "b");
    assert!(board["links"]["lichessAnalysis"]
        .as_str()
        .unwrap()
        .starts_with("https://lichess.org/analysis/"));

    // A raw body works too.
    let first = &fixtures()[0];
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "image/png")],
            &std::fs::read(&first.file).unwrap(),
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");

    // Errors: a text body, not an image, too large, no board, bad options.
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "text/plain")],
            b"hello, I am text",
        )
        .unwrap();
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (415, "not-an-image".into()),
        "{body}"
    );
    let (status, body) = server
        .request("POST", "/api/v1/recognize", &[], b"")
        .unwrap();
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (400, "bad-request".into()),
        "{body}"
    );

    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[("image", Some("a.png"), b"just text")],
    );
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (415, "not-an-image".into()),
        "{body}"
    );

    let big = vec![0u8; 3_000_000];
    let (status, body) =
        server.post_multipart("/api/v1/recognize", &[("image", Some("big.png"), &big)]);
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (413, "image-too-large".into()),
        "{body}"
    );

    let negative = std::fs::read_dir(crate::util::testdata().join("negative"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[("image", Some("n.png"), &std::fs::read(negative).unwrap())],
    );
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (422, "no-board-found".into()),
        "{body}"
    );

    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[
            ("image", Some("board.png"), &image),
            ("options", None, b"{\"sideToMove\": \"x\"}"),
        ],
    );
    assert_eq!(
        (status, json(&body)["code"].clone()),
        (400, "bad-request".into()),
        "{body}"
    );
}

#[test]
fn analyze_limits_and_errors() {
    let server = Server::start(&["--max-movetime-ms", "2000", "--max-depth", "8"]);
    let post = |body: &str| {
        let (status, text) = server
            .request(
                "POST",
                "/api/v1/analyze",
                &[("Content-Type", "application/json")],
                body.as_bytes(),
            )
            .unwrap();
        (status, json(&text))
    };

    // Mate in 2 (WAC.004): Qxh7+ Kxh7 hxg6#.
    let fen = "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1";
    let (status, body) = post(&format!(r#"{{"fen": "{fen}", "depth": 6, "multiPv": 2}}"#));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bestMove"]["san"], "Qxh7+", "{body}");
    assert_eq!(body["pvs"][0]["mate"], 2, "{body}");
    assert_eq!(body["pvs"][0]["san"][0], "Qxh7+", "{body}");
    assert_eq!(body["pvs"].as_array().unwrap().len(), 2, "{body}");

    // Absurd limits are clamped to the service's bounds, not refused.
    let started = std::time::Instant::now();
    let (status, body) = post(
        r#"{"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "depth": 4000000000, "movetimeMs": 999999999999}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body["depth"].as_u64().unwrap() <= 8, "{body}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));

    for (request, status, code) in [
        (r#"{"fen": "not a fen"}"#, 400, "bad-request"),
        (
            r#"{"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "kkk5/8/8/8/8/8/8/4K3 w - - 0 1"}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "4k2P/8/8/8/8/8/8/4K3 w - - 0 1"}"#,
            422,
            "illegal-position",
        ),
        // Kings side by side, either side to move: once a crash in the search.
        (
            r#"{"fen": "8/8/8/3kK3/8/8/8/8 w - - 0 1", "movetimeMs": 100}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "8/8/8/3kK3/8/8/8/8 b - - 0 1", "movetimeMs": 100}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1"}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "4k3/8/8/8/8/8/PPPPPPPP/QQ2K3 w - - 0 1"}"#,
            422,
            "illegal-position",
        ),
        (
            r#"{"fen": "4k3/8/8/8/8/8/8/4K3 b - e3 0 1"}"#,
            422,
            "illegal-position",
        ),
        (r#"{"fen": 42}"#, 400, "bad-request"),
        (
            r#"{"fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "depth": -3}"#,
            400,
            "bad-request",
        ),
        ("{", 400, "bad-request"),
    ] {
        let (got, body) = post(request);
        assert_eq!(
            (got, body["code"].as_str().unwrap_or("")),
            (status, code),
            "{request}: {body}"
        );
        assert!(
            body["error"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    }
}

#[test]
fn overload_answers_busy() {
    let server = Server::start(&["--max-jobs", "1", "--max-movetime-ms", "3000"]);
    let body = br#"{"fen": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "movetimeMs": 1500}"#;
    std::thread::scope(|scope| {
        let long = scope.spawn(|| {
            server
                .request(
                    "POST",
                    "/api/v1/analyze",
                    &[("Content-Type", "application/json")],
                    body,
                )
                .unwrap()
        });
        std::thread::sleep(std::time::Duration::from_millis(400));
        let (status, text) = server
            .request(
                "POST",
                "/api/v1/analyze",
                &[("Content-Type", "application/json")],
                body,
            )
            .unwrap();
        assert_eq!(
            (status, json(&text)["code"].clone()),
            (503, "busy".into()),
            "{text}"
        );
        assert_eq!(long.join().unwrap().0, 200);
    });
}

#[test]
fn openapi_describes_the_routes() {
    let server = Server::start(&[]);
    let (status, body) = server.request("GET", "/openapi.json", &[], b"").unwrap();
    assert_eq!(status, 200);
    let spec = json(&body);
    assert!(
        spec["openapi"].as_str().unwrap().starts_with("3."),
        "{spec}"
    );
    for path in ["/api/v1/recognize", "/api/v1/analyze", "/api/v1/health"] {
        assert!(spec["paths"][path].is_object(), "{path} missing");
    }
    for schema in ["BoardReading", "Analysis", "ErrorBody"] {
        assert!(
            spec["components"]["schemas"][schema].is_object(),
            "{schema} missing"
        );
    }
    let sources = spec["components"]["schemas"]["SideSource"].to_string();
    for source in ["given", "caption", "highlight", "default"] {
        assert!(sources.contains(&format!("\"{source}\"")), "{sources}");
    }
}

#[test]
fn serve_listens_on_the_port_given_by_port() {
    use std::{
        net::TcpListener,
        process::{Command, Stdio},
        time::{Duration, Instant},
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(["serve", "--no-library", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let answered = loop {
        if let Ok(reply) = crate::util::exchange(port, "GET", "/api/v1/health", &[], b"") {
            break reply.status;
        }
        if Instant::now() > deadline {
            break 0;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(answered, 200, "nothing answered on 127.0.0.1:{port}");
}
