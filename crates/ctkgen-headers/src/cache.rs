//! The verified header cache and [`fetch`].
//!
//! Layout under the cache root:
//! - `ctk/<ctk>/include/<header>`: verified headers, each put in place by an atomic rename;
//! - `ctk/<ctk>/lib/<archive>`: verified static archives a library's description names, likewise;
//! - `wheels/`: short-lived download folders, one per fetch;
//! - `locks/`: one lock file per CTK, so concurrent fetches take turns;
//! - `libclang/<version>/`: see [`crate::locate_libclang`].

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::cuda_home::read_version_macro;
use crate::hash::{sha256_bytes, sha256_file};
use crate::wheel::Wheel;
use crate::{HeadersError, LibraryHeaders, Pip, Release};

/// A folder that keeps downloaded headers and libclang between runs.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
    /// Told about each download as it starts and ends: downloads are the slow, silent part of
    /// a first run.
    progress: Option<fn(&str)>,
}

impl PartialEq for Cache {
    fn eq(&self, other: &Cache) -> bool {
        self.root == other.root
    }
}

impl Eq for Cache {}

/// Headers ready to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderSet {
    pub include_dir: PathBuf,
    /// The library's main header.
    pub main_header: PathBuf,
    /// Its header of entry-point typedefs, when the library and the release have one.
    pub typedefs_header: Option<PathBuf>,
    /// CTK release, e.g. `13.1.0`.
    pub ctk: Option<String>,
    /// The value of the header's version macro, e.g. `13010`.
    pub cuda_version: Option<u32>,
    /// For a catalogue release: every header file name in `include_dir` the catalogue vouches
    /// for, each checked against its sha256. `None` when the headers come from elsewhere (an
    /// installed toolkit, a lone header), where what is in the folder is taken as it is.
    pub catalogued: Option<BTreeSet<String>>,
    /// Further headers read after the main one, in order (empty unless the caller adds them:
    /// which headers a library has is its description's to say).
    pub extra_headers: Vec<ExtraHeaderPath>,
    /// The pinned stand-ins the extra headers include (`GL/gl.h`, ...), as (name relative to
    /// the stand-in folder, file): a package built from these headers ships them.
    pub stand_ins: Vec<(String, PathBuf)>,
    /// Headers the library's headers include without binding anything of them, as (include
    /// name, file): set by the caller from the library's description, shipped with a package.
    pub included: Vec<(String, PathBuf)>,
    /// The macro holding the header's version, and the macros naming per-thread-default-stream
    /// variants with their suffixes: set by the caller from the library's description.
    pub version_macro: Option<String>,
    pub per_thread_macros: BTreeMap<String, String>,
    /// How the typedef headers name entry points' signatures (`PFN_{name}_v{version}`).
    pub entry_point_typedef: Option<String>,
    /// The library's static archive that came with the headers (a release's wheel's, verified,
    /// or an installed toolkit's), which a package built from them links: set by the caller from
    /// the library's description.
    pub static_library: Option<PathBuf>,
    /// For a release whose wheel lacks that archive: the requirement of the wheel that carries
    /// the library's shared copy (`nvidia-foo==13.1.*`), which such a package requires instead.
    pub library_wheel_requirement: Option<String>,
}

/// A further header of a [`HeaderSet`], with its typedef header and what it needs included first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraHeaderPath {
    pub header: PathBuf,
    pub typedefs: Option<PathBuf>,
    pub requires: Vec<String>,
}

impl Cache {
    pub fn new(root: PathBuf) -> Cache {
        Cache { root, progress: None }
    }

    /// The same cache, reporting each download to `progress` (one line per message).
    pub fn with_progress(self, progress: fn(&str)) -> Cache {
        Cache { progress: Some(progress), ..self }
    }

