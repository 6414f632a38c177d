//! Operations: `/metrics`, the liveness and readiness probes, request ids,
//! JSON logs and what the probes see on SIGTERM, on the real server.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use crate::util::{exchange, fixtures, Reply, Server};

fn get(port: u16, path: &str) -> Reply {
    exchange(port, "GET", path, &[], b"").unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

fn analyze(port: u16, movetime_ms: u64) -> Reply {
    let body = format!(
        r#"{{"fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","movetimeMs":{movetime_ms}}}"#
    );
    exchange(
        port,
        "POST",
        "/api/v1/analyze",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    )
    .expect("POST /api/v1/analyze")
}

/// One sample line of the text exposition format.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the Prometheus text format strictly: every sample's family has a
/// `# TYPE`, every line is well formed; returns the types and the samples.
fn parse_exposition(text: &str) -> (HashMap<String, String>, Vec<Sample>) {
    let mut types = HashMap::new();
    let mut samples = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect(line);
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "{line}"
            );
            types.insert(name.to_string(), kind.to_string());
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment {line:?}");
        let name_end = line.find(['{', ' ']).expect(line);
        let name = &line[..name_end];
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "{line}"
        );
        let mut labels = BTreeMap::new();
        let mut rest = &line[name_end..];
        if let Some(inner) = rest.strip_prefix('{') {
            let mut chars = inner.char_indices();
            loop {
                let (start, c) = chars.next().expect(line);
                if c == '}' {
                    rest = &inner[start + 1..];
                    break;
                }
                if c == ',' {
                    continue;
                }
                let eq = inner[start..].find("=\"").expect(line) + start;
                let key = inner[start..eq].to_string();
                while chars.next().expect(line).0 < eq + 1 {}
                let mut value = String::new();
                loop {
                    match chars.next().expect(line).1 {
                        '"' => break,
                        '\\' => match chars.next().expect(line).1 {
                            'n' => value.push('\n'),
                            other => value.push(other),
                        },
                        other => value.push(other),
                    }
                }
                labels.insert(key, value);
            }
        }
        let value = rest.trim();
        let value = match value {
            "+Inf" => f64::INFINITY,
            v => v
                .parse()
                .unwrap_or_else(|_| panic!("bad value in {line:?}")),
        };
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|f| types.get(*f).is_some_and(|t| t == "histogram"))
            })
            .unwrap_or(name);
        assert!(types.contains_key(family), "{name} has no # TYPE before it");
        samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    (types, samples)
}

/// The value of the one sample named `name` with exactly these labels.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            s.name == name
                && s.labels.len() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    assert_eq!(found.len(), 1, "{name} {labels:?}: {found:?}");
    found[0].value
}

