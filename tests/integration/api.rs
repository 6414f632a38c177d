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

    // Errors: not an image, too large, no board, bad options.
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
