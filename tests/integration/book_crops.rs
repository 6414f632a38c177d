//! Book diagrams cropped from bilevel scans whose hatching has thinned to
//! specks: no grid line runs across them, and only their printed frame
//! (`vision::frame`) places the board. Made by
//! `training/make_book_eval.py OUT --seed 51 --scan harsh` (crops of pages
//! 24, 37 and 39, saved at one bit a pixel).

use crate::util::{boardscan, describe, testdata};

#[test]
fn framed_bilevel_crops_are_read_exactly() {
    let labels = testdata().join("book-crops/labels.csv");
    let args = ["eval", labels.to_str().unwrap(), "--show-failures"];
    let output = boardscan(&args);
    assert!(output.status.success(), "{}", describe(&args, &output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let all: Vec<&str> = stdout
        .lines()
        .find(|l| l.starts_with("all "))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        all.get(1..4),
        Some(&["3", "3/3", "100%"][..]),
        "{}",
        describe(&args, &output)
    );
}
