//! Headers of an installed toolkit (the folder the home variable names), used instead of the catalogue.

use std::path::Path;

use serde::Deserialize;

use crate::{HeaderSet, HeadersError, LibraryHeaders};

/// Reads `library`'s main header from `<dir>/include` (and its typedef header when present). The
/// release number comes from the toolkit's `version.json` when it has one; the version macro's
/// value from the header itself.
pub fn from_cuda_home(dir: &Path, library: &LibraryHeaders) -> Result<HeaderSet, HeadersError> {
    let include_dir = dir.join("include");
    let main_header = include_dir.join(&library.main);
    if !main_header.is_file() {
        return Err(HeadersError::MissingHeader { dir: include_dir, header: library.main.clone() });
    }
    let typedefs_header = library.typedefs.as_ref().map(|t| include_dir.join(t)).filter(|t| t.is_file());
    Ok(HeaderSet {
        cuda_version: match &library.version_macro {
            Some(version_macro) => read_version_macro(&main_header, version_macro)?,
            None => None,
        },
        ctk: read_toolkit_release(&dir.join("version.json"))?,
        typedefs_header,
        main_header,
        include_dir,
        catalogued: None,
        extra_headers: Vec::new(),
        stand_ins: Vec::new(),
        included: Vec::new(),
        version_macro: library.version_macro.clone(),
        per_thread_macros: Default::default(),
        entry_point_typedef: None,
        static_library: None,
        library_wheel_requirement: None,
    })
}

/// The value of `#define <version_macro> N`, or `None` when the header has no such line.
/// The value of `#define <macro> <number>` in `header`, if it defines it.
pub(crate) fn read_version_macro(header: &Path, version_macro: &str) -> Result<Option<u32>, HeadersError> {
    let bytes = std::fs::read(header).map_err(|source| HeadersError::Read { path: header.to_path_buf(), source })?;
    // Line by line over the bytes: the macro sits near the top, and only lines that start a
    // directive are worth decoding.
    for line in bytes.split(|&b| b == b'\n') {
        if !line.trim_ascii_start().starts_with(b"#") {
            continue;
        }
        let line = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
        let Some(directive) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = directive.trim_start().strip_prefix("define") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        if words.next() != Some(version_macro) {
            continue;
        }
        let value = words.next().unwrap_or("");
        return value.parse::<u32>().map(Some).map_err(|_| HeadersError::MalformedFile {
            path: header.to_path_buf(),
            what: version_macro.to_string(),
            detail: format!("{value:?} is not a number"),
        });
    }
    Ok(None)
}

#[derive(Deserialize)]
struct VersionJson {
    cuda: VersionJsonEntry,
}

#[derive(Deserialize)]
struct VersionJsonEntry {
    version: String,
}

/// `cuda.version` of the toolkit's `version.json` (e.g. `12.8.1`), normalized to three parts.
fn read_toolkit_release(path: &Path) -> Result<Option<String>, HeadersError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(HeadersError::Read { path: path.to_path_buf(), source }),
    };
    let malformed = |detail: String| HeadersError::MalformedFile {
        path: path.to_path_buf(),
        what: "toolkit version".to_string(),
        detail,
    };
    let parsed: VersionJson = serde_json::from_str(&text).map_err(|error| malformed(error.to_string()))?;
    let parts: Vec<&str> = parsed.cuda.version.split('.').collect();
    let release = parts.iter().take(3).copied().collect::<Vec<_>>().join(".");
    crate::catalogue::normalize_ctk(&release)
        .map(Some)
        .ok_or_else(|| malformed(format!("{:?} is not a version", parsed.cuda.version)))
}
