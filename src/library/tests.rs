//! The store against a real SQLite file (the PostgreSQL path is tested
//! against a real server in tests/integration/library.rs).

use super::*;

fn temp_library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("lib.sqlite3").to_str().unwrap()).unwrap();
    (dir, library)
}

fn board(fen: &str) -> NewBoard {
    NewBoard {
        fen: fen.into(),
        confidence: 0.97,
        reading: serde_json::json!({ "fen": fen, "orientation": "white" }),
        thumbnail: Some(vec![0x89, b'P', b'N', b'G']),
    }
}

fn scan(hash: &str, fens: &[&str]) -> NewScan {
    NewScan {
        source_hash: hash.into(),
        page: None,
        source_name: Some(format!("{hash}.png")),
        boards: fens.iter().map(|f| board(f)).collect(),
    }
}

const ROOK_ENDING: &str = "8/5pk1/8/8/8/8/r4PPP/3R2K1 w - - 0 1";
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn a_scan_round_trips() {
    let (_dir, library) = temp_library();
    let saved = library.save(&scan("aa", &[START, ROOK_ENDING])).unwrap();
    assert!(saved.created);
    let stored = library.get(saved.id).unwrap();
    assert_eq!(stored.source_name.as_deref(), Some("aa.png"));
    assert_eq!(stored.page, None);
    assert_eq!(stored.boards.len(), 2);
    assert_eq!(stored.boards[1].fen, ROOK_ENDING);
    assert_eq!(stored.boards[1].material, "KRPPPvKRP");
    assert!(!stored.boards[0].corrected);
    assert_eq!(stored.boards[0].reading["orientation"], "white");
    assert_eq!(
        library.thumbnail(saved.id, 1).unwrap(),
        vec![0x89, b'P', b'N', b'G']
    );
}

#[test]
fn the_same_picture_twice_is_one_entry_and_keeps_its_corrections() {
    let (_dir, library) = temp_library();
    let first = library.save(&scan("aa", &[START])).unwrap();
    library.correct(first.id, 0, ROOK_ENDING).unwrap();
    let again = library.save(&scan("aa", &[START])).unwrap();
    assert_eq!(
        again,
        Saved {
            id: first.id,
            created: false,
            removed: 0
        }
    );
    assert_eq!(library.count().unwrap(), 1);
    let stored = library.get(first.id).unwrap();
    assert_eq!(stored.times_scanned, 2);
    assert_eq!(stored.boards[0].fen, ROOK_ENDING);
    assert!(stored.boards[0].corrected);
    // Another page of the same source is another entry.
    let page = library
        .save(&NewScan {
            page: Some(2),
            ..scan("aa", &[START])
        })
        .unwrap();
    assert!(page.created);
    assert_eq!(library.get(page.id).unwrap().page, Some(2));
}

