//! The scan library through the service, the CLI and a killed server, on
//! SQLite and on a real PostgreSQL server started here.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use serde_json::Value;

use crate::util::{boardscan, describe, exchange, fixtures, Server};

/// Posts `bytes` as the `image` field named `name`; returns status and JSON.
fn recognize(server: &Server, name: &str, bytes: &[u8], options: Option<&str>) -> (u16, Value) {
    let mut fields: Vec<(&str, Option<&str>, &[u8])> = vec![("image", Some(name), bytes)];
    if let Some(options) = options {
        fields.push(("options", None, options.as_bytes()));
    }
    let (status, body) = server.post_multipart("/api/v1/recognize", &fields);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn get(server: &Server, path: &str) -> (u16, Value) {
    let (status, body) = server.request("GET", path, &[], b"").expect("request");
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn send_json(server: &Server, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let (status, body) = server
        .request(
            method,
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
        .expect("request");
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn library_cli(library: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["library", "--library", library];
    all.extend_from_slice(args);
    let output = boardscan(&all);
    assert!(output.status.success(), "{}", describe(&all, &output));
    output
}

/// Recognize, dedupe, thumbnail, correct, search, export and delete over
/// HTTP; the same entries seen by a second server (a replica) on the same
/// library; then the CLI on it. `location` is a SQLite path or a PostgreSQL URL.
fn exercise_library(location: &str, workdir: &Path) {
    let fixtures = fixtures();
    let (first, second) = (&fixtures[0], &fixtures[2]);
    let server = Server::start(&["--library", location]);
    let replica = Server::start(&["--library", location]);

    let bytes = std::fs::read(&first.file).unwrap();
    let (status, body) = recognize(&server, "first.png", &bytes, None);
    assert_eq!(status, 200, "{body}");
    let id = body["scanId"].as_i64().expect("scanId");
    assert_eq!(body["boards"][0]["scanId"], id);
    assert_eq!(body["boards"][0]["scanBoard"], 0);
    assert!(body["boards"][0]["fen"]
        .as_str()
        .unwrap()
        .starts_with(&first.board_fen));
    // The same picture again is the same entry, on either replica.
    let (_, again) = recognize(&replica, "again.png", &bytes, None);
    assert_eq!(again["scanId"], id);
    // Not saved when asked.
    let other = std::fs::read(&second.file).unwrap();
    let (status, unsaved) = recognize(&server, "second.png", &other, Some(r#"{"save":false}"#));
    assert_eq!(status, 200);
    assert!(unsaved.get("scanId").is_none(), "{unsaved}");
    let (_, saved) = recognize(&server, "second.png", &other, None);
    let second_id = saved["scanId"].as_i64().unwrap();
    assert_ne!(second_id, id);

    let (status, page) = get(&replica, "/api/v1/scans?perPage=10");
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 2);
    assert_eq!(page["scans"][0]["id"], second_id, "newest first");
    let (status, scan) = get(&replica, &format!("/api/v1/scans/{id}"));
    assert_eq!(status, 200);
    assert_eq!(scan["timesScanned"], 2);
    assert_eq!(scan["sourceName"], "first.png");
    assert_eq!(scan["boards"][0]["hasThumbnail"], true);
    assert!(scan["boards"][0]["reading"]["squares"].is_array());

    let thumb = exchange(
        replica.port,
        "GET",
        &format!("/api/v1/scans/{id}/boards/0/thumbnail.png"),
        &[],
        b"",
    )
    .unwrap();
    assert_eq!(thumb.status, 200);
    assert_eq!(thumb.header("content-type"), Some("image/png"));
    assert!(thumb.body.as_bytes().starts_with(b"\x89PNG") || thumb.body.contains("PNG"));

    // A person's correction: another side to move and a changed square.
    let read_fen = scan["boards"][0]["fen"].as_str().unwrap().to_string();
    let corrected = "4k3/8/8/8/8/8/8/R3K3 b Q - 0 1";
    let path = format!("/api/v1/scans/{id}/boards/0/corrections");
    let (status, board) = send_json(
        &server,
        "POST",
        &path,
        &serde_json::json!({ "fen": corrected }),
    );
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["corrected"], true);
    assert_eq!(board["readFen"], read_fen.as_str());
    assert_eq!(board["corrections"][0]["previousFen"], read_fen.as_str());
    let (status, err) = send_json(
        &server,
        "POST",
        &path,
        &serde_json::json!({ "fen": "8/8/8 w" }),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("bad-request")),
        "{err}"
    );
    let (status, err) = send_json(
        &server,
        "POST",
        &format!("/api/v1/scans/{id}/boards/7/corrections"),
        &serde_json::json!({ "fen": corrected }),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (404, Some("not-found")),
        "{err}"
    );

    // An analysis run on the board is kept with it.
    let (status, analysis) = send_json(
        &server,
        "POST",
        "/api/v1/analyze",
        &serde_json::json!({ "fen": corrected, "movetimeMs": 100, "scanId": id, "scanBoard": 0 }),
    );
    assert_eq!(status, 200, "{analysis}");
    let (_, scan) = get(&replica, &format!("/api/v1/scans/{id}"));
    assert_eq!(scan["boards"][0]["analysis"]["fen"], analysis["fen"]);
    assert!(
        scan["boards"][0]["analysis"]["bestMove"]["uci"].is_string(),
        "{scan}"
    );
    // So is the final analysis of a live stream naming the board.
    let query = format!(
        "/api/v1/analyze/stream?fen={}&depth=2&multiPv=2&scanId={id}&scanBoard=0",
        corrected.replace(' ', "%20")
    );
    let (status, events) = server.request("GET", &query, &[], b"").expect("stream");
    assert_eq!(status, 200, "{events}");
    assert!(events.contains("event: done"), "{events}");
    let (_, scan) = get(&replica, &format!("/api/v1/scans/{id}"));
    let kept = &scan["boards"][0]["analysis"];
    assert_eq!(
        (kept["depth"].as_u64(), kept["pvs"].as_array().map(Vec::len)),
        (Some(2), Some(2)),
        "{scan}"
    );
    let (status, err) = send_json(
        &server,
        "POST",
        "/api/v1/analyze",
        &serde_json::json!({ "fen": corrected, "movetimeMs": 50, "scanId": 999_999 }),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (404, Some("not-found")),
        "{err}"
    );

    // Search.
    let count = |query: &str| get(&replica, &format!("/api/v1/scans?{query}")).1["total"].clone();
    assert_eq!(count("corrected=true"), 1);
    assert_eq!(count("corrected=false"), 1);
    assert_eq!(count("material=KRvK"), 1);
    assert_eq!(count("placement=4k3/8/8/8/8/8/8/R3K3"), 1);
    assert_eq!(count("fen=4k3/8/8/8/8/8/8/R3K3%20b%20Q%20-"), 1);
    assert_eq!(count("fen=4k3/8/8/8/8/8/8/R3K3%20w%20Q%20-"), 0);
    let (status, err) = get(&replica, "/api/v1/scans?material=rooks");
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("bad-request")),
        "{err}"
    );
    let (status, far) = get(
        &replica,
        "/api/v1/scans?page=18446744073709551615&perPage=0",
    );
    assert_eq!(status, 200, "{far}");
    assert_eq!(far["scans"].as_array().map(Vec::len), Some(0));
    let (status, err) = get(&replica, "/api/v1/scans?perPage=many");
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("bad-request")),
        "{err}"
    );

    // Export.
    let (status, pgn) = replica
        .request(
            "GET",
            "/api/v1/scans/export?format=pgn&corrected=true",
            &[],
            b"",
        )
        .unwrap();
    assert_eq!(status, 200);
    assert!(pgn.contains(&format!("[FEN \"{corrected}\"]")), "{pgn}");
    assert_eq!(pgn.matches("[Event ").count(), 1);
    let (_, csv) = replica
        .request("GET", "/api/v1/scans/export?format=csv", &[], b"")
        .unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");

    // The CLI on the same library, while the servers run.
    let listed = library_cli(location, &["list", "--corrected"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains(&format!("{id}\t0\t{corrected} *\tfirst.png")),
        "{text}"
    );
    let epd = library_cli(
        location,
        &["export", "--format", "epd", "--material", "KRvK"],
    );
    let epd = String::from_utf8_lossy(&epd.stdout);
    assert!(
        epd.starts_with("4k3/8/8/8/8/8/8/R3K3 b Q - id \"scan"),
        "{epd}"
    );
    let dir = workdir.join("corrections");
    library_cli(location, &["export-corrections", dir.to_str().unwrap()]);
    let labels = std::fs::read_to_string(dir.join("labels.csv")).unwrap();
    assert_eq!(
        labels,
        format!(
            "file,fen,view,kind\nimages/scan-{id}-0.png,4k3/8/8/8/8/8/8/R3K3,white,correction\n"
        )
    );
    let png = std::fs::read(dir.join(format!("images/scan-{id}-0.png"))).unwrap();
    let picture = image::load_from_memory(&png).unwrap();
    assert!(
        picture.width() >= 128 && picture.width() <= 256,
        "{}",
        picture.width()
    );
    // The exported picture is a board the recognizer finds again: `eval`
    // reads the export (and scores the model against the correction).
    let eval = boardscan(&["eval", dir.to_str().unwrap()]);
    assert!(eval.status.success(), "{}", describe(&["eval"], &eval));
    let report = library_cli(location, &["report"]);
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(report.contains("corrected boards: 1"), "{report}");

    // Delete.
    let (status, _) = server
        .request("DELETE", &format!("/api/v1/scans/{second_id}"), &[], b"")
        .unwrap();
    assert_eq!(status, 204);
    let (status, err) = get(&replica, &format!("/api/v1/scans/{second_id}"));
    assert_eq!((status, err["code"].as_str()), (404, Some("not-found")));
    let (status, err) = get(&replica, "/api/v1/scans/999999/boards/0/thumbnail.png");
    assert_eq!((status, err["code"].as_str()), (404, Some("not-found")));
    let (status, err) = get(&replica, "/api/v1/scans/abc");
    assert_eq!((status, err["code"].as_str()), (404, Some("not-found")));
    let (status, _) = server.request("DELETE", "/api/v1/scans", &[], b"").unwrap();
    assert_eq!(status, 400, "deleting everything needs all=true");
    let (status, deleted) = send_json(&server, "DELETE", "/api/v1/scans?all=true", &Value::Null);
    assert_eq!((status, deleted["deleted"].as_u64()), (200, Some(1)));
    assert_eq!(get(&replica, "/api/v1/scans").1["total"], 0);
}

