//! The ctkgen pipeline: headers, then the model, then emitted files, then an atomic write.
//!
//! ```text
//! catalogue --fetch--> headers --libclang--> Api (IR) per library --emit--> OutputFile[] --write--> out/
//! ```
//!
//! Each stage lives in its own crate; this one strings them together, is the only crate the
//! command line talks to, and owns everything that writes files: the atomic tree writer, the
//! single-file writer and the freshness check.

pub mod oracle;
mod presence;
mod rust;
pub mod writer;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctkgen_headers::Cache;

// What the command line needs from the stage crates, named through this one.
pub use ctkgen_clang::DEFAULT_TARGET;
pub use ctkgen_diff::{diff as abi_diff, AbiDiff};
pub use ctkgen_headers::{Catalogue, HeaderSet, Release};
pub use ctkgen_ir::abi::summary as abi_summary;
pub use ctkgen_ir::{Api, LanguageMode, OutputFile};
pub use presence::source_has_library;
pub use rust::emit_rust_crates;
pub use writer::{
    check_output_folder, check_tree, write_file, write_tree, Ownership, Staleness, WriteSummary, BUILD_FOLDERS,
    MANIFEST,
};

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Headers(#[from] ctkgen_headers::HeadersError),
    #[error(transparent)]
    Parse(#[from] ctkgen_clang::ParseError),
    #[error(transparent)]
    Cython(#[from] ctkgen_cython::CythonEmitError),
    #[error(transparent)]
    Rust(#[from] ctkgen_rust::RustEmitError),

    #[error("header {path} does not exist")]
    MissingHeader { path: PathBuf },
    #[error("header {path} is a folder, not a file")]
    HeaderIsFolder { path: PathBuf },
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot use {path} as the output folder: it exists and is not a folder")]
    OutputNotFolder { path: PathBuf },
    #[error("cannot create output folder {path}: {file} is a file, not a folder")]
    OutputUnderFile { path: PathBuf, file: PathBuf },
    #[error("output folder {path} is locked by another ctkgen run")]
    Locked { path: PathBuf },
    #[error(transparent)]
    Library(#[from] ctkgen_headers::LibraryError),
    #[error("{path}: invalid output-parameter overrides")]
    Overrides { path: PathBuf, source: ctkgen_cython::CythonEmitError },
    #[error(
        "{path}: {version} is older than libclang {oldest}, whose reading the output is made from \
         (older ones leave the docs of macro-renamed functions unattached); point LIBCLANG_PATH at \
         libclang {oldest} or newer, or unset it to use the pinned wheel"
    )]
    LibclangTooOld { path: PathBuf, version: String, oldest: u32 },
    #[error("CTK {ctk} has no {header} in {catalogue} (`cargo xtask headers refresh` catalogues it)")]
    MissingExtraHeader { ctk: String, header: String, catalogue: PathBuf },
    #[error("{dir} has no {header}, the main header of library {library}; choose the libraries it has with --library")]
    MissingLibraryHeader { dir: PathBuf, header: String, library: String },
    #[error("no library named {name} under {dir}; known: {known}")]
    UnknownLibrary { name: String, dir: PathBuf, known: String },
    #[error("{dir} describes no library")]
    NoLibraries { dir: PathBuf },
    #[error("library {library} depends on {dependency}, which is not described under {dir}, or the dependencies form a cycle")]
    BadDependency { library: String, dependency: String, dir: PathBuf },
    #[error("library {library} depends on {dependency}, which this run does not bind; bind both together")]
    UnboundDependency { library: String, dependency: String },
}

/// What the emitters need to know about a bound library beyond its declarations.
#[derive(Debug, Clone)]
pub struct Library {
    /// The description's file name under `headers/libraries/`, without `.toml`.
    pub name: String,
    pub conventions: ctkgen_ir::LibraryConventions,
    /// Output-parameter overrides for the Cython emitter (`<name>.cython-params.toml`).
    pub cython_params: ctkgen_cython::Overrides,
}

/// The repository a run works in: where the catalogue, the stand-in headers and the cache are.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub cache: Cache,
    /// The catalogue, read and checked once per run however many libraries and sources use it.
    catalogue: std::sync::Arc<std::sync::OnceLock<Catalogue>>,
}

impl Workspace {
    pub fn new(root: PathBuf) -> Workspace {
        let cache = Cache::new(Cache::default_root(&root));
        Workspace { root, cache, catalogue: Default::default() }
    }

    /// `$CTKGEN_CATALOGUE`, or `headers/ctk.toml`.
    pub fn catalogue_path(&self) -> PathBuf {
        match std::env::var_os("CTKGEN_CATALOGUE") {
            Some(path) if !path.is_empty() => PathBuf::from(path),
            _ => self.root.join("headers").join("ctk.toml"),
        }
    }

    pub fn catalogue(&self) -> Result<&Catalogue, PipelineError> {
        if let Some(catalogue) = self.catalogue.get() {
            return Ok(catalogue);
        }
        let loaded = Catalogue::load(&self.catalogue_path())?;
        Ok(self.catalogue.get_or_init(|| loaded))
    }

    /// The pinned stand-ins for the system headers the libraries' headers include.
    pub fn system_include_dir(&self) -> PathBuf {
        self.root.join("headers").join("include")
    }

    /// The stand-ins in the subfolders of [`Workspace::system_include_dir`] (the graphics APIs'
    /// types that the extra headers use), as (relative `/`-separated name, file), sorted.
    pub fn graphics_stand_ins(&self) -> Result<Vec<(String, PathBuf)>, PipelineError> {
        let root = self.system_include_dir();
        let mut found = Vec::new();
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            let entries =
                std::fs::read_dir(&dir).map_err(|source| PipelineError::Read { path: dir.clone(), source })?;
            for entry in entries {
                let path = entry.map_err(|source| PipelineError::Read { path: dir.clone(), source })?.path();
                if path.is_dir() {
                    pending.push(path);
                } else if dir != root {
                    let relative = path.strip_prefix(&root).unwrap_or(&path);
                    let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>();
                    found.push((name.join("/"), path));
                }
            }
        }
        found.sort();
        Ok(found)
    }

    /// The package description: `headers/package.toml`, or none (no package-wide modules)
    /// when the file is absent.
    pub fn package(&self) -> Result<ctkgen_ir::PackageConventions, PipelineError> {
        Ok(ctkgen_headers::package_conventions(&self.root.join("headers").join("package.toml"))?)
    }

    /// The folder of library descriptions.
    pub fn libraries_dir(&self) -> PathBuf {
        self.root.join("headers").join("libraries")
    }

    /// Every described library, each after the libraries it depends on, otherwise by name. The
    /// first is the primary one: a lone header is read as it, and it names the package's
    /// shared settings.
    pub fn libraries(&self) -> Result<Vec<Library>, PipelineError> {
        let dir = self.libraries_dir();
        let entries = std::fs::read_dir(&dir).map_err(|source| PipelineError::Read { path: dir.clone(), source })?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| PipelineError::Read { path: dir.clone(), source })?;
            let file = entry.file_name().to_string_lossy().into_owned();
            // `<name>.toml` describes a library; `<name>.<part>.toml` are its other parts.
            if let Some(stem) = file.strip_suffix(".toml").filter(|stem| !stem.contains('.')) {
                names.push(stem.to_string());
            }
        }
        names.sort();
        let mut pending = names.iter().map(|name| self.library(name)).collect::<Result<Vec<_>, _>>()?;
        if pending.is_empty() {
            return Err(PipelineError::NoLibraries { dir });
        }
        let mut ordered: Vec<Library> = Vec::with_capacity(pending.len());
        while !pending.is_empty() {
            let ready = pending.iter().position(|lib| {
                lib.conventions.depends_on.iter().all(|dep| ordered.iter().any(|done| &done.name == dep))
            });
            let Some(index) = ready else {
                let stuck = &pending[0];
                let dependency = stuck
                    .conventions
                    .depends_on
                    .iter()
                    .find(|dep| !ordered.iter().any(|done| &done.name == *dep))
                    .cloned()
                    .unwrap_or_default();
                return Err(PipelineError::BadDependency { library: stuck.name.clone(), dependency, dir });
            };
            ordered.push(pending.remove(index));
        }
        Ok(ordered)
    }

    /// The libraries `names` picks (every one when empty), in [`Workspace::libraries`]' order.
    pub fn chosen_libraries(&self, names: &[String]) -> Result<Vec<Library>, PipelineError> {
        let all = self.libraries()?;
        if let Some(unknown) = names.iter().find(|n| !all.iter().any(|lib| &lib.name == *n)) {
            return Err(PipelineError::UnknownLibrary {
                name: unknown.clone(),
                dir: self.libraries_dir(),
                known: all.iter().map(|lib| lib.name.as_str()).collect::<Vec<_>>().join(", "),
            });
        }
        // A chosen library brings the libraries it depends on: its crate is built on theirs.
        let mut wanted: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        for lib in all.iter().rev() {
            if names.is_empty() || wanted.contains(lib.name.as_str()) {
                wanted.extend(lib.conventions.depends_on.iter().map(String::as_str));
            }
        }
        let wanted: BTreeSet<String> = wanted.into_iter().map(str::to_string).collect();
        Ok(all.into_iter().filter(|lib| names.is_empty() || wanted.contains(&lib.name)).collect())
    }

    /// The primary library (see [`Workspace::libraries`]).
    pub fn primary_library(&self) -> Result<Library, PipelineError> {
        Ok(self.libraries()?.remove(0))
    }

    /// The description of library `name` under `headers/libraries/`.
    pub fn library(&self, name: &str) -> Result<Library, PipelineError> {
        let files = ctkgen_headers::LibraryFiles::new(self.libraries_dir(), name);
        let conventions = files.conventions()?;
        let params = files.optional_part("cython-params")?;
        let cython_params = ctkgen_cython::Overrides::parse(&params)
            .map_err(|source| PipelineError::Overrides { path: files.part_path("cython-params"), source })?;
        let typed = files.optional_part("typed-values")?;
        let cython_params = cython_params
            .with_typed_values(&typed)
            .map_err(|source| PipelineError::Overrides { path: files.part_path("typed-values"), source })?;
        let abi = files.optional_part("cython-abi")?;
        let cython_params = cython_params
            .with_abi(&abi)
            .map_err(|source| PipelineError::Overrides { path: files.part_path("cython-abi"), source })?;
        Ok(Library { name: name.to_string(), conventions, cython_params })
    }

    /// Default output folder for one source: `target/ctkgen/<label>`.
    pub fn default_output(&self, label: &str) -> PathBuf {
        self.root.join("target").join("ctkgen").join(label)
    }
}

