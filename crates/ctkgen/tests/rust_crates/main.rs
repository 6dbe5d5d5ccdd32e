//! The Rust crates of every CTK of the catalogue (one per library, a feature per CTK) from the
//! real headers: under every feature each builds without a warning, documents with every link
//! resolved and passes its tests, its layout assertions included; each feature's declarations
//! and their comments are exactly those of its CTK's own crate (links aside); a wrong size planted under one feature stops that
//! feature's build and no other; and a program built with the newest feature runs on a fake
//! driver of an older toolkit, which lacks the newer functions.
//!
//! The crates are written to `target/ctkgen/test-rust-crates/` (only what changed), and built in
//! `target/ctkgen/test-rust-crates-target/` (without debug info or incremental caches: 45 builds),
//! so a run on an unchanged tree compiles nothing again. The docs of the oldest and the newest
//! feature are built in folders of their own, as each build of the docs replaces the last.

#[path = "../common/mod.rs"]
mod common;
mod rust_features;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ctkgen::{Api, HeaderSet, HeaderSource, Library, Ownership, ReadOptions};

const COMMAND: &str = "cargo xtask generate --all";

/// One library's headers and model in one release, None where the release does not ship it.
type Model = Option<(HeaderSet, Api)>;

/// Every CTK's release and its models of every library, read once per test binary.
struct Toolkits {
    libraries: Vec<Library>,
    /// Oldest first: the release and each library's model.
    ctks: Vec<(String, Vec<Model>)>,
}

fn toolkits() -> &'static Toolkits {
    static TOOLKITS: OnceLock<Toolkits> = OnceLock::new();
    TOOLKITS.get_or_init(|| {
        use rayon::prelude::*;
        let ws = common::workspace();
        let libraries = ws.libraries().unwrap();
        let ctks = common::all_ctks()
            .into_par_iter()
            .map(|ctk| {
                let models = libraries
                    .iter()
                    .map(|library| {
                        let source = HeaderSource::Ctk(ctk.clone());
                        if !ctkgen::source_has_library(&ws, &source, library).unwrap() {
                            return None;
                        }
                        let headers = ctkgen::resolve_library_headers(&ws, &source, library).unwrap();
                        let api = ctkgen::read_api(&ws, &headers, &ReadOptions::default()).unwrap();
                        Some((headers, api))
                    })
                    .collect();
                (ctk, models)
            })
            .collect();
        Toolkits { libraries, ctks }
    })
}

impl Toolkits {
    fn bound(&self, ctks: &[usize]) -> Vec<Vec<ctkgen::BoundLibrary<'_>>> {
        ctks.iter()
            .map(|&i| {
                self.libraries
                    .iter()
                    .zip(&self.ctks[i].1)
                    .filter_map(|(library, model)| model.as_ref().map(|(headers, api)| (library, headers, api)))
                    .map(|(library, headers, api)| ctkgen::BoundLibrary { library, headers, api })
                    .collect()
            })
            .collect()
    }

    /// The crates of the CTKs at `ctks` (indices, oldest first).
    fn crates(&self, ctks: &[usize]) -> Vec<ctkgen::OutputFile> {
        ctkgen::emit_rust_crates(&self.bound(ctks), COMMAND).unwrap()
    }

    fn features(&self) -> Vec<String> {
        self.ctks.iter().map(|(ctk, _)| rust_features::feature_of(ctk)).collect()
    }

    fn crate_names(&self) -> Vec<&str> {
        self.libraries.iter().map(|l| l.conventions.rust_crate.as_str()).collect()
    }

    /// Whether the CTK at `index` ships the library whose crate is `name` (its crate has a
    /// feature for that CTK).
    fn ships(&self, index: usize, name: &str) -> bool {
        self.libraries
            .iter()
            .zip(&self.ctks[index].1)
            .any(|(l, model)| l.conventions.rust_crate == name && model.is_some())
    }
}

