//! Emits a Rust `-sys` crate for the C library a ctkgen model describes.
//!
//! [`emit`] turns one [`ctkgen_ir::Api`] into the files of a Cargo package: `Cargo.toml`,
//! `src/lib.rs` with every record, enum, typedef, constant and function of the header, a layout
//! test and a small example. Functions are resolved lazily from the shared library at run time,
//! so the crate builds and links on machines without it. What is particular to the library (its
//! file name, status codes, entry-point lookup, where an installed copy lives) comes from its
//! [`LibraryConventions`].
//!
//! The work is split in two: `plan` is a pass over the model that takes every decision (Rust
//! names, record layouts with padding and bitfield units, explicit alignments, flag enums,
//! constant types, how each function is resolved), and the `print_*` modules only lay the
//! decided items out through `quote` and `prettyplease`. The items printed hundreds of times
//! (function wrappers, enum members, the entry table) are built as `syn` trees directly
//! (`syntax`), and the impls that differ only in the type's name are parsed once per piece and
//! copied; both print exactly as their tokens would. The model is planned once; the threads that
//! print the crate's pieces share the plan.
//!
//! The part of the generated crate that is the same for every header (the runtime's loader, lazy
//! resolution, bit helpers) is real source under `runtime/`, compiled and tested by this crate's
//! tests and emitted as written; only what varies with the input is built by `quote!`.

mod conventions;
mod doc_blocks;
mod docs;
mod names;
mod plan;
mod print_crate;
mod print_functions;
mod print_items;
mod print_runtime;
mod syntax;
mod types;

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, OutputFile};

pub use conventions::LibraryConventions;

/// How the generated package is named and labelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustOptions {
    /// Cargo package name; `None` takes the library conventions' `rust_crate`.
    pub crate_name: Option<String>,
    /// Cargo version; its build metadata names the CTK, e.g. `0.1.0+ctk.13.1.0`.
    pub crate_version: String,
    /// The command line written into the first line of every generated file.
    pub command: String,
    /// The package's licence expression (the generator's own, by default).
    pub license: String,
    /// The package's source repository: the generator's own when its workspace sets one (`None`
    /// leaves the field out, rather than state what is not known).
    pub repository: Option<String>,
}

impl Default for RustOptions {
    fn default() -> Self {
        RustOptions {
            crate_name: None,
            crate_version: "0.1.0".into(),
            command: "cargo xtask generate --lang rust".into(),
            license: env!("CARGO_PKG_LICENSE").into(),
            repository: Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty()).map(Into::into),
        }
    }
}

impl RustOptions {
    /// Default options whose version carries the CTK of `api` as build metadata
    /// (`0.1.0+ctk.13.1.0`), so packages generated from different CTKs stay apart.
    pub fn for_api(api: &Api, command: impl Into<String>) -> Self {
        let base = RustOptions::default();
        let crate_version = match &api.provenance.ctk {
            Some(ctk) => format!("{}+ctk.{ctk}", base.crate_version),
            None => base.crate_version,
        };
        RustOptions { crate_version, command: command.into(), ..base }
    }
}

/// The crate of a library the bound one depends on, generated beside it (`../<crate_name>`):
/// what this model declares exactly as that one does is re-exported from it, so both crates
/// have one type for one C type.
#[derive(Debug, Clone, Copy)]
pub struct Dependency<'a> {
    /// Its Cargo package name.
    pub crate_name: &'a str,
    /// Its Cargo version, required exactly: both crates come from one toolkit.
    pub crate_version: &'a str,
    pub api: &'a Api,
}

/// Why a model cannot be turned into Rust. Every variant names the declaration at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RustEmitError {
    #[error("invalid option {option}: {reason}")]
    InvalidOption { option: &'static str, reason: String },
    #[error("`{name}` (in {context}) is not usable as a Rust identifier")]
    InvalidIdentifier { name: String, context: String },
    #[error("`{name}` is declared twice in the Rust value or type namespace ({first} and {second})")]
    DuplicateName { name: String, first: String, second: String },
    #[error("`{name}` clashes with a name the generated crate defines itself")]
    ReservedName { name: String },
    #[error("{context} refers to unknown type `{name}`")]
    UnknownType { name: String, context: String },
    #[error("{context} uses {what}, which Rust cannot express")]
    UnsupportedType { what: String, context: String },
    #[error("record `{record}` cannot be expressed in Rust: {reason}")]
    UnrepresentableLayout { record: String, reason: String },
    #[error("typedef `{typedef}` carries alignment {align} of its own (the type it names has {natural}); Rust type aliases cannot change alignment")]
    AlignedTypedef { typedef: String, align: u64, natural: u64 },
    #[error("enum `{enumeration}`: {reason}")]
    InvalidEnum { enumeration: String, reason: String },
    #[error("constant `{constant}`: {reason}")]
    InvalidConstant { constant: String, reason: String },
    #[error("function `{function}`: {reason}")]
    InvalidFunction { function: String, reason: String },
    #[error("library convention `{name}`: {reason}")]
    Convention { name: String, reason: String },
    #[error("the file name of {description} (`{library}`) carries the toolkit's major version, which the model does not record (no CTK release, no version macro value)")]
    UnknownMajorVersion { library: String, description: String },
    #[error("generated code for {file} does not parse: {message}")]
    Syntax { file: String, message: String },
}

/// Emits the package for a library whose file, entry-point lookup and status codes are
/// described by `conventions`. Pure: no I/O, same bytes for the same input.
pub fn emit(
    api: &Api,
    options: &RustOptions,
    conventions: &LibraryConventions,
) -> Result<Vec<OutputFile>, RustEmitError> {
    emit_with_docs(api, options, conventions, &ParsedDocs::unparsed(&conventions.doc_aliases), &[])
}

/// [`emit`], taking the doc comments' parses from `parsed` where it has them (the pipeline
/// parses each library's comments once, with its doc aliases, for both emitters), for a
/// library that depends on the crates of `dependencies`.
pub fn emit_with_docs(
    api: &Api,
    options: &RustOptions,
    conventions: &LibraryConventions,
    parsed: &ParsedDocs,
    dependencies: &[Dependency],
) -> Result<Vec<OutputFile>, RustEmitError> {
    print_crate::files(api, options, conventions, parsed, dependencies)
}
