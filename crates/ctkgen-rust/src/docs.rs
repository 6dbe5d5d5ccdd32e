//! Doc comments: the model's Doxygen rendered as Markdown, with intra-doc links only to items the
//! generated crate defines, under the names it defines them by.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use ctkgen_ir::doc::{split_member, ParsedDocs};
use ctkgen_ir::Type;
use rayon::prelude::*;

use crate::features::Features;
use crate::merge::{Item, Merged};
use crate::names::{self, Name};
use crate::plan::{Member, Plan, RecordShape};

/// The link target of every name a comment may refer to, built once per plan. Only looked up
/// (every reference of every comment), never iterated, so hash maps.
#[derive(Default)]
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
}

/// The link targets of every toolkit's plan, each with the toolkits that have it. A comment is
/// printed for every toolkit of its item's form, so it links to a name only when each of those
/// toolkits has the name: under any feature, every link resolves.
pub struct Links {
    items: HashMap<String, (String, Features)>,
    members: HashMap<String, HashMap<String, (String, Features)>>,
}

impl Links {
    /// The links of `plans`, oldest toolkit first.
    pub fn new(plans: &[Plan]) -> Links {
        let mut items: HashMap<String, (String, Features)> = HashMap::default();
        let mut members: HashMap<String, HashMap<String, (String, Features)>> = HashMap::default();
        for (toolkit, plan) in plans.iter().enumerate() {
            let this = Features::one(toolkit);
            for (name, path) in &plan.links.items {
                let entry = items.entry(name.clone()).or_insert_with(|| (path.clone(), Features::default()));
                entry.1 = entry.1.with(this);
            }
            for (record, fields) in &plan.links.members {
                let merged = members.entry(record.clone()).or_default();
                for (name, path) in fields {
                    let entry = merged.entry(name.clone()).or_insert_with(|| (path.clone(), Features::default()));
                    entry.1 = entry.1.with(this);
                }
            }
        }
        Links { items, members }
    }

    fn resolve(&self, name: &str, within: Features) -> Option<String> {
        let (path, set) = match split_member(name) {
            None => self.items.get(name)?,
            Some((record, member)) => self.members.get(record)?.get(member)?,
        };
        set.covers(within).then(|| path.clone())
    }

    /// The rendered Markdown of a raw comment printed for the toolkits `within`, or `None` when
    /// nothing is left of it.
    fn render(&self, raw: &Option<String>, parsed: &ParsedDocs, within: Features) -> Option<String> {
        let raw = raw.as_deref()?;
        let text = parsed.get(raw).to_markdown(&|name| self.resolve(name, within));
        (!text.trim().is_empty()).then_some(text)
    }
}

/// Whose comments of one toolkit's plan are printed (the newest toolkit of a comment group's
/// are), each with the toolkits it is printed for; the others' comments are never read.
#[derive(Default)]
struct Printed {
    records: Vec<Option<Features>>,
    enums: Vec<Option<Features>>,
    enum_constants: Vec<Vec<Option<Features>>>,
    typedefs: Vec<Option<Features>>,
    constants: Vec<Option<Features>>,
    functions: Vec<Option<Features>>,
}

/// Replaces the raw comment of every item the crate prints by its Markdown, and drops the
/// others; comments render in parallel. `parsed` holds each toolkit's parses.
pub fn render(plans: &mut [Plan], merged: &Merged, parsed: &[&ParsedDocs]) {
    let links = Links::new(plans);
    let mut printed: Vec<Printed> = plans
        .iter()
        .map(|p| Printed {
            records: vec![None; p.records.len()],
            enums: vec![None; p.enums.len()],
            enum_constants: p.enums.iter().map(|e| vec![None; e.constants.len()]).collect(),
            typedefs: vec![None; p.typedefs.len()],
            constants: vec![None; p.constants.len()],
            functions: vec![None; p.functions.len()],
        })
        .collect();
    let mark = |printed: &mut Vec<Printed>, items: &[Item], list: fn(&mut Printed) -> &mut Vec<Option<Features>>| {
        for group in items.iter().flat_map(|item| &item.comments) {
            list(&mut printed[group.toolkit])[group.index] = Some(group.set);
        }
    };
    mark(&mut printed, &merged.records, |p| &mut p.records);
    mark(&mut printed, &merged.typedefs, |p| &mut p.typedefs);
    mark(&mut printed, &merged.constants, |p| &mut p.constants);
    mark(&mut printed, &merged.functions, |p| &mut p.functions);
    for form in merged.enums.iter().flatten() {
        for group in &form.comments {
            printed[group.toolkit].enums[group.index] = Some(group.set);
        }
        for group in form.constant_comments.iter().flatten() {
            printed[group.toolkit].enum_constants[group.item][group.index] = Some(group.set);
        }
    }
    plans.par_iter_mut().zip(printed).zip(parsed).for_each(|((plan, printed), parsed)| {
        let render = |doc: &mut Option<String>, within: Option<Features>| {
            *doc = within.and_then(|within| links.render(doc, parsed, within));
        };
        plan.records.par_iter_mut().zip(printed.records).for_each(|(r, within)| {
            render(&mut r.doc, within);
            if let RecordShape::Complete { members, .. } = &mut r.shape {
                for member in members {
                    match member {
                        Member::Field { doc, .. } => render(doc, within),
                        Member::Bitfields { accessors, .. } => {
                            accessors.iter_mut().for_each(|a| render(&mut a.doc, within))
                        }
                        Member::Padding { .. } => {}
                    }
                }
            }
        });
        plan.enums.par_iter_mut().zip(printed.enums).zip(printed.enum_constants).for_each(
            |((e, within), constants)| {
                render(&mut e.doc, within);
                e.constants.iter_mut().zip(constants).for_each(|(c, within)| render(&mut c.doc, within));
            },
        );
        plan.typedefs.par_iter_mut().zip(printed.typedefs).for_each(|(t, within)| render(&mut t.doc, within));
        plan.constants.par_iter_mut().zip(printed.constants).for_each(|(c, within)| render(&mut c.doc, within));
        plan.functions.par_iter_mut().zip(printed.functions).for_each(|(f, within)| render(&mut f.doc, within));
    });
}
