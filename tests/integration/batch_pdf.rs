//! `boardscan batch` on a folder holding PDFs beside images: every diagram of
//! `testdata/pdf/` with its page and reading order in each format, `--pages`,
//! resuming a book cut in its middle, unreadable PDFs and pages, and `merge`
//! of shards holding PDFs.

#![cfg(unix)]

use std::{
    fs,
    path::{Path, PathBuf},
};

use crate::{
    batch::{csv_records, epd_id, run, run_ok, sorted_records, HEADER},
    util::{batch_args, describe, fixtures, pdf_from_objects, testdata},
};

const BOOKS: [&str; 2] = ["book-scanned.pdf", "book-typeset.pdf"];

/// `(file name, page, index, board_fen)` rows of `testdata/pdf/books.csv`,
/// sorted as a batch writes them (by file name).
fn expected_boards() -> Vec<(String, u64, u64, String)> {
    let text = fs::read_to_string(testdata().join("pdf/books.csv")).unwrap();
    let mut rows: Vec<_> = text
        .lines()
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
        .collect();
    rows.sort();
    rows
}

/// `(file name, page, index, side to move)` of the books' diagrams, sorted
/// as [`expected_boards`]: the typeset book's from its captions.
fn expected_sides() -> Vec<(String, u64, u64, String)> {
    let text = fs::read_to_string(testdata().join("pdf/books.csv")).unwrap();
    let mut rows: Vec<_> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[4].to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The side to move field of a FEN or EPD line.
fn side_field(fen: &str) -> String {
    fen.split(' ').nth(1).unwrap().to_string()
}

/// How many boards page `page` of `book` has.
fn boards_on(book: &str, page: u64) -> usize {
    expected_boards()
        .iter()
        .filter(|(f, p, ..)| f == book && *p == page)
        .count()
}

/// A temporary folder `in/` with the two test books and the first two
/// fixture images; returns the root (outputs go there) and `in/`.
fn book_folder() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("in");
    fs::create_dir(&dir).unwrap();
    for book in BOOKS {
        fs::copy(testdata().join("pdf").join(book), dir.join(book)).unwrap();
    }
    for fixture in fixtures().iter().take(2) {
        fs::copy(&fixture.file, dir.join(fixture.file.file_name().unwrap())).unwrap();
    }
    (root, dir)
}

/// The two fixture images of [`book_folder`]: file name and board FEN.
fn images() -> Vec<(String, String)> {
    fixtures()
        .iter()
        .take(2)
        .map(|f| {
            let name = f.file.file_name().unwrap().to_str().unwrap().to_string();
            (name, f.board_fen.clone())
        })
        .collect()
}

fn file_name(path: &str) -> String {
    path.rsplit('/').next().unwrap().to_string()
}

fn board_part(fen: &str) -> String {
    fen.split(' ').next().unwrap().to_string()
}

/// The CSV records of an output, header checked and left out.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let records = csv_records(text);
    assert_eq!(records[0].join(","), HEADER, "{text}");
    for record in &records[1..] {
        assert_eq!(record.len(), 7, "{record:?}");
    }
    records[1..].to_vec()
}

/// The boards of PDFs in CSV rows, as `(file name, page, index, board_fen)`.
fn csv_pdf_boards(rows: &[Vec<String>]) -> Vec<(String, u64, u64, String)> {
    rows.iter()
        .filter(|r| r[0].ends_with(".pdf") && !r[2].is_empty())
        .map(|r| {
            (
                file_name(&r[0]),
                r[1].parse().unwrap(),
                r[2].parse().unwrap(),
                board_part(&r[3]),
            )
        })
        .collect()
}

