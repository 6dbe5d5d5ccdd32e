//! Record members beyond one C value: pointer members that are arrays counted by a sibling
//! member (lists in Python), byte arrays, and how `repr()` prints each member.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, Field, Primitive, Type};
use serde::Serialize;

use crate::params::{Override, Overrides};
use crate::types::{cy_qualified, int_range, record_class, value_kind, IntRange, ValueKind};

/// How `repr()` prints a member, as the compatible module does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReprForm {
    /// `name : str(value)`.
    Value,
    /// An enum: `repr(member)`, or the plain int of a value that is not a member.
    Member,
    /// A record by value: `name :` and the record's own lines, indented.
    Nested,
    /// An untyped pointer: the address in hex.
    Hex,
    /// Bytes printed as hex digits.
    HexBytes,
}

/// A `T *` member holding an array of `count` elements, `count` being a sibling member.
#[derive(Debug, Clone, Serialize)]
pub struct ListMember {
    /// The count member's Python (and Cython) name.
    pub count: String,
    pub count_cy_type: String,
    pub count_range: IntRange,
    pub element: ValueKind,
    /// Cython spelling of the element type, without a `const`.
    pub element_cy_type: String,
    pub element_range: Option<IntRange>,
    /// The element's alignment: the array is allocated with it.
    pub element_align: u64,
    /// For record elements: the record's own class, which every element must be an instance
    /// of (the elements read back as `element`'s class, a typedef's subclass maybe).
    pub element_base: String,
}

/// A `char[N]` or `unsigned char[N]` member: bytes in Python.
#[derive(Debug, Clone, Serialize)]
pub struct BytesMember {
    pub len: u64,
    /// Plain `char`: a str is accepted too (UTF-8), and integers from the signed range.
    pub text: bool,
    /// The smallest integer an element takes in a list of ints (the largest is 255).
    pub min: i64,
}

/// The byte-array description of `ty`, when it is an array of a character type.
pub(super) fn bytes_member(api: &Api, ty: &Type) -> Option<BytesMember> {
    let Type::Array { element, len } = api.resolve(ty) else { return None };
    match api.resolve(element) {
        Type::Primitive { name: Primitive::Char } => Some(BytesMember { len: *len, text: true, min: i8::MIN.into() }),
        Type::Primitive { name: Primitive::SignedChar } => {
            Some(BytesMember { len: *len, text: false, min: i8::MIN.into() })
        }
        Type::Primitive { name: Primitive::UnsignedChar } => Some(BytesMember { len: *len, text: false, min: 0 }),
        _ => None,
    }
}

/// Which pointer members of a record are lists, and the member that counts each. A typed
/// pointer (to a record, a handle, an integer or an enum) is paired with an integer sibling
/// named after it (`num<P>`, `<P>Count`, singular forms included) or whose comment names it;
/// exactly one candidate makes a pair. The overrides (`list(<count>)`, `pointer`) settle the rest.
pub(super) fn list_members(
    api: &Api,
    cy_module: &str,
    record: &str,
    fields: &[&Field],
    overrides: &Overrides,
) -> BTreeMap<String, ListMember> {
    let mut out = BTreeMap::new();
    for pointer in fields {
        let Some((element, element_cy_type, element_align)) = list_element(api, cy_module, &pointer.ty) else {
            continue;
        };
        let count_name = match overrides.member(record, &pointer.name) {
            Some(Override::Pointer) => continue,
            Some(Override::List { count }) => Some(count.clone()),
            _ => {
                let integers: Vec<&&Field> = fields
                    .iter()
                    .filter(|f| f.name != pointer.name && f.bit_width.is_none())
                    .filter(|f| matches!(value_kind(api, &f.ty), ValueKind::Int))
                    .collect();
                let by_name: Vec<&&&Field> = integers.iter().filter(|f| named_count(&f.name, &pointer.name)).collect();
                let by_doc: Vec<&&&Field> = integers
                    .iter()
                    .filter(|f| f.doc.as_deref().is_some_and(|doc| mentions(doc, &pointer.name)))
                    .collect();
                match (by_name.as_slice(), by_doc.as_slice()) {
                    ([only], _) | ([], [only]) => Some(only.name.clone()),
                    _ => None,
                }
            }
        };
        let Some(count_field) = count_name.and_then(|n| fields.iter().find(|f| f.name == n)) else { continue };
        let Some(count_range) = count_field.bit_width.is_none().then(|| int_range(api, &count_field.ty)).flatten()
        else {
            continue;
        };
        out.insert(
            pointer.name.clone(),
            ListMember {
                count: crate::names::py_ident(&count_field.name),
                count_cy_type: cy_qualified(api, &count_field.ty, cy_module),
                count_range,
                element_range: match api.resolve(&pointer.ty) {
                    Type::Pointer { pointee, .. } => int_range(api, pointee),
                    _ => None,
                },
                element_base: struct_class(api, &element),
                element,
                element_cy_type,
                element_align,
            },
        );
    }
    out
}

