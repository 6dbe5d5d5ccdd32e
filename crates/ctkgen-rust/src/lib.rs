//! Emits a Rust `-sys` crate for the C library ctkgen models describe, one cargo feature per
//! toolkit release.
//!
//! [`emit_crate`] turns the [`ctkgen_ir::Api`] of each toolkit into the files of one Cargo
//! package: `Cargo.toml` with a feature per toolkit (`cuda-12090`, `cuda-13010`, ...),
//! `src/lib.rs` with every record, enum, typedef, constant and function of the headers, a layout
//! test and a small example; [`emit`] makes the package of one model. An item the toolkits
//! declare alike is written once; one that differs is written once per form, under the `cfg` of
//! the features that have that form, and an enum's members each under their own. Functions are
//! resolved lazily from the shared library at run time, one by one, so the crate builds and
//! links on machines without it and runs on an older library for every function that has. What is particular to the library (its
//! file name, status codes, entry-point lookup, where an installed copy lives) comes from its
//! [`LibraryConventions`].
//!
//! The work is split in three: `plan` is a pass over one model that takes every decision (Rust
//! names, record layouts with padding and bitfield units, explicit alignments, flag enums,
//! constant types, how each function is resolved), `merge` finds each item's distinct forms over
//! the toolkits' plans, and the `print_*` modules only lay the decided items out through `quote`
//! and `prettyplease`. The items printed hundreds of times
//! (function wrappers, enum members, the entry table) are built as `syn` trees directly
//! (`syntax`), and the impls that differ only in the type's name are parsed once per piece and
//! copied; both print exactly as their tokens would. Each model is planned once; the threads that
//! print the crate's pieces share the plans.
//!
//! The part of the generated crate that is the same for every header (the runtime's loader, lazy
//! resolution, bit helpers) is real source under `runtime/`, compiled and tested by this crate's
//! tests and emitted as written; only what varies with the input is built by `quote!`.

mod conventions;
mod doc_blocks;
mod docs;
mod features;
mod merge;
mod names;
mod plan;
mod print_crate;
mod print_functions;
mod print_items;
mod print_package;
mod print_runtime;
mod print_tests;
mod syntax;
mod types;

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, OutputFile};

pub use conventions::LibraryConventions;
/// The attributes of a generated item (for tools that evaluate the crates' `cfg`s).
pub use syntax::item_attributes;

/// How the generated package is named and labelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustOptions {
    /// Cargo package name; `None` takes the library conventions' `rust_crate`.
    pub crate_name: Option<String>,
    /// Cargo version: plain semver, as a registry reads it (build metadata would be ignored);
    /// the toolkits are the crate's features.
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
    /// Default options naming `command` in every file's first line.
    pub fn with_command(command: impl Into<String>) -> Self {
        RustOptions { command: command.into(), ..RustOptions::default() }
    }
}

/// The crate of a library the bound one depends on, generated beside it (`../<crate_name>`):
/// what a toolkit's model declares exactly as that toolkit's model of the dependency does is
/// re-exported from it, so both crates have one type for one C type. Each feature turns on the
/// dependency's feature of the same name.
#[derive(Debug, Clone, Copy)]
pub struct Dependency<'a> {
    /// Its Cargo package name.
    pub crate_name: &'a str,
    /// Its Cargo version, required exactly: both crates come from one generation.
    pub crate_version: &'a str,
}

/// One toolkit's model of the bound library: one feature of the crate.
#[derive(Debug, Clone)]
pub struct ToolkitModel<'a> {
    pub api: &'a Api,
    /// The comments' parses (made with the library's doc aliases), where the caller has them;
    /// otherwise each comment the crate prints is parsed as it is rendered.
    pub parsed: Option<&'a ParsedDocs<'a>>,
    /// The same toolkit's models of the libraries the crate depends on, in the order of the
    /// dependencies given with it.
    pub dependencies: Vec<&'a Api>,
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

/// Emits the package of one model for a library whose file, entry-point lookup and status
/// codes are described by `conventions`: a crate with one feature, on by default, when the model
/// states its toolkit (none otherwise). Pure: no I/O, same bytes for the same input.
pub fn emit(
    api: &Api,
    options: &RustOptions,
    conventions: &LibraryConventions,
) -> Result<Vec<OutputFile>, RustEmitError> {
    let model = ToolkitModel { api, parsed: None, dependencies: Vec::new() };
    emit_crate(&[model], options, conventions, &[])
}

/// `Cargo.toml` of a workspace of the crates in `members` (folders beside it), so that they
/// build, test and package together: the packaging of a crate that depends on another (`cargo
/// package --workspace`) sees the other as it will be published.
pub fn workspace_manifest(members: &[&str], command: &str) -> OutputFile {
    OutputFile::text("Cargo.toml", print_package::workspace_manifest(members, command))
}

/// Emits one package binding the library for every toolkit of `models` (any order; at most
/// [`u64::BITS`],
/// each of another toolkit version), a feature each, built on the crates of `dependencies`.
/// Pure: no I/O, same bytes for the same input.
pub fn emit_crate(
    models: &[ToolkitModel],
    options: &RustOptions,
    conventions: &LibraryConventions,
    dependencies: &[Dependency],
) -> Result<Vec<OutputFile>, RustEmitError> {
    print_crate::files(models, options, conventions, dependencies)
}
