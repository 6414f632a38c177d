//! PDFs through `boardscan scan`: every diagram of a typeset book and of its
//! scanned copy, with page numbers and reading order (`testdata/pdf/`), the
//! side to move from the typeset book's captions, page selection, and PDFs
//! that cannot be read.

use crate::util::{boardscan, describe, pdf_from_objects, testdata};

/// `(file, page, index, board_fen)` rows of `testdata/pdf/books.csv`.
fn expected() -> Vec<(String, u64, u64, String)> {
    let text = std::fs::read_to_string(testdata().join("pdf/books.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].to_string(),
            )
        })
        .collect()
}

/// The boards `scan --json` reports, as `(file name, page, index, board_fen)`.
fn scanned(args: &[&str]) -> Vec<(String, u64, u64, String)> {
    let output = boardscan(args);
    assert!(output.status.success(), "{}", describe(args, &output));
    let mut boards = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let picture: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = picture["file"].as_str().unwrap();
        let name = file.rsplit('/').next().unwrap().to_string();
        for board in picture["boards"].as_array().unwrap() {
            assert_eq!(board["page"], picture["page"], "{line}");
            boards.push((
                name.clone(),
                board["page"].as_u64().unwrap(),
                board["index"].as_u64().unwrap(),
                board["boardFen"].as_str().unwrap().to_string(),
            ));
        }
    }
    boards
}

#[test]
fn every_diagram_of_a_typeset_and_a_scanned_book_with_its_page() {
    let dir = testdata().join("pdf");
    let typeset = dir.join("book-typeset.pdf");
    let scan = dir.join("book-scanned.pdf");
    let args = [
        "scan",
        "--json",
        typeset.to_str().unwrap(),
        scan.to_str().unwrap(),
    ];
    assert_eq!(scanned(&args), expected());

    // Page 2 alone: its two diagrams, left one first.
    let args = ["scan", "--json", "--pages", "2", typeset.to_str().unwrap()];
    let page_two: Vec<_> = expected()
        .into_iter()
        .filter(|(file, page, ..)| file == "book-typeset.pdf" && *page == 2)
        .collect();
    assert_eq!(scanned(&args), page_two);

    // Plain output names the page.
    let args = ["scan", "--pages", "1", typeset.to_str().unwrap()];
    let output = boardscan(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with(&format!("{}#page=1\tr1bqkbnr/", typeset.display())),
        "{}",
        describe(&args, &output)
    );
}

/// `(file, page, index, side to move, its source)` rows of
/// `testdata/pdf/books.csv`.
fn expected_sides() -> Vec<(String, u64, u64, String, String)> {
    let text = std::fs::read_to_string(testdata().join("pdf/books.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[4].to_string(),
                f[5].to_string(),
            )
        })
        .collect()
}