#[test]
fn library_on_sqlite_through_the_api_and_cli() {
    let dir = tempfile::tempdir().unwrap();
    let location = dir.path().join("lib").join("library.sqlite3");
    exercise_library(location.to_str().unwrap(), dir.path());
}

#[test]
fn a_service_without_a_library_saves_nothing_and_says_so() {
    let server = Server::start(&["--no-library"]);
    let bytes = std::fs::read(&fixtures()[0].file).unwrap();
    let (status, body) = recognize(&server, "a.png", &bytes, None);
    assert_eq!(status, 200);
    assert!(body.get("scanId").is_none());
    let (status, err) = get(&server, "/api/v1/scans");
    assert_eq!((status, err["code"].as_str()), (404, Some("library-off")));
}

#[test]
fn import_of_batch_csv_and_ndjson_and_delete_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("lib.sqlite3");
    let library = library.to_str().unwrap();
    let csv = dir.path().join("out.csv");
    std::fs::write(
        &csv,
        "file,page,board,fen,confidence,legal,error\n\
         a.png,,,8/5pk1/8/8/8/8/r4PPP/3R2K1 w - - 0 1,0.9900,true,\n\
         \"b,book.pdf\",3,1,4k3/8/8/8/8/8/8/4K2Q w - - 0 1,0.5000,true,\n\
         \"b,book.pdf\",3,2,4k3/8/8/8/8/8/8/R3K3 w - - 0 1,0.8000,true,\n\
         \"b,book.pdf\",4,,,,,\n\
         broken.png,,,,,,no chessboard found in the image\n",
    )
    .unwrap();
    let out = library_cli(library, &["import", csv.to_str().unwrap()]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "imported 2 new scans, 0 already in the library, 2 records without a board"
    );
    let ndjson = dir.path().join("out.ndjson");
    std::fs::write(
        &ndjson,
        "{\"file\":\"a.png\",\"page\":null,\"boards\":[{\"fen\":\"8/5pk1/8/8/8/8/r4PPP/3R2K1 w - - 0 1\",\"confidence\":0.99}]}\n\
         {\"file\":\"c.png\",\"page\":null,\"boards\":[{\"fen\":\"6k1/8/8/8/8/8/r7/3R2K1 w - - 0 1\",\"confidence\":0.7,\"orientation\":\"black\"}]}\n\
         {\"file\":\"d.png\",\"error\":\"not an image\"}\n",
    )
    .unwrap();
    let out = library_cli(library, &["import", ndjson.to_str().unwrap()]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "imported 1 new scans, 1 already in the library, 1 records without a board"
    );
    let listed = library_cli(library, &["list", "--material", "KRvKR"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("\tc.png"), "{text}");
    let shown = library_cli(library, &["list", "--json"]);
    let page: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(page["total"], 3);
    let book = page["scans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sourceName"] == "b,book.pdf")
        .unwrap();
    assert_eq!(book["page"], 3);
    assert_eq!(book["boards"].as_array().unwrap().len(), 2);
    let id = book["id"].as_i64().unwrap().to_string();
    library_cli(library, &["delete", &id]);
    let args = ["library", "--library", library, "show", &id];
    let missing = boardscan(&args);
    assert_eq!(
        missing.status.code(),
        Some(2),
        "{}",
        describe(&args, &missing)
    );
    assert!(String::from_utf8_lossy(&missing.stderr).contains(&format!("no scan {id}")));
    let not_batch = dir.path().join("notes.txt");
    std::fs::write(&not_batch, "hello\n").unwrap();
    let args = [
        "library",
        "--library",
        library,
        "import",
        not_batch.to_str().unwrap(),
    ];
    let refused = boardscan(&args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a batch CSV"));
}

