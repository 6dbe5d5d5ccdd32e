//! The generated crate's own test (`tests/layout.rs`) and example (`examples/library_info.rs`).
//! Each test and the example's `main` are written per toolkit; a form that toolkits share is
//! written once, under their `cfg`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::names::synthetic;
use crate::plan::Plan;
use crate::print_crate::Crate;

/// How many boxed values the generated test checks the alignment of.
const ALIGNMENT_SAMPLES: usize = 50;

/// A call of the init function with all-zero arguments, when the model has one returning the
/// status type.
fn init_call(plan: &Plan) -> Option<(TokenStream, String)> {
    let index = plan.init_function?;
    let f = &plan.functions[index];
    if !f.returns_status() {
        return None;
    }
    let krate = &plan.crate_ident;
    let ident = &f.ident;
    let zeros = f.params.iter().map(|_| quote!(::core::mem::zeroed()));
    let call = quote! {
        // SAFETY: all-zero arguments are what the init function documents as valid.
        unsafe { #krate::#ident(#(#zeros),*) }
    };
    Some((call, f.function.name.clone()))
}

pub fn layout_test(c: &Crate) -> TokenStream {
    let mut tests = TokenStream::new();
    for part in 0..4 {
        tests.extend(c.each_form(|plan| layout_test_parts(plan).swap_remove(part)));
    }
    quote! {
        //! Checks the generated crate against the header on the machine at hand.
        #tests
    }
}

/// The tests for one toolkit: explicitly aligned types, calls without the library, unknown
/// names, status names (each may be empty).
fn layout_test_parts(plan: &Plan) -> Vec<TokenStream> {
    let krate = &plan.crate_ident;
    let mut parts = Vec::new();
    let aligned: Vec<TokenStream> = plan
        .aligned_types
        .iter()
        .map(|t| {
            let ty = synthetic(&t.name);
            let (align, size) = (Literal::u64_unsuffixed(t.align), Literal::u64_unsuffixed(t.size));
            let samples = Literal::usize_unsuffixed(ALIGNMENT_SAMPLES);
            let line = format!("align_of::<{}>() = {{}}", t.name);
            quote! {
                let align = ::core::mem::align_of::<#krate::#ty>();
                let size = ::core::mem::size_of::<#krate::#ty>();
                println!(#line, align);
                assert_eq!((align, size), (#align, #size));
                let boxed: Vec<Box<#krate::#ty>> = (0..#samples).map(|_| Box::default()).collect();
                let in_vec: Vec<#krate::#ty> = vec![Default::default(); 7];
                let addresses = boxed.iter().map(|b| &**b as *const #krate::#ty).chain(in_vec.iter().map(|v| v as *const #krate::#ty));
                for address in addresses {
                    let misalignment = address as usize % align;
                    assert_eq!(misalignment, 0);
                }
            }
        })
        .collect();
    parts.push(if aligned.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            /// Types aligned by an attribute in the header keep that alignment, on the stack, in a
            /// `Box` and in a `Vec`.
            #[test]
            fn explicitly_aligned_types_keep_the_header_alignment() {
                #(#aligned)*
            }
        }
    });
    let library = &plan.library;
    let library_prefix = format!("{} not found ({library}: ", plan.conventions.library_description);
    let call_check = match (init_call(plan), &plan.status) {
        (Some((call, name)), Some(status)) => {
            let (e, missing) = (&status.enum_ident, &status.missing_library);
            let line = format!("{name}(0) = {{:?}}");
            quote! {
                let status = #call;
                println!(#line, status);
                assert_eq!(status, #krate::#e::#missing);
            }
        }
        _ => quote!(),
    };
    // The init function, else any function, else any name: without the library, asking for one
    // is the load error.
    let probe = plan.init_function.or((!plan.functions.is_empty()).then_some(0));
    let probe = probe.map(|i| plan.functions[i].function.name.as_str()).unwrap_or_default();
    let mut without_doc =
        vec![format!(" Without `{library}`, calls return a status and the load error explains; never a crash.")];
    without_doc.extend(no_init_note(plan));
    let present = format!("{library} present: nothing to check here");
    parts.push(quote! {
        #(#[doc = #without_doc])*
        #[test]
        fn calls_without_the_library_report_a_clear_error() {
            let error = match #krate::library_status() {
                Ok(()) => {
                    println!(#present);
                    return;
                }
                Err(error) => error,
            };
            println!("{error}");
            assert!(error.to_string().starts_with(#library_prefix), "{error}");
            assert_eq!(#krate::function_available(#probe), Err(error));
            #call_check
        }

    });
    parts.push(quote! {
        /// With the library present, unknown names are reported missing rather than failing the load.
        #[test]
        fn unknown_functions_are_missing() {
            if #krate::library_status().is_ok() {
                assert_eq!(#krate::function_available("ctkgenNoSuchFunction"), Ok(false));
            }
        }
    });
    parts.push(match &plan.status {
        Some(status) => {
            let (e, success) = (&status.enum_ident, &status.success);
            let success_name = success.to_string();
            let unknown = format!("{e}(123456789)");
            quote! {
                /// Status values print the header's name, and unknown ones their number.
                #[test]
                fn status_values_print_their_names() {
                    let known = format!("{:?}", #krate::#e::#success);
                    let unknown = format!("{:?}", #krate::#e(123456789));
                    assert_eq!(known, #success_name);
                    assert_eq!(unknown, #unknown);
                }
            }
        }
        None => TokenStream::new(),
    });
    parts
}

/// Doc lines saying that nothing is called, when the library names no init function: the
/// generated test and example would otherwise say nothing about what they leave out.
fn no_init_note(plan: &Plan) -> Vec<String> {
    if plan.conventions.init_function.is_some() {
        return Vec::new();
    }
    vec![
        String::new(),
        " The library's conventions name no function that is safe to call with all-zero arguments,".to_string(),
        format!(" so no function of the {} is called here.", plan.conventions.library_description),
    ]
}

pub fn library_info_example(c: &Crate) -> TokenStream {
    let plan = c.newest();
    let description = &plan.conventions.library_description;
    let mut doc = vec![
        format!(" Prints what the bindings see on this machine: whether the {description} library loads, and the"),
        " alignment of the types the header aligns explicitly.".to_string(),
    ];
    doc.extend(no_init_note(plan));
    let main = c.each_form(example_main);
    quote! {
        #(#![doc = #doc])*

        #main
    }
}

/// The example's `main` for one toolkit.
fn example_main(plan: &Plan) -> TokenStream {
    let krate = &plan.crate_ident;
    let aligned = plan.aligned_types.iter().map(|t| {
        let ty = synthetic(&t.name);
        let line = format!("align_of::<{}>() = {{}}", t.name);
        quote! {
            let align = ::core::mem::align_of::<#krate::#ty>();
            println!(#line, align);
        }
    });
    let call = match init_call(plan) {
        Some((call, name)) => {
            let line = format!("{name}(0) = {{:?}}");
            quote! {
                let status = #call;
                println!(#line, status);
            }
        }
        None => quote!(),
    };
    let per_thread = plan.per_thread_env_var.map(|_| {
        quote! {
            println!("per-thread default stream: {}", #krate::per_thread_default_stream());
        }
    });
    let loaded = format!("{}: loaded", plan.library);
    quote! {
        fn main() {
            match #krate::library_status() {
                Ok(()) => println!(#loaded),
                Err(error) => println!("{error}"),
            }
            #per_thread
            #(#aligned)*
            #call
        }
    }
}
