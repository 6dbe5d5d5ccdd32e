//! Shared pieces of ctkgen's robustness suites.
//!
//! The suites themselves live in `tests/`: the bad-input corpus run through the command line
//! (`bad_inputs.rs`), property tests over random C records checked against gcc and both
//! emitters (`layout_properties.rs`), and a replay of the fuzz corpus (`fuzz_corpus.rs`). This
//! library holds what the fuzz target in `fuzz/` shares with them: [`header_to_ir`], the one
//! entry point the fuzzer drives, so a crash it finds is replayed by a plain `cargo test`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ctkgen_clang::{ParseError, ParseOptions};
use ctkgen_headers::Cache;
use ctkgen_ir::Api;

/// The repository root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root exists")
}

/// Parse options for free-standing headers: the libclang every ctkgen run would use (found
/// once per process) and the pinned stand-in system headers.
pub fn parse_options() -> &'static ParseOptions {
    static OPTIONS: OnceLock<ParseOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let root = workspace_root();
        let cache = Cache::new(Cache::default_root(&root));
        let libclang = ctkgen_headers::locate_libclang(&cache)
            .unwrap_or_else(|e| panic!("the robustness suites need libclang: {e}"));
        ParseOptions::new(libclang, root.join("headers").join("include"))
    })
}

/// Header bytes to the model, the way `cargo xtask ir --header` reads a file: written to a
/// fresh folder as `input.h`, then parsed in C11 and C++17. Any input may be refused with an
/// error; none may panic or crash.
pub fn header_to_ir(bytes: &[u8]) -> Result<Api, ParseError> {
    let dir = tempfile::Builder::new().prefix("ctkgen-fuzz-").tempdir().expect("a temporary folder");
    let header = dir.path().join("input.h");
    std::fs::write(&header, bytes).expect("the temporary folder is writable");
    ctkgen_clang::parse_header(&header, parse_options())
}

/// What the fuzzer asserts for one input: reading it never panics; a model that comes out
/// survives its own JSON form unchanged (the form every emitter and test reads back); and both
/// emitters take it without panicking (refusing it with an error is fine).
pub fn check_header_bytes(bytes: &[u8]) {
    let Ok(api) = header_to_ir(bytes) else { return };
    let json = api.to_json();
    let back = Api::from_json(&json).unwrap_or_else(|e| panic!("the model's JSON does not read back: {e}"));
    assert_eq!(back.to_json(), json, "the model's JSON changes on a round trip");
    let _ = ctkgen_cython::emit(&api, cython_options());
    let _ = ctkgen_rust::emit(&api, &ctkgen_rust::RustOptions::with_command("fuzz"), driver_conventions());
}

fn driver_files() -> ctkgen_headers::LibraryFiles {
    ctkgen_headers::LibraryFiles::new(workspace_root().join("headers/libraries"), "cuda-driver")
}

/// The conventions of the driver described under `headers/libraries/`, loaded once.
pub fn driver_conventions() -> &'static ctkgen_ir::LibraryConventions {
    static CONVENTIONS: OnceLock<ctkgen_ir::LibraryConventions> = OnceLock::new();
    CONVENTIONS.get_or_init(|| driver_files().conventions().expect("the driver's conventions load"))
}

/// The Cython options for the driver described under `headers/libraries/`, loaded once.
pub fn cython_options() -> &'static ctkgen_cython::CythonOptions {
    static OPTIONS: OnceLock<ctkgen_cython::CythonOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let files = driver_files();
        let conventions = driver_conventions().clone();
        let params = files.part("cython-params").expect("the driver's overrides are readable");
        let overrides = ctkgen_cython::Overrides::parse(&params).expect("the driver's overrides parse");
        ctkgen_cython::CythonOptions::new(conventions, overrides)
    })
}
