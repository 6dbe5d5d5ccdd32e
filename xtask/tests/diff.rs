//! `cargo xtask diff`: the verdict is the exit code, and the report leads with alignment.

use std::path::Path;
use std::process::Command;

fn diff(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("diff")
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn verdicts_are_exit_codes() {
    let (code, md) = diff(&["--from", "12.9", "--to", "13.0"]);
    assert_eq!(code, Some(2), "{md}");
    let first_section = md.lines().find(|l| l.starts_with("## ")).unwrap();
    assert!(first_section.starts_with("## Alignment changes"), "{first_section}");
    assert!(md.contains("`CUtensorMap_st`: align 64 → 128"), "{md}");
    let (code, json) = diff(&["--from", "12.0", "--to", "12.9", "--format", "json"]);
    assert_eq!(code, Some(1), "additions only");
    assert!(json.trim_start().starts_with('{'));
    assert_eq!(diff(&["--from", "13.1", "--to", "13.1"]).0, Some(0));
    assert_eq!(diff(&["--from", "13.1", "--to", "9.9"]).0, Some(3), "a failed comparison is neither verdict");
}
