//! Assembles the generated package: `Cargo.toml`, `README.md`, `src/lib.rs`, `tests/layout.rs`
//! and `examples/library_info.rs`, each formatted in process and headed by the generating command.
//!
//! One package binds the library for each toolkit it is given, a cargo feature each: every
//! toolkit is planned on its own, the plans are merged (`merge`), and each distinct form of an
//! item is printed once, under the `cfg` of the toolkits that have it.

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, OutputFile};
use proc_macro2::TokenStream;
use quote::quote;
use rayon::prelude::*;

use crate::doc_blocks::{Comment, DocBlocks};
use crate::features::{Features, Toolkits};
use crate::merge::{Item, Merged};
use crate::plan::{Plan, RecordShape};
use crate::print_items::{self, Built, EnumParts, Stamps};
use crate::{print_functions, print_package, print_runtime, print_tests};
use crate::{Dependency, LibraryConventions, RustEmitError, RustOptions, ToolkitModel};

/// The generated example, which prints what the bindings see on the machine at hand.
pub const EXAMPLE: &str = "examples/library_info.rs";

/// How many declarations of each kind one piece of `src/lib.rs` holds: enough to keep the
/// per-piece parse cheap, few enough that two threads share the work evenly.
const TYPEDEFS_PER_PIECE: usize = 256;
const ENUMS_PER_PIECE: usize = 24;
const RECORDS_PER_PIECE: usize = 32;
const CONSTANTS_PER_PIECE: usize = 256;
const FUNCTIONS_PER_PIECE: usize = 32;

/// Everything one package prints: its toolkits, their plans (oldest first) and the items merged
/// over them.
pub struct Crate<'a> {
    pub toolkits: Toolkits,
    pub plans: Vec<Plan<'a>>,
    pub merged: Merged,
}

