//! Reads a library's main header, and the extra headers read with it, with libclang into the
//! ctkgen model.
//!
//! This crate is the only code that touches libclang (through clang-sys, loaded at run time).
//! The header is read once per language mode (C11 and C++17 by default) against pinned
//! stand-ins for the system headers and an explicit target triple, so the result does not
//! depend on the host. Any clang error is fatal, and the modes must agree on every layout.

mod build;
mod comments;
mod libclang;
mod macros;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctkgen_ir as ir;
use ir::LanguageMode;
use sha2::{Digest, Sha256};

pub use comments::clean_comment;

/// How to read a header.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// The libclang shared library to load.
    pub libclang: PathBuf,
    /// Target triple, e.g. `x86_64-unknown-linux-gnu`.
    pub target: String,
    /// Modes to read the header in; the first one's declarations become the model.
    pub modes: Vec<LanguageMode>,
    /// The folder of pinned stand-ins: `stdlib.h`, `stdint.h` and `stddef.h` at its top (the
    /// C library's, whose typedefs are `system`), and in subfolders the graphics APIs' headers
    /// the extra headers include (`GL/gl.h`, ...), whose typedefs the model keeps as the
    /// library's own (with their header) when a declaration uses them.
    pub system_include_dir: PathBuf,
    /// Extra `-I` folders (the CTK's include folder).
    pub include_dirs: Vec<PathBuf>,
    /// The header of entry-point typedefs, read for the `PFN_*_v<N>` versions of each function.
    pub typedefs_header: Option<PathBuf>,
    /// Further headers read after the main one in the same translation unit, in this order.
    pub extra_headers: Vec<ExtraHeaderFile>,
    /// The CTK release, recorded in the provenance.
    pub ctk: Option<String>,
    /// The macro whose value is the version the header declares (recorded in the provenance).
    pub version_macro: Option<String>,
    /// Function-like macros that name a function's per-thread-default-stream variant
    /// (`#define f WRAP(f_v2)`), each with the suffix its symbol takes.
    pub per_thread_macros: std::collections::BTreeMap<String, String>,
    /// How the typedef headers name each signature of an entry point, as a pattern
    /// (`PFN_{name}_v{version}`); their typedefs are not read without it.
    pub entry_point_typedef: Option<String>,
}

pub const DEFAULT_TARGET: &str = "x86_64-unknown-linux-gnu";
pub const SUPPORTED_TARGETS: [&str; 2] = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

impl ParseOptions {
    pub fn new(libclang: PathBuf, system_include_dir: PathBuf) -> ParseOptions {
        ParseOptions {
            libclang,
            target: DEFAULT_TARGET.to_string(),
            modes: vec![LanguageMode::C11, LanguageMode::Cxx17],
            system_include_dir,
            include_dirs: Vec::new(),
            typedefs_header: None,
            extra_headers: Vec::new(),
            ctk: None,
            version_macro: None,
            per_thread_macros: std::collections::BTreeMap::new(),
            entry_point_typedef: None,
        }
    }
}

/// One further header to read (see [`ParseOptions::extra_headers`]).
#[derive(Debug, Clone)]
pub struct ExtraHeaderFile {
    pub header: PathBuf,
    /// Its header of `PFN_*_v<N>` typedefs.
    pub typedefs: Option<PathBuf>,
    /// What to include before it (as `#include <...>` names), because it needs but does not
    /// include them.
    pub requires: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("cannot read header {path}")]
    Read { path: String, source: std::io::Error },
    #[error("cannot load libclang from {0}")]
    Load(String),
    #[error("{path}: libclang could not parse the header: {message}")]
    Clang { path: String, message: String },
    #[error("{location}: {message} (read as {mode})")]
    Diagnostic { location: String, message: String, mode: LanguageMode },
    #[error("language mode {0} compiles alignment specifiers out; read headers as c11, c17, c++11 or c++17")]
    ModeDropsAlignment(LanguageMode),
    #[error("{location}: an alignment attribute is compiled out when read as {mode}")]
    AlignmentCompiledOut { location: String, mode: LanguageMode },
    #[error("unsupported target {0}; supported: x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu")]
    Target(String),
    #[error("{0} declares nothing: no functions, records, enums, typedefs or constants")]
    Empty(String),
    #[error("entry-point typedef pattern {0:?} needs `{{name}}` before `{{version}}`, with text between them")]
    EntryPointTypedefPattern(String),
    #[error("no language mode given")]
    NoMode,
    #[error("{location}: unsupported construct: {what}")]
    Unsupported { location: String, what: String },
    #[error("{location}: libclang gives no layout for {name} (code {code})")]
    Layout { location: String, name: String, code: i64 },
    #[error("{name}: layout differs between {first} and {second}: {detail}")]
    ModesDisagree { name: String, first: LanguageMode, second: LanguageMode, detail: String },
}

