//! The access token (`serve --access-token`): what it guards in each scope,
//! and that a guarded write without it changes nothing.

use crate::util::{exchange, fixtures, Server};

const TOKEN: &str = "correct horse battery staple";

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

#[test]
fn the_token_guards_the_library_and_leaves_recognition_open() {
    let server = Server::start(&["--access-token", TOKEN]);
    let image = std::fs::read(&fixtures()[0].file).unwrap();
    let read = exchange(
        server.port,
        "POST",
        "/api/v1/recognize",
        &[("Content-Type", "image/png")],
        &image,
    )
    .unwrap();
    assert_eq!(read.status, 200, "{}", read.body);
    let scan = read.json()["boards"][0]["scanId"].as_u64().expect("kept");

    // Without the token, or with a wrong one: 401, and the scan stays.
    for headers in [vec![], vec![("Authorization", "Bearer wrong")]] {
        let listed = exchange(server.port, "GET", "/api/v1/scans", &headers, b"").unwrap();
        assert_eq!(listed.status, 401, "{}", listed.body);
        assert_eq!(listed.json()["code"], "unauthorized");
        assert!(listed
            .header("WWW-Authenticate")
            .is_some_and(|v| v.starts_with("Bearer")));
        let deleted = exchange(
            server.port,
            "DELETE",
            "/api/v1/scans?all=true",
            &headers,
            b"",
        )
        .unwrap();
        assert_eq!(deleted.status, 401, "{}", deleted.body);
    }
    // A percent-encoded path routes to the library too, and is guarded as it.
    let encoded = exchange(server.port, "DELETE", "/api/v1/%73cans?all=true", &[], b"").unwrap();
    assert_eq!(encoded.status, 401, "{}", encoded.body);
    let thumbnail = format!("/api/v1/scans/{scan}/boards/0/thumbnail.png");
    assert_eq!(
        exchange(server.port, "GET", &thumbnail, &[], b"")
            .unwrap()
            .status,
        401
    );

    // With the token as a bearer header, or as the page's cookie.
    let auth = bearer();
    let listed = exchange(
        server.port,
        "GET",
        "/api/v1/scans",
        &[("Authorization", &auth)],
        b"",
    )
    .unwrap();
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(
        listed.json()["total"],
        1,
        "the refused delete removed nothing"
    );
    let cookie = format!("boardscan_token={}", TOKEN.replace(' ', "%20"));
    let picture = exchange(server.port, "GET", &thumbnail, &[("Cookie", &cookie)], b"").unwrap();
    assert_eq!(picture.status, 200, "{}", picture.body);
    assert_eq!(picture.header("Content-Type"), Some("image/png"));

    // The page, the probes and the API description stay open.
    for open in ["/", "/api/v1/health/ready", "/openapi.json"] {
        assert_eq!(
            exchange(server.port, "GET", open, &[], b"").unwrap().status,
            200,
            "{open}"
        );
    }
}

#[test]
fn scope_all_guards_analysis_but_not_the_probes() {
    let server = Server::start(&[
        "--no-library",
        "--access-token",
        TOKEN,
        "--token-scope",
        "all",
    ]);
    let body = br#"{"fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "depth": 2}"#;
    let json = [("Content-Type", "application/json")];
    let refused = exchange(server.port, "POST", "/api/v1/analyze", &json, body).unwrap();
    assert_eq!(refused.status, 401, "{}", refused.body);
    let auth = bearer();
    let allowed = exchange(
        server.port,
        "POST",
        "/api/v1/analyze",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        body,
    )
    .unwrap();
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    for open in ["/", "/api/v1/health", "/metrics"] {
        assert_eq!(
            exchange(server.port, "GET", open, &[], b"").unwrap().status,
            200,
            "{open}"
        );
    }
}