/// Cuts `out` (whose whole text is `fresh`) in the middle of the first line
/// for which `marker` is true, resumes the batch, and checks that its summary on stderr
/// holds `expected_summary` (which says how many images and PDF pages were
/// read again) and that the output then holds the records of `fresh`.
fn cut_and_resume(
    dir: &Path,
    out: &Path,
    format: &str,
    fresh: &str,
    marker: impl Fn(&str) -> bool,
    expected_summary: &str,
) {
    let mut line_start = 0;
    let line = fresh
        .split_inclusive('\n')
        .find(|line| {
            let found = marker(line);
            if !found {
                line_start += line.len();
            }
            found
        })
        .unwrap_or_else(|| panic!("{format}: no line to cut in\n{fresh}"));
    let cut = line_start + line.len() / 2;
    fs::write(out, &fresh.as_bytes()[..cut]).unwrap();
    let args = batch_args(dir, out, format, &["--resume"]);
    let output = run_ok(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(expected_summary),
        "{format}: expected {expected_summary:?}\n{}",
        describe(&args, &output)
    );
    let resumed = fs::read_to_string(out).unwrap();
    assert_eq!(
        sorted_records(&resumed, format),
        sorted_records(fresh, format),
        "{format}: fresh:\n{fresh}\nresumed:\n{resumed}"
    );
}

#[test]
fn csv_rows_give_every_diagram_with_its_page_and_resume_per_page() {
    let (root, dir) = book_folder();
    let out = root.path().join("out.csv");
    let args = batch_args(&dir, &out, "csv", &[]);
    let output = run_ok(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("2 images and 6 PDF pages of 2 PDFs (0 files and 0 pages skipped"),
        "{}",
        describe(&args, &output)
    );
    let fresh = fs::read_to_string(&out).unwrap();
    let rows = csv_rows(&fresh);
    assert_eq!(csv_pdf_boards(&rows), expected_boards(), "{fresh}");
    let sides: Vec<_> = rows
        .iter()
        .filter(|r| r[0].ends_with(".pdf") && !r[2].is_empty())
        .map(|r| {
            let (page, index) = (r[1].parse().unwrap(), r[2].parse().unwrap());
            (file_name(&r[0]), page, index, side_field(&r[3]))
        })
        .collect();
    assert_eq!(sides, expected_sides(), "{fresh}");
    // Page 3 of each book has no diagram: one row with no board and no error.
    for book in BOOKS {
        assert_eq!(boards_on(book, 3), 0);
        let page_three: Vec<_> = rows
            .iter()
            .filter(|r| file_name(&r[0]) == book && r[1] == "3")
            .collect();
        assert_eq!(page_three.len(), 1, "{fresh}");
        assert!(page_three[0][2..].iter().all(String::is_empty), "{fresh}");
    }
    // Images: no page, board 1, their FEN.
    for (name, board_fen) in images() {
        let row = rows
            .iter()
            .find(|r| file_name(&r[0]) == name)
            .unwrap_or_else(|| panic!("no row for {name}:\n{fresh}"));
        assert_eq!((row[1].as_str(), row[2].as_str()), ("", "1"), "{row:?}");
        assert_eq!(board_part(&row[3]), board_fen, "{row:?}");
    }
    assert_eq!(rows.len(), 2 + 6 + 2, "{fresh}");

    // Cut in page 2 of the scanned book (its second board's row): page 2
    // goes whole, and pages 2-3 of it and the whole typeset book are redone.
    cut_and_resume(
        &dir,
        &out,
        "csv",
        &fresh,
        |line| line.contains("book-scanned.pdf,2,2,"),
        "0 images and 5 PDF pages of 2 PDFs (2 files and 1 page skipped as already done)",
    );
    // Cut in the typeset book's first row, just after the scanned book's
    // page 3, which has no board: its row alone marks it done.
    cut_and_resume(
        &dir,
        &out,
        "csv",
        &fresh,
        |line| line.contains("book-typeset.pdf,1,1,"),
        "0 images and 3 PDF pages of 1 PDF (3 files and 3 pages skipped as already done)",
    );
}

