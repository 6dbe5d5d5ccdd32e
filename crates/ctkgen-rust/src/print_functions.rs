//! Prints the function wrappers and their entry points. Nothing here decides; it lays out what
//! the plan says.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

use crate::doc_blocks::{Comment, DocBlocks};
use crate::plan::{FunctionPlan, Plan, Unreachable};
use crate::print_crate::Crate;
use crate::syntax;
use crate::types::Position;
use crate::RustEmitError;

/// The function's comment, then its safety and binding sections.
fn function_doc(plan: &Plan, f: &FunctionPlan, comment: &Comment, docs: &DocBlocks) -> Vec<syn::Attribute> {
    let function = f.function;
    let mut text = String::new();
    // A shared comment is one block with the sections; comments per toolkit come before them.
    let mut attrs = match comment {
        Comment::Shared(shared) => {
            text.push_str(shared.unwrap_or_default());
            Vec::new()
        }
        Comment::PerToolkit(_) => docs.comment_syntax(comment),
    };
    if !text.is_empty() || !attrs.is_empty() {
        text.push('\n');
    }
    // Named by its description: the file's name may carry the toolkit's major version.
    let library = &plan.conventions.library_description;
    text.push_str(&format!(
        "# Safety\n\nCalls straight into the {library}: arguments must meet the contract its documentation gives "
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
            "Returns `{}` when the {library} lacks this entry point and `{}` when it cannot be loaded (see [`library_status`]).\n",
            status.missing_function, status.missing_library
        )),
        (Unreachable::Status, None) => {}
        (Unreachable::Text, _) => text.push_str(&format!(
            "When the {library} or this entry point is missing, returns a C string that says so and lives as long as the process (see [`library_status`]).\n"
        )),
        (Unreachable::Panic, _) => text.push_str(&format!(
            "\n# Panics\n\nWhen the {library} or this entry point is missing (see [`function_available`]).\n"
        )),
    }
    attrs.extend(docs.markdown_doc_syntax(&text));
    attrs
}

