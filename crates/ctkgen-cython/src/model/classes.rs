//! The Python classes: enums, records and the handle and integer wrappers.

use std::collections::BTreeMap;

use ctkgen_ir::layout::PYTHON_OBJECT_ALIGNMENT;
use ctkgen_ir::{Api, Type};
use serde::Serialize;

use super::members::{
    bytes_member, list_members, record_array_member, struct_class, BytesMember, ListMember, RecordArrayMember, ReprForm,
};
use super::nameable::is_nameable;
use super::pxd::flattened_fields;
use crate::names::py_ident;
use crate::params::Override;
use crate::types::{
    cy_qualified, enum_class, int_range, record_class, record_cy_name, scalar_primitive, typedef_base, typedef_class,
    value_kind, IntRange, TypedefClass, ValueKind,
};
use crate::CythonOptions;

#[derive(Debug, Serialize)]
pub struct EnumView {
    pub class: String,
    pub aliases: Vec<String>,
    pub members: Vec<EnumMemberView>,
    /// The docstring (the raw comment until the docs pass renders it), as every `doc` here.
    pub doc: String,
}

#[derive(Debug, Serialize)]
pub struct EnumMemberView {
    pub name: String,
    /// The value as a Python literal.
    pub value: String,
    pub doc: String,
    /// The member's `__doc__`: the header comment as the compatible package renders it
    /// (`member_docs`); the stubs show `doc`.
    pub member_doc: Option<String>,
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
    /// For arrays of records: the struct's own class (`members::struct_class`).
    pub element_base: String,
    /// The range check of an integer, integer-typedef or enum member (of its elements, for arrays).
    pub range: Option<IntRange>,
    /// A `void *` member: it takes a wrapper's value (a device address), as `void *`
    /// arguments do, not the address of the wrapper's storage.
    pub void_pointer: bool,
    /// A `void **` member that holds a launch's kernel parameters (an override says which): it
    /// takes every form the `kernelParams` argument takes.
    pub kernel_params: bool,
    /// An integer-typedef member with a wrapper class (a device address, a fixed-width
    /// integer): None sets it to 0, as cuda.bindings does.
    pub none_is_zero: bool,
    /// A `T *` member counted by a sibling: a list of elements in Python.
    pub list: Option<ListMember>,
    /// A pointer to records with no count beside it: it takes an address, and a list of records
    /// copied into an array the record keeps, as cuda.bindings takes it.
    pub record_array: Option<RecordArrayMember>,
    /// A character array: bytes in Python.
    pub bytes: Option<BytesMember>,
    /// One C value (an integer, float, enum member, integer wrapper or handle) written by one
    /// checked conversion: the record's `__setattr__` writes it directly, before the generic
    /// attribute path, which costs more than the write itself.
    pub direct_write: bool,
    /// How `repr()` prints the member.
    pub repr: ReprForm,
    /// The member's annotation in the type stubs.
    pub stub_type: String,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordView {
    pub class: String,
    /// The C record name (IR name).
    pub record: String,
    pub cy_name: String,
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
    /// The name the compatible module gives this (untagged, nested) record: a module-level
    /// alias of the class.
    pub compat_alias: Option<String>,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct WrapperView {
    pub class: String,
    pub base: Option<String>,
    /// The private module of the library this one depends on that defines `base`, when it does.
    pub base_module: Option<String>,
    pub cy_type: String,
    pub signed: bool,
    /// The range check of an integer typedef's values (None for handles).
    pub range: Option<IntRange>,
    pub doc: String,
}

pub(super) fn enums(api: &Api) -> Vec<EnumView> {
    let mut typedef_aliases = crate::aliases::enum_typedef_aliases(api);
    let link_names = super::member_docs::LinkNames::new(api);
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
                members: in_member_order(e.constants.iter().collect(), |c| c.value)
                    .into_iter()
                    .map(|c| EnumMemberView {
                        name: c.name.clone(),
                        value: c.value.to_string(),
                        doc: c.doc.clone().unwrap_or_default(),
                        member_doc: super::member_docs::member_doc(c.doc.as_deref(), &link_names),
                    })
                    .collect(),
                doc: e.doc.clone().unwrap_or_default(),
            }
        })
        .collect()
}

/// An enum's members in the order the Python class lists them (iteration, `__members__`): by
/// value, as the compatible package orders them, names of one value in the header's order (the
/// first is the member, the others its aliases).
pub(super) fn in_member_order<T>(mut members: Vec<T>, value: impl Fn(&T) -> i128) -> Vec<T> {
    members.sort_by_key(value);
    members
}