/// Polls readiness until it answers `want`, counting the answers by status.
fn wait_ready(port: u16, want: u16, counts: &mut BTreeMap<u16, u32>) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = get(port, "/api/v1/health/ready");
        *counts.entry(reply.status).or_default() += 1;
        if reply.status == want {
            return reply;
        }
        assert!(
            Instant::now() < deadline,
            "readiness never answered {want}: {} {}",
            reply.status,
            reply.body
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn metrics_count_requests_jobs_stages_and_speed() {
    let server = Server::start(&[
        "--max-jobs",
        "1",
        "--cpu-workers",
        "1",
        "--max-movetime-ms",
        "3000",
    ]);
    let port = server.port;
    let mut ready = BTreeMap::new();
    let reply = wait_ready(port, 200, &mut ready);
    assert_eq!(
        reply.json(),
        serde_json::json!({"ready": true, "jobsAdmitted": 0, "maxJobs": 1, "jobsRunning": 0, "cpuWorkers": 1})
    );
    // Server::start's own successful health check is the first of three.
    assert_eq!(get(port, "/api/v1/health").status, 200);
    assert_eq!(get(port, "/api/v1/health").status, 200);
    let live = get(port, "/api/v1/health/live");
    assert_eq!(live.status, 200);
    assert_eq!(live.json()["status"], "ok");

    let fixture = &fixtures()[0];
    let image = std::fs::read(&fixture.file).unwrap();
    let recognized = exchange(
        port,
        "POST",
        "/api/v1/recognize",
        &[("Content-Type", "image/png")],
        &image,
    )
    .unwrap();
    assert_eq!(recognized.status, 200, "{}", recognized.body);
    assert_eq!(
        recognized.json()["boards"][0]["boardFen"],
        fixture.board_fen.as_str()
    );
    let short = analyze(port, 200);
    assert_eq!(short.status, 200, "{}", short.body);
    // Random paths all land under one label.
    assert_eq!(get(port, "/no/such/path/8231").status, 404);
    assert_eq!(get(port, "/wp-admin/setup.php?step=1").status, 404);

    // One long analysis takes the only admission.
    let long = std::thread::spawn(move || analyze(port, 2_500));
    let saturated = wait_ready(port, 503, &mut ready);
    assert_eq!(
        saturated.json(),
        serde_json::json!({"ready": false, "reason": "queue-saturated", "jobsAdmitted": 1, "maxJobs": 1,
            "jobsRunning": 1, "cpuWorkers": 1})
    );
    let during = get(port, "/metrics");
    assert_eq!(during.status, 200);
    assert!(
        during
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")),
        "{:?}",
        during.headers
    );
    let (_, samples) = parse_exposition(&during.body);
    assert_eq!(value(&samples, "boardscan_jobs_admitted", &[]), 1.0);
    assert_eq!(value(&samples, "boardscan_jobs_running", &[]), 1.0);
    let refused = analyze(port, 100);
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.json()["code"], "busy");
    let long = long.join().unwrap();
    assert_eq!(long.status, 200, "{}", long.body);
    // The admission is free again by the time the answer arrives.
    let after = get(port, "/api/v1/health/ready");
    assert_eq!(after.status, 200, "{}", after.body);
    *ready.entry(200).or_default() += 1;

    let scrape = get(port, "/metrics");
    assert_eq!(scrape.status, 200);
    let (types, samples) = parse_exposition(&scrape.body);
    assert_eq!(types["boardscan_http_requests_total"], "counter");
    assert_eq!(
        types["boardscan_http_request_duration_seconds"],
        "histogram"
    );
    assert_eq!(types["boardscan_busy_responses_total"], "counter");
    assert_eq!(types["boardscan_jobs_admitted"], "gauge");
    assert_eq!(
        types["boardscan_recognition_stage_duration_seconds"],
        "histogram"
    );
    assert_eq!(types["boardscan_analysis_nodes_per_second"], "histogram");

    let requests = |route: &str, status: &str| {
        value(
            &samples,
            "boardscan_http_requests_total",
            &[("route", route), ("status", status)],
        )
    };
    assert_eq!(requests("/api/v1/health", "200"), 3.0);
    assert_eq!(requests("/api/v1/health/live", "200"), 1.0);
    assert_eq!(
        requests("/api/v1/health/ready", "200"),
        f64::from(ready[&200])
    );
    assert_eq!(
        requests("/api/v1/health/ready", "503"),
        f64::from(ready[&503])
    );
    assert_eq!(requests("/api/v1/recognize", "200"), 1.0);
    assert_eq!(requests("/api/v1/analyze", "200"), 2.0);
    assert_eq!(requests("/api/v1/analyze", "503"), 1.0);
    assert_eq!(requests("unmatched", "404"), 2.0);
    // The scrape during the long analysis; this one is counted after it answers.
    assert_eq!(requests("/metrics", "200"), 1.0);
    let routes: BTreeSet<&str> = samples
        .iter()
        .filter_map(|s| s.labels.get("route").map(String::as_str))
        .collect();
    let known: BTreeSet<&str> = [
        "/api/v1/health",
        "/api/v1/health/live",
        "/api/v1/health/ready",
        "/api/v1/recognize",
        "/api/v1/analyze",
        "/metrics",
        "unmatched",
    ]
    .into();
    assert_eq!(routes, known);

    // Latency: three analyses, one of them 2.5 s long; buckets cumulative.
    let analyze_route = [("route", "/api/v1/analyze")];
    let duration = "boardscan_http_request_duration_seconds";
    assert_eq!(
        value(&samples, &format!("{duration}_count"), &analyze_route),
        3.0
    );
    let sum = value(&samples, &format!("{duration}_sum"), &analyze_route);
    assert!((2.4..30.0).contains(&sum), "{sum}");
    let buckets: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| {
            s.name == format!("{duration}_bucket")
                && s.labels.get("route").map(String::as_str) == Some("/api/v1/analyze")
        })
        .map(|s| {
            let le = &s.labels["le"];
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            (le, s.value)
        })
        .collect();
    assert!(buckets.len() > 5, "{buckets:?}");
    assert!(buckets
        .windows(2)
        .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    assert_eq!(buckets.last().unwrap(), &(f64::INFINITY, 3.0));
    // The 2.5 s analysis is above the 1 s bucket, the others below it.
    let under_one_second = buckets.iter().find(|(le, _)| *le == 1.0).unwrap().1;
    assert_eq!(under_one_second, 2.0, "{buckets:?}");

    assert_eq!(value(&samples, "boardscan_busy_responses_total", &[]), 1.0);
    assert_eq!(value(&samples, "boardscan_jobs_admitted", &[]), 0.0);
    assert_eq!(value(&samples, "boardscan_jobs_running", &[]), 0.0);
    assert_eq!(value(&samples, "boardscan_jobs_max", &[]), 1.0);
    assert_eq!(value(&samples, "boardscan_cpu_workers", &[]), 1.0);

    // One recognition: one observation per stage, time spent where it must be.
    let stages = "boardscan_recognition_stage_duration_seconds";
    for stage in [
        "decode",
        "locate",
        "cut",
        "classify",
        "coordinates",
        "assemble",
    ] {
        let labels = [("stage", stage)];
        assert_eq!(
            value(&samples, &format!("{stages}_count"), &labels),
            1.0,
            "{stage}"
        );
        assert_eq!(
            value(
                &samples,
                &format!("{stages}_bucket"),
                &[("stage", stage), ("le", "+Inf")]
            ),
            1.0
        );
    }
    for stage in ["decode", "locate", "classify"] {
        let sum = value(&samples, &format!("{stages}_sum"), &[("stage", stage)]);
        assert!(sum > 0.0 && sum < 10.0, "{stage}: {sum}");
    }

    // Two analyses answered: two speeds, the ones their answers reported.
    let nps = "boardscan_analysis_nodes_per_second";
    assert_eq!(value(&samples, &format!("{nps}_count"), &[]), 2.0);
    let reported: Vec<f64> = [&short, &long]
        .iter()
        .map(|reply| reply.json()["nps"].as_f64().unwrap())
        .collect();
    assert!(reported.iter().all(|&nps| nps > 0.0), "{reported:?}");
    assert_eq!(
        value(&samples, &format!("{nps}_sum"), &[]),
        reported.iter().sum::<f64>()
    );
    assert_eq!(
        value(&samples, &format!("{nps}_bucket"), &[("le", "+Inf")]),
        2.0
    );
}

