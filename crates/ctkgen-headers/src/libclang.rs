//! Finding a libclang shared library, or provisioning the pinned one from the package index.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use crate::cache::unwritable;
use crate::hash::sha256_file;
use crate::wheel::Wheel;
use crate::{Cache, HeadersError, Pip};

/// Version of the `libclang` wheel provisioned when the system has no libclang.
pub const LIBCLANG_WHEEL_VERSION: &str = "18.1.1";

/// The oldest libclang whose reading matches the pinned wheel's: libclang 16 leaves the
/// documentation comments of declarations named through a macro (`fooCreate` ->
/// `fooCreate_v2`) unattached, so a fifth of the driver's functions would lose their docs and
/// the generated code would depend on the host. Older system copies are passed over.
pub const LIBCLANG_OLDEST_MAJOR: u32 = 18;

/// The pinned `libclang` wheel for one platform, and the library inside it.
struct PinnedWheel {
    arch: &'static str,
    wheel_file: &'static str,
    wheel_sha256: &'static str,
    library_sha256: &'static str,
    library_size: u64,
}

const LIBRARY_MEMBER: &str = "libclang-18.1.1.data/platlib/clang/native/libclang.so";

const PINNED_WHEELS: [PinnedWheel; 2] = [
    PinnedWheel {
        arch: "x86_64",
        wheel_file: "libclang-18.1.1-py2.py3-none-manylinux2010_x86_64.whl",
        wheel_sha256: "c533091d8a3bbf7460a00cb6c1a71da93bffe148f172c7d03b1c31fbf8aa2a0b",
        library_sha256: "a8612b1c9a7125701277f63e5616f1d1eb9c91410c4bf195878067868c927f94",
        library_size: 63_703_544,
    },
    PinnedWheel {
        arch: "aarch64",
        wheel_file: "libclang-18.1.1-py2.py3-none-manylinux2014_aarch64.whl",
        wheel_sha256: "54dda940a4a0491a9d1532bf071ea3ef26e6dbaf03b5000ed94dd7174e8f9592",
        library_sha256: "87cc443de7278fa112ed50fac8844b1d5c6344f549b8b514e4381f26da006f65",
        library_size: 60_393_984,
    },
];

/// Folders searched for a system libclang, after every `/usr/lib/llvm-*/lib`.
const SYSTEM_DIRS: [&str; 6] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
    "/usr/local/lib64",
];

/// `$LIBCLANG_PATH` (a file or a folder), else the newest system libclang, else the pinned
/// `libclang` wheel provisioned into the cache through pip.
pub fn locate_libclang(cache: &Cache) -> Result<PathBuf, HeadersError> {
    locate_libclang_with(cache, &Pip::from_env())
}

/// [`locate_libclang`] with an explicit way to run pip.
pub fn locate_libclang_with(cache: &Cache, pip: &Pip) -> Result<PathBuf, HeadersError> {
    let mut tried = Vec::new();
    if let Some(path) = from_libclang_path(std::env::var_os("LIBCLANG_PATH"), &mut tried)? {
        return Ok(path);
    }
    let mut candidates = system_candidates(&system_dirs());
    candidates.extend(ldconfig_candidates());
    let (recent, old): (Vec<PathBuf>, Vec<PathBuf>) = candidates.into_iter().partition(|path| recent_enough(path));
    if !old.is_empty() {
        let old: Vec<String> = old.iter().map(|p| p.display().to_string()).collect();
        tried.push(format!("{}: older than libclang {LIBCLANG_OLDEST_MAJOR} or of unknown version", old.join(", ")));
    }
    if let Some(path) = newest(recent) {
        return Ok(path);
    }
    tried.push(format!("/usr/lib/llvm-*/lib, {}, /etc/ld.so.conf folders: no libclang", SYSTEM_DIRS.join(", ")));
    match provision_wheel(cache, pip) {
        Ok(path) => Ok(path),
        Err(error) => {
            tried.push(format!("libclang=={LIBCLANG_WHEEL_VERSION} wheel: {error}"));
            Err(HeadersError::LibclangNotFound { tried: tried.join("; ") })
        }
    }
}

/// An explicit `LIBCLANG_PATH` that holds no libclang is an error, not a reason to guess.
fn from_libclang_path(value: Option<OsString>, tried: &mut Vec<String>) -> Result<Option<PathBuf>, HeadersError> {
    let Some(value) = value.filter(|value| !value.is_empty()) else {
        tried.push("LIBCLANG_PATH unset".to_string());
        return Ok(None);
    };
    let path = PathBuf::from(value);
    if path.is_file() {
        return Ok(Some(path));
    }
    if path.is_dir() {
        if let Some(found) = newest(system_candidates(std::slice::from_ref(&path))) {
            return Ok(Some(found));
        }
    }
    Err(HeadersError::LibclangNotFound {
        tried: format!("LIBCLANG_PATH={} (no libclang shared library there)", path.display()),
    })
}