pub(super) fn records(api: &Api, options: &CythonOptions) -> Vec<RecordView> {
    let cy_module = options.conventions.python.cython_module.as_str();
    // Alias typedefs per record, base before derived.
    let mut aliases: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut typedef_names: Vec<&str> = api.typedefs.iter().map(|t| t.name.as_str()).collect();
    typedef_names.sort_by_key(|n| (typedef_depth(api, n), n.to_string()));
    for name in typedef_names {
        if let Some(TypedefClass::RecordAlias { record }) = typedef_class(api, name) {
            if let Some(base) = typedef_base(api, name) {
                aliases.entry(record).or_default().push((name.to_string(), base));
            }
        }
    }
    let mut compat_aliases = match &options.conventions.python.anonymous_record_prefix {
        Some(prefix) => super::compat_names::anonymous_record_aliases(api, prefix),
        None => BTreeMap::new(),
    };
    let mut views = Vec::new();
    for record in api.records.iter().filter(|r| r.complete && is_nameable(api, r)) {
        let over_aligned = record.is_over_aligned(PYTHON_OBJECT_ALIGNMENT);
        let mut members = Vec::new();
        let fields: Vec<&ctkgen_ir::Field> = flattened_fields(api, record).into_iter().map(|(f, _)| f).collect();
        let mut lists = list_members(api, cy_module, &record.name, &fields, &options.overrides);
        for field in fields {
            let kind = value_kind(api, &field.ty);
            let list = lists.remove(&field.name);
            let kernel_params = options.overrides.is_kernel_params(&record.name, &field.name);
            let record_array =
                if list.is_none() && !kernel_params { record_array_member(api, &field.ty) } else { None };
            let bytes = bytes_member(api, &field.ty);
            let void_pointer = matches!(api.resolve(&field.ty), Type::Pointer { pointee, .. } if matches!(api.resolve(pointee), Type::Void));
            let repr = match (&kind, &bytes) {
                (_, Some(_)) if options.overrides.member(&record.name, &field.name) == Some(&Override::ReprHex) => {
                    ReprForm::HexBytes
                }
                (ValueKind::Record { .. }, _) => ReprForm::Nested,
                (ValueKind::Enum { .. }, _) => ReprForm::Member,
                _ if void_pointer && !kernel_params => ReprForm::Hex,
                _ => ReprForm::Value,
            };
            let stub_type = match (&list, &bytes) {
                (Some(list), _) => format!("list[{}]", element_stub(&list.element)),
                (_, Some(_)) => "bytes".to_string(),
                _ => "Any".to_string(),
            };
            let none_is_zero = matches!(kind, ValueKind::Scalar { .. });
            let direct_write = list.is_none()
                && bytes.is_none()
                && !kernel_params
                && matches!(
                    kind,
                    ValueKind::Int
                        | ValueKind::Float
                        | ValueKind::Enum { .. }
                        | ValueKind::Scalar { .. }
                        | ValueKind::Handle { .. }
                );
            let element_cy_type = match api.resolve(&field.ty) {
                Type::Array { element, .. } => cy_qualified(api, element, cy_module),
                _ => String::new(),
            };
            let element_base = match &kind {
                ValueKind::Array { element, .. } => struct_class(api, element),
                _ => String::new(),
            };
            members.push(MemberView {
                name: field.name.clone(),
                py_name: py_ident(&field.name),
                kind: supported_member(kind),
                cy_type: cy_qualified(api, &field.ty, cy_module),
                element_cy_type,
                element_base,
                // A bitfield holds only its own width.
                range: int_range(api, &field.ty).map(|r| match field.bit_width {
                    Some(width) => r.narrowed(u64::from(width)),
                    None => r,
                }),
                void_pointer,
                kernel_params,
                none_is_zero,
                list,
                record_array,
                bytes,
                direct_write,
                repr,
                stub_type,
                doc: field.doc.clone().unwrap_or_default(),
            });
        }
        views.push(RecordView {
            class: record_class(record),
            record: record.name.clone(),
            cy_name: record_cy_name(record),
            size: record.size,
            align: record.align,
            aligned_block: over_aligned && !options.legacy_inline_layout,
            legacy_inline: over_aligned && options.legacy_inline_layout,
            members,
            aliases: aliases.remove(&record.name).unwrap_or_default(),
            holds_refs: false,
            compat_alias: compat_aliases.remove(&record.name),
            doc: record.doc.clone().unwrap_or_default(),
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

/// The stub annotation of one element of a list member.
fn element_stub(kind: &ValueKind) -> String {
    match kind {
        ValueKind::Record { class, .. }
        | ValueKind::Handle { class }
        | ValueKind::Scalar { class }
        | ValueKind::Enum { class } => class.clone(),
        ValueKind::Float => "float".into(),
        ValueKind::Int => "int".into(),
        _ => "Any".into(),
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

pub(super) fn wrappers(api: &Api) -> (Vec<WrapperView>, Vec<WrapperView>) {
    let mut handles = Vec::new();
    let mut scalars = Vec::new();
    // Base classes first: sort by typedef depth.
    let mut names: Vec<&ctkgen_ir::Typedef> = api.typedefs.iter().collect();
    names.sort_by_key(|t| (typedef_depth(api, &t.name), t.name.clone()));
    for def in names {
        let base = match &def.ty {
            Type::Typedef { name } if typedef_class(api, name).is_some() => Some(name.clone()),
            _ => None,
        };
        let doc = def.doc.clone().unwrap_or_default();
        match typedef_class(api, &def.name) {
            Some(TypedefClass::Handle) => handles.push(WrapperView {
                class: def.name.clone(),
                base,
                base_module: None,
                cy_type: def.name.clone(),
                signed: false,
                range: None,
                doc,
            }),
            Some(TypedefClass::Scalar) => scalars.push(WrapperView {
                class: def.name.clone(),
                base,
                base_module: None,
                cy_type: def.name.clone(),
                signed: scalar_primitive(api, &def.ty).is_some_and(|p| p.is_signed_integer()),
                range: int_range(api, &def.ty),
                doc,
            }),
            _ => {}
        }
    }
    (handles, scalars)
}

/// How many typedefs `name` goes through before reaching a type that is not a typedef; sorting
/// by it puts base classes before the classes derived from them.
fn typedef_depth(api: &Api, name: &str) -> usize {
    match api.typedef(name).map(|d| &d.ty) {
        Some(Type::Typedef { name: inner }) => 1 + typedef_depth(api, inner),
        _ => 0,
    }
}
