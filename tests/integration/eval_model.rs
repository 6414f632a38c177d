//! `boardscan eval --model FILE` scores another square model through the
//! whole pipeline (how a fine-tuned model is compared with the bundled one).

use crate::util::{boardscan, describe, testdata};

/// `eval`'s output without the one figure that changes from run to run, the
/// median time (last column of the per-kind table).
fn without_times(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() == 6 && f[5].parse::<f64>().is_ok() {
                f[..5].join(" ")
            } else {
                l.to_string()
            }
        })
        .collect()
}

#[test]
fn eval_model_reads_with_the_given_square_model() {
    let labels = testdata().join("boards.csv");
    let labels = labels.to_str().unwrap();
    let bundled = ["eval", "--show-failures", labels];
    let bundled_out = boardscan(&bundled);
    assert!(
        bundled_out.status.success(),
        "{}",
        describe(&bundled, &bundled_out)
    );

    // The bundled model's own file reads exactly what the bundled model does.
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/squares.onnx");
    let given = ["eval", "--show-failures", "--model", model, labels];
    let given_out = boardscan(&given);
    assert!(
        given_out.status.success(),
        "{}",
        describe(&given, &given_out)
    );
    assert_eq!(
        without_times(&given_out.stdout),
        without_times(&bundled_out.stdout)
    );

    // A file that is not a model, or no file, is a clear error.
    let dir = tempfile::tempdir().unwrap();
    let not_onnx = dir.path().join("squares.onnx");
    std::fs::write(&not_onnx, b"not a model").unwrap();
    for (path, says) in [
        (not_onnx.to_str().unwrap().to_string(), "model"),
        (
            dir.path()
                .join("missing.onnx")
                .to_str()
                .unwrap()
                .to_string(),
            "reading",
        ),
    ] {
        let args = ["eval", "--model", &path, labels];
        let out = boardscan(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(
            !out.status.success() && stderr.contains(says) && out.stdout.is_empty(),
            "{}",
            describe(&args, &out)
        );
    }
}
