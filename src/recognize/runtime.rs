//! Loading ONNX Runtime (`ort` in `load-dynamic` mode) exactly once.
//!
//! The library is looked for, in order: `ORT_DYLIB_PATH`; next to the
//! executable (how the Docker image ships it); the copy that `build.rs`
//! fetched and verified at build time.

use std::{env, path::PathBuf, sync::OnceLock};

use super::RecognizeError;

const VERSION: &str = env!("BOARDSCAN_ORT_VERSION");
const BUILD_TIME_PATH: &str = env!("BOARDSCAN_ORT_DYLIB");

static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// The process-wide ONNX Runtime environment.
pub fn environment() -> Result<ort::environment::Environment, RecognizeError> {
    ENVIRONMENT
        .get_or_init(|| {
            let path = library_path().ok_or_else(missing_library_message)?;
            let builder = ort::init_from(&path)
                .map_err(|e| format!("loading ONNX Runtime from {}: {e}", path.display()))?;
            let environment = builder
                .with_name("boardscan")
                .build()
                .map_err(|e| format!("starting ONNX Runtime: {e}"))?;
            Ok(environment)
        })
        .clone()
        .map_err(RecognizeError::Runtime)
}

fn library_path() -> Option<PathBuf> {
    let file_name = format!("libonnxruntime.so.{VERSION}");
    let candidates = [
        env::var_os("ORT_DYLIB_PATH").map(PathBuf::from),
        env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join(&file_name))),
        (!BUILD_TIME_PATH.is_empty()).then(|| PathBuf::from(BUILD_TIME_PATH)),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

fn missing_library_message() -> String {
    format!(
        "ONNX Runtime {VERSION} was not found. The build fetches it with pip; if that failed \
         (no python3/pip, or no access to the package registry), get it by hand: \
         `python3 -m pip download --no-deps onnxruntime=={VERSION}`, unzip the wheel, and set \
         ORT_DYLIB_PATH to the extracted onnxruntime/capi/libonnxruntime.so.{VERSION}"
    )
}
