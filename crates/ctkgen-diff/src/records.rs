//! Records and typedefs: layout changes, additions, removals, and tags renamed with their
//! layout intact.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::abi::c_decl;
use ctkgen_ir::{Api, Field, Record, RecordKind, Type};

use crate::layout_eq::{is_padding, same_slot, within, LayoutEq};
use crate::{Change, Detail, FieldChange, FieldSlot, Impact, Section, Shape};

fn shape(r: &Record) -> Option<Shape> {
    r.complete.then_some(Shape { size: r.size, align: r.align })
}

fn slot(api: &Api, f: &Field) -> FieldSlot {
    FieldSlot {
        name: f.name.clone(),
        offset_bits: f.offset_bits,
        bit_width: f.bit_width,
        size: f.size,
        ty: c_decl(api, &f.ty, ""),
    }
}

pub(crate) fn compare(eq: &LayoutEq, out: &mut Vec<Change>) {
    let (old, new) = (eq.old, eq.new);
    let removed: BTreeSet<&str> =
        old.records.iter().map(|r| r.name.as_str()).filter(|n| new.record(n).is_none()).collect();
    let added: BTreeSet<&str> =
        new.records.iter().map(|r| r.name.as_str()).filter(|n| old.record(n).is_none()).collect();
    let renames = pair_renames(eq, &removed, &added);
    let renamed_to: BTreeSet<&str> = renames.values().map(|(to, _)| to.as_str()).collect();

    let users = users_of_records(new);
    for r in &old.records {
        if let Some(s) = new.record(&r.name) {
            let Some(mut change) = record_change(eq, r, s) else { continue };
            if let Detail::RecordLayout { used_by, .. } = &mut change.detail {
                if change.impact == Impact::Incompatible {
                    *used_by = users.get(r.name.as_str()).cloned().unwrap_or_default();
                }
            }
            out.push(change);
        } else if let Some((to, evidence)) = renames.get(r.name.as_str()) {
            out.push(Change {
                section: Section::Renames,
                impact: Impact::Compatible,
                subject: r.name.clone(),
                detail: Detail::RecordRenamed { new_name: to.clone(), shape: shape(r), evidence: evidence.clone() },
            });
        } else if !nested_in(r, &removed) {
            out.push(Change {
                section: Section::RemovedTypes,
                impact: Impact::Incompatible,
                subject: r.name.clone(),
                detail: Detail::RecordRemoved { shape: shape(r) },
            });
        }
    }
    for s in &new.records {
        if added.contains(s.name.as_str()) && !renamed_to.contains(s.name.as_str()) && !nested_in(s, &added) {
            out.push(Change {
                section: Section::AddedTypes,
                impact: Impact::Compatible,
                subject: s.name.clone(),
                detail: Detail::RecordAdded { shape: shape(s) },
            });
        }
    }
    typedefs(eq, out);
}

/// For every record, the functions whose signature reaches it, sorted.
fn users_of_records(api: &Api) -> BTreeMap<&str, Vec<String>> {
    let mut users: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in &api.functions {
        let mut seen = BTreeSet::new();
        reach(api, &f.ret, &mut seen);
        for p in &f.params {
            reach(api, &p.ty, &mut seen);
        }
        for record in seen {
            users.entry(record).or_default().push(f.name.clone());
        }
    }
    users
}

fn reach<'a>(api: &'a Api, ty: &'a Type, seen: &mut BTreeSet<&'a str>) {
    match api.resolve(ty) {
        Type::Pointer { pointee, .. } => reach(api, pointee, seen),
        Type::Array { element, .. } => reach(api, element, seen),
        Type::Function { ret, params, .. } => {
            reach(api, ret, seen);
            for p in params {
                reach(api, p, seen);
            }
        }
        Type::Record { name } => {
            if let Some(record) = api.record(name) {
                if seen.insert(record.name.as_str()) {
                    for field in &record.fields {
                        reach(api, &field.ty, seen);
                    }
                }
            }
        }
        _ => {}
    }
}

/// A record declared inside another that is itself added or removed goes with its parent.
fn nested_in(r: &Record, set: &BTreeSet<&str>) -> bool {
    r.parent.as_ref().is_some_and(|p| set.contains(p.record.as_str()))
}

