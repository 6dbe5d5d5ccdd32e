//! The emitters' golden outputs for the fixture headers, rendered from the same model the IR
//! snapshot holds, under `tests/golden/<language>/`.
//!
//! Each generated file is stored with `/` written as `__`, in `<case>/`, or once in `_shared/`
//! when it is the version most fixtures render (a fixture's own copy wins over the shared one).
//! The Rust crate's `mod runtime` block is stored apart from the rest of `src/lib.rs`, so the
//! runtime most fixtures share is kept once too. A model an emitter refuses is stored as
//! `error.txt`. `CTKGEN_ACCEPT=1` rewrites every fixture's emitter goldens from fresh output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ctkgen::{GenerateOptions, Languages};
use ctkgen_headers::HeaderSet;
use ctkgen_ir::Api;

/// `language -> (golden name -> contents)` for one fixture.
pub type Rendered = BTreeMap<&'static str, BTreeMap<String, String>>;

const LANGUAGES: [(&str, Languages); 2] = [("cython", Languages::Cython), ("rust", Languages::Rust)];
const SHARED: &str = "_shared";

/// The Rust runtime module, cut out of `src/lib.rs` and stored under this name.
const RUNTIME_NAME: &str = "src__lib.rs.runtime";
const RUNTIME_START: &str = "\nmod runtime {\n";
const RUNTIME_END: &str = "\n}\n";
/// What stands in `src/lib.rs`'s golden where the runtime module was.
const RUNTIME_MARKER: &str = "// (golden) `mod runtime` is stored in src__lib.rs.runtime, here or in _shared/\n";

pub fn accepting() -> bool {
    std::env::var_os("CTKGEN_ACCEPT").is_some()
}

fn language_dir(language: &str) -> PathBuf {
    super::root().join("tests/golden").join(language)
}

/// The model as the IR snapshot holds it: the libclang build is host provenance.
pub fn snapshot_model(api: &Api) -> Api {
    let mut api = api.clone();
    api.provenance.libclang_version = "<libclang>".into();
    api
}

/// Every emitter's output for `api`, by golden name.
pub fn render(api: &Api, headers: &HeaderSet) -> Rendered {
    let mut rendered = Rendered::new();
    let library = super::workspace().library("cuda-driver").expect("the driver library data loads");
    let bound = [ctkgen::BoundLibrary { library: &library, headers, api }];
    let crate_prefix = format!("rust/{}/", library.conventions.rust_crate);
    for (language, languages) in LANGUAGES {
        let options = GenerateOptions {
            languages,
            python_package: "ctkgen_cuda".into(),
            legacy_inline_layout: false,
            strict_integers: false,
            command: format!("cargo xtask generate --lang {language}"),
            package: super::workspace().package().expect("headers/package.toml loads"),
        };
        let emitted = ctkgen::emit(&bound, &options);
        assert_eq!(
            emitted.as_ref().map_err(ToString::to_string),
            ctkgen::emit(&bound, &options).as_ref().map_err(ToString::to_string),
            "{language}: output is not deterministic"
        );
        let mut files = BTreeMap::new();
        match emitted {
            Ok(emitted) => {
                for file in emitted {
                    // The header travels with the package; it is input, not output.
                    if file.path.starts_with("python/include/") {
                        continue;
                    }
                    let path = file.path.strip_prefix(&crate_prefix).unwrap_or(&file.path).replace('/', "__");
                    files.insert(path, file.contents);
                }
            }
            Err(error) => {
                files.insert("error.txt".into(), format!("{error}\n"));
            }
        }
        split_runtime(&mut files);
        rendered.insert(language, files);
    }
    rendered
}

/// Moves the `mod runtime` block of `src/lib.rs` into a piece of its own.
fn split_runtime(files: &mut BTreeMap<String, String>) {
    let Some(lib) = files.get("src__lib.rs") else { return };
    let Some(start) = lib.find(RUNTIME_START).map(|i| i + 1) else { return };
    let Some(end) = lib[start..].find(RUNTIME_END).map(|i| start + i + RUNTIME_END.len()) else { return };
    let runtime = lib[start..end].to_string();
    let rest = format!("{}{RUNTIME_MARKER}{}", &lib[..start], &lib[end..]);
    files.insert("src__lib.rs".into(), rest);
    files.insert(RUNTIME_NAME.into(), runtime);
}

