//! Assembles the generated package: `Cargo.toml`, `src/lib.rs`, `tests/layout.rs` and
//! `examples/library_info.rs`, each formatted in process and headed by the generating command.

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, OutputFile};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use rayon::prelude::*;

use crate::doc_blocks::DocBlocks;
use crate::names::synthetic;
use crate::plan::{Plan, RecordShape};
use crate::print_functions;
use crate::print_items::{self, Built, Stamps};
use crate::print_runtime;
use crate::{Dependency, LibraryConventions, RustEmitError, RustOptions};

/// Pinned so every generated package resolves the same loader.
const LIBLOADING_VERSION: &str = "=0.8.9";
/// How many boxed values the generated test checks the alignment of.
const ALIGNMENT_SAMPLES: usize = 50;
/// Oldest Rust with everything the generated code uses (`ptr::without_provenance` in consts).
const RUST_VERSION: &str = "1.84";
/// The generated example, which prints what the bindings see on the machine at hand.
const EXAMPLE: &str = "examples/library_info.rs";

/// How many declarations of each kind one piece of `src/lib.rs` holds: enough to keep the
/// per-piece parse cheap, few enough that two threads share the work evenly.
const TYPEDEFS_PER_PIECE: usize = 256;
const ENUMS_PER_PIECE: usize = 24;
const RECORDS_PER_PIECE: usize = 32;
const CONSTANTS_PER_PIECE: usize = 256;
const FUNCTIONS_PER_PIECE: usize = 32;

/// One independently printed part of the output. prettyplease lays out each top-level item on
/// its own, so the text of consecutive pieces concatenates to exactly the text of the whole
/// file printed at once; pieces let threads share the work and keep only a piece's tokens and
/// syntax tree alive at a time.
#[derive(Debug, Clone, Copy)]
enum Piece {
    CargoToml,
    /// Crate docs and lints, the runtime module and the entry table.
    Prelude,
    Typedefs(usize, usize),
    Enums(usize, usize),
    Records(usize, usize),
    Constants(usize, usize),
    Functions(usize, usize),
    LayoutTest,
    Example,
}

/// A piece's text, or why it failed: building tokens fails first (`Err`), then parsing them
/// (`Ok(Err)`), so errors surface in the order a whole-file pass would report them.
type Printed = Result<Result<String, RustEmitError>, RustEmitError>;

fn ranges(len: usize, per_piece: usize, piece: fn(usize, usize) -> Piece) -> impl Iterator<Item = Piece> {
    (0..len).step_by(per_piece).map(move |start| piece(start, (start + per_piece).min(len)))
}

fn pieces(plan: &Plan) -> Vec<Piece> {
    let mut pieces = vec![Piece::CargoToml, Piece::Prelude];
    pieces.extend(ranges(plan.typedefs.len(), TYPEDEFS_PER_PIECE, Piece::Typedefs));
    pieces.extend(ranges(plan.enums.len(), ENUMS_PER_PIECE, Piece::Enums));
    pieces.extend(ranges(plan.records.len(), RECORDS_PER_PIECE, Piece::Records));
    pieces.extend(ranges(plan.constants.len(), CONSTANTS_PER_PIECE, Piece::Constants));
    pieces.extend(ranges(plan.functions.len(), FUNCTIONS_PER_PIECE, Piece::Functions));
    pieces.push(Piece::LayoutTest);
    pieces.push(Piece::Example);
    pieces
}

/// Prints every file of the package. The model is planned once and the plan shared by the
/// threads; each piece's tokens are built on the thread that prints it, as token streams cannot
/// move between threads.
pub fn files(
    api: &Api,
    options: &RustOptions,
    conventions: &LibraryConventions,
    parsed: &ParsedDocs,
    dependencies: &[Dependency],
) -> Result<Vec<OutputFile>, RustEmitError> {
    let plan = Plan::new(api, options, conventions, parsed, dependencies)?;
    let pieces = pieces(&plan);
    let header = header_line(&plan, "//");
    let printed: Vec<Printed> = pieces.par_iter().map(|&piece| print_piece(&plan, piece)).collect();
    let mut printed = printed.into_iter();
    let take = |pieces: &mut dyn Iterator<Item = Printed>, n: usize| -> Result<Vec<String>, RustEmitError> {
        let batch: Vec<Printed> = pieces.take(n).collect();
        if let Some(Err(error)) = batch.iter().find(|p| p.is_err()) {
            return Err(error.clone());
        }
        batch.into_iter().map(|p| p.expect("build errors returned above")).collect()
    };
    let cargo = take(&mut printed, 1)?.concat();
    let lib_pieces =
        pieces.iter().filter(|p| !matches!(p, Piece::CargoToml | Piece::LayoutTest | Piece::Example)).count();
    let lib_texts = take(&mut printed, lib_pieces)?;
    let mut lib = String::with_capacity(header.len() + lib_texts.iter().map(|t| t.len() + t.len() / 16).sum::<usize>());
    lib.push_str(&header);
    let mut previous_ended_item = false;
    for text in lib_texts {
        // Piece by piece into one buffer: the pieces never exist twice over.
        separate_items_into(&mut lib, &mut previous_ended_item, &text);
    }
    let layout_test = take(&mut printed, 1)?.concat();
    let example = take(&mut printed, 1)?.concat();
    let mut files = vec![
        OutputFile { path: "Cargo.toml".into(), contents: cargo },
        OutputFile { path: "README.md".into(), contents: readme(&plan) },
        OutputFile { path: "src/lib.rs".into(), contents: lib },
        OutputFile { path: "tests/layout.rs".into(), contents: layout_test },
        OutputFile { path: EXAMPLE.into(), contents: example },
    ];
    files.sort();
    Ok(files)
}

