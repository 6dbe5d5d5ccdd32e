//! What the crates' tests compare and run: a release's feature, the declarations a feature
//! compiles (the `cfg` of the printed source evaluated as cargo would), the fake driver and the
//! program run on it.

use ctkgen::Api;
use ctkgen_rust::item_attributes;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;

/// `13.1.2` -> `cuda-13010`.
pub fn feature_of(ctk: &str) -> String {
    let mut parts = ctk.split('.').map(|p| p.parse::<u32>().unwrap());
    let (major, minor) = (parts.next().unwrap(), parts.next().unwrap());
    format!("cuda-{}", major * 1000 + minor * 10)
}

pub fn parse(text: &str) -> syn::File {
    syn::parse_file(text).unwrap_or_else(|e| panic!("the generated source does not parse: {e}"))
}

/// The declarations of `file` as token text, each level sorted, without crate attributes, the
/// guard on the features or the `include!` of the bindings: with `feature`, only what its `cfg`s
/// and `cfg_attr`s keep when that feature alone is on. Each declaration's comment is one doc
/// attribute of its text (see [`comment_text`]).
pub fn items(mut file: syn::File, feature: Option<&str>) -> Vec<String> {
    let mut filter = Filter { feature };
    file.attrs.clear();
    file.items.retain(|item| {
        !matches!(item, syn::Item::Macro(m) if m.mac.path.is_ident("compile_error") || m.mac.path.is_ident("include"))
    });
    filter.visit_file_mut(&mut file);
    let mut items: Vec<String> = file.items.iter().flat_map(uses_one_by_one).collect();
    items.sort();
    items
}

/// An item as text; a `use` of several names as one `use` per name, without its comment (how
/// the names are grouped, and so commented, differs between features that re-export different
/// sets).
fn uses_one_by_one(item: &syn::Item) -> Vec<String> {
    let syn::Item::Use(used) = item else { return vec![item.to_token_stream().to_string()] };
    let mut used = used.clone();
    used.attrs.retain(|attr| !attr.path().is_ident("doc"));
    if let syn::UseTree::Path(path) = &used.tree {
        if let syn::UseTree::Group(group) = &*path.tree {
            let (vis, krate) = (&used.vis, &path.ident);
            return group.items.iter().map(|name| quote::quote!(#vis use #krate::#name;).to_string()).collect();
        }
    }
    vec![used.to_token_stream().to_string()]
}

struct Filter<'f> {
    feature: Option<&'f str>,
}

impl Filter<'_> {
    /// Applies the `cfg_attr`s of `attrs`, drops their `cfg`s and puts their comment in one doc
    /// attribute, first; whether the `cfg`s keep what they are on.
    fn keep(&self, attrs: &mut Vec<syn::Attribute>) -> bool {
        let mut keep = true;
        let mut comment = String::new();
        let mut kept = Vec::new();
        for attr in attrs.drain(..) {
            let mut applied = vec![attr.meta];
            if applied[0].path().is_ident("cfg_attr") {
                let syn::Meta::List(list) = &applied[0] else { panic!("a `cfg_attr` without a predicate") };
                let parts = list.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated).unwrap();
                let mut parts = parts.into_iter();
                let predicate = parts.next().expect("a `cfg_attr` with a predicate");
                let on = self.feature.is_none_or(|feature| holds(&predicate, feature));
                applied = if on { parts.collect() } else { Vec::new() };
            }
            for meta in applied {
                if meta.path().is_ident("doc") {
                    let syn::Meta::NameValue(value) = &meta else { panic!("a doc attribute without text") };
                    let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) = &value.value else {
                        panic!("a doc attribute that is not a literal: {}", value.value.to_token_stream())
                    };
                    comment.push_str(&text.value());
                    comment.push('\n');
                } else if meta.path().is_ident("cfg") {
                    let syn::Meta::List(list) = &meta else { panic!("a `cfg` without a predicate") };
                    let predicate: syn::Meta = syn::parse2(list.tokens.clone()).unwrap();
                    keep &= self.feature.is_none_or(|feature| holds(&predicate, feature));
                } else {
                    kept.push(syn::parse_quote!(#[#meta]));
                }
            }
        }
        let comment = comment_text(&comment);
        if !comment.is_empty() {
            kept.insert(0, syn::parse_quote!(#[doc = #comment]));
        }
        *attrs = kept;
        keep
    }
}

/// A comment's text as it reads, whatever spells it: non-empty lines trimmed, and each intra-doc
/// link (`` [`name`](path) `` or `` [`name`] ``) as its code span alone, since a link is made only
/// where every toolkit sharing the comment has the name.
pub fn comment_text(doc: &str) -> String {
    let mut lines = Vec::new();
    for line in doc.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find("[`") {
            let Some(end) = rest[at + 2..].find("`]").map(|i| at + 2 + i) else { break };
            out.push_str(&rest[..at]);
            out.push_str(&rest[at + 1..end + 1]);
            rest = &rest[end + 2..];
            if rest.starts_with('(') {
                rest = rest.find(')').map_or("", |close| &rest[close + 1..]);
            }
        }
        out.push_str(rest);
        lines.push(out);
    }
    lines.join("\n")
}

/// Whether `predicate` holds when `feature` alone is on.
fn holds(predicate: &syn::Meta, feature: &str) -> bool {
    match predicate {
        syn::Meta::NameValue(value) if value.path.is_ident("feature") => match &value.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(name), .. }) => name.value() == feature,
            other => panic!("a feature named by {}", other.to_token_stream()),
        },
        syn::Meta::List(list) => {
            let nested = list.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated).unwrap();
            let mut each = nested.iter().map(|p| holds(p, feature));
            if list.path.is_ident("any") {
                each.any(|b| b)
            } else if list.path.is_ident("all") {
                each.all(|b| b)
            } else if list.path.is_ident("not") {
                !each.next().unwrap()
            } else {
                panic!("an unknown predicate {}", list.path.to_token_stream())
            }
        }
        other => panic!("an unknown predicate {}", other.to_token_stream()),
    }
}

