//! `eval`, `eval-recordings` and `bench-scan`: recognition measured.

use std::{io::Write, path::PathBuf, process::ExitCode};

use anyhow::Context;
use boardscan::{
    accuracy,
    games::recording::eval::eval_recordings,
    recognize::{RecognizeOptions, Recognizer},
    speed,
    vision::DecodeLimits,
};

/// Options of `eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// The labels file, or a folder holding `labels.csv`; image and PDF paths are relative to it.
    labels: PathBuf,
    /// Give the recognizer the labelled orientation (isolates square errors).
    #[arg(long)]
    use_labelled_view: bool,
    /// List every image or diagram that was not read exactly, and every extra board.
    #[arg(long)]
    show_failures: bool,
    /// Score this square model (an ONNX file with the contract of `models/squares.onnx`) instead of the bundled one.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Score this standing-piece model (an ONNX file with the contract of `models/standing.onnx`) instead of the bundled one.
    #[arg(long)]
    standing_model: Option<PathBuf>,
    /// Read photos of physical boards as this set, learnt with `boardscan library learn-set NAME`.
    #[arg(long)]
    set: Option<String>,
    /// The library holding --set: a SQLite file or a `postgres://` URL (default: the user's data folder).
    #[arg(long, env = "BOARDSCAN_LIBRARY")]
    library: Option<String>,
}

/// Options of `eval-recordings`.
#[derive(clap::Args)]
pub struct EvalRecordingsArgs {
    /// The labels file, or a folder holding `labels.csv`.
    labels: PathBuf,
    /// List every recording not read exactly.
    #[arg(long)]
    show_failures: bool,
}

/// Options of `bench-scan`.
#[derive(clap::Args)]
pub struct BenchScanArgs {
    /// The image to recognize.
    image: PathBuf,
    /// Timed runs (after one warm-up run).
    #[arg(long, default_value_t = 30)]
    runs: usize,
}

/// `eval`: per-kind board and square accuracy (and with --show-failures
/// each board not read exactly).
pub fn eval(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let labels = accuracy::read_labels(&args.labels)?;
    let recognizer = match &args.model {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            Recognizer::with_square_model(&bytes, 1, DecodeLimits::default())?
        }
        None => Recognizer::bundled(1, DecodeLimits::default())?,
    };
    let recognizer = match &args.standing_model {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            recognizer.with_standing_model(&bytes, 1)?
        }
        None => recognizer,
    };
    let given = RecognizeOptions {
        set: match &args.set {
            Some(name) => Some(std::sync::Arc::new(super::scan::learnt_set(
                args.library.as_deref(),
                name,
            )?)),
            None => None,
        },
        ..RecognizeOptions::default()
    };
    let report = accuracy::measure(&recognizer, &labels, args.use_labelled_view, &given);
    if args.show_failures {
        for failure in &report.failures {
            outln!("{failure}")?;
        }
    }
    out!("{report}")?;
    Ok(ExitCode::SUCCESS)
}

/// `eval-recordings`: per kind of recording, the games whose moves were
/// read exactly, and the time taken per minute of recording.
pub fn recordings(args: &EvalRecordingsArgs) -> anyhow::Result<ExitCode> {
    let labels = if args.labels.is_dir() {
        args.labels.join("labels.csv")
    } else {
        args.labels.clone()
    };
    let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
    let report = eval_recordings(&labels, &recognizer).map_err(anyhow::Error::msg)?;
    if args.show_failures {
        for failure in &report.failures {
            outln!("{failure}")?;
        }
    }
    out!("{report}")?;
    Ok(ExitCode::SUCCESS)
}

/// `bench-scan`: the median time of recognition and of each stage.
pub fn bench_scan(args: &BenchScanArgs) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(&args.image).with_context(|| format!("reading {}", args.image.display()))?;
    let recognizer = Recognizer::bundled(1, DecodeLimits::default())?;
    out!(
        "{}",
        speed::time_recognition(&recognizer, &bytes, args.runs)?
    )?;
    Ok(ExitCode::SUCCESS)
}