/// The sides to move of the boards in `scan --json` output or an API
/// answer's `boards`, as `(file name, page, index, side, source)`; the
/// FEN's side field must agree with `sideToMove`.
fn sides_of(name: &str, boards: &serde_json::Value) -> Vec<(String, u64, u64, String, String)> {
    boards
        .as_array()
        .unwrap()
        .iter()
        .map(|board| {
            let side = board["sideToMove"].as_str().unwrap().to_string();
            let fen = board["fen"].as_str().unwrap();
            assert_eq!(fen.split(' ').nth(1), Some(side.as_str()), "{board}");
            (
                name.to_string(),
                board["page"].as_u64().unwrap(),
                board["index"].as_u64().unwrap(),
                side,
                board["sideToMoveSource"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn scanned_sides(args: &[&str]) -> Vec<(String, u64, u64, String, String)> {
    let output = boardscan(args);
    assert!(output.status.success(), "{}", describe(args, &output));
    let mut sides = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let picture: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = picture["file"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap();
        sides.extend(sides_of(name, &picture["boards"]));
    }
    sides
}

#[test]
fn the_typeset_books_captions_give_the_side_to_move_and_the_scan_keeps_white() {
    // "Black to move." under page 1's diagram; "1. White to move" and "2.
    // Black to move" under page 2's pair, on one baseline. The scanned copy
    // has no text layer: White, by default.
    let dir = testdata().join("pdf");
    let typeset = dir.join("book-typeset.pdf");
    let scan = dir.join("book-scanned.pdf");
    let args = [
        "scan",
        "--json",
        typeset.to_str().unwrap(),
        scan.to_str().unwrap(),
    ];
    assert_eq!(scanned_sides(&args), expected_sides());
    // A side given on the command line wins over the captions.
    let args = ["scan", "--json", "--side", "w", typeset.to_str().unwrap()];
    let given: Vec<_> = expected_sides()
        .into_iter()
        .filter(|(file, ..)| file == "book-typeset.pdf")
        .map(|(file, page, index, ..)| (file, page, index, "w".into(), "given".into()))
        .collect();
    assert_eq!(scanned_sides(&args), given);
}

#[test]
fn unreadable_pdfs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let book = std::fs::read(testdata().join("pdf/book-typeset.pdf")).unwrap();
    let truncated = dir.path().join("truncated.pdf");
    std::fs::write(&truncated, &book[..book.len() / 3]).unwrap();
    let garbage = dir.path().join("garbage.pdf");
    std::fs::write(&garbage, b"%PDF-1.7\nthis is not a PDF at all\n%%EOF\n").unwrap();
    let image = testdata().join("boards/01-pychess-cburnett-lichess-brown-white.png");
    for (path, message) in [
        (&truncated, "the PDF is truncated"),
        (&garbage, "not a readable PDF"),
    ] {
        let args = ["scan", path.to_str().unwrap(), image.to_str().unwrap()];
        let output = boardscan(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            describe(&args, &output)
        );
        assert!(stderr.contains(message), "{}", describe(&args, &output));
        // The image after it is still read.
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("01-pychess"),
            "{}",
            describe(&args, &output)
        );
    }
    let typeset = testdata().join("pdf/book-typeset.pdf");
    let args = ["scan", "--max-pages", "2", typeset.to_str().unwrap()];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("has 3 pages, over the limit of 2"),
        "{}",
        describe(&args, &output)
    );
    let args = ["scan", "--pages", "0-2", typeset.to_str().unwrap()];
    assert_eq!(boardscan(&args).status.code(), Some(2));
}

#[test]
fn the_api_reads_a_pdf_upload_page_by_page() {
    use crate::util::Server;
    let server = Server::start(&["--max-pdf-pages", "3"]);
    let book = std::fs::read(testdata().join("pdf/book-scanned.pdf")).unwrap();
    let boards = |body: &str| -> Vec<(String, u64, u64, String)> {
        let value: serde_json::Value = serde_json::from_str(body).unwrap();
        value["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    "book-scanned.pdf".to_string(),
                    b["page"].as_u64().unwrap(),
                    b["index"].as_u64().unwrap(),
                    b["boardFen"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let scanned: Vec<_> = expected()
        .into_iter()
        .filter(|(file, ..)| file == "book-scanned.pdf")
        .collect();
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "application/pdf")],
            &book,
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(boards(&body), scanned);

    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[
            ("image", Some("book.pdf"), &book),
            ("options", None, br#"{"pages": "2"}"#),
        ],
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(boards(&body), scanned[1..].to_vec());

    // The typeset book's captions give its sides to move, unless the
    // request gives one.
    let typeset = std::fs::read(testdata().join("pdf/book-typeset.pdf")).unwrap();
    let from_captions: Vec<_> = expected_sides()
        .into_iter()
        .filter(|(file, ..)| file == "book-typeset.pdf")
        .collect();
    for (options, expected) in [
        (&br#"{}"#[..], from_captions.clone()),
        (
            &br#"{"sideToMove": "w"}"#[..],
            from_captions
                .iter()
                .map(|(f, p, i, ..)| (f.clone(), *p, *i, "w".into(), "given".into()))
                .collect(),
        ),
    ] {
        let (status, body) = server.post_multipart(
            "/api/v1/recognize",
            &[
                ("image", Some("book.pdf"), &typeset),
                ("options", None, options),
            ],
        );
        assert_eq!(status, 200, "{body}");
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(sides_of("book-typeset.pdf", &value["boards"]), expected);
    }

    // Only page 3, which has no diagram.
    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[
            ("image", Some("book.pdf"), &book),
            ("options", None, br#"{"pages": "3"}"#),
        ],
    );
    assert_eq!(
        (status, body.contains("no-board-found")),
        (422, true),
        "{body}"
    );

    for (bytes, status, code) in [
        (book[..book.len() / 3].to_vec(), 415, "not-an-image"),
        (b"%PDF-1.4 nothing else".to_vec(), 415, "not-an-image"),
    ] {
        let (got, body) = server
            .request(
                "POST",
                "/api/v1/recognize",
                &[("Content-Type", "application/pdf")],
                &bytes,
            )
            .unwrap();
        assert_eq!((got, body.contains(code)), (status, true), "{body}");
    }
    let (status, body) = server.post_multipart(
        "/api/v1/recognize",
        &[
            ("image", Some("book.pdf"), &book),
            ("options", None, br#"{"pages": "0-9"}"#),
        ],
    );
    assert_eq!(status, 400, "{body}");
}

/// A one-page PDF whose content stream is `content`, Flate-compressed.
fn one_page_pdf(content: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(content).unwrap();
    let stream = encoder.finish().unwrap();
    let mut contents = format!(
        "<< /Length {} /Filter /FlateDecode >>\nstream\n",
        stream.len()
    )
    .into_bytes();
    contents.extend(&stream);
    contents.extend(b"\nendstream");
    pdf_from_objects(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_vec(),
        contents,
    ])
}

#[test]
fn a_pdf_bomb_costs_a_page_not_the_process() {
    // 93 KB that asks the renderer for two million page-sized fills: more
    // memory than the renderer's process may have. The page is an error,
    // and the next input is still read.
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.pdf");
    std::fs::write(
        &bomb,
        one_page_pdf(&b"10 10 500 700 re f\n".repeat(2_000_000)),
    )
    .unwrap();
    let image = testdata().join("boards/01-pychess-cburnett-lichess-brown-white.png");
    let args = ["scan", bomb.to_str().unwrap(), image.to_str().unwrap()];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("bomb.pdf#page=1: the PDF renderer stopped on page 1"),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("01-pychess"),
        "{}",
        describe(&args, &output)
    );
    // A small, well-formed one-page PDF without a diagram renders fine:
    // no renderer error, just no board (said, as for an image).
    let plain = dir.path().join("plain.pdf");
    std::fs::write(&plain, one_page_pdf(b"0.5 g 100 100 200 200 re f\n")).unwrap();
    let args = ["scan", plain.to_str().unwrap()];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no chessboard found on any of its 1 page") && !stderr.contains("renderer"),
        "{}",
        describe(&args, &output)
    );
}

/// The children of process `pid` that have exited but were never reaped.
fn zombie_children(pid: u32) -> Vec<u32> {
    let mut zombies = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
        {
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            // The state follows the command's closing parenthesis.
            let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
            if state.starts_with('Z') {
                zombies.push(child);
            }
        }
    }
    zombies
}

#[test]
fn refused_pdfs_leave_no_renderer_behind() {
    use crate::util::Server;
    let server = Server::start(&["--max-pdf-pages", "2"]);
    let book = std::fs::read(testdata().join("pdf/book-typeset.pdf")).unwrap();
    let refused: [&[u8]; 3] = [
        &book[..book.len() / 3],
        b"%PDF-1.7\nthis is not a PDF at all\n%%EOF\n",
        // Three pages, over the limit of two.
        &book,
    ];
    for _ in 0..3 {
        for pdf in refused {
            let (status, body) = server
                .request(
                    "POST",
                    "/api/v1/recognize",
                    &[("Content-Type", "application/pdf")],
                    pdf,
                )
                .unwrap();
            assert!(matches!(status, 413 | 415), "{status} {body}");
        }
    }
    // Each refusal was answered after its renderer was reaped.
    assert_eq!(zombie_children(server.pid()), Vec::<u32>::new());
}

/// Form XObjects nested 12 deep, each drawing the next ten times (10¹²
/// fills), from object `first` on: the page draws `first`.
fn endless_drawing(first: usize) -> Vec<Vec<u8>> {
    let depth = 12;
    (0..depth)
        .map(|level| {
            let (content, resources) = if level + 1 < depth {
                (
                    "/X Do ".repeat(10),
                    format!("/Resources << /XObject << /X {} 0 R >> >> ", first + level + 1),
                )
            } else {
                ("10 10 500 700 re f".to_string(), String::new())
            };
            format!(
                "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] {resources}/Length {} >>\nstream\n{content}\nendstream",
                content.len()
            )
            .into_bytes()
        })
        .collect()
}

/// A page (object 3, its content 4) that draws object 5.
const ENDLESS_PAGE: &[u8] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>";
const DRAW_X: &[u8] = b"<< /Length 5 >>\nstream\n/X Do\nendstream";

/// 5.7 KB that never finishes rendering.
fn endless_pdf() -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        ENDLESS_PAGE.to_vec(),
        DRAW_X.to_vec(),
    ];
    objects.extend(endless_drawing(5));
    pdf_from_objects(&objects)
}