fn system_dirs() -> Vec<PathBuf> {
    let mut llvm_dirs: Vec<PathBuf> = fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("llvm-"))
        .map(|entry| entry.path().join("lib"))
        .collect();
    llvm_dirs.sort();
    llvm_dirs.extend(SYSTEM_DIRS.iter().map(PathBuf::from));
    llvm_dirs
}

/// Every file in `dirs` named like libclang itself (not `libclang-cpp` or `libclang_rt`).
fn system_candidates(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if library_version(&path).is_some() && path.is_file() {
                found.push(path);
            }
        }
    }
    found
}

/// Libraries in the folders the dynamic loader is configured with (`/etc/ld.so.conf` and its
/// includes), for distributions with their own layout. Read directly: spawning `ldconfig -p`
/// on every run costs more than parsing a header.
fn ldconfig_candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    collect_loader_dirs(Path::new("/etc/ld.so.conf"), &mut dirs, 0);
    system_candidates(&dirs)
}

fn collect_loader_dirs(conf: &Path, dirs: &mut Vec<PathBuf>, depth: usize) {
    let Ok(text) = fs::read_to_string(conf) else { return };
    for line in text.lines().map(|l| l.split('#').next().unwrap_or_default().trim()) {
        if let Some(pattern) = line.strip_prefix("include").map(str::trim) {
            if depth > 4 {
                continue;
            }
            // Only the `<dir>/*.conf` form appears in practice.
            let pattern = Path::new(pattern);
            let (Some(dir), Some(suffix)) =
                (pattern.parent(), pattern.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_prefix('*')))
            else {
                continue;
            };
            let mut confs: Vec<PathBuf> = fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect();
            confs.sort();
            for c in confs {
                collect_loader_dirs(&c, dirs, depth + 1);
            }
        } else if line.starts_with('/') {
            dirs.push(PathBuf::from(line));
        }
    }
}

/// Whether a system library's version, read from its name or the name it links to, is
/// [`LIBCLANG_OLDEST_MAJOR`] or newer.
fn recent_enough(path: &Path) -> bool {
    let named = library_version(path).filter(|v| !v.is_empty());
    let version = named.or_else(|| library_version(&fs::canonicalize(path).ok()?).filter(|v| !v.is_empty()));
    version.is_some_and(|v| v[0] >= LIBCLANG_OLDEST_MAJOR)
}

/// The newest candidate; ties go to the first path in sorted order, so the choice is stable.
fn newest(mut candidates: Vec<PathBuf>) -> Option<PathBuf> {
    candidates.sort();
    candidates.dedup();
    let mut best: Option<(Vec<u32>, PathBuf)> = None;
    for path in candidates {
        let Some(version) = library_version(&path) else {
            continue;
        };
        let newer = match &best {
            Some((best_version, _)) => &version > best_version,
            None => true,
        };
        if newer {
            best = Some((version, path));
        }
    }
    best.map(|(_, path)| path)
}

/// For a libclang file name, the version it carries (`llvm-N` folder first, then `-N` in the
/// name, then the `.so.N` suffix); `None` for any other file.
fn library_version(path: &Path) -> Option<Vec<u32>> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix("libclang")?;
    let (tag, suffix) = rest.split_once(".so")?;
    let numbers = |text: &str| -> Option<Vec<u32>> {
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split('.').map(|part| part.parse().ok()).collect()
    };
    let tag_version = match tag {
        "" => Vec::new(),
        _ => numbers(tag.strip_prefix('-')?)?,
    };
    let suffix_version = match suffix {
        "" => Vec::new(),
        _ => numbers(suffix.strip_prefix('.')?)?,
    };
    let folder_version = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|folder| folder.to_str()?.strip_prefix("llvm-")?.parse::<u32>().ok());
    let mut version: Vec<u32> = folder_version.into_iter().collect();
    version.extend(if tag_version.is_empty() { suffix_version } else { tag_version });
    Some(version)
}

/// `<cache>/libclang/<version>/libclang.so`, downloaded, checked and extracted once.
fn provision_wheel(cache: &Cache, pip: &Pip) -> Result<PathBuf, HeadersError> {
    let arch = std::env::consts::ARCH;
    let pinned =
        PINNED_WHEELS.iter().find(|pinned| pinned.arch == arch && cfg!(target_os = "linux")).ok_or_else(|| {
            HeadersError::LibclangNotFound {
                tried: format!("no pinned libclang wheel for {}-{arch}", std::env::consts::OS),
            }
        })?;
    let library = cache.root().join("libclang").join(LIBCLANG_WHEEL_VERSION).join("libclang.so");
    // The file only ever appears through a rename after its hash was checked, so its presence
    // and size suffice here; hashing 64 MB on every run would cost more than parsing a header.
    if is_installed(&library, pinned) {
        return Ok(library);
    }
    cache.with_lock(&format!("libclang-{LIBCLANG_WHEEL_VERSION}"), || {
        if !is_installed(&library, pinned) {
            install_library(cache, pip, pinned, &library)?;
        }
        Ok(library.clone())
    })
}

