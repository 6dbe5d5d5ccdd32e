//! Writes an output tree so that a reader always sees either the old tree or the new one.
//!
//! The new tree is staged beside the output folder (unchanged files are hard links to the old
//! ones, so only changed files get new contents and timestamps), then swapped in with one
//! atomic `renameat2(RENAME_EXCHANGE)`. A lock (in the temporary folder) serialises concurrent runs. A run killed at
//! any point leaves the previous tree whole; its staging folder is removed by the next run.
//! (Files are not fsynced one by one: the guarantee is against killed runs, not power loss.)

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use ctkgen_ir::OutputFile;
use walkdir::WalkDir;

use crate::PipelineError;

/// What a write did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    pub written: Vec<String>,
    pub unchanged: usize,
    pub removed: Vec<String>,
}

impl WriteSummary {
    pub fn changed(&self) -> bool {
        !self.written.is_empty() || !self.removed.is_empty()
    }
}

/// Files that differ between an output tree and what generation would write.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Staleness {
    /// `(path, unified diff)` for files whose contents differ.
    pub changed: Vec<(String, String)>,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
}

impl Staleness {
    pub fn is_fresh(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty() && self.extra.is_empty()
    }
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Write { path: path.to_path_buf(), source }
}

/// Lists every file under `dir` as `relative path -> (absolute path, length)`, reading none.
fn list_tree(dir: &Path) -> Result<BTreeMap<String, (PathBuf, u64)>, PipelineError> {
    let mut out = BTreeMap::new();
    if !dir.exists() {
        return Ok(out);
    }
    for entry in WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| PipelineError::Read { path: dir.to_path_buf(), source: e.into() })?;
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(dir).expect("walk stays under dir");
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            let len = entry
                .metadata()
                .map_err(|e| PipelineError::Read { path: entry.path().to_path_buf(), source: e.into() })?
                .len();
            out.insert(rel, (entry.path().to_path_buf(), len));
        }
    }
    Ok(out)
}

fn read_file(path: &Path) -> Result<Vec<u8>, PipelineError> {
    fs::read(path).map_err(|source| PipelineError::Read { path: path.to_path_buf(), source })
}

/// Whether the file at `path` (of length `len`) holds exactly `contents`. A file of another
/// length is not read: most changed files change length, and unchanged ones are the only ones
/// worth the read.
fn holds(path: &Path, len: u64, contents: &str) -> Result<bool, PipelineError> {
    if len != contents.len() as u64 {
        return Ok(false);
    }
    // Compared a piece at a time: the old tree never sits in memory beside the new one.
    use std::io::Read;
    let read_err = |source| PipelineError::Read { path: path.to_path_buf(), source };
    let mut file = fs::File::open(path).map_err(read_err)?;
    let mut buffer = [0u8; 64 * 1024];
    let mut expected = contents.as_bytes();
    loop {
        let n = file.read(&mut buffer).map_err(|source| PipelineError::Read { path: path.to_path_buf(), source })?;
        if n == 0 {
            return Ok(expected.is_empty());
        }
        if n > expected.len() || buffer[..n] != expected[..n] {
            return Ok(false);
        }
        expected = &expected[n..];
    }
}

/// Compares `files` with the tree at `dir` without touching it.
pub fn check_tree(dir: &Path, files: &[OutputFile]) -> Result<Staleness, PipelineError> {
    if dir.exists() && !dir.is_dir() {
        return Err(PipelineError::OutputNotFolder { path: dir.to_path_buf() });
    }
    let mut existing = list_tree(dir)?;
    let mut staleness = Staleness::default();
    for file in files {
        match existing.remove(&file.path) {
            None => staleness.missing.push(file.path.clone()),
            Some((path, len)) if !holds(&path, len, &file.contents)? => {
                let bytes = read_file(&path)?;
                let old = String::from_utf8_lossy(&bytes);
                let diff = similar::TextDiff::from_lines(old.as_ref(), file.contents.as_str())
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{}", file.path), &format!("b/{}", file.path))
                    .to_string();
                staleness.changed.push((file.path.clone(), diff));
            }
            Some(_) => {}
        }
    }
    staleness.extra = existing.into_keys().collect();
    Ok(staleness)
}

/// Writes one file atomically: the contents go to a temporary file beside it, which then
/// replaces it. A killed run leaves the old file or the new one, never a part.
pub fn write_file(path: &Path, contents: &str) -> Result<(), PipelineError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(write_err(&dir))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = dir.join(format!(".{name}.ctkgen-{}", std::process::id()));
    let written = fs::write(&temporary, contents).and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written.map_err(write_err(path))
}

