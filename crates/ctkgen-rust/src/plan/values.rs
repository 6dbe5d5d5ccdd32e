//! The values' part of the pass: each enum's Rust type, members and `Debug` names (flag sets
//! found), and each constant's Rust type and value.

use std::collections::BTreeSet;

use ctkgen_ir::{ConstantValue, Enum};

use super::{ident_of_enum, int_range, ConstantExpr, ConstantPlan, ConstantType, EnumConstantPlan, EnumPlan, Plan};
use crate::names::ident as rust_ident;
use crate::names::ident;
use crate::types::{fixed_int, Position, Scalar};
use crate::RustEmitError;

impl<'a> Plan<'a> {
    pub(super) fn plan_enum(&self, e: &'a Enum) -> Result<EnumPlan<'a>, RustEmitError> {
        let context = format!("enum `{}`", e.name);
        let enum_ident = rust_ident(&e.name, &context)?;
        let (underlying, bits, signed) = fixed_int(e.underlying, &context)?;
        let (min, max) = int_range(bits, signed);
        let mut constants = Vec::new();
        let mut names: Vec<(i128, String)> = Vec::new();
        let mut seen_names = BTreeSet::new();
        for c in &e.constants {
            if c.value < min || c.value > max {
                return Err(RustEmitError::InvalidEnum {
                    enumeration: e.name.clone(),
                    reason: format!(
                        "`{}` = {} does not fit the underlying `{}`",
                        c.name,
                        c.value,
                        e.underlying.c_name()
                    ),
                });
            }
            if c.name == "name" || !seen_names.insert(c.name.clone()) {
                return Err(RustEmitError::InvalidEnum {
                    enumeration: e.name.clone(),
                    reason: format!("constant name `{}` is taken", c.name),
                });
            }
            if !names.iter().any(|(v, _)| *v == c.value) {
                names.push((c.value, c.name.clone()));
            }
            constants.push(EnumConstantPlan {
                ident: ident(&c.name, &format!("constant `{}` of {context}", c.name))?,
                value: c.value,
                doc: c.doc.clone(),
            });
        }
        // Flags: every value is zero or made of bits that single-bit constants name (masks such
        // as `A | B | C` are allowed), at least two single-bit constants exist, and the values
        // are not one contiguous run of three or more (`0, 1, 2, 3` counts, it does not set bits).
        let mut flag_bits: Vec<(i128, String)> = Vec::new();
        for c in &e.constants {
            if c.value > 0 && (c.value & (c.value - 1)) == 0 && !flag_bits.iter().any(|(v, _)| *v == c.value) {
                flag_bits.push((c.value, c.name.clone()));
            }
        }
        let covered = flag_bits.iter().fold(0i128, |acc, (v, _)| acc | v);
        let distinct: BTreeSet<i128> = e.constants.iter().map(|c| c.value).collect();
        let contiguous = match (distinct.first(), distinct.last()) {
            (Some(low), Some(high)) => distinct.len() >= 3 && high - low + 1 == distinct.len() as i128,
            _ => false,
        };
        let is_flags =
            flag_bits.len() >= 2 && !contiguous && e.constants.iter().all(|c| c.value >= 0 && c.value & !covered == 0);
        if !is_flags {
            flag_bits.clear();
        }
        Ok(EnumPlan {
            enumeration: e,
            ident: enum_ident,
            underlying,
            constants,
            doc: e.doc.clone(),
            names,
            is_flags,
            flag_bits,
        })
    }

    pub(super) fn plan_constant(&self, c: &'a ctkgen_ir::Constant) -> Result<ConstantPlan<'a>, RustEmitError> {
        let context = format!("constant `{}`", c.name);
        let invalid = |reason: String| RustEmitError::InvalidConstant { constant: c.name.clone(), reason };
        let ident = ident(&c.name, &context)?;
        let declared = || -> Result<ConstantType, RustEmitError> {
            self.types.tokens(&c.ty, Position::Field, &context)?;
            Ok(ConstantType::Declared(c.ty.clone()))
        };
        let (ty, value) = match &c.value {
            ConstantValue::Str(text) => {
                if text.contains('\0') {
                    (ConstantType::Bytes, ConstantExpr::Bytes(text.as_bytes().to_vec()))
                } else {
                    (ConstantType::CStr, ConstantExpr::CStr(text.clone()))
                }
            }
            ConstantValue::Float(v) => match self.types.scalar(&c.ty) {
                Scalar::Float if v.is_finite() => (declared()?, ConstantExpr::Float(*v)),
                _ => {
                    return Err(invalid("a floating-point value needs a finite value of a floating-point type".into()))
                }
            },
            ConstantValue::Int(v) => match self.types.scalar(&c.ty) {
                Scalar::Int { bits, signed } => {
                    let (min, max) = int_range(bits, signed);
                    if *v < min || *v > max {
                        return Err(invalid(format!("value {v} does not fit its type")));
                    }
                    (declared()?, ConstantExpr::Int(*v))
                }
                Scalar::Bool => (declared()?, ConstantExpr::Bool(*v != 0)),
                Scalar::Float => (declared()?, ConstantExpr::Float(*v as f64)),
                Scalar::Enum(name) => {
                    let e = self
                        .api
                        .enumeration(&name)
                        .ok_or_else(|| RustEmitError::UnknownType { name: name.clone(), context: context.clone() })?;
                    let (_, bits, signed) = fixed_int(e.underlying, &context)?;
                    let (min, max) = int_range(bits, signed);
                    if *v < min || *v > max {
                        return Err(invalid(format!("value {v} does not fit enum `{name}`")));
                    }
                    (declared()?, ConstantExpr::Enum { ident: ident_of_enum(&name, &context)?, value: *v })
                }
                Scalar::Pointer { is_const } => {
                    let (size, _) = self.types.layout(&c.ty, &context)?;
                    let modulus = 1u128 << (size * 8).min(127);
                    let address = (*v).rem_euclid(modulus as i128) as u128;
                    let value = if address == 0 {
                        ConstantExpr::NullPointer { is_const }
                    } else {
                        ConstantExpr::Address { is_const, address }
                    };
                    (declared()?, value)
                }
                Scalar::Other => return Err(invalid("an integer value of a non-scalar type".into())),
            },
        };
        Ok(ConstantPlan { name: &c.name, ident, ty, value, expr: &c.expr, doc: c.doc.clone() })
    }
}
