//! Perft against published node counts, driven by the fixtures in
//! `testdata/perft/` (EPD with `;D<n> <count>` ops, or python-chess style
//! `epd`/`perft` line files).

use std::fs;
use std::path::Path;

use boardscan::analysis::engine::perft::perft;
use cozy_chess::Board;

/// Entries with more nodes than this are skipped to keep the test fast.
const MAX_NODES: u64 = 2_000_000;

struct Case {
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn complete_fen(fen: &str) -> String {
    if fen.split_whitespace().count() == 4 {
        format!("{fen} 0 1")
    } else {
        fen.to_owned()
    }
}

fn load(name: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/perft")
        .join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with("id ") {
            continue;
        }
        if let Some(fen) = line.strip_prefix("epd ") {
            cases.push(Case {
                fen: complete_fen(fen.trim()),
                counts: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (depth, count) = rest.split_once(' ').expect("perft <depth> <count>");
            let case = cases.last_mut().expect("perft line after an epd line");
            case.counts
                .push((depth.parse().unwrap(), count.trim().parse().unwrap()));
        } else {
            let mut parts = line.split(';');
            let fen = complete_fen(parts.next().unwrap().trim());
            let counts = parts
                .filter_map(|op| {
                    let (d, n) = op.trim().strip_prefix('D')?.split_once(' ')?;
                    Some((d.parse().ok()?, n.trim().parse().ok()?))
                })
                .collect();
            cases.push(Case { fen, counts });
        }
    }
    assert!(!cases.is_empty(), "no cases in {name}");
    cases
}

fn check(name: &str) {
    let mut checked = 0;
    for case in load(name) {
        let board: Board = case
            .fen
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.fen));
        for &(depth, expected) in &case.counts {
            if expected > MAX_NODES {
                continue;
            }
            assert_eq!(perft(&board, depth), expected, "{} depth {depth}", case.fen);
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn cpw_positions() {
    check("cpw_perft.epd");
}

#[test]
fn random_positions() {
    check("random.perft");
}

#[test]
fn chess960_positions() {
    check("chess960.perft");
}
