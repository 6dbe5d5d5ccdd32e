//! IR types as Rust types: the token spelling, the layout Rust gives them, and what kind of
//! scalar they are. Typedef names are kept in the spelling; layouts look through them.

use ctkgen_ir::{Api, Primitive, Type};
use proc_macro2::TokenStream;
use quote::quote;

use crate::names::ident;
use crate::RustEmitError;

/// Where a type is written; C decays arrays and functions in parameters, and `void` only means
/// something as a return type or behind a pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Field,
    Param,
    Return,
    Alias,
    Pointee,
}

/// A type as a value: what a constant or a bitfield accessor needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scalar {
    Int {
        bits: u32,
        signed: bool,
    },
    Float,
    Bool,
    /// An enum newtype, by its IR name.
    Enum(String),
    Pointer {
        is_const: bool,
    },
    Other,
}

/// Typedef chains longer than this are taken for cycles.
const MAX_TYPEDEF_DEPTH: u32 = 32;

/// Typedef names from `<stddef.h>` / `<stdint.h>` that a model may use without declaring.
fn builtin_typedef(name: &str) -> Option<(TokenStream, Primitive)> {
    Some(match name {
        "size_t" | "uintptr_t" => (quote!(usize), Primitive::UnsignedLong),
        "ssize_t" | "ptrdiff_t" | "intptr_t" => (quote!(isize), Primitive::Long),
        "int8_t" => (quote!(i8), Primitive::SignedChar),
        "uint8_t" => (quote!(u8), Primitive::UnsignedChar),
        "int16_t" => (quote!(i16), Primitive::Short),
        "uint16_t" => (quote!(u16), Primitive::UnsignedShort),
        "int32_t" => (quote!(i32), Primitive::Int),
        "uint32_t" => (quote!(u32), Primitive::UnsignedInt),
        "int64_t" => (quote!(i64), Primitive::LongLong),
        "uint64_t" => (quote!(u64), Primitive::UnsignedLongLong),
        _ => return None,
    })
}

fn primitive_tokens(p: Primitive, context: &str) -> Result<TokenStream, RustEmitError> {
    Ok(match p {
        Primitive::Bool => quote!(bool),
        Primitive::Char => quote!(::core::ffi::c_char),
        Primitive::SignedChar => quote!(::core::ffi::c_schar),
        Primitive::UnsignedChar => quote!(::core::ffi::c_uchar),
        Primitive::Short => quote!(::core::ffi::c_short),
        Primitive::UnsignedShort => quote!(::core::ffi::c_ushort),
        Primitive::Int => quote!(::core::ffi::c_int),
        Primitive::UnsignedInt => quote!(::core::ffi::c_uint),
        Primitive::Long => quote!(::core::ffi::c_long),
        Primitive::UnsignedLong => quote!(::core::ffi::c_ulong),
        Primitive::LongLong => quote!(::core::ffi::c_longlong),
        Primitive::UnsignedLongLong => quote!(::core::ffi::c_ulonglong),
        Primitive::Int128 => quote!(i128),
        Primitive::UnsignedInt128 => quote!(u128),
        Primitive::Float => quote!(f32),
        Primitive::Double => quote!(f64),
        Primitive::LongDouble => {
            return Err(RustEmitError::UnsupportedType { what: "long double".into(), context: context.into() })
        }
    })
}

/// The fixed-width Rust integer for an integer primitive (used for enum newtypes).
pub fn fixed_int(p: Primitive, context: &str) -> Result<(crate::names::Name, u32, bool), RustEmitError> {
    let (size, _) = p.layout();
    let signed = p.is_signed_integer();
    if p.is_float() || matches!(p, Primitive::Bool | Primitive::Char) {
        return Err(RustEmitError::UnsupportedType {
            what: format!("`{}` as an enum's underlying type", p.c_name()),
            context: context.into(),
        });
    }
    let bits = (size * 8) as u32;
    let name = format!("{}{bits}", if signed { "i" } else { "u" });
    Ok((crate::names::synthetic(&name), bits, signed))
}