#[test]
fn ndjson_has_one_object_per_page_and_resumes_per_page() {
    let (root, dir) = book_folder();
    let out = root.path().join("out.ndjson");
    run_ok(&batch_args(&dir, &out, "ndjson", &[]));
    let fresh = fs::read_to_string(&out).unwrap();
    let mut pages = Vec::new();
    let mut boards = Vec::new();
    let mut sides = Vec::new();
    let mut image_objects = 0;
    for line in fresh.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = file_name(value["file"].as_str().unwrap());
        let list = value["boards"]
            .as_array()
            .unwrap_or_else(|| panic!("{line}"));
        match value.get("page") {
            None => {
                image_objects += 1;
                assert_eq!(list.len(), 1, "{line}");
                assert!(list[0].get("page").is_none(), "{line}");
            }
            Some(page) => {
                let page = page.as_u64().unwrap();
                pages.push((name.clone(), page));
                assert_eq!(list.len(), boards_on(&name, page), "{line}");
                for board in list {
                    assert_eq!(board["page"], page, "{line}");
                    let index = board["index"].as_u64().unwrap();
                    let side = side_field(board["fen"].as_str().unwrap());
                    assert_eq!(board["sideToMove"], side.as_str(), "{line}");
                    // A side read from the typeset book's captions says so.
                    let source = if name == "book-typeset.pdf" {
                        "caption"
                    } else {
                        "default"
                    };
                    assert_eq!(board["sideToMoveSource"], source, "{line}");
                    sides.push((name.clone(), page, index, side));
                    boards.push((
                        name.clone(),
                        page,
                        board["index"].as_u64().unwrap(),
                        board["boardFen"].as_str().unwrap().to_string(),
                    ));
                }
            }
        }
    }
    assert_eq!(image_objects, 2, "{fresh}");
    let all_pages: Vec<_> = BOOKS
        .iter()
        .flat_map(|b| (1..=3).map(move |p| (b.to_string(), p)))
        .collect();
    assert_eq!(pages, all_pages, "{fresh}");
    assert_eq!(boards, expected_boards(), "{fresh}");
    assert_eq!(sides, expected_sides(), "{fresh}");

    cut_and_resume(
        &dir,
        &out,
        "ndjson",
        &fresh,
        |line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["file"]
                .as_str()
                .unwrap()
                .ends_with("book-scanned.pdf")
                && value["page"] == 2
        },
        "0 images and 5 PDF pages of 2 PDFs (2 files and 1 page skipped as already done)",
    );
}

#[test]
fn epd_ids_name_file_page_and_diagram_and_resume_per_page() {
    let (root, dir) = book_folder();
    let out = root.path().join("out.epd");
    run_ok(&batch_args(&dir, &out, "epd", &[]));
    let fresh = fs::read_to_string(&out).unwrap();
    let ids: Vec<(String, String)> = fresh
        .lines()
        .map(|line| (file_name(&epd_id(line)), board_part(line)))
        .collect();
    let mut expected: Vec<(String, String)> = images();
    for (book, page, index, board) in expected_boards() {
        let id = if boards_on(&book, page) > 1 {
            format!("{book}#page={page}&diagram={index}")
        } else {
            format!("{book}#page={page}")
        };
        expected.push((id, board));
    }
    assert_eq!(ids, expected, "{fresh}");
    // EPD's second field is the side to move, the typeset book's from its captions.
    let sides: Vec<(String, String)> = fresh
        .lines()
        .filter(|line| line.contains("#page="))
        .map(|line| (file_name(&epd_id(line)), side_field(line)))
        .collect();
    let expected_sides: Vec<(String, String)> = expected_sides()
        .into_iter()
        .map(|(book, page, index, side)| match boards_on(&book, page) {
            1 => (format!("{book}#page={page}"), side),
            _ => (format!("{book}#page={page}&diagram={index}"), side),
        })
        .collect();
    assert_eq!(sides, expected_sides, "{fresh}");

    cut_and_resume(
        &dir,
        &out,
        "epd",
        &fresh,
        |line| line.contains("book-scanned.pdf#page=2&diagram=2"),
        "0 images and 5 PDF pages of 2 PDFs (2 files and 1 page skipped as already done)",
    );
}

