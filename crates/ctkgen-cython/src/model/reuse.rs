//! What a library takes from the libraries it depends on in the same package, instead of
//! defining classes of its own: the declarations both models hold (an enum, a record, a typedef
//! repeated by tag, `SharedDeclarations`) become the dependency's class, and a handle that points
//! at a struct the dependency also has a handle for derives from that handle's class, so every
//! call of either module takes the other's handles.

use std::collections::BTreeMap;

use ctkgen_ir::shared::SharedDeclarations;
use ctkgen_ir::{Api, Type};
use serde::Serialize;

use super::{ClassHome, ClassKind, Model, ModuleNames};
use crate::types::{enum_class, typedef_class, TypedefClass};

/// What the package keeps of a library another one depends on.
pub struct DependencyView<'a> {
    pub api: &'a Api,
    pub names: ModuleNames,
    /// Every class the library defines, by class name: where it lives.
    pub class_homes: BTreeMap<String, ClassHome>,
}

/// A dependency's class this library's module exports under `name`.
#[derive(Debug, Clone, Serialize)]
pub struct ReusedClass {
    pub name: String,
    /// The class's name in the dependency (the same, but for an alias the dependency lacks).
    pub source: String,
    /// The dependency's private module that defines it, and its public module.
    pub module: String,
    pub public_module: String,
}

/// A dependency's class that a class of this library derives from: cimported from its private
/// module (and named from its public one in the stubs).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DependencyBase {
    pub module: String,
    pub public_module: String,
    pub class: String,
}

/// A typedef of a shared record that only this library declares: a Python subclass of the
/// dependency's class, as the alias typedefs of this library's own records are Cython subclasses.
#[derive(Debug, Clone, Serialize)]
pub struct ReusedRecordAlias {
    pub class: String,
    /// The base class: the dependency's class (imported as `_dep_<name>`), or an alias above.
    pub base: String,
    pub base_is_alias: bool,
    pub doc: String,
}

/// Moves what `dependency` already defines out of `model` into re-exports, and points the
/// handles it can relate at the dependency's handle classes.
pub(super) fn reuse(model: &mut Model, api: &Api, dependency: &DependencyView<'_>) {
    let shared = SharedDeclarations::between(api, dependency.api);
    let mut reused = Vec::new();
    let mut reexport = |name: &str, source: &str| {
        if let Some(home) = dependency.class_homes.get(source) {
            reused.push(ReusedClass {
                name: name.to_string(),
                source: source.to_string(),
                module: home.module.clone(),
                public_module: dependency.names.python.clone(),
            });
        }
    };

    let shared_enum_classes: Vec<String> = shared.enums.iter().map(|e| enum_class(api, e)).collect();
    model.enums.retain(|e| {
        let is_shared = shared_enum_classes.contains(&e.class) && dependency.class_homes.contains_key(&e.class);
        if is_shared {
            reexport(&e.class, &e.class);
            for alias in &e.aliases {
                let source = if dependency.class_homes.contains_key(alias) { alias } else { &e.class };
                reexport(alias, source);
            }
        }
        !is_shared
    });

    let mut record_aliases = Vec::new();
    model.records.retain(|r| {
        let is_shared = shared.records.contains(&r.record) && dependency.class_homes.contains_key(&r.class);
        if is_shared {
            reexport(&r.class, &r.class);
            for (alias, base) in &r.aliases {
                if dependency.class_homes.contains_key(alias) {
                    reexport(alias, alias);
                } else {
                    let doc = format!("{alias}: the same C type as {base}.");
                    let base_is_alias = record_aliases.iter().any(|a: &ReusedRecordAlias| &a.class == base);
                    record_aliases.push(ReusedRecordAlias {
                        class: alias.clone(),
                        base: base.clone(),
                        base_is_alias,
                        doc,
                    });
                }
            }
        }
        !is_shared
    });

    let shared_wrapper = |class: &str| shared.typedefs.contains(class) && dependency.class_homes.contains_key(class);
    for w in model.handles.iter().chain(&model.scalars).filter(|w| shared_wrapper(&w.class)) {
        reexport(&w.class, &w.class);
    }
    model.handles.retain(|w| !shared_wrapper(&w.class));
    model.scalars.retain(|w| !shared_wrapper(&w.class));

    // A handle of this library over a struct the dependency has a handle for derives from it;
    // so does a wrapper whose base class was just taken from the dependency.
    let handle_by_tag = handles_by_struct_tag(dependency.api);
    for h in &mut model.handles {
        if h.base.is_none() {
            let tag = pointee_tag(api, &h.class).filter(|tag| shared.records.contains(*tag));
            if let Some(base) = tag.and_then(|tag| handle_by_tag.get(tag)) {
                h.base = Some(base.clone());
            }
        }
    }
    for w in model.handles.iter_mut().chain(model.scalars.iter_mut()) {
        let from_dependency = w.base.as_ref().and_then(|base| dependency.class_homes.get(base));
        if let Some(home) = from_dependency.filter(|home| home.kind == ClassKind::Wrapper) {
            w.base_module = Some(home.module.clone());
            model.dependency_bases.push(DependencyBase {
                module: home.module.clone(),
                public_module: dependency.names.python.clone(),
                class: home.source.clone(),
            });
        }
    }
    model.reused.extend(reused);
    model.reused_record_aliases.extend(record_aliases);
}

/// The struct tag a handle typedef points at directly (`typedef struct thing_st *Thing`).
fn pointee_tag<'a>(api: &'a Api, typedef: &str) -> Option<&'a str> {
    match &api.typedef(typedef)?.ty {
        Type::Pointer { pointee, .. } => match pointee.as_ref() {
            Type::Record { name } => Some(name.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// The handle classes of `api` by the struct tag they point at; where several point at one
/// struct, the first by name (deterministic, and the typedef the header declares first is
/// usually the only one).
fn handles_by_struct_tag(api: &Api) -> BTreeMap<&str, String> {
    let mut by_tag = BTreeMap::new();
    let mut typedefs: Vec<&str> = api.typedefs.iter().map(|t| t.name.as_str()).collect();
    typedefs.sort_unstable();
    for name in typedefs {
        if typedef_class(api, name) != Some(TypedefClass::Handle) {
            continue;
        }
        if let Some(tag) = pointee_tag(api, name) {
            by_tag.entry(tag).or_insert_with(|| name.to_string());
        }
    }
    by_tag
}