impl<'a> Crate<'a> {
    /// The newest toolkit's plan: what every toolkit has alike (names, conventions) is read there.
    pub fn newest(&self) -> &Plan<'a> {
        self.plans.last().expect("a crate binds at least one toolkit")
    }

    pub fn all(&self) -> Features {
        self.toolkits.all()
    }

    /// Each distinct value of `value` over the toolkits, with the toolkits that have it, in the
    /// order of their oldest toolkit.
    pub fn grouped<T: PartialEq>(&self, value: impl Fn(&Plan<'a>) -> T) -> Vec<(Features, T)> {
        let mut groups: Vec<(Features, T)> = Vec::new();
        for (toolkit, plan) in self.plans.iter().enumerate() {
            let this = value(plan);
            match groups.iter_mut().find(|(_, v)| *v == this) {
                Some(group) => group.0 = group.0.with(Features::one(toolkit)),
                None => groups.push((Features::one(toolkit), this)),
            }
        }
        groups
    }

    /// `item` (one item, or nothing) as each toolkit has it: each distinct text once, under the
    /// `cfg` of the toolkits that have it.
    pub fn each_form(&self, item: impl Fn(&Plan<'a>) -> TokenStream) -> TokenStream {
        let items: Vec<TokenStream> = self.plans.iter().map(item).collect();
        let texts: Vec<String> = items.iter().map(ToString::to_string).collect();
        // Each distinct text's toolkits, and the first toolkit that has it.
        let mut groups: Vec<(Features, usize)> = Vec::new();
        for (toolkit, text) in texts.iter().enumerate() {
            match groups.iter_mut().find(|(_, first)| texts[*first] == *text) {
                Some(group) => group.0 = group.0.with(Features::one(toolkit)),
                None => groups.push((Features::one(toolkit), toolkit)),
            }
        }
        let mut out = TokenStream::new();
        for (set, first) in groups.into_iter().filter(|(_, first)| !texts[*first].is_empty()) {
            let cfg = self.toolkits.cfg(set, self.all());
            let tokens = &items[first];
            out.extend(quote!(#cfg #tokens));
        }
        out
    }

    /// The comment printed with one form of an item (for the toolkits `form`), from its comment
    /// groups (`(toolkits, the newest one's rendered comment)`): shared when one group covers the
    /// form, else each group's under its `cfg`.
    pub fn comment<'s>(
        &self,
        form: Features,
        mut groups: impl Iterator<Item = (Features, &'s Option<String>)>,
    ) -> Comment<'s> {
        let Some(first) = groups.next() else { return Comment::Shared(None) };
        let Some(second) = groups.next() else { return Comment::Shared(first.1.as_deref()) };
        let variants = [first, second]
            .into_iter()
            .chain(groups)
            .filter_map(|(set, text)| Some((self.toolkits.predicate_within(set, form), text.as_deref()?)))
            .collect();
        Comment::PerToolkit(variants)
    }

    /// The features of `set` for prose: `cuda-12000` to `cuda-12090` when they follow each
    /// other, else each named.
    pub fn describe(&self, set: Features) -> String {
        let indices: Vec<usize> = set.indices().collect();
        let name = |i: usize| format!("`{}`", self.toolkits.list[i].feature.as_deref().unwrap_or_default());
        match indices.as_slice() {
            [] => String::new(),
            [one] => name(*one),
            [first, .., last] if last - first + 1 == indices.len() => format!("{} to {}", name(*first), name(*last)),
            many => many.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", "),
        }
    }

    /// `// @generated ...`, the first line of every file.
    pub fn header_line(&self, comment: &str) -> String {
        format!("{comment} @generated by `{}`; do not edit\n", self.newest().options.command)
    }
}

/// One independently printed part of the output. prettyplease lays out each top-level item on
/// its own, so the text of consecutive pieces concatenates to exactly the text of the whole
/// file printed at once; pieces let threads share the work and keep only a piece's tokens and
/// syntax tree alive at a time.
#[derive(Debug, Clone, Copy)]
enum Piece {
    CargoToml,
    /// Crate docs and lints, the feature guard and, for several toolkits, the `include!` of the
    /// bindings.
    Root,
    /// The re-exports and the runtime module.
    Prelude,
    /// Every function's entry point and the lookup by name.
    Entries,
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

fn pieces(c: &Crate) -> Vec<Piece> {
    let m = &c.merged;
    let mut pieces = vec![Piece::CargoToml, Piece::Root, Piece::Prelude, Piece::Entries];
    pieces.extend(ranges(m.typedefs.len(), TYPEDEFS_PER_PIECE, Piece::Typedefs));
    pieces.extend(ranges(m.enums.len(), ENUMS_PER_PIECE, Piece::Enums));
    pieces.extend(ranges(m.records.len(), RECORDS_PER_PIECE, Piece::Records));
    pieces.extend(ranges(m.constants.len(), CONSTANTS_PER_PIECE, Piece::Constants));
    pieces.extend(ranges(m.functions.len(), FUNCTIONS_PER_PIECE, Piece::Functions));
    pieces.push(Piece::LayoutTest);
    pieces.push(Piece::Example);
    pieces
}

/// The first error of `results` in their order, else every value: deterministic whichever
/// thread failed first.
fn in_order<T>(results: Vec<Result<T, RustEmitError>>) -> Result<Vec<T>, RustEmitError> {
    results.into_iter().collect()
}

/// Plans every toolkit, merges the plans and prints every file of the package. The plans are
/// shared by the threads; each piece's tokens are built on the thread that prints it, as token
/// streams cannot move between threads.
pub fn files(
    models: &[ToolkitModel],
    options: &RustOptions,
    conventions: &LibraryConventions,
    dependencies: &[Dependency],
) -> Result<Vec<OutputFile>, RustEmitError> {
    let apis: Vec<&Api> = models.iter().map(|m| m.api).collect();
    let (toolkits, order) = Toolkits::new(&apis)?;
    if let Some(model) = models.iter().find(|m| m.dependencies.len() != dependencies.len()) {
        return Err(RustEmitError::InvalidOption {
            option: "dependencies",
            reason: format!(
                "the model of {} comes with {} dependency models for {} dependencies",
                model.api.provenance.header,
                model.dependencies.len(),
                dependencies.len()
            ),
        });
    }
    let planned: Vec<Result<Plan, RustEmitError>> = order
        .par_iter()
        .map(|&i| {
            let model = &models[i];
            let bound: Vec<(Dependency, &Api)> =
                dependencies.iter().copied().zip(model.dependencies.iter().copied()).collect();
            Plan::new(model.api, options, conventions, &bound)
        })
        .collect();
    let mut plans = in_order(planned)?;
    let merged = Merged::new(&plans, &toolkits)?;
    let unparsed = ParsedDocs::unparsed(&conventions.doc_aliases);
    let parsed: Vec<&ParsedDocs> = order.iter().map(|&i| models[i].parsed.unwrap_or(&unparsed)).collect();
    crate::docs::render(&mut plans, &merged, &parsed);
    let c = Crate { toolkits, plans, merged };

    let pieces = pieces(&c);
    let header = c.header_line("//");
    let printed: Vec<Printed> = pieces.par_iter().map(|&piece| print_piece(&c, piece)).collect();
    let mut printed = printed.into_iter();
    let take = |pieces: &mut dyn Iterator<Item = Printed>, n: usize| -> Result<Vec<String>, RustEmitError> {
        let batch: Vec<Printed> = pieces.take(n).collect();
        if let Some(Err(error)) = batch.iter().find(|p| p.is_err()) {
            return Err(error.clone());
        }
        batch.into_iter().map(|p| p.expect("build errors returned above")).collect()
    };
    let cargo = take(&mut printed, 1)?.concat();
    let root = take(&mut printed, 1)?.concat();
    let lib_pieces = pieces
        .iter()
        .filter(|p| !matches!(p, Piece::CargoToml | Piece::Root | Piece::LayoutTest | Piece::Example))
        .count();
    let lib_texts = take(&mut printed, lib_pieces)?;
    let mut lib = String::with_capacity(
        header.len() + root.len() + lib_texts.iter().map(|t| t.len() + t.len() / 16).sum::<usize>(),
    );
    lib.push_str(&header);
    let mut previous_ended_item = false;
    separate_items_into(&mut lib, &mut previous_ended_item, &root);
    let mut files = Vec::new();
    if c.toolkits.exactly_one().is_some() {
        files.push(OutputFile::text("src/lib.rs", std::mem::take(&mut lib)));
        lib.push_str(&header);
        previous_ended_item = false;
    }
    for text in lib_texts {
        // Piece by piece into one buffer: the pieces never exist twice over.
        separate_items_into(&mut lib, &mut previous_ended_item, &text);
    }
    let lib_path = if files.is_empty() { "src/lib.rs" } else { BINDINGS };
    files.push(OutputFile::text(lib_path, lib));
    let layout_test = take(&mut printed, 1)?.concat();
    let example = take(&mut printed, 1)?.concat();
    files.extend([
        OutputFile::text("Cargo.toml", cargo),
        OutputFile::text("README.md", print_package::readme(&c)),
        OutputFile::text("tests/layout.rs", layout_test),
        OutputFile::text(EXAMPLE, example),
    ]);
    files.sort();
    Ok(files)
}

fn print_piece(c: &Crate, piece: Piece) -> Printed {
    let docs = DocBlocks::default();
    let all = c.all();
    let m = &c.merged;
    let items = match piece {
        Piece::CargoToml => return Ok(Ok(print_package::cargo_toml(c))),
        Piece::LayoutTest => return Ok(format_rust(c, print_tests::layout_test(c), "tests/layout.rs")),
        Piece::Example => return Ok(format_rust(c, print_tests::library_info_example(c), EXAMPLE)),
        Piece::Root => root(c, &docs),
        Piece::Prelude => prelude(c, &docs)?,
        Piece::Entries => print_functions::entries(c).into_iter().map(|item| Built::Syntax(Box::new(item))).collect(),
        Piece::Typedefs(start, end) => {
            let mut items = Vec::new();
            for form in m.typedefs[start..end].iter().flat_map(|item| &item.forms) {
                let plan = &c.plans[form.toolkit];
                let cfg = c.toolkits.cfg(form.set, all);
                items.push(Built::Tokens(print_items::typedef(plan, &plan.typedefs[form.index], &docs)?).under(&cfg));
            }
            items
        }
        Piece::Enums(start, end) => {
            let mut items = Vec::new();
            let stamps = Stamps::default();
            for form in m.enums[start..end].iter().flatten() {
                let plan = &c.plans[form.form.toolkit];
                let cfg = c.toolkits.cfg(form.form.set, all);
                let within = form.form.set;
                let enum_of = |part: &crate::merge::Part| &c.plans[part.toolkit].enums[part.item];
                let parts = EnumParts {
                    comment: c
                        .comment(within, form.comments.iter().map(|g| (g.set, &c.plans[g.toolkit].enums[g.index].doc))),
                    constants: (form.constants.iter().zip(&form.constant_comments))
                        .map(|(p, groups)| {
                            let comment =
                                c.comment(p.set, groups.iter().map(|g| (g.set, &enum_of(g).constants[g.index].doc)));
                            (&enum_of(p).constants[p.index], c.toolkits.cfg_attribute(p.set, within), comment)
                        })
                        .collect(),
                    names: (form.names.iter())
                        .map(|p| {
                            let (value, name) = &enum_of(p).names[p.index];
                            (*value, name.as_str(), c.toolkits.cfg_attribute(p.set, within))
                        })
                        .collect(),
                    debug: form.debug.iter().map(|p| (enum_of(p), c.toolkits.cfg(p.set, within))).collect(),
                };
                let printed = print_items::enumeration(plan, &plan.enums[form.form.index], parts, &docs, &stamps)?;
                items.extend(printed.into_iter().map(|item| item.under(&cfg)));
            }
            items
        }
        Piece::Records(start, end) => {
            let mut items = Vec::new();
            let stamps = Stamps::default();
            for form in m.records[start..end].iter().flat_map(|item| &item.forms) {
                let plan = &c.plans[form.toolkit];
                let r = &plan.records[form.index];
                let cfg = c.toolkits.cfg(form.set, all);
                items.extend(print_items::record(plan, r, &docs, &stamps)?.into_iter().map(|item| item.under(&cfg)));
                // Each complete record's size, alignment and offsets, checked at compile time.
                if matches!(r.shape, RecordShape::Complete { .. }) {
                    items.push(Built::Tokens(print_items::layout_assertions(r)).under(&cfg));
                }
            }
            items
        }
        Piece::Constants(start, end) => forms_with_comments(
            c,
            &m.constants[start..end],
            |plan, index| &plan.constants[index].doc,
            |plan, index, comment| {
                Ok(Built::Tokens(print_items::constant(plan, &plan.constants[index], comment, &docs)?))
            },
        )?,
        Piece::Functions(start, end) => forms_with_comments(
            c,
            &m.functions[start..end],
            |plan, index| &plan.functions[index].doc,
            |plan, index, comment| {
                let function = print_functions::function(plan, &plan.functions[index], comment, &docs)?;
                Ok(Built::Syntax(Box::new(function)))
            },
        )?,
    };
    Ok(unparse_items(items, "src/lib.rs").map(|text| docs.insert(text)))
}

/// Each form of `items`, printed by `print` from the plan and index of its newest toolkit with its
/// comment (`doc`: a toolkit's raw or rendered comment of the item at an index), under its `cfg`.
fn forms_with_comments<'c, 'a>(
    c: &'c Crate<'a>,
    items: &[Item],
    doc: impl Fn(&'c Plan<'a>, usize) -> &'c Option<String>,
    print: impl Fn(&'c Plan<'a>, usize, &Comment<'c>) -> Result<Built, RustEmitError>,
) -> Result<Vec<Built>, RustEmitError> {
    let mut built = Vec::new();
    for item in items {
        for form in &item.forms {
            let comment =
                c.comment(form.set, item.comments_of(form).map(|g| (g.set, doc(&c.plans[g.toolkit], g.index))));
            let cfg = c.toolkits.cfg(form.set, c.all());
            built.push(print(&c.plans[form.toolkit], form.index, &comment)?.under(&cfg));
        }
    }
    Ok(built)
}

/// Where the bindings go when the crate has several toolkits: a file of their own, included by
/// `src/lib.rs` only when exactly one feature is on. With none or two on, nothing of them is
/// compiled, so the guard's error is the only one (two forms of an item would clash otherwise).
const BINDINGS: &str = "src/bindings.rs";

/// The crate docs and lints, the guard on the features and, for several toolkits, the
/// `include!` of the bindings: the start of `src/lib.rs`.
fn root(c: &Crate, docs: &DocBlocks) -> Vec<Built> {
    let mut items = vec![Built::Tokens(print_package::crate_doc(c, docs))];
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
    let guard = c.toolkits.guard(&c.newest().crate_name);
    if !guard.is_empty() {
        items.push(Built::Tokens(guard));
    }
    if let Some(one) = c.toolkits.exactly_one() {
        let file = BINDINGS.trim_start_matches("src/");
        items.push(Built::Tokens(quote! {
            #[cfg(#one)]
            include!(#file);
        }));
    }
    items
}

/// The re-exports of the dependencies and the runtime module: the start of the bindings.
fn prelude(c: &Crate, docs: &DocBlocks) -> Result<Vec<Built>, RustEmitError> {
    let mut items = Vec::new();
    for (index, dependency) in c.newest().dependencies.iter().enumerate() {
        let krate = &dependency.crate_ident;
        let doc = format!(" Declared by `{}` exactly as here: one Rust type for one C type.", dependency.crate_name);
        for (set, names) in &c.merged.reexports[index] {
            let cfg = c.toolkits.cfg(*set, c.all());
            items.push(Built::Tokens(quote! {
                #cfg
                #[doc = #doc]
                pub use #krate::{#(#names),*};
            }));
        }
    }
    items.push(Built::Tokens(print_runtime::runtime(c, docs)?));
    Ok(items)
}

fn format_rust(c: &Crate, tokens: TokenStream, path: &str) -> Result<String, RustEmitError> {
    let mut text = c.header_line("//");
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
/// from one part to the next. A `#[cfg(...)]` the printer spread over lines is put back on one,
/// so that the toolkits of an item read as one line above it.
fn separate_items_into(out: &mut String, previous_ended_item: &mut bool, text: &str) {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let joined;
        let line = if line.trim_start() == "#[cfg(" {
            joined = one_line(line, &mut lines);
            joined.as_str()
        } else {
            line
        };
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

/// Attributes longer than this stay as printed, a line per part: one line would not be read.
const ONE_LINE_LIMIT: usize = 400;

/// An attribute the printer broke after its opening `first` line, back on one line: its lines
/// up to the `)]` at the same indentation, trimmed, a space after each comma.
fn one_line<'t>(first: &str, lines: &mut impl Iterator<Item = &'t str>) -> String {
    let indent = &first[..first.len() - first.trim_start().len()];
    let mut joined = first.trim_end().to_string();
    let mut printed = joined.clone();
    for line in lines {
        let trimmed = line.trim();
        printed.push('\n');
        printed.push_str(line);
        if trimmed == ")]" && line.starts_with(indent) && line[indent.len()..].starts_with(')') {
            joined.push_str(")]");
            return if joined.len() > ONE_LINE_LIMIT { printed } else { joined };
        }
        if joined.ends_with(',') {
            joined.push(' ');
        }
        joined.push_str(trimmed);
    }
    joined
}
