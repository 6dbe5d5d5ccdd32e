//! The passes: turn the IR into the view model the templates print. Every decision (names,
//! declaration order, storage of over-aligned records, conversions, output parameters, module
//! chunks) is made here.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::layout::PYTHON_OBJECT_ALIGNMENT;
use ctkgen_ir::{Api, ConstantValue, Record, RecordKind, Type};
use serde::Serialize;

use crate::names::{docstring, py_ident, string_literal};
use crate::params::{classify, ParamClass, Unclassified};
use crate::types::{
    cy_decl, enum_class, record_class, record_cy_name, scalar_primitive, typedef_base, typedef_class, value_kind,
    TypedefClass, ValueKind,
};
use crate::{CythonEmitError, CythonOptions};

#[derive(Debug, Serialize)]
pub struct Model {
    pub header_line: String,
    pub package: String,
    pub header: String,
    pub ctk: String,
    pub cuda_version: Option<u32>,
    pub cuda_major: Option<u32>,
    pub python_alignment: u64,
    /// List arguments up to this many elements are converted into stack arrays.
    pub array_stack_len: usize,
    /// Freed aligned blocks kept for reuse by over-aligned record constructions.
    pub block_cache_slots: usize,
    /// Results of up to this many items go through the reused-tuple helpers.
    pub result_reuse_max: usize,
    pub pxd_items: Vec<PxdItem>,
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
    pub functions: Vec<FunctionView>,
    #[serde(skip)]
    pub function_modules: Vec<Chunk<FunctionView>>,
    pub constants: Vec<ConstantView>,
    pub extension_modules: Vec<String>,
    /// The record modules, then the function modules, that `driver.py` re-exports.
    pub python_modules: Vec<String>,
    pub unclassified: Vec<String>,
    pub report: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Chunk<T> {
    pub module: String,
    pub items: Vec<T>,
    /// `(module, class)` pairs the chunk imports at run time.
    pub imports: Vec<(String, String)>,
}

/// One declaration in `cydriver.pxd`, already in an order Cython accepts.
#[derive(Debug, Serialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum PxdItem {
    ForwardRecord { keyword: String, name: String },
    Enum { header: String, constants: Vec<String> },
    Record { header: String, fields: Vec<String> },
    Typedef { decl: String },
}