fn print_piece(plan: &Plan, piece: Piece) -> Printed {
    let docs = DocBlocks::default();
    let items = match piece {
        Piece::CargoToml => return Ok(Ok(cargo_toml(plan))),
        Piece::LayoutTest => return Ok(format_rust(plan, layout_test(plan), "tests/layout.rs")),
        Piece::Example => return Ok(format_rust(plan, library_info_example(plan), EXAMPLE)),
        Piece::Prelude => prelude(plan, &docs)?,
        Piece::Typedefs(start, end) => plan.typedefs[start..end]
            .iter()
            .map(|t| print_items::typedef(plan, t, &docs).map(Built::Tokens))
            .collect::<Result<Vec<_>, _>>()?,
        Piece::Enums(start, end) => {
            let mut items = Vec::new();
            let stamps = Stamps::default();
            for e in &plan.enums[start..end] {
                items.extend(print_items::enumeration(plan, e, &docs, &stamps)?);
            }
            items
        }
        Piece::Records(start, end) => {
            let mut items = Vec::new();
            let stamps = Stamps::default();
            for r in &plan.records[start..end] {
                items.extend(print_items::record(plan, r, &docs, &stamps)?);
                // Each complete record's size, alignment and offsets, checked at compile time.
                if matches!(r.shape, RecordShape::Complete { .. }) {
                    items.push(Built::Tokens(print_items::layout_assertions(r)));
                }
            }
            items
        }
        Piece::Constants(start, end) => plan.constants[start..end]
            .iter()
            .map(|c| print_items::constant(plan, c, &docs).map(Built::Tokens))
            .collect::<Result<Vec<_>, _>>()?,
        Piece::Functions(start, end) => (start..end)
            .map(|index| {
                print_functions::function(plan, index, &plan.functions[index], &docs)
                    .map(|item| Built::Syntax(Box::new(item)))
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(unparse_items(items, "src/lib.rs").map(|text| docs.insert(text)))
}

fn header_line(plan: &Plan, comment: &str) -> String {
    format!("{comment} @generated by `{}`; do not edit\n", plan.options.command)
}

fn format_rust(plan: &Plan, tokens: TokenStream, path: &str) -> Result<String, RustEmitError> {
    let mut text = header_line(plan, "//");
    text.push_str(&separate_items(&unparse(tokens, path)?));
    Ok(text)
}

/// Parses each declaration's tokens on its own and prints them as one file: joining the token
/// streams first would copy every token once more.
fn unparse_items(items: Vec<Built>, path: &str) -> Result<String, RustEmitError> {
    let mut file = syn::File { shebang: None, attrs: Vec::new(), items: Vec::new() };
    for built in items {
        match built {
            Built::Tokens(tokens) => {
                let part: syn::File = syn::parse2(tokens)
                    .map_err(|error| RustEmitError::Syntax { file: path.into(), message: error.to_string() })?;
                file.attrs.extend(part.attrs);
                file.items.extend(part.items);
            }
            Built::Syntax(item) => file.items.push(*item),
        }
    }
    Ok(prettyplease::unparse(&file))
}

fn unparse(tokens: TokenStream, path: &str) -> Result<String, RustEmitError> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|error| RustEmitError::Syntax { file: path.into(), message: error.to_string() })?;
    Ok(prettyplease::unparse(&file))
}

/// prettyplease puts items back to back; a blank line after each top-level item reads better.
fn separate_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    separate_items_into(&mut out, &mut false, text);
    out
}

/// [`separate_items`] over consecutive parts of one text: `previous_ended_item` carries over
/// from one part to the next.
fn separate_items_into(out: &mut String, previous_ended_item: &mut bool, text: &str) {
    for line in text.lines() {
        let top_level = !line.is_empty() && !line.starts_with(char::is_whitespace);
        if *previous_ended_item && top_level && !line.starts_with('}') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        let is_comment = line.starts_with("//");
        *previous_ended_item = top_level && !is_comment && (line == "}" || line.ends_with(';') || line == ")]");
    }
}

