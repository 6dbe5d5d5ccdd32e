//! Prints the planned declarations: records, enums, typedefs, constants and the compile-time
//! layout assertions (function wrappers: `print_functions`). Nothing here decides; it lays out what the plan says.

use std::cell::OnceCell;

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

use crate::doc_blocks::{Comment, DocBlocks};
use crate::names::Name;
use crate::plan::{
    Accessor, BitConversion, ConstantExpr, ConstantPlan, ConstantType, EnumConstantPlan, EnumPlan, Member, Plan,
    RecordPlan, RecordShape, Repr, TypedefPlan,
};
use crate::syntax::{self, Stamp};
use crate::types::Position;
use crate::RustEmitError;

/// One top-level part of a printed piece: tokens that the printer parses, or a syntax tree
/// built directly ([`crate::syntax`]).
pub enum Built {
    Tokens(TokenStream),
    Syntax(Box<syn::Item>),
}

impl Built {
    /// The item under `cfg` (a `#[cfg(...)]` attribute's tokens, or none).
    pub fn under(self, cfg: &TokenStream) -> Built {
        if cfg.is_empty() {
            return self;
        }
        match self {
            Built::Tokens(tokens) => Built::Tokens(quote!(#cfg #tokens)),
            Built::Syntax(mut item) => {
                if let Some(attrs) = syntax::item_attributes(&mut item) {
                    let attribute: syn::Attribute = syn::parse_quote!(#cfg);
                    attrs.insert(0, attribute);
                }
                Built::Syntax(item)
            }
        }
    }
}

/// An integer literal, negative ones as `-N`.
pub fn int_literal(value: i128) -> TokenStream {
    if value < 0 {
        let magnitude = Literal::u128_unsuffixed(value.unsigned_abs());
        quote!(-#magnitude)
    } else {
        let magnitude = Literal::u128_unsuffixed(value as u128);
        quote!(#magnitude)
    }
}

pub fn record(plan: &Plan, r: &RecordPlan, docs: &DocBlocks, stamps: &Stamps) -> Result<Vec<Built>, RustEmitError> {
    let ident = &r.ident;
    let mut doc = docs.optional(&r.doc);
    if let Some(parent) = &r.record.parent {
        let line = format!(" Anonymous {} inside `{}::{}`.", r.record.kind.c_keyword(), parent.record, parent.field);
        if !doc.is_empty() {
            doc.extend(quote!(#[doc = ""]));
        }
        doc.extend(quote!(#[doc = #line]));
    }
    let RecordShape::Complete { is_union, repr, members } = &r.shape else {
        let line = " Opaque: the header only declares it, so it is used behind pointers.";
        if !doc.is_empty() {
            doc.extend(quote!(#[doc = ""]));
        }
        return Ok(vec![Built::Tokens(quote! {
            #doc
            #[doc = #line]
            #[repr(C)]
            pub struct #ident {
                _unused: [u8; 0],
                _not_send_sync_unpin: ::core::marker::PhantomData<(*mut u8, ::core::marker::PhantomPinned)>,
            }
        })]);
    };
    let repr_attr = repr_tokens(repr);
    let context = format!("record `{}`", r.record.name);
    let mut fields = Vec::new();
    let mut accessors = Vec::new();
    for m in members {
        match m {
            Member::Field { ident, ty, doc, .. } => {
                let ty = plan.types.tokens(ty, Position::Field, &context)?;
                let doc = docs.optional(doc);
                fields.push(quote!(#doc pub #ident: #ty));
            }
            Member::Padding { ident, len, .. } => {
                let len = Literal::u64_unsuffixed(*len);
                fields.push(quote!(pub #ident: [u8; #len]));
            }
            Member::Bitfields { ident, len, accessors: list, .. } => {
                let len_lit = Literal::u64_unsuffixed(*len);
                let names: Vec<String> =
                    list.iter().map(|a| a.getter.to_string().trim_start_matches("r#").to_string()).collect();
                let line = format!(" Storage of the bitfields {}; use their accessors.", names.join(", "));
                fields.push(quote!(#[doc = #line] pub #ident: [u8; #len_lit]));
                for a in list {
                    accessors.push(accessor(plan, ident, a, *is_union, &context, docs)?);
                }
            }
        }
    }
    let kind = if *is_union { quote!(union) } else { quote!(struct) };
    let derives = if *is_union { quote!(#[derive(Clone, Copy)]) } else { quote!(#[derive(Clone, Copy, Debug)]) };
    let mut built = vec![Built::Tokens(quote! {
        #doc
        #repr_attr
        #derives
        pub #kind #ident {
            #(#fields,)*
        }
    })];
    let name = ident.ident();
    if *is_union {
        built.extend(stamped(stamps.union_debug()?, &name));
    }
    built.extend(stamped(stamps.zeroed_default()?, &name));
    if !accessors.is_empty() {
        built.push(Built::Tokens(quote!(impl #ident { #(#accessors)* })));
    }
    Ok(built)
}

fn repr_tokens(repr: &Repr) -> TokenStream {
    match (repr.align, repr.packed) {
        (Some(align), _) => {
            let align = Literal::u64_unsuffixed(align);
            quote!(#[repr(C, align(#align))])
        }
        (None, Some(1)) => quote!(#[repr(C, packed)]),
        (None, Some(pack)) => {
            let pack = Literal::u64_unsuffixed(pack);
            quote!(#[repr(C, packed(#pack))])
        }
        (None, None) => quote!(#[repr(C)]),
    }
}

fn accessor(
    plan: &Plan,
    storage: &crate::names::Name,
    a: &Accessor,
    in_union: bool,
    context: &str,
    docs: &DocBlocks,
) -> Result<TokenStream, RustEmitError> {
    let ty = plan.types.tokens(&a.ty, Position::Field, context)?;
    let (getter, setter) = (&a.getter, &a.setter);
    let offset = Literal::u64_unsuffixed(a.bit_offset);
    let width = Literal::u32_unsuffixed(a.width);
    // A union's bitfield storage is a byte array, valid whatever member was written last; the
    // language still asks for `unsafe` to borrow a union field.
    let (shared, exclusive) = if in_union {
        (quote!(unsafe { &self.#storage }), quote!(unsafe { &mut self.#storage }))
    } else {
        (quote!(&self.#storage), quote!(&mut self.#storage))
    };
    let raw = quote!(crate::runtime::get_bits(#shared, #offset, #width));
    let (get, set) = match &a.conversion {
        BitConversion::Value => (
            quote!(<#ty as crate::runtime::BitValue>::from_bits(#raw, #width)),
            quote!(crate::runtime::BitValue::to_bits(value)),
        ),
        BitConversion::Enum { ident, underlying } => (
            quote!(#ident(<#underlying as crate::runtime::BitValue>::from_bits(#raw, #width))),
            quote!(crate::runtime::BitValue::to_bits(value.0)),
        ),
    };
    let doc = docs.optional(&a.doc);
    let set_doc = format!(" Sets the {}-bit field `{}`.", a.width, a.getter.to_string().trim_start_matches("r#"));
    Ok(quote! {
        #doc
        #[inline]
        pub fn #getter(&self) -> #ty {
            #get
        }
        #[doc = #set_doc]
        #[inline]
        pub fn #setter(&mut self, value: #ty) {
            crate::runtime::set_bits(#exclusive, #offset, #width, #set)
        }
    })
}

pub fn layout_assertions(r: &RecordPlan) -> TokenStream {
    let RecordShape::Complete { members, .. } = &r.shape else { return quote!() };
    let ident = &r.ident;
    let name = &r.record.name;
    let size = Literal::u64_unsuffixed(r.record.size);
    let align = Literal::u64_unsuffixed(r.record.align);
    let size_message = format!("size of {name} differs from the header");
    let align_message = format!("alignment of {name} differs from the header");
    // `if .. { panic!(..) }` rather than `assert!`: the printer lays out a macro's arguments token
    // by token (`size_of:: < T > ()`), but a condition as the expression it is.
    let mut checks = vec![
        quote!(if ::core::mem::size_of::<#ident>() != #size { panic!(#size_message); }),
        quote!(if ::core::mem::align_of::<#ident>() != #align { panic!(#align_message); }),
    ];
    for m in members {
        let (field, offset) = match m {
            Member::Field { ident, offset, .. } | Member::Bitfields { ident, offset, .. } => (ident, offset),
            Member::Padding { .. } => continue,
        };
        let message =
            format!("offset of {name}::{} differs from the header", field.to_string().trim_start_matches("r#"));
        let offset = Literal::u64_unsuffixed(*offset);
        checks.push(quote!(if ::core::mem::offset_of!(#ident, #field) != #offset { panic!(#message); }));
    }
    quote!(const _: () = { #(#checks)* };)
}

/// What an enum's form holds, each part with the `cfg` it needs inside that form (none where
/// every toolkit of the form has it).
pub struct EnumParts<'p> {
    /// The enum's own comment.
    pub comment: Comment<'p>,
    pub constants: Vec<(&'p EnumConstantPlan, Option<syn::Attribute>, Comment<'p>)>,
    /// `name()` arms: value, name.
    pub names: Vec<(i128, &'p str, Option<syn::Attribute>)>,
    /// The `Debug` impl's forms: the plan of the enum that decides it (plain or flags).
    pub debug: Vec<(&'p EnumPlan<'p>, TokenStream)>,
}

pub fn enumeration(
    plan: &Plan,
    e: &EnumPlan,
    parts: EnumParts,
    docs: &DocBlocks,
    stamps: &Stamps,
) -> Result<Vec<Built>, RustEmitError> {
    let ident = &e.ident;
    let underlying = &e.underlying;
    let doc = docs.comment(&parts.comment);
    let names_line = if e.enumeration.typedef_names.is_empty() {
        String::new()
    } else {
        format!(
            " Also named {}.",
            e.enumeration.typedef_names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        )
    };
    let shape_line = format!(
        " A newtype over `{}` rather than a Rust enum, so values a newer {} returns stay valid.{names_line}",
        e.enumeration.underlying.c_name(),
        plan.conventions.library_description
    );
    let type_name = ident.to_string();
    let separator = if doc.is_empty() { quote!() } else { quote!(#[doc = ""]) };
    let declaration = quote! {
        #doc
        #separator
        #[doc = #shape_line]
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct #ident(pub #underlying);
    };
    // The members, one constant and one `name()` arm each, are built as syntax around this.
    let skeleton = quote! {
        impl #ident {
            /// The header's name for this value, if it has one (the first of several aliases).
            pub const fn name(self) -> ::core::option::Option<&'static str> {
                match self.0 {
                    _ => ::core::option::Option::None,
                }
            }
        }
    };
    let mut members: syn::ItemImpl = syn::parse2(skeleton).map_err(|error| RustEmitError::Syntax {
        file: "src/lib.rs".into(),
        message: format!("enum `{type_name}`: {error}"),
    })?;
    let constants = parts.constants.into_iter().map(|(c, cfg, comment)| {
        let mut constant = enum_constant(&c.ident, c.value, docs.comment_syntax(&comment));
        if let (syn::ImplItem::Const(item), Some(cfg)) = (&mut constant, cfg) {
            item.attrs.insert(0, cfg);
        }
        constant
    });
    members.items.splice(0..0, constants);
    if let Some(syn::ImplItem::Fn(name)) = members.items.last_mut() {
        if let Some(syn::Stmt::Expr(syn::Expr::Match(matched), _)) = name.block.stmts.first_mut() {
            let some = syntax::path_expr(syntax::path(true, &["core", "option", "Option", "Some"]));
            let arms = parts.names.into_iter().map(|(value, name, cfg)| {
                let mut arm =
                    syntax::arm(syntax::integer_pattern(value), syntax::call(some.clone(), [syntax::string(name)]));
                arm.attrs.extend(cfg);
                arm
            });
            matched.arms.splice(0..0, arms);
        }
    }
    let mut built = vec![Built::Tokens(declaration), Built::Syntax(Box::new(syn::Item::Impl(members)))];
    for (e, cfg) in parts.debug {
        built.extend(debug(e, stamps)?.into_iter().map(|item| item.under(&cfg)));
    }
    Ok(built)
}

/// An enum's `Debug` impl, with a flag set's operators.
fn debug(e: &EnumPlan, stamps: &Stamps) -> Result<Vec<Built>, RustEmitError> {
    let ident = &e.ident;
    let mut built = Vec::new();
    let name = ident.ident();
    if e.is_flags {
        let bits = e.flag_bits.iter().map(|(value, name)| {
            let value = int_literal(*value);
            quote!((#value, #name))
        });
        let debug_body = quote! {
            if let ::core::option::Option::Some(name) = self.name() {
                return f.write_str(name);
            }
            let mut rest = self.0;
            let mut first = true;
            for (bit, name) in [#(#bits),*] {
                if rest & bit == bit {
                    if !first {
                        f.write_str(" | ")?;
                    }
                    f.write_str(name)?;
                    rest &= !bit;
                    first = false;
                }
            }
            if rest != 0 || first {
                if !first {
                    f.write_str(" | ")?;
                }
                write!(f, "{:#x}", rest)?;
            }
            ::core::result::Result::Ok(())
        };
        built.push(Built::Tokens(quote! {
            impl ::core::fmt::Debug for #ident {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    #debug_body
                }
            }
        }));
        built.extend(stamped(stamps.flag_operators()?, &name));
    } else {
        built.extend(stamped(stamps.named_debug()?, &name));
    }
    Ok(built)
}

/// The [`Stamp`]s of one piece, each parsed when first used.
#[derive(Default)]
pub struct Stamps {
    named_debug: OnceCell<Stamp>,
    flag_operators: OnceCell<Stamp>,
    union_debug: OnceCell<Stamp>,
    zeroed_default: OnceCell<Stamp>,
}

impl Stamps {
    /// `Debug` for a union: its name only, as no field is known to be the live one.
    fn union_debug(&self) -> Result<&Stamp, RustEmitError> {
        stamp(&self.union_debug, || {
            quote! {
                impl ::core::fmt::Debug for StampedType {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.debug_struct("StampedType").finish_non_exhaustive()
                    }
                }
            }
        })
    }

    /// `Default` for a record: all bytes zero.
    fn zeroed_default(&self) -> Result<&Stamp, RustEmitError> {
        stamp(&self.zeroed_default, || {
            quote! {
                impl ::core::default::Default for StampedType {
                    /// All bytes zero, which is a valid value of every field.
                    fn default() -> Self {
                        // SAFETY: every field is an integer, float, raw pointer, nullable function
                        // pointer, enum newtype or record of those, for which zero bytes are valid.
                        unsafe { ::core::mem::zeroed() }
                    }
                }
            }
        })
    }

    /// `Debug` for an enum that is not a flag set: its name, or `Type(value)`.
    fn named_debug(&self) -> Result<&Stamp, RustEmitError> {
        stamp(&self.named_debug, || {
            quote! {
                impl ::core::fmt::Debug for StampedType {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        match self.name() {
                            ::core::option::Option::Some(name) => f.write_str(name),
                            ::core::option::Option::None => write!(f, "StampedType({})", self.0),
                        }
                    }
                }
            }
        })
    }

    /// A flag set's `contains` and bitwise operators.
    fn flag_operators(&self) -> Result<&Stamp, RustEmitError> {
        stamp(&self.flag_operators, || {
            quote! {
            impl StampedType {
                /// Whether every bit of `other` is set in `self`.
                #[inline]
                pub const fn contains(self, other: Self) -> bool {
                    self.0 & other.0 == other.0
                }
            }
            impl ::core::ops::BitOr for StampedType {
                type Output = Self;
                #[inline]
                fn bitor(self, rhs: Self) -> Self {
                    Self(self.0 | rhs.0)
                }
            }
            impl ::core::ops::BitOrAssign for StampedType {
                #[inline]
                fn bitor_assign(&mut self, rhs: Self) {
                    self.0 |= rhs.0;
                }
            }
            impl ::core::ops::BitAnd for StampedType {
                type Output = Self;
                #[inline]
                fn bitand(self, rhs: Self) -> Self {
                    Self(self.0 & rhs.0)
                }
            }
            impl ::core::ops::BitAndAssign for StampedType {
                #[inline]
                fn bitand_assign(&mut self, rhs: Self) {
                    self.0 &= rhs.0;
                }
            }
            }
        })
    }
}

/// `stamp`'s items for the type `name`.
fn stamped(stamp: &Stamp, name: &proc_macro2::Ident) -> impl Iterator<Item = Built> {
    stamp.copy_for(name).into_iter().map(|item| Built::Syntax(Box::new(item)))
}

fn stamp(cell: &OnceCell<Stamp>, tokens: impl FnOnce() -> TokenStream) -> Result<&Stamp, RustEmitError> {
    if let Some(stamp) = cell.get() {
        return Ok(stamp);
    }
    let stamp = Stamp::parse(tokens())
        .map_err(|error| RustEmitError::Syntax { file: "src/lib.rs".into(), message: error.to_string() })?;
    Ok(cell.get_or_init(|| stamp))
}

/// `pub const NAME: Self = Self(value);`, with its doc comment.
fn enum_constant(name: &Name, value: i128, doc: Vec<syn::Attribute>) -> syn::ImplItem {
    let self_path = || syntax::path(false, &["Self"]);
    syn::ImplItem::Const(syn::ImplItemConst {
        attrs: doc,
        vis: syn::Visibility::Public(Default::default()),
        defaultness: None,
        const_token: Default::default(),
        ident: name.ident(),
        generics: Default::default(),
        colon_token: Default::default(),
        ty: syn::Type::Path(syn::TypePath { qself: None, path: self_path() }),
        eq_token: Default::default(),
        expr: syntax::call(syntax::path_expr(self_path()), [syntax::integer(value)]),
        semi_token: Default::default(),
    })
}

pub fn typedef(plan: &Plan, t: &TypedefPlan, docs: &DocBlocks) -> Result<TokenStream, RustEmitError> {
    let ident = &t.ident;
    let ty = plan.types.tokens(&t.ty, Position::Alias, &format!("typedef `{}`", t.name))?;
    let doc = docs.optional(&t.doc);
    Ok(quote!(#doc pub type #ident = #ty;))
}

pub fn constant(
    plan: &Plan,
    c: &ConstantPlan,
    comment: &Comment,
    docs: &DocBlocks,
) -> Result<TokenStream, RustEmitError> {
    let ident = &c.ident;
    let (ty, value) = constant_parts(plan, c)?;
    let mut doc = docs.comment(comment);
    if !doc.is_empty() {
        doc.extend(quote!(#[doc = ""]));
    }
    let source = format!(" C: `#define {} {}`", c.name, c.expr.replace('`', "'"));
    Ok(quote!(#doc #[doc = #source] pub const #ident: #ty = #value;))
}

/// A constant's type and value.
pub fn constant_parts(plan: &Plan, c: &ConstantPlan) -> Result<(TokenStream, TokenStream), RustEmitError> {
    let context = format!("constant `{}`", c.name);
    let ty = match &c.ty {
        ConstantType::Declared(ty) => plan.types.tokens(ty, Position::Field, &context)?,
        ConstantType::CStr => quote!(&::core::ffi::CStr),
        ConstantType::Bytes => quote!(&[u8]),
    };
    let value = match &c.value {
        ConstantExpr::Int(v) => int_literal(*v),
        ConstantExpr::Bool(v) => quote!(#v),
        ConstantExpr::Float(v) => {
            let lit = Literal::f64_unsuffixed(*v);
            if *v < 0.0 {
                let lit = Literal::f64_unsuffixed(-*v);
                quote!(-#lit)
            } else {
                quote!(#lit)
            }
        }
        ConstantExpr::Enum { ident, value } => {
            let value = int_literal(*value);
            quote!(#ident(#value))
        }
        ConstantExpr::NullPointer { is_const: true } => quote!(::core::ptr::null()),
        ConstantExpr::NullPointer { is_const: false } => quote!(::core::ptr::null_mut()),
        ConstantExpr::Address { is_const, address } => {
            let lit = syn::LitInt::new(&format!("{address:#x}"), Span::call_site());
            if *is_const {
                quote!(::core::ptr::without_provenance(#lit))
            } else {
                quote!(::core::ptr::without_provenance_mut(#lit))
            }
        }
        ConstantExpr::CStr(text) => {
            let owned = std::ffi::CString::new(text.as_str()).map_err(|_| RustEmitError::InvalidConstant {
                constant: c.name.to_string(),
                reason: "string contains NUL".into(),
            })?;
            let lit = Literal::c_string(&owned);
            quote!(#lit)
        }
        ConstantExpr::Bytes(bytes) => {
            let lit = Literal::byte_string(bytes);
            quote!(#lit)
        }
    };
    Ok((ty, value))
}