/// Pairs removed records with added ones of identical layout. Evidence first: a typedef or a
/// function parameter that named the old tag and now names the new one. Then layout alone,
/// when exactly one candidate shares the longest name prefix.
fn pair_renames(
    eq: &LayoutEq,
    removed: &BTreeSet<&str>,
    added: &BTreeSet<&str>,
) -> BTreeMap<String, (String, Vec<String>)> {
    let (old, new) = (eq.old, eq.new);
    let mut pairs: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let taken = |to: &str, pairs: &BTreeMap<String, (String, Vec<String>)>| pairs.values().any(|(t, _)| t == to);
    let offer = |from: &str, to: &str, evidence: String, pairs: &mut BTreeMap<String, (String, Vec<String>)>| {
        if !removed.contains(from) || !added.contains(to) || !eq.records(from, to) {
            return;
        }
        if let Some((existing, list)) = pairs.get_mut(from) {
            if existing == to && !list.contains(&evidence) {
                list.push(evidence);
            }
        } else if !taken(to, pairs) {
            pairs.insert(from.to_string(), (to.to_string(), vec![evidence]));
        }
    };

    for t in &old.typedefs {
        let Some(u) = new.typedef(&t.name) else { continue };
        if let (Some(a), Some(b)) = (eq.old_record_of(&t.ty), eq.new_record_of(&u.ty)) {
            offer(a, b, format!("typedef {}", t.name), &mut pairs);
        }
    }
    for f in &old.functions {
        let Some(g) = new.function(&f.name) else { continue };
        let mut tags = Vec::new();
        eq.tag_renames("return", &f.ret, &g.ret, &mut tags);
        for (p, q) in f.params.iter().zip(&g.params) {
            eq.tag_renames(&q.name, &p.ty, &q.ty, &mut tags);
        }
        for tag in tags {
            offer(&tag.old_tag, &tag.new_tag, format!("function {}", f.name), &mut pairs);
        }
    }
    for from in removed {
        if pairs.contains_key(*from) || !old.record(from).is_some_and(|r| r.complete) {
            continue;
        }
        let candidates: Vec<&str> =
            added.iter().copied().filter(|to| !taken(to, &pairs) && eq.records(from, to)).collect();
        let prefix = |to: &str| from.bytes().zip(to.bytes()).take_while(|(a, b)| a == b).count();
        let Some(best) = candidates.iter().map(|to| prefix(to)).max() else { continue };
        let winners: Vec<&str> = candidates.iter().copied().filter(|to| prefix(to) == best).collect();
        if let [to] = winners[..] {
            offer(from, to, "same layout".to_string(), &mut pairs);
        }
    }
    pairs
}

/// One record present on both sides, field by field.
fn record_change(eq: &LayoutEq, a: &Record, b: &Record) -> Option<Change> {
    let (old, new) = (eq.old, eq.new);
    if !a.complete && !b.complete {
        return None;
    }
    if a.complete != b.complete {
        // An opaque type gaining a definition adds to the API; losing it takes away.
        let (section, impact) = if b.complete {
            (Section::AddedTypes, Impact::Compatible)
        } else {
            (Section::OtherLayoutChanges, Impact::Incompatible)
        };
        return Some(Change {
            section,
            impact,
            subject: a.name.clone(),
            detail: Detail::RecordLayout { old: shape(a), new: shape(b), fields: Vec::new(), used_by: Vec::new() },
        });
    }

    let mut fields = Vec::new();
    let mut matched = vec![false; b.fields.len()];
    let change = |f: Option<&Field>, g: Option<&Field>, impact: Impact, reason: &str| FieldChange {
        old: f.map(|f| slot(old, f)),
        new: g.map(|g| slot(new, g)),
        impact,
        reason: reason.to_string(),
    };
    for f in &a.fields {
        if let Some(j) = b.fields.iter().position(|g| g.name == f.name) {
            matched[j] = true;
            let g = &b.fields[j];
            if same_slot(f, g) && eq.types(&f.ty, &g.ty) {
                continue;
            }
            if is_padding(&f.name) && within(g, f) {
                fields.push(change(Some(f), Some(g), Impact::Compatible, "reserved bytes put to use"));
            } else {
                let reason = if f.offset_bits != g.offset_bits {
                    "moved"
                } else if f.size != g.size || f.bit_width != g.bit_width {
                    "resized"
                } else {
                    "its type's layout changed"
                };
                fields.push(change(Some(f), Some(g), Impact::Incompatible, reason));
            }
            continue;
        }
        let renamed = b.fields.iter().enumerate().position(|(j, g)| {
            !matched[j]
                && a.fields.iter().all(|other| other.name != g.name)
                && same_slot(f, g)
                && eq.types(&f.ty, &g.ty)
        });
        if let Some(j) = renamed {
            matched[j] = true;
            fields.push(change(Some(f), Some(&b.fields[j]), Impact::Note, "renamed"));
        } else if is_padding(&f.name) {
            fields.push(change(Some(f), None, Impact::Compatible, "reserved bytes put to use"));
        } else {
            fields.push(change(Some(f), None, Impact::Incompatible, "removed"));
        }
    }
    let same_shape = a.size == b.size && a.align == b.align;
    for (g, _) in b.fields.iter().zip(&matched).filter(|(_, m)| !**m) {
        let in_reserved = a.fields.iter().any(|f| is_padding(&f.name) && within(g, f));
        let (impact, reason) = if same_shape && b.kind == RecordKind::Union && a.kind == RecordKind::Union {
            (Impact::Compatible, "new union member within the old size")
        } else if same_shape && in_reserved {
            (Impact::Compatible, "placed in reserved bytes")
        } else {
            (Impact::Incompatible, "added")
        };
        fields.push(change(None, Some(g), impact, reason));
    }

    let worst = fields.iter().map(|f| f.impact).min();
    let impact = if !same_shape || a.kind != b.kind { Impact::Incompatible } else { worst? };
    let section = match impact {
        _ if a.align != b.align => Section::AlignmentChanges,
        Impact::Incompatible => Section::OtherLayoutChanges,
        Impact::Compatible => Section::FieldsAddedInPlace,
        Impact::Churn | Impact::Note => Section::Notes,
    };
    Some(Change {
        section,
        impact,
        subject: a.name.clone(),
        detail: Detail::RecordLayout { old: shape(a), new: shape(b), fields, used_by: Vec::new() },
    })
}

