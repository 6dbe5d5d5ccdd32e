//! The emitter's invariant: no name of the bound library and no alignment number is written in
//! its source or its templates; both come from the IR or from the library's conventions.
//!
//! The names checked are every declaration of a real CTK's `cuda.h` (its ABI summary under
//! `tests/abi/`), every string of the driver's conventions (`headers/libraries/`), and any
//! identifier shaped like a driver name (`cuX...`, `CUx...`, `CU_...`, `CUDA_...`, `CUDAX...`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file the check covers: the emitters' Rust source, the runtime source the Rust emitter
/// emits as written, and the templates crate.
fn scanned_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![
        root().join("crates/ctkgen-cython/src"),
        root().join("crates/ctkgen-rust/src"),
        root().join("crates/ctkgen-rust/runtime"),
        root().join("templates"),
    ];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "j2") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "too few files found: {files:?}");
    files
}

/// Names declared by the pinned stand-ins for the C library's headers (the files at the top of
/// `headers/include`): not the library's own. The graphics API stand-ins in its subfolders
/// declare types the library's interop headers use, which the bindings expose as its own.
fn system_names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("headers/include")).unwrap().flatten() {
        if entry.path().is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for line in text.lines().filter(|l| l.trim_start().starts_with("typedef")) {
            if let Some(last) = identifiers(line).last() {
                names.insert(last.to_string());
            }
        }
    }
    names
}

/// Record, enum, enumerator, function, typedef and constant names of the CTK 13.1 header.
fn declared_names() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("tests/abi/13.1.txt")).unwrap();
    let system = system_names();
    let mut names = BTreeSet::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some(declared) = line.split_whitespace().nth(1) else { continue };
        for name in declared.trim_end_matches(':').split("::") {
            if !system.contains(name) {
                names.insert(name.to_string());
            }
        }
    }
    assert!(names.len() > 1000, "the ABI summary yielded only {} names", names.len());
    names
}

fn conventions() -> ctkgen_ir::LibraryConventions {
    toml::from_str(&std::fs::read_to_string(root().join("headers/libraries/cuda-driver.toml")).unwrap()).unwrap()
}

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// Shaped like a driver name; the bare word `CUDA` in prose is not a name.
fn driver_shaped(word: &str) -> bool {
    let at = |i: usize| word.as_bytes().get(i).copied().unwrap_or(b' ');
    (word.starts_with("cu") && at(2).is_ascii_uppercase())
        || (word.starts_with("CUDA") && word != "CUDA")
        || (word.starts_with("CU") && (at(2).is_ascii_lowercase() || at(2) == b'_'))
}

/// Every library name in `text`, in order of appearance.
fn library_names(text: &str, declared: &BTreeSet<String>, conventions: &[String]) -> Vec<String> {
    let mut found: Vec<String> =
        identifiers(text).filter(|w| declared.contains(*w) || driver_shaped(w)).map(str::to_string).collect();
    found.extend(conventions.iter().filter(|name| text.contains(name.as_str())).cloned());
    let mut seen = BTreeSet::new();
    found.retain(|name| seen.insert(name.clone()));
    found
}

#[test]
fn emitter_and_templates_name_nothing_of_the_library() {
    let declared = declared_names();
    let conventions: Vec<String> = conventions().names().into_iter().map(str::to_string).collect();
    let mut offenders = Vec::new();
    for path in scanned_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let names = library_names(&text, &declared, &conventions);
        if !names.is_empty() {
            offenders.push(format!("{}: {}", path.strip_prefix(root()).unwrap_or(&path).display(), names.join(", ")));
        }
    }
    assert!(
        offenders.is_empty(),
        "library names in the emitter (take them from the IR or the conventions):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn emitter_and_templates_hold_no_alignment_numbers() {
    for path in scanned_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for literal in ["64", "128"] {
            for (i, _) in text.match_indices(literal) {
                let before = text[..i].chars().last().unwrap_or(' ');
                let after = text[i + literal.len()..].chars().next().unwrap_or(' ');
                let part_of_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
                assert!(
                    part_of_word(before) || part_of_word(after),
                    "{}: alignment-like literal {literal}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn the_check_recognises_driver_names() {
    let declared = declared_names();
    let conventions: Vec<String> = conventions().names().into_iter().map(str::to_string).collect();
    let hits = |text: &str| library_names(text, &declared, &conventions);
    assert_eq!(hits("cdef CUresult f()"), ["CUresult"]);
    assert!(hits("x = cuGetProcAddress_v2").contains(&"cuGetProcAddress_v2".to_string()));
    assert_eq!(hits("cdef cuuint64_t flags"), ["cuuint64_t"]);
    assert_eq!(
        hits("CU_NEW_FLAG | CUDA_NEW_THING | CUnewType | cuNewCall"),
        ["CU_NEW_FLAG", "CUDA_NEW_THING", "CUnewType", "cuNewCall"]
    );
    assert_eq!(hits("dlopen(\"libcuda.so.1\")"), ["libcuda.so.1"]);
    assert!(hits("the CUDA version; current cursor; uint64_t size_t CTKGEN_X").is_empty());
}