#[derive(Debug, Serialize)]
pub struct LayoutAssert {
    pub expr: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct EnumView {
    pub class: String,
    pub aliases: Vec<String>,
    pub members: Vec<(String, String)>,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemberView {
    pub name: String,
    pub py_name: String,
    pub kind: ValueKind,
    /// Cython spelling of the member type (for casts).
    pub cy_type: String,
    /// For arrays: Cython spelling of the element type.
    pub element_cy_type: String,
    /// A `void *` member: it takes a wrapper's value (a CUdeviceptr's address), as `void *`
    /// arguments do, not the address of the wrapper's storage.
    pub void_pointer: bool,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordView {
    pub class: String,
    /// The C record name (IR name).
    pub record: String,
    pub cy_name: String,
    pub type_id: usize,
    pub size: u64,
    pub align: u64,
    /// Storage decision: a separately allocated block aligned to `align`.
    pub aligned_block: bool,
    /// Negative control: over-aligned value stored by value inside the object.
    pub legacy_inline: bool,
    pub members: Vec<MemberView>,
    /// Typedef names that become subclasses, in base-before-derived order: `(class, base)`.
    pub aliases: Vec<(String, String)>,
    /// The record has a pointer member, here or in a nested record, whose setter keeps the
    /// object it points into alive; only such records are garbage-collector objects.
    pub holds_refs: bool,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct WrapperView {
    pub class: String,
    pub base: Option<String>,
    pub cy_type: String,
    pub signed: bool,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ParamView {
    pub c_name: String,
    pub py_name: String,
    /// One of: value, handle, address, str, record_in, record_value, array, kernel_params,
    /// out_value, out_enum, out_object, out_address, out_bytes, out_array, inout.
    pub kind: String,
    /// The argument as written in the `def` signature, when it is one.
    pub arg: Option<String>,
    /// The expression passed to the C function.
    pub call: String,
    /// Cython type of the parameter (or of the pointee for outputs and arrays).
    pub cy_type: String,
    /// Python class involved (record, handle, scalar, enum), if any.
    pub class: String,
    /// For arrays: `int` or `handle` element conversion.
    pub element: String,
    /// Length parameter (python name) for out arrays.
    pub len: String,
    /// Expression giving the Python value returned for an output.
    pub result: String,
    /// Base wrapper of an output object: `_Record`, `_Handle`, `_Scalar`.
    pub wrapper: String,
    pub pointer_field: String,
    /// For out arrays: the length parameter is in/out, its value on return counts the elements.
    pub len_inout: bool,
    /// For lists of records: the record's alignment, for the temporary C array.
    pub align: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub name: String,
    /// The name `cuGetProcAddress` is asked for with `first_version` (the IR's `lookup_name`).
    pub lookup_name: String,
    pub symbol: String,
    pub per_thread_symbol: Option<String>,
    pub first_version: u32,
    pub per_thread_first_version: u32,
    /// `CUresult cuX(...)` in Cython syntax without the return type and name.
    pub c_params: String,
    pub c_arg_names: String,
    /// Parameter types, for the function-pointer typedef.
    pub c_types: String,
    pub params: Vec<ParamView>,
    pub outputs: usize,
    /// Whether the call runs with the GIL released (all but the `keep_gil` overrides).
    pub release_gil: bool,
    pub doc: String,
    pub signature: String,
    pub stub_returns: String,
}

#[derive(Debug, Serialize)]
pub struct ConstantView {
    pub name: String,
    /// Python expression for the value.
    pub value: String,
}

pub fn build(api: &Api, options: &CythonOptions) -> Result<Model, CythonEmitError> {
    let ctk = api.provenance.ctk.clone().unwrap_or_else(|| "unknown".into());
    let mut model = Model {
        header_line: format!("# Generated by `{}`; do not edit.", options.command),
        package: options.python_package.clone(),
        header: api.provenance.header.clone(),
        ctk,
        cuda_version: api.provenance.cuda_version,
        cuda_major: api.provenance.cuda_version.map(|v| v / 1000),
        python_alignment: PYTHON_OBJECT_ALIGNMENT,
        array_stack_len: 16,
        block_cache_slots: 32,
        result_reuse_max: 5,
        pxd_items: pxd_items(api),
        anonymous_typedefs: anonymous_typedefs(api),
        layout_asserts: layout_asserts(api),
        enums: enums(api),
        records: Vec::new(),
        record_modules: Vec::new(),
        handles: Vec::new(),
        scalars: Vec::new(),
        functions: Vec::new(),
        function_modules: Vec::new(),
        constants: Vec::new(),
        extension_modules: Vec::new(),
        python_modules: Vec::new(),
        unclassified: Vec::new(),
        report: Vec::new(),
    };
    model.records = records(api, options);
    let (handles, scalars) = wrappers(api);
    model.handles = handles;
    model.scalars = scalars;
    let (functions, report, unclassified) = functions(api, options);
    if options.strict_params && !unclassified.is_empty() {
        let names = unclassified.iter().map(|u| format!("{}.{} ({})", u.function, u.param, u.c_type)).collect();
        return Err(CythonEmitError::UnclassifiedParams(names));
    }
    model.unclassified = unclassified.iter().map(|u| format!("{}.{}: {}", u.function, u.param, u.c_type)).collect();
    model.report = report;
    model.functions = functions;
    model.constants = constants(api);

    let class_module = class_modules(&model, options);
    model.record_modules = chunk(
        &model.records,
        options.records_per_module.max(1),
        "_records",
        |r| {
            let mut needed = Vec::new();
            for m in &r.members {
                collect_class(&m.kind, &mut needed);
            }
            needed
        },
        &class_module,
    );
    model.function_modules = chunk(
        &model.functions,
        options.functions_per_module.max(1),
        "_functions",
        |f| f.params.iter().filter(|p| !p.class.is_empty()).map(|p| p.class.clone()).collect(),
        &class_module,
    );
    model.python_modules = model
        .record_modules
        .iter()
        .map(|c| c.module.clone())
        .chain(model.function_modules.iter().map(|c| c.module.clone()))
        .collect();
    model.extension_modules = ["cydriver", "_base", "_types"]
        .iter()
        .map(|s| s.to_string())
        .chain(model.python_modules.iter().cloned())
        .collect();
    Ok(model)
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

/// Which module defines each Python class.
fn class_modules(model: &Model, options: &CythonOptions) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for e in &model.enums {
        map.insert(e.class.clone(), "_enums".to_string());
    }
    for w in model.handles.iter().chain(&model.scalars) {
        map.insert(w.class.clone(), "_types".to_string());
    }
    for (i, r) in model.records.iter().enumerate() {
        let module = format!("_records_{}", i / options.records_per_module.max(1));
        map.insert(r.class.clone(), module.clone());
        for (alias, _) in &r.aliases {
            map.insert(alias.clone(), module.clone());
        }
    }
    map
}

fn chunk<T: Clone>(
    items: &[T],
    size: usize,
    prefix: &str,
    needs: impl Fn(&T) -> Vec<String>,
    class_module: &BTreeMap<String, String>,
) -> Vec<Chunk<T>> {
    let mut chunks = Vec::new();
    for (i, group) in items.chunks(size).enumerate() {
        let module = format!("{prefix}_{i}");
        let mut imports = BTreeSet::new();
        for item in group {
            for class in needs(item) {
                if let Some(m) = class_module.get(&class) {
                    if *m != module {
                        imports.insert((m.clone(), class));
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

// ---------------------------------------------------------------------------------------------
// Record naming: which anonymous records C code can name, and how.

/// Whether the record sits in an unnamed member: it has no name and its members are flattened.
fn is_unnamed_member(api: &Api, record: &Record) -> bool {
    match &record.parent {
        Some(path) if record.anonymous => api
            .record(&path.record)
            .and_then(|p| p.fields.iter().find(|f| f.name == path.field))
            .is_some_and(|f| f.anonymous),
        _ => false,
    }
}

/// Whether C code and Python can name the record: tagged, typedef'd, or a named member's type.
fn is_nameable(api: &Api, record: &Record) -> bool {
    if !record.anonymous || record.typedef_name.is_some() {
        return true;
    }
    match &record.parent {
        Some(_) => !is_unnamed_member(api, record),
        None => false,
    }
}

/// The nearest record C code can name that reaches `name`'s members directly.
fn nameable_root<'a>(api: &'a Api, name: &str) -> Option<&'a Record> {
    let record = api.record(name)?;
    if is_unnamed_member(api, record) {
        nameable_root(api, &record.parent.as_ref()?.record)
    } else if is_nameable(api, record) {
        Some(record)
    } else {
        None
    }
}

/// How C spells a nameable record (`struct X`, a typedef, or the synthetic name from `ctkgen_types.h`).
fn c_spelling(record: &Record) -> String {
    if record.anonymous {
        record_cy_name(record)
    } else {
        format!("{} {}", record.kind.c_keyword(), record.name)
    }
}

/// `typedef __typeof__(((P *)0)->member) Name;` for every nested anonymous record C leaves unnamed.
fn anonymous_typedefs(api: &Api) -> Vec<String> {
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for record in &api.records {
        anonymous_typedef(api, record, &mut done, &mut out);
    }
    out
}

fn anonymous_typedef(api: &Api, record: &Record, done: &mut BTreeSet<String>, out: &mut Vec<String>) {
    if done.contains(&record.name) || !record.anonymous || record.typedef_name.is_some() || !is_nameable(api, record) {
        return;
    }
    let Some(path) = &record.parent else { return };
    let Some(root) = nameable_root(api, &path.record) else { return };
    anonymous_typedef(api, root, done, out);
    done.insert(record.name.clone());
    out.push(format!("typedef __typeof__((({} *)0)->{}) {};", c_spelling(root), path.field, record.name));
}

// ---------------------------------------------------------------------------------------------
// cydriver.pxd declarations in dependency order.

fn pxd_items(api: &Api) -> Vec<PxdItem> {
    let mut items = Vec::new();
    for record in &api.records {
        if !record.anonymous {
            items.push(PxdItem::ForwardRecord {
                keyword: match record.kind {
                    RecordKind::Struct => "struct".into(),
                    RecordKind::Union => "union".into(),
                },
                name: record.name.clone(),
            });
        }
    }
    for e in &api.enums {
        let untagged = e.typedef_names.first() == Some(&e.name);
        items.push(PxdItem::Enum {
            header: if untagged { format!("ctypedef enum {}", e.name) } else { format!("cdef enum {}", e.name) },
            constants: e.constants.iter().map(|c| c.name.clone()).collect(),
        });
    }
    let mut state = OrderState { done: BTreeSet::new(), items };
    for t in &api.typedefs {
        visit_typedef(api, &t.name, &mut state);
    }
    for r in &api.records {
        visit_record(api, &r.name, &mut state);
    }
    state.items
}

struct OrderState {
    done: BTreeSet<String>,
    items: Vec<PxdItem>,
}

fn visit_type(api: &Api, ty: &Type, by_value: bool, state: &mut OrderState) {
    match ty {
        Type::Typedef { name } => visit_typedef(api, name, state),
        Type::Record { name } => {
            let anonymous = api.record(name).is_some_and(|r| r.anonymous);
            if by_value || anonymous {
                visit_record(api, name, state);
            }
        }
        Type::Pointer { pointee, .. } => visit_type(api, pointee, false, state),
        Type::Array { element, .. } => visit_type(api, element, by_value, state),
        Type::Function { ret, params, .. } => {
            visit_type(api, ret, false, state);
            for p in params {
                visit_type(api, p, false, state);
            }
        }
        _ => {}
    }
}

fn visit_typedef(api: &Api, name: &str, state: &mut OrderState) {
    let key = format!("typedef:{name}");
    if !state.done.insert(key) {
        return;
    }
    let Some(def) = api.typedef(name) else { return };
    // The typedef that names an untagged enum or record is that declaration itself.
    if crate::types::builtin_typedef(name).is_some() {
        return;
    }
    match &def.ty {
        Type::Enum { name: e } if e == name => return,
        Type::Record { name: r } if r == name => {
            visit_record(api, r, state);
            return;
        }
        Type::Record { name: r }
            if api.record(r).is_some_and(|r| r.typedef_name.as_deref() == Some(name) && r.anonymous) =>
        {
            visit_record(api, r, state);
            return;
        }
        _ => {}
    }
    visit_type(api, &def.ty, true, state);
    state.items.push(PxdItem::Typedef { decl: format!("ctypedef {}", cy_decl(api, &def.ty, &py_safe_c(name))) });
}

/// C names used as declarators in the pxd keep their spelling (Cython accepts them in extern blocks).
fn py_safe_c(name: &str) -> String {
    name.to_string()
}

fn visit_record(api: &Api, name: &str, state: &mut OrderState) {
    let key = format!("record:{name}");
    if !state.done.insert(key) {
        return;
    }
    let Some(record) = api.record(name) else { return };
    if !record.complete || is_unnamed_member(api, record) || !is_nameable(api, record) {
        return;
    }
    let mut fields = Vec::new();
    flattened_fields(api, record, &mut |field| {
        visit_type(api, &field.ty, true, state);
        fields.push(cy_decl(api, &field.ty, &py_ident(&field.name)));
    });
    let keyword = record.kind.c_keyword();
    let header = if record.anonymous {
        format!("ctypedef {keyword} {}", record_cy_name(record))
    } else {
        format!("cdef {keyword} {}", record.name)
    };
    state.items.push(PxdItem::Record { header, fields });
}

/// Calls `each` for every member reachable by name, expanding unnamed members in place.
fn flattened_fields<'a>(api: &'a Api, record: &'a Record, each: &mut dyn FnMut(&'a ctkgen_ir::Field)) {
    for field in &record.fields {
        if field.anonymous {
            if let Type::Record { name } = &field.ty {
                if let Some(inner) = api.record(name) {
                    flattened_fields(api, inner, each);
                    continue;
                }
            }
        }
        each(field);
    }
}

/// Flattened members with their offsets in bytes from the start of `record`.
fn flattened_offsets<'a>(api: &'a Api, record: &'a Record, base_bits: u64, out: &mut Vec<(&'a ctkgen_ir::Field, u64)>) {
    for field in &record.fields {
        if field.anonymous {
            if let Type::Record { name } = &field.ty {
                if let Some(inner) = api.record(name) {
                    flattened_offsets(api, inner, base_bits + field.offset_bits, out);
                    continue;
                }
            }
        }
        out.push((field, base_bits + field.offset_bits));
    }
}

// ---------------------------------------------------------------------------------------------
// The build-time guard.

fn layout_asserts(api: &Api) -> Vec<LayoutAssert> {
    let from = format!(
        "{} CUDA_VERSION {}",
        api.provenance.header,
        api.provenance.cuda_version.map(|v| v.to_string()).unwrap_or_else(|| "unknown".into())
    );
    let mut out = Vec::new();
    for record in &api.records {
        if !record.complete || !is_nameable(api, record) {
            continue;
        }
        let spelled = c_spelling(record);
        let name = &record.name;
        out.push(LayoutAssert {
            expr: format!("sizeof({spelled}) == {}", record.size),
            message: string_literal(&format!("ctkgen: {name} differs: sizeof is not {} as in {from}", record.size)),
        });
        out.push(LayoutAssert {
            expr: format!("_Alignof({spelled}) == {}", record.align),
            message: string_literal(&format!("ctkgen: {name} differs: alignof is not {} as in {from}", record.align)),
        });
        let mut fields = Vec::new();
        flattened_offsets(api, record, 0, &mut fields);
        for (field, bits) in fields {
            if field.bit_width.is_some() || bits % 8 != 0 {
                continue;
            }
            out.push(LayoutAssert {
                expr: format!("offsetof({spelled}, {}) == {}", field.name, bits / 8),
                message: string_literal(&format!(
                    "ctkgen: {name} differs: offset of {} is not {} as in {from}",
                    field.name,
                    bits / 8
                )),
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Enums, records, wrappers.

fn enums(api: &Api) -> Vec<EnumView> {
    let mut typedef_aliases = crate::aliases::enum_typedef_aliases(api);
    api.enums
        .iter()
        .map(|e| {
            let class = enum_class(api, &e.name);
            let mut aliases: Vec<String> = e.typedef_names.iter().filter(|n| **n != class).cloned().collect();
            if e.name != class {
                aliases.push(e.name.clone());
            }
            aliases.extend(typedef_aliases.remove(&e.name).unwrap_or_default());
            EnumView {
                class,
                aliases,
                members: e.constants.iter().map(|c| (c.name.clone(), c.value.to_string())).collect(),
                doc: e.doc.as_deref().map(docstring).unwrap_or_default(),
            }
        })
        .collect()
}

fn records(api: &Api, options: &CythonOptions) -> Vec<RecordView> {
    // Alias typedefs per record, base before derived.
    let mut aliases: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut ordered: Vec<&str> = Vec::new();
    fn depth(api: &Api, name: &str) -> usize {
        match api.typedef(name).map(|d| &d.ty) {
            Some(Type::Typedef { name: inner }) => 1 + depth(api, inner),
            _ => 0,
        }
    }
    let mut typedef_names: Vec<&str> = api.typedefs.iter().map(|t| t.name.as_str()).collect();
    typedef_names.sort_by_key(|n| (depth(api, n), n.to_string()));
    for name in typedef_names {
        if let Some(TypedefClass::RecordAlias { record }) = typedef_class(api, name) {
            if let Some(base) = typedef_base(api, name) {
                aliases.entry(record).or_default().push((name.to_string(), base));
                ordered.push(name);
            }
        }
    }
    let mut views = Vec::new();
    for (type_id, record) in api.records.iter().filter(|r| r.complete && is_nameable(api, r)).enumerate() {
        let over_aligned = record.is_over_aligned(PYTHON_OBJECT_ALIGNMENT);
        let mut members = Vec::new();
        flattened_fields(api, record, &mut |field| {
            let kind = value_kind(api, &field.ty);
            let element_cy_type = match api.resolve(&field.ty) {
                Type::Array { element, .. } => qualify(api, element, &cy_decl(api, element, "")),
                _ => String::new(),
            };
            members.push(MemberView {
                name: field.name.clone(),
                py_name: py_ident(&field.name),
                kind: supported_member(kind),
                cy_type: qualify(api, &field.ty, &cy_decl(api, &field.ty, "")),
                element_cy_type,
                void_pointer: matches!(api.resolve(&field.ty), Type::Pointer { pointee, .. } if matches!(api.resolve(pointee), Type::Void)),
                doc: field.doc.as_deref().map(docstring).unwrap_or_default(),
            });
        });
        views.push(RecordView {
            class: record_class(record),
            record: record.name.clone(),
            cy_name: record_cy_name(record),
            type_id,
            size: record.size,
            align: record.align,
            aligned_block: over_aligned && !options.legacy_inline_layout,
            legacy_inline: over_aligned && options.legacy_inline_layout,
            members,
            aliases: aliases.remove(&record.name).unwrap_or_default(),
            holds_refs: false,
            doc: record.doc.as_deref().map(docstring).unwrap_or_default(),
        });
    }
    mark_records_holding_refs(&mut views);
    views
}

/// Sets `holds_refs` on every record with a pointer member of its own or inside a record it
/// contains by value (arrays included). By-value containment cannot be cyclic.
fn mark_records_holding_refs(views: &mut [RecordView]) {
    fn holds(kind: &ValueKind, by_record: &BTreeMap<&str, &RecordView>, memo: &mut BTreeMap<String, bool>) -> bool {
        match kind {
            ValueKind::Pointer => true,
            ValueKind::Array { element, .. } => holds(element, by_record, memo),
            ValueKind::Record { record, .. } => record_holds(record, by_record, memo),
            _ => false,
        }
    }
    fn record_holds(record: &str, by_record: &BTreeMap<&str, &RecordView>, memo: &mut BTreeMap<String, bool>) -> bool {
        if let Some(&known) = memo.get(record) {
            return known;
        }
        let found = by_record
            .get(record)
            .is_some_and(|view| view.members.iter().any(|member| holds(&member.kind, by_record, memo)));
        memo.insert(record.to_string(), found);
        found
    }
    let mut memo = BTreeMap::new();
    let marks: Vec<bool> = {
        let by_record: BTreeMap<&str, &RecordView> = views.iter().map(|v| (v.record.as_str(), v)).collect();
        views.iter().map(|v| record_holds(&v.record, &by_record, &mut memo)).collect()
    };
    for (view, mark) in views.iter_mut().zip(marks) {
        view.holds_refs = mark;
    }
}

/// Members the record classes can convert; anything else is exposed as raw bytes.
fn supported_member(kind: ValueKind) -> ValueKind {
    match kind {
        ValueKind::Array { element, len } => match *element {
            ValueKind::Int
            | ValueKind::Float
            | ValueKind::Enum { .. }
            | ValueKind::Scalar { .. }
            | ValueKind::Handle { .. }
            | ValueKind::Pointer
            | ValueKind::Record { .. } => ValueKind::Array { element, len },
            _ => ValueKind::Opaque,
        },
        other => other,
    }
}

fn wrappers(api: &Api) -> (Vec<WrapperView>, Vec<WrapperView>) {
    let mut handles = Vec::new();
    let mut scalars = Vec::new();
    // Base classes first: sort by typedef depth.
    let mut names: Vec<&ctkgen_ir::Typedef> = api.typedefs.iter().collect();
    fn depth(api: &Api, name: &str) -> usize {
        match api.typedef(name).map(|d| &d.ty) {
            Some(Type::Typedef { name: inner }) => 1 + depth(api, inner),
            _ => 0,
        }
    }
    names.sort_by_key(|t| (depth(api, &t.name), t.name.clone()));
    for def in names {
        let base = match &def.ty {
            Type::Typedef { name } if typedef_class(api, name).is_some() => Some(name.clone()),
            _ => None,
        };
        let doc = def.doc.as_deref().map(docstring).unwrap_or_default();
        match typedef_class(api, &def.name) {
            Some(TypedefClass::Handle) => handles.push(WrapperView {
                class: def.name.clone(),
                base,
                cy_type: def.name.clone(),
                signed: false,
                doc,
            }),
            Some(TypedefClass::Scalar) => scalars.push(WrapperView {
                class: def.name.clone(),
                base,
                cy_type: def.name.clone(),
                signed: scalar_primitive(api, &def.ty).is_some_and(|p| p.is_signed_integer()),
                doc,
            }),
            _ => {}
        }
    }
    (handles, scalars)
}

// ---------------------------------------------------------------------------------------------
// Functions.

fn functions(api: &Api, options: &CythonOptions) -> (Vec<FunctionView>, Vec<String>, Vec<Unclassified>) {
    let mut views = Vec::new();
    let mut report = Vec::new();
    let mut unclassified = Vec::new();
    for function in &api.functions {
        let returns_result = matches!(&function.ret, Type::Typedef { name } if name == "CUresult");
        if !returns_result {
            report.push(format!(
                "{}: skipped, returns {} instead of CUresult",
                function.name,
                ctkgen_ir::abi::c_decl(api, &function.ret, "")
            ));
            continue;
        }
        let decisions = classify(api, function, &options.overrides);
        let mut classes = Vec::new();
        for (param, decision) in function.params.iter().zip(decisions) {
            let (class, reason) = match decision {
                Ok(d) => (d.class, d.reason),
                Err(u) => {
                    report.push(format!(
                        "{}.{}: UNCLASSIFIED ({}), passed as a raw address",
                        u.function, u.param, u.c_type
                    ));
                    unclassified.push(u);
                    (ParamClass::Address, "unclassified")
                }
            };
            if reason != "by value" {
                report.push(format!("{}.{}: {} ({reason})", function.name, param.name, class_label(&class)));
            }
            classes.push(class);
        }
        // Length parameters that go in and come back: their out arrays read the new count.
        let inout_names: Vec<&str> = function
            .params
            .iter()
            .zip(&classes)
            .filter(|(_, c)| matches!(c, ParamClass::InOut(_)))
            .map(|(p, _)| p.name.as_str())
            .collect();
        let params: Vec<ParamView> = function
            .params
            .iter()
            .zip(classes)
            .map(|(param, class)| param_view(api, &param.name, &param.ty, class, &inout_names))
            .collect();
        let c_params: Vec<String> = function.params.iter().map(|p| cy_decl(api, &p.ty, &py_ident(&p.name))).collect();
        let c_types: Vec<String> = function.params.iter().map(|p| cy_decl(api, &p.ty, "")).collect();
        let outputs = params.iter().filter(|p| !p.result.is_empty()).count();
        // Length parameters of out arrays stay inputs; everything else in signature order.
        let signature: Vec<String> = params.iter().filter_map(|p| p.arg.as_ref().map(|_| p.py_name.clone())).collect();
        let mut stub_returns = vec!["CUresult".to_string()];
        stub_returns.extend(params.iter().filter(|p| !p.result.is_empty()).map(stub_type));
        views.push(FunctionView {
            name: function.name.clone(),
            lookup_name: function.lookup_name.clone(),
            symbol: function.symbol.clone(),
            per_thread_symbol: function.per_thread_symbol.clone(),
            first_version: function.first_version.unwrap_or(0),
            per_thread_first_version: function.per_thread_first_version.or(function.first_version).unwrap_or(0),
            c_params: c_params.join(", "),
            c_arg_names: function.params.iter().map(|p| py_ident(&p.name)).collect::<Vec<_>>().join(", "),
            c_types: c_types.join(", "),
            params,
            outputs,
            release_gil: !options.overrides.keep_gil.contains(&function.name),
            doc: function.doc.as_deref().map(docstring).unwrap_or_default(),
            signature: signature.join(", "),
            stub_returns: format!("tuple[{}]", stub_returns.join(", ")),
        });
    }
    (views, report, unclassified)
}

fn class_label(class: &ParamClass) -> &'static str {
    match class {
        ParamClass::Value(_) => "value",
        ParamClass::Str => "string",
        ParamClass::Address => "address",
        ParamClass::RecordIn { .. } => "record input",
        ParamClass::Array(_) => "input list",
        ParamClass::RecordArray { .. } => "input list of records",
        ParamClass::OutString => "output string",
        ParamClass::KernelParams => "kernel parameters",
        ParamClass::Out(_) => "output",
        ParamClass::OutArray { .. } => "output array",
        ParamClass::OutBytes { .. } => "output bytes",
        ParamClass::OutBorrowed { .. } => "output array owned by the driver",
        ParamClass::InOut(_) => "in/out",
    }
}

fn stub_type(p: &ParamView) -> String {
    match p.kind.as_str() {
        "out_bytes" | "out_string" => "bytes".into(),
        "out_array" | "out_borrowed" => "list".into(),
        "out_address" => "int".into(),
        _ if !p.class.is_empty() => p.class.clone(),
        _ => "int".into(),
    }
}

fn empty_param(c_name: &str) -> ParamView {
    ParamView {
        c_name: c_name.to_string(),
        py_name: py_ident(c_name),
        kind: String::new(),
        arg: None,
        call: String::new(),
        cy_type: String::new(),
        class: String::new(),
        element: String::new(),
        len: String::new(),
        result: String::new(),
        wrapper: String::new(),
        pointer_field: String::new(),
        len_inout: false,
        align: 1,
    }
}

fn pointee_of(api: &Api, ty: &Type) -> Type {
    let mut current = ty;
    loop {
        match current {
            Type::Pointer { pointee, .. } => return (**pointee).clone(),
            Type::Typedef { name } => match api.typedef(name) {
                Some(def) => current = &def.ty,
                None => return Type::Void,
            },
            _ => return Type::Void,
        }
    }
}

fn param_view(api: &Api, name: &str, ty: &Type, class: ParamClass, inout_names: &[&str]) -> ParamView {
    let mut p = empty_param(name);
    let py = p.py_name.clone();
    let c_type = qualify(api, ty, &cy_decl(api, ty, ""));
    match class {
        ParamClass::Value(kind) => match kind {
            ValueKind::Int | ValueKind::Scalar { .. } | ValueKind::Float => {
                p.kind = "value".into();
                p.arg = Some(format!("{} {py}", qualify(api, ty, &cy_decl(api, ty, ""))));
                p.call = py.clone();
                if let ValueKind::Scalar { class } = kind {
                    p.class = class;
                }
            }
            ValueKind::Enum { class } => {
                p.kind = "value".into();
                p.arg = Some(format!("long long {py}"));
                p.call = format!("<{c_type}>{py}");
                p.class = class;
            }
            ValueKind::Handle { class } => {
                p.kind = "handle".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("<{c_type}>_p_{py}");
                p.class = class;
            }
            ValueKind::Record { class, .. } => {
                p.kind = "record_value".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("(<{c_type}*>_p_{py})[0]");
                p.class = class;
            }
            _ => {
                p.kind = "address".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("<{c_type}>_p_{py}");
            }
        },
        ParamClass::Str => {
            p.kind = "str".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::Address => {
            p.kind = "address".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::RecordIn { class, .. } => {
            p.kind = "record_in".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
            p.class = class;
        }
        ParamClass::Array(element) => {
            let pointee = pointee_of(api, ty);
            p.kind = "array".into();
            p.arg = Some(format!("object {py}"));
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            p.call = format!("<{c_type}>_a_{py}");
            p.element = element_conversion(&element).into();
        }
        ParamClass::RecordArray { class, record } => {
            let pointee = pointee_of(api, ty);
            p.kind = "record_array".into();
            p.arg = Some(format!("object {py}"));
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            p.call = format!("<{c_type}>_a_{py}");
            p.class = class;
            p.align = api.record(&record).map(|r| r.align).unwrap_or(1);
        }
        ParamClass::OutString => {
            p.kind = "out_string".into();
            p.cy_type = "const char*".into();
            p.call = format!("&_o_{py}");
            p.result = format!("(None if _o_{py} == NULL else <bytes>_o_{py})");
        }
        ParamClass::KernelParams => {
            p.kind = "kernel_params".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::Out(kind) => {
            let pointee = pointee_of(api, ty);
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            match kind {
                ValueKind::Int | ValueKind::Float => {
                    p.kind = "out_value".into();
                    p.call = format!("&_o_{py}");
                    p.result = format!("_o_{py}");
                }
                ValueKind::Enum { class } => {
                    p.kind = "out_enum".into();
                    p.call = format!("&_o_{py}");
                    p.result = format!("_enum_value(_E_{class}, _o_{py})");
                    p.class = class;
                }
                ValueKind::Pointer => {
                    p.kind = "out_address".into();
                    p.call = format!("<{c_type}>&_o_{py}");
                    p.result = format!("<size_t>_o_{py}");
                    p.cy_type = "void*".into();
                }
                ValueKind::Scalar { ref class }
                | ValueKind::Handle { ref class }
                | ValueKind::Record { ref class, .. } => {
                    let class = class.clone();
                    let (wrapper, field) = match kind {
                        ValueKind::Scalar { .. } => ("_Scalar", "_pvt_ptr"),
                        ValueKind::Handle { .. } => ("_Handle", "_pvt_ptr"),
                        _ => ("_Record", "_pvt_addr"),
                    };
                    p.kind = "out_object".into();
                    p.wrapper = wrapper.into();
                    p.pointer_field = field.into();
                    p.call = format!("<{c_type}>(<{wrapper}>_o_{py}).{field}");
                    p.result = format!("_o_{py}");
                    p.class = class;
                }
                _ => unreachable!("out_class admits only the kinds above"),
            }
        }
        ParamClass::OutBytes { len } => {
            let pointee = pointee_of(api, ty);
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>_a_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_bytes".into();
            // Data, not text: every byte comes back.
            p.element = "raw".into();
        }
        ParamClass::OutBorrowed { element, len } => {
            let inner = pointee_of(api, &pointee_of(api, ty));
            p.cy_type = qualify(api, &inner, &cy_decl(api, &inner, ""));
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>&_o_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_borrowed".into();
            p.element = element_conversion(&element).into();
            match element {
                ValueKind::Handle { class }
                | ValueKind::Scalar { class }
                | ValueKind::Record { class, .. }
                | ValueKind::Enum { class } => p.class = class,
                _ => {}
            }
        }
        ParamClass::OutArray { element, len } => {
            let pointee = pointee_of(api, ty);
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            p.len_inout = inout_names.contains(&len.as_str());
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>_a_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_array".into();
            p.element = element_conversion(&element).into();
            match element {
                ValueKind::CharArray { .. } => p.kind = "out_bytes".into(),
                ValueKind::Handle { class } | ValueKind::Scalar { class } | ValueKind::Record { class, .. } => {
                    p.class = class
                }
                ValueKind::Enum { class } => p.class = class,
                _ => {}
            }
        }
        ParamClass::InOut(kind) => {
            let pointee = pointee_of(api, ty);
            p.cy_type = qualify(api, &pointee, &cy_decl(api, &pointee, ""));
            p.kind = "inout".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("&_o_{py}");
            p.result = match &kind {
                ValueKind::Enum { class } => format!("_enum_value(_E_{class}, _o_{py})"),
                ValueKind::Handle { class } => format!("_new_handle(_C_{class}, <void*>_o_{py})"),
                ValueKind::Scalar { class } => format!("_new_scalar(_C_{class}, <long long>_o_{py})"),
                _ => format!("_o_{py}"),
            };
            if let ValueKind::Enum { class } | ValueKind::Handle { class } | ValueKind::Scalar { class } = &kind {
                p.class = class.clone();
            }
            p.element = element_conversion(&kind).into();
        }
    }
    p
}

/// How one element of a list converts to and from C: `handle`, `scalar`, `enum`, `record`,
/// `address`, `float` or `int`.
fn element_conversion(kind: &ValueKind) -> &'static str {
    match kind {
        ValueKind::Handle { .. } => "handle",
        ValueKind::Scalar { .. } => "scalar",
        ValueKind::Enum { .. } => "enum",
        ValueKind::Record { .. } => "record",
        ValueKind::Pointer => "address",
        ValueKind::Float => "float",
        _ => "int",
    }
}

/// Prefixes every API type name in a Cython spelling with `cydriver.`.
fn qualify(api: &Api, _ty: &Type, spelled: &str) -> String {
    let spelled = spelled.replace("cydriver.", "");
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let known = (api.typedef(word).is_some() && crate::types::builtin_typedef(word).is_none())
                || api.record(word).is_some()
                || api.enumeration(word).is_some()
                || api.records.iter().any(|r| r.typedef_name.as_deref() == Some(word.as_str()));
            if known {
                out.push_str("cydriver.");
            }
            out.push_str(word);
            word.clear();
        }
    };
    for c in spelled.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// Constants.

fn constants(api: &Api) -> Vec<ConstantView> {
    api.constants
        .iter()
        .filter_map(|c| {
            let literal = match &c.value {
                ConstantValue::Int(v) => v.to_string(),
                ConstantValue::Float(v) if v.is_finite() => format!("{v:?}"),
                ConstantValue::Float(_) => return None,
                ConstantValue::Str(s) => format!("\"{}\"", string_literal(s)),
            };
            let value = match (value_kind(api, &c.ty), &c.value) {
                (ValueKind::Handle { class } | ValueKind::Scalar { class }, ConstantValue::Int(v)) => {
                    // Cast macros such as `((CUstream)0x1)`: the handle type, two's complement.
                    let wrapped = if *v < 0 { (*v as i64 as u64).to_string() } else { v.to_string() };
                    let wrapped = if matches!(value_kind(api, &c.ty), ValueKind::Scalar { .. }) {
                        v.to_string()
                    } else {
                        wrapped
                    };
                    format!("{class}({wrapped})")
                }
                _ => literal,
            };
            Some(ConstantView { name: c.name.clone(), value })
        })
        .collect()
}