/// A type with every typedef replaced by what it names, at any depth.
fn canonical(api: &Api, ty: &Type) -> Type {
    match api.resolve(ty) {
        Type::Pointer { pointee, pointee_const } => {
            Type::Pointer { pointee: Box::new(canonical(api, pointee)), pointee_const: *pointee_const }
        }
        Type::Array { element, len } => Type::Array { element: Box::new(canonical(api, element)), len: *len },
        Type::Function { ret, params, variadic } => Type::Function {
            ret: Box::new(canonical(api, ret)),
            params: params.iter().map(|p| canonical(api, p)).collect(),
            variadic: *variadic,
        },
        other => other.clone(),
    }
}

fn typedefs(eq: &LayoutEq, out: &mut Vec<Change>) {
    let (old, new) = (eq.old, eq.new);
    for t in &old.typedefs {
        let Some(u) = new.typedef(&t.name) else {
            out.push(Change {
                section: Section::RemovedTypes,
                impact: Impact::Incompatible,
                subject: t.name.clone(),
                detail: Detail::TypedefRemoved { target: c_decl(old, &t.ty, "") },
            });
            continue;
        };
        let old_shape = Shape { size: t.size, align: t.align };
        let new_shape = Shape { size: u.size, align: u.align };
        if t.ty != u.ty {
            if canonical(old, &t.ty) == canonical(new, &u.ty) {
                continue; // only the chain of typedef names in between changed
            }
            let same_layout = eq.types(&t.ty, &u.ty);
            let (section, impact) = if same_layout {
                let mut tags = Vec::new();
                eq.tag_renames(&t.name, &t.ty, &u.ty, &mut tags);
                if tags.is_empty() {
                    (Section::Notes, Impact::Note)
                } else {
                    (Section::Renames, Impact::Compatible)
                }
            } else if t.align != u.align {
                (Section::AlignmentChanges, Impact::Incompatible)
            } else {
                (Section::OtherLayoutChanges, Impact::Incompatible)
            };
            out.push(Change {
                section,
                impact,
                subject: t.name.clone(),
                detail: Detail::TypedefRetargeted {
                    old_target: c_decl(old, &t.ty, ""),
                    new_target: c_decl(new, &u.ty, ""),
                    old: old_shape,
                    new: new_shape,
                    same_layout,
                },
            });
        } else if old_shape != new_shape && !(t.explicit_alignments.is_empty() && u.explicit_alignments.is_empty()) {
            // The target's own change is reported with the target; this is the typedef's attribute.
            let section = if t.align != u.align { Section::AlignmentChanges } else { Section::OtherLayoutChanges };
            out.push(Change {
                section,
                impact: Impact::Incompatible,
                subject: t.name.clone(),
                detail: Detail::TypedefLayout { old: old_shape, new: new_shape },
            });
        }
    }
    for u in &new.typedefs {
        if old.typedef(&u.name).is_none() {
            out.push(Change {
                section: Section::AddedTypes,
                impact: Impact::Compatible,
                subject: u.name.clone(),
                detail: Detail::TypedefAdded { target: c_decl(new, &u.ty, "") },
            });
        }
    }
}
