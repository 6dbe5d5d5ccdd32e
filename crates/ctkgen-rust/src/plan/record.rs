//! The records' part of the pass: each record's Rust layout, with padding where C leaves more room
//! than `repr(C)` would, bitfield runs as byte arrays, and the explicit alignment or packing.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::{Api, Record, RecordKind, Type};

use super::Plan;
use crate::names::ident as rust_ident;
use crate::names::{self, ident, synthetic, Name};
use crate::types::{fixed_int, Position, Scalar};
use crate::RustEmitError;

pub struct RecordPlan<'a> {
    pub record: &'a Record,
    pub ident: Name,
    pub shape: RecordShape,
    /// The raw comment, as every `doc` of the plan; Markdown once `docs::render` has run over it.
    pub doc: Option<String>,
}

pub enum RecordShape {
    /// A forward-declared record: only pointers to it exist.
    Opaque,
    Complete {
        is_union: bool,
        repr: Repr,
        members: Vec<Member>,
    },
}

/// The `#[repr]` of a complete record beyond `C`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Repr {
    /// `align(N)`: the model's alignment exceeds what the Rust fields give.
    pub align: Option<u64>,
    /// `packed` / `packed(N)`.
    pub packed: Option<u64>,
}

pub enum Member {
    Field {
        ident: Name,
        ty: Type,
        offset: u64,
        doc: Option<String>,
    },
    /// Bytes the C compiler leaves empty where Rust would not (explicit field alignment).
    Padding {
        ident: Name,
        offset: u64,
        len: u64,
    },
    /// One run of bitfields as a byte array, with an accessor pair per named bitfield.
    Bitfields {
        ident: Name,
        offset: u64,
        len: u64,
        accessors: Vec<Accessor>,
    },
}

pub struct Accessor {
    pub getter: Name,
    pub setter: Name,
    /// Bit offset inside the storage unit.
    pub bit_offset: u64,
    pub width: u32,
    pub ty: Type,
    pub conversion: BitConversion,
    pub doc: Option<String>,
}

pub enum BitConversion {
    /// An integer or `bool`, converted by the runtime's `BitValue` trait.
    Value,
    /// An enum newtype over an integer of `underlying` type.
    Enum { ident: Name, underlying: Name },
}

fn round_up(value: u64, align: u64) -> u64 {
    if align <= 1 {
        value
    } else {
        value.div_ceil(align) * align
    }
}

