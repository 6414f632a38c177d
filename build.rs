//! Provides ONNX Runtime for `ort`'s `load-dynamic` mode without a manual step.
//!
//! The pinned `libonnxruntime` comes from the official `onnxruntime` wheel, fetched
//! with pip (the only route to it from this environment), checked against a pinned
//! sha256 and unpacked into `target/onnxruntime/<version>/`, where debug and
//! release builds share it. Its path is baked into the binary as
//! `BOARDSCAN_ORT_DYLIB`; at run time `ORT_DYLIB_PATH` still wins.
//!
//! A failure here is only a warning: the crate still builds, and the binary
//! explains at run time what to do.

use std::{
    env, fs,
    io::Read,
    path::{Path, PathBuf},
    process::Command,
};

use sha2::{Digest, Sha256};

const ORT_VERSION: &str = "1.31.1";
const WHEEL_PLATFORM: &str = "manylinux_2_28_x86_64";
const WHEEL_SHA256: &str = "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f";
const LIB_MEMBER: &str = "onnxruntime/capi/libonnxruntime.so.1.31.1";
const LIB_SHA256: &str = "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ORT_DYLIB_PATH");
    println!("cargo:rerun-if-env-changed=BOARDSCAN_SKIP_ORT_FETCH");

    let target = env::var("TARGET").unwrap_or_default();
    let path = if env::var_os("BOARDSCAN_SKIP_ORT_FETCH").is_some() {
        None
    } else if target != "x86_64-unknown-linux-gnu" {
        println!(
            "cargo:warning=no pinned ONNX Runtime for {target}; set ORT_DYLIB_PATH at run time"
        );
        None
    } else {
        match provide_library() {
            Ok(path) => Some(path),
            Err(err) => {
                println!("cargo:warning=could not provide ONNX Runtime {ORT_VERSION}: {err}");
                println!("cargo:warning=set ORT_DYLIB_PATH to libonnxruntime.so.{ORT_VERSION} at run time");
                None
            }
        }
    };
    let baked = path.map(|p| p.display().to_string()).unwrap_or_default();
    println!("cargo:rustc-env=BOARDSCAN_ORT_DYLIB={baked}");
    println!("cargo:rustc-env=BOARDSCAN_ORT_VERSION={ORT_VERSION}");
}

/// Returns the verified library path, fetching and unpacking it if needed.
fn provide_library() -> Result<PathBuf, String> {
    let dir = cache_dir()?;
    let lib = dir.join(format!("libonnxruntime.so.{ORT_VERSION}"));
    if lib.is_file() && sha256_file(&lib)? == LIB_SHA256 {
        return Ok(lib);
    }
    fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;

    let wheel_dir = dir.join("wheel");
    fs::create_dir_all(&wheel_dir).map_err(|e| e.to_string())?;
    let status = Command::new(env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .args(["--platform", WHEEL_PLATFORM, "--python-version", "3.11"])
        .args(["--implementation", "cp", "--abi", "cp311", "--dest"])
        .arg(&wheel_dir)
        .arg(format!("onnxruntime=={ORT_VERSION}"))
        .status()
        .map_err(|e| format!("running `python3 -m pip download`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`pip download onnxruntime=={ORT_VERSION}` failed ({status})"
        ));
    }
    let wheel = wheel_dir.join(format!(
        "onnxruntime-{ORT_VERSION}-cp311-cp311-{WHEEL_PLATFORM}.whl"
    ));
    let got = sha256_file(&wheel)?;
    if got != WHEEL_SHA256 {
        return Err(format!("wheel sha256 is {got}, expected {WHEEL_SHA256}"));
    }

    // A wheel is a zip file; Python's zipfile unpacks the one member we need.
    let partial = dir.join("libonnxruntime.partial");
    let script = "import sys, zipfile, shutil\n\
                  with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as dst:\n    shutil.copyfileobj(src, dst)\n";
    let status = Command::new(env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .args(["-c", script])
        .arg(&wheel)
        .arg(LIB_MEMBER)
        .arg(&partial)
        .status()
        .map_err(|e| format!("unpacking the wheel: {e}"))?;
    if !status.success() {
        return Err(format!("unpacking {LIB_MEMBER} from the wheel failed"));
    }
    let got = sha256_file(&partial)?;
    if got != LIB_SHA256 {
        return Err(format!("library sha256 is {got}, expected {LIB_SHA256}"));
    }
    fs::rename(&partial, &lib).map_err(|e| e.to_string())?;
    let _ = fs::remove_dir_all(&wheel_dir);
    Ok(lib)
}

/// `target/onnxruntime/<version>`, found from OUT_DIR (`target/<profile>/build/<pkg>/out`).
fn cache_dir() -> Result<PathBuf, String> {
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let target_dir = out
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(out);
    Ok(target_dir.join("onnxruntime").join(ORT_VERSION))
}

fn sha256_file(path: &Path) -> Result<String, String> {
    let mut file = fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
