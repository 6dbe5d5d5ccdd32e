//! The Cython emitter: turns one [`ctkgen_ir::Api`] into an installable Python package whose
//! `driver` module is call-compatible with the Python module the library conventions name.
//!
//! The passes in [`model`] decide everything (names, declaration order, output parameters, the
//! storage of over-aligned records, module chunks); the minijinja templates of the
//! `ctkgen-templates` crate only lay the text out. Every name of the bound library comes from
//! the IR or from its [`LibraryConventions`]. [`emit`] is pure: it returns the files and writes
//! nothing.

pub mod abi;
pub mod aliases;
pub mod model;
pub mod names;
pub mod params;
pub mod typed_values;
pub mod types;

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, LibraryConventions, OutputFile};
use minijinja::{Environment, UndefinedBehavior};
use rayon::prelude::*;

pub use params::Overrides;

/// Options of the Cython emitter.
#[derive(Debug, Clone)]
pub struct CythonOptions {
    /// Name of the generated Python package (`import <package>.driver`).
    pub python_package: String,
    /// The command named on the first line of every generated file.
    pub command: String,
    /// Negative control: store over-aligned records by value inside the Python object, the
    /// defective layout of the bindings in use today. Only for tests that must see it fail.
    pub legacy_inline_layout: bool,
    /// Integer paths refuse a float whose value is not integral (TypeError) instead of
    /// truncating it toward zero as cuda.bindings does (the default).
    pub strict_integers: bool,
    /// How the bound library reports status, is loaded and resolves its entry points.
    pub conventions: LibraryConventions,
    /// Output-parameter overrides (`headers/libraries/<library>.cython-params.toml`).
    pub overrides: Overrides,
    /// Fail on parameters the classification pass cannot decide (the default); when off they
    /// are only listed in `ctkgen_params_report.txt` and passed as raw addresses.
    pub strict_params: bool,
    /// Record classes per extension module (modules compile in parallel).
    pub records_per_module: usize,
    /// Functions per extension module.
    pub functions_per_module: usize,
    /// The package's licence expression (the generator's own, by default).
    pub license: String,
    /// The package's source repository: the generator's own when its workspace sets one (`None`
    /// leaves `[project.urls]` out, rather than state what is not known).
    pub repository: Option<String>,
    /// The Python modules of the package's libraries this one depends on, each emitted before
    /// it: the classes they define for the same C declarations are this module's too.
    pub dependencies: Vec<String>,
    /// Package-wide modules beside the library modules (the same for every library).
    pub package: ctkgen_ir::PackageConventions,
    /// What the package carries or requires for this library beyond its headers (the pipeline
    /// says, from the catalogue).
    pub packaging: LibraryPackaging,
}

/// What a package carries or requires for one library beyond its headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LibraryPackaging {
    /// The library's static archive the package carries, as a path relative to `python/`
    /// (`lib/libfoo_static.a`): the build links it into the library's loader module (see
    /// [`ctkgen_ir::StaticLibrary`]).
    pub static_library: Option<String>,
    /// Requirements the package's metadata gains for the library (the wheel of its shared
    /// library, for a release whose wheel has no static archive of it).
    pub requires: Vec<String>,
}

impl CythonOptions {
    /// The default options for a library described by `conventions` and `overrides`.
    pub fn new(conventions: LibraryConventions, overrides: Overrides) -> Self {
        CythonOptions {
            python_package: "ctkgen_cuda".into(),
            command: "cargo xtask generate".into(),
            legacy_inline_layout: false,
            strict_integers: false,
            conventions,
            overrides,
            strict_params: true,
            records_per_module: 60,
            functions_per_module: 90,
            license: env!("CARGO_PKG_LICENSE").into(),
            repository: Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty()).map(Into::into),
            dependencies: Vec::new(),
            package: Default::default(),
            packaging: Default::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CythonEmitError {
    #[error(
        "invalid python package name `{0}`: it must be a Python identifier (ASCII letters, digits and \
         underscores, not starting with a digit, not a keyword) or several joined by dots, e.g. `my_cuda` \
         or `cuda.bindings`"
    )]
    PackageName(String),
    #[error("{header}: the library file {library} depends on the toolkit's major version, which this header does not give (generate from a catalogued CTK or a toolkit)")]
    UnknownMajor { library: String, header: String },
    #[error("two libraries in one package use the Python module name `{0}`")]
    DuplicateModule(String),
    #[error("module `{module}` depends on module `{dependency}`, which the package does not bind before it")]
    UnboundDependency { module: String, dependency: String },
    #[error("libraries of one package must be generated with the same package options ({0} differs)")]
    MixedOptions(&'static str),
    #[error("invalid output-parameter overrides: {0}")]
    Overrides(String),
    #[error("parameter names: {0}")]
    ParameterNames(String),
    #[error("record helper {0}")]
    RecordHelper(String),
    #[error("raise convention: {0}")]
    Raise(String),
    #[error("package description: {0}")]
    PackageDescription(String),
    #[error("parameters with no input/output classification (add them to the library's cython-params overrides): {}", .0.join(", "))]
    UnclassifiedParams(Vec<String>),
    #[error("template {name} failed to render")]
    Template {
        name: String,
        #[source]
        source: minijinja::Error,
    },
}

/// Every template, by file name.
pub const TEMPLATES: &[(&str, &str)] = ctkgen_templates::CYTHON;

/// The package's build requirements (`templates/cython/build-requirements.txt`), each pinned to
/// one version: the Python suite builds with the same file, so users build what it tests.
pub fn build_requirements() -> Vec<&'static str> {
    ctkgen_templates::CYTHON_BUILD_REQUIREMENTS
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .collect()
}

