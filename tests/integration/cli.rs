use crate::util::{boardscan, describe, fixtures, testdata};

/// Fixtures the bundled model is known to misread, with the reason
/// (`testdata/known-misreads.csv`); every other fixture must be read exactly.
fn known_misreads() -> Vec<String> {
    let text = std::fs::read_to_string(testdata().join("known-misreads.csv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .map(|f| testdata().join(f).display().to_string())
        .collect()
}

#[test]
fn scan_reads_every_fixture_exactly() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 24, "expected at least 24 fixtures");
    let known = known_misreads();
    assert!(
        known.len() <= 2,
        "the known misreads must stay an exception"
    );
    let mut wrong = Vec::new();
    for fixture in &fixtures {
        let file = fixture.file.to_str().unwrap();
        let args = ["scan", "--view", fixture.view.as_str(), file];
        let output = boardscan(&args);
        assert!(output.status.success(), "{}", describe(&args, &output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let fen = stdout
            .lines()
            .next()
            .and_then(|l| l.split('\t').nth(1))
            .unwrap_or("");
        let board = fen.split(' ').next().unwrap_or("");
        if board != fixture.board_fen && !known.contains(&file.to_string()) {
            wrong.push(format!(
                "{file}: expected {}, got {board}",
                fixture.board_fen
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        fixtures.len(),
        wrong.join("\n")
    );
}

#[test]
fn scan_json_reports_squares_and_confidence() {
    let fixture = &fixtures()[0];
    let args = [
        "scan",
        "--json",
        "--side",
        "b",
        "--view",
        fixture.view.as_str(),
        fixture.file.to_str().unwrap(),
    ];
    let output = boardscan(&args);
    assert!(output.status.success(), "{}", describe(&args, &output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    let board = &value["boards"][0];
    assert_eq!(board["boardFen"], fixture.board_fen.as_str());
    assert_eq!(board["sideToMove"], "b");
    assert_eq!(board["sideToMoveSource"], "given");
    assert_eq!(board["squares"].as_array().unwrap().len(), 64);
    let confidence = board["confidence"].as_f64().unwrap();
    assert!(confidence > 0.0 && confidence <= 1.0, "{confidence}");
    assert!(board["fen"].as_str().unwrap().contains(" b "));
}

/// Fixtures rendered with coordinates inside the edge squares
/// (`training/make_testdata.py`), with the side at the bottom.
const WITH_COORDINATES: [(&str, &str); 4] = [
    (
        "boards/02-pychess-cburnett-lichess-brown-black.png",
        "black",
    ),
    ("boards/03-pychess-merida-chesscom-green-white.png", "white"),
    ("boards/17-cbe-wikipedia-olive-black.png", "black"),
    (
        "boards/28-pychess-cburnett-lichess-brown-black.png",
        "black",
    ),
];

#[test]
fn scan_reads_the_orientation_from_coordinates() {
    for (file, view) in WITH_COORDINATES {
        let path = testdata().join(file);
        let args = ["scan", "--json", path.to_str().unwrap()];
        let output = boardscan(&args);
        assert!(output.status.success(), "{}", describe(&args, &output));
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let board = &value["boards"][0];
        assert_eq!(board["orientation"], view, "{file}");
        assert_eq!(board["orientationSource"], "coordinates", "{file}");
    }
}

#[test]
fn scan_rejects_images_without_a_board() {
    let dir = testdata().join("negative");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let args = ["scan", path.to_str().unwrap()];
        let output = boardscan(&args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            describe(&args, &output)
        );
        assert!(output.stdout.is_empty(), "{}", describe(&args, &output));
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("no chessboard"),
            "{}",
            describe(&args, &output)
        );
    }
}

#[test]
fn batch_writes_error_rows_and_carries_on() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = fixtures();
    for fixture in fixtures.iter().take(3) {
        std::fs::copy(
            &fixture.file,
            dir.path().join(fixture.file.file_name().unwrap()),
        )
        .unwrap();
    }
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(
        dir.path().join("sub/broken.png"),
        b"\x89PNG\r\n\x1a\ntruncated",
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    let args = [
        "batch",
        dir.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-j",
        "2",
    ];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "file,page,board,fen,confidence,legal,error");
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(
        rows.iter()
            .any(|r| r.contains("broken.png") && r.contains("not an image")),
        "{csv}"
    );
    assert_eq!(
        rows.iter().filter(|r| r.contains(",1,")).count(),
        3,
        "{csv}"
    );

    // Resuming skips the files already written and adds nothing new.
    let args = [
        "batch",
        dir.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--resume",
    ];
    let output = boardscan(&args);
    assert!(output.status.success(), "{}", describe(&args, &output));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), csv);
}

#[test]
fn unreadable_input_is_a_clear_error() {
    let args = ["scan", "/nonexistent/board.png"];
    let output = boardscan(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        describe(&args, &output)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("reading /nonexistent/board.png"));
}
