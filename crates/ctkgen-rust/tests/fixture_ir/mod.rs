//! The models of the fixture headers in `tests/headers/`, read from their IR snapshots in
//! `tests/golden/ir/` (the pipeline's fixture tests keep them current and check this emitter's
//! golden output of each).

use std::path::{Path, PathBuf};

use ctkgen_ir::Api;

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/ir")
}

/// `(case, model)` for every fixture, sorted by case.
pub fn cases() -> Vec<(String, Api)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(snapshot_dir()).unwrap().flatten().map(|e| e.path()).collect();
    paths.sort();
    let cases: Vec<(String, Api)> = paths
        .iter()
        .filter_map(|path| {
            let case = path.file_name()?.to_str()?.strip_suffix(".snap")?.to_string();
            Some((case, read(path)))
        })
        .collect();
    assert!(!cases.is_empty(), "no IR snapshots under {}", snapshot_dir().display());
    cases
}

fn read(path: &Path) -> Api {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // An insta snapshot: a `---` delimited header, then the JSON.
    let json = text.splitn(3, "---\n").nth(2).unwrap_or_else(|| panic!("{}: no snapshot header", path.display()));
    Api::from_json(json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