/// Where the header comes from.
#[derive(Debug, Clone)]
pub enum HeaderSource {
    /// A CTK from the catalogue: `13.1` (newest patch) or `12.8.1` (exact).
    Ctk(String),
    /// An installed toolkit.
    CudaHome(PathBuf),
    /// Any header file (fixtures).
    Header(PathBuf),
}

/// How to read the header.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    pub target: String,
    pub modes: Vec<LanguageMode>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            target: ctkgen_clang::DEFAULT_TARGET.to_string(),
            modes: vec![LanguageMode::C11, LanguageMode::Cxx17],
        }
    }
}

/// The header files of a source for the primary library ([`Workspace::primary_library`]).
pub fn resolve_headers(ws: &Workspace, source: &HeaderSource) -> Result<HeaderSet, PipelineError> {
    resolve_library_headers(ws, source, &ws.primary_library()?)
}

/// The header files of `library` in a source, fetched and verified where they come from the
/// catalogue. A CTK or an installed toolkit also brings the library's other headers its
/// conventions name (every one for a catalogue release, those present for a toolkit); a lone
/// header is read as the library's main header, alone.
pub fn resolve_library_headers(
    ws: &Workspace,
    source: &HeaderSource,
    library: &Library,
) -> Result<HeaderSet, PipelineError> {
    let conventions = &library.conventions;
    let extra = &conventions.extra_headers;
    let names = ctkgen_headers::LibraryHeaders {
        main: conventions.header.clone(),
        typedefs: conventions.typedefs_header.clone(),
        version_macro: conventions.version_macro.clone(),
    };
    let mut headers = match source {
        HeaderSource::Ctk(query) => {
            let catalogue = ws.catalogue()?;
            let release = catalogue.resolve(query)?;
            let catalogued: std::collections::BTreeSet<&String> =
                release.headers.keys().chain(release.companions.iter().flat_map(|c| c.headers.keys())).collect();
            // Checked before fetching, so an old catalogue fails without a download.
            let needed = std::iter::once(&conventions.header)
                .chain(extra.iter().map(|e| &e.header))
                .chain(&conventions.includes);
            if let Some(missing) = needed.into_iter().find(|h| !catalogued.contains(h)) {
                return Err(PipelineError::MissingExtraHeader {
                    ctk: release.ctk.clone(),
                    header: missing.clone(),
                    catalogue: ws.catalogue_path(),
                });
            }
            let mut headers = ctkgen_headers::fetch(release, &ws.cache, &names)?;
            let has = |name: &String| catalogued.contains(name);
            headers.extra_headers = extra_header_paths(&headers.include_dir, extra, has);
            if !extra.is_empty() {
                headers.stand_ins = ws.graphics_stand_ins()?;
            }
            if let Some(archive) = &conventions.static_library {
                headers.static_library = ctkgen_headers::fetch_static_library(release, &ws.cache, &archive.file)?;
                if headers.static_library.is_none() {
                    headers.library_wheel_requirement = library_wheel_requirement(ws, release, &archive.wheel)?;
                }
            }
            headers
        }
        HeaderSource::CudaHome(dir) => {
            let include_dir = dir.join("include");
            if !include_dir.join(&conventions.header).is_file() && include_dir.is_dir() {
                return Err(PipelineError::MissingLibraryHeader {
                    dir: include_dir,
                    header: conventions.header.clone(),
                    library: library.name.clone(),
                });
            }
            let mut headers = ctkgen_headers::from_cuda_home(dir, &names)?;
            let present = |name: &String| include_dir.join(name).is_file();
            headers.extra_headers = extra_header_paths(&headers.include_dir, extra, present);
            if !headers.extra_headers.is_empty() {
                headers.stand_ins = ws.graphics_stand_ins()?;
            }
            // The toolkit's own archive, where its library folders have one.
            if let Some(archive) = &conventions.static_library {
                headers.static_library =
                    conventions.search.home_dirs.iter().map(|d| dir.join(d).join(&archive.file)).find(|p| p.is_file());
            }
            headers
        }
        HeaderSource::Header(path) => {
            if path.is_dir() {
                return Err(PipelineError::HeaderIsFolder { path: path.clone() });
            }
            if !path.is_file() {
                return Err(PipelineError::MissingHeader { path: path.clone() });
            }
            HeaderSet {
                include_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
                main_header: path.clone(),
                typedefs_header: None,
                ctk: None,
                cuda_version: None,
                catalogued: None,
                extra_headers: Vec::new(),
                stand_ins: Vec::new(),
                included: Vec::new(),
                version_macro: names.version_macro.clone(),
                per_thread_macros: Default::default(),
                entry_point_typedef: None,
                static_library: None,
                library_wheel_requirement: None,
            }
        }
    };
    if !matches!(source, HeaderSource::Header(_)) {
        let include_dir = headers.include_dir.clone();
        headers.included = conventions
            .includes
            .iter()
            .map(|name| (name.clone(), include_dir.join(name)))
            .filter(|(_, path)| path.is_file())
            .collect();
    }
    headers.per_thread_macros = conventions.per_thread.as_ref().map(|p| p.macros.clone()).unwrap_or_default();
    headers.entry_point_typedef = conventions.entry_point_typedef.clone();
    Ok(headers)
}