/// The libclang version string, once the library is loaded.
pub fn libclang_version(libclang: &Path) -> Result<String, ParseError> {
    libclang::ensure_loaded(libclang).map_err(ParseError::Load)?;
    Ok(libclang::clang_version())
}

/// For a process that will parse nothing more: takes libclang's unmodified code and read-only
/// data pages out of its resident memory (see `libclang::release_clean_pages`), since they
/// are the larger part of it while the emitters run. Returns the bytes released.
pub fn release_libclang_pages() -> usize {
    libclang::release_clean_pages()
}

/// Reads `header` in every mode of `options` and returns the checked model.
pub fn parse_header(header: &Path, options: &ParseOptions) -> Result<ir::Api, ParseError> {
    read_modes(header, options)?.into_api()
}

/// What libclang read from a header in each language mode, before the IR passes (layout
/// comparison between modes, merging, entry-point versions, provenance, ordering).
pub struct ModeReadings<'o> {
    header: &'o Path,
    options: &'o ParseOptions,
    /// The bytes of the main header, then of each extra header.
    texts: Vec<Vec<u8>>,
    results: Vec<Result<build::ModeModel, ParseError>>,
}

/// The first half of [`parse_header`]: the libclang parse of every mode, side by side.
pub fn read_modes<'o>(header: &'o Path, options: &'o ParseOptions) -> Result<ModeReadings<'o>, ParseError> {
    let mut texts = Vec::with_capacity(1 + options.extra_headers.len());
    for path in std::iter::once(header).chain(options.extra_headers.iter().map(|e| e.header.as_path())) {
        let display = path.display().to_string();
        texts.push(std::fs::read(path).map_err(|source| ParseError::Read { path: display, source })?);
    }
    if !SUPPORTED_TARGETS.contains(&options.target.as_str()) {
        return Err(ParseError::Target(options.target.clone()));
    }
    if options.modes.is_empty() {
        return Err(ParseError::NoMode);
    }
    if let Some(mode) = options.modes.iter().find(|m| !m.has_alignment_specifier()) {
        return Err(ParseError::ModeDropsAlignment(*mode));
    }
    libclang::ensure_loaded(&options.libclang).map_err(ParseError::Load)?;

    // Each mode is an independent parse; run them side by side.
    let text = texts.as_slice();
    let results: Vec<Result<build::ModeModel, ParseError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = options
            .modes
            .iter()
            .map(|&mode| {
                scope.spawn(move || {
                    libclang::ensure_loaded(&options.libclang).map_err(ParseError::Load)?;
                    read_mode(header, text, options, mode)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(ParseError::Load("parser thread panicked".into()))))
            .collect()
    });
    release_freed_memory();
    Ok(ModeReadings { header, options, texts, results })
}

