//! Book diagrams cropped from cheap scans, where only their printed frame
//! (`vision::frame`) places the board: three bilevel scans whose hatching has
//! thinned to specks, so no grid line runs across them, and two grey scans at
//! 100-150 dpi, one with a faint frame on grey paper and one with rank digits
//! printed against its frame. Made by
//! `training/make_book_eval.py OUT --seed 51 --scan harsh` (crops of pages
//! 24, 37 and 39 saved at one bit a pixel; pages 9 and 12 as cropped).

use crate::util::{boardscan, describe, testdata};

#[test]
fn framed_crops_of_cheap_scans_are_read_exactly() {
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
        Some(&["5", "5/5", "100%"][..]),
        "{}",
        describe(&args, &output)
    );
}
