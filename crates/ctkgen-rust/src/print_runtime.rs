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
use crate::plan::{Plan, Unreachable};
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

pub fn runtime(plan: &Plan, docs: &DocBlocks) -> Result<TokenStream, RustEmitError> {
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
            pub(crate) fn unavailable(entry: &Entry, missing: Missing) -> ! {
                let name = entry.name.to_string_lossy();
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
    // Without functions the entry table is empty and nothing builds an entry.
    let no_functions = if plan.functions.is_empty() {
        quote!(#![allow(dead_code, reason = "the header declares no functions")])
    } else {
        quote!()
    };
    Ok(quote! {
        mod runtime {
            #no_functions
            #loader
            #load
            #status_fns
            #per_thread
            #entries
            /// The shared library opened on first use.
            pub const LIBRARY: &str = #library;
            /// How messages name the library.
            const LIBRARY_DESCRIPTION: &str = #description;
            #per_thread_name
            #search_names
            #lookup_symbol
            #lookup_fn
            #missing_status
            #unavailable
            #text
            #bits
        }

        pub use runtime::{library_status, function_available, #per_thread_export LoadError};

        #lookup_alias
    })
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
