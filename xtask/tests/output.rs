//! The output folder can be trusted: identical bytes across runs, thread counts and working
//! folders; a header line on every file; `--check` catches one edited byte; a killed run leaves
//! the previous tree whole; two runs at once do not corrupt it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn xtask_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).current_dir(cwd).output().unwrap()
}

fn ok(cwd: &Path, args: &[&str]) -> String {
    let out = xtask_in(cwd, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Relative path -> sha256 of every file under `dir`. A file or folder that vanishes while it
/// is read (a run swapping the tree in under a test that polls it) is recorded as vanished.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let vanished = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
        let rel = |path: &Path| path.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if vanished(&e) => {
                out.insert(rel(dir), "vanished".into());
                return;
            }
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let digest = match std::fs::read(&path) {
                    Ok(bytes) => format!("{:x}", Sha256::digest(bytes)),
                    Err(e) if vanished(&e) => "vanished".into(),
                    Err(e) => panic!("{}: {e}", path.display()),
                };
                out.insert(rel(&path), digest);
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

#[test]
fn all_ctks_are_byte_identical_across_threads_and_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    ok(&root(), &["generate", "--all", "--jobs", "1", "--out", a.to_str().unwrap()]);
    ok(tmp.path(), &["generate", "--all", "--jobs", "2", "--out", b.to_str().unwrap()]);
    let (ta, tb) = (tree(&a), tree(&b));
    assert!(ta.len() > 15 * 10, "{} files", ta.len());
    assert_eq!(ta, tb);
    let mut roots: Vec<_> =
        std::fs::read_dir(&a).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    roots.sort();
    // A folder per CTK (its Python package) and one of the Rust crates, which bind every CTK.
    assert_eq!(roots.len(), 16, "{roots:?}");
    assert_eq!(roots.last().map(String::as_str), Some("rust"), "{roots:?}");
    // Nothing of the host leaks into the output (read as bytes: a static archive is no text).
    let holds = |bytes: &[u8], needle: &Path| {
        let needle = needle.to_str().unwrap().as_bytes();
        bytes.windows(needle.len()).any(|w| w == needle)
    };
    for (path, _) in ta.iter().filter(|(p, _)| !p.contains("/include/")) {
        let bytes = std::fs::read(a.join(path)).unwrap();
        assert!(!holds(&bytes, &root()) && !holds(&bytes, tmp.path()), "{path} holds a host path");
    }
}

#[test]
fn every_generated_file_names_its_command_and_ctk() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    ok(&root(), &["generate", "--ctk", "12.9", "--out", out.to_str().unwrap()]);
    let files = tree(&out);
    assert!(!files.is_empty());
    for path in files.keys() {
        if path.starts_with("python/include/") || path.starts_with("python/lib/") {
            continue; // the CTK's own headers and static archives, copied as they are
        }
        let text = std::fs::read_to_string(out.join(path)).unwrap();
        let first = text.lines().next().unwrap_or_default();
        assert!(first.contains("cargo xtask generate --ctk 12.9."), "{path}: {first}");
        assert!(first.to_lowercase().contains("do not edit"), "{path}: {first}");
    }
}

#[test]
fn check_catches_one_edited_byte_and_rewrites_only_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let args = ["generate", "--ctk", "13.1", "--lang", "rust", "--out", out.to_str().unwrap()];
    ok(&root(), &args);
    let fresh = ok(&root(), &[&args[..], &["--check"]].concat());
    assert!(fresh.contains("is fresh"), "{fresh}");

    let lib = out.join("rust/cuda-driver-sys/src/lib.rs");
    let mut bytes = std::fs::read(&lib).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
    std::fs::write(&lib, &bytes).unwrap();
    let stale = xtask_in(&root(), &[&args[..], &["--check"]].concat());
    assert_eq!(stale.status.code(), Some(1));
    let report = String::from_utf8_lossy(&stale.stdout);
    assert!(report.contains("stale: rust/cuda-driver-sys/src/lib.rs") && report.contains("@@"), "{report}");
    let last = report.lines().last().unwrap_or_default();
    assert!(last.starts_with("1 stale file; run `cargo xtask generate --ctk 13.1 --out "), "{report}");
    assert!(last.ends_with(" --lang rust` to refresh"), "{last}");

    // What a build leaves in the output is listed, kept by the next write, and never stale.
    std::fs::write(out.join("rust/cuda-driver-sys/Cargo.lock"), "# a build's file\n").unwrap();
    std::fs::create_dir_all(out.join("rust/cuda-driver-sys/target/debug")).unwrap();
    std::fs::write(out.join("rust/cuda-driver-sys/target/debug/libfoo.rlib"), "binary").unwrap();
    let listed = xtask_in(&root(), &[&args[..], &["--check"]].concat());
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed.contains("2 other files, not written by ctkgen (kept)"), "{listed}");
    assert!(
        listed.contains("  rust/cuda-driver-sys/Cargo.lock\n")
            && listed.contains("  rust/cuda-driver-sys/target/debug/libfoo.rlib\n"),
        "{listed}"
    );
    assert!(listed.contains("1 stale file;"), "only lib.rs is stale: {listed}");

    let cargo_toml = out.join("rust/cuda-driver-sys/Cargo.toml");
    let before = std::fs::metadata(&cargo_toml).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let rewrite = ok(&root(), &args);
    assert!(rewrite.contains("1 written") && rewrite.contains("2 other files kept"), "{rewrite}");
    assert_eq!(std::fs::read_to_string(out.join("rust/cuda-driver-sys/Cargo.lock")).unwrap(), "# a build's file\n");
    assert!(
        out.join("rust/cuda-driver-sys/target/debug/libfoo.rlib").is_file(),
        "a build's files survive regeneration"
    );
    let fresh = ok(&root(), &[&args[..], &["--check"]].concat());
    assert!(fresh.contains("is fresh"), "{fresh}");
    assert_eq!(
        std::fs::metadata(&cargo_toml).unwrap().modified().unwrap(),
        before,
        "unchanged files are not rewritten"
    );
}