fn scalar_of_primitive(p: Primitive) -> Scalar {
    match p {
        Primitive::Bool => Scalar::Bool,
        p if p.is_float() => Scalar::Float,
        // Plain `char` is signed on some targets and unsigned on others: accept only values
        // that mean the same either way.
        Primitive::Char => Scalar::Int { bits: 7, signed: false },
        p => Scalar::Int { bits: (p.layout().0 * 8) as u32, signed: p.is_signed_integer() },
    }
}

/// Answers type questions against one model.
pub struct Types<'a> {
    pub api: &'a Api,
}

impl<'a> Types<'a> {
    pub fn new(api: &'a Api) -> Self {
        Types { api }
    }

    /// Whether `ty` is (a typedef of) a function type, not a pointer to one.
    pub fn is_function(&self, ty: &Type) -> bool {
        matches!(self.api.resolve(ty), Type::Function { .. })
    }

    /// Rust spelling of `ty` written at `position`.
    pub fn tokens(&self, ty: &Type, position: Position, context: &str) -> Result<TokenStream, RustEmitError> {
        match ty {
            Type::Void => match position {
                Position::Return => Ok(quote!(())),
                Position::Pointee => Ok(quote!(::core::ffi::c_void)),
                _ => Err(RustEmitError::UnsupportedType { what: "`void` by value".into(), context: context.into() }),
            },
            Type::Primitive { name } => primitive_tokens(*name, context),
            Type::Typedef { name } => {
                if let Some(def) = self.api.typedef(name).filter(|def| def.system) {
                    // A system header's typedef is written the way Rust spells it.
                    if let Some((tokens, _)) = builtin_typedef(name) {
                        return Ok(tokens);
                    }
                    if matches!(&def.ty, Type::Typedef { name: inner } if inner == name) {
                        return Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() });
                    }
                    return self.tokens(&def.ty, position, context);
                }
                if self.api.typedef(name).is_some() {
                    let id = ident(name, context)?;
                    if self.is_function(ty) && position == Position::Param {
                        return Ok(quote!(::core::option::Option<#id>));
                    }
                    Ok(quote!(#id))
                } else if let Some((tokens, _)) = builtin_typedef(name) {
                    Ok(tokens)
                } else {
                    Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() })
                }
            }
            Type::Record { name } => {
                if self.api.record(name).is_none() {
                    return Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() });
                }
                let id = ident(name, context)?;
                Ok(quote!(#id))
            }
            Type::Enum { name } => {
                if self.api.enumeration(name).is_none() {
                    return Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() });
                }
                let id = ident(name, context)?;
                Ok(quote!(#id))
            }
            Type::Pointer { pointee, pointee_const } => {
                // A pointer to a function is Rust's nullable function pointer.
                if let Type::Function { .. } = **pointee {
                    let function = self.tokens(pointee, Position::Alias, context)?;
                    return Ok(quote!(::core::option::Option<#function>));
                }
                if self.is_function(pointee) {
                    let alias = self.tokens(pointee, Position::Alias, context)?;
                    return Ok(quote!(::core::option::Option<#alias>));
                }
                let inner = self.tokens(pointee, Position::Pointee, context)?;
                Ok(if *pointee_const { quote!(*const #inner) } else { quote!(*mut #inner) })
            }
            Type::Array { element, len } => {
                let inner = self.tokens(element, Position::Field, context)?;
                if position == Position::Param {
                    return Ok(quote!(*mut #inner));
                }
                let len = proc_macro2::Literal::u64_unsuffixed(*len);
                Ok(quote!([#inner; #len]))
            }
            Type::Function { ret, params, variadic } => {
                let ret = self.return_tokens(ret, context)?;
                let mut list = Vec::new();
                for p in params {
                    list.push(self.tokens(p, Position::Param, context)?);
                }
                let dots = if *variadic { quote!(, ...) } else { quote!() };
                let function = quote!(unsafe extern "C" fn(#(#list),* #dots) #ret);
                match position {
                    Position::Alias => Ok(function),
                    Position::Param => Ok(quote!(::core::option::Option<#function>)),
                    _ => Err(RustEmitError::UnsupportedType {
                        what: "a function type by value".into(),
                        context: context.into(),
                    }),
                }
            }
        }
    }

    /// `-> T`, or nothing for `void`.
    pub fn return_tokens(&self, ty: &Type, context: &str) -> Result<TokenStream, RustEmitError> {
        if matches!(ty, Type::Void) {
            return Ok(quote!());
        }
        let t = self.tokens(ty, Position::Return, context)?;
        Ok(quote!(-> #t))
    }

    /// `(size, align)` of `ty` as the generated Rust type has it. For typedefs this is the
    /// layout of the named type: a typedef that changes it cannot be expressed.
    pub fn layout(&self, ty: &Type, context: &str) -> Result<(u64, u64), RustEmitError> {
        self.layout_inner(ty, context, 0)
    }

    fn layout_inner(&self, ty: &Type, context: &str, depth: u32) -> Result<(u64, u64), RustEmitError> {
        if depth > MAX_TYPEDEF_DEPTH {
            return Err(RustEmitError::UnsupportedType { what: "a typedef cycle".into(), context: context.into() });
        }
        match ty {
            Type::Void | Type::Function { .. } => {
                Err(RustEmitError::UnsupportedType { what: "a type without a size".into(), context: context.into() })
            }
            Type::Primitive { name } => {
                primitive_tokens(*name, context)?;
                Ok(name.layout())
            }
            Type::Pointer { .. } => self.api.type_layout(ty).ok_or_else(|| RustEmitError::UnsupportedType {
                what: "a pointer without a layout".into(),
                context: context.into(),
            }),
            Type::Typedef { name } => match self.api.typedef(name) {
                Some(def) => {
                    let natural = self.layout_inner(&def.ty, context, depth + 1)?;
                    if def.align != 0 && def.align != natural.1 {
                        return Err(RustEmitError::AlignedTypedef {
                            typedef: name.clone(),
                            align: def.align,
                            natural: natural.1,
                        });
                    }
                    Ok(natural)
                }
                None => match builtin_typedef(name) {
                    Some((_, p)) => Ok(p.layout()),
                    None => Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() }),
                },
            },
            Type::Record { name } => match self.api.record(name) {
                Some(r) if r.complete => Ok((r.size, r.align)),
                Some(_) => Err(RustEmitError::UnsupportedType {
                    what: format!("incomplete record `{name}` by value"),
                    context: context.into(),
                }),
                None => Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() }),
            },
            Type::Enum { name } => match self.api.enumeration(name) {
                Some(e) => Ok(e.underlying.layout()),
                None => Err(RustEmitError::UnknownType { name: name.clone(), context: context.into() }),
            },
            Type::Array { element, len } => {
                let (size, align) = self.layout_inner(element, context, depth + 1)?;
                Ok((size * len, align))
            }
        }
    }

    /// What kind of value `ty` holds, looking through typedefs.
    pub fn scalar(&self, ty: &Type) -> Scalar {
        match ty {
            Type::Primitive { name } => scalar_of_primitive(*name),
            Type::Typedef { name } => match self.api.typedef(name) {
                Some(def) => {
                    if let Type::Typedef { name: inner } = &def.ty {
                        if inner == name {
                            return Scalar::Other;
                        }
                    }
                    self.scalar(self.api.resolve(ty))
                }
                None => match builtin_typedef(name) {
                    Some((_, p)) => scalar_of_primitive(p),
                    None => Scalar::Other,
                },
            },
            Type::Enum { name } => Scalar::Enum(name.clone()),
            Type::Pointer { pointee, pointee_const } => {
                if self.is_function(pointee) {
                    Scalar::Other
                } else {
                    Scalar::Pointer { is_const: *pointee_const }
                }
            }
            _ => Scalar::Other,
        }
    }
}