impl ModeReadings<'_> {
    /// The second half of [`parse_header`]: the IR passes over the modes' readings.
    pub fn into_api(self) -> Result<ir::Api, ParseError> {
        let ModeReadings { header, options, texts, results } = self;
        let display = header.display().to_string();
        let primary_mode = options.modes[0];
        let mut models = Vec::new();
        for (&mode, result) in options.modes.iter().zip(results) {
            models.push((mode, result?));
        }
        let (_, primary) = &models[0];
        for (mode, other) in &models[1..] {
            compare_layouts(primary, primary_mode, other, *mode)?;
        }

        let mut models = models.into_iter();
        let (_, mut model) = models.next().expect("one mode at least");
        // Each mode contributes the alignment spellings it saw.
        for (_, other) in models {
            for record in &mut model.records {
                if let Some(o) = other.records.iter().find(|r| r.name == record.name) {
                    record.explicit_alignments.extend(o.explicit_alignments.iter().cloned());
                    record.explicit_alignments.sort();
                }
            }
            for typedef in &mut model.typedefs {
                if let Some(o) = other.typedefs.iter().find(|t| t.name == typedef.name) {
                    typedef.explicit_alignments.extend(o.explicit_alignments.iter().cloned());
                    typedef.explicit_alignments.sort();
                }
            }
        }

        let header_name =
            header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| display.clone());
        let mut api = assemble(model, &options.per_thread_macros);
        if api.functions.is_empty()
            && api.records.is_empty()
            && api.enums.is_empty()
            && api.constants.is_empty()
            && api.typedefs.iter().all(|t| t.system)
        {
            return Err(ParseError::Empty(header_name));
        }
        let extra_headers = options
            .extra_headers
            .iter()
            .zip(&texts[1..])
            .map(|(extra, bytes)| ir::ExtraHeaderRead {
                header: file_name(&extra.header),
                sha256: format!("{:x}", Sha256::digest(bytes)),
                requires: extra.requires.clone(),
            })
            .collect();
        api.provenance = ir::Provenance {
            header: header_name,
            header_sha256: format!("{:x}", Sha256::digest(&texts[0])),
            ctk: options.ctk.clone(),
            cuda_version: api.constants.iter().find(|c| Some(&c.name) == options.version_macro.as_ref()).and_then(
                |c| match c.value {
                    ir::ConstantValue::Int(v) => u32::try_from(v).ok(),
                    _ => None,
                },
            ),
            target: options.target.clone(),
            language_modes: options.modes.clone(),
            libclang_version: libclang::clang_version(),
            extra_headers,
        };
        api.sort();
        Ok(api)
    }
}

/// Hands the memory the translation units freed back to the system. Each parser thread
/// allocated from its own malloc arena, which later threads (the emitters) do not reuse, so
/// without this the process keeps both parses resident while it emits.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A path's file name, for messages and the model (which hold no paths).
fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// The translation unit that reads the main header and every extra one, in order: each
/// typedef header after its header (it includes that header too), each header after what it
/// requires. Every one of them is guarded against a second inclusion.
fn umbrella_source(header: &Path, options: &ParseOptions) -> String {
    let mut out = String::from("/* ctkgen: the headers read together, in order. */\n");
    let include = |out: &mut String, path: &Path| out.push_str(&format!("#include \"{}\"\n", path.display()));
    include(&mut out, options.typedefs_header.as_deref().unwrap_or(header));
    for extra in &options.extra_headers {
        for required in &extra.requires {
            out.push_str(&format!("#include <{required}>\n"));
        }
        include(&mut out, &extra.header);
        if let Some(typedefs) = &extra.typedefs {
            include(&mut out, typedefs);
        }
    }
    out
}

