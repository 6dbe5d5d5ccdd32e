//! `headers/libraries/`: one description per bound library. `<name>.toml` holds its conventions
//! ([`LibraryConventions`]); files beside it with the same stem hold emitter-specific data, read
//! here as text for the emitter that parses them.

use std::io;
use std::path::{Path, PathBuf};

use ctkgen_ir::LibraryConventions;

/// A library description that cannot be read or does not match [`LibraryConventions`].
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path}: malformed description: {message}")]
    Malformed { path: PathBuf, message: String },
}

/// The description of library `name` in `dir` (usually `headers/libraries`).
#[derive(Debug, Clone)]
pub struct LibraryFiles {
    pub dir: PathBuf,
    pub name: String,
}

impl LibraryFiles {
    pub fn new(dir: impl Into<PathBuf>, name: impl Into<String>) -> LibraryFiles {
        LibraryFiles { dir: dir.into(), name: name.into() }
    }

    /// `<dir>/<name>.toml`.
    pub fn conventions_path(&self) -> PathBuf {
        self.dir.join(format!("{}.toml", self.name))
    }

    /// `<dir>/<name>.<part>.toml`, e.g. `cuda-driver.cython-params.toml`.
    pub fn part_path(&self, part: &str) -> PathBuf {
        self.dir.join(format!("{}.{part}.toml", self.name))
    }

    /// Reads and checks the conventions.
    pub fn conventions(&self) -> Result<LibraryConventions, LibraryError> {
        let path = self.conventions_path();
        let text = read(&path)?;
        let conventions: LibraryConventions = toml::from_str(&text)
            .map_err(|e| LibraryError::Malformed { path: path.clone(), message: e.message().to_string() })?;
        match conventions.problem() {
            Some(message) => Err(LibraryError::Malformed { path, message }),
            None => Ok(conventions),
        }
    }

    /// The text of one emitter-specific part.
    pub fn part(&self, part: &str) -> Result<String, LibraryError> {
        read(&self.part_path(part))
    }

    /// [`LibraryFiles::part`], empty when the library has no such part.
    pub fn optional_part(&self, part: &str) -> Result<String, LibraryError> {
        match std::fs::read_to_string(self.part_path(part)) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(String::new()),
            _ => self.part(part),
        }
    }
}

/// The package description at `path` (`headers/package.toml`): none (no package-wide modules)
/// when the file is absent.
pub fn package_conventions(path: &Path) -> Result<ctkgen_ir::PackageConventions, LibraryError> {
    let text = match std::fs::read_to_string(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Default::default()),
        _ => read(path)?,
    };
    let package: ctkgen_ir::PackageConventions = toml::from_str(&text)
        .map_err(|e| LibraryError::Malformed { path: path.to_path_buf(), message: e.message().to_string() })?;
    match package.problem() {
        Some(message) => Err(LibraryError::Malformed { path: path.to_path_buf(), message }),
        None => Ok(package),
    }
}

fn read(path: &Path) -> Result<String, LibraryError> {
    std::fs::read_to_string(path).map_err(|source| LibraryError::Read { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_description_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.toml"), "library = \"x\"\nunexpected = 1\n").unwrap();
        let error = LibraryFiles::new(dir.path(), "lib").conventions().unwrap_err().to_string();
        assert!(error.contains("lib.toml: malformed description"), "{error}");
        let missing = LibraryFiles::new(dir.path(), "absent").conventions().unwrap_err().to_string();
        assert!(missing.starts_with("cannot read ") && missing.ends_with("absent.toml"), "{missing}");
    }

    #[test]
    fn the_shipped_descriptions_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
            .filter(|stem| !stem.contains('.'))
            .collect();
        names.sort();
        assert!(!names.is_empty());
        for name in names {
            LibraryFiles::new(&dir, &name).conventions().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