/// Makes `dir` hold exactly `files`, atomically, rewriting only files whose bytes changed.
pub fn write_tree(dir: &Path, files: &[OutputFile]) -> Result<WriteSummary, PipelineError> {
    if dir.exists() && !dir.is_dir() {
        return Err(PipelineError::OutputNotFolder { path: dir.to_path_buf() });
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(write_err(&parent))?;

    let lock_path = lock_path(&parent, &name);
    let lock_file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(write_err(&lock_path))?;
    let mut lock = fd_lock::RwLock::new(lock_file);
    // A second run waits for the first instead of interleaving with it.
    let _guard = lock.write().map_err(write_err(&lock_path))?;

    remove_stale_staging(&parent, &name);

    let existing = list_tree(dir)?;
    let mut summary = WriteSummary::default();
    // Paths whose file already holds the new bytes; staging hard-links those.
    let mut unchanged = BTreeSet::new();
    for file in files {
        match existing.get(&file.path) {
            Some((path, len)) if holds(path, *len, &file.contents)? => {
                summary.unchanged += 1;
                unchanged.insert(file.path.as_str());
            }
            _ => summary.written.push(file.path.clone()),
        }
    }
    let generated: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    summary.removed = existing.keys().filter(|k| !generated.contains(k.as_str())).cloned().collect();
    if dir.exists() && !summary.changed() {
        return Ok(summary);
    }

    let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(write_err(&staging))?;
    }
    fs::create_dir(&staging).map_err(write_err(&staging))?;
    let staged = stage(&staging, dir, files, &unchanged);
    if let Err(e) = staged {
        let _ = fs::remove_dir_all(&staging);
        return Err(e);
    }

    if dir.exists() {
        rustix::fs::renameat_with(rustix::fs::CWD, &staging, rustix::fs::CWD, dir, rustix::fs::RenameFlags::EXCHANGE)
            .map_err(|e| PipelineError::Write { path: dir.to_path_buf(), source: e.into() })?;
        // `staging` now holds the previous tree.
        fs::remove_dir_all(&staging).map_err(write_err(&staging))?;
    } else {
        fs::rename(&staging, dir).map_err(write_err(dir))?;
    }
    Ok(summary)
}

fn stage(
    staging: &Path,
    old_dir: &Path,
    files: &[OutputFile],
    unchanged: &BTreeSet<&str>,
) -> Result<(), PipelineError> {
    // The kill test widens the window in which a run is mid-write, so its kills land there.
    let pause = std::env::var("CTKGEN_TEST_WRITE_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(std::time::Duration::from_millis);
    for file in files {
        if let Some(pause) = pause {
            std::thread::sleep(pause);
        }
        let target = staging.join(&file.path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(write_err(parent))?;
        }
        if unchanged.contains(file.path.as_str()) && fs::hard_link(old_dir.join(&file.path), &target).is_ok() {
            continue;
        }
        let mut out = fs::File::create(&target).map_err(write_err(&target))?;
        out.write_all(file.contents.as_bytes()).map_err(write_err(&target))?;
    }
    Ok(())
}

/// The lock for an output folder lives in the system's temporary folder, keyed by the folder's
/// absolute path, so nothing but the output itself appears beside it.
fn lock_path(parent: &Path, name: &str) -> PathBuf {
    use sha2::Digest;
    let absolute = fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf()).join(name);
    let key = sha2::Sha256::digest(absolute.to_string_lossy().as_bytes());
    let dir = std::env::temp_dir().join("ctkgen-locks");
    let _ = fs::create_dir_all(&dir);
    dir.join(format!("{key:x}.lock"))
}

/// Staging folders left by killed runs (the lock is held, so none is in use).
fn remove_stale_staging(parent: &Path, name: &str) {
    let prefix = format!(".{name}.staging-");
    if let Ok(entries) = fs::read_dir(parent) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, contents: &str) -> OutputFile {
        OutputFile { path: path.into(), contents: contents.into() }
    }

    #[test]
    fn rewrites_only_changed_files_and_removes_extras() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let first = write_tree(&out, &[file("a.txt", "a"), file("sub/b.txt", "b"), file("c.txt", "c")]).unwrap();
        assert_eq!(first.written.len(), 3);
        let inode = |p: &str| std::os::unix::fs::MetadataExt::ino(&fs::metadata(out.join(p)).unwrap());
        let a_before = inode("a.txt");
        let second = write_tree(&out, &[file("a.txt", "a"), file("sub/b.txt", "B")]).unwrap();
        assert_eq!(second.written, vec!["sub/b.txt".to_string()]);
        assert_eq!(second.removed, vec!["c.txt".to_string()]);
        assert_eq!(inode("a.txt"), a_before, "unchanged file keeps its inode");
        assert_eq!(fs::read_to_string(out.join("sub/b.txt")).unwrap(), "B");
        assert!(!out.join("c.txt").exists());
        let third = write_tree(&out, &[file("a.txt", "a"), file("sub/b.txt", "B")]).unwrap();
        assert!(!third.changed());
        let leftovers: Vec<_> = fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(leftovers.iter().all(|n| !n.to_string_lossy().contains("staging")), "{leftovers:?}");
    }

    #[test]
    fn check_reports_one_edited_byte() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let files = vec![file("a.txt", "line one\nline two\n")];
        write_tree(&out, &files).unwrap();
        assert!(check_tree(&out, &files).unwrap().is_fresh());
        fs::write(out.join("a.txt"), "line one\nline twO\n").unwrap();
        let stale = check_tree(&out, &files).unwrap();
        assert_eq!(stale.changed.len(), 1);
        assert!(stale.changed[0].1.contains("-line twO"));
    }

    #[test]
    fn write_file_replaces_the_whole_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/ir.json");
        write_file(&path, "first, longer contents\n").unwrap();
        write_file(&path, "second\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second\n");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn output_path_that_is_a_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        fs::write(&out, "not a folder").unwrap();
        let err = write_tree(&out, &[file("a.txt", "a")]).unwrap_err();
        assert!(err.to_string().contains("is not a folder"), "{err}");
        assert_eq!(fs::read_to_string(&out).unwrap(), "not a folder");
    }
}
