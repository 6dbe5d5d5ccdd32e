//! `cargo xtask release`: a release of one CTK, kept quick for a 2-core CI by binding NVRTC
//! alone (`--library nvrtc`, one small module set) and building with one interpreter
//! (`--python python3`): its wheel is repaired to a manylinux tag and passes `twine check`, it
//! installs with no compiler into a fresh venv and imports there, SHA256SUMS matches the files,
//! two runs give byte-identical archives while a run at another SOURCE_DATE_EPOCH does not (the
//! comparison sees a timestamp), and a bad interpreter stops the run with one line naming it,
//! leaving no output. A first run fills the release's venvs under the cache from the package
//! index; later runs reuse them.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn cache() -> PathBuf {
    match std::env::var_os("CTKGEN_CACHE").filter(|c| !c.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => root().join(".ctkgen-cache"),
    }
}

fn release(out: &Path, python: &str, epoch: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(["release", "--ctk", "13.1", "--library", "nvrtc", "--python", python, "--out"])
        .arg(out)
        .current_dir(root());
    match epoch {
        Some(epoch) => command.env("SOURCE_DATE_EPOCH", epoch),
        None => command.env_remove("SOURCE_DATE_EPOCH"),
    };
    command.output().unwrap()
}

fn released(out: &Path, epoch: Option<&str>) -> BTreeMap<String, Vec<u8>> {
    let run = release(out, "python3", epoch);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "release failed:\n{stderr}");
    let dirs: Vec<PathBuf> = std::fs::read_dir(out).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(dirs.len(), 1, "one release folder and no work folder left: {dirs:?}");
    assert!(dirs[0].ends_with("13.1.2"), "{dirs:?}");
    // A progress line for the wheel, naming its interpreter and its time.
    assert!(stderr.lines().any(|l| l.starts_with("-- wheel for Python 3.") && l.ends_with(" s")), "{stderr}");
    std::fs::read_dir(&dirs[0])
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn one<'a>(files: &'a BTreeMap<String, Vec<u8>>, suffix: &str) -> (&'a String, &'a Vec<u8>) {
    let found: Vec<_> = files.iter().filter(|(name, _)| name.ends_with(suffix)).collect();
    assert_eq!(found.len(), 1, "one *{suffix}: {:?}", files.keys().collect::<Vec<_>>());
    found[0]
}

fn tool(module: &str, args: &[&Path]) -> Output {
    let venv = cache().join("release").join("tools").join("bin");
    let path = format!("{}:{}", venv.display(), std::env::var("PATH").unwrap_or_default());
    Command::new(venv.join("python")).args(["-m", module]).args(args).env("PATH", path).output().unwrap()
}

#[test]
fn a_release_is_repaired_checked_installable_summed_and_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let first = released(&tmp.path().join("a"), None);
    let names: Vec<&String> = first.keys().collect();
    let (wheel, wheel_bytes) = one(&first, ".whl");
    let (sdist, _) = one(&first, ".tar.gz");
    one(&first, ".crate");
    assert!(first.contains_key("RELEASE-NOTES.md") && first.contains_key("SHA256SUMS"), "{names:?}");
    assert_eq!(first.len(), 5, "{names:?}");

    // Repaired to a manylinux tag, which auditwheel shows it is consistent with.
    assert!(wheel.starts_with("cuda_bindings-13.1.2-cp3") && wheel.contains("-manylinux_"), "{wheel}");
    let dir = tmp.path().join("a").join("13.1.2");
    let shown = tool("auditwheel", &["show".as_ref(), &dir.join(wheel)]);
    let shown_text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success() && shown_text.contains("consistent with the following platform tag: \"manylinux_"));
    let checked = tool("twine", &["check".as_ref(), "--strict".as_ref(), &dir.join(wheel), &dir.join(sdist)]);
    assert!(checked.status.success(), "twine check:\n{}", String::from_utf8_lossy(&checked.stdout));

    // No member holds the path the release was built under (its work folder was inside it).
    let built_under = tmp.path().to_string_lossy().into_owned();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(wheel_bytes)).unwrap();
    let mut modules = 0;
    for index in 0..archive.len() {
        let mut member = archive.by_index(index).unwrap();
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes).unwrap();
        modules += usize::from(member.name().ends_with(".so"));
        let leaked = bytes.windows(built_under.len()).any(|w| w == built_under.as_bytes());
        assert!(!leaked, "{} holds the build path {built_under}", member.name());
    }
    assert!(modules >= 3, "the nvrtc modules and the shared runtime are compiled: {modules}");

    // SHA256SUMS names every other file, with its digest.
    let sums = String::from_utf8_lossy(&first["SHA256SUMS"]).into_owned();
    let listed: BTreeMap<&str, &str> = sums.lines().map(|l| l.split_once("  ").map(|(h, n)| (n, h)).unwrap()).collect();
    assert_eq!(listed.len(), first.len() - 1, "{sums}");
    for (name, bytes) in first.iter().filter(|(name, _)| *name != "SHA256SUMS") {
        assert_eq!(listed.get(name.as_str()), Some(&format!("{:x}", Sha256::digest(bytes)).as_str()), "{name}");
    }
    let notes = String::from_utf8_lossy(&first["RELEASE-NOTES.md"]).into_owned();
    assert!(
        notes.contains("previous CTK, 13.0.") && notes.contains("## nvrtc") && notes.contains("Verdict"),
        "{notes}"
    );

    // Installed alone, from the file, where no compiler runs; its modules import without a GPU.
    let venv = tmp.path().join("venv");
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let python = venv.join("bin").join("python");
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--no-index", "--no-deps", "-q"])
        .arg(dir.join(wheel))
        .env("CC", "/bin/false")
        .env("CXX", "/bin/false")
        .output()
        .unwrap();
    assert!(installed.status.success(), "{}", String::from_utf8_lossy(&installed.stderr));
    let imported = Command::new(&python)
        .args(["-c", "import cuda.bindings.nvrtc as n, cuda.bindings.utils; print(n.nvrtcResult.NVRTC_SUCCESS.value)"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&imported.stdout).trim(), "0", "{}", String::from_utf8_lossy(&imported.stderr));

    // A second run, in another folder: the same bytes, archives included.
    let second = released(&tmp.path().join("b"), None);
    assert_eq!(first.keys().collect::<Vec<_>>(), second.keys().collect::<Vec<_>>());
    for (name, bytes) in &first {
        assert!(second[name] == *bytes, "{name} differs between two runs");
    }
    // Negative control: a run stamped another time gives other archives, which the comparison sees.
    let stamped = released(&tmp.path().join("c"), Some("1700000000"));
    assert!(stamped[wheel] != *wheel_bytes, "a wheel stamped at another time has other bytes");
    assert!(stamped[sdist] != first[sdist], "an sdist stamped at another time has other bytes");
}

#[test]
fn a_bad_interpreter_is_one_line_naming_it_and_leaves_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bad = tmp.path().join("no-such-python3");
    let run = release(&out, bad.to_str().unwrap(), None);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("error: interpreter ") && lines[0].contains(bad.to_str().unwrap()), "{stderr}");
    assert!(!out.exists(), "no output folder");
    // Not CPython 3: a program that runs but is no interpreter of a release.
    let run = release(&out, "/bin/true", None);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: interpreter /bin/true does not say what it is"), "{stderr}");
    assert!(!out.exists(), "no output folder");
}
