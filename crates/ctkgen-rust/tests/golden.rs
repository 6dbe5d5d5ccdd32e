//! Golden snapshots: the Rust output for each fixture header's IR under `tests/golden/rust/`.
//!
//! `tests/golden/rust/<case>.ir.json` is `cargo xtask ir --header tests/headers/<case>.h`;
//! `<case>/` holds one file per generated file (`/` written as `__`), or `error.txt` for a header
//! Rust cannot express. Accept new output with
//! `CTKGEN_ACCEPT=1 cargo test -p ctkgen-rust --test golden`.

mod support;

use std::path::{Path, PathBuf};

use ctkgen_ir::Api;
use ctkgen_rust::{emit, RustOptions};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/rust")
}

pub fn options(api: &Api) -> RustOptions {
    RustOptions::for_api(api, "cargo xtask generate --lang rust")
}

/// `(case, model)` for every fixture, sorted.
pub fn cases() -> Vec<(String, Api)> {
    let mut entries: Vec<_> = std::fs::read_dir(golden_dir()).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    entries
        .into_iter()
        .filter_map(|path| {
            let case = path.file_name()?.to_str()?.strip_suffix(".ir.json")?.to_string();
            let api = Api::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
            Some((case, api))
        })
        .collect()
}

#[test]
fn fixture_headers_match_golden_output() {
    let accept = std::env::var_os("CTKGEN_ACCEPT").is_some();
    let mut mismatches = Vec::new();
    let cases = cases();
    assert!(!cases.is_empty(), "no fixture IR under {}", golden_dir().display());
    for (case, api) in &cases {
        let expected_files: Vec<(String, String)> = match emit(api, &options(api), support::conventions()) {
            Ok(files) => {
                assert_eq!(
                    Ok(files.clone()),
                    emit(api, &options(api), support::conventions()),
                    "{case}: output is not deterministic"
                );
                files.into_iter().map(|f| (f.path.replace('/', "__"), f.contents)).collect()
            }
            Err(error) => vec![("error.txt".into(), format!("{error}\n"))],
        };
        let folder = golden_dir().join(case);
        if accept {
            let _ = std::fs::remove_dir_all(&folder);
            std::fs::create_dir_all(&folder).unwrap();
        }
        let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
            .map(|dir| dir.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        on_disk.sort();
        for (name, contents) in &expected_files {
            let path = folder.join(name);
            if accept {
                std::fs::write(&path, contents).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
                mismatches.push(path.display().to_string());
            }
        }
        if !accept {
            let mut names: Vec<String> = expected_files.iter().map(|(n, _)| n.clone()).collect();
            names.sort();
            if names != on_disk {
                mismatches.push(format!("{}: files {on_disk:?}, expected {names:?}", folder.display()));
            }
        }
    }
    assert!(mismatches.is_empty(), "stale golden files (accept with CTKGEN_ACCEPT=1): {mismatches:#?}");
}

#[test]
fn headers_rust_cannot_express_fail_with_the_type_named() {
    let cases = cases();
    let error_of = |case: &str| {
        let (_, api) = cases.iter().find(|(c, _)| c == case).unwrap_or_else(|| panic!("fixture {case}"));
        emit(api, &options(api), support::conventions()).unwrap_err().to_string()
    };
    let packed_aligned = error_of("packed_aligned");
    assert!(packed_aligned.contains("`PackedAligned`") && packed_aligned.contains("packed"), "{packed_aligned}");
    let typedef_aligned = error_of("gnu_aligned");
    assert!(typedef_aligned.contains("typedef `AlignedInt`"), "{typedef_aligned}");
}

#[test]
fn emitter_source_holds_no_alignment_literals_or_cuda_names() {
    // Alignments come from the model and CUDA names from `DriverConventions`, never from logic.
    let sources = [
        ("lib.rs", include_str!("../src/lib.rs")),
        ("plan.rs", include_str!("../src/plan.rs")),
        ("types.rs", include_str!("../src/types.rs")),
        ("names.rs", include_str!("../src/names.rs")),
        ("print_items.rs", include_str!("../src/print_items.rs")),
        ("print_runtime.rs", include_str!("../src/print_runtime.rs")),
        ("print_crate.rs", include_str!("../src/print_crate.rs")),
    ];
    for (file, text) in sources {
        for literal in ["64", "128"] {
            for (i, _) in text.match_indices(literal) {
                let before = text[..i].chars().last().unwrap_or(' ');
                let after = text[i + literal.len()..].chars().next().unwrap_or(' ');
                let part_of_word =
                    before.is_ascii_alphanumeric() || before == '_' || after.is_ascii_alphanumeric() || after == '_';
                assert!(part_of_word, "{file}: alignment-like literal {literal}");
            }
        }
        for name in ["CUtensorMap", "CUresult", "cuGetProcAddress", "CUDA_ERROR", "libcuda", "cuInit"] {
            assert!(!text.contains(name), "{file}: mentions {name}");
        }
    }
}
