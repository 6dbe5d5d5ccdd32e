//! How each IR type appears in Cython: its declaration spelling and the Python value kind it
//! converts to.

use ctkgen_ir::{Api, Primitive, Record, Type};
use serde::Serialize;

/// Typedefs that C headers take from the system; declared through `libc.stdint` / builtins.
const BUILTIN_TYPEDEFS: &[(&str, Primitive)] = &[
    ("size_t", Primitive::UnsignedLong),
    ("ssize_t", Primitive::Long),
    ("uintptr_t", Primitive::UnsignedLong),
    ("intptr_t", Primitive::Long),
    ("uint8_t", Primitive::UnsignedChar),
    ("uint16_t", Primitive::UnsignedShort),
    ("uint32_t", Primitive::UnsignedInt),
    ("uint64_t", Primitive::UnsignedLong),
    ("int8_t", Primitive::SignedChar),
    ("int16_t", Primitive::Short),
    ("int32_t", Primitive::Int),
    ("int64_t", Primitive::Long),
];

pub fn builtin_typedef(name: &str) -> Option<Primitive> {
    BUILTIN_TYPEDEFS.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// The name Cython uses for a record: the tag, or the typedef of an untagged record, or the
/// synthetic name that `ctkgen_types.h` defines for a nested anonymous record.
pub fn record_cy_name(record: &Record) -> String {
    match (&record.typedef_name, record.anonymous) {
        (Some(typedef), true) => typedef.clone(),
        _ => record.name.clone(),
    }
}

/// Spells `ty` around `declarator` in Cython declaration syntax.
pub fn cy_decl(api: &Api, ty: &Type, declarator: &str) -> String {
    match ty {
        Type::Void => join("void", declarator),
        Type::Primitive { name } => join(primitive_cy(*name), declarator),
        Type::Typedef { name } => join(name, declarator),
        Type::Enum { name } => join(name, declarator),
        Type::Record { name } => {
            let spelled = api.record(name).map(record_cy_name).unwrap_or_else(|| name.clone());
            join(&spelled, declarator)
        }
        Type::Pointer { pointee, pointee_const } => {
            let star = format!("*{declarator}");
            let inner = match **pointee {
                Type::Function { .. } | Type::Array { .. } => cy_decl(api, pointee, &format!("({star})")),
                // A const pointer pointed at (`const char *const *`): the const goes after its
                // star; in front it would qualify what that pointer points at.
                Type::Pointer { .. } if *pointee_const => return cy_decl(api, pointee, &format!("const {star}")),
                _ => cy_decl(api, pointee, &star),
            };
            if *pointee_const && !matches!(**pointee, Type::Function { .. }) {
                format!("const {inner}")
            } else {
                inner
            }
        }
        Type::Array { element, len } => cy_decl(api, element, &format!("{declarator}[{len}]")),
        Type::Function { ret, params, variadic } => {
            let mut list: Vec<String> = params.iter().map(|p| cy_decl(api, p, "")).collect();
            if *variadic {
                list.push("...".into());
            }
            cy_decl(api, ret, &format!("{declarator}({})", list.join(", ")))
        }
    }
}

fn primitive_cy(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "bint",
        other => other.c_name(),
    }
}

fn join(base: &str, declarator: &str) -> String {
    if declarator.is_empty() {
        base.to_string()
    } else if declarator.starts_with('[') || (declarator.starts_with('(') && !declarator.starts_with("(*")) {
        format!("{base}{declarator}")
    } else {
        format!("{base} {declarator}")
    }
}

/// What a C value becomes in Python.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ValueKind {
    /// An integer with no wrapper class (primitives, `size_t`, ...).
    Int,
    Float,
    /// An enum member of the named Python class.
    Enum {
        class: String,
    },
    /// A scalar typedef with its own wrapper class (device ordinals, addresses, fixed-width integers).
    Scalar {
        class: String,
    },
    /// A pointer typedef with a handle class (opaque objects, callbacks).
    Handle {
        class: String,
    },
    /// A complete record by value, with its class.
    Record {
        class: String,
        record: String,
    },
    /// Any other pointer: an address as int.
    Pointer,
    /// `char[N]`: bytes.
    CharArray {
        len: u64,
    },
    Array {
        element: Box<ValueKind>,
        len: u64,
    },
    /// Nothing Python can hold (void, incomplete records, functions by value).
    Opaque,
}

/// The Python class named after an enum: its first typedef, else its tag.
pub fn enum_class(api: &Api, name: &str) -> String {
    api.enumeration(name).and_then(|e| e.typedef_names.first().cloned()).unwrap_or_else(|| name.to_string())
}