/// A plain first page (objects 17 and 18), then the endless one.
fn endless_pdf_after_a_plain_page() -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [17 0 R 3 0 R] /Count 2 >>".to_vec(),
        ENDLESS_PAGE.to_vec(),
        DRAW_X.to_vec(),
    ];
    objects.extend(endless_drawing(5));
    objects
        .push(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 18 0 R >>".to_vec());
    let plain = "0.5 g 100 100 200 200 re f";
    objects.push(format!("<< /Length {} >>\nstream\n{plain}\nendstream", plain.len()).into_bytes());
    pdf_from_objects(&objects)
}

#[test]
fn a_pdf_that_never_finishes_is_stopped_at_the_page_deadline_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    std::fs::write(inputs.join("endless.pdf"), endless_pdf()).unwrap();
    std::fs::copy(
        testdata().join("boards/01-pychess-cburnett-lichess-brown-white.png"),
        inputs.join("board.png"),
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    let args = crate::util::batch_args(&inputs, &out, "csv", &["--max-page-seconds", "2"]);
    let output = crate::util::boardscan_within(&args, std::time::Duration::from_secs(300));
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    let rows = std::fs::read_to_string(&out).unwrap();
    assert!(
        rows.contains("page 1 not rendered: it took over 2 s"),
        "{rows}"
    );
    assert!(rows.contains("board.png,,1,"), "{rows}");
}