#[test]
fn search_by_fen_placement_and_material() {
    let (_dir, library) = temp_library();
    let a = library.save(&scan("a", &[START])).unwrap().id;
    let b = library.save(&scan("b", &[ROOK_ENDING])).unwrap().id;
    let c = library
        .save(&scan("c", &["8/5pk1/8/8/8/8/r4PPP/3R2K1 b - - 0 1"]))
        .unwrap()
        .id;
    let d = library
        .save(&scan("d", &["6k1/8/8/8/8/8/r7/3R2K1 w - - 0 1"]))
        .unwrap()
        .id;
    let ids = |query: ScanQuery| -> Vec<i64> {
        let mut ids: Vec<i64> = library
            .list(&ScanQuery {
                per_page: 50,
                ..query
            })
            .unwrap()
            .scans
            .iter()
            .map(|s| s.id)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(ScanQuery::default()), vec![a, b, c, d]);
    assert_eq!(
        ids(ScanQuery {
            fen: Some(ROOK_ENDING.into()),
            ..Default::default()
        }),
        vec![b]
    );
    // A FEN without clocks is the same position.
    assert_eq!(
        ids(ScanQuery {
            fen: Some("8/5pk1/8/8/8/8/r4PPP/3R2K1 b - -".into()),
            ..Default::default()
        }),
        vec![c]
    );
    assert_eq!(
        ids(ScanQuery {
            placement: Some(ROOK_ENDING.into()),
            ..Default::default()
        }),
        vec![b, c]
    );
    assert_eq!(
        ids(ScanQuery {
            material: Some("KRvKR".into()),
            ..Default::default()
        }),
        vec![b, c, d]
    );
    assert_eq!(
        ids(ScanQuery {
            material: Some("krvkr".into()),
            ..Default::default()
        }),
        vec![b, c, d]
    );
    assert_eq!(
        ids(ScanQuery {
            material: Some("KRvKR".into()),
            ..Default::default()
        })
        .len(),
        3
    );
    assert_eq!(
        ids(ScanQuery {
            material: Some("KRPPPvKRP".into()),
            ..Default::default()
        }),
        vec![b, c]
    );
    assert!(matches!(
        library.list(&ScanQuery {
            material: Some("rooks".into()),
            ..Default::default()
        }),
        Err(LibraryError::BadInput(_))
    ));
    // Paging: newest first, two a page.
    let page = library
        .list(&ScanQuery {
            page: 2,
            per_page: 2,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(page.total, 4);
    assert_eq!(
        page.scans.iter().map(|s| s.id).collect::<Vec<_>>(),
        vec![b, a]
    );
}

#[test]
fn corrections_keep_their_history_and_change_what_is_found() {
    let (_dir, library) = temp_library();
    let id = library.save(&scan("a", &[ROOK_ENDING])).unwrap().id;
    let black = "8/5pk1/8/8/8/8/r4PPP/3R2K1 b - - 0 1";
    let board = library.correct(id, 0, black).unwrap();
    assert!(board.corrected);
    assert_eq!(board.read_fen, ROOK_ENDING);
    let queen = "8/5pk1/8/8/8/8/q4PPP/3R2K1 b - - 0 1";
    let board = library.correct(id, 0, queen).unwrap();
    assert_eq!(board.fen, queen);
    assert_eq!(board.material, "KRPPPvKQP");
    assert_eq!(
        board
            .corrections
            .iter()
            .map(|c| (c.previous_fen.as_str(), c.fen.as_str()))
            .collect::<Vec<_>>(),
        vec![(ROOK_ENDING, black), (black, queen)]
    );
    // The same FEN again records nothing.
    assert_eq!(library.correct(id, 0, queen).unwrap().corrections.len(), 2);
    let corrected = library
        .list(&ScanQuery {
            corrected: Some(true),
            per_page: 10,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(corrected.total, 1);
    let found = library
        .list(&ScanQuery {
            material: Some("KRvKQ".into()),
            per_page: 10,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.total, 1);
    // Back to the reading: no longer corrected, the history stays.
    let board = library.correct(id, 0, ROOK_ENDING).unwrap();
    assert!(!board.corrected);
    assert_eq!(board.corrections.len(), 3);
    assert!(matches!(
        library.correct(id, 0, "not a fen"),
        Err(LibraryError::BadInput(_))
    ));
    assert!(matches!(
        library.correct(id, 5, queen),
        Err(LibraryError::NoSuchBoard { .. })
    ));
    assert!(matches!(
        library.correct(id + 1, 0, queen),
        Err(LibraryError::NoSuchScan(_))
    ));
}

#[test]
fn an_analysis_is_kept_with_its_board() {
    let (_dir, library) = temp_library();
    let id = library.save(&scan("a", &[START])).unwrap().id;
    assert!(library.get(id).unwrap().boards[0].analysis.is_none());
    let analysis = serde_json::json!({ "fen": START, "depth": 12 });
    library.set_analysis(id, 0, &analysis).unwrap();
    assert_eq!(
        library.get(id).unwrap().boards[0].analysis,
        Some(analysis.clone())
    );
    assert!(matches!(
        library.set_analysis(id, 3, &analysis),
        Err(LibraryError::NoSuchBoard { .. })
    ));
    assert!(matches!(
        library.set_analysis(id + 9, 0, &analysis),
        Err(LibraryError::NoSuchScan(_))
    ));
}

#[test]
fn delete_one_and_all_and_unknown_ids() {
    let (_dir, library) = temp_library();
    let a = library.save(&scan("a", &[START])).unwrap().id;
    library.save(&scan("b", &[START])).unwrap();
    library.correct(a, 0, ROOK_ENDING).unwrap();
    library.delete(a).unwrap();
    assert!(matches!(library.get(a), Err(LibraryError::NoSuchScan(_))));
    assert!(matches!(
        library.delete(a),
        Err(LibraryError::NoSuchScan(_))
    ));
    assert!(matches!(
        library.thumbnail(a, 0),
        Err(LibraryError::NoSuchScan(_))
    ));
    assert_eq!(library.delete_all().unwrap(), 1);
    assert_eq!(library.count().unwrap(), 0);
}

#[test]
fn retention_drops_the_oldest_uncorrected_scans() {
    let (_dir, library) = temp_library();
    library.set_max_scans(3).unwrap();
    let first = library.save(&scan("0", &[START])).unwrap().id;
    library.correct(first, 0, ROOK_ENDING).unwrap();
    let saved: Vec<Saved> = (1..6)
        .map(|i| library.save(&scan(&i.to_string(), &[START])).unwrap())
        .collect();
    let ids: Vec<i64> = saved.iter().map(|s| s.id).collect();
    let removed: Vec<u64> = saved.iter().map(|s| s.removed).collect();
    assert_eq!(removed, [0, 0, 1, 1, 1]);
    assert_eq!(library.count().unwrap(), 3);
    // The corrected one is kept, and the two newest.
    assert!(library.get(first).is_ok());
    assert!(library.get(ids[4]).is_ok() && library.get(ids[3]).is_ok());
    assert!(library.get(ids[0]).is_err());
}

#[test]
fn retention_is_stored_in_the_library_for_every_opener() {
    let (dir, library) = temp_library();
    assert_eq!(library.max_scans().unwrap(), DEFAULT_MAX_SCANS);
    library.set_max_scans(0).unwrap();
    drop(library);
    let again = Library::open(dir.path().join("lib.sqlite3").to_str().unwrap()).unwrap();
    assert_eq!(again.max_scans().unwrap(), 0);
    for i in 0..4 {
        assert_eq!(
            again.save(&scan(&i.to_string(), &[START])).unwrap().removed,
            0
        );
    }
    assert_eq!(again.count().unwrap(), 4);
}

#[test]
fn an_import_never_removes_a_scan_whatever_the_retention() {
    let (dir, library) = temp_library();
    library.set_max_scans(3).unwrap();
    for i in 0..3 {
        library.save(&scan(&i.to_string(), &[START])).unwrap();
    }
    let csv = dir.path().join("batch.csv");
    std::fs::write(
        &csv,
        format!(
            "file,page,board,fen,confidence,legal,error\na.png,,0,{START},0.9,true,\nb.png,,0,{ROOK_ENDING},0.8,true,\n"
        ),
    )
    .unwrap();
    let imported = transfer::import(&library, &csv).unwrap();
    assert_eq!(imported.created, 2);
    assert_eq!(library.count().unwrap(), 5);
}

#[test]
fn an_import_with_a_bad_row_writes_nothing_and_names_the_row() {
    let (dir, library) = temp_library();
    let csv = dir.path().join("batch.csv");
    std::fs::write(
        &csv,
        format!(
            "file,page,board,fen,confidence,legal,error\na.png,,0,{START},0.9,true,\nb.png,,0,{ROOK_ENDING},NaN,true,\n"
        ),
    )
    .unwrap();
    let err = transfer::import(&library, &csv).unwrap_err().to_string();
    assert!(err.contains("batch.csv:3: confidence \"NaN\""), "{err}");
    assert_eq!(library.count().unwrap(), 0);
}

#[test]
fn an_import_refuses_a_device_or_a_pipe_it_names_and_writes_nothing() {
    let (dir, library) = temp_library();
    let fifo = dir.path().join("fifo.png");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    for (named, why) in [
        ("/dev/zero", "a device"),
        (fifo.to_str().unwrap(), "a named pipe"),
    ] {
        let csv = dir.path().join("batch.csv");
        std::fs::write(
            &csv,
            format!(
                "file,page,board,fen,confidence,legal,error\nfirst.png,,0,{START},0.9,true,\n{named},,0,{START},0.9,true,\n"
            ),
        )
        .unwrap();
        let err = transfer::import(&library, &csv).unwrap_err().to_string();
        assert!(err.contains(why) && err.contains(named), "{err}");
        assert_eq!(library.count().unwrap(), 0);
        // Nor is the batch file itself read when it is not a regular file.
        let err = transfer::import(&library, std::path::Path::new(named))
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{err}");
    }
}

#[test]
fn a_picture_with_too_many_boards_is_refused_and_nothing_is_imported() {
    let (dir, library) = temp_library();
    let mut csv = String::from("file,page,board,fen,confidence,legal,error\na.png,,1,8/8/8/8/8/8/8/K1k5 w - - 0 1,0.9,true,\n");
    for board in 0..=MAX_BOARDS_PER_SCAN {
        csv.push_str(&format!("many.png,,{board},{START},0.9,true,\n"));
    }
    let path = dir.path().join("batch.csv");
    std::fs::write(&path, csv).unwrap();
    let err = transfer::import(&library, &path).unwrap_err().to_string();
    assert!(
        err.contains("many.png has 65 boards, over the limit of 64"),
        "{err}"
    );
    assert_eq!(library.count().unwrap(), 0);
}

#[test]
fn an_oversized_thumbnail_is_refused_and_nothing_is_saved() {
    let (_dir, library) = temp_library();
    let mut big = scan("a", &[START]);
    big.boards[0].thumbnail = Some(vec![0; MAX_THUMBNAIL_BYTES + 1]);
    let err = library.save(&big).unwrap_err();
    assert!(
        matches!(err, LibraryError::ThumbnailTooLarge { .. }),
        "{err}"
    );
    assert_eq!(library.count().unwrap(), 0);
}

#[test]
fn a_corrupt_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lib.sqlite3");
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();
    let err = Library::open(path.to_str().unwrap())
        .err()
        .expect("refused");
    assert!(matches!(err, LibraryError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains(path.to_str().unwrap()), "{err}");
}

#[test]
fn a_library_from_a_newer_boardscan_is_refused() {
    let (dir, library) = temp_library();
    library
        .tx(|conn| conn.execute("UPDATE schema_version SET version = 99", &[]))
        .unwrap();
    drop(library);
    let err = Library::open(dir.path().join("lib.sqlite3").to_str().unwrap())
        .err()
        .expect("refused");
    assert!(
        matches!(err, LibraryError::NewerSchema { found: 99, .. }),
        "{err}"
    );
}

#[test]
fn a_full_disk_is_a_clear_error_and_keeps_what_was_saved() {
    let (dir, library) = temp_library();
    let kept = library.save(&scan("kept", &[START])).unwrap().id;
    let pages = library
        .tx(|conn| Ok(conn.query("PRAGMA page_count", &[])?[0][0].int()))
        .unwrap();
    drop(library);
    let sqlite = sqlite::Sqlite::open(&dir.path().join("lib.sqlite3")).unwrap();
    sqlite.limit_pages(pages as u64 + 2);
    let full = Library::on(Arc::new(sqlite)).unwrap();
    let mut big = scan("big", &[START]);
    big.boards[0].thumbnail = Some((0..200_000u32).map(|i| (i * 7919 % 251) as u8).collect());
    let err = full.save(&big).unwrap_err();
    assert!(matches!(err, LibraryError::Full { .. }), "{err}");
    assert!(err.to_string().contains("full"), "{err}");
    assert_eq!(full.count().unwrap(), 1);
    assert_eq!(full.get(kept).unwrap().boards[0].fen, START);
}

#[test]
fn the_librarys_own_csv_export_imports_into_another_library() {
    let (dir, source) = temp_library();
    let mut book = scan("book", &[START, ROOK_ENDING]);
    book.page = Some(3);
    book.source_name = Some("Chess, \"the\" book.pdf".into());
    let saved = source.save(&book).unwrap();
    source.correct(saved.id, 0, ROOK_ENDING).unwrap();
    let mut unnamed = scan("unnamed", &[START]);
    unnamed.source_name = None;
    source.save(&unnamed).unwrap();
    let csv = dir.path().join("export.csv");
    let mut out = Vec::new();
    transfer::export(
        &source,
        &ScanQuery::default(),
        transfer::ExportFormat::Csv,
        &mut out,
    )
    .unwrap();
    std::fs::write(&csv, out).unwrap();

    let (_other_dir, target) = temp_library();
    let imported = transfer::import(&target, &csv).unwrap();
    assert_eq!((imported.created, imported.skipped), (2, 0));
    let all = ScanQuery {
        page: 1,
        per_page: 10,
        ..ScanQuery::default()
    };
    let scans = target.list(&all).unwrap().scans;
    let book = scans
        .iter()
        .find(|s| s.source_name.as_deref() == Some("Chess, \"the\" book.pdf"))
        .expect("the named scan, its name unquoted");
    assert_eq!(book.page, Some(3));
    let fens: Vec<&str> = book.boards.iter().map(|b| b.fen.as_str()).collect();
    assert_eq!(
        fens,
        [ROOK_ENDING, ROOK_ENDING],
        "the correction is the board's position"
    );
    assert_eq!(book.boards[0].reading["readFen"], START);
    assert_eq!(book.boards[0].reading["corrected"], true);
    assert!(scans.iter().any(|s| s
        .source_name
        .as_deref()
        .is_some_and(|n| n.starts_with("scan "))));
}