/// The crates of every CTK, written once per test binary; their workspace's folder.
fn written() -> &'static Path {
    static WRITTEN: OnceLock<PathBuf> = OnceLock::new();
    WRITTEN.get_or_init(|| {
        let all: Vec<usize> = (0..toolkits().ctks.len()).collect();
        let dir = common::root().join("target/ctkgen/test-rust-crates");
        ctkgen::write_tree(&dir, &toolkits().crates(&all), Ownership::Manifest { command: COMMAND }).unwrap();
        dir
    })
}

fn target_dir() -> PathBuf {
    common::root().join("target/ctkgen/test-rust-crates-target")
}

/// Runs cargo in `dir`; returns whether it succeeded and its output, stdout then stderr.
fn cargo(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("cargo runs");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

/// The workspace's crates that have a feature for the CTK at `index`, that feature on in each:
/// `--workspace`, an `--exclude` per crate of a library the CTK does not ship, `--features`.
fn everywhere(index: usize) -> Vec<String> {
    let feature = &toolkits().features()[index];
    let (shipped, absent): (Vec<&str>, Vec<&str>) =
        toolkits().crate_names().into_iter().partition(|name| toolkits().ships(index, name));
    let mut args = vec!["--workspace".to_string()];
    args.extend(absent.iter().flat_map(|name| ["--exclude".to_string(), name.to_string()]));
    let features = shipped.iter().map(|name| format!("{name}/{feature}")).collect::<Vec<_>>().join(",");
    args.extend(["--features".to_string(), features]);
    args
}

/// `cargo <command> <the selection of everywhere(index)> <rest>`'s arguments.
fn selected<'a>(command: &'a str, selection: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![command];
    args.extend(selection.iter().map(String::as_str));
    args.extend_from_slice(rest);
    args
}

#[test]
fn every_crate_builds_documents_and_passes_its_tests_under_every_feature() {
    let dir = written();
    let all = toolkits().features();
    for (index, feature) in all.iter().enumerate() {
        let selection = everywhere(index);
        let (ok, clippy) =
            cargo(dir, &selected("clippy", &selection, &["--all-targets", "--quiet", "--", "-D", "warnings"]), &[]);
        assert!(ok && !clippy.contains("warning"), "{feature}: clippy\n{clippy}");
        if index == 0 || index + 1 == all.len() {
            let docs = target_dir().join(format!("doc-{feature}"));
            let docs = docs.to_str().unwrap();
            let env = [("RUSTDOCFLAGS", "-D warnings"), ("CARGO_TARGET_DIR", docs)];
            let (ok, doc) = cargo(dir, &selected("doc", &selection, &["--no-deps", "--quiet"]), &env);
            assert!(ok && !doc.contains("warning"), "{feature}: doc\n{doc}");
        }
        let (ok, tests) =
            cargo(dir, &selected("test", &selection, &["--quiet", "--", "--nocapture", "--test-threads=1"]), &[]);
        assert!(ok, "{feature}: tests\n{tests}");
        // Each over-aligned record keeps the alignment its CTK's header gives it.
        let (ctk, models) = &toolkits().ctks[index];
        for record in models.iter().flatten().flat_map(|(_, api)| &api.records) {
            if record.complete && !record.explicit_alignments.is_empty() {
                let line = format!("align_of::<{}>() = {}", record.name, record.align);
                assert!(tests.contains(&line), "{feature} ({ctk}): no `{line}` in\n{tests}");
            }
        }
        let tensor_map = if common::major(ctk) >= 13 { 128 } else { 64 };
        let line = format!("align_of::<CUtensorMap>() = {tensor_map}");
        assert!(tests.contains(&line), "{feature} ({ctk}): no `{line}` in\n{tests}");
    }
}