impl<'a> Plan<'a> {
    pub(super) fn plan_record(&self, record: &'a Record) -> Result<RecordPlan<'a>, RustEmitError> {
        let context = format!("record `{}`", record.name);
        let record_ident = rust_ident(&record.name, &context)?;
        if !record.complete {
            return Ok(RecordPlan { record, ident: record_ident, shape: RecordShape::Opaque, doc: record.doc.clone() });
        }
        let unrepresentable =
            |reason: String| RustEmitError::UnrepresentableLayout { record: record.name.clone(), reason };
        let is_union = record.kind == RecordKind::Union;
        // `#pragma pack(N)` leaves no `packed` flag, only an alignment below what the members
        // need: that is packing to N as well.
        let member_align = record.fields.iter().filter(|f| f.bit_width.is_none()).map(|f| f.align).max().unwrap_or(1);
        let pack = if record.packed || record.align < member_align {
            if !record.explicit_alignments.is_empty() {
                return Err(unrepresentable(
                    "it is packed and also carries an explicit alignment; Rust forbids `packed` together with `align`"
                        .into(),
                ));
            }
            Some(record.align.max(1))
        } else {
            None
        };

        let mut taken: BTreeSet<String> = record.fields.iter().map(|f| names::plain(&f.name)).collect();
        let mut fresh = |base: String| {
            let mut name = base;
            while taken.contains(&name) {
                name.push('_');
            }
            taken.insert(name.clone());
            synthetic(&name)
        };

        // Members in declaration order, with Rust layouts; bitfield runs become byte arrays.
        let mut members: Vec<(Member, u64, u64)> = Vec::new();
        let mut methods: BTreeSet<String> = BTreeSet::new();
        let mut units = 0;
        let mut i = 0;
        while i < record.fields.len() {
            let field = &record.fields[i];
            if field.bit_width.is_none() {
                let field_context = format!("field `{}` of {context}", field.name);
                if field.offset_bits.checked_rem(8) != Some(0) {
                    return Err(unrepresentable(format!("field `{}` does not start on a byte", field.name)));
                }
                let (size, align) = self.types.layout(&field.ty, &field_context)?;
                if (size, align) != (field.size, field.align) {
                    return Err(unrepresentable(format!(
                        "field `{}` has size {} align {} in the model but {size}/{align} as a Rust type",
                        field.name, field.size, field.align
                    )));
                }
                // Reject types Rust cannot write before going further.
                self.types.tokens(&field.ty, Position::Field, &field_context)?;
                members.push((
                    Member::Field {
                        ident: ident(&field.name, &field_context)?,
                        ty: field.ty.clone(),
                        offset: field.offset_bits / 8,
                        doc: field.doc.clone(),
                    },
                    size,
                    align,
                ));
                i += 1;
                continue;
            }
            let run_end =
                record.fields[i..].iter().position(|f| f.bit_width.is_none()).map_or(record.fields.len(), |n| i + n);
            let run = &record.fields[i..run_end];
            i = run_end;
            let sized: Vec<_> = run.iter().filter(|f| f.bit_width.unwrap_or(0) > 0).collect();
            let (Some(start_bit), Some(end_bit)) = (
                sized.iter().map(|f| f.offset_bits).min(),
                sized.iter().map(|f| f.offset_bits + u64::from(f.bit_width.unwrap_or(0))).max(),
            ) else {
                continue; // only zero-width bitfields: they affect offsets, which the model has
            };
            let offset = start_bit / 8;
            let len = end_bit.div_ceil(8) - offset;
            let mut accessors = Vec::new();
            for f in sized {
                if f.anonymous {
                    continue; // an unnamed bitfield is padding
                }
                let width = f.bit_width.unwrap_or(0);
                let field_context = format!("bitfield `{}` of {context}", f.name);
                let conversion = match self.types.scalar(&f.ty) {
                    Scalar::Int { bits, .. } if bits <= u64::BITS => BitConversion::Value,
                    Scalar::Bool => BitConversion::Value,
                    Scalar::Enum(name) => {
                        let e = self.api.enumeration(&name).ok_or_else(|| RustEmitError::UnknownType {
                            name: name.clone(),
                            context: field_context.clone(),
                        })?;
                        let (underlying, _, _) = fixed_int(e.underlying, &field_context)?;
                        BitConversion::Enum { ident: rust_ident(&e.name, &field_context)?, underlying }
                    }
                    _ => {
                        return Err(RustEmitError::UnsupportedType {
                            what: "a bitfield of a non-integer type".into(),
                            context: field_context,
                        })
                    }
                };
                if width > u64::BITS {
                    return Err(RustEmitError::UnsupportedType {
                        what: "a bitfield wider than a u64".into(),
                        context: field_context,
                    });
                }
                self.types.tokens(&f.ty, Position::Field, &field_context)?;
                let getter_name = names::plain(&f.name);
                let setter_name = format!("set_{}", f.name.trim_start_matches("r#"));
                for name in [&getter_name, &setter_name] {
                    if !methods.insert(name.clone()) {
                        return Err(unrepresentable(format!("bitfield accessor `{name}` would be defined twice")));
                    }
                }
                accessors.push(Accessor {
                    getter: ident(&f.name, &field_context)?,
                    setter: ident(&setter_name, &field_context)?,
                    bit_offset: f.offset_bits - offset * 8,
                    width,
                    ty: f.ty.clone(),
                    conversion,
                    doc: f.doc.clone(),
                });
            }
            units += 1;
            members.push((
                Member::Bitfields { ident: fresh(format!("_bitfield_{units}")), offset, len, accessors },
                len,
                1,
            ));
        }

        // Lay the members out as `repr(C)` does and insert padding where C leaves more room.
        let mut laid = Vec::new();
        let mut cursor = 0u64;
        let mut natural_align = 1u64;
        let mut paddings = 0;
        for (member, size, align) in members {
            let align = pack.map_or(align, |p| align.min(p));
            natural_align = natural_align.max(align);
            let offset = match &member {
                Member::Field { offset, .. } | Member::Bitfields { offset, .. } | Member::Padding { offset, .. } => {
                    *offset
                }
            };
            if is_union {
                if offset != 0 {
                    return Err(unrepresentable(format!("a union member sits at byte {offset}")));
                }
                cursor = cursor.max(size);
                laid.push(member);
                continue;
            }
            let rust_offset = round_up(cursor, align);
            if offset < rust_offset {
                return Err(unrepresentable(format!(
                    "a member sits at byte {offset} but Rust would place it at byte {rust_offset}"
                )));
            }
            if offset > rust_offset {
                if offset % align != 0 {
                    return Err(unrepresentable(format!("a member at byte {offset} is not aligned to {align}")));
                }
                paddings += 1;
                laid.push(Member::Padding {
                    ident: fresh(format!("_padding_{paddings}")),
                    offset: cursor,
                    len: offset - cursor,
                });
            }
            laid.push(member);
            cursor = offset + size;
        }

        let mut repr = Repr { align: None, packed: pack };
        let final_align = match pack {
            Some(_) => {
                if record.align != natural_align {
                    return Err(unrepresentable(format!(
                        "it is packed to alignment {} but its members give {natural_align}",
                        record.align
                    )));
                }
                natural_align
            }
            None => {
                if record.align > natural_align {
                    if !record.align.is_power_of_two() {
                        return Err(unrepresentable(format!("alignment {} is not a power of two", record.align)));
                    }
                    repr.align = Some(record.align);
                } else if record.align < natural_align {
                    return Err(unrepresentable(format!(
                        "alignment {} is below the {natural_align} its members need, yet it is not packed",
                        record.align
                    )));
                }
                record.align
            }
        };
        let rust_size = round_up(cursor, final_align);
        if record.size < rust_size {
            return Err(unrepresentable(format!("size {} is below the {rust_size} bytes Rust needs", record.size)));
        }
        if record.size > rust_size {
            if record.size.checked_rem(final_align) != Some(0) {
                return Err(unrepresentable(format!(
                    "size {} is not a multiple of alignment {final_align}",
                    record.size
                )));
            }
            paddings += 1;
            let ident = fresh(format!("_padding_{paddings}"));
            if is_union {
                laid.push(Member::Padding { ident, offset: 0, len: record.size });
            } else {
                laid.push(Member::Padding { ident, offset: cursor, len: record.size - cursor });
            }
        }
        Ok(RecordPlan {
            record,
            ident: record_ident,
            shape: RecordShape::Complete { is_union, repr, members: laid },
            doc: record.doc.clone(),
        })
    }

    /// Rust refuses a packed type that contains an `align` type, at any depth.
    pub(super) fn check_packed_records(&self) -> Result<(), RustEmitError> {
        let by_name: BTreeMap<&str, &RecordPlan> = self.records.iter().map(|r| (r.record.name.as_str(), r)).collect();
        fn has_align(name: &str, by_name: &BTreeMap<&str, &RecordPlan>, api: &Api, depth: u32) -> bool {
            let Some(plan) = by_name.get(name) else { return false };
            let RecordShape::Complete { repr, members, .. } = &plan.shape else { return false };
            if repr.align.is_some() {
                return true;
            }
            depth < 32
                && members.iter().any(|m| match m {
                    Member::Field { ty, .. } => {
                        record_in(ty, api).is_some_and(|inner| has_align(inner, by_name, api, depth + 1))
                    }
                    _ => false,
                })
        }
        fn record_in<'t>(ty: &'t Type, api: &'t Api) -> Option<&'t str> {
            match api.resolve(ty) {
                Type::Record { name } => Some(name),
                Type::Array { element, .. } => record_in(element, api),
                _ => None,
            }
        }
        for plan in &self.records {
            if let RecordShape::Complete { repr: Repr { packed: Some(_), .. }, members, .. } = &plan.shape {
                for m in members {
                    if let Member::Field { ty, .. } = m {
                        if let Some(inner) = record_in(ty, self.api) {
                            if has_align(inner, &by_name, self.api, 0) {
                                return Err(RustEmitError::UnrepresentableLayout {
                                    record: plan.record.name.clone(),
                                    reason: format!(
                                        "it is packed and contains `{inner}`, which needs an explicit alignment"
                                    ),
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