/// The requirement of the wheel of `release` that the toolkit meta-package's `extra` names (the
/// catalogue's companion of that extra, else the release's main wheel when the primary library's
/// first wheel is of that extra), for any wheel of the release's major.minor: `None` when the
/// release has no such wheel.
fn library_wheel_requirement(
    ws: &Workspace,
    release: &ctkgen_headers::Release,
    extra: &str,
) -> Result<Option<String>, PipelineError> {
    let main_extra = ws.primary_library()?.conventions.wheels.first().map(|w| w.extra.clone());
    let package = match release.companions.iter().find(|c| c.extra == extra) {
        Some(companion) => &companion.package,
        None if main_extra.as_deref() == Some(extra) => &release.package,
        None => return Ok(None),
    };
    let minor: Vec<&str> = release.ctk.split('.').take(2).collect();
    Ok(Some(format!("{package}=={}.*", minor.join("."))))
}

/// The extra headers of `include_dir` that `has` says are there, in the conventions' order.
fn extra_header_paths(
    include_dir: &Path,
    extra: &[ctkgen_ir::ExtraHeader],
    has: impl Fn(&String) -> bool,
) -> Vec<ctkgen_headers::ExtraHeaderPath> {
    extra
        .iter()
        .filter(|e| has(&e.header))
        .map(|e| ctkgen_headers::ExtraHeaderPath {
            header: include_dir.join(&e.header),
            typedefs: e.typedefs.as_ref().filter(|t| has(t)).map(|t| include_dir.join(t)),
            requires: e.requires.clone(),
        })
        .collect()
}

