//! Prints every doc comment of an IR file, rendered, as a JSON array of `{"item", "text"}`:
//!
//!     cargo run -p ctkgen-ir --example render_docs -- IR.json rst|markdown|raw [PACKAGE]
//!
//! `rst` renders the way the Python package's docstrings do (references to `PACKAGE.name`,
//! default `cuda.bindings.driver`), `markdown` the way the Rust crate does, `raw` prints the
//! Doxygen text unchanged (a negative control for checkers). Comments are parsed with the doc
//! aliases of the library under `headers/libraries/` whose main header the model was read from.
//! The render time goes to stderr.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ctkgen_ir::doc::{doc_comments, referable_names, split_member, Doc, DocAliases};
use ctkgen_ir::{Api, LibraryConventions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, format, rest @ ..] = args.as_slice() else {
        eprintln!("usage: render_docs IR.json rst|markdown|raw [PACKAGE]");
        std::process::exit(2);
    };
    let package = rest.first().map_or("cuda.bindings.driver", String::as_str);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let api = Api::from_json(&text).unwrap_or_else(|e| panic!("{path} is not an IR file: {e}"));
    // Looked up for every reference, as the emitters' hash maps are.
    let names: HashSet<String> = referable_names(&api).into_iter().collect();
    let docs = doc_comments(&api);
    let aliases = doc_aliases(&api);
    let start = Instant::now();
    let rendered: Vec<serde_json::Value> = docs
        .iter()
        .map(|(item, doc)| {
            let text = match format.as_str() {
                "rst" => Doc::parse(doc, &aliases)
                    .to_rst(&|name| python_target(&names, package, name), &|name| name.to_string()),
                "markdown" => {
                    Doc::parse(doc, &aliases).to_markdown(&|name| names.contains(name).then(|| name.to_string()))
                }
                "raw" => doc.to_string(),
                other => panic!("unknown format {other}"),
            };
            serde_json::json!({ "item": item, "text": text })
        })
        .collect();
    eprintln!("rendered {} doc comments as {format} in {:.2} ms", docs.len(), start.elapsed().as_secs_f64() * 1e3);
    println!("{}", serde_json::Value::Array(rendered));
}

/// `pkg.name`, or `pkg.Record.member` for `Record::member`, when the head is a known item.
fn python_target(names: &HashSet<String>, package: &str, name: &str) -> Option<String> {
    match split_member(name) {
        None => names.contains(name).then(|| [package, ".", name].concat()),
        Some((head, _)) => names.contains(head).then(|| [package, ".", &name.replace("::", ".")].concat()),
    }
}

/// The doc aliases of the described library whose main header `api` was read from (none when no
/// description names it).
fn doc_aliases(api: &Api) -> DocAliases {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries");
    let mut descriptions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".toml") && n.matches('.').count() == 1)
        })
        .collect();
    descriptions.sort();
    descriptions
        .iter()
        .map(|p| toml::from_str::<LibraryConventions>(&std::fs::read_to_string(p).unwrap()).unwrap())
        .find(|c| c.header == api.provenance.header)
        .map(|c| c.doc_aliases)
        .unwrap_or_default()
}