    /// `$CTKGEN_CACHE`, or `<workspace>/.ctkgen-cache`.
    pub fn default_root(workspace_root: &Path) -> PathBuf {
        match std::env::var_os("CTKGEN_CACHE") {
            Some(root) if !root.is_empty() => PathBuf::from(root),
            _ => workspace_root.join(".ctkgen-cache"),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the verified headers of `ctk` live.
    pub fn include_dir(&self, ctk: &str) -> PathBuf {
        self.root.join("ctk").join(ctk).join("include")
    }

    /// Where the verified static archives of `ctk` live.
    pub fn library_dir(&self, ctk: &str) -> PathBuf {
        self.root.join("ctk").join(ctk).join("lib")
    }

    /// Creates (if needed) and returns a folder under the root.
    pub(crate) fn dir(&self, relative: &Path) -> Result<PathBuf, HeadersError> {
        let dir = self.root.join(relative);
        fs::create_dir_all(&dir).map_err(|source| unwritable(&dir, source))?;
        Ok(dir)
    }

    /// Runs `work` while holding the lock named `name`; other processes and threads wait.
    /// A fresh folder under `wheels/` for one pip download; removed when dropped, so a failed
    /// or interrupted fetch leaves nothing behind.
    pub(crate) fn download_dir(&self) -> Result<tempfile::TempDir, HeadersError> {
        let wheels_dir = self.dir(Path::new("wheels"))?;
        tempfile::Builder::new()
            .prefix(".download-")
            .tempdir_in(&wheels_dir)
            .map_err(|source| unwritable(&wheels_dir, source))
    }

    /// Downloads one wheel through pip into a fresh download folder (see [`Cache::download_dir`]),
    /// reporting the download and its size; `purpose` says what it is for.
    pub(crate) fn download_wheel(
        &self,
        pip: &Pip,
        requirement: &str,
        platforms: &[String],
        purpose: &str,
    ) -> Result<(tempfile::TempDir, PathBuf), HeadersError> {
        let download = self.download_dir()?;
        if let Some(progress) = self.progress {
            progress(&format!("fetching {requirement} ({purpose}) from the package index"));
        }
        let wheel = pip.download_wheel(requirement, platforms, download.path())?;
        if let Some(progress) = self.progress {
            let size = fs::metadata(&wheel).map(|m| m.len()).unwrap_or(0);
            let name = wheel.file_name().unwrap_or_default().to_string_lossy();
            progress(&format!("fetched {name} ({:.1} MiB)", size as f64 / (1024.0 * 1024.0)));
        }
        Ok((download, wheel))
    }

    pub(crate) fn with_lock<T>(
        &self,
        name: &str,
        work: impl FnOnce() -> Result<T, HeadersError>,
    ) -> Result<T, HeadersError> {
        let path = self.dir(Path::new("locks"))?.join(format!("{name}.lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| unwritable(&path, source))?;
        let mut lock = fd_lock::RwLock::new(file);
        let _guard = lock.write().map_err(|source| HeadersError::Lock { path: path.clone(), source })?;
        work()
    }
}

/// The headers of `release` (every wheel's), from the cache when they are there and intact,
/// else downloaded through `pip` (found via `$CTKGEN_PYTHON` or `python3`); the set names
/// `library`'s.
pub fn fetch(release: &Release, cache: &Cache, library: &LibraryHeaders) -> Result<HeaderSet, HeadersError> {
    fetch_with(release, cache, &Pip::from_env(), library)
}

/// [`fetch`] with an explicit way to run pip.
pub fn fetch_with(
    release: &Release,
    cache: &Cache,
    pip: &Pip,
    library: &LibraryHeaders,
) -> Result<HeaderSet, HeadersError> {
    release.check().map_err(|(_, reason)| HeadersError::InvalidRelease { ctk: release.ctk.clone(), reason })?;
    let include_dir = cache.include_dir(&release.ctk);
    if cached_headers_intact(&include_dir, release) {
        return header_set(&include_dir, release, library);
    }
    cache.with_lock(&format!("ctk-{}", release.ctk), || {
        // Another process may have finished the same fetch while this one waited.
        if !cached_headers_intact(&include_dir, release) {
            download_and_install(release, cache, pip, &include_dir)?;
        }
        header_set(&include_dir, release, library)
    })
}

/// The static archive `file` of `release` (one its catalogue entry pins, see
/// [`Release::static_library`]), from the cache when it is there and intact, else extracted from
/// its wheel downloaded through `pip` (found via `$CTKGEN_PYTHON` or `python3`); `None` when
/// no wheel of the release ships it.
pub fn fetch_static_library(release: &Release, cache: &Cache, file: &str) -> Result<Option<PathBuf>, HeadersError> {
    fetch_static_library_with(release, cache, &Pip::from_env(), file)
}

/// [`fetch_static_library`] with an explicit way to run pip.
pub fn fetch_static_library_with(
    release: &Release,
    cache: &Cache,
    pip: &Pip,
    file: &str,
) -> Result<Option<PathBuf>, HeadersError> {
    release.check().map_err(|(_, reason)| HeadersError::InvalidRelease { ctk: release.ctk.clone(), reason })?;
    let Some(pin) = release.static_library(file) else { return Ok(None) };
    let dir = cache.library_dir(&release.ctk);
    let target = dir.join(file);
    let intact = || sha256_file(&target).is_ok_and(|actual| actual == pin.sha256);
    if intact() {
        return Ok(Some(target));
    }
    cache.with_lock(&format!("ctk-{}-lib", release.ctk), || {
        if intact() {
            return Ok(Some(target.clone()));
        }
        let requirement = format!("{}=={}", pin.package, pin.wheel_version);
        let purpose = format!("the {file} of CTK {}", release.ctk);
        let platforms = crate::catalogue::wheel_platforms(pin.wheel_file);
        let (download, wheel_path) = cache.download_wheel(pip, &requirement, &platforms, &purpose)?;
        let wheel_sha256 = sha256_file(&wheel_path)?;
        if wheel_sha256 != pin.wheel_sha256 {
            return Err(HeadersError::HashMismatch {
                file: format!("{} (CTK {})", pin.wheel_file, release.ctk),
                expected: pin.wheel_sha256.to_string(),
                actual: wheel_sha256,
            });
        }
        fs::create_dir_all(&dir).map_err(|source| unwritable(&dir, source))?;
        // Extracted beside its place and checked there, then renamed: a bad or half-written
        // archive never takes the cached one's name.
        let staged = tempfile::Builder::new()
            .prefix(".staging-")
            .tempfile_in(&dir)
            .map_err(|source| unwritable(&dir, source))?
            .into_temp_path();
        Wheel::open(&wheel_path)?.extract_to(pin.member, &staged)?;
        let actual = sha256_file(&staged)?;
        if actual != pin.sha256 {
            return Err(HeadersError::HashMismatch {
                file: format!("{} in {} (CTK {})", pin.member, pin.wheel_file, release.ctk),
                expected: pin.sha256.to_string(),
                actual,
            });
        }
        staged.persist(&target).map_err(|error| unwritable(&target, error.error))?;
        drop(download);
        Ok(Some(target.clone()))
    })
}

/// One wheel of a release and the headers it carries.
struct WheelSource<'r> {
    package: &'r str,
    wheel_version: &'r str,
    wheel_file: &'r str,
    wheel_sha256: &'r str,
    include_dir: &'r str,
    headers: &'r BTreeMap<String, String>,
}

/// The runtime wheel, then each companion wheel.
fn wheel_sources(release: &Release) -> Vec<WheelSource<'_>> {
    let mut sources = vec![WheelSource {
        package: &release.package,
        wheel_version: &release.wheel_version,
        wheel_file: &release.wheel_file,
        wheel_sha256: &release.wheel_sha256,
        include_dir: &release.include_dir,
        headers: &release.headers,
    }];
    sources.extend(release.companions.iter().map(|c| WheelSource {
        package: &c.package,
        wheel_version: &c.wheel_version,
        wheel_file: &c.wheel_file,
        wheel_sha256: &c.wheel_sha256,
        include_dir: &c.include_dir,
        headers: &c.headers,
    }));
    sources
}

/// True when every header of `headers` is in the cache with the catalogued hash.
fn intact(include_dir: &Path, headers: &BTreeMap<String, String>) -> bool {
    headers
        .iter()
        .all(|(name, expected)| fs::read(include_dir.join(name)).is_ok_and(|bytes| &sha256_bytes(&bytes) == expected))
}

/// True when every header of the release, from every wheel, is in the cache intact.
fn cached_headers_intact(include_dir: &Path, release: &Release) -> bool {
    wheel_sources(release).iter().all(|source| intact(include_dir, source.headers))
}

/// Downloads the wheels whose headers are missing or damaged in the cache (a cache folder
/// filled from an older catalogue gains the headers it lacks), checks every hash, and
/// installs their headers. Every wheel is read and checked before any header is written, so a
/// bad wheel never replaces a good cached file.
fn download_and_install(release: &Release, cache: &Cache, pip: &Pip, include_dir: &Path) -> Result<(), HeadersError> {
    let mut checked: Vec<(&String, Vec<u8>)> = Vec::new();
    // By file: one wheel may hold headers of several include folders (several entries).
    let mut downloads: BTreeMap<&str, (tempfile::TempDir, PathBuf)> = BTreeMap::new();
    for source in wheel_sources(release) {
        if intact(include_dir, source.headers) {
            continue;
        }
        if !downloads.contains_key(source.wheel_file) {
            let requirement = format!("{}=={}", source.package, source.wheel_version);
            let purpose = format!("the headers of CTK {}", release.ctk);
            let platforms = crate::catalogue::wheel_platforms(source.wheel_file);
            let (download, wheel_path) = cache.download_wheel(pip, &requirement, &platforms, &purpose)?;
            let wheel_sha256 = sha256_file(&wheel_path)?;
            if wheel_sha256 != source.wheel_sha256 {
                return Err(HeadersError::HashMismatch {
                    file: format!(
                        "{} (CTK {})",
                        wheel_path.file_name().unwrap_or_default().to_string_lossy(),
                        release.ctk
                    ),
                    expected: source.wheel_sha256.to_string(),
                    actual: wheel_sha256,
                });
            }
            downloads.insert(source.wheel_file, (download, wheel_path));
        }
        let mut wheel = Wheel::open(&downloads[source.wheel_file].1)?;
        for (name, expected) in source.headers {
            let member = format!("{}/{name}", source.include_dir);
            let bytes = wheel.read_small(&member).map_err(|error| match error {
                HeadersError::MissingMember { wheel, member } => {
                    HeadersError::MissingMember { wheel, member: format!("{member} (a header of CTK {})", release.ctk) }
                }
                other => other,
            })?;
            let actual = sha256_bytes(&bytes);
            if &actual != expected {
                return Err(HeadersError::HashMismatch {
                    file: format!("{member} in {} (CTK {})", source.wheel_file, release.ctk),
                    expected: expected.clone(),
                    actual,
                });
            }
            checked.push((name, bytes));
        }
    }

    fs::create_dir_all(include_dir).map_err(|source| unwritable(include_dir, source))?;
    // Staged next to the destination, so the final renames stay on one file system.
    let ctk_dir = include_dir.parent().unwrap_or(include_dir);
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(ctk_dir)
        .map_err(|source| unwritable(ctk_dir, source))?;
    // A header may sit in a subfolder (`sub/defines.h`), as its includers name it.
    let make_parent = |path: &Path| match path.parent() {
        Some(parent) => fs::create_dir_all(parent).map_err(|source| unwritable(parent, source)),
        None => Ok(()),
    };
    for (name, bytes) in &checked {
        let staged = staging.path().join(name);
        make_parent(&staged)?;
        write_synced(&staged, bytes).map_err(|source| unwritable(&staged, source))?;
    }
    for (name, _) in &checked {
        let target = include_dir.join(name);
        make_parent(&target)?;
        fs::rename(staging.path().join(name), &target).map_err(|source| unwritable(&target, source))?;
    }
    drop(downloads);
    Ok(())
}

fn header_set(include_dir: &Path, release: &Release, library: &LibraryHeaders) -> Result<HeaderSet, HeadersError> {
    let main_header = include_dir.join(&library.main);
    let cuda_version = match &library.version_macro {
        Some(version_macro) => read_version_macro(&main_header, version_macro)?,
        None => None,
    };
    let catalogued = |name: &String| wheel_sources(release).iter().any(|source| source.headers.contains_key(name));
    Ok(HeaderSet {
        include_dir: include_dir.to_path_buf(),
        main_header,
        typedefs_header: library.typedefs.as_ref().filter(|t| catalogued(t)).map(|t| include_dir.join(t)),
        ctk: Some(release.ctk.clone()),
        cuda_version,
        catalogued: Some(wheel_sources(release).iter().flat_map(|source| source.headers.keys().cloned()).collect()),
        extra_headers: Vec::new(),
        stand_ins: Vec::new(),
        included: Vec::new(),
        version_macro: library.version_macro.clone(),
        per_thread_macros: BTreeMap::new(),
        entry_point_typedef: None,
        static_library: None,
        library_wheel_requirement: None,
    })
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create(path)?;
    io::Write::write_all(&mut file, bytes)?;
    file.sync_all()
}

pub(crate) fn unwritable(path: &Path, source: io::Error) -> HeadersError {
    HeadersError::UnwritableCache { path: path.to_path_buf(), source }
}
