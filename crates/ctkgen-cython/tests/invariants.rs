//! The generator's invariant: no name of a bound library is written in the parser, the headers
//! crate, the doc-comment parser and renderers, the pipeline, the emitters or the templates, and
//! no alignment number in the emitters or the templates; names come from the IR or from each
//! library's description as data (its doc aliases included).
//!
//! The names checked are every declaration of each bound library in a real CTK (its ABI summary
//! under `tests/abi/<library>/`), every string of every library's description
//! (`headers/libraries/`), the helper names of the package description (`headers/package.toml`),
//! and any identifier shaped like a driver, NVRTC, nvJitLink or NVVM name (`cuX...`, `CUx...`,
//! `CU_...`, `CUDA_...`, `CUDAX...`, `nvrtcX...`, `NVRTC_...`, `nvJitLinkX...`, `NVJITLINK_...`,
//! `nvvmX...`, `NVVM_...`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folders the name check covers: the parser, the headers crate, the doc-comment parser and
/// renderers, the pipeline, the emitters' Rust source, the runtime source the Rust emitter emits
/// as written, and the templates crate.
const NAME_FREE: [&str; 8] = [
    "crates/ctkgen-clang/src",
    "crates/ctkgen-headers/src",
    "crates/ctkgen-ir/src/doc",
    "crates/ctkgen/src",
    "crates/ctkgen-cython/src",
    "crates/ctkgen-rust/src",
    "crates/ctkgen-rust/runtime",
    "templates",
];

/// The folders the alignment-number check covers: the emitters and the templates.
const ALIGNMENT_FREE: [&str; 4] =
    ["crates/ctkgen-cython/src", "crates/ctkgen-rust/src", "crates/ctkgen-rust/runtime", "templates"];

/// Every Rust source and template under `folders`.
fn scanned_files(folders: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = folders.iter().map(|f| root().join(f)).collect();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| ["rs", "j2", "pyx", "pxd", "pxi"].iter().any(|x| e == *x)) {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "too few files found: {files:?}");
    // Every folder holds scanned files (a renamed folder would silently leave the check).
    for folder in folders {
        assert!(files.iter().any(|f| f.starts_with(root().join(folder))), "nothing scanned under {folder}");
    }
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

/// Every bound library's description file under `headers/libraries/`.
fn library_descriptions() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join("headers/libraries"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".toml") && n.matches('.').count() == 1)
        })
        .collect();
    found.sort();
    assert!(found.len() >= 2, "{found:?}");
    found
}

