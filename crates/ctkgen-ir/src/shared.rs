//! Declarations two libraries' models both hold. A library whose headers repeat types of a
//! library it depends on (a struct tag, a typedef, a constant macro) binds them once: the
//! dependent binding reuses the dependency's item instead of defining a second, unrelated one.
//!
//! Two declarations are the same when their definitions agree in everything but documentation
//! and the header that holds them, and every named type they use is itself the same in both
//! models. A forward declaration matches the dependency's declaration of the same tag, complete
//! or not: only pointers to it exist on this side.

use std::collections::BTreeSet;

use crate::{Api, Constant, Enum, Field, Record, Type, Typedef};

/// The declarations of a model that a dependency's model also declares, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedDeclarations {
    pub records: BTreeSet<String>,
    pub enums: BTreeSet<String>,
    pub typedefs: BTreeSet<String>,
    pub constants: BTreeSet<String>,
}

impl SharedDeclarations {
    /// What `api` shares with `dependency`.
    pub fn between(api: &Api, dependency: &Api) -> SharedDeclarations {
        let mut shared = SharedDeclarations {
            records: api
                .records
                .iter()
                .filter(|r| dependency.record(&r.name).is_some_and(|theirs| same_record(r, theirs)))
                .map(|r| r.name.clone())
                .collect(),
            enums: api
                .enums
                .iter()
                .filter(|e| dependency.enumeration(&e.name).is_some_and(|theirs| same_enum(e, theirs)))
                .map(|e| e.name.clone())
                .collect(),
            typedefs: api
                .typedefs
                .iter()
                .filter(|t| !t.system && dependency.typedef(&t.name).is_some_and(|theirs| same_typedef(t, theirs)))
                .map(|t| t.name.clone())
                .collect(),
            constants: BTreeSet::new(),
        };
        // Dropping one item can orphan another that uses it: repeat until nothing changes.
        loop {
            let before = shared.len();
            let uses_only_shared = |ty: &Type| shared.covers_names_in(ty, api, dependency);
            let records: BTreeSet<String> = shared
                .records
                .iter()
                .filter(|name| api.record(name).is_some_and(|r| r.fields.iter().all(|f| uses_only_shared(&f.ty))))
                .cloned()
                .collect();
            let typedefs: BTreeSet<String> = shared
                .typedefs
                .iter()
                .filter(|name| api.typedef(name).is_some_and(|t| uses_only_shared(&t.ty)))
                .cloned()
                .collect();
            shared.records = records;
            shared.typedefs = typedefs;
            if shared.len() == before {
                break;
            }
        }
        shared.constants = api
            .constants
            .iter()
            .filter(|c| {
                dependency.constants.iter().any(|theirs| theirs.name == c.name && same_constant(c, theirs))
                    && shared.covers_names_in(&c.ty, api, dependency)
            })
            .map(|c| c.name.clone())
            .collect();
        shared
    }

    /// How many declarations are shared.
    pub fn len(&self) -> usize {
        self.records.len() + self.enums.len() + self.typedefs.len() + self.constants.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every named type `ty` uses is shared, or is a system typedef both models agree on
    /// (each language spells those its own way, so neither binding defines them).
    fn covers_names_in(&self, ty: &Type, api: &Api, dependency: &Api) -> bool {
        match ty {
            Type::Void | Type::Primitive { .. } => true,
            Type::Record { name } => self.records.contains(name),
            Type::Enum { name } => self.enums.contains(name),
            Type::Typedef { name } => {
                self.typedefs.contains(name)
                    || match (api.typedef(name), dependency.typedef(name)) {
                        (Some(ours), Some(theirs)) => ours.system && same_typedef(ours, theirs),
                        // A builtin typedef the model does not list (`size_t` read as builtin).
                        (None, None) => true,
                        _ => false,
                    }
            }
            Type::Pointer { pointee, .. } => self.covers_names_in(pointee, api, dependency),
            Type::Array { element, .. } => self.covers_names_in(element, api, dependency),
            Type::Function { ret, params, .. } => {
                self.covers_names_in(ret, api, dependency)
                    && params.iter().all(|p| self.covers_names_in(p, api, dependency))
            }
        }
    }
}

fn same_record(ours: &Record, theirs: &Record) -> bool {
    if !ours.complete {
        return ours.kind == theirs.kind;
    }
    ours.kind == theirs.kind
        && ours.anonymous == theirs.anonymous
        && ours.parent == theirs.parent
        && ours.typedef_name == theirs.typedef_name
        && ours.complete == theirs.complete
        && (ours.size, ours.align, ours.packed) == (theirs.size, theirs.align, theirs.packed)
        && ours.explicit_alignments == theirs.explicit_alignments
        && ours.fields.len() == theirs.fields.len()
        && ours.fields.iter().zip(&theirs.fields).all(|(a, b)| same_field(a, b))
}

fn same_field(ours: &Field, theirs: &Field) -> bool {
    (&ours.name, ours.anonymous, &ours.ty, ours.offset_bits, ours.bit_width, ours.size, ours.align)
        == (&theirs.name, theirs.anonymous, &theirs.ty, theirs.offset_bits, theirs.bit_width, theirs.size, theirs.align)
}

fn same_enum(ours: &Enum, theirs: &Enum) -> bool {
    ours.typedef_names == theirs.typedef_names
        && ours.underlying == theirs.underlying
        && ours.constants.len() == theirs.constants.len()
        && ours.constants.iter().zip(&theirs.constants).all(|(a, b)| a.name == b.name && a.value == b.value)
}

fn same_typedef(ours: &Typedef, theirs: &Typedef) -> bool {
    (&ours.ty, ours.size, ours.align, &ours.explicit_alignments, ours.system)
        == (&theirs.ty, theirs.size, theirs.align, &theirs.explicit_alignments, theirs.system)
}

fn same_constant(ours: &Constant, theirs: &Constant) -> bool {
    ours.ty == theirs.ty && ours.value == theirs.value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConstantValue, EnumConstant, Primitive, Provenance, RecordKind};

