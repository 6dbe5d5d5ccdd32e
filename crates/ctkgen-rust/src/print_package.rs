//! What the package says of itself: `Cargo.toml` (features, metadata), `README.md` and the crate
//! docs. A crate of several toolkits names them all, and how to choose one.

use proc_macro2::TokenStream;

use crate::doc_blocks::DocBlocks;
use crate::print_crate::{Crate, EXAMPLE};

/// Pinned so every generated package resolves the same loader.
const LIBLOADING_VERSION: &str = "=0.8.9";
/// Oldest Rust with everything the generated code uses (`ptr::without_provenance` in consts).
const RUST_VERSION: &str = "1.84";

/// The header, the toolkit release and its version macro's value, and the target; for several
/// toolkits the header, the first and last releases, and the target.
fn provenance_line(c: &Crate) -> String {
    let plan = c.newest();
    let p = &plan.api.provenance;
    let mut line = format!("`{}`", p.header);
    match c.toolkits.list.as_slice() {
        [_] => {
            if let Some(ctk) = &p.ctk {
                line.push_str(&format!(" of CTK {ctk}"));
            }
            if let (Some(version), Some(name)) = (p.cuda_version, &plan.conventions.version_macro) {
                line.push_str(&format!(" (`{name}` {version})"));
            }
        }
        [first, .., last] => line.push_str(&format!(" of CTK {} to {}", first.release, last.release)),
        [] => {}
    }
    line.push_str(&format!(" for `{}`", p.target));
    line
}

/// The library's file, or its files with the features that open each.
fn library_clause(c: &Crate) -> String {
    let files = c.grouped(|plan| plan.library.clone());
    if let [(_, file)] = files.as_slice() {
        return format!("`{file}`");
    }
    let each: Vec<String> =
        files.iter().map(|(set, file)| format!("`{file}` (features {})", c.describe(*set))).collect();
    each.join(" or ")
}

/// Where the library is looked for before the system loader's path, as a parenthesis to follow
/// "opened on the first call"; nothing for a library found through the system loader alone.
fn search_clause(c: &Crate) -> String {
    let Some(search) = &c.newest().search else { return String::new() };
    let dirs: Vec<String> = search.dirs.iter().map(|dir| format!("`${}/{dir}`", search.env_var)).collect();
    format!(" (first in {}, when `{}` is set)", dirs.join(", "), search.env_var)
}

/// The sentence naming the crates this one is built on, if any: the C types their headers
/// share are one Rust type, theirs.
fn shared_clause(c: &Crate) -> String {
    let dependencies = &c.newest().dependencies;
    if dependencies.is_empty() {
        return String::new();
    }
    let crates: Vec<String> = dependencies.iter().map(|d| format!("`{}`", d.crate_name)).collect();
    let features = if c.toolkits.features().is_empty() { "" } else { ", and each feature turns on its namesake there" };
    format!(
        " It is built on {}: the types both headers declare are that crate's own, re-exported, so values pass \
         between the two without conversion{features}.",
        crates.join(" and ")
    )
}

/// How a user's `Cargo.toml` names the crate, choosing the newest toolkit where there are
/// features; `source` is the crate's place (`version = "..."` or `path = "..."`).
fn dependency_line(c: &Crate, source: &str) -> String {
    let name = &c.newest().crate_name;
    match c.toolkits.list.last().and_then(|t| t.feature.as_deref()) {
        Some(feature) => format!("{name} = {{ {source}, features = [\"{feature}\"] }}"),
        None => format!("{name} = {{ {source} }}"),
    }
}

/// A Markdown table of the features and the releases they bind (nothing without features).
fn feature_table(c: &Crate) -> String {
    if c.toolkits.features().is_empty() {
        return String::new();
    }
    let mut table = String::from("| feature | CUDA Toolkit |\n| --- | --- |\n");
    for toolkit in &c.toolkits.list {
        table.push_str(&format!("| `{}` | {} |\n", toolkit.feature.as_deref().unwrap_or_default(), toolkit.release));
    }
    table
}

/// What choosing a feature means, for the README and the crate docs.
fn features_paragraph(c: &Crate) -> String {
    match c.toolkits.features().as_slice() {
        [] => String::new(),
        [one] => format!(
            "The feature `{one}` (on by default) names the toolkit; the crate has no other, and refuses to \
             build without it.\n\n"
        ),
        _ => "Each feature binds one toolkit release's declarations: turn exactly one on (the crate refuses \
              to build with none or with two, and says which exist). The declarations are in \
              `src/bindings.rs`, which `src/lib.rs` includes only when exactly one feature is on; an item that \
              differs between releases is written there once per form, under the `cfg` of the features that \
              have that form. Every item shows its release's own comment: where releases declare an item \
              alike but comment it differently, each comment is a `cfg_attr` of the features that have \
              it.\n\n"
            .to_string(),
    }
}

