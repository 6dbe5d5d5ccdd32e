//! Prints the generated crate's `runtime` module: loading the driver library once, resolving
//! each entry point on its first call, the per-thread-default-stream switch and the bit helpers.

use proc_macro2::TokenStream;
use quote::quote;

use crate::plan::Plan;
use crate::print_items::int_literal;
use crate::types::Position;
use crate::RustEmitError;

pub fn runtime(plan: &Plan) -> Result<TokenStream, RustEmitError> {
    let conventions = plan.conventions;
    let library = &conventions.library;
    let not_found = format!("{} not found ({{}}: {{}})", conventions.library_description);
    let env_var = &conventions.per_thread_env_var;
    let status_doc = format!(
        " Whether the driver library loads; the error says why not, e.g.\n `{} not found ({library}: ...)`.",
        conventions.library_description
    );
    let status_doc = crate::print_items::doc_attrs(&status_doc);
    let Lookup {
        alias: lookup_alias,
        field: lookup_field,
        init: lookup_init,
        field_init: lookup_field_init,
        function: lookup_fn,
    } = versioned_lookup(plan)?;
    let bits = bit_helpers(plan);
    let unavailable = if plan.functions.iter().any(|f| !f.returns_status) {
        let message = format!("{{name}}: entry point not found in {library}");
        quote! {
            /// Ends a call to a function that has no status to report a missing entry point with.
            #[cold]
            pub(crate) fn unavailable(entry: &Entry, missing: Missing) -> ! {
                let name = entry.name.to_string_lossy();
                match (missing, driver()) {
                    (Missing::Library, Err(error)) => panic!("{name}: {error}"),
                    _ => panic!(#message),
                }
            }
        }
    } else {
        quote!()
    };
    let missing_status = match &plan.status {
        Some(status) if plan.functions.iter().any(|f| f.returns_status) => {
            let (e, library, function) = (&status.enum_ident, &status.missing_library, &status.missing_function);
            let doc = format!(
                " The status a function returns when it cannot be reached: `{library}` without the\n library, `{function}` without the entry point."
            );
            let doc = crate::print_items::doc_attrs(&doc);
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
    let new_allowance = if plan.functions.is_empty() {
        quote!(#[allow(dead_code, reason = "the header declares no functions")])
    } else {
        quote!()
    };
    Ok(quote! {
        mod runtime {
            use ::std::ffi::{c_void, CStr};
            use ::std::sync::OnceLock;

            /// The shared library opened on first use.
            pub const LIBRARY: &str = #library;

            /// Why the driver library could not be loaded.
            #[derive(Debug, Clone, PartialEq, Eq)]
            pub struct LoadError {
                reason: String,
            }

            impl LoadError {
                /// The library that was looked for.
                pub fn library(&self) -> &'static str {
                    LIBRARY
                }

                /// What the dynamic loader said.
                pub fn reason(&self) -> &str {
                    &self.reason
                }
            }

            impl ::core::fmt::Display for LoadError {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    write!(f, #not_found, LIBRARY, self.reason)
                }
            }

            impl ::std::error::Error for LoadError {}

            struct Driver {
                library: ::libloading::Library,
                #lookup_field
            }

            static DRIVER: OnceLock<Result<Driver, LoadError>> = OnceLock::new();

            fn driver() -> Result<&'static Driver, &'static LoadError> {
                DRIVER.get_or_init(load).as_ref()
            }

            fn load() -> Result<Driver, LoadError> {
                // SAFETY: opening the driver runs its initialisers, which need nothing from us.
                let library = unsafe { ::libloading::Library::new(LIBRARY) }
                    .map_err(|error| LoadError { reason: error.to_string() })?;
                #lookup_init
                Ok(Driver { library, #lookup_field_init })
            }

            /// The address of an exported symbol, if the library has it.
            fn symbol(library: &::libloading::Library, name: &CStr) -> Option<*mut c_void> {
                // SAFETY: the symbol is only read as an address here; callers give it its type.
                let symbol = unsafe { library.get::<*mut c_void>(name.to_bytes_with_nul()) }.ok()?;
                let address = *symbol;
                (!address.is_null()).then_some(address)
            }

            #lookup_fn

            #status_doc
            pub fn driver_status() -> Result<(), LoadError> {
                driver().map(|_| ()).map_err(Clone::clone)
            }

            /// Whether the driver has the entry point `name` (a documented function name).
            /// `Ok(false)` for a function the driver lacks or the bindings do not know.
            pub fn function_available(name: &str) -> Result<bool, LoadError> {
                driver_status()?;
                Ok(match super::FUNCTIONS.binary_search_by(|entry| entry.name.to_bytes().cmp(name.as_bytes())) {
                    Ok(index) => super::FUNCTIONS[index].address().is_ok(),
                    Err(_) => false,
                })
            }

            /// Whether functions with a per-thread-default-stream variant use it. Read once from
            /// the environment variable, as C code decides it once at compile time.
            pub fn per_thread_default_stream() -> bool {
                static SELECTED: OnceLock<bool> = OnceLock::new();
                *SELECTED.get_or_init(|| {
                    ::std::env::var(#env_var).is_ok_and(|value| value.trim().parse::<i64>().is_ok_and(|n| n != 0))
                })
            }

            /// Why an entry point cannot be called.
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            pub(crate) enum Missing {
                Library,
                Function,
            }

            #[derive(Clone, Copy)]
            struct Address(*mut c_void);

            // SAFETY: an entry point's address is immutable and valid process-wide.
            unsafe impl Send for Address {}
            // SAFETY: as above.
            unsafe impl Sync for Address {}

            /// One function's names and versions, and its address once resolved.
            pub(crate) struct Entry {
                name: &'static CStr,
                lookup: &'static CStr,
                symbol: &'static CStr,
                version: Option<u32>,
                per_thread: Option<(&'static CStr, Option<u32>)>,
                address: OnceLock<Result<Address, Missing>>,
            }

            impl Entry {
                #new_allowance
                pub(crate) const fn new(
                    name: &'static CStr,
                    lookup: &'static CStr,
                    symbol: &'static CStr,
                    version: Option<u32>,
                    per_thread: Option<(&'static CStr, Option<u32>)>,
                ) -> Self {
                    Entry { name, lookup, symbol, version, per_thread, address: OnceLock::new() }
                }

                /// The entry point, resolved on the first call and cached.
                #[inline]
                pub(crate) fn address(&self) -> Result<*mut c_void, Missing> {
                    self.address.get_or_init(|| self.resolve()).map(|address| address.0)
                }

                /// The entry point as a function pointer of type `F`.
                ///
                /// # Safety
                ///
                /// `F` must be the `unsafe extern "C" fn` type of this entry's C signature.
                #new_allowance
                #[inline]
                pub(crate) unsafe fn function<F: Copy>(&self) -> Result<F, Missing> {
                    const { assert!(::core::mem::size_of::<F>() == ::core::mem::size_of::<*mut c_void>()) };
                    let address = self.address()?;
                    // SAFETY: `F` is a function pointer type (the caller's promise, and the size
                    // check above), and the address is that function's entry point.
                    Ok(unsafe { ::core::mem::transmute_copy::<*mut c_void, F>(&address) })
                }

                fn resolve(&self) -> Result<Address, Missing> {
                    let driver = driver().map_err(|_| Missing::Library)?;
                    let (symbol_name, version, per_thread) = match self.per_thread {
                        Some((symbol_name, version)) if per_thread_default_stream() => (symbol_name, version, true),
                        _ => (self.symbol, self.version, false),
                    };
                    if let Some(version) = version {
                        if let Some(address) = lookup_versioned(driver, self.lookup, version, per_thread) {
                            return Ok(Address(address));
                        }
                    }
                    symbol(&driver.library, symbol_name).map(Address).ok_or(Missing::Function)
                }
            }

            #missing_status
            #unavailable
            #bits
        }

        pub use runtime::{driver_status, function_available, per_thread_default_stream, LoadError};

        #lookup_alias
    })
}

/// The generated pieces of the versioned lookup.
pub struct Lookup {
    /// Top-level alias of the lookup's signature, outside `runtime` so that its types resolve.
    pub alias: TokenStream,
    field: TokenStream,
    init: TokenStream,
    field_init: TokenStream,
    function: TokenStream,
}

fn versioned_lookup(plan: &Plan) -> Result<Lookup, RustEmitError> {
    let Some(proc_address) = &plan.proc_address else {
        return Ok(Lookup {
            alias: quote!(),
            field: quote!(),
            init: quote!(),
            field_init: quote!(),
            function: quote! {
                /// The header has no versioned lookup: every function is found by its symbol.
                fn lookup_versioned(_driver: &Driver, _name: &CStr, _version: u32, _per_thread: bool) -> Option<*mut c_void> {
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
    let symbol = crate::print_items::c_literal(&f.function.symbol);
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
            /// The signature of the driver's versioned entry-point lookup.
            type ProcAddressLookup = unsafe extern "C" fn(#(#types),*) #ret;
        },
        field: quote!(lookup: Option<super::ProcAddressLookup>,),
        init: quote! {
            // SAFETY: the symbol is the header's versioned lookup, with this signature.
            let lookup = symbol(&library, #symbol).map(|address| unsafe {
                ::core::mem::transmute::<*mut c_void, super::ProcAddressLookup>(address)
            });
        },
        field_init: quote!(lookup),
        function: quote! {
            /// Asks the driver's versioned lookup for `name` as of the API `version`.
            fn lookup_versioned(driver: &Driver, name: &CStr, version: u32, per_thread: bool) -> Option<*mut c_void> {
                let lookup = driver.lookup?;
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

fn bit_helpers(plan: &Plan) -> TokenStream {
    if !plan.uses_bitfields {
        return quote!();
    }
    let conversions = [
        ("u8", false),
        ("u16", false),
        ("u32", false),
        ("u64", false),
        ("usize", false),
        ("i8", true),
        ("i16", true),
        ("i32", true),
        ("i64", true),
        ("isize", true),
    ]
    .into_iter()
    .map(|(name, signed)| {
        let ty = crate::names::synthetic(name);
        let from = match (name, signed) {
            ("u64", _) => quote!(raw),
            ("i64", _) => quote!(sign_extend(raw, width)),
            (_, true) => quote!(sign_extend(raw, width) as #ty),
            (_, false) => quote!(raw as #ty),
        };
        let to = if name == "u64" { quote!(self) } else { quote!(self as u64) };
        quote! {
            impl BitValue for #ty {
                #[inline]
                fn from_bits(raw: u64, width: u32) -> Self {
                    let _ = width;
                    #from
                }
                #[inline]
                fn to_bits(self) -> u64 {
                    #to
                }
            }
        }
    });
    quote! {
        /// Reads `width` bits starting at bit `offset` of a little-endian bitfield unit.
        #[inline]
        pub(crate) fn get_bits<const N: usize>(unit: &[u8; N], offset: u32, width: u32) -> u64 {
            let mut value = 0u64;
            for i in 0..width {
                let bit = (offset + i) as usize;
                if unit[bit / 8] >> (bit % 8) & 1 == 1 {
                    value |= 1 << i;
                }
            }
            value
        }

        /// Writes the low `width` bits of `value` at bit `offset` of a bitfield unit.
        #[inline]
        pub(crate) fn set_bits<const N: usize>(unit: &mut [u8; N], offset: u32, width: u32, value: u64) {
            for i in 0..width {
                let bit = (offset + i) as usize;
                let mask = 1u8 << (bit % 8);
                if value >> i & 1 == 1 {
                    unit[bit / 8] |= mask;
                } else {
                    unit[bit / 8] &= !mask;
                }
            }
        }

        /// Sign-extends the low `width` bits of `raw`.
        #[inline]
        fn sign_extend(raw: u64, width: u32) -> i64 {
            let unused = u64::BITS - width;
            ((raw << unused) as i64) >> unused
        }

        /// A bitfield's declared type: how its bits convert to and from a value.
        pub(crate) trait BitValue: Sized {
            fn from_bits(raw: u64, width: u32) -> Self;
            fn to_bits(self) -> u64;
        }

        impl BitValue for bool {
            #[inline]
            fn from_bits(raw: u64, _width: u32) -> Self {
                raw != 0
            }
            #[inline]
            fn to_bits(self) -> u64 {
                u64::from(self)
            }
        }

        #(#conversions)*
    }
}