fn is_installed(library: &Path, pinned: &PinnedWheel) -> bool {
    fs::metadata(library).is_ok_and(|meta| meta.is_file() && meta.len() == pinned.library_size)
}

fn install_library(cache: &Cache, pip: &Pip, pinned: &PinnedWheel, library: &Path) -> Result<(), HeadersError> {
    let platform = pinned.wheel_file.trim_end_matches(".whl").rsplit('-').next().unwrap_or_default();
    let requirement = format!("libclang=={LIBCLANG_WHEEL_VERSION}");
    let (_download, wheel_path) =
        cache.download_wheel(pip, &requirement, &[platform.to_string()], "the C parser, no system libclang found")?;
    let wheel_sha256 = sha256_file(&wheel_path)?;
    if wheel_sha256 != pinned.wheel_sha256 {
        return Err(HeadersError::HashMismatch {
            file: pinned.wheel_file.to_string(),
            expected: pinned.wheel_sha256.to_string(),
            actual: wheel_sha256,
        });
    }

    let install_dir = library.parent().unwrap_or(library);
    fs::create_dir_all(install_dir).map_err(|source| unwritable(install_dir, source))?;
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(install_dir)
        .map_err(|source| unwritable(install_dir, source))?;
    let staged = staging.path().join("libclang.so");
    Wheel::open(&wheel_path)?.extract_to(LIBRARY_MEMBER, &staged)?;
    let library_sha256 = sha256_file(&staged)?;
    if library_sha256 != pinned.library_sha256 {
        return Err(HeadersError::HashMismatch {
            file: format!("{LIBRARY_MEMBER} in {}", pinned.wheel_file),
            expected: pinned.library_sha256.to_string(),
            actual: library_sha256,
        });
    }
    fs::rename(&staged, library).map_err(|source| unwritable(library, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_libclang_names_only() {
        let version = |path: &str| library_version(Path::new(path));
        assert_eq!(version("/usr/lib/llvm-18/lib/libclang.so.1"), Some(vec![18, 1]));
        assert_eq!(version("/usr/lib/x86_64-linux-gnu/libclang-14.so.1"), Some(vec![14]));
        assert_eq!(version("/opt/libclang.so.18.1.1"), Some(vec![18, 1, 1]));
        assert_eq!(version("/opt/libclang.so"), Some(vec![]));
        assert_eq!(version("/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"), None);
        assert_eq!(version("/usr/lib/libclang_rt.asan.so"), None);
        assert_eq!(version("/usr/lib/libclang.a"), None);
    }

    #[test]
    fn passes_over_system_libraries_older_than_the_oldest_supported() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            fs::write(&path, b"").unwrap();
            path
        };
        assert!(!recent_enough(&file("libclang-16.so.16.0.6")));
        assert!(recent_enough(&file("libclang-18.so.18.1.3")));
        assert!(recent_enough(&file("libclang.so.19.1")));
        // No version in the name: the file it links to decides, and an unknown version is passed over.
        let target = file("libclang.so.20.1.8");
        let link = dir.path().join("libclang.so");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(recent_enough(&link));
        let bare = tempfile::tempdir().unwrap();
        let unversioned = bare.path().join("libclang.so");
        fs::write(&unversioned, b"").unwrap();
        assert!(!recent_enough(&unversioned));
    }

    #[test]
    fn prefers_the_newest_library() {
        let paths = [
            "/usr/lib/x86_64-linux-gnu/libclang-14.so.1",
            "/usr/lib/llvm-18/lib/libclang.so.1",
            "/usr/lib/llvm-15/lib/libclang-15.so.1",
        ];
        let chosen = newest(paths.iter().map(PathBuf::from).collect());
        assert_eq!(chosen, Some(PathBuf::from("/usr/lib/llvm-18/lib/libclang.so.1")));
    }

    #[test]
    fn libclang_path_may_name_a_file_or_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let older = dir.path().join("libclang-14.so.1");
        let newer = dir.path().join("libclang.so.17");
        fs::write(&older, b"").unwrap();
        fs::write(&newer, b"").unwrap();
        fs::write(dir.path().join("libclang-cpp.so.19"), b"").unwrap();
        let mut tried = Vec::new();
        let found = from_libclang_path(Some(dir.path().into()), &mut tried).unwrap();
        assert_eq!(found, Some(newer));
        let found = from_libclang_path(Some(older.clone().into()), &mut tried).unwrap();
        assert_eq!(found, Some(older));
        assert_eq!(from_libclang_path(None, &mut tried).unwrap(), None);

        let empty = tempfile::tempdir().unwrap();
        let error = from_libclang_path(Some(empty.path().into()), &mut tried).unwrap_err();
        assert!(error.to_string().contains("LIBCLANG_PATH="), "{error}");
    }
}
