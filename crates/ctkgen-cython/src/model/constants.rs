//! Constant macros as Python values.

use ctkgen_ir::{Api, ConstantValue, Type};
use serde::Serialize;

use crate::names::string_literal;
use crate::types::{value_kind, ValueKind};

#[derive(Debug, Serialize)]
pub struct ConstantView {
    pub name: String,
    /// Python expression for the value.
    pub value: String,
}

pub(super) fn constants(api: &Api) -> Vec<ConstantView> {
    api.constants
        .iter()
        .filter_map(|c| {
            let literal = match &c.value {
                ConstantValue::Int(v) => v.to_string(),
                ConstantValue::Float(v) if v.is_finite() => format!("{v:?}"),
                ConstantValue::Float(_) => return None,
                ConstantValue::Str(s) => format!("\"{}\"", string_literal(s)),
            };
            let value = match (value_kind(api, &c.ty), &c.value) {
                (ValueKind::Handle { class } | ValueKind::Scalar { class }, ConstantValue::Int(v)) => {
                    // Cast macros such as `((Handle)0x1)`: the handle type, two's complement.
                    let wrapped = if *v < 0 { (*v as i64 as u64).to_string() } else { v.to_string() };
                    let wrapped = if matches!(value_kind(api, &c.ty), ValueKind::Scalar { .. }) {
                        v.to_string()
                    } else {
                        wrapped
                    };
                    format!("{class}({wrapped})")
                }
                // A macro naming an enumerator (`#define NEW_NAME OLD_MEMBER`): that member, an
                // int subclass like the plain int the macro is in C.
                (ValueKind::Enum { class }, ConstantValue::Int(v)) => match enum_member(api, &c.ty, &c.expr, *v) {
                    Some(member) => format!("{class}.{member}"),
                    None => literal,
                },
                _ => literal,
            };
            Some(ConstantView { name: c.name.clone(), value })
        })
        .collect()
}

/// The member of the enum `ty` that a constant of value `value` is: the one its macro body
/// names, else the first with that value.
fn enum_member(api: &Api, ty: &Type, body: &str, value: i128) -> Option<String> {
    let Type::Enum { name } = api.resolve(ty) else { return None };
    let e = api.enumeration(name)?;
    let named = e.constants.iter().find(|m| m.name == body && m.value == value);
    named.or_else(|| e.constants.iter().find(|m| m.value == value)).map(|m| m.name.clone())
}
