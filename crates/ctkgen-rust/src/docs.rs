//! Doc comments: the model's Doxygen rendered as Markdown, with intra-doc links only to items the
//! generated crate defines, under the names it defines them by.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use ctkgen_ir::doc::{split_member, ParsedDocs};
use ctkgen_ir::Type;
use rayon::prelude::*;

use crate::names::{self, Name};
use crate::plan::{Member, Plan, RecordShape};

/// The link target of every name a comment may refer to, built once per crate from the plan.
/// Only looked up (every reference of every comment), never iterated, so hash maps.
pub struct DocLinks {
    /// C name (function, record, enum, typedef, constant, enum constant) to its Rust path.
    items: HashMap<String, String>,
    /// Record name or a typedef naming the record, to the record's members: C name to Rust path.
    members: HashMap<String, HashMap<String, String>>,
}

/// A raw identifier is left unlinked (shown as code) rather than spelled `r#` in a link.
fn linkable(name: &Name) -> Option<String> {
    let text = name.to_string();
    (!text.starts_with("r#")).then_some(text)
}

impl DocLinks {
    pub fn new(plan: &Plan) -> DocLinks {
        let mut items = HashMap::default();
        let mut members = HashMap::default();
        let mut add = |name: &str, path: Option<String>| {
            if let Some(path) = path {
                items.insert(name.to_string(), path);
            }
        };
        for f in &plan.functions {
            add(&f.function.name, linkable(&f.ident));
        }
        for t in &plan.typedefs {
            add(&t.name, linkable(&t.ident));
        }
        for c in &plan.constants {
            add(c.name, linkable(&c.ident));
        }
        for e in &plan.enums {
            let Some(type_path) = linkable(&e.ident) else { continue };
            for (c, planned) in e.enumeration.constants.iter().zip(&e.constants) {
                add(&c.name, linkable(&planned.ident).map(|ident| format!("{type_path}::{ident}")));
            }
            add(&e.enumeration.name, Some(type_path));
        }
        for r in &plan.records {
            let Some(type_path) = linkable(&r.ident) else { continue };
            // Members by their Rust names: field idents and bitfield getters.
            let mut rust_names = BTreeSet::new();
            if let RecordShape::Complete { members: planned, .. } = &r.shape {
                for member in planned {
                    match member {
                        Member::Field { ident, .. } => rust_names.extend(linkable(ident)),
                        Member::Bitfields { accessors, .. } => {
                            rust_names.extend(accessors.iter().filter_map(|a| linkable(&a.getter)))
                        }
                        Member::Padding { .. } => {}
                    }
                }
            }
            let fields: HashMap<String, String> = r
                .record
                .fields
                .iter()
                .filter(|f| rust_names.contains(&names::plain(&f.name)))
                .map(|f| (f.name.clone(), format!("{type_path}::{}", names::plain(&f.name))))
                .collect();
            for t in plan.typedefs.iter().filter(|t| matches!(&t.ty, Type::Record { name } if *name == r.record.name)) {
                members.insert(t.name.clone(), fields.clone());
            }
            members.insert(r.record.name.clone(), fields);
            add(&r.record.name, Some(type_path));
        }
        DocLinks { items, members }
    }

    fn resolve(&self, name: &str) -> Option<String> {
        match split_member(name) {
            None => self.items.get(name).cloned(),
            Some((record, member)) => self.members.get(record)?.get(member).cloned(),
        }
    }

    /// The rendered Markdown of a raw comment, or `None` when nothing is left of it.
    pub fn render(&self, raw: &Option<String>, parsed: &ParsedDocs) -> Option<String> {
        let raw = raw.as_deref()?;
        let text = parsed.get(raw).to_markdown(&|name| self.resolve(name));
        (!text.trim().is_empty()).then_some(text)
    }
}

/// Replaces every raw comment of the plan by its Markdown; comments render in parallel.
pub fn render_all(plan: &mut Plan, parsed: &ParsedDocs) {
    let links = DocLinks::new(plan);
    let render = |doc: &mut Option<String>| *doc = links.render(doc, parsed);
    plan.records.par_iter_mut().for_each(|r| {
        render(&mut r.doc);
        if let RecordShape::Complete { members, .. } = &mut r.shape {
            for member in members {
                match member {
                    Member::Field { doc, .. } => render(doc),
                    Member::Bitfields { accessors, .. } => accessors.iter_mut().for_each(|a| render(&mut a.doc)),
                    Member::Padding { .. } => {}
                }
            }
        }
    });
    plan.enums.par_iter_mut().for_each(|e| {
        render(&mut e.doc);
        e.constants.iter_mut().for_each(|c| render(&mut c.doc));
    });
    plan.typedefs.par_iter_mut().for_each(|t| render(&mut t.doc));
    plan.constants.par_iter_mut().for_each(|c| render(&mut c.doc));
    plan.functions.par_iter_mut().for_each(|f| render(&mut f.doc));
}
