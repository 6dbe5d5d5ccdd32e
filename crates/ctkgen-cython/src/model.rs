//! The passes: turn the IR into the view model the templates print. Every decision (names,
//! declaration order, storage of over-aligned records, conversions, output parameters, module
//! chunks) is made here.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, LibraryConventions};
use serde::Serialize;

use crate::types::{enum_class, ValueKind};
use crate::{CythonEmitError, CythonOptions};

mod classes;
mod compat_names;
mod constants;
mod cy_level;
mod docs;
mod functions;
mod guard;
mod member_docs;
mod members;
mod nameable;
mod param_kind;
mod pxd;
pub mod raising;
mod reuse;
mod sizes;

pub use classes::{EnumMemberView, EnumView, MemberView, RecordView, WrapperView};
pub use constants::ConstantView;
pub use cy_level::{CyAlias, CyHelper, CyLevel};
pub use functions::FunctionView;
pub use guard::LayoutAssert;
pub use members::{BytesMember, ListMember, ReprForm};
pub use param_kind::{Element, ObjectKind, ParamKind, ParamView};
pub use pxd::PxdItem;
pub use reuse::{DependencyBase, DependencyView, ReusedClass, ReusedRecordAlias};
pub use sizes::SizeView;

/// Results of up to this many items go through the reused-tuple helpers.
const RESULT_REUSE_MAX: usize = 5;

/// The files and modules of one library in the package, named after its Python module so that
/// several libraries share one package.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleNames {
    /// The Python module users import (`foo`).
    pub python: String,
    /// The Cython-level declarations (`cyfoo`).
    pub cython: String,
    /// The private modules: enums, handle and scalar classes, and the prefixes of the record
    /// and function chunks (`_foo_records_0`, ...).
    pub enums: String,
    pub types: String,
    pub records: String,
    pub functions: String,
    /// The C headers the Cython modules include: names for anonymous records, and the layout guard.
    pub types_header: String,
    pub layout_header: String,
}

impl ModuleNames {
    pub fn new(conventions: &LibraryConventions) -> ModuleNames {
        let module = &conventions.python.module;
        ModuleNames {
            python: module.clone(),
            cython: conventions.python.cython_module.clone(),
            enums: format!("_{module}_enums"),
            types: format!("_{module}_types"),
            records: format!("_{module}_records"),
            functions: format!("_{module}_functions"),
            types_header: format!("ctkgen_{module}_types.h"),
            layout_header: format!("ctkgen_{module}_layout_check.h"),
        }
    }
}

/// Where the loader looks for the library beyond the system loader's path.
#[derive(Debug, Serialize)]
pub struct LibrarySearchView {
    /// Relative to each `sys.path` folder: where the library's wheel for this major installs it.
    pub wheel_dir: Option<String>,
    /// The library's file name there: the soname, unless the wheel names it otherwise.
    pub wheel_file: String,
    /// Under the toolkit folder the home variable names.
    pub home_dirs: Vec<String>,
}