/// Classifies a type, following typedefs until one that has a Python class of its own.
pub fn value_kind(api: &Api, ty: &Type) -> ValueKind {
    match ty {
        Type::Void | Type::Function { .. } => ValueKind::Opaque,
        Type::Primitive { name } => primitive_kind(*name),
        Type::Enum { name } => ValueKind::Enum { class: enum_class(api, name) },
        Type::Record { name } => match api.record(name) {
            Some(r) if r.complete => ValueKind::Record { class: record_class(r), record: r.name.clone() },
            _ => ValueKind::Opaque,
        },
        Type::Pointer { .. } => ValueKind::Pointer,
        Type::Array { element, len } => {
            let element = value_kind(api, element);
            if matches!(element, ValueKind::Int) && is_char(api, ty) {
                ValueKind::CharArray { len: *len }
            } else {
                ValueKind::Array { element: Box::new(element), len: *len }
            }
        }
        Type::Typedef { name } => match api.typedef(name) {
            None => builtin_typedef(name).map(primitive_kind).unwrap_or(ValueKind::Opaque),
            Some(def) => match typedef_class(api, name) {
                Some(TypedefClass::Handle) => ValueKind::Handle { class: name.clone() },
                Some(TypedefClass::Scalar) => ValueKind::Scalar { class: name.clone() },
                Some(TypedefClass::RecordAlias { record }) => ValueKind::Record { class: name.clone(), record },
                None => value_kind(api, &def.ty),
            },
        },
    }
}

fn primitive_kind(p: Primitive) -> ValueKind {
    if p.is_float() {
        ValueKind::Float
    } else {
        ValueKind::Int
    }
}

fn is_char(api: &Api, ty: &Type) -> bool {
    match ty {
        Type::Array { element, .. } => {
            matches!(api.resolve(element), Type::Primitive { name: Primitive::Char | Primitive::SignedChar })
        }
        _ => false,
    }
}

/// The Python class of a record: tagged records by tag, untagged ones by typedef or synthetic name.
pub fn record_class(record: &Record) -> String {
    record_cy_name(record)
}

/// Which Python class a typedef gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedefClass {
    /// A pointer typedef: an opaque object or a callback.
    Handle,
    /// An integer typedef: an ordinal, an address, a fixed-width integer.
    Scalar,
    /// A name for a complete record: its tag or its typedef.
    RecordAlias { record: String },
}

/// The class a typedef gets, or `None` when it is only a C spelling (enum typedefs, the typedef
/// of an untagged record, arrays, functions).
pub fn typedef_class(api: &Api, name: &str) -> Option<TypedefClass> {
    if builtin_typedef(name).is_some() {
        return None;
    }
    let def = api.typedef(name)?;
    match &def.ty {
        Type::Pointer { .. } => Some(TypedefClass::Handle),
        Type::Primitive { name } if !name.is_float() => Some(TypedefClass::Scalar),
        Type::Record { name: record } => match api.record(record) {
            // `typedef struct {..} X;` names the record itself: its class is already `X`.
            Some(r) if r.complete && r.name != name && !(r.anonymous && r.typedef_name.as_deref() == Some(name)) => {
                Some(TypedefClass::RecordAlias { record: r.name.clone() })
            }
            _ => None,
        },
        Type::Typedef { name: inner } if builtin_typedef(inner).is_some() => {
            builtin_typedef(inner).filter(|p| !p.is_float()).map(|_| TypedefClass::Scalar)
        }
        Type::Typedef { name: inner } => match api.typedef(inner) {
            Some(_) => typedef_class(api, inner)
                .map(|class| match class {
                    TypedefClass::RecordAlias { record } => TypedefClass::RecordAlias { record },
                    other => other,
                })
                .or_else(|| {
                    // An alias of an untagged record's own typedef.
                    match api.resolve(&def.ty) {
                        Type::Record { name: record } if api.record(record).is_some_and(|r| r.complete) => {
                            Some(TypedefClass::RecordAlias { record: record.clone() })
                        }
                        _ => None,
                    }
                }),
            None => builtin_typedef(inner).filter(|p| !p.is_float()).map(|_| TypedefClass::Scalar),
        },
        _ => None,
    }
}