/// A short name for a source, used for default output folders: the CTK release or file stem.
pub fn source_label(headers: &HeaderSet) -> String {
    match &headers.ctk {
        Some(ctk) => ctk.clone(),
        None => {
            headers.main_header.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "header".into())
        }
    }
}

/// Opens libclang ahead of [`read_api`], so that the opening can overlap other work. A failure
/// is left for `read_api` to report.
pub fn preload_libclang(ws: &Workspace) {
    if let Ok(libclang) = locate_libclang(ws) {
        let _ = libclang_version(&libclang);
    }
}

/// The libclang this workspace parses with: `LIBCLANG_PATH`, the system's, or the pinned wheel.
pub fn locate_libclang(ws: &Workspace) -> Result<PathBuf, PipelineError> {
    Ok(ctkgen_headers::locate_libclang(&ws.cache)?)
}

/// The version string of the libclang at `path`, loading it if need be.
pub fn libclang_version(path: &Path) -> Result<String, PipelineError> {
    Ok(ctkgen_clang::libclang_version(path)?)
}

/// For a process that parses nothing more: hands libclang's clean pages back to the system, as
/// they are most of its resident memory while the emitters run. Returns the bytes released.
pub fn release_libclang_pages() -> usize {
    ctkgen_clang::release_libclang_pages()
}