/// The process ids of the children of `pid`.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|c| c.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[test]
fn the_renderer_dies_with_a_killed_scan() {
    use std::{
        process::{Command, Stdio},
        time::{Duration, Instant},
    };
    let dir = tempfile::tempdir().unwrap();
    let endless = dir.path().join("endless.pdf");
    std::fs::write(&endless, endless_pdf()).unwrap();
    let mut scan = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args([
            "scan",
            "--max-page-seconds",
            "3600",
            endless.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let renderer = loop {
        let rendering = children(scan.id()).into_iter().find(|&child| {
            std::fs::read(format!("/proc/{child}/cmdline"))
                .is_ok_and(|c| c.windows(10).any(|w| w == b"render-pdf"))
        });
        if let Some(child) = rendering {
            break child;
        }
        assert!(Instant::now() < deadline, "no renderer started");
        std::thread::sleep(Duration::from_millis(50));
    };
    scan.kill().unwrap();
    scan.wait().unwrap();
    // The orphan is killed by the kernel, not left rendering under PID 1.
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(format!("/proc/{renderer}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .trim_start()
            .starts_with('Z')
    }) {
        if Instant::now() > deadline {
            unsafe { libc::kill(renderer as i32, libc::SIGKILL) };
            panic!("the renderer {renderer} outlived its killed parent by 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_api_says_why_when_no_page_of_a_pdf_could_be_read() {
    use crate::util::Server;
    let server = Server::start(&[]);
    let bomb = one_page_pdf(&b"10 10 500 700 re f\n".repeat(2_000_000));
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "application/pdf")],
            &bomb,
        )
        .unwrap();
    assert_eq!(status, 422, "{body}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "no-page-read", "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("page 1: the PDF renderer stopped on page 1"),
        "{body}"
    );
    // A readable PDF without a diagram is still "no board found".
    let plain = one_page_pdf(b"0.5 g 100 100 200 200 re f\n");
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "application/pdf")],
            &plain,
        )
        .unwrap();
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("no-board-found"), "{body}");
}

