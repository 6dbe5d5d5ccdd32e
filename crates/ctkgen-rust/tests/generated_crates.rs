//! Builds what the emitter writes: every generated crate must pass `cargo clippy -D warnings`
//! (so also compile without warnings, including its compile-time layout assertions) and its own
//! tests. The fixture models always run; full CTK models run when `CTKGEN_IR_DIR` names a folder
//! of IR files (`cargo xtask ir --ctk 13.1 -o $CTKGEN_IR_DIR/13.1.json`, ...).
//!
//! Generated crates compile in `CTKGEN_RUST_GEN_TARGET` (default: a folder in the system
//! temporary directory), apart from the workspace's target folder and its lock.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ctkgen_ir::Api;
use ctkgen_rust::{emit, RustOptions};

fn target_dir() -> PathBuf {
    std::env::var_os("CTKGEN_RUST_GEN_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("ctkgen-rust-gen-target"))
}

/// Writes the crates into one Cargo workspace and returns its folder.
fn workspace(crates: &[(String, Api)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut members = Vec::new();
    for (name, api) in crates {
        let options = RustOptions { crate_name: name.clone(), ..RustOptions::for_api(api, "ctkgen-rust generated_crates test") };
        let files = emit(api, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        for file in files {
            let path = dir.path().join(name).join(&file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, file.contents).unwrap();
        }
        members.push(format!("{name:?}"));
    }
    let manifest = format!("[workspace]\nresolver = \"2\"\nmembers = [{}]\n", members.join(", "));
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    dir
}

/// Runs cargo in `dir`; returns stdout and stderr together, failing the test on a non-zero exit.
fn cargo(dir: &Path, args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "cargo {args:?} failed:\n{text}");
    text
}

fn check(crates: &[(String, Api)]) -> String {
    let dir = workspace(crates);
    let clippy = cargo(dir.path(), &["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"]);
    assert!(!clippy.contains("warning"), "{clippy}");
    let tests = cargo(dir.path(), &["test", "--workspace", "--quiet", "--", "--nocapture", "--test-threads=1"]);
    let examples: Vec<String> = crates.iter().map(|(name, _)| name.clone()).collect();
    let mut out = tests;
    for name in examples.iter().take(1) {
        out.push_str(&cargo(dir.path(), &["run", "--quiet", "-p", name, "--example", "driver_info"]));
    }
    out
}

#[test]
fn fixture_crates_build_pass_clippy_and_their_tests() {
    let mut crates = vec![("fixture-13-sys".to_string(), support::api(128)), ("fixture-12-sys".to_string(), support::api(64))];
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/rust");
    let mut irs: Vec<PathBuf> = std::fs::read_dir(&golden).unwrap().flatten().map(|e| e.path()).collect();
    irs.sort();
    for path in irs {
        let Some(case) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".ir.json")) else { continue };
        let api = Api::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // Headers Rust cannot express are covered by the golden error files.
        if emit(&api, &RustOptions::default()).is_ok() {
            crates.push((format!("golden-{}-sys", case.replace('_', "-")), api));
        }
    }
    let out = check(&crates);
    // Without a driver, calls give a status and the load error explains.
    if !Path::new("/proc/driver/nvidia").exists() {
        assert!(out.contains("CUDA driver not found (libcuda.so.1: "), "{out}");
        assert!(out.contains("cuInit(0) = CUDA_ERROR_NOT_INITIALIZED"), "{out}");
    }
    assert!(out.contains("align_of::<CUtensorMap>() = 128"), "{out}");
    assert!(out.contains("align_of::<CUtensorMap>() = 64"), "{out}");
}

#[test]
fn ctk_crates_build_pass_clippy_and_their_tests() {
    let Some(dir) = std::env::var_os("CTKGEN_IR_DIR") else {
        eprintln!("CTKGEN_IR_DIR is not set: no CTK models to build");
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no IR files in {}", Path::new(&dir).display());
    let mut crates = Vec::new();
    let mut expected = Vec::new();
    for path in &paths {
        let api = Api::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().replace(['.', '_'], "-");
        // Each model states its own over-aligned records; the generated test must print them.
        for record in api.records.iter().filter(|r| r.complete && !r.explicit_alignments.is_empty()) {
            expected.push(format!("align_of::<{}>() = {}", record.name, record.align));
        }
        crates.push((format!("cuda-driver-sys-{stem}"), api));
    }
    let out = check(&crates);
    for line in expected {
        assert!(out.contains(&line), "missing `{line}` in:\n{out}");
    }
}
