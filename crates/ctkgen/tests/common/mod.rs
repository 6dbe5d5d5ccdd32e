//! Shared set-up for the pipeline's integration tests: the workspace, and each CTK parsed once.

#![allow(dead_code)]

pub mod goldens;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ctkgen::{HeaderSource, ReadOptions, Workspace};
use ctkgen_headers::HeaderSet;
use ctkgen_ir::Api;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

pub fn workspace() -> Workspace {
    Workspace::new(root())
}

/// Newest patch of every minor in the catalogue.
pub fn all_ctks() -> Vec<String> {
    workspace().catalogue().unwrap().newest_per_minor().into_iter().map(|r| r.ctk.clone()).collect()
}

/// Headers and model of one CTK, fetched and parsed once per test binary.
pub fn ctk(query: &str) -> (HeaderSet, Api) {
    static CACHE: OnceLock<Mutex<BTreeMap<String, (HeaderSet, Api)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(hit) = cache.lock().unwrap().get(query) {
        return hit.clone();
    }
    let ws = workspace();
    let headers = ctkgen::resolve_headers(&ws, &HeaderSource::Ctk(query.to_string())).unwrap();
    let api = ctkgen::read_api(&ws, &headers, &ReadOptions::default()).unwrap_or_else(|e| panic!("{query}: {e}"));
    cache.lock().unwrap().insert(query.to_string(), (headers.clone(), api.clone()));
    (headers, api)
}

/// Reads a header under `tests/` (e.g. `headers/packed.h`).
pub fn fixture(name: &str) -> Result<Api, ctkgen::PipelineError> {
    Ok(fixture_with_headers(name)?.1)
}

/// A header under `tests/` and its model.
pub fn fixture_with_headers(name: &str) -> Result<(HeaderSet, Api), ctkgen::PipelineError> {
    let ws = workspace();
    let path = root().join("tests").join(name);
    let headers = ctkgen::resolve_headers(&ws, &HeaderSource::Header(path))?;
    let api = ctkgen::read_api(&ws, &headers, &ReadOptions::default())?;
    Ok((headers, api))
}

pub fn major(ctk: &str) -> u32 {
    ctk.split('.').next().unwrap().parse().unwrap()
}

/// Writes the oracle for `api` and compiles it against the real header with gcc (C11) and
/// g++ (C++17), with the pinned stand-ins the parse used on the system include path (the
/// graphics API types of the extra headers); returns the compiler's complaint on failure.
pub fn compile_oracle(api: &Api, include_dir: &Path, header: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("oracle.c");
    std::fs::write(&source, ctkgen::oracle::c_source(api, header)).unwrap();
    for (compiler, lang, std) in [("gcc", "c", "-std=c11"), ("g++", "c++", "-std=c++17")] {
        let out = std::process::Command::new(compiler)
            .args([std, "-fsyntax-only", "-x", lang])
            .arg("-I")
            .arg(include_dir)
            .arg("-isystem")
            .arg(workspace().system_include_dir())
            .arg(&source)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
        if !out.status.success() {
            return Err(format!("{compiler} {std}: {}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    Ok(())
}