/// Rebuilds the catalogue file from the toolkit meta-package on the package index, reporting
/// progress line by line: every described library's wheels and headers. The primary library's
/// first wheel is each release's main wheel, and must carry its main and typedef headers.
pub fn refresh_catalogue(ws: &Workspace, log: &mut dyn FnMut(&str)) -> Result<Catalogue, PipelineError> {
    let pip = ctkgen_headers::Pip::from_env();
    let libraries = ws.libraries()?;
    let primary = &libraries[0].conventions;
    let mut plan = ctkgen_headers::RefreshPlan {
        wheels: Vec::new(),
        required: std::iter::once(primary.header.clone()).chain(primary.typedefs_header.clone()).collect(),
        optional: Vec::new(),
        static_libraries: Vec::new(),
    };
    for conventions in libraries.iter().map(|l| &l.conventions) {
        if let Some(archive) = &conventions.static_library {
            plan.static_libraries.push((archive.wheel.clone(), archive.file.clone()));
        }
        for wheel in &conventions.wheels {
            let entry = (wheel.extra.clone(), wheel.package.clone());
            if !plan.wheels.contains(&entry) {
                plan.wheels.push(entry);
            }
        }
        plan.optional.extend(conventions.header_files().into_iter().filter(|h| !plan.required.contains(h)));
    }
    Ok(ctkgen_headers::refresh_catalogue(&ws.catalogue_path(), &pip, &plan, log)?)
}