/// The class a typedef class derives from: the class of the typedef it names, or the record.
pub fn typedef_base(api: &Api, name: &str) -> Option<String> {
    let def = api.typedef(name)?;
    match &def.ty {
        Type::Typedef { name: inner } if typedef_class(api, inner).is_some() => Some(inner.clone()),
        Type::Typedef { name: inner } => match api.resolve(&def.ty) {
            Type::Record { name: record } => {
                api.record(record).map(record_class).filter(|c| c != name).or(Some(inner.clone()))
            }
            _ => None,
        },
        Type::Record { name: record } => api.record(record).map(record_class),
        _ => None,
    }
}

/// The scalar primitive behind a scalar typedef.
pub fn scalar_primitive(api: &Api, ty: &Type) -> Option<Primitive> {
    match api.resolve(ty) {
        Type::Primitive { name } => Some(*name),
        Type::Typedef { name } => builtin_typedef(name),
        _ => None,
    }
}

/// The Cython spelling of `ty` as seen from outside the library's Cython-level module
/// `cy_module` (the conventions' `python.cython_module`): API type names qualified by it.
pub fn cy_qualified(api: &Api, ty: &Type, cy_module: &str) -> String {
    qualify(api, &cy_decl(api, ty, ""), cy_module)
}

/// Prefixes every API type name in a Cython spelling with `<cy_module>.`.
fn qualify(api: &Api, spelled: &str, cy_module: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let known = (api.typedef(word).is_some() && builtin_typedef(word).is_none())
                || api.record(word).is_some()
                || api.enumeration(word).is_some()
                || api.records.iter().any(|r| r.typedef_name.as_deref() == Some(word.as_str()));
            if known {
                out.push_str(cy_module);
                out.push('.');
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

/// The range check an integer passes on its way into C: the width and signedness of its C type
/// (through typedefs and an enum's underlying type), and the `_base` helper that checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct IntRange {
    pub bits: u64,
    pub signed: bool,
    /// `_as_signed` or `_as_unsigned`: both refuse non-integers and values out of range.
    pub convert: &'static str,
}

impl IntRange {
    /// The same check for a bitfield of `bits` bits (a zero-width one, which holds nothing,
    /// is given one bit so the check's shifts stay defined).
    pub fn narrowed(self, bits: u64) -> IntRange {
        IntRange { bits: bits.clamp(1, self.bits), ..self }
    }

    fn of(p: Primitive) -> Option<IntRange> {
        // Integers wider than a long long have no conversion from Python here; floats are not integers.
        if p.is_float() || matches!(p, Primitive::Int128 | Primitive::UnsignedInt128) {
            return None;
        }
        let (size, _) = p.layout();
        // Plain `char` is signed on the x86 Linux targets; `_Bool` takes 0 and 1.
        let signed = p.is_signed_integer() || p == Primitive::Char;
        let bits = if p == Primitive::Bool { 1 } else { size * 8 };
        Some(IntRange { bits, signed, convert: if signed { "_as_signed" } else { "_as_unsigned" } })
    }
}

/// The range check of `ty` when it is an integer, an integer typedef or an enum.
pub fn int_range(api: &Api, ty: &Type) -> Option<IntRange> {
    match api.resolve(ty) {
        Type::Primitive { name } => IntRange::of(*name),
        Type::Typedef { name } => builtin_typedef(name).and_then(IntRange::of),
        Type::Enum { name } => api.enumeration(name).and_then(|e| IntRange::of(e.underlying)),
        Type::Array { element, .. } => int_range(api, element),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointer(pointee: Type, pointee_const: bool) -> Type {
        Type::Pointer { pointee: Box::new(pointee), pointee_const }
    }

    fn empty_api() -> Api {
        let provenance = ctkgen_ir::Provenance::unknown("t.h");
        let (functions, records, enums, typedefs, constants) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        Api { format_version: ctkgen_ir::FORMAT_VERSION, provenance, functions, records, enums, typedefs, constants }
    }

    #[test]
    fn a_const_pointer_pointed_at_keeps_its_const_after_its_star() {
        let api = empty_api();
        let chars = pointer(Type::Primitive { name: Primitive::Char }, true);
        // const char * const *names
        assert_eq!(cy_decl(&api, &pointer(chars.clone(), true), "names"), "const char *const *names");
        assert_eq!(cy_decl(&api, &pointer(chars.clone(), true), ""), "const char *const *");
        // const char **names, char *const *names
        assert_eq!(cy_decl(&api, &pointer(chars, false), "names"), "const char **names");
        let plain = pointer(Type::Primitive { name: Primitive::Char }, false);
        assert_eq!(cy_decl(&api, &pointer(plain, true), "names"), "char *const *names");
    }
}