#[test]
fn pgn_has_one_game_per_diagram_and_refuses_resume() {
    let (root, dir) = book_folder();
    let out = root.path().join("out.pgn");
    run_ok(&batch_args(&dir, &out, "pgn", &[]));
    let text = fs::read_to_string(&out).unwrap();
    assert!(text.ends_with("*\n\n"), "{text}");
    let games: Vec<&str> = text.trim_end().split("\n\n").collect();
    // Tags, then movetext, for each game.
    assert_eq!(games.len() % 2, 0, "{text}");
    let mut read = Vec::new();
    let mut sides = Vec::new();
    for pair in games.chunks(2) {
        let tags: Vec<&str> = pair[0].lines().collect();
        let names: Vec<&str> = tags
            .iter()
            .map(|t| t[1..].split(' ').next().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Event",
                "Site",
                "Date",
                "Round",
                "White",
                "Black",
                "Result",
                "Annotator",
                "FEN",
                "SetUp"
            ],
            "{}",
            pair[0]
        );
        assert_eq!(tags[0], "[Event \"?\"]");
        assert_eq!(tags[6], "[Result \"*\"]");
        assert_eq!(tags[9], "[SetUp \"1\"]");
        let fen = tags[8]
            .strip_prefix("[FEN \"")
            .and_then(|t| t.strip_suffix("\"]"))
            .unwrap();
        assert_eq!(fen.split(' ').count(), 6, "{fen}");
        let comment = pair[1]
            .strip_prefix('{')
            .and_then(|m| m.strip_suffix("} *"))
            .unwrap_or_else(|| panic!("movetext {:?}", pair[1]));
        let parts: Vec<&str> = comment.split(", ").collect();
        let name = file_name(parts[0]);
        match parts[1..] {
            [page, diagram] => {
                let page: u64 = page.strip_prefix("page ").unwrap().parse().unwrap();
                let index: u64 = diagram.strip_prefix("diagram ").unwrap().parse().unwrap();
                sides.push((name.clone(), page, index, side_field(fen)));
                read.push((name, page, index, board_part(fen)));
            }
            [diagram] => {
                assert_eq!(diagram, "diagram 1", "{comment}");
                read.push((name, 0, 1, board_part(fen)));
            }
            _ => panic!("comment {comment:?}"),
        }
    }
    let mut expected: Vec<_> = images()
        .into_iter()
        .map(|(name, board)| (name, 0, 1, board))
        .collect();
    expected.extend(expected_boards());
    assert_eq!(read, expected, "{text}");
    assert_eq!(sides, expected_sides(), "{text}");

    let args = batch_args(&dir, &out, "pgn", &["--resume"]);
    let output = run(&args);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--resume does not work with --format pgn"),
        "{}",
        describe(&args, &output)
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn pages_selects_the_same_pages_of_every_pdf() {
    let (root, dir) = book_folder();
    let out = root.path().join("out.csv");
    let args = batch_args(&dir, &out, "csv", &["--pages", "2"]);
    let output = run_ok(&args);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("2 images and 2 PDF pages of 2 PDFs"),
        "{}",
        describe(&args, &output)
    );
    let text = fs::read_to_string(&out).unwrap();
    let rows = csv_rows(&text);
    let page_two: Vec<_> = expected_boards()
        .into_iter()
        .filter(|(_, page, ..)| *page == 2)
        .collect();
    assert_eq!(page_two.len(), 4);
    assert_eq!(csv_pdf_boards(&rows), page_two, "{text}");
    // Only page 2 rows for the books; the images are read as ever.
    assert!(
        rows.iter().all(|r| r[1] == "2" || r[1].is_empty()),
        "{text}"
    );
    assert_eq!(rows.len(), 2 + 4, "{text}");
}

/// A PDF of two blank pages, the second 20000 points square: too large to
/// render.
fn pdf_with_a_huge_second_page() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 20000 20000] >>",
    ];
    pdf_from_objects(&objects.map(|o| o.as_bytes().to_vec()))
}

