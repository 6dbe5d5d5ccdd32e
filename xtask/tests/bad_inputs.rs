//! Bad input through the command line: each case exits non-zero with one line that names the
//! file, declaration or version, and leaves no output behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn xtask(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command.args(args).current_dir(root());
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// Runs a failing case and returns its single error line, the last line of standard error;
/// only progress lines (`-- ...`) may come before it.
fn fails(args: &[&str], env: &[(&str, &str)], names: &str) -> String {
    let out = xtask(args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    let (last, before) = lines.split_last().unwrap_or_else(|| panic!("{args:?}: nothing on standard error"));
    assert!(before.iter().all(|l| l.starts_with("-- ")), "{args:?}: expected one error line, got:\n{stderr}");
    assert!(last.starts_with("error: "), "{stderr}");
    assert!(last.contains(names), "{args:?}: `{names}` not named in: {stderr}");
    last.to_string()
}

fn bad(name: &str) -> String {
    root().join("tests/bad-inputs").join(name).display().to_string()
}

#[test]
fn header_problems() {
    fails(&["ir", "--header", "tests/bad-inputs/no_such_header.h"], &[], "no_such_header.h");
    fails(&["ir", "--header", &bad("empty.h")], &[], "empty.h");
    fails(&["ir", "--header", &bad("garbage.h")], &[], "garbage.h:1:1");
    fails(&["ir", "--header", &bad("syntax_error.h")], &[], "syntax_error.h:2:10");
    fails(&["ir", "--header", &bad("missing_include.h")], &[], "does_not_exist.h");
    fails(&["ir", "--header", &bad("cxx_only_alignment.h")], &[], "cxx_only_alignment.h:3:1");
    fails(&["ir", "--header", &bad("mode_mismatch.h")], &[], "Differs");
}

#[test]
fn modes_that_drop_alignment_are_refused() {
    let header = root().join("tests/headers/propagate.h").display().to_string();
    fails(&["ir", "--header", &header, "--std", "c99"], &[], "c99");
    fails(&["ir", "--header", &header, "--std", "c11,c++03"], &[], "c++03");
    fails(&["ir", "--header", &header, "--std", "c2x"], &[], "c2x");
}

#[test]
fn unknown_versions_and_targets() {
    let line = fails(&["ir", "--ctk", "11.2"], &[], "11.2");
    assert!(line.contains("nearest known: 12.0.1, 12.1.1"), "nearest versions named: {line}");
    assert!(line.contains("`cargo xtask headers list`"), "{line}");
    let header = root().join("tests/headers/packed.h").display().to_string();
    fails(&["ir", "--header", &header, "--target", "riscv64-unknown-linux-gnu"], &[], "riscv64");
}

#[test]
fn malformed_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = dir.path().join("ctk.toml");
    std::fs::write(&catalogue, "[[release]]\nctk = \"13.1.0\"\nwheel_sha256 = 12\n").unwrap();
    fails(&["ir", "--ctk", "13.1"], &[("CTKGEN_CATALOGUE", catalogue.to_str().unwrap())], "ctk.toml:");
}

#[test]
fn fetch_without_network_fails_cleanly() {
    let cache = tempfile::tempdir().unwrap();
    let env = [
        ("CTKGEN_CACHE", cache.path().to_str().unwrap()),
        ("PIP_INDEX_URL", "http://127.0.0.1:9/simple"),
        ("PIP_NO_CACHE_DIR", "1"),
        ("PIP_RETRIES", "0"),
        ("PIP_TIMEOUT", "2"),
        ("PIP_FIND_LINKS", ""),
    ];
    fails(&["headers", "fetch", "--ctk", "13.1"], &env, "nvidia-cuda-runtime");
    let leftovers: Vec<_> = walk(cache.path()).into_iter().filter(|p| p.ends_with("cuda.h")).collect();
    assert!(leftovers.is_empty(), "no half-fetched headers: {leftovers:?}");
}

#[test]
fn missing_libclang_is_named() {
    let header = root().join("tests/headers/packed.h").display().to_string();
    fails(&["ir", "--header", &header], &[("LIBCLANG_PATH", "/nonexistent/libclang.so")], "/nonexistent/libclang.so");
}

