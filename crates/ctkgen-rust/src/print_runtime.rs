//! Prints the generated crate's `runtime` module: loading the library once, resolving each entry
//! point on its first call, the per-thread-default-stream switch and the bit helpers.
//!
//! What is the same for every header is real source under `runtime/` (compiled and tested on its
//! own by this module's tests) and is emitted as written; this module picks the pieces the
//! library and the header need and adds what varies with the input: the library's names from its
//! conventions, the versioned lookup's call, and the helpers only some headers need.

use proc_macro2::TokenStream;
use quote::quote;

use crate::doc_blocks::DocBlocks;
use crate::features::Features;
use crate::plan::{Plan, Unreachable};
use crate::print_crate::Crate;
use crate::print_items::int_literal;
use crate::types::Position;
use crate::RustEmitError;

#[cfg(test)]
mod tests;

/// The load error and the library, loaded once: every generated crate has these.
const LOADER: &str = include_str!("../runtime/loader.rs");
/// Opening the library through the system loader alone.
const OPEN: &str = include_str!("../runtime/open.rs");
/// Opening the library from an installed toolkit's folders first.
const SEARCH: &str = include_str!("../runtime/search.rs");
/// What the loaded library has: every generated crate has these.
const STATUS: &str = include_str!("../runtime/status.rs");
/// The switch to the per-thread-default-stream variants, for libraries that have them.
const PER_THREAD: &str = include_str!("../runtime/per_thread.rs");
/// Lazy resolution of each entry point: every generated crate has these.
const ENTRIES: &str = include_str!("../runtime/entries.rs");
/// What functions returning a C string return when they cannot be reached.
const TEXT: &str = include_str!("../runtime/text.rs");
/// The bitfield accessors' helpers, for headers with bitfields.
const BITS: &str = include_str!("../runtime/bits.rs");

/// The tokens of one of the fixed runtime sources.
fn fixed(source: &str, file: &str) -> Result<TokenStream, RustEmitError> {
    source.parse().map_err(|error: proc_macro2::LexError| RustEmitError::Syntax {
        file: format!("runtime/{file}"),
        message: error.to_string(),
    })
}