/// What a release pipeline reads: `--check --all` gives one line per CTK, `fresh` or `STALE` with
/// counts and the first stale file, and fails when any CTK is stale.
#[test]
fn check_all_says_one_line_per_ctk() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let args = ["generate", "--all", "--lang", "cython", "--library", "nvrtc", "--out", out.to_str().unwrap()];
    ok(&root(), &args);
    let fresh = ok(&root(), &[&args[..], &["--check"]].concat());
    let lines: Vec<&str> = fresh.lines().collect();
    assert!(lines.len() >= 15 && lines.iter().all(|l| l.contains(": fresh (")), "{fresh}");
    assert!(lines.iter().any(|l| l.starts_with("13.1.")), "{fresh}");

    let release = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|name| name.starts_with("13.1."))
        .unwrap();
    let readme = out.join(&release).join("python/README.md");
    std::fs::write(&readme, format!("{}edited\n", std::fs::read_to_string(&readme).unwrap())).unwrap();
    std::fs::remove_file(out.join(&release).join("python/setup.py")).unwrap();
    let stale = xtask_in(&root(), &[&args[..], &["--check"]].concat());
    assert_eq!(stale.status.code(), Some(1));
    let report = String::from_utf8_lossy(&stale.stdout);
    let stale_lines: Vec<&str> = report.lines().filter(|l| l.contains("STALE")).collect();
    assert_eq!(
        stale_lines,
        [format!(
            "{release}: STALE: 1 changed, 1 missing, first python/README.md (in {})",
            out.join(&release).display()
        )],
        "{report}"
    );
    assert_eq!(report.lines().filter(|l| l.contains(": fresh (")).count(), lines.len() - 1, "{report}");
    assert!(!report.contains("@@"), "no diffs in the one-line form: {report}");
}

/// `pip install <out>/python` builds in the output folder. The generated setup sends everything
/// the build makes under `python/build/` (these paths are those setuptools 80 and Cython 3.1 made
/// there), which `--check` does not list and a write keeps; a file outside it still is listed.
/// Generating under another package name then removes the old package's generated files, and
/// with them its folder (the build wrote nothing there).
#[test]
fn a_pip_build_in_the_output_leaves_it_fresh_and_listing_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let header = root().join("tests/headers/packed.h");
    let args = ["generate", "--header", header.to_str().unwrap(), "--lang", "cython", "--out", out.to_str().unwrap()];
    ok(&root(), &args);
    let built = [
        "build/ctkgen_cuda.egg-info/PKG-INFO",
        "build/ctkgen_cuda.egg-info/SOURCES.txt",
        "build/cython/ctkgen_cuda/_base.c",
        "build/lib.linux-x86_64-cpython-311/ctkgen_cuda/__init__.py",
        "build/lib.linux-x86_64-cpython-311/ctkgen_cuda/_base.cpython-311-x86_64-linux-gnu.so",
        "build/temp.linux-x86_64-cpython-311/build/cython/ctkgen_cuda/_base.o",
    ];
    for path in built {
        let path = out.join("python").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "built").unwrap();
    }
    std::fs::create_dir_all(out.join("python/build/bdist.linux-x86_64")).unwrap();
    let check = ok(&root(), &[&args[..], &["--check"]].concat());
    assert!(check.contains("is fresh") && !check.contains("other files"), "{check}");

    // An in-place extension (`setup.py build_ext --inplace`) sits in the package: listed.
    std::fs::write(out.join("python/ctkgen_cuda/_base.cpython-311-x86_64-linux-gnu.so"), "built").unwrap();
    let check = ok(&root(), &[&args[..], &["--check"]].concat());
    assert!(check.contains("1 other files") && check.contains("  python/ctkgen_cuda/_base.cpython-311"), "{check}");
    std::fs::remove_file(out.join("python/ctkgen_cuda/_base.cpython-311-x86_64-linux-gnu.so")).unwrap();

    let renamed = [&args[..], &["--python-package", "cuda.bindings"]].concat();
    let written = ok(&root(), &renamed);
    assert!(!written.contains("other files kept"), "{written}");
    assert!(!out.join("python/ctkgen_cuda").exists(), "the old package's folder is gone");
    for path in built {
        assert!(out.join("python").join(path).is_file(), "the build's {path} is kept");
    }
    let check = ok(&root(), &[&renamed[..], &["--check"]].concat());
    assert!(check.contains("is fresh") && !check.contains("other files"), "{check}");
}

