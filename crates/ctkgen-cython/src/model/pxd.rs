//! The declarations of the library's Cython-level module (its `.pxd`), in an order Cython accepts.

use std::collections::BTreeSet;

use ctkgen_ir::{Api, Enum, Record, RecordKind, Type};
use serde::Serialize;

use super::nameable::{is_nameable, is_unnamed_member};
use crate::abi::{module_type_cname, CythonAbi};
use crate::names::py_ident;
use crate::types::{cy_decl, record_cy_name};

/// One declaration of the Cython-level module, already in an order Cython accepts.
#[derive(Debug, Serialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum PxdItem {
    ForwardRecord { keyword: String, name: String },
    Enum { header: String, constants: Vec<String> },
    Record { header: String, fields: Vec<String> },
    Typedef { decl: String },
}

/// How the module declares a type the ABI table lists as the compatible module's own: its C name
/// (`NAME "cname"`), which the types header defines as the header's type.
pub(super) struct ModuleTypes<'a> {
    pub abi: &'a CythonAbi,
    /// The library's status enum, which also declares the table's `status_members`.
    pub status_type: &'a str,
    /// The Cython module's dotted name (`pkg.cyfoo`).
    pub module: String,
}

impl ModuleTypes<'_> {
    /// `name`, followed by its C name when it is one of the module's own types.
    fn declarator(&self, name: &str) -> String {
        match self.abi.module_types.contains(name) {
            true => format!("{name} \"{}\"", module_type_cname(&self.module, name)),
            false => name.to_string(),
        }
    }

    /// The table's added members of `e`, when it is the library's status enum.
    fn status_members(&self, e: &Enum) -> impl Iterator<Item = (&String, &i64)> {
        let status = e.name == self.status_type || e.typedef_names.iter().any(|t| t == self.status_type);
        self.abi.status_members.iter().filter(move |_| status)
    }

    /// `(name, C value)` of each added member of the status enum, for the types header.
    pub fn status_defines(&self) -> Vec<(String, String)> {
        (self.abi.status_members.iter())
            .map(|(name, value)| (name.clone(), format!("(({}){value})", self.status_type)))
            .collect()
    }

    /// `(C name, header name)` of each listed type the IR declares, for the types header.
    pub fn defines(&self, api: &Api) -> Vec<(String, String)> {
        let declared = |name: &str| {
            api.typedef(name).is_some()
                || api.enums.iter().any(|e| e.name == name)
                || api.record(name).is_some_and(|r| !r.anonymous)
        };
        (self.abi.module_types.iter())
            .filter(|name| declared(name))
            .map(|name| (module_type_cname(&self.module, name), name.clone()))
            .collect()
    }
}

pub(super) fn pxd_items(api: &Api, own: &ModuleTypes<'_>) -> Vec<PxdItem> {
    let mut items = Vec::new();
    for record in &api.records {
        if !record.anonymous {
            items.push(PxdItem::ForwardRecord {
                keyword: match record.kind {
                    RecordKind::Struct => "struct".into(),
                    RecordKind::Union => "union".into(),
                },
                name: own.declarator(&record.name),
            });
        }
    }
    for e in &api.enums {
        let untagged = e.typedef_names.first() == Some(&e.name);
        items.push(PxdItem::Enum {
            header: format!("{} {}", if untagged { "ctypedef enum" } else { "cdef enum" }, own.declarator(&e.name)),
            constants: (e.constants.iter().map(|c| c.name.clone()))
                .chain(own.status_members(e).map(|(name, _)| name.clone()))
                .collect(),
        });
    }
    let mut state = OrderState { done: BTreeSet::new(), items, own };
    for t in &api.typedefs {
        visit_typedef(api, &t.name, &mut state);
    }
    for r in &api.records {
        visit_record(api, &r.name, &mut state);
    }
    state.items
}

struct OrderState<'a> {
    done: BTreeSet<String>,
    items: Vec<PxdItem>,
    own: &'a ModuleTypes<'a>,
}

fn visit_type(api: &Api, ty: &Type, by_value: bool, state: &mut OrderState<'_>) {
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

fn visit_typedef(api: &Api, name: &str, state: &mut OrderState<'_>) {
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
    let declarator = state.own.declarator(name);
    state.items.push(PxdItem::Typedef { decl: format!("ctypedef {}", cy_decl(api, &def.ty, &declarator)) });
}

fn visit_record(api: &Api, name: &str, state: &mut OrderState<'_>) {
    let key = format!("record:{name}");
    if !state.done.insert(key) {
        return;
    }
    let Some(record) = api.record(name) else { return };
    if !record.complete || is_unnamed_member(api, record) || !is_nameable(api, record) {
        return;
    }
    let mut fields = Vec::new();
    for (field, _) in flattened_fields(api, record) {
        visit_type(api, &field.ty, true, state);
        fields.push(cy_decl(api, &field.ty, &py_ident(&field.name)));
    }
    let keyword = record.kind.c_keyword();
    let header = if record.anonymous {
        format!("ctypedef {keyword} {}", record_cy_name(record))
    } else {
        format!("cdef {keyword} {}", state.own.declarator(&record.name))
    };
    state.items.push(PxdItem::Record { header, fields });
}

/// Every member reachable by name, with unnamed members expanded in place, and its offset in
/// bits from the start of `record`.
pub(super) fn flattened_fields<'a>(api: &'a Api, record: &'a Record) -> Vec<(&'a ctkgen_ir::Field, u64)> {
    fn walk<'a>(api: &'a Api, record: &'a Record, base_bits: u64, out: &mut Vec<(&'a ctkgen_ir::Field, u64)>) {
        for field in &record.fields {
            let offset = base_bits + field.offset_bits;
            let unnamed_member = match &field.ty {
                Type::Record { name } if field.anonymous => api.record(name),
                _ => None,
            };
            match unnamed_member {
                Some(inner) => walk(api, inner, offset, out),
                None => out.push((field, offset)),
            }
        }
    }
    let mut out = Vec::new();
    walk(api, record, 0, &mut out);
    out
}