#[test]
fn a_corrupt_library_is_refused_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.sqlite3");
    std::fs::write(
        &path,
        b"this is not a database, just some text ".repeat(200),
    )
    .unwrap();
    let location = path.to_str().unwrap();
    let args = ["library", "--library", location, "list"];
    let out = boardscan(&args);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(location) && stderr.contains("damaged"),
        "{stderr}"
    );
    let args = ["serve", "--bind", "127.0.0.1:0", "--library", location];
    let out = boardscan(&args);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&args, &out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("damaged"));
}

/// A distinct picture each time: a fixture with bytes after its end, which
/// decoders ignore and the content hash does not.
fn variant(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(format!("variant {n}").as_bytes());
    out
}

/// Posts distinct pictures (distinct for each `salt`) from `threads` clients until `stop` or `each`
/// pictures each (a `busy` answer is retried); returns every acknowledged
/// scan id.
fn batch(
    server_port: u16,
    salt: usize,
    threads: usize,
    each: usize,
    stop: Arc<AtomicBool>,
) -> Vec<i64> {
    let fixtures = fixtures();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let bytes = std::fs::read(&fixtures[t % fixtures.len()].file).unwrap();
            let (acked, stop) = (acked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while i < each {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let picture = variant(&bytes, salt * 1_000_000 + t * 10_000 + i);
                    let boundary = "library-test-boundary";
                    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"b{t}-{i}.png\"\r\n\r\n").into_bytes();
                    body.extend_from_slice(&picture);
                    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
                    let content_type = format!("multipart/form-data; boundary={boundary}");
                    let reply = exchange(server_port, "POST", "/api/v1/recognize", &[("Content-Type", &content_type)], &body);
                    let Ok(reply) = reply else { return };
                    if reply.status == 503 {
                        // busy: the same picture again, a little later
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    i += 1;
                    if reply.status != 200 {
                        return;
                    }
                    if let Some(id) = serde_json::from_str::<Value>(&reply.body).ok().and_then(|v| v["scanId"].as_i64()) {
                        acked.lock().unwrap().push(id);
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let ids = acked.lock().unwrap().clone();
    ids
}

#[test]
fn every_acknowledged_scan_survives_a_killed_server() {
    let dir = tempfile::tempdir().unwrap();
    let location = dir.path().join("library.sqlite3");
    let location = location.to_str().unwrap();

    // Concurrent clients: every acknowledged scan is there, and only those.
    let server = Server::start(&["--library", location]);
    let acked = batch(server.port, 1, 8, 3, Arc::new(AtomicBool::new(false)));
    assert_eq!(acked.len(), 24, "every picture is answered with its scanId");
    assert_eq!(get(&server, "/api/v1/scans").1["total"], acked.len());

    // Kill -9 in the middle of another batch.
    let stop = Arc::new(AtomicBool::new(false));
    let port = server.port;
    let clients = {
        let stop = stop.clone();
        std::thread::spawn(move || batch(port, 2, 6, 1000, stop))
    };
    std::thread::sleep(Duration::from_millis(2500));
    drop(server); // SIGKILL, whatever it is doing
    stop.store(true, Ordering::Relaxed);
    let during = clients.join().unwrap();
    assert!(
        !during.is_empty(),
        "no scan was acknowledged before the kill"
    );

    let server = Server::start(&["--library", location]);
    let (_, page) = get(&server, "/api/v1/scans?perPage=1");
    let total = page["total"].as_u64().unwrap() as usize;
    // Every acknowledged scan is there (a scan stored but killed before its
    // answer left may be there too).
    assert!(
        total >= acked.len() + during.len(),
        "{total} < {} + {}",
        acked.len(),
        during.len()
    );
    for id in acked.iter().chain(&during) {
        let (status, scan) = get(&server, &format!("/api/v1/scans/{id}"));
        assert_eq!(status, 200, "scan {id}: {scan}");
        assert!(
            !scan["boards"].as_array().unwrap().is_empty(),
            "scan {id} lost its boards"
        );
        let thumb = exchange(
            server.port,
            "GET",
            &format!("/api/v1/scans/{id}/boards/0/thumbnail.png"),
            &[],
            b"",
        )
        .unwrap();
        assert_eq!(thumb.status, 200, "scan {id}'s thumbnail");
    }
    // And the restarted service keeps saving.
    let (status, body) = recognize(
        &server,
        "after.png",
        &variant(&std::fs::read(&fixtures()[1].file).unwrap(), 1),
        None,
    );
    assert_eq!(status, 200);
    assert!(body["scanId"].as_i64().is_some());
}

/// A throwaway PostgreSQL cluster in a temporary folder on a free port,
/// stopped on drop.
struct PgCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    user: Option<&'static str>,
}

impl PgCluster {
    /// `None` (after a loud message) when the PostgreSQL binaries are absent.
    fn start() -> Option<PgCluster> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("bin"))
            .filter(|b| b.join("initdb").is_file() && b.join("pg_ctl").is_file())
            .max()?;
        // PostgreSQL refuses to run as root: run it as `postgres` then.
        let user = (unsafe { libc::geteuid() } == 0).then_some("postgres");
        let dir = tempfile::tempdir().unwrap();
        if let Some(user) = user {
            let status = Command::new("chown")
                .args(["-R", user, dir.path().to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success(), "chown the cluster folder to {user}");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = PgCluster {
            dir,
            bin,
            port,
            user,
        };
        let data = cluster.dir.path().join("data");
        let data = data.to_str().unwrap();
        cluster.run(
            "initdb",
            &[
                "-D",
                data,
                "-U",
                "boardscan",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            cluster.dir.path().display()
        );
        cluster.run(
            "pg_ctl",
            &[
                "-D",
                data,
                "-o",
                &options,
                "-l",
                &format!("{}/log", cluster.dir.path().display()),
                "-w",
                "start",
            ],
        );
        Some(cluster)
    }

    fn run(&self, program: &str, args: &[&str]) {
        let exe = self.bin.join(program);
        let mut command = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        let out = command.args(args).stdin(Stdio::null()).output().unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn url(&self) -> String {
        format!("postgres://boardscan@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let exe = self.bin.join("pg_ctl");
        let mut command = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        let _ = command
            .args([
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn library_on_a_real_postgresql_server_shared_by_two_replicas() {
    let Some(cluster) = PgCluster::start() else {
        // CI sets this: there the test must run, not skip.
        assert!(
            std::env::var_os("BOARDSCAN_REQUIRE_POSTGRES").is_none(),
            "no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)"
        );
        eprintln!("\n*** SKIPPED library_on_a_real_postgresql_server: no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql) ***\n");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    exercise_library(&cluster.url(), work.path());
    // An unreachable server is a clear error, naming it without a password.
    let url = format!(
        "postgres://boardscan:secret@127.0.0.1:{}/postgres",
        cluster.port + 1
    );
    let args = ["library", "--library", url.as_str(), "list"];
    let out = boardscan(&args);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot be reached") && !stderr.contains("secret"),
        "{stderr}"
    );
    // And it says why the connection failed.
    assert!(stderr.contains("Connection refused"), "{stderr}");
}

#[test]
fn a_service_on_postgresql_stops_cleanly_on_sigterm() {
    let Some(cluster) = PgCluster::start() else {
        assert!(
            std::env::var_os("BOARDSCAN_REQUIRE_POSTGRES").is_none(),
            "no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)"
        );
        eprintln!("\n*** SKIPPED a_service_on_postgresql_stops_cleanly_on_sigterm: no PostgreSQL binaries ***\n");
        return;
    };
    let server = Server::start(&["--library", &cluster.url()]);
    let bytes = std::fs::read(&fixtures()[0].file).unwrap();
    let (status, body) = recognize(&server, "first.png", &bytes, None);
    assert_eq!(status, 200, "{body}");
    let status = server.terminate();
    assert!(status.success(), "{status}");
}

impl PgCluster {
    /// Sends `signal` to the server and every process it started.
    fn signal_all(&self, signal: i32) {
        let pid_file =
            std::fs::read_to_string(self.dir.path().join("data/postmaster.pid")).unwrap();
        let postmaster: i32 = pid_file.lines().next().unwrap().trim().parse().unwrap();
        let mut pids = vec![postmaster];
        for task in std::fs::read_dir(format!("/proc/{postmaster}/task"))
            .unwrap()
            .flatten()
        {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            pids.extend(
                children
                    .split_whitespace()
                    .filter_map(|c| c.parse::<i32>().ok()),
            );
        }
        for pid in pids {
            unsafe { libc::kill(pid, signal) };
        }
    }
}

#[test]
fn a_stopped_postgresql_delays_no_recognition_or_analysis() {
    let Some(cluster) = PgCluster::start() else {
        assert!(
            std::env::var_os("BOARDSCAN_REQUIRE_POSTGRES").is_none(),
            "no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)"
        );
        eprintln!("\n*** SKIPPED a_stopped_postgresql_delays_no_recognition_or_analysis: no PostgreSQL binaries ***\n");
        return;
    };
    let server = Server::start(&[
        "--library",
        &cluster.url(),
        "--library-timeout-ms",
        "1000",
        "--cpu-workers",
        "1",
    ]);
    let bytes = std::fs::read(&fixtures()[0].file).unwrap();
    let (status, body) = recognize(&server, "first.png", &bytes, None);
    assert_eq!(status, 200, "{body}");
    assert!(body["scanId"].as_i64().is_some(), "{body}");
    // The database stops answering (its processes frozen, connections open).
    cluster.signal_all(libc::SIGSTOP);
    let answers = std::thread::scope(|scope| {
        let (sent, answers) = std::sync::mpsc::channel();
        for i in 0..3 {
            let (sent, server, bytes) = (sent.clone(), &server, &bytes);
            scope.spawn(move || {
                let _ = sent.send(recognize(server, "again.png", &variant(bytes, i + 1), None));
            });
        }
        let analysis = send_json(
            &server,
            "POST",
            "/api/v1/analyze",
            &serde_json::json!({ "fen": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "depth": 4 }),
        );
        let got: Vec<(u16, Value)> = (0..3)
            .map(|_| {
                answers
                    .recv_timeout(Duration::from_secs(120))
                    .expect("a recognition was not answered")
            })
            .collect();
        cluster.signal_all(libc::SIGCONT);
        (analysis, got)
    });
    let (analysis, recognitions) = answers;
    assert_eq!(analysis.0, 200, "{}", analysis.1);
    for (status, body) in recognitions {
        // Read and answered, the library's failure said.
        assert_eq!(status, 200, "{body}");
        assert!(
            body["boards"].as_array().is_some_and(|b| !b.is_empty()),
            "{body}"
        );
        assert!(body.get("scanId").is_none(), "{body}");
        assert!(
            body["libraryError"]
                .as_str()
                .is_some_and(|e| e.contains("did not answer within 1000 ms")),
            "{body}"
        );
    }
}

#[test]
fn a_pdf_is_one_entry_a_page_and_the_routes_are_described() {
    let server = Server::start(&[]);
    let pdf = std::fs::read(crate::util::testdata().join("pdf/book-typeset.pdf")).unwrap();
    let (status, body) = recognize(&server, "book.pdf", &pdf, None);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.get("scanId").is_none(),
        "a PDF's pages each have their own"
    );
    let boards = body["boards"].as_array().unwrap();
    let places: Vec<(i64, i64, i64)> = boards
        .iter()
        .map(|b| {
            (
                b["page"].as_i64().unwrap(),
                b["scanId"].as_i64().unwrap(),
                b["scanBoard"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(places.len(), 3, "{body}");
    let (page1, page2) = (places[0].1, places[1].1);
    assert_ne!(page1, page2);
    assert_eq!(places, vec![(1, page1, 0), (2, page2, 0), (2, page2, 1)]);
    let (_, scan) = get(&server, &format!("/api/v1/scans/{page2}"));
    assert_eq!(scan["page"], 2);
    assert_eq!(scan["sourceName"], "book.pdf");
    assert_eq!(scan["boards"][1]["fen"], boards[2]["fen"]);
    assert_eq!(scan["boards"][1]["reading"]["index"], 2);

    let (_, spec) = get(&server, "/openapi.json");
    for (path, method) in [
        ("/api/v1/scans", "get"),
        ("/api/v1/scans", "delete"),
        ("/api/v1/scans/export", "get"),
        ("/api/v1/scans/{id}", "get"),
        ("/api/v1/scans/{id}", "delete"),
        ("/api/v1/scans/{id}/boards/{board}/thumbnail.png", "get"),
        ("/api/v1/scans/{id}/boards/{board}/corrections", "post"),
    ] {
        assert!(
            spec["paths"][path][method].is_object(),
            "{method} {path} missing"
        );
    }
    for schema in ["Scan", "StoredBoard", "ScanPage", "RecognizedBoard"] {
        assert!(
            spec["components"]["schemas"][schema].is_object(),
            "{schema} missing"
        );
    }
}