#[test]
fn request_id_round_trips_and_is_generated_when_absent_or_unfit() {
    let server = Server::start(&[]);
    let port = server.port;
    let given = exchange(
        port,
        "GET",
        "/api/v1/health",
        &[("X-Request-Id", "client-7f3a.42:retry_1")],
        b"",
    )
    .unwrap();
    assert_eq!(given.status, 200);
    assert_eq!(given.header("x-request-id"), Some("client-7f3a.42:retry_1"));

    let generated = |path: &str, headers: &[(&str, &str)]| {
        let reply = exchange(port, "GET", path, headers, b"").unwrap();
        let id = reply
            .header("x-request-id")
            .unwrap_or_else(|| panic!("no id on {path}: {:?}", reply.headers))
            .to_string();
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        id
    };
    let first = generated("/api/v1/health", &[]);
    let second = generated("/api/v1/health", &[]);
    assert_ne!(first, second);
    // Errors carry one too.
    generated("/nowhere", &[]);
    // Unfit ids are replaced, not echoed.
    // The new routes are described.
    let openapi = get(port, "/openapi.json").json();
    for path in ["/metrics", "/api/v1/health/live", "/api/v1/health/ready"] {
        assert!(openapi["paths"][path]["get"].is_object(), "{path}");
    }
    assert!(openapi["paths"]["/api/v1/health"]["get"].is_object());
    let long = "x".repeat(129);
    for unfit in ["has spaces in it", long.as_str(), ""] {
        let id = generated("/api/v1/health", &[("X-Request-Id", unfit)]);
        assert_ne!(id, unfit);
    }
}

