//! Record naming: which anonymous records C code can name, and how.

use std::collections::BTreeSet;

use ctkgen_ir::{Api, Record};

use crate::types::record_cy_name;

/// Whether the record sits in an unnamed member: it has no name and its members are flattened.
pub(super) fn is_unnamed_member(api: &Api, record: &Record) -> bool {
    match &record.parent {
        Some(path) if record.anonymous => api
            .record(&path.record)
            .and_then(|p| p.fields.iter().find(|f| f.name == path.field))
            .is_some_and(|f| f.anonymous),
        _ => false,
    }
}

/// Whether C code and Python can name the record: tagged, typedef'd, or a named member's type.
pub(super) fn is_nameable(api: &Api, record: &Record) -> bool {
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
pub(super) fn c_spelling(record: &Record) -> String {
    if record.anonymous {
        record_cy_name(record)
    } else {
        format!("{} {}", record.kind.c_keyword(), record.name)
    }
}

/// `typedef __typeof__(((P *)0)->member) Name;` for every nested anonymous record C leaves unnamed.
pub(super) fn anonymous_typedefs(api: &Api) -> Vec<String> {
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