/// The runtime module and what the crate root re-exports from it, for every toolkit: a part
/// that differs between toolkits is written once per form, each item under its toolkits' `cfg`.
pub fn runtime(c: &Crate, docs: &DocBlocks) -> Result<TokenStream, RustEmitError> {
    let all = c.toolkits.all();
    // Compared with fresh placeholders: equal parts number their comments alike.
    let keys: Vec<Parts> = c.plans.iter().map(|plan| parts(plan, &DocBlocks::default())).collect::<Result<_, _>>()?;
    let mut printed: Vec<Option<Parts>> = (0..c.plans.len()).map(|_| None).collect();
    let mut merged = |select: fn(&Parts) -> &Vec<TokenStream>| -> Result<TokenStream, RustEmitError> {
        let mut out = TokenStream::new();
        for part in 0..select(&keys[0]).len() {
            let texts: Vec<String> = keys.iter().map(|k| select(k)[part].to_string()).collect();
            for (set, toolkit) in forms(&texts) {
                if printed[toolkit].is_none() {
                    printed[toolkit] = Some(parts(&c.plans[toolkit], docs)?);
                }
                let tokens = select(printed[toolkit].as_ref().expect("printed above"))[part].clone();
                out.extend(under_cfg(tokens, c.toolkits.cfg_attribute(set, all))?);
            }
        }
        Ok(out)
    };
    let inside = merged(|p| &p.inside)?;
    let outside = merged(|p| &p.outside)?;
    // Without functions nothing builds an entry, and much of the runtime goes unused.
    let without = c.plans.iter().enumerate().filter(|(_, p)| p.functions.is_empty());
    let without = without.fold(Features::default(), |set, (i, _)| set.with(Features::one(i)));
    let no_functions = if without.is_empty() {
        quote!()
    } else if without == all {
        quote!(#![allow(dead_code, reason = "the header declares no functions")])
    } else {
        let cfg = c.toolkits.cfg(without, all);
        let predicate = cfg_predicate(cfg);
        quote!(#![cfg_attr(#predicate, allow(dead_code, reason = "the header declares no functions"))])
    };
    Ok(quote! {
        mod runtime {
            #no_functions
            #inside
        }

        #outside
    })
}

/// The predicate inside `#[cfg(...)]` tokens.
fn cfg_predicate(cfg: TokenStream) -> TokenStream {
    let attribute: syn::Attribute = syn::parse_quote!(#cfg);
    match attribute.meta {
        syn::Meta::List(list) => list.tokens,
        other => quote!(#other),
    }
}

/// Each distinct text's toolkits (oldest first) and the newest of them, which prints it.
fn forms(texts: &[String]) -> Vec<(Features, usize)> {
    let mut forms: Vec<(Features, usize, &str)> = Vec::new();
    for (toolkit, text) in texts.iter().enumerate().rev() {
        match forms.iter_mut().find(|(_, _, t)| *t == text.as_str()) {
            Some(form) => form.0 = form.0.with(Features::one(toolkit)),
            None => forms.push((Features::one(toolkit), toolkit, text)),
        }
    }
    forms.sort_by_key(|(set, _, _)| set.indices().next());
    forms.into_iter().filter(|(_, _, text)| !text.is_empty()).map(|(set, toolkit, _)| (set, toolkit)).collect()
}

/// `tokens` (whole items) with `cfg` on each item.
fn under_cfg(tokens: TokenStream, cfg: Option<syn::Attribute>) -> Result<TokenStream, RustEmitError> {
    let Some(cfg) = cfg else { return Ok(tokens) };
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|error| RustEmitError::Syntax { file: "src/lib.rs".into(), message: error.to_string() })?;
    for item in &mut file.items {
        if let Some(attrs) = crate::syntax::item_attributes(item) {
            attrs.insert(0, cfg.clone());
        }
    }
    let items = file.items;
    Ok(quote!(#(#items)*))
}

/// The runtime's parts for one toolkit, each whole items (or nothing): those inside `mod
/// runtime`, in the order the fixed sources expect, and those after it.
struct Parts {
    inside: Vec<TokenStream>,
    outside: Vec<TokenStream>,
}

fn parts(plan: &Plan, docs: &DocBlocks) -> Result<Parts, RustEmitError> {
    let conventions = plan.conventions;
    let library = &plan.library;
    let description = &conventions.library_description;
    let loader = fixed(LOADER, "loader.rs")?;
    let (load, search_names) = match &plan.search {
        Some(search) => {
            let (env_var, dirs) = (search.env_var, search.dirs);
            let names = quote! {
                /// Names the folder of an installed toolkit, where the library is looked for first.
                const HOME_ENV_VAR: &str = #env_var;
                /// The toolkit's folders that may hold the library, in the order they are tried.
                const HOME_DIRS: &[&str] = &[#(#dirs),*];
            };
            (fixed(SEARCH, "search.rs")?, names)
        }
        None => (fixed(OPEN, "open.rs")?, quote!()),
    };
    let status_fns = fixed(STATUS, "status.rs")?;
    let (per_thread, per_thread_name, per_thread_export) = match plan.per_thread_env_var {
        Some(env_var) => (
            fixed(PER_THREAD, "per_thread.rs")?,
            quote! {
                /// Set to a non-zero integer, selects the per-thread-default-stream variants.
                const PER_THREAD_ENV_VAR: &str = #env_var;
            },
            quote!(per_thread_default_stream,),
        ),
        None => (
            quote! {
                /// The library has no per-thread-default-stream variants: every entry point is its
                /// default one.
                fn per_thread_default_stream() -> bool {
                    false
                }
            },
            quote!(),
            quote!(),
        ),
    };
    let entries = fixed(ENTRIES, "entries.rs")?;
    let Lookup { alias: lookup_alias, symbol: lookup_symbol, function: lookup_fn } = versioned_lookup(plan)?;
    let text = if plan.functions.iter().any(|f| f.unreachable == Unreachable::Text) {
        fixed(TEXT, "text.rs")?
    } else {
        quote!()
    };
    let bits = if plan.uses_bitfields { fixed(BITS, "bits.rs")? } else { quote!() };
    let unavailable = if plan.functions.iter().any(|f| f.unreachable == Unreachable::Panic) {
        let message = format!("{{name}}: entry point not found in {library}");
        quote! {
            /// Ends a call to a function that has no status to report a missing entry point with.
            #[cold]
            pub(crate) fn unavailable(name: &str, missing: Missing) -> ! {
                match (missing, loaded()) {
                    (Missing::Library, Err(error)) => panic!("{name}: {error}"),
                    _ => panic!(#message),
                }
            }
        }
    } else {
        quote!()
    };
    let missing_status = match &plan.status {
        Some(status) if plan.functions.iter().any(|f| f.returns_status()) => {
            let (e, library, function) = (&status.enum_ident, &status.missing_library, &status.missing_function);
            let doc = format!(
                " The status a function returns when it cannot be reached: `{library}` without the\n library, `{function}` without the entry point."
            );
            let doc = docs.doc_attrs(&doc);
            quote! {
                impl Missing {
                    #doc
                    #[cold]
                    pub(crate) fn status(self) -> super::#e {
                        match self {
                            Missing::Library => super::#e::#library,
                            Missing::Function => super::#e::#function,
                        }
                    }
                }
            }
        }
        _ => quote!(),
    };
    let inside = vec![
        loader,
        load,
        status_fns,
        per_thread,
        entries,
        quote! {
            /// The shared library opened on first use.
            pub const LIBRARY: &str = #library;
        },
        quote! {
            /// How messages name the library.
            const LIBRARY_DESCRIPTION: &str = #description;
        },
        per_thread_name,
        search_names,
        lookup_symbol,
        lookup_fn,
        missing_status,
        unavailable,
        text,
        bits,
    ];
    let outside = vec![
        quote!(pub use runtime::{library_status, function_available, #per_thread_export LoadError};),
        lookup_alias,
    ];
    Ok(Parts { inside, outside })
}

/// The generated pieces of the versioned lookup.
struct Lookup {
    /// Top-level alias of the lookup's signature, outside `runtime` so that its types resolve.
    alias: TokenStream,
    /// `LOOKUP_SYMBOL`, the symbol the loader looks the lookup up by.
    symbol: TokenStream,
    /// `lookup_versioned`, the call of the lookup the loader makes for a versioned entry.
    function: TokenStream,
}

fn versioned_lookup(plan: &Plan) -> Result<Lookup, RustEmitError> {
    let Some(proc_address) = &plan.proc_address else {
        return Ok(Lookup {
            alias: quote!(),
            symbol: quote! {
                /// The header has no versioned lookup: every function is found by its symbol.
                const LOOKUP_SYMBOL: Option<&CStr> = None;
            },
            function: quote! {
                /// Never called: there is no lookup to call.
                fn lookup_versioned(_lookup: *mut c_void, _name: &CStr, _version: u32, _per_thread: bool) -> Option<*mut c_void> {
                    None
                }
            },
        });
    };
    let f = &plan.functions[proc_address.index];
    let context = format!("function `{}`", f.function.name);
    let params = &f.function.params;
    let mut types = Vec::new();
    for p in params {
        types.push(plan.types.tokens(&p.ty, Position::Param, &context)?);
    }
    let ret = plan.types.return_tokens(&f.function.ret, &context)?;
    let symbol = crate::print_functions::c_literal(&f.function.symbol);
    let default_flag = int_literal(proc_address.default_flag);
    let per_thread_flag = int_literal(proc_address.per_thread_flag);
    let Some(status) = &plan.status else {
        return Err(RustEmitError::Convention {
            name: plan.conventions.success_constant.clone(),
            reason: "no status enum".into(),
        });
    };
    let (status_enum, success) = (&status.enum_ident, &status.success);
    Ok(Lookup {
        alias: quote! {
            /// The signature of the library's versioned entry-point lookup.
            type ProcAddressLookup = unsafe extern "C" fn(#(#types),*) #ret;
        },
        symbol: quote! {
            /// The library's versioned entry-point lookup, of type [`super::ProcAddressLookup`].
            const LOOKUP_SYMBOL: Option<&CStr> = Some(#symbol);
        },
        function: quote! {
            /// Asks the library's versioned lookup (at `lookup`) for `name` as of the API `version`.
            fn lookup_versioned(lookup: *mut c_void, name: &CStr, version: u32, per_thread: bool) -> Option<*mut c_void> {
                // SAFETY: `lookup` is the address of `LOOKUP_SYMBOL`, which has this signature.
                let lookup = unsafe { ::core::mem::transmute::<*mut c_void, super::ProcAddressLookup>(lookup) };
                // Parameter types come from the signature; the header spells them.
                let version = ::core::convert::TryFrom::try_from(version).ok()?;
                let flags = if per_thread { #per_thread_flag } else { #default_flag };
                let mut address: *mut c_void = ::core::ptr::null_mut();
                // SAFETY: zero bytes are a valid value of the status type.
                let mut status = unsafe { ::core::mem::zeroed() };
                // SAFETY: the name is NUL-terminated and both out-pointers are valid locals.
                let result = unsafe {
                    lookup(
                        name.as_ptr().cast(),
                        ::core::ptr::addr_of_mut!(address).cast(),
                        version,
                        flags,
                        ::core::ptr::addr_of_mut!(status),
                    )
                };
                (result == super::#status_enum::#success && !address.is_null()).then_some(address)
            }
        },
    })
}
