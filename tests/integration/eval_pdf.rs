//! `boardscan eval` on PDFs: `testdata/pdf/labels.csv` names every diagram
//! of the typeset book and of its scanned copy by page and reading order,
//! with its side to move; a doctored copy of it shows wrong, missed and
//! extra boards counted.

use crate::util::{boardscan, describe, testdata};

/// The `kind` rows of `eval`'s table: `[boards, exact, %, squares, missed, extra]`.
fn table(args: &[&str]) -> Vec<(String, Vec<String>)> {
    let output = boardscan(args);
    assert!(output.status.success(), "{}", describe(args, &output));
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(
        header,
        ["kind", "boards", "exact", "squares", "missed", "extra", "median", "ms"],
        "{stdout}"
    );
    lines
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Leave out the time, the one figure that changes from run to run.
            (
                f[0].to_string(),
                f[1..7].iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect()
}

fn row(cells: [&str; 6]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

#[test]
fn eval_scores_every_diagram_of_both_books_by_page_and_index() {
    let labels = testdata().join("pdf/labels.csv");
    let args = ["eval", labels.to_str().unwrap()];
    assert_eq!(
        table(&args),
        [
            (
                "scanned".to_string(),
                row(["3", "3/3", "100%", "100.0%", "0", "0"])
            ),
            (
                "typeset".to_string(),
                row(["3", "3/3", "100%", "100.0%", "0", "0"])
            ),
            (
                "all".to_string(),
                row(["6", "6/6", "100%", "100.0%", "0", "0"])
            ),
        ]
    );
    // The labels give full FENs: the typeset book's captions give every
    // side to move; the scanned copy has no text, so its two Black-to-move
    // diagrams read as White to move.
    let args = ["eval", "--show-failures", labels.to_str().unwrap()];
    let output = boardscan(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let sides: Vec<Vec<&str>> = stdout
        .split("\n\n")
        .find(|table| table.starts_with("side to move"))
        .unwrap_or_else(|| panic!("no side to move table in\n{stdout}"))
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        sides,
        [
            ["scanned", "3", "1/3", "33%"],
            ["typeset", "3", "3/3", "100%"],
            ["all", "6", "4/6", "67%"],
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains("book-scanned.pdf page=1 index=1: expected b to move, got w (default)"),
        "{}",
        describe(&args, &output)
    );
}

#[test]
fn eval_counts_wrong_missed_and_extra_pdf_boards() {
    // The typeset book's labels, doctored: page 1's board has a wrong square
    // (an e5 pawn moved to e6), page 2's right-hand diagram is left out (so
    // the board found there is extra) and a diagram is claimed on page 3,
    // which has none (missed).
    let dir = tempfile::tempdir().unwrap();
    let book = testdata().join("pdf/book-typeset.pdf");
    let book = book.to_str().unwrap();
    let csv = format!(
        "file,fen,view,kind,page,index\n\
         {book},r1bqkbnr/pppp1ppp/2n1p3/8/2B1P3/5N2/PPPP1PPP/RNBQK2R,white,doctored,1,1\n\
         {book},6k1/5ppp/8/8/8/8/5PPP/3R2K1,white,doctored,2,1\n\
         {book},6k1/5ppp/8/8/8/8/5PPP/3R2K1,white,doctored,3,1\n"
    );
    let labels = dir.path().join("labels.csv");
    std::fs::write(&labels, csv).unwrap();
    let args = ["eval", "--show-failures", labels.to_str().unwrap()];
    let output = boardscan(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for failure in [
        "page=1 index=1: expected r1bqkbnr/pppp1ppp/2n1p3/8/2B1P3/5N2/PPPP1PPP/RNBQK2R, got r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R (62/64)",
        "page=2 index=2: extra board r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4",
        "page=3 index=1: expected 6k1/5ppp/8/8/8/8/5PPP/3R2K1, got no board",
    ] {
        assert!(stdout.contains(failure), "no `{failure}` in\n{}", describe(&args, &output));
    }
    let args = ["eval", labels.to_str().unwrap()];
    assert_eq!(
        table(&args),
        [
            (
                "doctored".to_string(),
                row(["3", "1/3", "33%", "65.6%", "1", "1"])
            ),
            (
                "all".to_string(),
                row(["3", "1/3", "33%", "65.6%", "1", "1"])
            ),
        ]
    );
}
