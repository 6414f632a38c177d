//! Helpers: run the binary, read fixtures, speak plain HTTP/1.1.

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    time::{Duration, Instant},
};

pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// A fixture row of `testdata/boards.csv`.
pub struct Fixture {
    pub file: PathBuf,
    pub board_fen: String,
    pub view: String,
}

pub fn fixtures() -> Vec<Fixture> {
    let text = std::fs::read_to_string(testdata().join("boards.csv")).expect("testdata/boards.csv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            Fixture {
                file: testdata().join(fields[0]),
                board_fen: fields[1].to_string(),
                view: fields[2].trim().to_string(),
            }
        })
        .collect()
}

/// Runs `boardscan` with `args`; on failure of `check`, the panic shows the
/// command, its status, stdout and stderr.
pub fn boardscan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(args)
        .output()
        .expect("running boardscan")
}

/// Runs `boardscan` with `args` and no standard input; kills it and fails
/// the test when it runs longer than `limit` (a hang becomes a failure).
pub fn boardscan_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running boardscan");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for boardscan") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap_or_default();
            panic!(
                "boardscan {} still ran after {limit:?} (killed)\nstderr:\n{}",
                args.join(" "),
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

pub fn describe(args: &[&str], output: &Output) -> String {
    format!(
        "boardscan {}\nstatus: {}\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A `boardscan serve` process on a free port, killed (SIGKILL) on drop.
/// Unless `extra_args` name a library, it keeps its scans in a temporary one.
pub struct Server {
    child: Child,
    pub port: u16,
    _library: Option<tempfile::TempDir>,
}

impl Server {
    pub fn start(extra_args: &[&str]) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let bind = format!("127.0.0.1:{port}");
        let mut command = Command::new(env!("CARGO_BIN_EXE_boardscan"));
        command
            .args(["serve", "--bind", &bind])
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let names_library = extra_args
            .iter()
            .any(|a| a.starts_with("--library") || *a == "--no-library");
        let library = (!names_library).then(|| tempfile::tempdir().expect("temporary folder"));
        if let Some(dir) = &library {
            command.env("BOARDSCAN_LIBRARY", dir.path().join("library.sqlite3"));
        }
        let child = command.spawn().expect("starting boardscan serve");
        let server = Server {
            child,
            port,
            _library: library,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok((200, _)) = server.request("GET", "/api/v1/health", &[], b"") {
                return server;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the server did not answer /api/v1/health within 60 s");
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server as a supervisor does (SIGTERM) and returns how it
    /// exited; killed after 60 s.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        assert_eq!(unsafe { libc::kill(self.pid() as i32, libc::SIGTERM) }, 0);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the server") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "still running 60 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends one request and returns the status and the body.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> std::io::Result<(u16, String)> {
        exchange(self.port, method, path, headers, body).map(|reply| (reply.status, reply.body))
    }

    /// Posts `fields` (name, filename, bytes) as `multipart/form-data`.
    pub fn post_multipart(
        &self,
        path: &str,
        fields: &[(&str, Option<&str>, &[u8])],
    ) -> (u16, String) {
        self.send_multipart("POST", path, fields)
    }

    /// Sends `fields` (name, filename, bytes) as `multipart/form-data`.
    pub fn send_multipart(
        &self,
        method: &str,
        path: &str,
        fields: &[(&str, Option<&str>, &[u8])],
    ) -> (u16, String) {
        let boundary = "boardscan-test-boundary-7MA4YWxk";
        let mut body = Vec::new();
        for (name, filename, bytes) in fields {
            body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            match filename {
                Some(f) => body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
                ),
                None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
            }
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={boundary}");
        self.request(method, path, &[("Content-Type", &content_type)], &body)
            .expect("request")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A PDF of `objects` (numbered from 1, the first the catalog), with its
/// cross-reference table and trailer.
pub fn pdf_from_objects(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend(object);
        pdf.extend(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// One HTTP answer, headers included.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Sends one request to the server on `port` over a new connection and
/// reads the whole answer; an answer without a status line is an error.
pub fn exchange(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    // The server may answer (413) and close before reading a large body.
    let _ = stream.write_all(body);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {head:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Ok(Reply {
        status,
        headers,
        body: body.to_string(),
    })
}

/// `boardscan batch DIR -o OUT --format FORMAT -j 1` and `extra`.
pub fn batch_args<'a>(
    dir: &'a Path,
    out: &'a Path,
    format: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "batch",
        dir.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--format",
        format,
        "-j",
        "1",
    ];
    args.extend_from_slice(extra);
    args
}

/// Debian's Stockfish, for the tests against a real engine. Where it is not
/// installed such a test is skipped with a loud line, so that `cargo test`
/// passes on a fresh machine; `BOARDSCAN_REQUIRE_STOCKFISH=1` (CI sets it)
/// makes its absence a failure instead.
pub fn stockfish(test: &str) -> Option<&'static str> {
    const PATH: &str = "/usr/games/stockfish";
    if Path::new(PATH).exists() {
        return Some(PATH);
    }
    assert!(
        std::env::var_os("BOARDSCAN_REQUIRE_STOCKFISH").is_none(),
        "{test}: {PATH} is missing (apt-get install stockfish)"
    );
    eprintln!("\n*** SKIPPED {test}: no {PATH} (apt-get install stockfish) ***\n");
    None
}