/// Reads the header set into the model.
pub fn read_api(ws: &Workspace, headers: &HeaderSet, options: &ReadOptions) -> Result<Api, PipelineError> {
    read_api_observed(ws, headers, options, || {})
}

/// [`read_api`], calling `parsed` once libclang has read every language mode and before the IR
/// passes run over the readings (so that a benchmark can time the two apart).
pub fn read_api_observed(
    ws: &Workspace,
    headers: &HeaderSet,
    options: &ReadOptions,
    parsed: impl FnOnce(),
) -> Result<Api, PipelineError> {
    let parse = parse_options(ws, headers, options)?;
    let readings = ctkgen_clang::read_modes(&headers.main_header, &parse)?;
    parsed();
    Ok(readings.into_api()?)
}

/// [`read_api`] for a process that parses nothing more: once libclang has read every mode, its
/// clean pages are handed back ([`release_libclang_pages`]) on a second thread while the IR passes
/// run, so the release is done before the emitters reach their peak and costs no time.
pub fn read_api_last(ws: &Workspace, headers: &HeaderSet, options: &ReadOptions) -> Result<Api, PipelineError> {
    let parse = parse_options(ws, headers, options)?;
    let readings = ctkgen_clang::read_modes(&headers.main_header, &parse)?;
    let (api, _) = rayon::join(|| readings.into_api(), release_libclang_pages);
    Ok(api?)
}

/// How libclang is asked to read `headers`.
pub fn parse_options(
    ws: &Workspace,
    headers: &HeaderSet,
    options: &ReadOptions,
) -> Result<ctkgen_clang::ParseOptions, PipelineError> {
    let libclang = ctkgen_headers::locate_libclang(&ws.cache)?;
    // A system copy that old is passed over when locating; one named by LIBCLANG_PATH is refused.
    let version = libclang_version(&libclang)?;
    if !matches!(clang_major(&version), Some(major) if major >= ctkgen_headers::LIBCLANG_OLDEST_MAJOR) {
        return Err(PipelineError::LibclangTooOld {
            path: libclang,
            version,
            oldest: ctkgen_headers::LIBCLANG_OLDEST_MAJOR,
        });
    }
    let mut parse = ctkgen_clang::ParseOptions::new(libclang, ws.system_include_dir());
    parse.target = options.target.clone();
    parse.modes = options.modes.clone();
    parse.include_dirs = vec![headers.include_dir.clone()];
    parse.typedefs_header = headers.typedefs_header.clone();
    parse.extra_headers = headers
        .extra_headers
        .iter()
        .map(|e| ctkgen_clang::ExtraHeaderFile {
            header: e.header.clone(),
            typedefs: e.typedefs.clone(),
            requires: e.requires.clone(),
        })
        .collect();
    parse.ctk = headers.ctk.clone();
    parse.version_macro = headers.version_macro.clone();
    parse.per_thread_macros = headers.per_thread_macros.clone();
    parse.entry_point_typedef = headers.entry_point_typedef.clone();
    Ok(parse)
}

/// The major version in libclang's version string (`Ubuntu clang version 16.0.6 (...)` -> 16).
fn clang_major(version: &str) -> Option<u32> {
    let (_, after) = version.split_once("version ")?;
    after.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Which emitters to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Languages {
    Cython,
    Rust,
    All,
}

impl Languages {
    pub fn cython(self) -> bool {
        matches!(self, Languages::Cython | Languages::All)
    }
    pub fn rust(self) -> bool {
        matches!(self, Languages::Rust | Languages::All)
    }
}

/// Refuses a Python package name the Cython emitter would refuse, before any header is read.
pub fn check_python_package(name: &str) -> Result<(), PipelineError> {
    Ok(ctkgen_cython::check_package_name(name)?)
}

#[derive(Debug, Clone)]
pub struct GenerateOptions {
    pub languages: Languages,
    pub python_package: String,
    /// Reproduce the defective inline layout for over-aligned records (negative control only).
    pub legacy_inline_layout: bool,
    /// Python integer paths refuse non-integral floats instead of truncating them.
    pub strict_integers: bool,
    /// The command line recorded in every file's first line.
    pub command: String,
    /// Package-wide modules beside the library modules (`headers/package.toml`).
    pub package: ctkgen_ir::PackageConventions,
}

/// One library to emit: its description, the headers it was read from and their model.
#[derive(Debug, Clone, Copy)]
pub struct BoundLibrary<'a> {
    pub library: &'a Library,
    pub headers: &'a HeaderSet,
    pub api: &'a Api,
}