    fn int() -> Type {
        Type::Primitive { name: Primitive::Int }
    }

    fn field(name: &str, ty: Type, offset_bits: u64) -> Field {
        Field { name: name.into(), anonymous: false, ty, offset_bits, bit_width: None, size: 4, align: 4, doc: None }
    }

    fn record(name: &str, fields: Vec<Field>) -> Record {
        Record::complete(name, RecordKind::Struct, 4 * fields.len() as u64, 4, fields)
    }

    fn opaque(name: &str) -> Record {
        Record { complete: false, size: 0, align: 0, ..Record::complete(name, RecordKind::Struct, 0, 0, Vec::new()) }
    }

    fn typedef(name: &str, ty: Type) -> Typedef {
        Typedef {
            name: name.into(),
            ty,
            size: 8,
            align: 8,
            explicit_alignments: Vec::new(),
            system: false,
            doc: None,
            header: None,
        }
    }

    fn constant(name: &str, value: i128) -> Constant {
        Constant {
            name: name.into(),
            ty: int(),
            value: ConstantValue::Int(value),
            expr: value.to_string(),
            doc: None,
            header: None,
        }
    }

    fn api(records: Vec<Record>, enums: Vec<Enum>, typedefs: Vec<Typedef>, constants: Vec<Constant>) -> Api {
        let mut api = Api {
            format_version: 1,
            provenance: Provenance::unknown("x.h"),
            functions: Vec::new(),
            records,
            enums,
            typedefs,
            constants,
        };
        api.sort();
        api
    }

    fn pointer_to(record: &str) -> Type {
        Type::Pointer { pointee: Box::new(Type::Record { name: record.into() }), pointee_const: false }
    }

    fn names(set: &BTreeSet<String>) -> Vec<&str> {
        set.iter().map(String::as_str).collect()
    }

    #[test]
    fn equal_definitions_are_shared_whatever_their_docs_and_headers() {
        let theirs = api(
            vec![record("uuid_st", vec![field("bytes", int(), 0)]), opaque("stream_st")],
            vec![Enum {
                name: "mode".into(),
                typedef_names: vec![],
                underlying: Primitive::UnsignedInt,
                constants: vec![EnumConstant { name: "MODE_A".into(), value: 0, doc: None }],
                doc: None,
                header: None,
            }],
            vec![typedef("stream_t", pointer_to("stream_st"))],
            vec![constant("HANDLE_SIZE", 64)],
        );
        let mut documented = record("uuid_st", vec![field("bytes", int(), 0)]);
        documented.doc = Some("A UUID.".into());
        documented.header = Some("types.h".into());
        let mut other_name = typedef("other_stream_t", pointer_to("stream_st"));
        other_name.doc = Some("Another name.".into());
        let ours = api(
            vec![documented, opaque("stream_st")],
            theirs.enums.clone(),
            vec![other_name],
            vec![constant("HANDLE_SIZE", 64), constant("OWN", 1)],
        );
        let shared = SharedDeclarations::between(&ours, &theirs);
        assert_eq!(names(&shared.records), ["stream_st", "uuid_st"]);
        assert_eq!(names(&shared.enums), ["mode"]);
        assert!(shared.typedefs.is_empty(), "a typedef only one side declares is its own");
        assert_eq!(names(&shared.constants), ["HANDLE_SIZE"]);
    }

    #[test]
    fn different_definitions_are_not_shared_nor_is_what_uses_them() {
        let theirs = api(
            vec![
                record("inner_st", vec![field("a", int(), 0)]),
                record("outer_st", vec![field("inner", Type::Record { name: "inner_st".into() }, 0)]),
            ],
            vec![],
            vec![typedef("inner_ptr", pointer_to("inner_st"))],
            vec![constant("LIMIT", 8)],
        );
        let ours = api(
            vec![
                record("inner_st", vec![field("b", int(), 0)]),
                record("outer_st", vec![field("inner", Type::Record { name: "inner_st".into() }, 0)]),
            ],
            vec![],
            vec![typedef("inner_ptr", pointer_to("inner_st"))],
            vec![constant("LIMIT", 9)],
        );
        let shared = SharedDeclarations::between(&ours, &theirs);
        assert!(shared.is_empty(), "{shared:?}");
    }

    #[test]
    fn a_forward_declaration_matches_a_complete_record_but_not_the_reverse() {
        let complete = api(vec![record("ctx_st", vec![field("a", int(), 0)])], vec![], vec![], vec![]);
        let forward = api(vec![opaque("ctx_st")], vec![], vec![], vec![]);
        assert_eq!(names(&SharedDeclarations::between(&forward, &complete).records), ["ctx_st"]);
        assert!(SharedDeclarations::between(&complete, &forward).is_empty());
    }
}