#[test]
fn a_killed_run_leaves_the_previous_output_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    ok(&root(), &["generate", "--ctk", "13.1", "--out", out_s]);
    let old = tree(&out);
    // A run that changes most files (another package name), killed while it writes.
    let new_args = ["generate", "--ctk", "13.1", "--out", out_s, "--python-package", "renamed_cuda"];
    let mut killed_while_writing = 0;
    for extra_ms in [0u64, 30, 60, 120, 200, 300] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(new_args)
            .current_dir(root())
            .env("CTKGEN_TEST_WRITE_PAUSE_MS", "15")
            .spawn()
            .unwrap();
        // Writing has begun once anything appears beside or changes inside the output.
        let writing = loop {
            if child.try_wait().unwrap().is_some() {
                break false;
            }
            let beside = std::fs::read_dir(tmp.path()).unwrap().count() > 1;
            if beside || tree(&out) != old {
                break true;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        std::thread::sleep(Duration::from_millis(extra_ms));
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        killed_while_writing += usize::from(writing && !finished);
        if tree(&out) != old {
            // Only a run that completed may change the tree, and then completely.
            let check = xtask_in(&root(), &[&new_args[..], &["--check"]].concat());
            assert!(
                check.status.success(),
                "killed {extra_ms} ms into writing, the output is a mix:\n{}",
                String::from_utf8_lossy(&check.stdout)
                    .lines()
                    .filter(|l| !l.starts_with([' ', '+', '-', '@']))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            ok(&root(), &["generate", "--ctk", "13.1", "--out", out_s]);
            assert_eq!(tree(&out), old);
        }
    }
    assert!(killed_while_writing >= 3, "only {killed_while_writing} kills landed while writing");
    ok(&root(), &["generate", "--ctk", "13.1", "--out", out_s]);
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn two_concurrent_runs_do_not_corrupt_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    let spawn = |package: &str| {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["generate", "--ctk", "13.1", "--lang", "cython", "--out", out_s, "--python-package", package])
            .current_dir(root())
            .spawn()
            .unwrap()
    };
    let (mut first, mut second) = (spawn("first_cuda"), spawn("second_cuda"));
    assert!(first.wait().unwrap().success() && second.wait().unwrap().success());
    let fresh_as = |package: &str| {
        xtask_in(
            &root(),
            &["generate", "--ctk", "13.1", "--lang", "cython", "--out", out_s, "--python-package", package, "--check"],
        )
        .status
        .success()
    };
    assert!(fresh_as("first_cuda") ^ fresh_as("second_cuda"), "the tree is exactly one run's complete output");
}

