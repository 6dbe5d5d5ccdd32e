//! Layout questions answered from the model alone: type sizes, typedef resolution and the
//! over-alignment rule that both emitters obey.

use crate::{Api, Primitive, Record, Type};

/// What CPython's object allocator guarantees on 64-bit platforms. A value whose alignment
/// exceeds it must not live inside a Python object.
pub const PYTHON_OBJECT_ALIGNMENT: u64 = 16;

impl Primitive {
    /// `(size, align)` in bytes on the LP64 Linux targets ctkgen supports.
    pub fn layout(self) -> (u64, u64) {
        match self {
            Primitive::Bool | Primitive::Char | Primitive::SignedChar | Primitive::UnsignedChar => (1, 1),
            Primitive::Short | Primitive::UnsignedShort => (2, 2),
            Primitive::Int | Primitive::UnsignedInt | Primitive::Float => (4, 4),
            Primitive::Long
            | Primitive::UnsignedLong
            | Primitive::LongLong
            | Primitive::UnsignedLongLong
            | Primitive::Double => (8, 8),
            Primitive::Int128 | Primitive::UnsignedInt128 | Primitive::LongDouble => (16, 16),
        }
    }
}

impl Api {
    /// Follows typedefs until a non-typedef type; unknown typedef names are returned as is.
    pub fn resolve<'a>(&'a self, mut ty: &'a Type) -> &'a Type {
        for _ in 0..64 {
            match ty {
                Type::Typedef { name } => match self.typedef(name) {
                    Some(def) => ty = &def.ty,
                    None => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }

    /// `(size, align)` in bytes, or `None` for void, functions and incomplete records.
    pub fn type_layout(&self, ty: &Type) -> Option<(u64, u64)> {
        match ty {
            Type::Void | Type::Function { .. } => None,
            Type::Primitive { name } => Some(name.layout()),
            Type::Pointer { .. } => Some((8, 8)),
            Type::Typedef { name } => {
                let def = self.typedef(name)?;
                (def.align != 0).then_some((def.size, def.align))
            }
            Type::Record { name } => {
                let record = self.record(name)?;
                record.complete.then_some((record.size, record.align))
            }
            Type::Enum { name } => self.enumeration(name).map(|e| e.underlying.layout()),
            Type::Array { element, len } => {
                let (size, align) = self.type_layout(element)?;
                Some((size * len, align))
            }
        }
    }

    /// Records whose alignment exceeds `limit`. The compiler's alignment already includes what
    /// members contribute, so a record holding an over-aligned member is listed too.
    pub fn over_aligned_records(&self, limit: u64) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(move |r| r.is_over_aligned(limit))
    }
}

impl Record {
    /// Whether a value of this record needs more alignment than `limit` guarantees.
    pub fn is_over_aligned(&self, limit: u64) -> bool {
        self.complete && self.align > limit
    }
}
