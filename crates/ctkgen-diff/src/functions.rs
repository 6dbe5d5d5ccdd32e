//! Functions: added, removed, signature changes judged by layout, and the ABI symbol each
//! public name binds to.

use std::collections::BTreeMap;

use ctkgen_ir::abi::c_decl;
use ctkgen_ir::{Api, Function, Type};

use crate::layout_eq::LayoutEq;
use crate::{BindingChange, Change, Detail, Impact, ParamRename, Section};

/// The C prototype, e.g. `CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)`.
pub(crate) fn declaration(api: &Api, f: &Function) -> String {
    let params: Vec<String> = f.params.iter().map(|p| c_decl(api, &p.ty, &p.name)).collect();
    let list = if params.is_empty() { "void".to_string() } else { params.join(", ") };
    c_decl(api, &f.ret, &format!("{}({list})", f.name))
}

/// Every ABI symbol a model declares, with the public names bound to it.
fn symbols(api: &Api) -> BTreeMap<&str, Vec<&str>> {
    let mut map: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &api.functions {
        map.entry(f.symbol.as_str()).or_default().push(f.name.as_str());
        if let Some(ptds) = &f.per_thread_symbol {
            map.entry(ptds.as_str()).or_default().push(f.name.as_str());
        }
    }
    map
}

pub(crate) fn compare(eq: &LayoutEq, out: &mut Vec<Change>) {
    let (old, new) = (eq.old, eq.new);
    let new_symbols = symbols(new);

    for f in &old.functions {
        match new.function(&f.name) {
            None => out.push(Change {
                section: Section::RemovedFunctions,
                impact: Impact::Incompatible,
                subject: f.name.clone(),
                detail: Detail::FunctionRemoved {
                    symbol: f.symbol.clone(),
                    declaration: declaration(old, f),
                    symbol_now_bound_by: owned(new_symbols.get(f.symbol.as_str())),
                },
            }),
            Some(g) => {
                binding(f, g, &new_symbols, out);
                signature(eq, f, g, out);
            }
        }
    }
    for g in &new.functions {
        if old.function(&g.name).is_none() {
            out.push(Change {
                section: Section::AddedFunctions,
                impact: Impact::Compatible,
                subject: g.name.clone(),
                detail: Detail::FunctionAdded { symbol: g.symbol.clone(), declaration: declaration(new, g) },
            });
        }
    }
}

fn owned(names: Option<&Vec<&str>>) -> Vec<String> {
    names.map(|v| v.iter().map(|n| n.to_string()).collect()).unwrap_or_default()
}

/// The facts a loader uses to find the entry point. A fact appearing where there was none
/// (a new per-thread variant, a version newly listed) is an addition; any other change makes
/// an old binding ask the driver for something else.
fn binding(f: &Function, g: &Function, new_symbols: &BTreeMap<&str, Vec<&str>>, out: &mut Vec<Change>) {
    let facts = [
        ("symbol", Some(f.symbol.clone()), Some(g.symbol.clone())),
        ("lookup_name", Some(f.lookup_name.clone()), Some(g.lookup_name.clone())),
        ("first_version", f.first_version.map(|v| v.to_string()), g.first_version.map(|v| v.to_string())),
        ("per_thread_symbol", f.per_thread_symbol.clone(), g.per_thread_symbol.clone()),
        (
            "per_thread_first_version",
            f.per_thread_first_version.map(|v| v.to_string()),
            g.per_thread_first_version.map(|v| v.to_string()),
        ),
    ];
    let changes: Vec<BindingChange> = facts
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .map(|(field, old, new)| BindingChange { field: field.to_string(), old, new })
        .collect();
    if changes.is_empty() {
        return;
    }
    let only_additions = changes.iter().all(|c| c.old.is_none());
    let dropped_symbols = [Some(&f.symbol), f.per_thread_symbol.as_ref()]
        .into_iter()
        .flatten()
        .filter(|s| !new_symbols.contains_key(s.as_str()))
        .cloned()
        .collect();
    out.push(Change {
        section: Section::AbiSymbolChanges,
        impact: if only_additions { Impact::Compatible } else { Impact::Incompatible },
        subject: f.name.clone(),
        detail: Detail::SymbolBinding { changes, dropped_symbols },
    });
}

fn signature(eq: &LayoutEq, f: &Function, g: &Function, out: &mut Vec<Change>) {
    let (old, new) = (eq.old, eq.new);
    // A position spelled the same whose ABI moved is a typedef's or record's change, reported
    // once with that declaration (which lists the functions it reaches).
    let differs = |a: &Type, b: &Type| a != b && !eq.types(a, b);
    let mut differences = Vec::new();
    if differs(&f.ret, &g.ret) {
        differences.push(format!("return type: `{}` → `{}`", c_decl(old, &f.ret, ""), c_decl(new, &g.ret, "")));
    }
    if f.params.len() != g.params.len() {
        differences.push(format!("parameter count: {} → {}", f.params.len(), g.params.len()));
    }
    for (i, (p, q)) in f.params.iter().zip(&g.params).enumerate() {
        if differs(&p.ty, &q.ty) {
            differences.push(format!(
                "parameter {i}: `{}` → `{}`",
                c_decl(old, &p.ty, &p.name),
                c_decl(new, &q.ty, &q.name)
            ));
        }
    }
    if !differences.is_empty() {
        out.push(Change {
            section: Section::ChangedSignatures,
            impact: Impact::Incompatible,
            subject: f.name.clone(),
            detail: Detail::SignatureChanged {
                old_declaration: declaration(old, f),
                new_declaration: declaration(new, g),
                differences,
            },
        });
        return;
    }

    // Same ABI: what is left are spellings worth telling, never worth failing on.
    let mut tags = Vec::new();
    eq.tag_renames("return", &f.ret, &g.ret, &mut tags);
    for (p, q) in f.params.iter().zip(&g.params) {
        eq.tag_renames(&q.name, &p.ty, &q.ty, &mut tags);
    }
    if !tags.is_empty() {
        out.push(Change {
            section: Section::Renames,
            impact: Impact::Compatible,
            subject: f.name.clone(),
            detail: Detail::SignatureTagsRenamed { tags },
        });
    }
    let renames: Vec<ParamRename> = f
        .params
        .iter()
        .zip(&g.params)
        .enumerate()
        .filter(|(_, (p, q))| p.name != q.name)
        .map(|(index, (p, q))| ParamRename { index, old: p.name.clone(), new: q.name.clone() })
        .collect();
    if !renames.is_empty() {
        out.push(Change {
            section: Section::Notes,
            impact: Impact::Note,
            subject: f.name.clone(),
            detail: Detail::ParamsRenamed { renames },
        });
    }
    if f.deprecated != g.deprecated {
        out.push(Change {
            section: Section::Notes,
            impact: Impact::Note,
            subject: f.name.clone(),
            detail: Detail::DeprecationChanged { deprecated: g.deprecated },
        });
    }
}