pub fn cargo_toml(c: &Crate) -> String {
    let plan = c.newest();
    let description = format!(
        "Raw bindings to the {} API from {}, loaded at run time",
        plan.conventions.library_description,
        provenance_line(c).replace('`', "")
    );
    let features = c.toolkits.features();
    let mut metadata = String::new();
    let mut feature_section = String::new();
    if let Some(newest) = features.last() {
        metadata.push_str("\n[package.metadata.ctkgen.toolkits]\n# The CUDA Toolkit release each feature binds.\n");
        for toolkit in &c.toolkits.list {
            let feature = toolkit.feature.as_deref().unwrap_or_default();
            metadata.push_str(&format!("{feature} = {}\n", toml_string(&toolkit.release)));
        }
        metadata.push_str(&format!("\n[package.metadata.docs.rs]\nfeatures = [\"{newest}\"]\n"));
        feature_section.push_str("\n[features]\n# One per CUDA Toolkit release: exactly one must be on.\n");
        for feature in &features {
            let forwarded: Vec<String> =
                plan.dependencies.iter().map(|d| format!("\"{}/{feature}\"", d.crate_name)).collect();
            feature_section.push_str(&format!("{feature} = [{}]\n", forwarded.join(", ")));
        }
        if features.len() == 1 {
            feature_section.push_str(&format!("default = [\"{newest}\"]\n"));
        }
    }
    format!(
        "{header}[package]\nname = {name}\nversion = {version}\nedition = \"2021\"\nrust-version = \"{RUST_VERSION}\"\ndescription = {description}\nlicense = {license}\n{repository}readme = \"README.md\"\nkeywords = [\"cuda\", \"gpu\", \"ffi\", \"bindings\"]\ncategories = [\"external-ffi-bindings\"]\n# What the package needs, not the generator's bookkeeping.\ninclude = [\"/Cargo.toml\", \"/README.md\", \"/src\", \"/tests\", \"/examples\"]\n{metadata}{feature_section}\n[lib]\n# Doc comments are prose from the header, not Rust examples.\ndoctest = false\n\n[[example]]\n# Named after the package: crates built in one target folder keep their examples apart.\nname = \"{example}\"\npath = \"{EXAMPLE}\"\n\n[dependencies]\nlibloading = \"{LIBLOADING_VERSION}\"\n{dependencies}",
        header = c.header_line("#"),
        name = toml_string(&plan.crate_name),
        example = example_name(c),
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
                // Build metadata takes no part in matching; Cargo warns if given.
                toml_string(&format!("={}", d.version.split('+').next().unwrap_or_default()))
            ))
            .collect::<String>(),
    )
}

/// The example's target name: the package's, so that the examples of the crates of one
/// workspace do not land on one file.
pub fn example_name(c: &Crate) -> String {
    format!("{}_info", c.newest().crate_ident)
}

/// The package's README: what it is, how to depend on it, and where its parts come from.
pub fn readme(c: &Crate) -> String {
    let plan = c.newest();
    let conventions = plan.conventions;
    let name = &plan.crate_name;
    let version = plan.options.crate_version.split('+').next().unwrap_or_default();
    format!(
        "<!-- @generated by `{command}`; do not edit -->\n# {name}\n\n\
         Raw Rust bindings to the {description} API, generated by ctkgen from {provenance}.\n\n\
         ```toml\n[dependencies]\n{registry}\n# or, from a copy of this folder:\n{path}\n```\n\n\
         {features}{table}{table_gap}\
         Nothing links against {library}: it is opened on the first call{search}, and each function is \
         resolved on its own first call, so an installed {description} that lacks a newer function fails \
         only when that function is called. Records have the header's exact size, alignment and field \
         offsets, checked at compile time (`tests/layout.rs` checks them at run time too); `cargo run \
         --example {example}` (`{EXAMPLE}`) prints what the bindings find on the machine at hand.{shared}\n\n\
         The declarations and their documentation come from `{header}`, under the licence of the \
         toolkit that ships it; the generated code is under {license}.\n",
        command = plan.options.command,
        description = conventions.library_description,
        provenance = provenance_line(c),
        registry = dependency_line(c, &format!("version = \"{version}\"")),
        path = dependency_line(c, "path = \"<this folder>\""),
        features = features_paragraph(c),
        table = feature_table(c),
        table_gap = if c.toolkits.features().is_empty() { "" } else { "\n" },
        library = library_clause(c),
        search = search_clause(c),
        header = plan.api.provenance.header,
        license = plan.options.license,
        shared = shared_clause(c),
        example = example_name(c),
    )
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

/// `Cargo.toml` of a workspace of the crates in `members` (their folders), so that they build,
/// test and package together (`cargo package --workspace`).
pub fn workspace_manifest(members: &[&str], command: &str) -> String {
    let members: Vec<String> = members.iter().map(|m| toml_string(m)).collect();
    format!(
        "# @generated by `{command}`; do not edit\n# The crates, one per library; each has a feature per toolkit.\n[workspace]\nresolver = \"2\"\nmembers = [{}]\n",
        members.join(", ")
    )
}

/// The crate's `//!` docs.
pub fn crate_doc(c: &Crate, docs: &DocBlocks) -> TokenStream {
    let plan = c.newest();
    let conventions = plan.conventions;
    let description = &conventions.library_description;
    let mut text = format!("Raw bindings to the {description} API, generated from {}.\n\n", provenance_line(c));
    text.push_str(&features_paragraph(c));
    let table = feature_table(c);
    if !table.is_empty() {
        text.push_str(&table);
        text.push('\n');
    }
    text.push_str(&format!(
        "Nothing is linked at build time. {} is opened on the first call of any function{}, and each \
         function is resolved on its own first call, so an installed {description} that lacks a newer \
         function only fails when that function is called; there is no minimum {description} version.\n\n",
        library_clause(c),
        search_clause(c),
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
            "A function the installed {description} lacks returns `{}`; when the library itself cannot be \
             loaded every function returns `{}`, and [`library_status`] says why.\n\n",
            status.missing_function, status.missing_library
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
    doc.into_iter()
        .flat_map(|token| match token {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '#' => {
                vec![
                    proc_macro2::TokenTree::Punct(p),
                    proc_macro2::TokenTree::Punct(proc_macro2::Punct::new('!', proc_macro2::Spacing::Alone)),
                ]
            }
            other => vec![other],
        })
        .collect()
}