fn read_mode(
    header: &Path,
    texts: &[Vec<u8>],
    options: &ParseOptions,
    mode: LanguageMode,
) -> Result<build::ModeModel, ParseError> {
    let display = header.display().to_string();
    let mut args = vec![
        "-x".to_string(),
        if mode.is_cxx() { "c++" } else { "c" }.to_string(),
        format!("-std={}", mode.std_flag()),
        format!("--target={}", options.target),
        // Only the pinned stand-ins: the host's C library and clang's resource headers must
        // not influence the parse.
        "-nostdinc".to_string(),
        "-nostdinc++".to_string(),
        "-isystem".to_string(),
        options.system_include_dir.display().to_string(),
        "-fno-ms-extensions".to_string(),
    ];
    for dir in &options.include_dirs {
        args.push(format!("-I{}", dir.display()));
    }
    if let Some(dir) = header.parent() {
        args.push(format!("-I{}", if dir.as_os_str().is_empty() { Path::new(".") } else { dir }.display()));
    }
    // The typedef header includes the main one, so reading it covers both files in one parse; extra
    // headers are read through a source that includes them all, held in memory only.
    let index = libclang::Index::new();
    let tu = if options.extra_headers.is_empty() {
        let main_file = options.typedefs_header.as_deref().unwrap_or(header);
        libclang::TranslationUnit::parse(&index, main_file, None, &args)
    } else {
        let umbrella = header.with_file_name(UMBRELLA_FILE);
        libclang::TranslationUnit::parse(&index, &umbrella, Some(&umbrella_source(header, options)), &args)
    }
    .map_err(|message| ParseError::Clang { path: display.clone(), message })?;
    let diagnostics = tu.diagnostics();
    if let Some(d) = diagnostics.iter().find(|d| d.severity >= clang_sys::CXDiagnostic_Error) {
        let file = Path::new(&d.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let location = if file.is_empty() { display.clone() } else { format!("{file}:{}:{}", d.line, d.column) };
        return Err(ParseError::Diagnostic { location, message: d.message.clone(), mode });
    }
    let primary = options.modes.first() == Some(&mode);
    let mut driver_headers = vec![(header.to_path_buf(), None)];
    driver_headers.extend(options.extra_headers.iter().map(|e| (e.header.clone(), Some(file_name(&e.header)))));
    let typedef_headers: Vec<&Path> = options
        .typedefs_header
        .iter()
        .chain(options.extra_headers.iter().filter_map(|e| e.typedefs.as_ref()))
        .map(PathBuf::as_path)
        .collect();
    let entry_points = match &options.entry_point_typedef {
        Some(pattern) => Some(build::EntryPointTypedefs {
            form: ir::EntryPointTypedef::parse(pattern)
                .ok_or_else(|| ParseError::EntryPointTypedefPattern(pattern.clone()))?,
            per_thread_suffixes: options.per_thread_macros.values().cloned().collect(),
        }),
        None => None,
    };
    let builder = build::Builder::new(
        &tu,
        mode,
        &driver_headers,
        &typedef_headers,
        &options.system_include_dir,
        primary,
        entry_points,
    );
    let mut model = builder.build()?;
    let headers: Vec<&Path> = driver_headers.iter().map(|(path, _)| path.as_path()).collect();
    let skipped = skipped_in(&tu, &headers);
    check_skipped_alignments(&skipped, &model, mode)?;
    if primary {
        // Macros are read in the primary mode only.
        drop_undefined_macros(texts, &skipped, &mut model);
        model.per_thread_macros = per_thread_renames(&skipped, &options.per_thread_macros);
    }
    Ok(model)
}

/// The name the in-memory source of [`umbrella_source`] goes by, in the main header's folder.
const UMBRELLA_FILE: &str = "ctkgen-headers-read-together.h";

/// A preprocessor branch of one of the driver headers that this mode left out.
struct Skipped {
    /// Which driver header: 0 for the main one, then the extra headers in order.
    file: usize,
    /// Byte offsets of the range.
    start: u32,
    end: u32,
    /// `file:line:column` of its start.
    location: String,
    tokens: Vec<String>,
}

/// The driver headers' skipped ranges, located and tokenized once for every check that reads them.
fn skipped_in(tu: &libclang::TranslationUnit, headers: &[&Path]) -> Vec<Skipped> {
    let canonical: Vec<PathBuf> = headers.iter().map(|h| build::canonical(h)).collect();
    let mut out = Vec::new();
    for range in tu.skipped_ranges() {
        let (file, line, column) = range.start().spelling();
        let path = build::canonical(Path::new(&file));
        let Some(index) = canonical.iter().position(|h| *h == path) else {
            continue;
        };
        let name = Path::new(&file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(file);
        out.push(Skipped {
            file: index,
            start: range.start().offset(),
            end: range.end().offset(),
            location: format!("{name}:{line}:{column}"),
            tokens: tu.tokens(range),
        });
    }
    out
}

/// An alignment attribute inside an inactive `#if` branch of a record that has no alignment
/// in this mode means the mode silently drops it.
fn check_skipped_alignments(
    skipped: &[Skipped],
    model: &build::ModeModel,
    mode: LanguageMode,
) -> Result<(), ParseError> {
    for range in skipped {
        if !range.tokens.iter().any(|t| matches!(t.as_str(), "alignas" | "_Alignas" | "aligned" | "__aligned__")) {
            continue;
        }
        let enclosing = model
            .record_spans
            .iter()
            .filter(|span| span.file == range.file && span.start <= range.start && range.end <= span.end)
            .min_by_key(|span| span.end - span.start)
            .map(|span| &span.record);
        let aligned = enclosing
            .and_then(|name| model.records.iter().find(|r| &r.name == name))
            .is_some_and(|r| !r.explicit_alignments.is_empty());
        if enclosing.is_some() && !aligned {
            return Err(ParseError::AlignmentCompiledOut { location: range.location.clone(), mode });
        }
    }
    Ok(())
}

/// Removes macros that an active `#undef` later in the same header takes back: they do not
/// exist for code that includes the header. `texts` are the driver headers' bytes, in order.
fn drop_undefined_macros(texts: &[Vec<u8>], skipped: &[Skipped], model: &mut build::ModeModel) {
    let mut undefs: Vec<(usize, String, u32)> = Vec::new();
    for (file, text) in texts.iter().enumerate() {
        undefs.extend(undefs_in(file, text, skipped));
    }
    model
        .macros
        .retain(|m| !undefs.iter().any(|(file, name, at)| *file == m.file && name == &m.name && *at > m.offset));
}

/// The active `#undef`s of one header: (file, name, byte offset).
fn undefs_in(file: usize, text: &[u8], skipped: &[Skipped]) -> Vec<(usize, String, u32)> {
    let mut undefs = Vec::new();
    let mut offset = 0u32;
    for line in text.split(|b| *b == b'\n') {
        // Only a line whose first non-blank character is `#`, or may be (a non-ASCII one, which
        // could be Unicode white space), can hold a directive.
        let first = line.iter().find(|b| !matches!(b, b'\t'..=b'\r' | b' '));
        if !first.is_some_and(|&b| b == b'#' || !b.is_ascii()) {
            offset += line.len() as u32 + 1;
            continue;
        }
        let trimmed = String::from_utf8_lossy(line);
        let t = trimmed.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(name) = rest.trim_start().strip_prefix("undef") {
                let name = name.trim().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default();
                let inactive = skipped.iter().any(|r| r.file == file && r.start <= offset && offset <= r.end);
                if !name.is_empty() && !inactive {
                    undefs.push((file, name.to_string(), offset));
                }
            }
        }
        offset += line.len() as u32 + 1;
    }
    undefs
}

/// The per-thread-default-stream renames sit in a branch that is inactive unless the user asks
/// for that stream mode; they are read from the skipped source so every function learns its
/// per-thread symbol.
fn per_thread_renames(
    skipped: &[Skipped],
    wrappers: &std::collections::BTreeMap<String, String>,
) -> Vec<build::MacroDef> {
    let mut out = Vec::new();
    for range in skipped {
        for window in range.tokens.windows(6) {
            if window[0] == "define" && wrappers.contains_key(&window[2]) && window[3] == "(" && window[5] == ")" {
                out.push(build::MacroDef {
                    name: window[1].clone(),
                    file: range.file,
                    header: None,
                    offset: 0,
                    body: window[2..].to_vec(),
                    doc: None,
                });
            }
        }
    }
    out
}

fn compare_layouts(
    a: &build::ModeModel,
    mode_a: LanguageMode,
    b: &build::ModeModel,
    mode_b: LanguageMode,
) -> Result<(), ParseError> {
    let disagree = |name: &str, detail: String| ParseError::ModesDisagree {
        name: name.to_string(),
        first: mode_a,
        second: mode_b,
        detail,
    };
    for ra in &a.records {
        let Some(rb) = b.records.iter().find(|r| r.name == ra.name) else {
            return Err(disagree(&ra.name, format!("declared only in {mode_a}")));
        };
        if (ra.size, ra.align, ra.complete) != (rb.size, rb.align, rb.complete) {
            return Err(disagree(
                &ra.name,
                format!("size {} align {} versus size {} align {}", ra.size, ra.align, rb.size, rb.align),
            ));
        }
        let fa: Vec<_> = ra.fields.iter().map(|f| (&f.name, f.offset_bits, f.bit_width, f.size)).collect();
        let fb: Vec<_> = rb.fields.iter().map(|f| (&f.name, f.offset_bits, f.bit_width, f.size)).collect();
        if fa != fb {
            let first = fa.iter().zip(&fb).find(|(x, y)| x != y).map(|(x, _)| x.0.clone()).unwrap_or_default();
            return Err(disagree(&ra.name, format!("fields differ, first at `{first}`")));
        }
    }
    if let Some(extra) = b.records.iter().find(|r| !a.records.iter().any(|x| x.name == r.name)) {
        return Err(disagree(&extra.name, format!("declared only in {mode_b}")));
    }
    for ta in &a.typedefs {
        if let Some(tb) = b.typedefs.iter().find(|t| t.name == ta.name) {
            if (ta.size, ta.align) != (tb.size, tb.align) {
                return Err(disagree(
                    &ta.name,
                    format!("typedef size/align {}/{} versus {}/{}", ta.size, ta.align, tb.size, tb.align),
                ));
            }
        }
    }
    Ok(())
}

/// `fooAdvise_v2` -> ("fooAdvise", 2); `fooAdvise` -> ("fooAdvise", 1).
fn split_version_suffix(symbol: &str) -> (&str, u32) {
    if let Some((base, n)) = symbol.rsplit_once("_v") {
        if let Ok(n) = n.parse::<u32>() {
            if !base.is_empty() {
                return (base, n);
            }
        }
    }
    (symbol, 1)
}

/// Decides, for every function, the name and version to hand the library's versioned lookup.
///
/// The lookup answers a (name, version) query with the newest variant of `name` introduced at
/// or before `version`, so the version must be the one that introduced exactly this symbol.
/// The typedef header lists each family's introductions as `PFN_<family>_v<version>`, oldest
/// first; the header declares the family's symbols (`X`, `X_v2`, ...), the newest last. Matching
/// them in order is the only way to tell variants apart whose signatures are identical
/// (an elapsed-time query and its `_v2`); parameter types, compared canonically, confirm each match.
fn assign_entry_point_versions(
    functions: &mut [ir::Function],
    pfns: &[build::PfnVersion],
    signatures: &std::collections::HashMap<String, Vec<String>>,
) {
    use std::collections::BTreeMap;
    let mut families: BTreeMap<&str, Vec<(u32, usize)>> = BTreeMap::new();
    for (index, f) in functions.iter().enumerate() {
        let (family, n) = split_version_suffix(&f.symbol);
        families.entry(family).or_default().push((n, index));
    }
    let mut decided: Vec<(usize, String, Option<u32>, Option<u32>)> = Vec::new();
    for (family, mut members) in families {
        members.sort();
        let introductions = |per_thread: bool| {
            let mut v: Vec<&build::PfnVersion> =
                pfns.iter().filter(|p| p.name == family && p.per_thread == per_thread).collect();
            v.sort_by_key(|p| p.version);
            v
        };
        let (plain, per_thread) = (introductions(false), introductions(true));
        // Present symbols are the family's newest variants: pair them with the newest entries.
        let offset = plain.len().saturating_sub(members.len());
        for (position, &(_, index)) in members.iter().enumerate() {
            let f = &functions[index];
            let signature = signatures.get(&f.symbol);
            let same = |p: &&build::PfnVersion| Some(&p.params) == signature;
            let paired = plain.get(offset + position).filter(|p| plain.len() >= members.len() && same(p));
            let version = paired.or_else(|| plain.iter().rev().find(|p| same(p))).map(|p| p.version);
            let per_thread_version = if f.per_thread_symbol.is_some() {
                per_thread.iter().rev().find(|p| same(p)).or(per_thread.last()).map(|p| p.version)
            } else {
                None
            };
            let lookup = if version.is_some() { family.to_string() } else { f.name.clone() };
            decided.push((index, lookup, version, per_thread_version));
        }
    }
    for (index, lookup, version, per_thread_version) in decided {
        let f = &mut functions[index];
        f.lookup_name = lookup;
        f.first_version = version;
        f.per_thread_first_version = per_thread_version;
    }
}

/// Turns one mode's declarations into the model: renames, versions and constants resolved.
fn assemble(model: build::ModeModel, wrappers: &std::collections::BTreeMap<String, String>) -> ir::Api {
    let symbols: BTreeSet<String> = model.functions.iter().map(|f| f.symbol.clone()).collect();
    let renames = macros::renames(&model.macros, &symbols, wrappers);
    let per_thread_renames = macros::renames(&model.per_thread_macros, &symbols, wrappers);
    let typedef_names: BTreeSet<String> = model.typedefs.iter().map(|t| t.name.clone()).collect();
    let constants = macros::constants(&model.macros, &typedef_names, &model.enums);
    let mut typedefs = model.typedefs;
    typedefs.extend(macros::type_aliases(&model.macros, &typedefs));
    typedefs.sort_by(|a, b| a.name.cmp(&b.name));

    let mut functions = model.functions;
    for f in &mut functions {
        if let Some(r) = renames.iter().find(|r| r.symbol == f.symbol) {
            f.name = r.public.clone();
            f.per_thread_symbol = r.per_thread_suffix.as_ref().map(|s| format!("{}{s}", f.symbol));
        }
        if f.per_thread_symbol.is_none() {
            if let Some(r) = per_thread_renames.iter().find(|r| r.symbol == f.symbol && r.public == f.name) {
                f.per_thread_symbol = r.per_thread_suffix.as_ref().map(|s| format!("{}{s}", f.symbol));
            }
        }
    }
    assign_entry_point_versions(&mut functions, &model.pfn_versions, &model.signatures);

    ir::Api {
        format_version: ir::FORMAT_VERSION,
        provenance: ir::Provenance::unknown(""),
        functions,
        records: model.records,
        enums: model.enums,
        typedefs,
        constants,
    }
}