#[test]
fn header_hash_mismatch_keeps_the_good_cache() {
    // Fetch for real, then ask for the same release with a doctored header hash.
    let cache = tempfile::tempdir().unwrap();
    let env_cache = ("CTKGEN_CACHE", cache.path().to_str().unwrap());
    let out = xtask(&["headers", "fetch", "--ctk", "13.1"], &[env_cache]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cuda_h: PathBuf = walk(cache.path()).into_iter().find(|p| p.ends_with("cuda.h")).unwrap();
    let good = std::fs::read(&cuda_h).unwrap();

    let text = std::fs::read_to_string(root().join("headers/ctk.toml")).unwrap();
    let actual = sha256_hex(&good);
    let doctored_toml = text.replace(&actual, &"0".repeat(64));
    assert_ne!(text, doctored_toml);
    let dir = tempfile::tempdir().unwrap();
    let catalogue = dir.path().join("ctk.toml");
    std::fs::write(&catalogue, doctored_toml).unwrap();
    fails(&["ir", "--ctk", "13.1"], &[env_cache, ("CTKGEN_CATALOGUE", catalogue.to_str().unwrap())], "cuda.h");
    assert_eq!(std::fs::read(&cuda_h).unwrap(), good, "the verified header is untouched");
}

/// A package name that `import NAME.driver` cannot spell is refused, saying what a valid one
/// is, before any header is read; nothing is written.
#[test]
fn invalid_python_package_names_say_what_is_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let header = root().join("tests/headers/packed.h").display().to_string();
    for name in ["my-pkg", "9lives", "my..pkg", "my.class", ".pkg", "class", ""] {
        let args = ["generate", "--header", &header, "--python-package", name, "--out", out.to_str().unwrap()];
        let line = fails(&args, &[], &format!("`{name}`"));
        assert_eq!(
            line,
            format!(
                "error: invalid python package name `{name}`: it must be a Python identifier (ASCII letters, \
                 digits and underscores, not starting with a digit, not a keyword) or several joined by dots, \
                 e.g. `my_cuda` or `cuda.bindings`"
            )
        );
    }
    assert!(walk(tmp.path()).is_empty() && !out.exists(), "nothing written");
}

/// An output folder under a file, or a file as the output folder, is one line naming both paths
/// and what to do; the file is untouched and nothing is written beside it.
#[test]
fn output_under_a_file_says_which_file_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("somefile");
    std::fs::write(&file, "a file\n").unwrap();
    let header = root().join("tests/headers/packed.h").display().to_string();
    let out = file.join("x");
    let line = fails(&["generate", "--header", &header, "--out", out.to_str().unwrap()], &[], "somefile");
    let expected = format!(
        "error: cannot create output folder {}: {} is a file, not a folder; choose another --out",
        out.display(),
        file.display()
    );
    assert_eq!(line, expected);
    let line = fails(&["generate", "--header", &header, "--out", file.to_str().unwrap()], &[], "somefile");
    let expected = format!(
        "error: cannot use {} as the output folder: it exists and is not a folder; choose another --out",
        file.display()
    );
    assert_eq!(line, expected);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file\n");
    assert_eq!(walk(tmp.path()), vec![file], "nothing written");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

#[test]
fn unknown_libraries_and_one_header_for_several() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let line = fails(&["generate", "--ctk", "13.1", "--library", "nope", "--out", out.to_str().unwrap()], &[], "nope");
    assert!(line.contains("known: cuda-driver, cuda-runtime, nvfatbin, nvjitlink, nvrtc, nvvm"), "{line}");
    fails(&["ir", "--ctk", "13.1", "--library", "nope"], &[], "no library named nope");
    let header = root().join("tests/headers/propagate.h").display().to_string();
    let args = ["generate", "--header", &header, "--library", "cuda-driver", "--library", "nvrtc", "--out"];
    fails(&[&args[..], &[out.to_str().unwrap()]].concat(), &[], "--header reads one library's header");
    assert!(!out.exists(), "nothing written");
    // An installed toolkit without a library's main header says which and how to choose.
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join("include")).unwrap();
    std::fs::copy(root().join("tests/headers/propagate.h"), home.join("include/cuda.h")).unwrap();
    let args = ["generate", "--cuda-home", home.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let line = fails(&args, &[], "cuda_runtime_api.h");
    assert!(line.contains("--library"), "{line}");
    assert!(!out.exists(), "nothing written");
}
