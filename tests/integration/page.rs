//! The web page's assets as the real server serves them, and the notation
//! of the live analysis stream the page asks for (`lang`, `notation`).

use crate::util::{exchange, Server};

const ITALIAN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3";

fn get(server: &Server, path: &str) -> crate::util::Reply {
    exchange(server.port, "GET", path, &[], b"").expect("request")
}

/// The `./name.js?v=stamp` imports of a module.
fn imports(module: &str) -> Vec<(String, String)> {
    module
        .split("from './")
        .skip(1)
        .filter_map(|rest| {
            let spec = &rest[..rest.find('\'')?];
            let (name, stamp) = spec.split_once("?v=")?;
            Some((name.to_string(), stamp.to_string()))
        })
        .collect()
}

#[test]
fn every_module_of_the_page_is_served_with_the_pages_stamp() {
    let server = Server::start(&[]);
    let page = get(&server, "/");
    assert_eq!(page.status, 200);
    let at = page.body.find("/static/app.js?v=").expect("app.js linked") + 17;
    let stamp = &page.body[at..at + 16];
    assert!(stamp.chars().all(|c| c.is_ascii_hexdigit()), "{stamp}");

    let mut todo = vec!["app.js".to_string()];
    let mut seen = Vec::new();
    while let Some(name) = todo.pop() {
        if seen.contains(&name) {
            continue;
        }
        let reply = get(&server, &format!("/static/{name}?v={stamp}"));
        assert_eq!(reply.status, 200, "{name}");
        assert!(
            reply
                .header("content-type")
                .unwrap_or_default()
                .starts_with("text/javascript"),
            "{name}"
        );
        for (import, its_stamp) in imports(&reply.body) {
            assert_eq!(its_stamp, stamp, "{name} imports {import}");
            todo.push(import);
        }
        seen.push(name);
    }
    for module in [
        "app.js",
        "i18n.js",
        "api.js",
        "board.js",
        "line.js",
        "analysis.js",
        "coach.js",
        "analysis-board.js",
        "vendor/chess.js",
    ] {
        assert!(
            seen.iter().any(|s| s == module),
            "{module} not reached: {seen:?}"
        );
    }
    assert_eq!(get(&server, "/static/nothing.js").status, 404);
}

/// The analyses (`depth` and `done` payloads) of a finished event stream.
fn stream_events(server: &Server, query: &str) -> Vec<serde_json::Value> {
    let reply = get(server, &format!("/api/v1/analyze/stream?{query}"));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let mut name = "";
    let mut analyses = Vec::new();
    for line in reply.body.lines() {
        if let Some(event) = line.strip_prefix("event: ") {
            name = event;
        } else if let Some(data) = line.strip_prefix("data: ") {
            if name == "depth" || name == "done" {
                analyses.push(serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}")));
            }
        }
    }
    analyses
}

#[test]
fn the_stream_writes_moves_in_the_language_and_notation_asked() {
    let server = Server::start(&[]);
    let fen = ITALIAN.replace(' ', "%20").replace('/', "%2F");
    let plain = stream_events(&server, &format!("fen={fen}&depth=3&multiPv=2"));
    let figurine = stream_events(
        &server,
        &format!("fen={fen}&depth=3&multiPv=2&lang=figurine&notation=long"),
    );
    assert_eq!(
        plain.len(),
        figurine.len(),
        "one event per depth, then done"
    );
    assert!(plain.len() >= 4, "{plain:?}");
    for (p, f) in plain.iter().zip(&figurine) {
        assert_eq!(p["bestMove"]["uci"], f["bestMove"]["uci"], "same search");
        for (pp, fp) in p["pvs"]
            .as_array()
            .unwrap()
            .iter()
            .zip(f["pvs"].as_array().unwrap())
        {
            assert_eq!(pp["moves"], fp["moves"]);
            for (san, long) in pp["san"]
                .as_array()
                .unwrap()
                .iter()
                .zip(fp["san"].as_array().unwrap())
            {
                let (san, long) = (san.as_str().unwrap(), long.as_str().unwrap());
                // Long algebraic names both squares: "♘g8-f6", "e7xd6", "O-O".
                assert!(
                    long.starts_with("O-O") || long.contains('-') || long.contains('x'),
                    "{long}"
                );
                let piece = san.chars().next().unwrap();
                if "KQRBN".contains(piece) {
                    assert!(
                        ('\u{2654}'..='\u{265F}').contains(&long.chars().next().unwrap()),
                        "{san} → {long}"
                    );
                }
            }
        }
    }
    let bad = get(
        &server,
        &format!("/api/v1/analyze/stream?fen={fen}&lang=klingon"),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
}
