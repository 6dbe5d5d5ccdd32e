//! What a newcomer reads from the command line: help that names the program and explains the
//! options, and one progress line per stage of a run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).current_dir(root()).output().unwrap()
}

#[test]
fn help_names_the_program_and_explains_the_options() {
    let out = xtask(&["generate", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Usage: xtask generate"), "{help}");
    assert!(!help.contains("cargo xtask generate [OPTIONS]"), "{help}");
    let option = |name: &str| help.lines().skip_while(|l| !l.contains(name)).take(3).collect::<Vec<_>>().join(" ");
    assert!(option("--ctk <CTK>").contains("newest patch") && option("--ctk <CTK>").contains("exactly"), "{help}");
    assert!(option("--lang <LANG>").contains("Cython package"), "{help}");
    assert!(option("--check").contains("other files in the folder are listed"), "{help}");
    let out = option("--out <DIR>");
    for says in ["DIR/python/", "DIR/rust/", "DIR/<release>/", "target/ctkgen/13.1.2/ for --ctk 13.1"] {
        assert!(out.contains(says), "--out does not say {says}: {help}");
    }
    assert!(option("--python-package <NAME>").contains("Python identifier"), "{help}");
}

#[test]
fn a_run_says_what_stage_it_is_in() {
    let tmp = tempfile::tempdir().unwrap();
    let header = root().join("tests/headers/packed.h");
    let out = xtask(&["generate", "--header", header.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stages: Vec<&str> = stderr.lines().filter(|l| l.starts_with("-- ")).collect();
    assert_eq!(stages.len(), 3, "{stderr}");
    assert!(stages[0].starts_with("-- parsing packed.h of packed as c11 and c++17"), "{stderr}");
    assert_eq!(stages[1], "-- emitting cython and rust");
    assert!(stages[2].starts_with("-- writing "), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("files in"), "the summary is the result, on stdout");
}