/// The one minijinja environment: strict, no escaping, whitespace control on.
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    // A Python string literal of any text (docstrings as values).
    env.add_filter("py_string", |text: String| names::py_string(&text));
    // A TOML basic string of any text (requirements in the package metadata).
    env.add_filter("toml_string", |text: String| toml_string(&text));
    for (name, source) in TEMPLATES {
        env.add_template(name, source).expect("embedded template parses");
    }
    env
}

/// `text` as a TOML basic string: quotes, backslashes and control characters escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn render(env: &Environment<'_>, name: &str, ctx: minijinja::Value) -> Result<String, CythonEmitError> {
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|source| CythonEmitError::Template { name: name.to_string(), source })
}

/// Python's keywords, which no import name can be.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Refuses a package name that `import <name>.driver` could not spell: Python identifiers of
/// ASCII letters, digits and underscores, not starting with a digit and not keywords, one or
/// several joined by dots (`cuda.bindings`, to install in place of a package of that name).
pub fn check_package_name(name: &str) -> Result<(), CythonEmitError> {
    let identifier = |part: &str| {
        !part.is_empty()
            && !part.starts_with(|c: char| c.is_ascii_digit())
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !PYTHON_KEYWORDS.contains(&part)
    };
    if name.split('.').all(identifier) {
        Ok(())
    } else {
        Err(CythonEmitError::PackageName(name.to_string()))
    }
}

/// The package's folder under `python/`: a dotted name is nested folders (`cuda.bindings` is
/// `cuda/bindings`, `cuda` left a namespace package without `__init__.py`).
fn package_dir(package: &str) -> String {
    format!("python/{}", package.replace('.', "/"))
}

/// The context of each module chunk: the whole model as `m`, and the chunk with its items taken
/// from the model's already converted list `list` (a chunk holds consecutive items of it), so
/// no item is converted twice.
fn chunk_contexts<'c, T: serde::Serialize>(
    base: &minijinja::Value,
    list: &str,
    chunks: &'c [model::Chunk<T>],
) -> Vec<(&'c model::Chunk<T>, minijinja::Value)> {
    let all = base.get_attr(list).ok().filter(|v| !v.is_undefined());
    let mut start = 0;
    chunks
        .iter()
        .map(|chunk| {
            let end = start + chunk.items.len();
            let items: Option<Vec<minijinja::Value>> =
                all.as_ref().map(|all| (start..end).filter_map(|i| all.get_item_by_index(i).ok()).collect());
            let chunk_value = match items.filter(|items| items.len() == chunk.items.len()) {
                Some(items) => minijinja::context! {
                    module => chunk.module.clone(),
                    items => minijinja::Value::from(items),
                    imports => minijinja::Value::from_serialize(&chunk.imports),
                },
                None => minijinja::Value::from_serialize(chunk),
            };
            start = end;
            (chunk, minijinja::context! { m => base.clone(), chunk => chunk_value })
        })
        .collect()
}

/// Emits the Python package for `api` under `python/`.
pub fn emit(api: &Api, options: &CythonOptions) -> Result<Vec<OutputFile>, CythonEmitError> {
    emit_with_docs(api, options, &ParsedDocs::unparsed(&options.conventions.doc_aliases))
}