/// A function wrapper, built as a syntax tree (there are hundreds):
///
/// ```text
/// #[doc] #[deprecated]? #[inline]
/// pub unsafe fn NAME(PARAMS) -> RET {
///     let resolved = unsafe { entries::NAME.function::<unsafe extern "C" fn(TYPES) -> RET>() };
///     match resolved {
///         ::core::result::Result::Ok(function) => unsafe { function(ARGS) },
///         ::core::result::Result::Err(missing) => missing.status(),  // or unavailable(..)
///     }
/// }
/// ```
pub fn function(
    plan: &Plan,
    f: &FunctionPlan,
    comment: &Comment,
    docs: &DocBlocks,
) -> Result<syn::Item, RustEmitError> {
    use syntax::{
        arm, binding, call, ident_expr, method_call, path, path_expr, plain_ident, unsafe_block, word_attribute,
    };
    let context = format!("function `{}`", f.function.name);
    let mut attrs = function_doc(plan, f, comment, docs);
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
    let slot = || path_expr(entry_path(f));
    let lookup = method_call(slot(), "function", Some(pointer_type));
    let missing = match f.unreachable {
        Unreachable::Status => method_call(ident_expr(plain_ident("missing")), "status", None),
        Unreachable::Text => call(
            path_expr(path(false, &["crate", "runtime", "unreachable_text"])),
            [ident_expr(plain_ident("missing"))],
        ),
        Unreachable::Panic => call(
            path_expr(path(false, &["crate", "runtime", "unavailable"])),
            [syntax::string(&f.function.name), ident_expr(plain_ident("missing"))],
        ),
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

/// `entries::NAME`, the function's entry point.
fn entry_path(f: &FunctionPlan) -> syn::Path {
    let segments = [syntax::plain_ident("entries"), f.ident.ident()];
    syn::Path { leading_colon: None, segments: segments.into_iter().map(syn::PathSegment::from).collect() }
}

/// The entry points, one lazily resolved `static` per form of each function, and the lookup by
/// name; built as syntax trees:
///
/// ```text
/// mod entries {
///     #[cfg(...)]?
///     pub(super) static NAME: crate::runtime::Entry =
///         crate::runtime::Entry::new(c"LOOKUP", c"SYMBOL", VERSION, PER_THREAD);
/// }
/// fn entry_named(name: &str) -> Option<&'static runtime::Entry> {
///     match name { #[cfg(...)]? "NAME" => Some(&entries::NAME), _ => None }
/// }
/// ```
pub fn entries(c: &Crate) -> Vec<syn::Item> {
    use syntax::{call, path, path_expr};
    let all = c.toolkits.all();
    let entry_new = path_expr(path(false, &["crate", "runtime", "Entry", "new"]));
    let some = path_expr(path(true, &["core", "option", "Option", "Some"]));
    let none = path_expr(path(true, &["core", "option", "Option", "None"]));
    let optional_u32 = |value: Option<u32>| match value {
        Some(v) => call(some.clone(), [syntax::integer(v.into())]),
        None => none.clone(),
    };
    let entry_type =
        || Box::new(syn::Type::Path(syn::TypePath { qself: None, path: path(false, &["crate", "runtime", "Entry"]) }));
    let mut statics = Vec::new();
    let mut arms = Vec::new();
    for item in &c.merged.functions {
        for form in &item.forms {
            let f = &c.plans[form.toolkit].functions[form.index];
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
            let value = call(
                entry_new.clone(),
                [
                    syntax::c_string(&function.lookup_name),
                    syntax::c_string(&function.symbol),
                    optional_u32(function.first_version),
                    per_thread,
                ],
            );
            statics.push(syn::Item::Static(syn::ItemStatic {
                attrs: c.toolkits.cfg_attribute(form.set, all).into_iter().collect(),
                vis: syn::parse_quote!(pub(super)),
                static_token: Default::default(),
                mutability: syn::StaticMutability::None,
                ident: f.ident.ident(),
                colon_token: Default::default(),
                ty: entry_type(),
                eq_token: Default::default(),
                expr: Box::new(value),
                semi_token: Default::default(),
            }));
        }
        let first = &item.forms[0];
        let f = &c.plans[first.toolkit].functions[first.index];
        let entry = syn::Expr::Reference(syn::ExprReference {
            attrs: Vec::new(),
            and_token: Default::default(),
            mutability: None,
            expr: Box::new(path_expr(entry_path(f))),
        });
        let mut arm = syntax::arm(syntax::string_pattern(&f.function.name), call(some.clone(), [entry]));
        arm.attrs.extend(c.toolkits.cfg_attribute(item.set(), all));
        arms.push(arm);
    }
    let lookup_doc = " The entry point of the function `name`, if the bindings have one.";
    if arms.is_empty() {
        return vec![syn::parse_quote! {
            #[doc = #lookup_doc]
            fn entry_named(_name: &str) -> ::core::option::Option<&'static runtime::Entry> {
                ::core::option::Option::None
            }
        }];
    }
    arms.push(syntax::arm(
        syn::Pat::Wild(syn::PatWild { attrs: Vec::new(), underscore_token: Default::default() }),
        none,
    ));
    let module: syn::Item = syn::parse_quote! {
        /// Every function's entry point, resolved on its first call.
        mod entries {}
    };
    let syn::Item::Mod(mut module) = module else { unreachable!("a module was parsed") };
    if let Some((_, items)) = &mut module.content {
        *items = statics;
    }
    let mut lookup: syn::ItemFn = syn::parse_quote! {
        #[doc = #lookup_doc]
        fn entry_named(name: &str) -> ::core::option::Option<&'static runtime::Entry> {
            match name {}
        }
    };
    if let Some(syn::Stmt::Expr(syn::Expr::Match(matched), _)) = lookup.block.stmts.first_mut() {
        matched.arms = arms;
    }
    vec![syn::Item::Mod(module), syn::Item::Fn(lookup)]
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
