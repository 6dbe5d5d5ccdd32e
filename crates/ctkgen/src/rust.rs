//! The Rust emitter's part of the pipeline: one toolkit's crates for `emit`, and the crates of
//! every toolkit at once, a feature each.

use ctkgen_ir::{Api, OutputFile};

use crate::{BoundLibrary, GenerateOptions, PipelineError};

pub(crate) fn emit_rust(
    library: &BoundLibrary<'_>,
    bound: &[BoundLibrary<'_>],
    options: &GenerateOptions,
    parsed: &ctkgen_ir::doc::ParsedDocs,
) -> Result<Vec<OutputFile>, PipelineError> {
    let rust = ctkgen_rust::RustOptions::with_command(options.command.clone());
    let (dependencies, apis) = rust_dependencies(library, bound, &rust)?;
    let model = ctkgen_rust::ToolkitModel { api: library.api, parsed: Some(parsed), dependencies: apis };
    let conventions = &library.library.conventions;
    rust_files(ctkgen_rust::emit_crate(&[model], &rust, conventions, &dependencies)?, &conventions.rust_crate)
}

/// The crates `library` is built on, and the models of them bound with it.
fn rust_dependencies<'a>(
    library: &BoundLibrary<'a>,
    bound: &[BoundLibrary<'a>],
    rust: &'a ctkgen_rust::RustOptions,
) -> Result<(Vec<ctkgen_rust::Dependency<'a>>, Vec<&'a Api>), PipelineError> {
    let mut dependencies = Vec::new();
    let mut apis = Vec::new();
    for name in &library.library.conventions.depends_on {
        let dependency = bound.iter().find(|b| &b.library.name == name).ok_or_else(|| {
            PipelineError::UnboundDependency { library: library.library.name.clone(), dependency: name.clone() }
        })?;
        // Both crates come from one generation: the same version.
        dependencies.push(ctkgen_rust::Dependency {
            crate_name: &dependency.library.conventions.rust_crate,
            crate_version: &rust.crate_version,
        });
        apis.push(dependency.api);
    }
    Ok((dependencies, apis))
}

/// A crate's files under `rust/<folder>/`.
fn rust_files(files: Vec<OutputFile>, folder: &str) -> Result<Vec<OutputFile>, PipelineError> {
    Ok(files.into_iter().map(|f| OutputFile { path: format!("rust/{folder}/{}", f.path), ..f }).collect())
}

/// One Rust crate per library for the toolkits of `toolkits` (each the libraries bound for one
/// toolkit, oldest toolkit first), a cargo feature per toolkit that has the library: the files of
/// `<crate>/`, one folder per crate, and the `Cargo.toml` of their workspace. A toolkit that does
/// not ship a library has no feature in its crate.
pub fn emit_rust_crates(toolkits: &[Vec<BoundLibrary<'_>>], command: &str) -> Result<Vec<OutputFile>, PipelineError> {
    use rayon::prelude::*;
    // Every library some toolkit binds, each once, in the order the toolkits bind them.
    let mut libraries: Vec<&crate::Library> = Vec::new();
    for bound in toolkits.iter().rev() {
        for b in bound {
            if !libraries.iter().any(|l| l.name == b.library.name) {
                libraries.push(b.library);
            }
        }
    }
    let rust = ctkgen_rust::RustOptions::with_command(command);
    let crates: Vec<Result<Vec<OutputFile>, PipelineError>> = libraries
        .par_iter()
        .map(|library| {
            let mut models = Vec::with_capacity(toolkits.len());
            let mut dependencies = Vec::new();
            for bound in toolkits {
                let Some(this) = bound.iter().find(|b| b.library.name == library.name) else { continue };
                let (crates, apis) = rust_dependencies(this, bound, &rust)?;
                dependencies = crates;
                models.push(ctkgen_rust::ToolkitModel { api: this.api, parsed: None, dependencies: apis });
            }
            let conventions = &library.conventions;
            let files = ctkgen_rust::emit_crate(&models, &rust, conventions, &dependencies)?;
            Ok(files
                .into_iter()
                .map(|f| OutputFile { path: format!("{}/{}", conventions.rust_crate, f.path), ..f })
                .collect())
        })
        .collect();
    let mut files = Vec::new();
    for crate_files in crates {
        files.extend(crate_files?);
    }
    let members: Vec<&str> = libraries.iter().map(|l| l.conventions.rust_crate.as_str()).collect();
    if !members.is_empty() {
        files.push(ctkgen_rust::workspace_manifest(&members, command));
    }
    files.sort();
    Ok(files)
}