/// The loader module's view of the static archive linked into it.
#[derive(Debug, Serialize)]
pub struct StaticLibraryView {
    /// Relative to `python/`.
    pub archive: String,
    /// Every symbol the loader may look up (entry points, their per-thread variants, the
    /// versioned lookup), sorted bytewise as C's `strcmp` orders them and without repeats.
    pub symbols: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Model {
    pub header_line: String,
    pub package: String,
    /// This library's module and file names.
    pub names: ModuleNames,
    /// The library file, its major version filled in.
    pub soname: String,
    /// `None`: only the library-path variable and the system loader.
    pub library_search: Option<LibrarySearchView>,
    /// The library's static archive the package carries, linked into the loader module by the
    /// build; `None` when it carries none.
    pub static_library: Option<StaticLibraryView>,
    pub header: String,
    pub ctk: String,
    /// The CTK release, or `0.0.0` for a free-standing header: a valid package version.
    pub package_version: String,
    /// Licence expression and source repository for the package metadata.
    pub license: String,
    /// `None`: no repository is known, and the metadata names none.
    pub repository: Option<String>,
    /// Integer paths refuse non-integral floats instead of truncating them.
    pub strict_integers: bool,
    /// The bound library's names (status type, loader, lookup, version macro).
    pub conventions: LibraryConventions,
    /// The Python class of the status enum, when the IR declares it.
    pub result_class: Option<String>,
    /// The status value meaning success, from the IR.
    pub success_value: Option<String>,
    /// ABI symbol of the versioned entry-point lookup, when the IR declares it.
    pub proc_address_symbol: Option<String>,
    pub cuda_version: Option<u32>,
    pub cuda_major: Option<u32>,
    /// List arguments up to this many elements are converted into stack arrays.
    pub array_stack_len: usize,
    /// Freed aligned blocks kept for reuse by over-aligned record constructions.
    pub block_cache_slots: usize,
    /// Results of up to this many items go through the reused-tuple helpers.
    pub result_reuse_max: usize,
    pub pxd_items: Vec<PxdItem>,
    /// The Cython level beyond the header's declarations (constants, compatible names, helpers).
    pub cy_level: CyLevel,
    /// `#include` lines for the extra headers the IR was read with, after the main header.
    pub extra_includes: Vec<String>,
    pub anonymous_typedefs: Vec<String>,
    pub layout_asserts: Vec<LayoutAssert>,
    pub enums: Vec<EnumView>,
    pub records: Vec<RecordView>,
    /// Rendered one module at a time with their own context; templates that render the whole
    /// model see only the module names (`python_modules`), not a second copy of every item.
    #[serde(skip)]
    pub record_modules: Vec<Chunk<RecordView>>,
    pub handles: Vec<WrapperView>,
    pub scalars: Vec<WrapperView>,
    /// Classes of the libraries this one depends on that its module exports as its own.
    pub reused: Vec<ReusedClass>,
    pub reused_record_aliases: Vec<ReusedRecordAlias>,
    /// What the module's `sizeof` answers, by class name.
    pub sizes: Vec<SizeView>,
    /// The dependencies' classes that classes of this library derive from.
    pub dependency_bases: Vec<DependencyBase>,
    /// Functions beyond the declarations that make a record from its fields.
    pub record_helpers: Vec<RecordHelperView>,
    pub functions: Vec<FunctionView>,
    #[serde(skip)]
    pub function_modules: Vec<Chunk<FunctionView>>,
    /// The raise convention's function modules.
    #[serde(skip)]
    pub raise_modules: Vec<Chunk<raising::RaiseFunctionView>>,
    pub constants: Vec<ConstantView>,
    pub extension_modules: Vec<String>,
    /// The record modules, then the function modules, that the library's Python module re-exports.
    pub python_modules: Vec<String>,
    pub unclassified: Vec<String>,
    pub report: Vec<String>,
    /// The raise convention's functions and exception, for a library that follows it (its
    /// enums are [`Model::enums`], named by the convention; it has no handle or record classes).
    pub raise_api: Option<raising::RaiseView>,
    /// The loader module under `_internal`, for a library whose description asks for one.
    pub internal: Option<InternalView>,
    /// The package's private exception the library's function-not-found error derives from.
    pub function_not_found_base: Option<PrivateError>,
    /// Where the library's handle classes register for the package's native-handle function,
    /// when the package has one.
    pub handle_registry: Option<HandleRegistry>,
    /// The package's light integer enum base, which every enum of the module derives from
    /// (`None`: the package description names no private modules, and the enum module defines
    /// the same base under private names of its own).
    pub enum_base: Option<EnumBaseView>,
    /// Every value typed by an enum argument, as decided (`function.param`): written out as
    /// `ctkgen_typed_values.json`, which tests compare with the official module.
    #[serde(skip)]
    pub typed_values: BTreeMap<String, crate::typed_values::TypedView>,
}

/// The package's registry of native-handle getters: its module (relative to the package) and the
/// function that adds a class with its getter.
#[derive(Debug, Clone, Serialize)]
pub struct HandleRegistry {
    pub module: String,
    pub function: String,
}

impl HandleRegistry {
    fn of(package: &ctkgen_ir::PackageConventions) -> Option<HandleRegistry> {
        let utils = package.utils.as_ref()?;
        Some(HandleRegistry { module: utils.module.clone(), function: utils.add_handle_getter.clone() })
    }
}

/// An exception class of the package's private errors module.
#[derive(Debug, Clone, Serialize)]
pub struct PrivateError {
    /// Relative to the package: `_internal.utils`.
    pub module: String,
    pub class: String,
}

impl PrivateError {
    /// The base of every library's not-found error the package description names, checked to
    /// be one of its private errors.
    fn function_not_found(package: &ctkgen_ir::PackageConventions) -> Result<Option<PrivateError>, CythonEmitError> {
        let Some(private) = &package.private else { return Ok(None) };
        let Some(class) = &private.function_not_found_error else { return Ok(None) };
        if !private.errors.contains_key(class) {
            return Err(CythonEmitError::PackageDescription(format!(
                "function_not_found_error `{class}` is not one of its private errors ({})",
                private.errors.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        let module = format!("{}.{}", private.internal_package, private.errors_module);
        Ok(Some(PrivateError { module, class: class.clone() }))
    }
}

/// The enum base of the package's private modules, as the library modules import it.
#[derive(Debug, Clone, Serialize)]
pub struct EnumBaseView {
    /// Relative to the package: `_internal._fast_enum`.
    pub module: String,
    pub class: String,
    pub metaclass: String,
}

impl EnumBaseView {
    fn new(package: &ctkgen_ir::PackageConventions) -> Option<EnumBaseView> {
        let private = package.private.as_ref()?;
        Some(EnumBaseView {
            module: format!("{}.{}", private.internal_package, private.enum_module),
            class: private.enum_class.clone(),
            metaclass: private.enum_metaclass.clone(),
        })
    }
}

/// The library's loader module under the package's `_internal` folder.
#[derive(Debug, Clone, Serialize)]
pub struct InternalView {
    pub module: String,
    /// The text before and after the function's name in each key of the dict of addresses.
    pub key_before: String,
    pub key_after: String,
    /// The package the compatible module belongs to (its name without the module's).
    pub compatible_package: String,
}

impl InternalView {
    fn new(internal: &ctkgen_ir::InternalModule, conventions: &LibraryConventions) -> InternalView {
        let (before, after) = internal.key.split_once("{name}").unwrap_or((&internal.key, ""));
        let compatible = &conventions.python.compatible_module;
        InternalView {
            module: internal.module.clone(),
            key_before: before.to_string(),
            key_after: after.to_string(),
            compatible_package: compatible.rsplit_once('.').map_or(compatible.as_str(), |(p, _)| p).to_string(),
        }
    }
}

/// A record helper of the library's description, checked against the record it makes.
#[derive(Debug, Clone, Serialize)]
pub struct RecordHelperView {
    pub name: String,
    pub class: String,
    /// `(parameter, member)` in order.
    pub params: Vec<(String, String)>,
    pub status_first: bool,
}

fn record_helpers(model: &Model, conventions: &LibraryConventions) -> Result<Vec<RecordHelperView>, CythonEmitError> {
    let mut out = Vec::new();
    for (name, helper) in &conventions.python.record_helpers {
        let problem = |what: String| CythonEmitError::RecordHelper(format!("{name}: {what}"));
        let record = model
            .records
            .iter()
            .find(|r| r.class == helper.record || r.aliases.iter().any(|(alias, _)| *alias == helper.record))
            .ok_or_else(|| problem(format!("no record class `{}` in this module", helper.record)))?;
        if helper.params.len() != helper.fields.len() {
            return Err(problem(format!("{} parameters for {} fields", helper.params.len(), helper.fields.len())));
        }
        if let Some(field) = helper.fields.iter().find(|f| !record.members.iter().any(|m| &m.py_name == *f)) {
            return Err(problem(format!("`{}` has no member `{field}`", helper.record)));
        }
        if helper.status_first && model.result_class.is_none() {
            return Err(problem("a status first, but the library has no status enum".into()));
        }
        out.push(RecordHelperView {
            name: name.clone(),
            class: helper.record.clone(),
            params: helper.params.iter().cloned().zip(helper.fields.iter().cloned()).collect(),
            status_first: helper.status_first,
        });
    }
    Ok(out)
}

/// The toolkit's major version: the CTK release's first number, else the version macro's thousands.
fn ctk_major(api: &Api) -> Option<u32> {
    let from_ctk = api.provenance.ctk.as_deref().and_then(|ctk| ctk.split('.').next()?.parse().ok());
    from_ctk.or(api.provenance.cuda_version.map(|v| v / 1000))
}

/// The extra headers in reading order, each after what it requires.
fn extra_includes(api: &Api) -> Vec<String> {
    let mut lines = Vec::new();
    for extra in &api.provenance.extra_headers {
        lines.extend(extra.requires.iter().map(|r| format!("#include <{r}>")));
        lines.push(format!("#include \"{}\"", extra.header));
    }
    lines
}

#[derive(Debug, Serialize)]
pub struct Chunk<T> {
    pub module: String,
    pub items: Vec<T>,
    /// The classes the chunk imports at run time, each from the module that defines it.
    pub imports: Vec<ChunkImport>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ChunkImport {
    pub module: String,
    /// The name the chunk uses, and the name the module defines it under.
    pub class: String,
    pub source: String,
    pub kind: ClassKind,
}

/// What kind of class a name is, which decides how a module imports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassKind {
    Enum,
    /// A handle or scalar class.
    Wrapper,
    Record,
}

/// Where a class lives: its private module, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassHome {
    pub module: String,
    pub kind: ClassKind,
    /// The class's name in that module (another than the user's for a reused alias).
    pub source: String,
}

pub fn build(api: &Api, options: &CythonOptions) -> Result<Model, CythonEmitError> {
    build_with_docs(api, options, &ParsedDocs::unparsed(&options.conventions.doc_aliases))
}

pub fn build_with_docs(api: &Api, options: &CythonOptions, parsed: &ParsedDocs) -> Result<Model, CythonEmitError> {
    build_in_package(api, options, parsed, &[])
}

/// [`build`], taking the doc comments' parses from `parsed` where it has them: the parameter
/// classification and the docstrings read the same parse of each comment.
/// The model of one library of a package, which takes from `dependencies` (libraries of the
/// same package it depends on) the classes they already define.
pub fn build_in_package(
    api: &Api,
    options: &CythonOptions,
    parsed: &ParsedDocs,
    dependencies: &[&DependencyView<'_>],
) -> Result<Model, CythonEmitError> {
    let conventions = &options.conventions;
    if let Some(problem) = crate::names::ParamNames(&conventions.python.parameter_names).problem() {
        return Err(CythonEmitError::ParameterNames(problem));
    }
    let result_enum = conventions.result_enum(api);
    let major = ctk_major(api);
    let soname = conventions.soname(major).ok_or_else(|| CythonEmitError::UnknownMajor {
        library: conventions.library.clone(),
        header: api.provenance.header.clone(),
    })?;
    let search = &conventions.search;
    let wheel_dir = major.and_then(|m| search.wheel_dirs.get(&m.to_string())).cloned();
    let library_search = (wheel_dir.is_some() || !search.home_dirs.is_empty()).then(|| LibrarySearchView {
        wheel_dir,
        wheel_file: major.and_then(|m| search.wheel_files.get(&m.to_string())).cloned().unwrap_or(soname.clone()),
        home_dirs: search.home_dirs.clone(),
    });
    let own_types = pxd::ModuleTypes {
        abi: &options.overrides.abi,
        status_type: &conventions.result_type,
        module: format!("{}.{}", options.python_package, conventions.python.cython_module),
    };
    let mut model = Model {
        header_line: format!("# Generated by `{}`; do not edit.", options.command),
        package: options.python_package.clone(),
        names: ModuleNames::new(conventions),
        soname,
        library_search,
        static_library: None,
        header: api.provenance.header.clone(),
        ctk: api.provenance.ctk.clone().unwrap_or_else(|| "unknown".into()),
        package_version: api.provenance.ctk.clone().unwrap_or_else(|| "0.0.0".into()),
        license: options.license.clone(),
        repository: options.repository.clone(),
        strict_integers: options.strict_integers,
        conventions: conventions.clone(),
        result_class: result_enum.map(|e| enum_class(api, &e.name)),
        success_value: conventions.success_value(api).map(|v| v.to_string()),
        proc_address_symbol: conventions
            .proc_address
            .as_ref()
            .and_then(|lookup| api.function(&lookup.function))
            .map(|f| f.symbol.clone()),
        cuda_version: api.provenance.cuda_version,
        cuda_major: api.provenance.cuda_version.map(|v| v / 1000),
        array_stack_len: 16,
        block_cache_slots: 32,
        result_reuse_max: RESULT_REUSE_MAX,
        pxd_items: pxd::pxd_items(api, &own_types),
        cy_level: CyLevel::default(),
        extra_includes: extra_includes(api),
        anonymous_typedefs: nameable::anonymous_typedefs(api),
        layout_asserts: guard::layout_asserts(api, conventions),
        enums: classes::enums(api),
        records: Vec::new(),
        record_modules: Vec::new(),
        handles: Vec::new(),
        scalars: Vec::new(),
        reused: Vec::new(),
        reused_record_aliases: Vec::new(),
        sizes: Vec::new(),
        dependency_bases: Vec::new(),
        record_helpers: Vec::new(),
        functions: Vec::new(),
        function_modules: Vec::new(),
        raise_modules: Vec::new(),
        constants: Vec::new(),
        extension_modules: Vec::new(),
        python_modules: Vec::new(),
        unclassified: Vec::new(),
        report: Vec::new(),
        raise_api: None,
        internal: conventions.python.internal.as_ref().map(|internal| InternalView::new(internal, conventions)),
        function_not_found_base: PrivateError::function_not_found(&options.package)?,
        handle_registry: HandleRegistry::of(&options.package),
        enum_base: EnumBaseView::new(&options.package),
        typed_values: BTreeMap::new(),
    };
    let raise_names = match conventions.python.convention {
        ctkgen_ir::CallConvention::Raise => conventions.python.raise_names.as_ref(),
        ctkgen_ir::CallConvention::Status => None,
    };
    // The raise convention has handles as ints and no record classes.
    if let Some(names) = raise_names {
        model.enums = raising::enums(api, names);
    } else {
        model.records = classes::records(api, options);
        let (handles, scalars) = classes::wrappers(api);
        model.handles = handles;
        model.scalars = scalars;
        model.sizes = sizes::sizes(api, &model.records, &model.handles, &model.scalars);
    }
    for dependency in dependencies {
        reuse::reuse(&mut model, api, dependency);
    }
    model.dependency_bases.sort();
    model.dependency_bases.dedup();
    model.record_helpers = record_helpers(&model, conventions)?;
    let foreign: Vec<&Api> = dependencies.iter().map(|d| d.api).collect();
    let (functions, report, unclassified, typed_values) =
        functions::functions(api, &foreign, options, model.result_class.as_deref(), parsed);
    if options.strict_params && !unclassified.is_empty() {
        let names = unclassified.iter().map(|u| format!("{}.{} ({})", u.function, u.param, u.c_type)).collect();
        return Err(CythonEmitError::UnclassifiedParams(names));
    }
    // Locals derive from the Python names: two parameters spelled alike would share them.
    for f in &functions {
        let mut seen = std::collections::BTreeSet::new();
        if let Some(p) = f.params.iter().find(|p| !seen.insert(p.py_name.as_str())) {
            return Err(CythonEmitError::ParameterNames(format!(
                "{}: two parameters are spelled `{}`",
                f.name, p.py_name
            )));
        }
    }
    model.unclassified = unclassified.iter().map(|u| format!("{}.{}: {}", u.function, u.param, u.c_type)).collect();
    model.report = report;
    model.typed_values = typed_values;
    model.cy_level = cy_level::cy_level(api, options, &functions, own_types.defines(api), own_types.status_defines())?;
    model.functions = functions;
    // Linked by the build only where the description says how (its system libraries).
    let linked = options.packaging.static_library.as_ref().filter(|_| conventions.static_library.is_some());
    if let Some(archive) = linked {
        let entry_points = model.functions.iter().map(|f| (&f.symbol, &f.per_thread_symbol));
        let extra = model.cy_level.extra_functions.iter().map(|f| (&f.symbol, &f.per_thread_symbol));
        let mut symbols: Vec<String> = entry_points
            .chain(extra)
            .flat_map(|(symbol, per_thread)| std::iter::once(symbol).chain(per_thread))
            .chain(&model.proc_address_symbol)
            .cloned()
            .collect();
        symbols.sort();
        symbols.dedup();
        model.static_library = Some(StaticLibraryView { archive: archive.clone(), symbols });
    }
    model.constants = constants::constants(api);
    let doc_targets = render_docs(&mut model, api, parsed);
    if let Some(names) = raise_names {
        let mut raise = raising::build(api, options, names, &model.functions, &model.enums)?;
        docs::raise_docstrings(&doc_targets, api, &mut raise, parsed);
        model.result_class = Some(raise.result_class.clone());
        model.constants.clear();
        model.raise_api = Some(raise);
    }

    let class_module = class_homes(&model, options, dependencies);
    model.record_modules = chunk(
        &model.records,
        options.records_per_module.max(1),
        &model.names.records,
        |r| {
            let mut needed = Vec::new();
            for m in &r.members {
                collect_class(&m.kind, &mut needed);
                if let Some(list) = &m.list {
                    collect_class(&list.element, &mut needed);
                }
            }
            needed
        },
        &class_module,
    );
    if let Some(raise) = &model.raise_api {
        // One module of the convention's functions: they import nothing but the enums.
        model.raise_modules = chunk(
            &raise.functions,
            options.functions_per_module.max(1),
            &model.names.functions,
            |_| Vec::new(),
            &class_module,
        );
        model.python_modules = model.raise_modules.iter().map(|c| c.module.clone()).collect();
        model.extension_modules =
            std::iter::once(model.names.cython.clone()).chain(model.python_modules.iter().cloned()).collect();
        return Ok(model);
    }
    model.function_modules = chunk(
        &model.functions,
        options.functions_per_module.max(1),
        &model.names.functions,
        // The status class is imported once by every function module, not per use.
        |f| {
            f.params
                .iter()
                .flat_map(|p| p.class.iter().chain(&p.extra_classes).cloned())
                .filter(|class| Some(class) != model.result_class.as_ref())
                .collect()
        },
        &class_module,
    );
    model.python_modules = model
        .record_modules
        .iter()
        .map(|c| c.module.clone())
        .chain(model.function_modules.iter().map(|c| c.module.clone()))
        .collect();
    model.extension_modules = [model.names.cython.clone(), model.names.types.clone()]
        .into_iter()
        .chain(model.python_modules.iter().cloned())
        .collect();
    Ok(model)
}

/// Replaces every raw comment of the views by its docstring; the link targets are built once,
/// from the finished views, so a reference links only to what the module defines. The functions
/// render on a second thread (each item on its own, so the output does not depend on it).
/// Returns the link targets, for the docstrings the raise convention renders after.
fn render_docs(model: &mut Model, api: &Api, parsed: &ParsedDocs) -> docs::DocTargets {
    let doc_targets = docs::DocTargets::new(model);
    let targets = &doc_targets;
    let Model { enums, records, handles, scalars, functions, .. } = model;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for f in functions.iter_mut() {
                // The comment names the C parameters, in the order the view has them.
                let c_names: Vec<&str> = (api.function(&f.name).map(|c| c.params.as_slice()))
                    .unwrap_or_default()
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                let role = |name: &str| {
                    let p = f.params.get(c_names.iter().position(|c| *c == name)?)?;
                    match (&p.arg_type, p.output) {
                        (Some(_), _) => Some(docs::ParamRole::Argument),
                        (None, true) => {
                            Some(docs::ParamRole::Returned { name: p.py_name.clone(), ty: p.stub_type.clone() })
                        }
                        (None, false) => None,
                    }
                };
                f.doc = targets.function_docstring(&f.doc, parsed, &role);
            }
        });
        for e in enums.iter_mut() {
            e.doc = targets.docstring(&e.doc, &e.class, parsed);
            for member in &mut e.members {
                member.doc = targets.docstring(&member.doc, "", parsed);
            }
        }
        for r in records.iter_mut() {
            r.doc = targets.docstring(&r.doc, &r.class, parsed);
            for member in &mut r.members {
                member.doc = targets.docstring(&member.doc, "", parsed);
            }
        }
        for w in handles.iter_mut().chain(scalars.iter_mut()) {
            w.doc = targets.docstring(&w.doc, &w.class, parsed);
        }
    });
    doc_targets
}

fn collect_class(kind: &ValueKind, out: &mut Vec<String>) {
    match kind {
        ValueKind::Enum { class }
        | ValueKind::Scalar { class }
        | ValueKind::Handle { class }
        | ValueKind::Record { class, .. } => out.push(class.clone()),
        ValueKind::Array { element, .. } => collect_class(element, out),
        _ => {}
    }
}

/// Which module defines each Python class the library's modules use: its own, and those it
/// takes from its dependencies.
pub fn class_homes(
    model: &Model,
    options: &CythonOptions,
    dependencies: &[&DependencyView<'_>],
) -> BTreeMap<String, ClassHome> {
    let mut map = BTreeMap::new();
    let mut own = |name: &str, module: &str, kind| {
        map.insert(name.to_string(), ClassHome { module: module.to_string(), kind, source: name.to_string() });
    };
    for e in &model.enums {
        for name in std::iter::once(&e.class).chain(&e.aliases) {
            own(name, &model.names.enums, ClassKind::Enum);
        }
    }
    for w in model.handles.iter().chain(&model.scalars) {
        own(&w.class, &model.names.types, ClassKind::Wrapper);
    }
    for (i, r) in model.records.iter().enumerate() {
        let module = format!("{}_{}", model.names.records, i / options.records_per_module.max(1));
        own(&r.class, &module, ClassKind::Record);
        for (alias, _) in &r.aliases {
            own(alias, &module, ClassKind::Record);
        }
    }
    for alias in &model.reused_record_aliases {
        own(&alias.class, &model.names.types, ClassKind::Record);
    }
    for reused in &model.reused {
        let theirs = dependencies.iter().find_map(|d| d.class_homes.get(&reused.source));
        if let Some(home) = theirs {
            map.insert(reused.name.clone(), home.clone());
        }
    }
    // A dependency's class the library does not re-export (a value typed by the dependency's
    // type) is imported from where the dependency defines it.
    for dependency in dependencies {
        for (name, home) in &dependency.class_homes {
            map.entry(name.clone()).or_insert_with(|| home.clone());
        }
    }
    map
}

fn chunk<T: Clone>(
    items: &[T],
    size: usize,
    prefix: &str,
    needs: impl Fn(&T) -> Vec<String>,
    class_module: &BTreeMap<String, ClassHome>,
) -> Vec<Chunk<T>> {
    let mut chunks = Vec::new();
    for (i, group) in items.chunks(size).enumerate() {
        let module = format!("{prefix}_{i}");
        let mut imports = BTreeSet::new();
        for item in group {
            for class in needs(item) {
                if let Some(home) = class_module.get(&class) {
                    if home.module != module {
                        imports.insert(ChunkImport {
                            module: home.module.clone(),
                            class,
                            source: home.source.clone(),
                            kind: home.kind,
                        });
                    }
                }
            }
        }
        chunks.push(Chunk { module, items: group.to_vec(), imports: imports.into_iter().collect() });
    }
    if chunks.is_empty() {
        chunks.push(Chunk { module: format!("{prefix}_0"), items: Vec::new(), imports: Vec::new() });
    }
    chunks
}