/// [`emit`], taking the doc comments' parses from `parsed` where it has them (the pipeline
/// parses each library's comments once, with its doc aliases, for both emitters).
pub fn emit_with_docs(
    api: &Api,
    options: &CythonOptions,
    parsed: &ParsedDocs,
) -> Result<Vec<OutputFile>, CythonEmitError> {
    emit_package(&[(api, options, parsed)])
}

/// What one library adds to the package-wide files (README, report, package metadata).
#[derive(serde::Serialize)]
struct LibrarySummary {
    names: model::ModuleNames,
    conventions: LibraryConventions,
    header: String,
    soname: String,
    cuda_version: Option<u32>,
    unclassified: Vec<String>,
    report: Vec<String>,
}

/// A library's static archive that the build links into its loader module.
#[derive(serde::Serialize)]
struct StaticLink {
    /// The loader module's name in the package (`cyfoo`).
    module: String,
    /// Relative to `python/`.
    archive: String,
    link_libraries: Vec<String>,
}

/// The Python releases a package supports when the package description's set for its release
/// does not say (a header outside the catalogue): the oldest any set names.
const DEFAULT_REQUIRES_PYTHON: &str = ">=3.9";

/// The requirements of the package's metadata: its own and each extra's, the Python releases it
/// supports and its classifiers.
struct PackageMetadata {
    dependencies: Vec<String>,
    /// Every extra the package description names, each with its requirements for this release.
    extras: Vec<(String, Vec<String>)>,
    requires_python: String,
    classifiers: Vec<String>,
}

/// The package description's requirement set for `release`, then what each library adds.
fn package_metadata(
    libraries: &[(&Api, &CythonOptions, &ParsedDocs)],
    release: &str,
) -> Result<PackageMetadata, CythonEmitError> {
    let Some((_, first, _)) = libraries.first() else {
        return Ok(PackageMetadata {
            dependencies: Vec::new(),
            extras: Vec::new(),
            requires_python: DEFAULT_REQUIRES_PYTHON.into(),
            classifiers: Vec::new(),
        });
    };
    let set = first.package.requirements_for(release).map_err(CythonEmitError::PackageDescription)?;
    let mut dependencies: Vec<String> = set.map(|s| s.dependencies.clone()).unwrap_or_default();
    for requirement in libraries.iter().flat_map(|(_, options, _)| &options.packaging.requires) {
        if !dependencies.contains(requirement) {
            dependencies.push(requirement.clone());
        }
    }
    let extras = first
        .package
        .extra_names()
        .into_iter()
        .map(|name| (name.to_string(), set.and_then(|s| s.extras.get(name)).cloned().unwrap_or_default()))
        .collect();
    let requires_python = set.and_then(|s| s.requires_python.clone()).unwrap_or_else(|| DEFAULT_REQUIRES_PYTHON.into());
    let classifiers = set.map(|s| s.classifiers.clone()).unwrap_or_default();
    Ok(PackageMetadata { dependencies, extras, requires_python, classifiers })
}

/// Refuses libraries that cannot share one package: package-wide options that differ, or two
/// libraries with one module name.
fn check_package(libraries: &[(&Api, &CythonOptions, &ParsedDocs)]) -> Result<(), CythonEmitError> {
    let Some((_, first, _)) = libraries.first() else { return Ok(()) };
    check_package_name(&first.python_package)?;
    let mut modules = std::collections::BTreeSet::new();
    for (_, options, _) in libraries {
        let same = [
            ("python_package", options.python_package == first.python_package),
            ("command", options.command == first.command),
            ("legacy_inline_layout", options.legacy_inline_layout == first.legacy_inline_layout),
            ("strict_integers", options.strict_integers == first.strict_integers),
            ("license", options.license == first.license),
            ("repository", options.repository == first.repository),
            ("package", options.package == first.package),
        ];
        if let Some((field, _)) = same.iter().find(|(_, same)| !same) {
            return Err(CythonEmitError::MixedOptions(field));
        }
        let module = &options.conventions.python.module;
        if !modules.insert(module.clone()) {
            return Err(CythonEmitError::DuplicateModule(module.clone()));
        }
    }
    Ok(())
}