fn provenance_line(plan: &Plan) -> String {
    let p = &plan.api.provenance;
    let mut line = format!("`{}`", p.header);
    if let Some(ctk) = &p.ctk {
        line.push_str(&format!(" of CTK {ctk}"));
    }
    if let (Some(version), Some(name)) = (p.cuda_version, &plan.conventions.version_macro) {
        line.push_str(&format!(" (`{name}` {version})"));
    }
    line.push_str(&format!(" for `{}`", p.target));
    line
}

fn cargo_toml(plan: &Plan) -> String {
    let description = format!(
        "Raw bindings to the {} API from {}, loaded at run time",
        plan.conventions.library_description,
        provenance_line(plan).replace('`', "")
    );
    format!(
        "{header}[package]\nname = {name}\nversion = {version}\nedition = \"2021\"\nrust-version = \"{RUST_VERSION}\"\ndescription = {description}\nlicense = {license}\n{repository}readme = \"README.md\"\n\n[lib]\n# Doc comments are prose from the header, not Rust examples.\ndoctest = false\n\n[dependencies]\nlibloading = \"{LIBLOADING_VERSION}\"\n{dependencies}",
        header = header_line(plan, "#"),
        name = toml_string(&plan.crate_name),
        version = toml_string(&plan.options.crate_version),
        description = toml_string(&description),
        license = toml_string(&plan.options.license),
        repository = match &plan.options.repository {
            Some(url) => format!("repository = {}\n", toml_string(url)),
            None => String::new(),
        },
        dependencies = plan
            .dependencies
            .iter()
            .map(|d| format!(
                "{} = {{ path = {}, version = {} }}\n",
                d.crate_name,
                toml_string(&format!("../{}", d.crate_name)),
                // Build metadata (`+ctk.13.1.0`) takes no part in matching; Cargo warns if given.
                toml_string(&format!("={}", d.version.split('+').next().unwrap_or_default()))
            ))
            .collect::<String>(),
    )
}

/// The package's README: what it is, how to depend on it, and where its parts come from.
fn readme(plan: &Plan) -> String {
    let c = plan.conventions;
    let name = &plan.crate_name;
    format!(
        "<!-- @generated by `{command}`; do not edit -->\n# {name}\n\n\
         Raw Rust bindings to the {description} API, generated by ctkgen from {provenance}.\n\n\
         ```toml\n[dependencies]\n{name} = {{ path = \"<this folder>\" }}\n```\n\n\
         Nothing links against `{library}`: it is opened on the first call{search}, and each function is \
         resolved on its own first call, so an installed {description} that lacks a newer function fails \
         only when that function is called. Records have the header's exact size, alignment and field \
         offsets, checked at compile time (`tests/layout.rs` checks them at run time too); `{EXAMPLE}` \
         prints what the bindings find on the machine at hand.{shared}\n\n\
         The declarations and their documentation come from `{header}`, under the licence of the \
         toolkit that ships it; the generated code is under {license}.\n",
        command = plan.options.command,
        description = c.library_description,
        provenance = provenance_line(plan),
        library = plan.library,
        search = search_clause(plan),
        header = plan.api.provenance.header,
        license = plan.options.license,
        shared = shared_clause(plan),
    )
}

/// The sentence naming the crates this one is built on, if any: the C types their headers
/// share are one Rust type, theirs.
fn shared_clause(plan: &Plan) -> String {
    if plan.dependencies.is_empty() {
        return String::new();
    }
    let crates: Vec<String> = plan.dependencies.iter().map(|d| format!("`{}`", d.crate_name)).collect();
    format!(
        " It is built on {}: the types both headers declare are that crate's own, re-exported, so values pass \
         between the two without conversion.",
        crates.join(" and ")
    )
}

/// Where the library is looked for before the system loader's path, as a parenthesis to follow
/// "opened on the first call"; nothing for a library found through the system loader alone.
fn search_clause(plan: &Plan) -> String {
    let Some(search) = &plan.search else { return String::new() };
    let dirs: Vec<String> = search.dirs.iter().map(|dir| format!("`${}/{dir}`", search.env_var)).collect();
    format!(" (first in {}, when `{}` is set)", dirs.join(", "), search.env_var)
}

fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn crate_doc(plan: &Plan, docs: &DocBlocks) -> TokenStream {
    let c = plan.conventions;
    let mut text =
        format!("Raw bindings to the {} API, generated from {}.\n\n", c.library_description, provenance_line(plan));
    text.push_str(&format!(
        "Nothing is linked at build time. `{}` is opened on the first call of any function{}, and each \
         function is resolved on its own first call, so an installed {description} that lacks a newer \
         function only fails when that function is called; there is no minimum {description} version.\n\n",
        plan.library,
        search_clause(plan),
        description = c.library_description
    ));
    if let Some(lookup) = &plan.proc_address {
        text.push_str(&format!(
            "Functions are resolved through `{}` with the CUDA version their signature first appeared in, \
             falling back to the ABI symbol the header binds the name to.\n\n",
            plan.functions[lookup.index].function.name
        ));
    }
    if let Some(status) = &plan.status {
        text.push_str(&format!(
            "A function the installed {} lacks returns `{}`; when the library itself cannot be loaded every \
             function returns `{}`, and [`library_status`] says why.\n\n",
            c.library_description, status.missing_function, status.missing_library
        ));
    }
    if let Some(env_var) = plan.per_thread_env_var {
        text.push_str(&format!(
            "Set `{env_var}=1` before the first call to use the per-thread-default-stream variants.\n\n"
        ));
    }
    text.push_str(
        "Names follow the header. Records are `#[repr(C)]` with the header's exact size, alignment and \
         field offsets, checked at compile time; enums are newtypes so unknown values stay valid.",
    );
    let doc = docs.doc_attrs(&text);
    // Turn the outer doc attributes into inner ones for the crate.
    let inner: TokenStream = doc
        .into_iter()
        .flat_map(|token| match token {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '#' => {
                vec![
                    proc_macro2::TokenTree::Punct(p),
                    proc_macro2::TokenTree::Punct(proc_macro2::Punct::new('!', proc_macro2::Spacing::Alone)),
                ]
            }
            other => vec![other],
        })
        .collect();
    inner
}

/// The crate docs and lints, the runtime module and the entry table: the start of `src/lib.rs`.
fn prelude(plan: &Plan, docs: &DocBlocks) -> Result<Vec<Built>, RustEmitError> {
    let mut items = vec![Built::Tokens(crate_doc(plan, docs))];
    items.push(Built::Tokens(quote! {
        #![allow(
            non_camel_case_types,
            non_snake_case,
            non_upper_case_globals,
            reason = "names are the header's, as the library's documentation spells them"
        )]
        #![allow(
            clippy::too_many_arguments,
            clippy::type_complexity,
            reason = "function signatures are the header's"
        )]
    }));
    for dependency in &plan.dependencies {
        let krate = &dependency.crate_ident;
        let names = &dependency.reexports;
        let doc = format!(" Declared by `{}` exactly as here: one Rust type for one C type.", dependency.crate_name);
        items.push(Built::Tokens(quote! {
            #[doc = #doc]
            pub use #krate::{#(#names),*};
        }));
    }
    items.push(Built::Tokens(print_runtime::runtime(plan, docs)?));
    items.push(Built::Syntax(Box::new(print_functions::entry_table(plan))));
    Ok(items)
}

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

fn layout_test(plan: &Plan) -> TokenStream {
    let krate = &plan.crate_ident;
    let mut tests = TokenStream::new();
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
    if !aligned.is_empty() {
        tests.extend(quote! {
            /// Types aligned by an attribute in the header keep that alignment, on the stack, in a
            /// `Box` and in a `Vec`.
            #[test]
            fn explicitly_aligned_types_keep_the_header_alignment() {
                #(#aligned)*
            }
        });
    }
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
    tests.extend(quote! {
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

        /// With the library present, unknown names are reported missing rather than failing the load.
        #[test]
        fn unknown_functions_are_missing() {
            if #krate::library_status().is_ok() {
                assert_eq!(#krate::function_available("ctkgenNoSuchFunction"), Ok(false));
            }
        }
    });
    if let Some(status) = &plan.status {
        let (e, success) = (&status.enum_ident, &status.success);
        let success_name = success.to_string();
        let unknown = format!("{e}(123456789)");
        tests.extend(quote! {
            /// Status values print the header's name, and unknown ones their number.
            #[test]
            fn status_values_print_their_names() {
                let known = format!("{:?}", #krate::#e::#success);
                let unknown = format!("{:?}", #krate::#e(123456789));
                assert_eq!(known, #success_name);
                assert_eq!(unknown, #unknown);
            }
        });
    }
    quote! {
        //! Checks the generated crate against the header on the machine at hand.
        #tests
    }
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
        format!(" so no function of `{}` is called here.", plan.library),
    ]
}

fn library_info_example(plan: &Plan) -> TokenStream {
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
    let library = &plan.library;
    let mut doc = vec![
        format!(" Prints what the bindings see on this machine: whether `{library}` loads, and the alignment of"),
        " the types the header aligns explicitly.".to_string(),
    ];
    doc.extend(no_init_note(plan));
    let loaded = format!("{library}: loaded");
    quote! {
        #(#![doc = #doc])*

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
