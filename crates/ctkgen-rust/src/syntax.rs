//! Syntax trees built directly, for the parts printed thousands of times (enum members, function
//! wrappers). Printing tokens and parsing them back costs more than the rest of the Rust emitter;
//! building the tree skips that round trip. prettyplease prints a tree the same way whether it
//! was parsed or built, so the output does not change.

use proc_macro2::{Ident, Span};
use syn::{Expr, ExprLit, Lit, LitInt, LitStr};

/// `#[doc = "text"]`.
pub fn doc_attribute(text: String) -> syn::Attribute {
    outer_attribute(syn::Meta::NameValue(syn::MetaNameValue {
        path: plain_ident("doc").into(),
        eq_token: Default::default(),
        value: string(&text),
    }))
}

/// `#[name]`.
pub fn word_attribute(name: &str) -> syn::Attribute {
    outer_attribute(syn::Meta::Path(plain_ident(name).into()))
}

fn outer_attribute(meta: syn::Meta) -> syn::Attribute {
    syn::Attribute {
        pound_token: Default::default(),
        style: syn::AttrStyle::Outer,
        bracket_token: Default::default(),
        meta,
    }
}

pub fn plain_ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// A path such as `::core::option::Option::Some` (`absolute`) or `Self`.
pub fn path(absolute: bool, segments: &[&str]) -> syn::Path {
    syn::Path {
        leading_colon: absolute.then(Default::default),
        segments: segments.iter().map(|s| syn::PathSegment::from(plain_ident(s))).collect(),
    }
}

pub fn path_expr(path: syn::Path) -> Expr {
    Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path })
}

pub fn ident_expr(ident: Ident) -> Expr {
    path_expr(ident.into())
}

/// `receiver.method::<turbofish>()`, without arguments.
pub fn method_call(receiver: Expr, method: &str, turbofish: Option<syn::Type>) -> Expr {
    Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(receiver),
        dot_token: Default::default(),
        method: plain_ident(method),
        turbofish: turbofish.map(|ty| syn::AngleBracketedGenericArguments {
            colon2_token: Some(Default::default()),
            lt_token: Default::default(),
            args: [syn::GenericArgument::Type(ty)].into_iter().collect(),
            gt_token: Default::default(),
        }),
        paren_token: Default::default(),
        args: Default::default(),
    })
}

/// A pattern that binds `ident` (a parameter, a `let`, a variant's field).
pub fn binding(ident: Ident) -> syn::Pat {
    syn::Pat::Ident(syn::PatIdent { attrs: Vec::new(), by_ref: None, mutability: None, ident, subpat: None })
}

/// `function(args)`.
pub fn call(function: Expr, args: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Call(syn::ExprCall {
        attrs: Vec::new(),
        func: Box::new(function),
        paren_token: Default::default(),
        args: args.into_iter().collect(),
    })
}

pub fn string(text: &str) -> Expr {
    Expr::Lit(ExprLit { attrs: Vec::new(), lit: Lit::Str(LitStr::new(text, Span::call_site())) })
}

/// `c"text"` (names were checked for NUL bytes by the plan; one that has any prints as `c""`).
pub fn c_string(text: &str) -> Expr {
    let value = std::ffi::CString::new(text).unwrap_or_default();
    Expr::Lit(ExprLit { attrs: Vec::new(), lit: Lit::CStr(syn::LitCStr::new(&value, Span::call_site())) })
}

/// An unsuffixed integer, negative ones as `-N` (as the parser reads `-N` in an expression).
pub fn integer(value: i128) -> Expr {
    let magnitude = Expr::Lit(ExprLit { attrs: Vec::new(), lit: Lit::Int(unsuffixed(value.unsigned_abs())) });
    if value < 0 {
        Expr::Unary(syn::ExprUnary {
            attrs: Vec::new(),
            op: syn::UnOp::Neg(Default::default()),
            expr: Box::new(magnitude),
        })
    } else {
        magnitude
    }
}

/// An unsuffixed integer pattern (`-N` is one literal in a pattern, as the parser reads it).
pub fn integer_pattern(value: i128) -> syn::Pat {
    let lit = if value < 0 {
        LitInt::new(&format!("-{}", value.unsigned_abs()), Span::call_site())
    } else {
        unsuffixed(value.unsigned_abs())
    };
    syn::Pat::Lit(ExprLit { attrs: Vec::new(), lit: Lit::Int(lit) })
}

