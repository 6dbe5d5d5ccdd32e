use std::io;
use std::path::PathBuf;

/// Everything that can go wrong while finding, fetching or checking headers and libclang.
///
/// A variant with a `source` leaves it out of its own message: callers print the cause chain
/// (as the command line does), and a message that repeated it would show it twice.
#[derive(Debug, thiserror::Error)]
pub enum HeadersError {
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: io::Error },

    #[error("cannot write {path}")]
    Write { path: PathBuf, source: io::Error },

    /// A catalogue that is not valid TOML, or holds a release that makes no sense.
    #[error("{path}:{line}: {message}")]
    MalformedCatalogue { path: PathBuf, line: usize, message: String },

    /// A release handed to [`crate::fetch`] that could not have come from a valid catalogue.
    #[error("invalid release {ctk}: {reason}")]
    InvalidRelease { ctk: String, reason: String },

    #[error("unknown ctk version {query}; nearest known: {nearest} (`cargo xtask headers list` shows all {count})")]
    UnknownVersion { query: String, nearest: String, count: usize },

    #[error("cache directory {path} is not writable")]
    UnwritableCache { path: PathBuf, source: io::Error },

    #[error("cannot lock {path}")]
    Lock { path: PathBuf, source: io::Error },

    #[error("cannot run {python} to call pip (set CTKGEN_PYTHON to a python that has pip)")]
    PythonNotFound { python: String, source: io::Error },

    /// pip ran and failed; `last_line` is the last line it wrote to stderr.
    #[error("pip could not download {requirement}: {last_line}")]
    PipFailed { requirement: String, last_line: String },

    #[error("pip reported success for {requirement} but left {found} in {dir}")]
    NoWheel { requirement: String, dir: PathBuf, found: String },

    #[error("sha256 mismatch for {file}: expected {expected}, got {actual}")]
    HashMismatch { file: String, expected: String, actual: String },

    #[error("{wheel} is not a readable wheel: {reason}")]
    CorruptWheel { wheel: PathBuf, reason: String },

    #[error("{wheel} has no {member}")]
    MissingMember { wheel: PathBuf, member: String },

    #[error("no {header} in {dir}")]
    MissingHeader { dir: PathBuf, header: String },

    #[error("{path}: malformed {what}: {detail}")]
    MalformedFile { path: PathBuf, what: String, detail: String },

    #[error("unexpected pip output for {command}: {detail}")]
    PipOutput { command: String, detail: String },

    #[error("no libclang found; tried: {tried}")]
    LibclangNotFound { tried: String },
}
