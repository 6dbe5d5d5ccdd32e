//! `cargo xtask bench --tiny`: the whole command runs on a fixture header and reports every
//! section and target line. Figures are printed, never asserted: timings depend on the machine.

use std::path::Path;
use std::process::Command;

#[test]
fn tiny_bench_reports_every_section() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["bench", "--tiny"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for expected in [
        "machine: ",
        "load average at start: ",
        "## whole processes",
        "ctkgen ir (json)",
        "ctkgen generate, cython + rust",
        "## stages in this process",
        "parse (c11 + c++17)",
        "IR passes",
        "cython emission",
        "rust emission",
        "## targets",
        "IR of one CTK",
        "load average at end: ",
    ] {
        assert!(stdout.contains(expected), "missing `{expected}` in:\n{stdout}");
    }
}