/// `"text"` as a pattern.
pub fn string_pattern(text: &str) -> syn::Pat {
    syn::Pat::Lit(ExprLit { attrs: Vec::new(), lit: Lit::Str(LitStr::new(text, Span::call_site())) })
}

fn unsuffixed(value: u128) -> LitInt {
    LitInt::from(proc_macro2::Literal::u128_unsuffixed(value))
}

/// `pattern => body,`.
pub fn arm(pattern: syn::Pat, body: Expr) -> syn::Arm {
    syn::Arm {
        attrs: Vec::new(),
        pat: pattern,
        guard: None,
        fat_arrow_token: Default::default(),
        body: Box::new(body),
        comma: Some(Default::default()),
    }
}

/// `unsafe { expr }`.
pub fn unsafe_block(expr: Expr) -> Expr {
    Expr::Unsafe(syn::ExprUnsafe {
        attrs: Vec::new(),
        unsafe_token: Default::default(),
        block: syn::Block { brace_token: Default::default(), stmts: vec![syn::Stmt::Expr(expr, None)] },
    })
}

/// The name a [`Stamp`]'s tokens give the type they are written for.
pub const STAMPED_TYPE: &str = "StampedType";

/// Items that are the same for every type but its name (trait impls, operators): parsed once,
/// then copied for each type with [`STAMPED_TYPE`] replaced in identifiers and in string
/// literals, macro arguments included. A copy costs a fraction of a parse.
pub struct Stamp {
    items: Vec<syn::Item>,
}

impl Stamp {
    pub fn parse(tokens: proc_macro2::TokenStream) -> syn::Result<Stamp> {
        Ok(Stamp { items: syn::parse2::<syn::File>(tokens)?.items })
    }

    pub fn copy_for(&self, name: &Ident) -> Vec<syn::Item> {
        use syn::visit_mut::VisitMut;
        let mut rename = Rename { to: name, text: name.to_string() };
        let mut items = self.items.clone();
        for item in &mut items {
            rename.visit_item_mut(item);
        }
        items
    }
}

struct Rename<'a> {
    to: &'a Ident,
    text: String,
}

impl Rename<'_> {
    fn renamed_string(&self, lit: &LitStr) -> Option<LitStr> {
        let value = lit.value();
        value.contains(STAMPED_TYPE).then(|| LitStr::new(&value.replace(STAMPED_TYPE, &self.text), lit.span()))
    }

    /// Macro arguments stay tokens in the tree, so their names and strings are replaced there.
    fn rename_tokens(&self, tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        use proc_macro2::{Group, TokenTree};
        tokens
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Ident(ident) if ident == STAMPED_TYPE => TokenTree::Ident(self.to.clone()),
                TokenTree::Group(group) => {
                    let mut renamed = Group::new(group.delimiter(), self.rename_tokens(group.stream()));
                    renamed.set_span(group.span());
                    TokenTree::Group(renamed)
                }
                TokenTree::Literal(literal) => {
                    let renamed = syn::parse2::<LitStr>(TokenTree::Literal(literal.clone()).into())
                        .ok()
                        .and_then(|lit| self.renamed_string(&lit));
                    match renamed {
                        Some(lit) => TokenTree::Literal(lit.token()),
                        None => TokenTree::Literal(literal),
                    }
                }
                other => other,
            })
            .collect()
    }
}

impl syn::visit_mut::VisitMut for Rename<'_> {
    fn visit_ident_mut(&mut self, ident: &mut Ident) {
        if ident == STAMPED_TYPE {
            *ident = self.to.clone();
        }
    }

    fn visit_lit_str_mut(&mut self, lit: &mut LitStr) {
        if let Some(renamed) = self.renamed_string(lit) {
            *lit = renamed;
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        syn::visit_mut::visit_macro_mut(self, mac);
        mac.tokens = self.rename_tokens(std::mem::take(&mut mac.tokens));
    }
}

/// The attributes of an item, of every kind the emitter writes.
pub fn item_attributes(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Item;
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}