/// Runs the emitters over every library; Cython output is one package under `python/` with a
/// module per library, Rust output one crate per library under `rust/<crate>/`. For a CTK the
/// header files travel with the Python package so it builds against exactly these headers.
pub fn emit(libraries: &[BoundLibrary<'_>], options: &GenerateOptions) -> Result<Vec<OutputFile>, PipelineError> {
    use rayon::prelude::*;
    // Each comment is parsed once, with its library's doc aliases, on every thread: the Cython
    // classification and both renderers read that parse. The Rust emitter alone reads each
    // comment once anyway, and parses it as it renders.
    let parsed: Vec<ctkgen_ir::doc::ParsedDocs> = libraries
        .iter()
        .map(|l| {
            let aliases = &l.library.conventions.doc_aliases;
            if !options.languages.cython() {
                return ctkgen_ir::doc::ParsedDocs::unparsed(aliases);
            }
            let comments = ctkgen_ir::doc::doc_comments(l.api);
            ctkgen_ir::doc::ParsedDocs::new(
                aliases,
                // Small pieces: the long comments (functions') come first, and halves would leave
                // them on one thread.
                comments
                    .par_iter()
                    .with_max_len(16)
                    .map(|&(_, raw)| (raw, ctkgen_ir::doc::Doc::parse(raw, aliases)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    // The two emitters are independent: run them side by side.
    let (cython, rust) = rayon::join(
        || if options.languages.cython() { emit_cython(libraries, options, &parsed) } else { Ok(Vec::new()) },
        || {
            if !options.languages.rust() {
                return Ok(Vec::new());
            }
            let crates: Vec<Vec<OutputFile>> = libraries
                .par_iter()
                .zip(&parsed)
                .map(|(l, parsed)| rust::emit_rust(l, libraries, options, parsed))
                .collect::<Result<_, PipelineError>>()?;
            Ok::<_, PipelineError>(crates.into_iter().flatten().collect())
        },
    );
    // The doc parses are freed while the headers are read: thousands of small blocks.
    let (headers_copied, ()) = rayon::join(
        || if options.languages.cython() { package_headers(libraries) } else { Ok(Vec::new()) },
        move || drop(parsed),
    );
    let mut files = cython?;
    files.extend(rust?);
    files.extend(headers_copied?);
    files.sort();
    files.dedup();
    Ok(files)
}

/// The header files that travel with the Python package, so it builds against exactly these.
/// Read only once the emitters' working memory is gone: this is the run's peak.
fn package_headers(libraries: &[BoundLibrary<'_>]) -> Result<Vec<OutputFile>, PipelineError> {
    let mut files = Vec::new();
    for headers in libraries.iter().map(|l| l.headers) {
        let extra = headers.extra_headers.iter().flat_map(|e| std::iter::once(&e.header).chain(&e.typedefs));
        for header in std::iter::once(&headers.main_header).chain(headers.typedefs_header.as_ref()).chain(extra) {
            let contents = std::fs::read_to_string(header)
                .map_err(|source| PipelineError::Read { path: header.clone(), source })?;
            let name = header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            files.push(OutputFile::text(format!("python/include/{name}"), contents));
        }
        // The extra headers include the graphics APIs' headers, which a build host may lack;
        // the included ones keep their subfolder (`sub/defines.h`).
        for (name, path) in headers.stand_ins.iter().chain(&headers.included) {
            let contents =
                std::fs::read_to_string(path).map_err(|source| PipelineError::Read { path: path.clone(), source })?;
            files.push(OutputFile::text(format!("python/include/{name}"), contents));
        }
    }
    // The static archives the loader modules link, as they are.
    for library in libraries {
        if let Some((archive, path)) = packaged_archive(library) {
            let bytes = std::fs::read(path).map_err(|source| PipelineError::Read { path: path.clone(), source })?;
            files.push(OutputFile::binary(format!("python/{archive}"), bytes));
        }
    }
    Ok(files)
}

/// Where the Python package carries `library`'s static archive (relative to `python/`), and the
/// file it is copied from; `None` when its headers came without one.
fn packaged_archive<'a>(library: &BoundLibrary<'a>) -> Option<(String, &'a PathBuf)> {
    let archive = library.library.conventions.static_library.as_ref()?;
    let path = library.headers.static_library.as_ref()?;
    Some((format!("lib/{}", archive.file), path))
}

fn emit_cython(
    libraries: &[BoundLibrary<'_>],
    options: &GenerateOptions,
    parsed: &[ctkgen_ir::doc::ParsedDocs],
) -> Result<Vec<OutputFile>, PipelineError> {
    let per_library: Vec<ctkgen_cython::CythonOptions> = libraries
        .iter()
        .map(|l| ctkgen_cython::CythonOptions {
            python_package: options.python_package.clone(),
            command: options.command.clone(),
            legacy_inline_layout: options.legacy_inline_layout,
            strict_integers: options.strict_integers,
            package: options.package.clone(),
            // Libraries come dependencies first (the order they were chosen in).
            dependencies: (l.library.conventions.depends_on.iter())
                .filter_map(|name| libraries.iter().find(|other| &other.library.name == name))
                .map(|other| other.library.conventions.python.module.clone())
                .collect(),
            packaging: ctkgen_cython::LibraryPackaging {
                static_library: packaged_archive(l).map(|(archive, _)| archive),
                requires: l.headers.library_wheel_requirement.iter().cloned().collect(),
            },
            ..ctkgen_cython::CythonOptions::new(l.library.conventions.clone(), l.library.cython_params.clone())
        })
        .collect();
    let parts: Vec<(&Api, &ctkgen_cython::CythonOptions, &ctkgen_ir::doc::ParsedDocs)> =
        libraries.iter().zip(&per_library).zip(parsed).map(|((l, o), p)| (l.api, o, p)).collect();
    Ok(ctkgen_cython::emit_package(&parts)?)
}

#[cfg(test)]
mod tests {
    use super::{clang_major, Workspace};

    #[test]
    fn a_chosen_library_brings_the_libraries_it_depends_on() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("headers/libraries");
        std::fs::create_dir_all(&dir).unwrap();
        let described = |name: &str| {
            let path =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../headers/libraries/{name}.toml"));
            std::fs::read_to_string(path).unwrap()
        };
        std::fs::write(dir.join("base.toml"), described("cuda-driver")).unwrap();
        let user = described("nvrtc").replacen("\n[", "\ndepends_on = [\"base\"]\n\n[", 1);
        std::fs::write(dir.join("user.toml"), user).unwrap();
        std::fs::write(dir.join("other.toml"), described("nvrtc")).unwrap();
        let ws = Workspace::new(root.path().to_path_buf());
        let names = |chosen: &[&str]| -> Vec<String> {
            let chosen: Vec<String> = chosen.iter().map(|n| n.to_string()).collect();
            ws.chosen_libraries(&chosen).unwrap().into_iter().map(|l| l.name).collect()
        };
        assert_eq!(names(&["user"]), ["base", "user"]);
        assert_eq!(names(&["base"]), ["base"]);
        assert_eq!(names(&["other"]), ["other"]);
        assert_eq!(names(&[]), ["base", "other", "user"]);
    }

    #[test]
    fn reads_the_major_version_of_libclang() {
        assert_eq!(clang_major("clang version 18.1.1"), Some(18));
        assert_eq!(clang_major("Ubuntu clang version 16.0.6 (23ubuntu4)"), Some(16));
        assert_eq!(clang_major("Apple clang version 15.0.0 (clang-1500.3.9.4)"), Some(15));
        assert_eq!(clang_major("something else"), None);
    }
}
