//! A catalogue release whose wheels lack a library's header is generated without that library,
//! and says so; a catalogue that lacks the header in every release is older than the library's
//! description, which is an error naming the header and the refresh command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn xtask(args: &[&str], catalogue: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .env("CTKGEN_CATALOGUE", catalogue)
        .output()
        .unwrap()
}

/// The committed catalogue without the companion entries that carry `header`, in the releases
/// `drop_from` picks (by their `ctk`).
fn catalogue_without(header: &str, drop_from: impl Fn(&str) -> bool) -> String {
    let text = std::fs::read_to_string(root().join("headers/ctk.toml")).unwrap();
    let mut releases = text.split("\n[[release]]\n");
    let mut out = releases.next().unwrap().to_string();
    let listed = format!("\n\"{header}\" = ");
    for release in releases {
        let ctk = release.lines().next().unwrap().trim_start_matches("ctk = ").trim_matches('"').to_string();
        let mut parts = release.split("\n[[release.companion]]\n");
        let mut kept = parts.next().unwrap().to_string();
        for companion in parts {
            if !(drop_from(&ctk) && format!("\n{companion}").contains(&listed)) {
                kept.push_str("\n[[release.companion]]\n");
                kept.push_str(companion);
            }
        }
        out.push_str("\n[[release]]\n");
        out.push_str(&kept);
    }
    out
}

/// The first library whose description names `header` as its main header, by file name.
fn library_of(header: &str) -> String {
    let dir = root().join("headers/libraries");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml") && n.matches('.').count() == 1)
        .collect();
    names.sort();
    names
        .into_iter()
        .find(|n| std::fs::read_to_string(dir.join(n)).unwrap().contains(&format!("header = \"{header}\"")))
        .map(|n| n.trim_end_matches(".toml").to_string())
        .unwrap()
}

#[test]
fn a_release_without_a_library_is_generated_without_it() {
    let (header, other_header) = ("nvJitLink.h", "nvrtc.h");
    let (library, other) = (library_of(header), library_of(other_header));
    let tmp = tempfile::tempdir().unwrap();
    let catalogue = tmp.path().join("ctk.toml");
    std::fs::write(&catalogue, catalogue_without(header, |ctk| ctk.starts_with("13.1."))).unwrap();
    let out = tmp.path().join("out");
    let args = ["generate", "--ctk", "13.1", "--library", &other, "--library", &library, "--lang", "rust", "--out"];
    let run = xtask(&[&args[..], &[out.to_str().unwrap()]].concat(), &catalogue);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains(&format!("13.1.2: no {header} in this release")), "{stdout}");
    assert!(stdout.contains(&format!("{library} skipped")), "{stdout}");
    let crates: Vec<String> = std::fs::read_dir(out.join("rust"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into())
        .collect();
    assert_eq!(crates.len(), 1, "only the other library's crate: {crates:?}");
    // The same release with the header catalogued binds both.
    let full = root().join("headers/ctk.toml");
    let out_full = tmp.path().join("full");
    let run = xtask(&[&args[..], &[out_full.to_str().unwrap()]].concat(), &full);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!String::from_utf8_lossy(&run.stdout).contains("skipped"));
    assert_eq!(std::fs::read_dir(out_full.join("rust")).unwrap().count(), 2);
}

#[test]
fn a_catalogue_without_the_header_anywhere_is_an_error() {
    let header = "nvvm.h";
    let library = library_of(header);
    let tmp = tempfile::tempdir().unwrap();
    let catalogue = tmp.path().join("ctk.toml");
    std::fs::write(&catalogue, catalogue_without(header, |_| true)).unwrap();
    let out = tmp.path().join("out");
    let run = xtask(
        &["generate", "--ctk", "13.1", "--library", &library, "--lang", "rust", "--out", out.to_str().unwrap()],
        &catalogue,
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: CTK 13.1.2 has no nvvm.h in"), "{stderr}");
    assert!(last.contains("cargo xtask headers refresh"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}
