//! The library's modules form layers: a module may use only modules of lower
//! layers, so the module graph has no cycle and no upward edge. This test
//! reads every `crate::` path in `src/` and fails on an import that breaks
//! the order, naming the file.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

/// Each top-level module of `src/` with its layer, lowest first.
const LAYERS: &[(&str, u8)] = &[
    // Pictures, files and the rules of a position.
    ("legality", 0),
    ("vision", 0),
    ("source", 0),
    // Moves and positions as text.
    ("notation", 1),
    // Analysis (our engine, external UCI engines, hints, grades, play, the
    // mate report); reading a picture's squares.
    ("analysis", 2),
    ("recognize", 2),
    // From a picture to boards (and their analysis); timing the pipeline.
    ("scan", 3),
    ("speed", 3),
    // File formats of scans; accuracy against labels; whole games.
    ("formats", 4),
    ("accuracy", 4),
    ("games", 4),
    // Where scans are kept.
    ("library", 5),
    // Front ends.
    ("batch", 6),
    ("api", 7),
    // The command line: the binary's modules (`src/main.rs` declares them).
    ("cli", 8),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// Every `.rs` file of a module (its file, or its folder).
fn files(src: &Path, module: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        out.push(file);
    }
    let mut folders = vec![src.join(module)];
    while let Some(dir) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

/// Source text without `//` comments (doc links name modules freely).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules named after `crate::`, also inside `crate::{a, b::{…}}`.
fn used_modules(text: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The names at the top level of the braces.
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        used.insert(ident(&group[start..j]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        used.insert(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            used.insert(ident(rest));
        }
    }
    used.remove("");
    used
}

#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let name = name.strip_suffix(".rs").unwrap_or(&name).to_string();
            (name != "main" && name != "lib").then_some(name)
        })
        .collect();
    modules.sort();
    modules.dedup();
    let mut broken = Vec::new();
    for module in &modules {
        let Some(own) = layer(module) else {
            broken.push(format!("src/{module}: not in LAYERS; give it a layer"));
            continue;
        };
        for file in files(&src, module) {
            let text = code(&std::fs::read_to_string(&file).unwrap());
            for used in used_modules(&text) {
                match layer(&used) {
                    Some(other) if used != *module && other >= own => broken.push(format!(
                        "{}: {module} (layer {own}) uses {used} (layer {other})",
                        file.strip_prefix(&src).unwrap().display()
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the layers:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_reader_of_imports_sees_grouped_and_nested_paths() {
    let text = "use crate::{\n    analysis::{self, Analysis},\n    notation::lang::{Lang, MoveStyle},\n    vision,\n};\nlet x = crate::scan::scan(1);";
    let used: Vec<String> = used_modules(text).into_iter().collect();
    assert_eq!(used, ["analysis", "notation", "scan", "vision"]);
    assert!(used_modules(&code("// see crate::api for more")).is_empty());
}