/// For a record value, the class of the struct itself, which every alias class of it derives
/// from: a list or array of them takes items of any of these classes, as C takes the same type.
/// Empty for any other value.
pub(super) fn struct_class(api: &Api, kind: &ValueKind) -> String {
    match kind {
        ValueKind::Record { record, .. } => api.record(record).map(record_class).unwrap_or_default(),
        _ => String::new(),
    }
}

/// An uncounted pointer to records, as a member that also takes a list of them.
#[derive(Debug, Clone, Serialize)]
pub struct RecordArrayMember {
    /// The struct's own class: items of it and of its alias classes are taken.
    pub element_base: String,
    pub element_align: u64,
}

/// A pointer member whose pointee is a record, when no count pairs with it.
pub(super) fn record_array_member(api: &Api, ty: &Type) -> Option<RecordArrayMember> {
    let Type::Pointer { pointee, .. } = api.resolve(ty) else { return None };
    let kind = value_kind(api, pointee);
    if !matches!(kind, ValueKind::Record { .. }) {
        return None;
    }
    let (_, element_align) = api.type_layout(pointee)?;
    Some(RecordArrayMember { element_base: struct_class(api, &kind), element_align })
}

/// The element of a pointer member that can be a list: its kind, Cython spelling and alignment.
fn list_element(api: &Api, cy_module: &str, ty: &Type) -> Option<(ValueKind, String, u64)> {
    let Type::Pointer { pointee, .. } = ty else { return None };
    let kind = value_kind(api, pointee);
    let fits = match &kind {
        ValueKind::Record { .. } | ValueKind::Handle { .. } | ValueKind::Scalar { .. } | ValueKind::Enum { .. } => true,
        // Plain integers, but not characters: a `char *` is a string.
        ValueKind::Int => !matches!(
            api.resolve(pointee),
            Type::Primitive { name: Primitive::Char | Primitive::SignedChar | Primitive::UnsignedChar }
        ),
        _ => false,
    };
    let (_, align) = api.type_layout(pointee)?;
    fits.then(|| (kind, cy_qualified(api, pointee, cy_module), align))
}

/// Whether a member called `name` is, by its name, the count of `pointer`: `num<P>`,
/// `n<P>`, `<P>Count`, with `P` singular or plural.
fn named_count(name: &str, pointer: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let target = pointer.to_ascii_lowercase();
    let singular = target.strip_suffix('s').unwrap_or(&target);
    [target.as_str(), singular]
        .iter()
        .any(|p| name == format!("num{p}") || name == format!("{p}count") || name == format!("n{p}"))
}

/// Whether `doc` names `word` as a whole identifier.
fn mentions(doc: &str, word: &str) -> bool {
    doc.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_named_after_its_array() {
        assert!(named_count("numWidgets", "widgets"));
        assert!(named_count("gadgetCount", "gadgets"));
        assert!(named_count("itemsCount", "items"));
        assert!(!named_count("flags", "items"));
        assert!(mentions("Number of entries in items and others.", "items"));
        assert!(mentions("Entries of ::Table::items", "items"));
        assert!(!mentions("Number of itemsets.", "items"));
    }
}