/// A `boardscan serve` with its stdout piped; killed on drop.
struct LoggedServer {
    child: Child,
    port: u16,
}

impl LoggedServer {
    /// Starts one on a free port and waits until it is ready for work.
    fn start(args: &[&str], env: &[(&str, &str)]) -> LoggedServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let server = LoggedServer {
            child: Command::new(env!("CARGO_BIN_EXE_boardscan"))
                .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
                .arg("--no-library")
                .args(args)
                .envs(env.iter().copied())
                .env_remove("RUST_LOG")
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
            port,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(reply) = exchange(port, "GET", "/api/v1/health/ready", &[], b"") {
                if reply.status == 200 {
                    return server;
                }
            }
            assert!(Instant::now() < deadline, "the server did not get ready");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends SIGTERM, waits for a clean exit and returns the log lines.
    fn stop(mut self) -> Vec<String> {
        let child = &mut self.child;
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "still running 20 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "{status}");
        BufReader::new(child.stdout.take().unwrap())
            .lines()
            .map(Result::unwrap)
            .collect()
    }
}

impl Drop for LoggedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn json_logs_are_one_object_a_line_with_the_request_id() {
    let server = LoggedServer::start(&["--log-format", "json"], &[]);
    let port = server.port;
    let reply = exchange(
        port,
        "GET",
        "/api/v1/health",
        &[("X-Request-Id", "ops-json-0001")],
        b"",
    )
    .unwrap();
    assert_eq!(reply.status, 200);
    let missing = get(port, "/missing/page");
    assert_eq!(missing.status, 404);
    let generated = missing.header("x-request-id").unwrap().to_string();
    let lines = server.stop();
    let events: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    assert!(
        events.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("listening"))),
        "{lines:#?}"
    );
    let request = |id: &str| {
        events
            .iter()
            .find(|e| e["request_id"] == id)
            .unwrap_or_else(|| panic!("no line with request_id {id}: {lines:#?}"))
    };
    let health = request("ops-json-0001");
    assert_eq!(health["level"], "INFO");
    assert_eq!(health["method"], "GET");
    assert_eq!(health["path"], "/api/v1/health");
    assert_eq!(health["route"], "/api/v1/health");
    assert_eq!(health["status"], 200);
    assert!(health["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
    let missing = request(&generated);
    assert_eq!(missing["route"], "unmatched");
    assert_eq!(missing["status"], 404);
}

#[test]
fn on_sigterm_probes_are_refused_while_a_running_job_finishes() {
    // The environment variable selects text logs (the default) explicitly.
    let server = LoggedServer::start(
        &["--shutdown-timeout-secs", "10"],
        &[("BOARDSCAN_LOG_FORMAT", "text")],
    );
    let port = server.port;
    let running = std::thread::spawn(move || {
        exchange(
            port,
            "POST",
            "/api/v1/analyze",
            &[
                ("Content-Type", "application/json"),
                ("X-Request-Id", "ops-long-analysis"),
            ],
            br#"{"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","movetimeMs":2000}"#,
        )
    });
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) },
        0
    );
    std::thread::sleep(Duration::from_millis(300));
    // A probe now gets no answer: refused, closed or timed out.
    let probe = TcpStream::connect_timeout(
        &std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(1),
    )
    .and_then(|mut stream| {
        stream.set_read_timeout(Some(Duration::from_secs(1)))?;
        stream.write_all(b"GET /api/v1/health/ready HTTP/1.1\r\nHost: x\r\n\r\n")?;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        Ok(answer)
    });
    if let Ok(answer) = &probe {
        assert!(
            !answer.starts_with(b"HTTP/1.1 200"),
            "ready after SIGTERM: {}",
            String::from_utf8_lossy(answer)
        );
    }
    let finished = running.join().unwrap().expect("the running analysis");
    assert_eq!(finished.status, 200, "{}", finished.body);
    assert_eq!(finished.header("x-request-id"), Some("ops-long-analysis"));
    let lines = server.stop();
    let line = lines
        .iter()
        .find(|l| l.contains("ops-long-analysis"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(!line.starts_with('{'), "{line}");
    assert!(line.contains("POST /api/v1/analyze 200"), "{line}");
}
