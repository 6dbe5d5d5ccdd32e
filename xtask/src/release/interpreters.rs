//! The CPython interpreters a release builds wheels for: those named on the command line, or
//! every CPython 3 found on the machine (pyenv's versions, then `python3.N` on `PATH`), one per
//! wheel tag.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Result};

/// One interpreter, as it describes itself.
#[derive(Debug, Clone)]
pub struct Interpreter {
    /// How it was named or found.
    pub path: PathBuf,
    /// `3.11.7`.
    pub version: String,
    /// The wheel tag of its ABI: `cp311`, `cp313t` for a free-threaded build.
    pub tag: String,
    /// `sys.executable`: two names of one interpreter are one.
    executable: String,
}

impl Interpreter {
    /// `Python 3.11.7 (/path/python3)`: how messages name it.
    pub fn describe(&self) -> String {
        format!("Python {} ({})", self.version, self.path.display())
    }

    /// A short key of the interpreter, for folders kept per interpreter (its build venv).
    pub fn key(&self) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(self.executable.as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!("{}-{hex}", self.tag)
    }
}

/// What an interpreter says of itself, on one line: implementation, major, minor, full version,
/// ABI flags, executable. Written so that Python 2 prints it too (and is then refused).
const PROBE: &str = "import platform, sys\nsys.stdout.write(' '.join([platform.python_implementation(), \
                     str(sys.version_info[0]), str(sys.version_info[1]), platform.python_version(), \
                     getattr(sys, 'abiflags', '') or '-', sys.executable]) + '\\n')";

/// Asks `path` what it is; an error names it and says why it cannot build a wheel.
pub fn probe(path: &Path) -> Result<Interpreter> {
    let shown = path.display();
    let output = match Command::new(path).args(["-c", PROBE]).stdin(Stdio::null()).output() {
        Ok(output) => output,
        Err(e) => bail!("interpreter {shown} does not run: {e}"),
    };
    if !output.status.success() {
        let said = crate::release::last_line(&output.stderr, &output.stdout);
        bail!("interpreter {shown} does not run: it exited with {}: {said}", output.status);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.trim().splitn(6, ' ').collect();
    let [implementation, major, minor, version, abiflags, executable] = fields[..] else {
        bail!("interpreter {shown} does not say what it is (it printed {:?})", text.trim());
    };
    if implementation != "CPython" || major != "3" {
        bail!("interpreter {shown} is {implementation} {version}; a release builds wheels for CPython 3");
    }
    // Only the free-threaded flag is part of the ABI tag since 3.8.
    let threading = if abiflags.contains('t') { "t" } else { "" };
    Ok(Interpreter {
        path: path.to_path_buf(),
        version: version.to_string(),
        tag: format!("cp{major}{minor}{threading}"),
        executable: executable.to_string(),
    })
}

/// Every CPython 3 found, one per wheel tag (the first found), in version order. Candidates
/// that do not run or are not CPython 3 are passed over.
pub fn found() -> Vec<Interpreter> {
    let mut chosen: Vec<Interpreter> = Vec::new();
    for candidate in candidates() {
        let Ok(interpreter) = probe(&candidate) else { continue };
        if chosen.iter().any(|c| c.tag == interpreter.tag || c.executable == interpreter.executable) {
            continue;
        }
        chosen.push(interpreter);
    }
    chosen.sort_by_key(|i| version_key(&i.version));
    chosen
}

fn version_key(version: &str) -> Vec<u64> {
    version.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse().ok()).collect()
}

/// pyenv's installed versions (`$PYENV_ROOT`, else `~/.pyenv`), newest patch first within a
/// minor, then every `python3.N` on `PATH` in its order.
fn candidates() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
    if let Some(versions) = pyenv.map(|root| root.join("versions")) {
        let mut installed: Vec<(Vec<u64>, PathBuf)> = std::fs::read_dir(&versions)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| (version_key(&entry.file_name().to_string_lossy()), entry.path().join("bin").join("python3")))
            .filter(|(_, path)| path.is_file())
            .collect();
        installed.sort_by(|a, b| b.0.cmp(&a.0));
        found.extend(installed.into_iter().map(|(_, path)| path));
    }
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                name.strip_prefix("python3.")
                    .is_some_and(|minor| !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect();
        names.sort();
        found.extend(names);
    }
    found
}