/// Compares one fixture's output with its goldens; returns what differs. With
/// `CTKGEN_ACCEPT` set, first rewrites the goldens of every fixture.
pub fn check(case: &str, rendered: &Rendered) -> Vec<String> {
    if accepting() {
        static ACCEPTED: OnceLock<()> = OnceLock::new();
        ACCEPTED.get_or_init(accept_all);
    }
    let mut mismatches = Vec::new();
    for (language, files) in rendered {
        let dir = language_dir(language);
        let own = dir.join(case);
        for (name, contents) in files {
            let path = if own.join(name).exists() { own.join(name) } else { dir.join(SHARED).join(name) };
            match std::fs::read_to_string(&path) {
                Ok(golden) if golden == *contents => {}
                Ok(_) => mismatches.push(format!("{language}/{case}: {name} differs from {}", shown(&path))),
                Err(_) => mismatches.push(format!("{language}/{case}: {name} has no golden")),
            }
        }
        for name in file_names(&own) {
            if !files.contains_key(&name) {
                mismatches.push(format!("{language}/{case}: {name} is no longer generated"));
            }
        }
    }
    mismatches
}

fn shown(path: &Path) -> String {
    path.strip_prefix(super::root()).unwrap_or(path).display().to_string()
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// The fixture headers: `tests/headers/<case>.h`.
pub fn cases() -> Vec<String> {
    let mut cases: Vec<String> = file_names(&super::root().join("tests/headers"))
        .into_iter()
        .filter_map(|name| name.strip_suffix(".h").map(str::to_string))
        .collect();
    cases.sort();
    cases
}

/// Renders every fixture and rewrites `tests/golden/<language>/` to hold exactly that output.
fn accept_all() {
    let mut all: BTreeMap<String, Rendered> = BTreeMap::new();
    for case in cases() {
        let (headers, api) =
            super::fixture_with_headers(&format!("headers/{case}.h")).unwrap_or_else(|e| panic!("{case}: {e}"));
        all.insert(case, render(&snapshot_model(&api), &headers));
    }
    for (language, _) in LANGUAGES {
        let dir = language_dir(language);
        let expected = placement(&all, language);
        for folder in file_names(&dir) {
            let folder = dir.join(folder);
            if !folder.is_dir() {
                std::fs::remove_file(&folder).unwrap();
                continue;
            }
            for name in file_names(&folder) {
                if !expected.contains_key(&folder.join(&name)) {
                    std::fs::remove_file(folder.join(name)).unwrap();
                }
            }
            if file_names(&folder).is_empty() {
                std::fs::remove_dir(&folder).unwrap();
            }
        }
        for (path, contents) in expected {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, contents).unwrap();
            }
        }
    }
}

/// Where each golden file lives: the version of a file that most fixtures render (at least
/// two) goes to `_shared/`, every other version to its fixture's folder.
fn placement(all: &BTreeMap<String, Rendered>, language: &str) -> BTreeMap<PathBuf, String> {
    let dir = language_dir(language);
    // name -> contents -> cases rendering it, in case order
    let mut versions: BTreeMap<&str, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    for (case, rendered) in all {
        for (name, contents) in &rendered[language] {
            versions.entry(name).or_default().entry(contents).or_default().push(case);
        }
    }
    let mut expected = BTreeMap::new();
    for (name, by_contents) in versions {
        // Most fixtures first; among equals, the one whose first fixture sorts first.
        let shared = by_contents
            .iter()
            .filter(|(_, cases)| cases.len() >= 2)
            .max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.1[0].cmp(a.1[0])))
            .map(|(contents, _)| *contents);
        for (contents, cases) in &by_contents {
            if Some(*contents) == shared {
                expected.insert(dir.join(SHARED).join(name), contents.to_string());
            } else {
                for case in cases {
                    expected.insert(dir.join(case).join(name), contents.to_string());
                }
            }
        }
    }
    expected
}