#[test]
fn a_pdf_without_pages_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pdf");
    std::fs::write(
        &empty,
        pdf_from_objects(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        ]),
    )
    .unwrap();
    let args = ["scan", empty.to_str().unwrap()];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the PDF has no pages"),
        "{}",
        describe(&args, &output)
    );
    // A page whose MediaBox is turned inside out draws nothing: said, not silent.
    let inside_out = dir.path().join("inside-out.pdf");
    let content = b"0.5 g 100 100 200 200 re f";
    let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    stream.extend(content);
    stream.extend(b"\nendstream");
    std::fs::write(
        &inside_out,
        pdf_from_objects(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 -612 -792] /Contents 4 0 R >>".to_vec(),
            stream,
        ]),
    )
    .unwrap();
    let args = ["scan", inside_out.to_str().unwrap()];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("no chessboard found on any of its 1 page"),
        "{}",
        describe(&args, &output)
    );
}

#[test]
fn scan_prints_each_page_of_a_pdf_as_it_is_read() {
    use std::{
        io::BufRead,
        process::{Command, Stdio},
        time::Duration,
    };
    let dir = tempfile::tempdir().unwrap();
    // Page 1 is quickly read; page 2 never finishes.
    let book = dir.path().join("book.pdf");
    std::fs::write(&book, endless_pdf_after_a_plain_page()).unwrap();
    let mut scan = Command::new(env!("CARGO_BIN_EXE_boardscan"))
        .args(["scan", "--json", "--max-page-seconds", "3600"])
        .arg(&book)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = scan.stdout.take().unwrap();
    let (line, first) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut text);
        let _ = line.send(text);
    });
    let first = first.recv_timeout(Duration::from_secs(120));
    scan.kill().unwrap();
    scan.wait().unwrap();
    let first = first.expect("page 1 was not printed while page 2 rendered");
    let value: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(value["page"], 1, "{first}");
}

/// Polls the readiness probe until `accept` takes its JSON; panics after 30 s.
fn await_readiness(
    server: &crate::util::Server,
    accept: impl Fn(u16, &serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (status, body) = server
            .request("GET", "/api/v1/health/ready", &[], b"")
            .unwrap();
        let readiness: serde_json::Value = serde_json::from_str(&body).unwrap();
        if accept(status, &readiness) {
            return readiness;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "readiness stayed {status} {readiness}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Sends the endless PDF on a thread of its own.
fn send_endless_pdf(port: u16) -> std::thread::JoinHandle<u16> {
    std::thread::spawn(move || {
        crate::util::exchange(
            port,
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "application/pdf")],
            &endless_pdf(),
        )
        .map(|reply| reply.status)
        .unwrap_or(0)
    })
}

#[test]
fn books_that_take_their_whole_budget_leave_a_worker_for_pictures() {
    use crate::util::Server;
    let server = Server::start(&["--cpu-workers", "2", "--max-page-seconds", "6"]);
    // Ready first: until the models are loaded, readiness says so instead.
    await_readiness(&server, |status, _| status == 200);
    let books = [send_endless_pdf(server.port), send_endless_pdf(server.port)];
    // Both books admitted: one renders, the other waits for the PDF lane.
    let readiness = await_readiness(&server, |_, r| r["jobsAdmitted"] == 2);
    assert_eq!(readiness["ready"], true, "{readiness}");
    assert_eq!(readiness["jobsRunning"], 1, "{readiness}");
    let picture =
        std::fs::read(testdata().join("boards/01-pychess-cburnett-lichess-brown-white.png"))
            .unwrap();
    let (status, body) = server
        .request(
            "POST",
            "/api/v1/recognize",
            &[("Content-Type", "image/png")],
            &picture,
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");
    // The picture was answered while the first book still rendered.
    assert!(
        books.iter().all(|b| !b.is_finished()),
        "a book finished before the picture was answered"
    );
    for book in books {
        assert_eq!(book.join().unwrap(), 422);
    }
}

#[test]
fn readiness_says_when_every_worker_is_busy_and_jobs_wait() {
    use crate::util::Server;
    let server = Server::start(&["--cpu-workers", "1", "--max-page-seconds", "3"]);
    await_readiness(&server, |status, _| status == 200);
    let first = send_endless_pdf(server.port);
    await_readiness(&server, |_, r| r["jobsRunning"] == 1);
    let second = send_endless_pdf(server.port);
    let readiness = await_readiness(&server, |status, _| status == 503);
    assert_eq!(readiness["reason"], "workers-saturated", "{readiness}");
    assert_eq!(readiness["jobsAdmitted"], 2, "{readiness}");
    for book in [first, second] {
        assert_eq!(book.join().unwrap(), 422);
    }
    await_readiness(&server, |status, _| status == 200);
}
