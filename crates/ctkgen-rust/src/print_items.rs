//! Prints the planned declarations: records, enums, typedefs, constants, function wrappers and
//! the compile-time layout assertions. Nothing here decides; it lays out what the plan says.

use std::cell::{OnceCell, RefCell};

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

use crate::names::Name;
use crate::plan::{
    Accessor, BitConversion, ConstantExpr, ConstantPlan, ConstantType, EnumPlan, FunctionPlan, Member, Plan,
    RecordPlan, RecordShape, Repr, TypedefPlan, Unreachable,
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

/// The doc comments of one printed piece. Each comment travels through quote, syn and
/// prettyplease as a placeholder attribute (`#[doc = "\u{1}N"]`, printed as one `///` line), and
/// [`DocBlocks::insert`] puts the comment's lines in place of the printed placeholder: the text is
/// copied once instead of being lexed, parsed, split into per-line literals and printed. Every doc
/// attribute prints on a line of its own, so the text has no say in the layout around it.
#[derive(Debug, Default)]
pub struct DocBlocks {
    /// Each comment's lines joined by `\n`, each non-empty one with the leading space `///`
    /// comments have; a placeholder's number indexes this list.
    blocks: RefCell<Vec<String>>,
}

/// Starts a placeholder's text; the header's prose reaches the printed text only through
/// [`DocBlocks::insert`], after the placeholders are found.
const PLACEHOLDER: char = '\u{1}';

impl DocBlocks {
    fn attr(&self, block: String) -> TokenStream {
        let text = self.placeholder(block);
        quote!(#[doc = #text])
    }

    /// Keeps `block` and returns the placeholder text that stands for it.
    fn placeholder(&self, block: String) -> String {
        let mut blocks = self.blocks.borrow_mut();
        let text = format!("{PLACEHOLDER}{}", blocks.len());
        blocks.push(block);
        text
    }

    /// `printed` with each placeholder line (`<indent>///\u{1}N`, or `//!` for inner docs)
    /// replaced by the comment's lines, each with that indentation and comment marker and without
    /// trailing spaces, as prettyplease prints a one-line doc attribute.
    pub fn insert(&self, printed: String) -> String {
        let blocks = self.blocks.borrow();
        if blocks.is_empty() {
            return printed;
        }
        let mut out = String::with_capacity(printed.len() + blocks.iter().map(|b| b.len() * 2).sum::<usize>());
        let mut rest = printed.as_str();
        while let Some(at) = rest.find(PLACEHOLDER) {
            let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = rest[at..].find('\n').map_or(rest.len(), |i| at + i);
            let marker = &rest[line_start..at];
            let number = &rest[at + PLACEHOLDER.len_utf8()..line_end];
            let block = number.parse::<usize>().ok().and_then(|n| blocks.get(n));
            let Some(block) = block.filter(|_| marker.ends_with("///") || marker.ends_with("//!")) else {
                // Not a placeholder line: keep it as printed.
                out.push_str(&rest[..line_end]);
                rest = &rest[line_end..];
                continue;
            };
            out.push_str(&rest[..line_start]);
            for (i, line) in block.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(marker);
                out.push_str(line.trim_end_matches(' '));
            }
            rest = &rest[line_end..];
        }
        out.push_str(rest);
        out
    }

    /// The doc attribute for `text`, lines trimmed (indented header prose must never read as a
    /// code block), runs of blank lines collapsed, each line with the leading space `///`
    /// comments have.
    pub fn doc_attrs(&self, text: &str) -> TokenStream {
        let lines: Vec<&str> = text.lines().map(|l| l.trim()).collect();
        let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(start, |i| i + 1);
        let mut kept: Vec<&str> = Vec::new();
        for line in &lines[start..end] {
            // One blank line at most between paragraphs.
            if line.is_empty() && kept.last().is_some_and(|l| l.is_empty()) {
                continue;
            }
            kept.push(line);
        }
        if kept.is_empty() {
            return TokenStream::new();
        }
        let mut block = String::with_capacity(kept.iter().map(|l| l.len() + 2).sum());
        for (i, line) in kept.iter().enumerate() {
            if i > 0 {
                block.push('\n');
            }
            if !line.is_empty() {
                block.push(' ');
                block.push_str(line);
            }
        }
        self.attr(block)
    }

    /// The doc attribute for Markdown rendered from a header comment: lines kept as they are
    /// (their indentation nests lists), each with the leading space `///` comments have.
    pub fn markdown_doc_attrs(&self, text: &str) -> TokenStream {
        match self.markdown_placeholder(text) {
            Some(placeholder) => quote!(#[doc = #placeholder]),
            None => TokenStream::new(),
        }
    }

    /// A planned (rendered) doc comment.
    fn optional(&self, doc: &Option<String>) -> TokenStream {
        doc.as_deref().map(|text| self.markdown_doc_attrs(text)).unwrap_or_default()
    }

    /// [`DocBlocks::optional`] as a syntax tree, for items built without tokens.
    fn optional_syntax(&self, doc: &Option<String>) -> Option<syn::Attribute> {
        self.markdown_doc_syntax(doc.as_deref()?)
    }

    /// [`DocBlocks::markdown_doc_attrs`] as a syntax tree.
    fn markdown_doc_syntax(&self, text: &str) -> Option<syn::Attribute> {
        self.markdown_placeholder(text).map(syntax::doc_attribute)
    }

    /// The placeholder for Markdown `text` (kept as a block), or none for blank text.
    fn markdown_placeholder(&self, text: &str) -> Option<String> {
        let text = text.trim_end();
        (!text.trim().is_empty()).then(|| self.placeholder(markdown_block(text)))
    }
}

/// A doc block of Markdown lines as they are, each non-empty one with the leading space `///`
/// comments have.
fn markdown_block(text: &str) -> String {
    let mut block = String::with_capacity(text.len() + text.len() / 32);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            block.push('\n');
        }
        let line = line.trim_end();
        if !line.is_empty() {
            block.push(' ');
            block.push_str(line);
        }
    }
    block
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

pub fn enumeration(plan: &Plan, e: &EnumPlan, docs: &DocBlocks, stamps: &Stamps) -> Result<Vec<Built>, RustEmitError> {
    let ident = &e.ident;
    let underlying = &e.underlying;
    let doc = docs.optional(&e.doc);
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
    let constants = e.constants.iter().map(|c| enum_constant(&c.ident, c.value, docs.optional_syntax(&c.doc)));
    members.items.splice(0..0, constants);
    if let Some(syn::ImplItem::Fn(name)) = members.items.last_mut() {
        if let Some(syn::Stmt::Expr(syn::Expr::Match(matched), _)) = name.block.stmts.first_mut() {
            let some = syntax::path_expr(syntax::path(true, &["core", "option", "Option", "Some"]));
            let arms = e.names.iter().map(|(value, name)| {
                syntax::arm(syntax::integer_pattern(*value), syntax::call(some.clone(), [syntax::string(name)]))
            });
            matched.arms.splice(0..0, arms);
        }
    }
    let mut built = vec![Built::Tokens(declaration), Built::Syntax(Box::new(syn::Item::Impl(members)))];
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
fn enum_constant(name: &Name, value: i128, doc: Option<syn::Attribute>) -> syn::ImplItem {
    let self_path = || syntax::path(false, &["Self"]);
    syn::ImplItem::Const(syn::ImplItemConst {
        attrs: doc.into_iter().collect(),
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

pub fn constant(plan: &Plan, c: &ConstantPlan, docs: &DocBlocks) -> Result<TokenStream, RustEmitError> {
    let ident = &c.ident;
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
    let mut doc = docs.optional(&c.doc);
    if !doc.is_empty() {
        doc.extend(quote!(#[doc = ""]));
    }
    let source = format!(" C: `#define {} {}`", c.name, c.expr.replace('`', "'"));
    Ok(quote!(#doc #[doc = #source] pub const #ident: #ty = #value;))
}

fn function_doc(plan: &Plan, f: &FunctionPlan, docs: &DocBlocks) -> Option<syn::Attribute> {
    let function = f.function;
    let mut text = f.doc.clone().unwrap_or_default();
    if !text.is_empty() {
        text.push('\n');
    }
    let library = &plan.library;
    text.push_str(&format!(
        "# Safety\n\nCalls straight into `{library}`: arguments must meet the contract its documentation gives "
    ));
    text.push_str("for this function (valid pointers of the right size, live handles).\n\n");
    text.push_str("# Binding\n\n");
    let binding = match (function.first_version, &plan.proc_address) {
        (Some(version), Some(lookup)) => format!(
            "Resolved on first call through `{}(\"{}\", {version})`, falling back to the symbol `{}`.",
            plan.functions[lookup.index].function.name, function.lookup_name, function.symbol
        ),
        _ => format!("Resolved on first call as the symbol `{}`.", function.symbol),
    };
    text.push_str(&binding);
    if let (Some(per_thread), Some(env_var)) = (f.per_thread_symbol, plan.per_thread_env_var) {
        text.push_str(&format!(" With `{env_var}=1` the per-thread-default-stream variant `{per_thread}` is used."));
    }
    text.push('\n');
    match (f.unreachable, &plan.status) {
        (Unreachable::Status, Some(status)) => text.push_str(&format!(
            "Returns `{}` when `{library}` lacks this entry point and `{}` when it cannot be loaded (see [`library_status`]).\n",
            status.missing_function, status.missing_library
        )),
        (Unreachable::Status, None) => {}
        (Unreachable::Text, _) => text.push_str(&format!(
            "When `{library}` or this entry point is missing, returns a C string that says so and lives as long as the process (see [`library_status`]).\n"
        )),
        (Unreachable::Panic, _) => text.push_str(&format!(
            "\n# Panics\n\nWhen `{library}` or this entry point is missing (see [`function_available`]).\n"
        )),
    }
    docs.markdown_doc_syntax(&text)
}

/// A function wrapper, built as a syntax tree (there are hundreds):
///
/// ```text
/// #[doc] #[deprecated]? #[inline]
/// pub unsafe fn NAME(PARAMS) -> RET {
///     let resolved = unsafe { FUNCTIONS[SLOT].function::<unsafe extern "C" fn(TYPES) -> RET>() };
///     match resolved {
///         ::core::result::Result::Ok(function) => unsafe { function(ARGS) },
///         ::core::result::Result::Err(missing) => missing.status(),  // or unavailable(..)
///     }
/// }
/// ```
pub fn function(plan: &Plan, index: usize, f: &FunctionPlan, docs: &DocBlocks) -> Result<syn::Item, RustEmitError> {
    use syntax::{
        arm, binding, call, ident_expr, method_call, path, path_expr, plain_ident, unsafe_block, word_attribute,
    };
    let context = format!("function `{}`", f.function.name);
    let mut attrs: Vec<syn::Attribute> = function_doc(plan, f, docs).into_iter().collect();
    if f.function.deprecated {
        attrs.push(word_attribute("deprecated"));
    }
    attrs.push(word_attribute("inline"));
    let mut params = Vec::new();
    for (name, ty) in &f.params {
        params.push((name.ident(), syntax_type(plan.types.tokens(ty, Position::Param, &context)?, &context)?));
    }
    let output = match &f.function.ret {
        ctkgen_ir::Type::Void => syn::ReturnType::Default,
        ty => syn::ReturnType::Type(
            Default::default(),
            Box::new(syntax_type(plan.types.tokens(ty, Position::Return, &context)?, &context)?),
        ),
    };
    let pointer_type = syn::Type::BareFn(syn::TypeBareFn {
        lifetimes: None,
        unsafety: Some(Default::default()),
        abi: Some(syn::Abi { extern_token: Default::default(), name: Some(syn::LitStr::new("C", Span::call_site())) }),
        fn_token: Default::default(),
        paren_token: Default::default(),
        inputs: params.iter().map(|(_, ty)| syn::BareFnArg { attrs: Vec::new(), name: None, ty: ty.clone() }).collect(),
        variadic: None,
        output: output.clone(),
    });
    let slot = || {
        syn::Expr::Index(syn::ExprIndex {
            attrs: Vec::new(),
            expr: Box::new(ident_expr(plain_ident("FUNCTIONS"))),
            bracket_token: Default::default(),
            index: Box::new(syntax::integer(index as i128)),
        })
    };
    let lookup = method_call(slot(), "function", Some(pointer_type));
    let missing = match f.unreachable {
        Unreachable::Status => method_call(ident_expr(plain_ident("missing")), "status", None),
        Unreachable::Text => call(
            path_expr(path(false, &["crate", "runtime", "unreachable_text"])),
            [ident_expr(plain_ident("missing"))],
        ),
        Unreachable::Panic => {
            let slot_ref = syn::Expr::Reference(syn::ExprReference {
                attrs: Vec::new(),
                and_token: Default::default(),
                mutability: None,
                expr: Box::new(slot()),
            });
            call(
                path_expr(path(false, &["crate", "runtime", "unavailable"])),
                [slot_ref, ident_expr(plain_ident("missing"))],
            )
        }
    };
    let variant = |name: &str, bound: &str| {
        syn::Pat::TupleStruct(syn::PatTupleStruct {
            attrs: Vec::new(),
            qself: None,
            path: path(true, &["core", "result", "Result", name]),
            paren_token: Default::default(),
            elems: [binding(plain_ident(bound))].into_iter().collect(),
        })
    };
    let forward = call(ident_expr(plain_ident("function")), params.iter().map(|(name, _)| ident_expr(name.clone())));
    let resolve = syn::Stmt::Local(syn::Local {
        attrs: Vec::new(),
        let_token: Default::default(),
        pat: binding(plain_ident("resolved")),
        init: Some(syn::LocalInit {
            eq_token: Default::default(),
            expr: Box::new(unsafe_block(lookup)),
            diverge: None,
        }),
        semi_token: Default::default(),
    });
    let dispatch = syn::Expr::Match(syn::ExprMatch {
        attrs: Vec::new(),
        match_token: Default::default(),
        expr: Box::new(ident_expr(plain_ident("resolved"))),
        brace_token: Default::default(),
        arms: vec![arm(variant("Ok", "function"), unsafe_block(forward)), arm(variant("Err", "missing"), missing)],
    });
    let inputs = params.into_iter().map(|(name, ty)| {
        syn::FnArg::Typed(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(binding(name)),
            colon_token: Default::default(),
            ty: Box::new(ty),
        })
    });
    Ok(syn::Item::Fn(syn::ItemFn {
        attrs,
        vis: syn::Visibility::Public(Default::default()),
        sig: syn::Signature {
            constness: None,
            asyncness: None,
            unsafety: Some(Default::default()),
            abi: None,
            fn_token: Default::default(),
            ident: f.ident.ident(),
            generics: Default::default(),
            paren_token: Default::default(),
            inputs: inputs.collect(),
            variadic: None,
            output,
        },
        block: Box::new(syn::Block {
            brace_token: Default::default(),
            stmts: vec![resolve, syn::Stmt::Expr(dispatch, None)],
        }),
    }))
}

/// A type's tokens as a syntax tree (a few tokens each, so parsing them is cheap).
fn syntax_type(tokens: TokenStream, context: &str) -> Result<syn::Type, RustEmitError> {
    syn::parse2(tokens)
        .map_err(|error| RustEmitError::Syntax { file: "src/lib.rs".into(), message: format!("{context}: {error}") })
}

/// The entry table: one lazily resolved slot per function, sorted by name. Built as a syntax tree:
///
/// ```text
/// static FUNCTIONS: [crate::runtime::Entry; N] = [
///     crate::runtime::Entry::new(c"NAME", c"LOOKUP", c"SYMBOL", VERSION, PER_THREAD), ...
/// ];
/// ```
pub fn entry_table(plan: &Plan) -> syn::Item {
    use syntax::{call, path, path_expr};
    let entry_new = path_expr(path(false, &["crate", "runtime", "Entry", "new"]));
    let some = path_expr(path(true, &["core", "option", "Option", "Some"]));
    let none = path_expr(path(true, &["core", "option", "Option", "None"]));
    let optional_u32 = |value: Option<u32>| match value {
        Some(v) => call(some.clone(), [syntax::integer(v.into())]),
        None => none.clone(),
    };
    let entries = plan.functions.iter().map(|f| {
        let function = f.function;
        let per_thread = match f.per_thread_symbol {
            Some(symbol) => {
                let pair = syn::Expr::Tuple(syn::ExprTuple {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    elems: [syntax::c_string(symbol), optional_u32(function.per_thread_first_version)]
                        .into_iter()
                        .collect(),
                });
                call(some.clone(), [pair])
            }
            None => none.clone(),
        };
        call(
            entry_new.clone(),
            [
                syntax::c_string(&function.name),
                syntax::c_string(&function.lookup_name),
                syntax::c_string(&function.symbol),
                optional_u32(function.first_version),
                per_thread,
            ],
        )
    });
    syn::Item::Static(syn::ItemStatic {
        attrs: vec![syntax::doc_attribute(
            " Every function's entry point, resolved on its first call. Sorted by name.".into(),
        )],
        vis: syn::Visibility::Inherited,
        static_token: Default::default(),
        mutability: syn::StaticMutability::None,
        ident: syntax::plain_ident("FUNCTIONS"),
        colon_token: Default::default(),
        ty: Box::new(syn::Type::Array(syn::TypeArray {
            bracket_token: Default::default(),
            elem: Box::new(syn::Type::Path(syn::TypePath {
                qself: None,
                path: path(false, &["crate", "runtime", "Entry"]),
            })),
            semi_token: Default::default(),
            len: syntax::integer(plan.functions.len() as i128),
        })),
        eq_token: Default::default(),
        expr: Box::new(syn::Expr::Array(syn::ExprArray {
            attrs: Vec::new(),
            bracket_token: Default::default(),
            elems: entries.collect(),
        })),
        semi_token: Default::default(),
    })
}

pub fn c_literal(text: &str) -> TokenStream {
    // Names were checked for NUL bytes by the plan.
    match std::ffi::CString::new(text) {
        Ok(owned) => {
            let lit = Literal::c_string(&owned);
            quote!(#lit)
        }
        Err(_) => quote!(c""),
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    /// What the printer writes for `attrs` (built by `docs`) on a struct.
    fn printed_with(docs: &DocBlocks, attrs: TokenStream) -> String {
        let file: syn::File = syn::parse2(quote!(#attrs pub struct S;)).expect("parses");
        docs.insert(prettyplease::unparse(&file))
    }

    /// What the printer writes for the doc attributes of `text`.
    fn printed(text: &str) -> String {
        let docs = DocBlocks::default();
        let attrs = docs.doc_attrs(text);
        printed_with(&docs, attrs)
    }

    #[test]
    fn doc_lines_print_as_written_whatever_quotes_and_hashes_they_hold() {
        let text = "  \n\nplain\n\n\n   indented\nquote \" here\nraw end \"# and \"### too\nback\\slash \\n\nend\r";
        assert_eq!(
            printed(text),
            "/// plain\n///\n/// indented\n/// quote \" here\n/// raw end \"# and \"### too\n/// back\\slash \\n\n/// end\npub struct S;\n"
        );
        assert!(printed("car\rriage").contains("car\rriage"));
    }

    #[test]
    fn rendered_markdown_keeps_its_indentation() {
        let docs = DocBlocks::default();
        let attrs = docs.markdown_doc_attrs("- a\n  more  \n\n  - nested\n\n```c\n    int x;\n```\n\n");
        assert_eq!(
            printed_with(&docs, attrs),
            "/// - a\n///   more\n///\n///   - nested\n///\n/// ```c\n///     int x;\n/// ```\npub struct S;\n"
        );
    }

    #[test]
    fn comments_go_where_their_placeholders_print_at_any_depth() {
        let docs = DocBlocks::default();
        let (outer, field, inner) =
            (docs.doc_attrs("outer\ntwo"), docs.doc_attrs("field"), docs.doc_attrs("crate\n\nlevel"));
        let inner: TokenStream = inner
            .into_iter()
            .flat_map(|token| match token {
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '#' => vec![
                    proc_macro2::TokenTree::Punct(p),
                    proc_macro2::TokenTree::Punct(proc_macro2::Punct::new('!', proc_macro2::Spacing::Alone)),
                ],
                other => vec![other],
            })
            .collect();
        let file: syn::File = syn::parse2(quote!(#inner #outer pub struct S { #field pub x: u8 } )).expect("parses");
        assert_eq!(
            docs.insert(prettyplease::unparse(&file)),
            "//! crate\n//!\n//! level\n/// outer\n/// two\npub struct S {\n    /// field\n    pub x: u8,\n}\n"
        );
    }

    #[test]
    fn text_that_only_looks_like_a_placeholder_is_kept() {
        let docs = DocBlocks::default();
        let _ = docs.doc_attrs("only one");
        let text = "/// \u{1}0 not at the marker\n///\u{1}7\nlet x = 1; // \u{1}0\n".to_string();
        assert_eq!(docs.insert(text.clone()), text);
    }
}