#[test]
fn committed_abi_summaries_are_fresh() {
    let out = xtask_in(&root(), &["abi-summaries", "--check"]);
    assert!(
        out.status.success(),
        "tests/abi is stale; run `cargo xtask abi-summaries` and review:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The crates of every CTK package for release: each with the metadata a registry asks for, a
/// plain version, a feature per CTK and the toolkits in its metadata; `cargo package --workspace`
/// packs and verifies them all (the runtime's crate against the driver's as packed, through
/// cargo's temporary registry), each built with its newest feature. The README's Rust example
/// then builds, as written, in a crate of its own that depends on the driver's crate as the
/// README says, choosing its feature.
#[test]
fn generated_crates_package_for_release() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    ok(&root(), &["generate", "--all", "--lang", "rust", "--out", out.to_str().unwrap()]);
    // A crate per described library, each its folder.
    let mut crates: Vec<String> = std::fs::read_dir(out.join("rust"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    crates.sort();
    assert!(crates.len() >= 3 && crates.iter().all(|c| c.ends_with("-sys")), "{crates:?}");
    let mut newest = String::new();
    for name in &crates {
        let manifest = std::fs::read_to_string(out.join("rust").join(name).join("Cargo.toml")).unwrap();
        for field in ["license = ", "description = ", "readme = \"README.md\"", "\nversion = \"0.1.0\"\n"] {
            assert!(manifest.contains(field), "{name}: Cargo.toml lacks {field}:\n{manifest}");
        }
        // The workspace sets no repository, so the generated crate states none.
        assert!(!manifest.contains("repository"), "a repository nothing establishes:\n{manifest}");
        let features: Vec<&str> = manifest
            .split("\n[features]\n")
            .nth(1)
            .unwrap()
            .lines()
            .take_while(|l| !l.is_empty())
            .filter_map(|l| l.strip_prefix("cuda-")?.split(' ').next())
            .collect();
        // A feature per CTK minor that ships the library: all 15, or the newest ones from the
        // minor it first shipped in (nvFatbin: 12.4).
        let minors = [
            "12000", "12010", "12020", "12030", "12040", "12050", "12060", "12080", "12090", "13000", "13010", "13020",
            "13030", "13040", "13050",
        ];
        assert!(!features.is_empty() && minors.ends_with(&features), "{name}: a feature per CTK:\n{manifest}");
        assert!(!manifest.contains("\ndefault = "), "{name}: no toolkit is chosen for the user");
        newest = format!("cuda-{}", features.last().unwrap());
        assert!(manifest.contains(&format!("[package.metadata.docs.rs]\nfeatures = [\"{newest}\"]")), "{manifest}");
        assert!(manifest.contains("[package.metadata.ctkgen.toolkits]"), "{manifest}");
    }
    let chosen: Vec<String> = crates.iter().map(|name| format!("{name}/{newest}")).collect();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let packaged = Command::new(&cargo)
        .args(["package", "--workspace", "--quiet", "--features", &chosen.join(","), "--manifest-path"])
        .arg(out.join("rust/Cargo.toml"))
        .arg("--target-dir")
        .arg(tmp.path().join("target"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&packaged.stderr);
    assert!(packaged.status.success(), "cargo package failed:\n{stderr}");
    // Cargo asks for one of documentation, homepage or repository; none is known. Anything else
    // missing (a description, a licence) or any warning of the build is a failure.
    let missing: Vec<&str> = stderr.lines().filter(|l| l.contains("warning: manifest has no")).collect();
    assert!(
        missing.iter().all(|l| l.contains("manifest has no documentation, homepage or repository")),
        "metadata missing:\n{stderr}"
    );
    assert_eq!(stderr.matches("warning").count(), missing.len(), "{stderr}");
    let mut packed: Vec<String> = std::fs::read_dir(tmp.path().join("target/package"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".crate"))
        .collect();
    packed.sort();
    let expected: Vec<String> = crates.iter().map(|name| format!("{name}-0.1.0.crate")).collect();
    assert_eq!(packed, expected, "plain versions");

    // The README's Rust example, verbatim: its `[dependencies]` in a crate of its own, whose
    // relative path is made to lead to this output, and its program as that crate's main.rs.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let usage = readme.split("## Using the output").nth(1).and_then(|s| s.split("\n## ").next()).unwrap();
    let block = |lang: &str| {
        usage.split(&format!("```{lang}\n")).nth(1).and_then(|s| s.split("```").next()).expect(lang).to_string()
    };
    let (dependencies, program) = (block("toml"), block("rust"));
    let path = dependencies
        .split("path = \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the README depends on the crate by path");
    assert!(path.ends_with("/target/ctkgen/rust/cuda-driver-sys"), "the README's path: {path}");
    assert!(dependencies.contains("features = [\"cuda-"), "the README chooses a feature: {dependencies}");
    let user = tmp.path().join("user/my-crate");
    let linked = user.join(path);
    std::fs::create_dir_all(user.join("src")).unwrap();
    std::fs::create_dir_all(linked.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(out.join("rust/cuda-driver-sys"), &linked).unwrap();
    let package = "[package]\nname = \"readme-example\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n";
    std::fs::write(user.join("Cargo.toml"), format!("{package}{dependencies}")).unwrap();
    std::fs::write(user.join("src/main.rs"), program).unwrap();
    let built = Command::new(&cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(user.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(tmp.path().join("target"))
        .output()
        .unwrap();
    assert!(built.status.success(), "the README's Rust example:\n{}", String::from_utf8_lossy(&built.stderr));
}