#[test]
fn each_feature_declares_exactly_what_its_ctk_alone_does() {
    let ctks = &toolkits().ctks;
    let features = toolkits().features();
    for name in toolkits().crate_names() {
        let merged = std::fs::read_to_string(written().join(name).join("src/bindings.rs")).unwrap();
        let merged = rust_features::parse(&merged);
        for (index, feature) in features.iter().enumerate().filter(|(index, _)| toolkits().ships(*index, name)) {
            let alone = toolkits().crates(&[index]);
            let path = format!("{name}/src/lib.rs");
            let alone = &alone.iter().find(|f| f.path == path).unwrap().contents;
            let expected = rust_features::items(rust_features::parse(alone), None);
            let found = rust_features::items(merged.clone(), Some(feature));
            if expected != found {
                let missing: Vec<&String> = expected.iter().filter(|i| !found.contains(i)).take(3).collect();
                let extra: Vec<&String> = found.iter().filter(|i| !expected.contains(i)).take(3).collect();
                panic!(
                    "{name} under {feature} ({}) differs from its CTK's crate:\nmissing {missing:#?}\nextra {extra:#?}",
                    ctks[index].0
                );
            }
        }
    }
}

#[test]
fn a_wrong_size_planted_under_one_feature_stops_that_feature_alone() {
    let features = toolkits().features();
    let (old, new) = (features.iter().rfind(|f| f.starts_with("cuda-12")).unwrap(), features.last().unwrap());
    let copy = tempfile::tempdir().unwrap();
    let source = written().join("cuda-driver-sys");
    for file in ["Cargo.toml", "src/lib.rs", "src/bindings.rs"] {
        std::fs::create_dir_all(copy.path().join("src")).unwrap();
        std::fs::copy(source.join(file), copy.path().join(file)).unwrap();
    }
    // The 12.x form of the tensor map comes first; its size check is planted one byte off.
    let bindings = copy.path().join("src/bindings.rs");
    let text = std::fs::read_to_string(&bindings).unwrap();
    let check = "if ::core::mem::size_of::<CUtensorMap_st>() != 128 {";
    assert_eq!(text.matches(check).count(), 2, "one size check per form of CUtensorMap_st");
    std::fs::write(&bindings, text.replacen(check, "if ::core::mem::size_of::<CUtensorMap_st>() != 129 {", 1)).unwrap();
    std::fs::write(copy.path().join("Cargo.toml"), {
        let manifest = std::fs::read_to_string(copy.path().join("Cargo.toml")).unwrap();
        format!("{manifest}\n[workspace]\n")
    })
    .unwrap();
    let (ok, text) = cargo(copy.path(), &["check", "--quiet", "--features", old], &[]);
    assert!(!ok, "{old}: the build passed with a wrong size planted");
    assert!(text.contains("size of CUtensorMap_st differs from the header"), "{old}:\n{text}");
    let (ok, text) = cargo(copy.path(), &["check", "--quiet", "--features", new], &[]);
    assert!(ok, "{new}: another feature's form was checked:\n{text}");
}

#[test]
fn a_program_of_the_newest_feature_runs_on_an_older_driver_for_what_it_has() {
    let ctks = &toolkits().ctks;
    let newest = toolkits().features().last().unwrap().clone();
    let driver = &ctks.last().unwrap().1[0].as_ref().unwrap().1;
    let dir = tempfile::tempdir().unwrap();
    // A 12.0 driver that has three functions: the program finds them and nothing else.
    let fake = dir.path().join("lib");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(dir.path().join("fake.c"), rust_features::FAKE_DRIVER).unwrap();
    let built = Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(fake.join("libcuda.so.1"))
        .arg(dir.path().join("fake.c"))
        .status()
        .expect("gcc runs");
    assert!(built.success(), "the fake driver does not compile");
    let has: Vec<&str> = vec!["cuDriverGetVersion", "cuGetProcAddress", "cuInit"];
    let program = rust_features::program(driver, &has);
    let crate_dir = dir.path().join("program");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(crate_dir.join("src/main.rs"), program).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"older-driver\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\ncuda-driver-sys = {{ path = {:?}, features = [\"{newest}\"] }}\n",
            written().join("cuda-driver-sys")
        ),
    )
    .unwrap();
    let fake_path = fake.to_str().unwrap();
    let (ok, text) = cargo(&crate_dir, &["run", "--quiet"], &[("LD_LIBRARY_PATH", fake_path)]);
    assert!(ok, "{text}");
    let available = driver.functions.len();
    assert!(
        text.contains(&format!("{} of {available} functions found, the others CUDA_ERROR_NOT_FOUND", has.len())),
        "{text}"
    );
}