/// Record, enum, enumerator, function, typedef and constant names of every library in CTK 13.1.
fn declared_names() -> BTreeSet<String> {
    let system = system_names();
    let mut names = BTreeSet::new();
    let mut text = String::new();
    for description in library_descriptions() {
        let library = description.file_stem().unwrap().to_string_lossy().into_owned();
        text.push_str(&std::fs::read_to_string(root().join(format!("tests/abi/{library}/13.1.txt"))).unwrap());
    }
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

/// Every string of every library's description.
fn convention_names() -> Vec<String> {
    let mut names = Vec::new();
    for description in library_descriptions() {
        let conventions: ctkgen_ir::LibraryConventions =
            toml::from_str(&std::fs::read_to_string(&description).unwrap()).unwrap();
        names.extend(conventions.names().into_iter().map(str::to_string));
    }
    // The package description's names of the compatible helper module (not its module name, a
    // common word, nor the option check's plain words: `ir_version`, `Result`, its file name).
    let package: ctkgen_ir::PackageConventions =
        toml::from_str(&std::fs::read_to_string(root().join("headers/package.toml")).unwrap()).unwrap();
    if let Some(utils) = package.utils {
        names.extend([
            utils.compatible_module,
            utils.native_handle_function,
            utils.handle_getters,
            utils.add_handle_getter,
            utils.env_flag_function,
            utils.isa_version_function,
            utils.required_version_function,
        ]);
        if let Some(check) = utils.option_check {
            names.extend([
                check.function,
                check.loader,
                check.entry_point,
                check.create,
                check.add_module,
                check.compile,
                check.destroy,
                check.error,
                check.invalid_option,
            ]);
        }
    }
    if let Some(compiler) = package.private.and_then(|p| p.compiler_function) {
        names.push(compiler);
    }
    names
}

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// Shaped like a driver or NVRTC name; the bare words `CUDA` and `NVRTC` in prose are not names.
fn library_shaped(word: &str) -> bool {
    let at = |i: usize| word.as_bytes().get(i).copied().unwrap_or(b' ');
    (word.starts_with("cu") && at(2).is_ascii_uppercase())
        || (word.starts_with("CUDA") && word != "CUDA")
        || (word.starts_with("CU") && (at(2).is_ascii_lowercase() || at(2) == b'_'))
        || (word.starts_with("nvrtc") && at(5).is_ascii_uppercase())
        || word.starts_with("NVRTC_")
        || (word.starts_with("nvJitLink") && (at(9).is_ascii_uppercase() || at(9) == b' '))
        || word.starts_with("NVJITLINK_")
        || (word.starts_with("nvvm") && at(4).is_ascii_uppercase())
        || word.starts_with("NVVM_")
}

/// Every library name in `text`, in order of appearance.
fn library_names(text: &str, declared: &BTreeSet<String>, conventions: &[String]) -> Vec<String> {
    let mut found: Vec<String> =
        identifiers(text).filter(|w| declared.contains(*w) || library_shaped(w)).map(str::to_string).collect();
    found.extend(conventions.iter().filter(|name| text.contains(name.as_str())).cloned());
    let mut seen = BTreeSet::new();
    found.retain(|name| seen.insert(name.clone()));
    found
}

#[test]
fn the_generator_names_nothing_of_the_bound_libraries() {
    let declared = declared_names();
    let conventions = convention_names();
    let mut offenders = Vec::new();
    for path in scanned_files(&NAME_FREE) {
        let text = std::fs::read_to_string(&path).unwrap();
        let names = library_names(&text, &declared, &conventions);
        if !names.is_empty() {
            offenders.push(format!("{}: {}", path.strip_prefix(root()).unwrap_or(&path).display(), names.join(", ")));
        }
    }
    assert!(
        offenders.is_empty(),
        "library names in the generator (take them from the IR or the library descriptions):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn emitter_and_templates_hold_no_alignment_numbers() {
    for path in scanned_files(&ALIGNMENT_FREE) {
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
fn the_check_recognises_library_names() {
    let declared = declared_names();
    let conventions = convention_names();
    let hits = |text: &str| library_names(text, &declared, &conventions);
    assert_eq!(hits("cdef CUresult f()"), ["CUresult"]);
    assert!(hits("x = cuGetProcAddress_v2").contains(&"cuGetProcAddress_v2".to_string()));
    assert_eq!(hits("cdef cuuint64_t flags"), ["cuuint64_t"]);
    assert_eq!(
        hits("CU_NEW_FLAG | CUDA_NEW_THING | CUnewType | cuNewCall"),
        ["CU_NEW_FLAG", "CUDA_NEW_THING", "CUnewType", "cuNewCall"]
    );
    assert_eq!(hits("dlopen(\"libcuda.so.1\")"), ["libcuda.so.1"]);
    // NVRTC's declarations, soname (whatever its major), header and module names.
    assert_eq!(hits("nvrtcCompileProgram(p)"), ["nvrtcCompileProgram"]);
    // The description's name is a whole word of prose too.
    assert_eq!(hits("x = NVRTC_ERROR_NEW"), ["NVRTC_ERROR_NEW", "NVRTC"]);
    assert_eq!(hits("open libnvrtc.so.12"), ["libnvrtc.so."]);
    assert_eq!(hits("read \"nvrtc.h\""), ["nvrtc.h"]);
    assert_eq!(hits("from . cimport cynvrtc"), ["cynvrtc"]);
    assert!(hits("nvrtc as a word; a cursor").is_empty());
    // nvJitLink's and NVVM's, the names of the raise convention (prefixes, exception) among them.
    assert_eq!(hits("x = nvJitLinkNewCall(h)"), ["nvJitLinkNewCall", "nvJitLink"]);
    assert_eq!(hits("NVJITLINK_INPUT_NEW"), ["NVJITLINK_INPUT_NEW", "NVJITLINK_"]);
    assert_eq!(hits("nvvmNewCall()"), ["nvvmNewCall", "nvvm"]);
    assert_eq!(hits("raise nvvmError(s)"), ["nvvmError", "nvvm"]);
    assert_eq!(hits("open libnvvm.so.4"), ["libnvvm.so.4", "libnvvm.so", "nvvm"]);
    // A doc alias of a description, and the sentence it stands for.
    assert!(hits("\\notefnerr").contains(&"notefnerr".to_string()));
    assert!(hits("Graph objects are not thread-safe.").contains(&"Graph objects are not thread-safe.".to_string()));
    assert!(hits("the CUDA version; current cursor; uint64_t size_t CTKGEN_X").is_empty());
}