fn sorted<T: ToTokens>(list: &mut [T]) {
    list.sort_by_cached_key(|item| item.to_token_stream().to_string());
}

impl VisitMut for Filter<'_> {
    fn visit_file_mut(&mut self, file: &mut syn::File) {
        file.items.retain_mut(|item| item_attributes(item).is_none_or(|attrs| self.keep(attrs)));
        syn::visit_mut::visit_file_mut(self, file);
        sorted(&mut file.items);
    }

    fn visit_item_mod_mut(&mut self, module: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut module.content {
            items.retain_mut(|item| item_attributes(item).is_none_or(|attrs| self.keep(attrs)));
        }
        syn::visit_mut::visit_item_mod_mut(self, module);
        if let Some((_, items)) = &mut module.content {
            sorted(items);
        }
    }

    fn visit_item_impl_mut(&mut self, block: &mut syn::ItemImpl) {
        block.items.retain_mut(|item| match item {
            syn::ImplItem::Const(c) => self.keep(&mut c.attrs),
            syn::ImplItem::Fn(f) => self.keep(&mut f.attrs),
            syn::ImplItem::Type(t) => self.keep(&mut t.attrs),
            _ => true,
        });
        syn::visit_mut::visit_item_impl_mut(self, block);
        sorted(&mut block.items);
    }

    fn visit_expr_match_mut(&mut self, matched: &mut syn::ExprMatch) {
        matched.arms.retain_mut(|arm| self.keep(&mut arm.attrs));
        syn::visit_mut::visit_expr_match_mut(self, matched);
        sorted(&mut matched.arms);
    }

    fn visit_field_mut(&mut self, field: &mut syn::Field) {
        assert!(self.keep(&mut field.attrs), "a field under a `cfg`");
        syn::visit_mut::visit_field_mut(self, field);
    }
}

/// A driver of CUDA 12.0 that has three functions and answers for no other: what its
/// entry-point lookup does not know and `dlsym` does not find, a program must live without.
pub const FAKE_DRIVER: &str = r#"
#include <string.h>

typedef int CUresult; /* CUDA_SUCCESS 0, CUDA_ERROR_NOT_FOUND 500 */

CUresult cuInit(unsigned int flags) { (void)flags; return 0; }

CUresult cuDriverGetVersion(int *version) { *version = 12000; return 0; }

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status) {
    void *found = 0;
    (void)version;
    (void)flags;
    if (strcmp(symbol, "cuInit") == 0) found = (void *)cuInit;
    else if (strcmp(symbol, "cuDriverGetVersion") == 0) found = (void *)cuDriverGetVersion;
    else if (strcmp(symbol, "cuGetProcAddress") == 0) found = (void *)cuGetProcAddress_v2;
    *pfn = found;
    if (status) *status = found ? 0 : 1; /* CU_GET_PROC_ADDRESS_SUCCESS, _SYMBOL_NOT_FOUND */
    return found ? 0 : 500;
}
"#;

/// The program run on the fake driver: the three functions it has answer, every other
/// function returning the status is called (with zero arguments, which it never reads) and
/// returns `CUDA_ERROR_NOT_FOUND`, and `function_available` finds exactly the three.
pub fn program(driver: &Api, has: &[&str]) -> String {
    let status = |f: &&ctkgen_ir::Function| matches!(&f.ret, ctkgen_ir::Type::Typedef { name } if name == "CUresult");
    let mut calls = String::new();
    for f in driver.functions.iter().filter(status).filter(|f| !has.contains(&f.name.as_str())) {
        let zeros = vec!["::core::mem::zeroed()"; f.params.len()].join(", ");
        calls.push_str(&format!(
            "        assert_eq!({}({zeros}), CUresult::CUDA_ERROR_NOT_FOUND, \"{}\");\n",
            f.name, f.name
        ));
    }
    let names: Vec<String> = driver.functions.iter().map(|f| format!("{:?}", f.name)).collect();
    format!(
        r#"//! Built with the newest toolkit's feature, run on a fake 12.0 driver that has three functions.
use cuda_driver_sys::*;

const HAS: &[&str] = &{has:?};
const ALL: &[&str] = &[{names}];

#[allow(deprecated)]
fn main() {{
    if let Err(error) = library_status() {{
        panic!("{{error}}");
    }}
    let mut version = 0;
    // SAFETY: the fake driver reads no argument of these but the version's address.
    unsafe {{
        assert_eq!(cuInit(0), CUresult::CUDA_SUCCESS);
        assert_eq!(cuDriverGetVersion(&mut version), CUresult::CUDA_SUCCESS);
    }}
    assert_eq!(version, 12000);
    // SAFETY: a function the library lacks is never called; its arguments are never read.
    unsafe {{
{calls}    }}
    let found: Vec<&str> = ALL.iter().copied().filter(|name| function_available(name) == Ok(true)).collect();
    assert_eq!(found, HAS);
    println!("{{}} of {{}} functions found, the others CUDA_ERROR_NOT_FOUND", found.len(), ALL.len());
}}
"#,
        names = names.join(", ")
    )
}