/// Emits one Python package under `python/` with a module per library (`<package>.<module>`,
/// named by each library's conventions) and the shared runtime (`_base`) they all use. The
/// first library's settings name the package; all must share its package-wide options. Each
/// library comes with its doc comments' parses (its classification and docstrings read them).
pub fn emit_package(libraries: &[(&Api, &CythonOptions, &ParsedDocs)]) -> Result<Vec<OutputFile>, CythonEmitError> {
    check_package(libraries)?;
    let env = environment();
    let mut jobs: Vec<(String, &str, minijinja::Value)> = Vec::new();
    let mut summaries = Vec::new();
    let mut extension_modules = vec!["_base".to_string()];
    let mut first_model = None;
    let mut emitted: Vec<model::DependencyView<'_>> = Vec::new();
    let mut typed_values = serde_json::Map::new();
    let mut static_links = Vec::new();
    for (api, options, parsed) in libraries {
        let module = &options.conventions.python.module;
        let dependencies = options
            .dependencies
            .iter()
            .map(|dependency| {
                emitted.iter().find(|d| &d.names.python == dependency).ok_or_else(|| {
                    CythonEmitError::UnboundDependency { module: module.clone(), dependency: dependency.clone() }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let model = model::build_in_package(api, options, parsed, &dependencies)?;
        let class_homes = model::class_homes(&model, options, &dependencies);
        emitted.push(model::DependencyView { api, names: model.names.clone(), class_homes });
        typed_values.insert(
            model.names.python.clone(),
            serde_json::to_value(&model.typed_values).expect("typed values are plain data"),
        );
        let pkg = package_dir(&model.package);
        let base = minijinja::Value::from_serialize(&model);
        let names = &model.names;
        // The library's own files, named after its module: the C declarations and the loader,
        // then the Python module of its convention.
        let mut own = vec![
            (format!("{}.pxd", names.cython), "cylib.pxd.j2"),
            (format!("{}.pyx", names.cython), "cylib.pyx.j2"),
            (names.types_header.clone(), "ctkgen_types.h.j2"),
            (names.layout_header.clone(), "ctkgen_layout_check.h.j2"),
            (format!("{}.py", names.enums), "_enums.py.j2"),
        ];
        if let Some(internal) = &model.internal {
            // In the package's folder of private modules, which the package description names.
            let private = options.package.private.as_ref().ok_or_else(|| {
                CythonEmitError::PackageDescription(format!(
                    "module `{}` asks for a loader module, but the package description names no private package",
                    names.python
                ))
            })?;
            own.push((format!("{}/{}.py", private.internal_package, internal.module), "_internal.py.j2"));
        }
        if model.raise_api.is_some() {
            own.extend([
                (format!("{}.py", names.python), "raise_module.py.j2"),
                (format!("{}.pyi", names.python), "raise_module.pyi.j2"),
            ]);
        } else {
            own.extend([
                (format!("{}.py", names.python), "module.py.j2"),
                (format!("{}.pyi", names.python), "module.pyi.j2"),
                (format!("{}.pxd", names.types), "_types.pxd.j2"),
                (format!("{}.pyx", names.types), "_types.pyx.j2"),
            ]);
        }
        for (file, template) in own {
            jobs.push((format!("{pkg}/{file}"), template, base.clone()));
        }
        if model.raise_api.is_some() {
            let raise_base = base.get_attr("raise_api").unwrap_or_default();
            for (chunk, ctx) in chunk_contexts(&raise_base, "functions", &model.raise_modules) {
                // The chunk's items are the raise view's; the model is the whole library's.
                let ctx = minijinja::context! { m => base.clone(), chunk => ctx.get_attr("chunk").unwrap_or_default() };
                jobs.push((format!("{pkg}/{}.pyx", chunk.module), "_raise_functions.pyx.j2", ctx));
            }
        } else {
            for (chunk, ctx) in chunk_contexts(&base, "records", &model.record_modules) {
                jobs.push((format!("{pkg}/{}.pyx", chunk.module), "_records.pyx.j2", ctx));
            }
            for (chunk, ctx) in chunk_contexts(&base, "functions", &model.function_modules) {
                jobs.push((format!("{pkg}/{}.pyx", chunk.module), "_functions.pyx.j2", ctx));
            }
        }
        extension_modules.extend(model.extension_modules.iter().cloned());
        if let (Some(archive), Some(link)) = (&options.packaging.static_library, &options.conventions.static_library) {
            static_links.push(StaticLink {
                module: model.names.cython.clone(),
                archive: archive.clone(),
                link_libraries: link.link_libraries.clone(),
            });
        }
        summaries.push(LibrarySummary {
            names: model.names.clone(),
            conventions: model.conventions.clone(),
            header: model.header.clone(),
            soname: model.soname.clone(),
            cuda_version: model.cuda_version,
            unclassified: model.unclassified.clone(),
            report: model.report.clone(),
        });
        // The templates read the converted copy: the model's own memory goes before they run.
        if first_model.is_none() {
            first_model = Some(base);
        }
    }
    let Some(first) = first_model else { return Ok(Vec::new()) };
    let metadata =
        package_metadata(libraries, &first.get_attr("package_version").map(|v| v.to_string()).unwrap_or_default())?;
    // Package-wide files: the first library's settings, every library's summary.
    let package_ctx = minijinja::context! {
        libraries => minijinja::Value::from_serialize(&summaries),
        extension_modules => extension_modules,
        build_requirements => build_requirements(),
        static_links => minijinja::Value::from_serialize(&static_links),
        dependencies => metadata.dependencies,
        extras => metadata.extras,
        requires_python => metadata.requires_python,
        classifiers => metadata.classifiers,
        ..first.clone()
    };
    let pkg = package_dir(&first.get_attr("package").map(|p| p.to_string()).unwrap_or_default());
    for (file, template) in [("_base_config.pxi", "_base_config.pxi.j2"), ("__init__.py", "__init__.py.j2")] {
        jobs.push((format!("{pkg}/{file}"), template, package_ctx.clone()));
    }
    if let Some(utils) = libraries.first().and_then(|(_, options, _)| options.package.utils.as_ref()) {
        // Versions in numeric order (9.5 before 10.0).
        let mut isa_releases: Vec<(&String, &[u32; 2])> = utils.isa_releases.iter().collect();
        isa_releases.sort_by_key(|(version, _)| {
            version.split('.').map(|part| part.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>()
        });
        let ctx = minijinja::context! { utils => utils, isa_releases => isa_releases, ..package_ctx.clone() };
        for (extension, template) in [("py", "utils.py.j2"), ("pyi", "utils.pyi.j2")] {
            jobs.push((format!("{pkg}/{}.{extension}", utils.module), template, ctx.clone()));
        }
    }
    if let Some(private) = libraries.first().and_then(|(_, options, _)| options.package.private.as_ref()) {
        let version = first.get_attr("package_version").map(|v| v.to_string()).unwrap_or_default();
        let version_tuple = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0).to_string()).collect::<Vec<_>>();
        let ctx = minijinja::context! { private => private, version_tuple => version_tuple.join(", "), ..package_ctx.clone() };
        let internal = &private.internal_package;
        for (file, template) in [
            (format!("{}.py", private.version_module), "_version.py.j2"),
            (format!("{internal}/__init__.py"), "_internal_init.py.j2"),
            (format!("{internal}/{}.py", private.errors_module), "_internal_errors.py.j2"),
            (format!("{internal}/{}.py", private.enum_module), "_internal_enum.py.j2"),
        ] {
            jobs.push((format!("{pkg}/{file}"), template, ctx.clone()));
        }
    }
    for (path, template) in [
        ("python/setup.py", "setup.py.j2"),
        ("python/pyproject.toml", "pyproject.toml.j2"),
        ("python/MANIFEST.in", "MANIFEST.in.j2"),
        ("python/README.md", "README.md.j2"),
        ("python/ctkgen_params_report.txt", "report.txt.j2"),
    ] {
        jobs.push((path.to_string(), template, package_ctx.clone()));
    }
    let mut files = jobs
        .into_par_iter()
        .with_max_len(1)
        .map(|(path, template, ctx)| Ok(OutputFile::text(path, render(&env, template, ctx)?)))
        .collect::<Result<Vec<_>, CythonEmitError>>()?;
    // Every value typed by an enum argument, by module and `function.param`: the decisions the
    // report lists, in a form tests read (`modules`), under the generated files' first line.
    let header_line = first.get_attr("header_line").map(|h| h.to_string()).unwrap_or_default();
    let typed_json = format!(
        "{{\"generated\": {},\n\"modules\": {}}}\n",
        serde_json::Value::String(header_line.clone()),
        serde_json::to_string_pretty(&typed_values).expect("typed values are plain data")
    );
    files.push(OutputFile::text("python/ctkgen_typed_values.json", typed_json));
    // The shared runtime is emitted as written, under the generated files' first line.
    for (file, source) in ctkgen_templates::CYTHON_RUNTIME {
        files.push(OutputFile::text(format!("{pkg}/{file}"), format!("{header_line}\n{source}")));
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    #[test]
    fn toml_strings_read_back_as_the_text() {
        for text in ["plain", r#"nvidia-foo; sys_platform == "linux""#, "back\\slash", "tab\tand\nnewline", "ünï"] {
            let document = format!("value = {}\n", super::toml_string(text));
            let read: toml::Value = toml::from_str(&document).unwrap();
            assert_eq!(read["value"].as_str(), Some(text), "{document}");
        }
    }
}
