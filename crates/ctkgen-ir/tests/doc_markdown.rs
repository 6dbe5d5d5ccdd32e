//! Every doc comment of the CTK models, rendered as Markdown for rustdoc, read back with a
//! CommonMark parser (the options rustdoc enables): code blocks are fenced as C, no Doxygen
//! command, raw `::name` reference or HTML tag other than `<br>` is left, URLs are links, and
//! every intra-doc link names an item the resolver knows. The models are the IR files in
//! `CTKGEN_IR_DIR` (set by `cargo xtask test`), else `target/ctkgen/ir-for-tests` when present;
//! their comments are parsed with the doc aliases of the library each describes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctkgen_ir::doc::{doc_comments, referable_names, Doc, DocAliases};
use ctkgen_ir::{Api, LibraryConventions};
use pulldown_cmark::{BrokenLink, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

fn ir_files() -> Vec<PathBuf> {
    let dir = std::env::var_os("CTKGEN_IR_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/ctkgen/ir-for-tests"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    if files.is_empty() {
        eprintln!("no IR files in {}: run `cargo xtask test` or set CTKGEN_IR_DIR", dir.display());
    }
    files
}

/// The doc aliases of the described library whose main header `api` was read from (none when
/// no description under `headers/libraries/` names it), as the pipeline parses with them.
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

fn rustdoc_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_SMART_PUNCTUATION
}

/// What rustdoc would warn on or show wrongly in one rendered comment.
fn markdown_problems(text: &str, names: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut broken = Vec::new();
    let callback = |link: BrokenLink<'_>| {
        broken.push(link.reference.to_string());
        None
    };
    let mut in_link = 0usize;
    let mut in_code_block = false;
    for event in Parser::new_with_broken_link_callback(text, rustdoc_options(), Some(callback)) {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code_block = true;
                match kind {
                    CodeBlockKind::Fenced(lang) if &*lang == "c" => {}
                    CodeBlockKind::Fenced(lang) => problems.push(format!("code block fenced as {lang:?}")),
                    CodeBlockKind::Indented => problems.push("indented code block (a Rust doctest)".into()),
                }
            }
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Start(Tag::Link { dest_url, .. }) => {
                in_link += 1;
                let dest = dest_url.to_string();
                if !(dest.starts_with("http://") || dest.starts_with("https://") || names.contains(&dest)) {
                    problems.push(format!("link to unknown item {dest}"));
                }
            }
            Event::End(TagEnd::Link) => in_link -= 1,
            Event::Html(html) | Event::InlineHtml(html) if html.trim() != "<br>" => {
                problems.push(format!("HTML {html:?}"));
            }
            Event::Text(text) if !in_code_block => {
                if let Some(pos) =
                    text.find('\\').filter(|&p| text[p + 1..].starts_with(|c: char| c.is_ascii_alphabetic()))
                {
                    problems.push(format!("Doxygen command left: {:?}", &text[pos..text.len().min(pos + 20)]));
                }
                let raw_ref = text.match_indices("::").any(|(p, _)| {
                    (p == 0 || text[..p].ends_with(char::is_whitespace))
                        && text[p + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                });
                if raw_ref {
                    problems.push(format!("raw reference left in {text:?}"));
                }
                if in_link == 0 && (text.contains("http://") || text.contains("https://")) {
                    problems.push(format!("bare URL in {text:?}"));
                }
            }
            _ => {}
        }
    }
    for reference in broken {
        match reference.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
            Some(name) if names.contains(name) => {}
            _ => problems.push(format!("broken link [{reference}]")),
        }
    }
    problems
}

fn resolver(names: &BTreeSet<String>) -> impl Fn(&str) -> Option<String> + '_ {
    |name: &str| names.contains(name).then(|| name.to_string())
}

#[test]
fn every_doc_comment_renders_to_clean_markdown() {
    for path in ir_files() {
        let api = Api::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let names = referable_names(&api);
        let resolve = resolver(&names);
        let docs = doc_comments(&api);
        let aliases = doc_aliases(&api);
        let mut failures = Vec::new();
        for (item, doc) in &docs {
            let markdown = Doc::parse(doc, &aliases).to_markdown(&resolve);
            let problems = markdown_problems(&markdown, &names);
            if !problems.is_empty() {
                failures.push(format!("{item}: {}", problems.join("; ")));
            }
        }
        eprintln!("{}: {} doc comments checked as Markdown", path.display(), docs.len());
        assert!(docs.len() > 1000, "{} has only {} doc comments", path.display(), docs.len());
        assert!(
            failures.is_empty(),
            "{} comments fail:\n{}",
            failures.len(),
            failures[..failures.len().min(20)].join("\n")
        );
    }
}

#[test]
fn raw_doxygen_fails_the_markdown_checks() {
    let names: BTreeSet<String> = ["cuInit".to_string()].into();
    let raw = "\\brief Initialize\n\nThe \\p Flags must be 0; see ::cuInit() and <b>x</b> at https://example.com.\n\n\
               \\code\nint x;\n\\endcode\n\n    indented\n\nIn [0, 1].";
    let problems = markdown_problems(raw, &names);
    for expected in ["Doxygen command", "raw reference", "HTML", "bare URL", "indented code block", "broken link"] {
        assert!(problems.iter().any(|p| p.contains(expected)), "{expected} not found in {problems:?}");
    }
    assert!(markdown_problems(&Doc::parse(raw, &DocAliases::new()).to_markdown(&resolver(&names)), &names).is_empty());
    for path in ir_files().into_iter().take(1) {
        let api = Api::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let names = referable_names(&api);
        let docs = doc_comments(&api);
        let failing = docs.iter().filter(|(_, doc)| !markdown_problems(doc, &names).is_empty()).count();
        eprintln!("{}: raw Doxygen text, {failing} of {} comments fail", path.display(), docs.len());
        assert!(failing > docs.len() / 10);
    }
}

#[test]
fn links_to_unknown_items_and_unfenced_code_are_caught() {
    let names: BTreeSet<String> = ["cuInit".to_string()].into();
    assert!(markdown_problems("[`cuInit`] and [`cuInit`](cuInit)", &names).is_empty());
    assert!(!markdown_problems("[`cuGone`]", &names).is_empty());
    assert!(!markdown_problems("[`x`](cuGone)", &names).is_empty());
    assert!(!markdown_problems("```\nint x;\n```", &names).is_empty());
    assert!(!markdown_problems("```rust\nlet x = 1;\n```", &names).is_empty());
    assert!(!markdown_problems("a <N> b", &names).is_empty());
}