#[test]
fn a_corrupt_pdf_or_a_bad_page_is_one_error_row_and_the_rest_comes_out() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("in");
    fs::create_dir(&dir).unwrap();
    let fixture = &fixtures()[0];
    fs::copy(&fixture.file, dir.join("a.png")).unwrap();
    let book = fs::read(testdata().join("pdf/book-typeset.pdf")).unwrap();
    fs::write(dir.join("b-truncated.pdf"), &book[..book.len() / 3]).unwrap();
    fs::write(
        dir.join("c-garbage.PDF"),
        b"%PDF-1.7\nnot a PDF at all\n%%EOF\n",
    )
    .unwrap();
    fs::write(dir.join("d-huge-page.pdf"), pdf_with_a_huge_second_page()).unwrap();
    let out = root.path().join("out.csv");
    let args = batch_args(&dir, &out, "csv", &[]);
    let output = run(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    let text = fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<String>> = csv_rows(&text)
        .into_iter()
        .map(|mut r| {
            r[0] = file_name(&r[0]);
            r[3] = board_part(&r[3]);
            r.remove(4); // confidence
            r
        })
        .collect();
    let row = |fields: [&str; 6]| fields.map(str::to_string).to_vec();
    let unreadable = "not a readable PDF (corrupt or truncated)";
    let truncated = "the PDF is truncated: it does not end with %%EOF";
    assert_eq!(
        rows,
        [
            row(["a.png", "", "1", &fixture.board_fen, "true", ""]),
            row(["b-truncated.pdf", "", "", "", "", truncated]),
            row(["c-garbage.PDF", "", "", "", "", unreadable]),
            row(["d-huge-page.pdf", "1", "", "", "", ""]),
            row([
                "d-huge-page.pdf",
                "2",
                "",
                "",
                "",
                "page 2 is 20000×20000 points, too large to render"
            ]),
        ],
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("3 failed"), "{}", describe(&args, &output));
    assert!(
        stderr.contains("d-huge-page.pdf#page=2: page 2 is 20000×20000 points"),
        "{}",
        describe(&args, &output)
    );

    // A resume redoes nothing: the error rows and the blank page are done.
    let args = batch_args(&dir, &out, "csv", &["--resume"]);
    let output = run_ok(&args);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("(4 files and 2 pages skipped"),
        "{}",
        describe(&args, &output)
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), text);

    // Over --max-pages: the whole book is one error row.
    let args = batch_args(&dir, &out, "csv", &["--max-pages", "1", "--pages", "1"]);
    run(&args);
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.ends_with("d-huge-page.pdf,,,,,,\"the PDF has 2 pages, over the limit of 1\"\n"),
        "{text}"
    );
}

#[test]
fn merging_shards_holding_pdfs_gives_one_runs_rows() {
    let (root, dir) = book_folder();
    let single = root.path().join("single.csv");
    run_ok(&batch_args(&dir, &single, "csv", &[]));
    let mut parts = Vec::new();
    let mut pdf_rows = 0;
    for index in 0..2 {
        let part = root.path().join(format!("part-{index}.csv"));
        let shard = format!("{index}/2");
        run_ok(&batch_args(&dir, &part, "csv", &["--shard", &shard]));
        pdf_rows += csv_rows(&fs::read_to_string(&part).unwrap())
            .iter()
            .filter(|r| !r[1].is_empty())
            .count();
        parts.push(part);
    }
    assert_eq!(pdf_rows, 8, "the books' rows are in the shards");
    let merged = root.path().join("merged.csv");
    let sorted = root.path().join("sorted.csv");
    let merge = |out: &Path, inputs: &[&PathBuf]| {
        let mut args = vec!["merge", "-o", out.to_str().unwrap()];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        run_ok(&args);
        fs::read_to_string(out).unwrap()
    };
    let merged = merge(&merged, &[&parts[0], &parts[1]]);
    let sorted = merge(&sorted, &[&single]);
    assert_eq!(merged, sorted);
    // The merge sorts a book's rows by page, then board.
    let rows = csv_rows(&merged);
    let books: Vec<(String, String, String)> = rows
        .iter()
        .filter(|r| !r[1].is_empty())
        .map(|r| (file_name(&r[0]), r[1].clone(), r[2].clone()))
        .collect();
    let mut expected = Vec::new();
    for book in BOOKS {
        for (page, board) in [("1", "1"), ("2", "1"), ("2", "2"), ("3", "")] {
            expected.push((book.to_string(), page.to_string(), board.to_string()));
        }
    }
    assert_eq!(books, expected, "{merged}");
}

#[test]
fn an_output_of_the_old_csv_header_is_not_resumed_into() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("in");
    fs::create_dir(&dir).unwrap();
    let out = root.path().join("old.csv");
    let old =
        "file,board,fen,confidence,legal,error\na.png,1,8/8/8/8/8/8/8/8 w - - 0 1,0.9,false,\n";
    fs::write(&out, old).unwrap();
    let args = batch_args(&dir, &out, "csv", &["--resume"]);
    let output = run(&args);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        describe(&args, &output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("cannot resume: its first line is not the header"),
        "{}",
        describe(&args, &output)
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), old);
}
