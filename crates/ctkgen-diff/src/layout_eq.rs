//! Whether code built against a type of the old model works with the same-place type of the
//! new one: typedefs resolved, records compared by layout rather than by tag.
//!
//! A record keeps its ABI when size, alignment and kind stay and every member the old side
//! knows sits where it was with a compatible type. New members may only take bytes that were
//! reserved, or join a union without growing it; member names do not matter.

use std::cell::RefCell;

use ctkgen_ir::{Api, Field, Primitive, Record, RecordKind, Type};

use crate::TagRename;

/// What a scalar is to the calling convention and to the bits it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarClass {
    Bool,
    /// Plain `char`, whose signedness depends on the target.
    Char,
    Signed,
    Unsigned,
    Float,
}

fn scalar_class(p: Primitive) -> ScalarClass {
    match p {
        Primitive::Bool => ScalarClass::Bool,
        Primitive::Char => ScalarClass::Char,
        Primitive::Float | Primitive::Double | Primitive::LongDouble => ScalarClass::Float,
        p if p.is_signed_integer() => ScalarClass::Signed,
        _ => ScalarClass::Unsigned,
    }
}

/// Compares types across the two models.
pub(crate) struct LayoutEq<'a> {
    pub old: &'a Api,
    pub new: &'a Api,
    /// Record pairs being compared further up the stack; meeting one again through a pointer
    /// assumes it equal, which is what makes self-referencing records comparable.
    in_progress: RefCell<Vec<(String, String)>>,
}

impl<'a> LayoutEq<'a> {
    pub fn new(old: &'a Api, new: &'a Api) -> LayoutEq<'a> {
        LayoutEq { old, new, in_progress: RefCell::new(Vec::new()) }
    }

    /// `true` when a value of `old_ty` and one of `new_ty` are laid out and passed alike.
    pub fn types(&self, old_ty: &Type, new_ty: &Type) -> bool {
        let a = self.old.resolve(old_ty);
        let b = self.new.resolve(new_ty);
        match (a, b) {
            (Type::Void, Type::Void) => true,
            // A typedef neither model defines can only be compared by name.
            (Type::Typedef { name: x }, Type::Typedef { name: y }) => x == y,
            // The pointer is always 8 bytes, but the callee reads what it points to.
            (Type::Pointer { pointee: p, .. }, Type::Pointer { pointee: q, .. }) => self.types(p, q),
            (Type::Array { element: e, len: n }, Type::Array { element: f, len: m }) => n == m && self.types(e, f),
            (
                Type::Function { ret: r1, params: p1, variadic: v1 },
                Type::Function { ret: r2, params: p2, variadic: v2 },
            ) => {
                v1 == v2
                    && p1.len() == p2.len()
                    && self.types(r1, r2)
                    && p1.iter().zip(p2).all(|(x, y)| self.types(x, y))
            }
            (Type::Record { name: x }, Type::Record { name: y }) => self.records(x, y),
            _ => match (scalar(self.old, a), scalar(self.new, b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
        }
    }

    /// Records by layout: kind, size, alignment and each field's position and type.
    pub fn records(&self, old_name: &str, new_name: &str) -> bool {
        let pair = (old_name.to_string(), new_name.to_string());
        if self.in_progress.borrow().contains(&pair) {
            return true;
        }
        let (Some(a), Some(b)) = (self.old.record(old_name), self.new.record(new_name)) else {
            return old_name == new_name;
        };
        if !a.complete || !b.complete {
            // An opaque handle has no layout to compare; only its tag identifies it.
            return old_name == new_name && a.complete == b.complete;
        }
        if a.kind != b.kind || a.size != b.size || a.align != b.align {
            return false;
        }
        self.in_progress.borrow_mut().push(pair);
        let same = self.fields_compatible(a, b);
        self.in_progress.borrow_mut().pop();
        same
    }

    fn fields_compatible(&self, a: &Record, b: &Record) -> bool {
        let mut taken = vec![false; b.fields.len()];
        for f in a.fields.iter().filter(|f| !is_padding(&f.name)) {
            let found =
                b.fields.iter().enumerate().position(|(j, g)| !taken[j] && same_slot(f, g) && self.types(&f.ty, &g.ty));
            match found {
                Some(j) => taken[j] = true,
                None => return false,
            }
        }
        let union = a.kind == RecordKind::Union;
        b.fields
            .iter()
            .zip(&taken)
            .filter(|(_, t)| !**t)
            .all(|(g, _)| union || a.fields.iter().any(|f| is_padding(&f.name) && within(g, f)))
    }

    /// The struct tags that differ between two same-layout types, walking the declarator
    /// (pointers, arrays, function types) but not into record fields.
    pub fn tag_renames(&self, position: &str, old_ty: &Type, new_ty: &Type, out: &mut Vec<TagRename>) {
        match (self.old.resolve(old_ty), self.new.resolve(new_ty)) {
            (Type::Pointer { pointee: p, .. }, Type::Pointer { pointee: q, .. }) => {
                self.tag_renames(position, p, q, out)
            }
            (Type::Array { element: e, .. }, Type::Array { element: f, .. }) => self.tag_renames(position, e, f, out),
            (Type::Function { ret: r1, params: p1, .. }, Type::Function { ret: r2, params: p2, .. }) => {
                self.tag_renames(position, r1, r2, out);
                for (x, y) in p1.iter().zip(p2) {
                    self.tag_renames(position, x, y, out);
                }
            }
            (Type::Record { name: x }, Type::Record { name: y }) if x != y => {
                out.push(TagRename { position: position.to_string(), old_tag: x.clone(), new_tag: y.clone() });
            }
            _ => {}
        }
    }

    /// The record a type names once typedefs are resolved, if it names one directly.
    pub fn old_record_of<'t>(&self, ty: &'t Type) -> Option<&'t str>
    where
        'a: 't,
    {
        record_of(self.old, ty)
    }

    pub fn new_record_of<'t>(&self, ty: &'t Type) -> Option<&'t str>
    where
        'a: 't,
    {
        record_of(self.new, ty)
    }
}

fn record_of<'t>(api: &'t Api, ty: &'t Type) -> Option<&'t str> {
    match api.resolve(ty) {
        Type::Record { name } => Some(name),
        _ => None,
    }
}

/// Integers, enums and floats as (class, size); an enum is its underlying integer.
fn scalar(api: &Api, ty: &Type) -> Option<(ScalarClass, u64)> {
    let primitive = match ty {
        Type::Primitive { name } => *name,
        Type::Enum { name } => api.enumeration(name)?.underlying,
        _ => return None,
    };
    Some((scalar_class(primitive), primitive.layout().0))
}

/// Members that only hold space for later use; giving their bytes to new members keeps every
/// existing member where it was.
pub(crate) fn is_padding(name: &str) -> bool {
    let bare = name.trim_start_matches('_').to_ascii_lowercase();
    bare.starts_with("reserved") || bare.starts_with("pad") || bare.contains("padding") || bare == "oversize"
}

fn bit_span(f: &Field) -> (u64, u64) {
    let width = f.bit_width.map(u64::from).unwrap_or(f.size * 8);
    (f.offset_bits, f.offset_bits + width)
}

/// Whether `inner` lies entirely in the bytes of `outer`.
pub(crate) fn within(inner: &Field, outer: &Field) -> bool {
    let (a, b) = bit_span(inner);
    let (c, d) = bit_span(outer);
    c <= a && b <= d
}

pub(crate) fn same_slot(f: &Field, g: &Field) -> bool {
    f.offset_bits == g.offset_bits && f.bit_width == g.bit_width && f.size == g.size
}
