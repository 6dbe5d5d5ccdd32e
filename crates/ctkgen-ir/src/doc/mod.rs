//! The Doxygen comments kept in the model: one parser, and the views built on its tree.
//!
//! [`Doc::parse`] reads a comment once into a small tree of blocks (paragraphs, nested lists,
//! code, tables, notes) and inline pieces (text, code, cross references), with its parameter
//! entries and the direction each states (`\param[out]`). Three readers use that tree:
//! reStructuredText for Python docstrings ([`Doc::to_rst`], `rst.rs`), Markdown for rustdoc
//! ([`Doc::to_markdown`], `markdown.rs`), and the Cython emitter's parameter classification,
//! which reads plain text ([`Param::text`], [`Doc::prose`]). Cross references (`::name()`,
//! `\ref X`) go through a resolver the caller passes, so each language links only to items it
//! really has. No Doxygen command survives rendering: known ones become markup, a library's doc
//! aliases (its description's `doc_aliases`) become notes, unknown ones are dropped.

mod inline;
mod markdown;
mod parse;
mod rst;

use std::borrow::Cow;
use std::collections::BTreeMap;

/// A library's doc alias commands (`\name` in its comments) and the sentence each stands for.
pub type DocAliases = BTreeMap<String, String>;

/// A parsed doc comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    /// The `\brief` sentence (or nothing when the comment has none).
    pub summary: Vec<Inline>,
    /// Everything else that is not a parameter, return value or reference list, in order.
    pub body: Vec<Block>,
    /// `\param` entries in order.
    pub params: Vec<Param>,
    pub returns: Vec<Block>,
    /// The `\sa` entries.
    pub see_also: Vec<Inline>,
}

/// One `\param` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The C name (`\param *graphId` names `graphId`).
    pub name: String,
    /// What `\param[...]` states, if anything.
    pub direction: Option<Direction>,
    pub blocks: Vec<Block>,
}

/// The direction a `\param[in]`, `\param[out]` or `\param[in,out]` command states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    List {
        ordered: bool,
        items: Vec<Vec<Block>>,
    },
    /// C source, indentation kept (common indentation removed).
    Code(String),
    Admonition(AdmonitionKind, Vec<Block>),
    /// Rows of cells; the first row is a header row when `header` is set.
    Table {
        header: bool,
        rows: Vec<Vec<Vec<Inline>>>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmonitionKind {
    Note,
    Warning,
    Deprecated,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// Plain text; may hold `\n` where the source broke the line.
    Text(String),
    Code(String),
    Emphasis(String),
    Strong(String),
    /// A reference to a declaration (`::name`, `::name()`, `::Record::member`).
    Ref {
        name: String,
        call: bool,
    },
    Url(String),
    LineBreak,
}

impl Param {
    /// The entry as one line of plain text, for matching its wording ([`plain_text`]).
    pub fn text(&self) -> String {
        plain_text(&self.blocks)
    }
}

impl Doc {
    /// The summary and the body's prose (notes left out) as one line of plain text.
    pub fn prose(&self) -> String {
        let mut out = String::new();
        plain_inlines(&self.summary, &mut out);
        for block in self.body.iter().filter(|b| !matches!(b, Block::Admonition(..))) {
            plain_block(block, &mut out);
        }
        out.truncate(out.trim_end().len());
        out
    }
}

/// Blocks as one line of plain text: their words in order, separated by spaces, code spans in
/// backquotes (so a sentence can tell `\p name` from prose), references by name.
pub fn plain_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        plain_block(block, &mut out);
    }
    out.truncate(out.trim_end().len());
    out
}

/// Appends a block's words, one space apart from what `out` holds.
fn plain_block(block: &Block, out: &mut String) {
    match block {
        Block::Paragraph(inlines) => plain_inlines(inlines, out),
        Block::List { items, .. } => items.iter().flatten().for_each(|block| plain_block(block, out)),
        Block::Code(code) => {
            for line in code.lines() {
                word_gap(out);
                out.push_str(line.trim());
            }
        }
        Block::Admonition(_, blocks) => blocks.iter().for_each(|block| plain_block(block, out)),
        Block::Table { rows, .. } => rows.iter().flatten().for_each(|cell| plain_inlines(cell, out)),
    }
}

/// A space before the next words, unless `out` is empty or already ends with one.
fn word_gap(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

fn plain_inlines(inlines: &[Inline], out: &mut String) {
    word_gap(out);
    for inline in inlines {
        match inline {
            Inline::Text(text) => {
                for (n, line) in text.split('\n').enumerate() {
                    if n > 0 {
                        out.push(' ');
                    }
                    out.push_str(line);
                }
            }
            Inline::Code(code) => {
                out.push('`');
                out.push_str(code);
                out.push('`');
            }
            Inline::Emphasis(text) | Inline::Strong(text) | Inline::Url(text) => out.push_str(text),
            Inline::Ref { name, call } => {
                out.push_str(name);
                if *call {
                    out.push_str("()");
                }
            }
            Inline::LineBreak => out.push(' '),
        }
    }
}

/// A member reference (`Record::member`) split at its first `::`; `None` for a plain name.
/// Resolvers call this for every reference, so it searches for `:` bytes rather than building a
/// substring searcher.
pub fn split_member(name: &str) -> Option<(&str, &str)> {
    let bytes = name.as_bytes();
    let mut from = 0;
    while let Some(pos) = memchr::memchr(b':', &bytes[from..]) {
        let at = from + pos;
        if bytes.get(at + 1) == Some(&b':') {
            return Some((&name[..at], &name[at + 2..]));
        }
        from = at + 1;
    }
    None
}

/// One library's doc comments parsed once, for the readers that all need them (classification
/// and both renderers): looked up by the comment's text, parsed on the spot with the same
/// aliases when absent.
#[derive(Debug)]
pub struct ParsedDocs<'a> {
    aliases: &'a DocAliases,
    docs: rustc_hash::FxHashMap<&'a str, Doc>,
}

impl<'a> ParsedDocs<'a> {
    /// The given comments and their parses with `aliases` (a comment given twice is kept once).
    pub fn new(aliases: &'a DocAliases, parsed: impl IntoIterator<Item = (&'a str, Doc)>) -> ParsedDocs<'a> {
        ParsedDocs { aliases, docs: parsed.into_iter().collect() }
    }

    /// No comment parsed ahead: each is parsed when asked for, with `aliases`.
    pub fn unparsed(aliases: &'a DocAliases) -> ParsedDocs<'a> {
        ParsedDocs::new(aliases, [])
    }

    /// The aliases comments are parsed with.
    pub fn aliases(&self) -> &'a DocAliases {
        self.aliases
    }

    /// The parse of `raw`: the stored one, or a fresh one for a comment not given.
    pub fn get(&self, raw: &str) -> Cow<'_, Doc> {
        match self.docs.get(raw) {
            Some(doc) => Cow::Borrowed(doc),
            None => Cow::Owned(Doc::parse(raw, self.aliases)),
        }
    }
}

/// Every doc comment of a model with a label naming its declaration (the function, `Record.field`,
/// the enum constant), in model order.
pub fn doc_comments<'a>(api: &'a crate::Api) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    let mut push = |label: String, doc: &'a Option<String>| {
        if let Some(doc) = doc {
            out.push((label, doc.as_str()));
        }
    };
    for f in &api.functions {
        push(f.name.clone(), &f.doc);
    }
    for r in &api.records {
        push(r.name.clone(), &r.doc);
        for field in &r.fields {
            push(format!("{}.{}", r.name, field.name), &field.doc);
        }
    }
    for e in &api.enums {
        push(e.name.clone(), &e.doc);
        for c in &e.constants {
            push(c.name.clone(), &c.doc);
        }
    }
    for t in &api.typedefs {
        push(t.name.clone(), &t.doc);
    }
    for c in &api.constants {
        push(c.name.clone(), &c.doc);
    }
    out
}

/// Every declaration name a doc comment of the model may refer to: functions, typedefs,
/// constants, enums (tags and typedef names) and their constants, records (names and typedef
/// names). A resolver starts from this set and keeps what its language exposes.
pub fn referable_names(api: &crate::Api) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    names.extend(api.functions.iter().map(|f| f.name.clone()));
    names.extend(api.typedefs.iter().map(|t| t.name.clone()));
    names.extend(api.constants.iter().map(|c| c.name.clone()));
    for e in &api.enums {
        names.insert(e.name.clone());
        names.extend(e.typedef_names.iter().cloned());
        names.extend(e.constants.iter().map(|c| c.name.clone()));
    }
    for r in &api.records {
        names.insert(r.name.clone());
        names.extend(r.typedef_name.iter().cloned());
    }
    names
}

// ---------------------------------------------------------------------------------------------
// Shared by the parser and both renderers.

/// The rendered text trimmed at the end, with one final newline (nothing when empty).
fn finish(mut out: String) -> String {
    let end = out.trim_end().len();
    out.truncate(end);
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Ends the output with exactly one blank line (nothing at the start).
fn separate(out: &mut String) {
    if out.is_empty() {
        return;
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
}

/// `indent` followed by `extra` spaces, in `buffer`.
fn push_indent(buffer: &mut String, indent: &str, extra: usize) {
    buffer.clear();
    buffer.push_str(indent);
    buffer.extend(std::iter::repeat_n(' ', extra));
}

/// The `\sa` list as references separated by `comma`, when it is only references.
fn see_also_list<'i>(inlines: &'i [Inline], comma: &'i Inline) -> Vec<&'i Inline> {
    let only_refs = inlines.iter().all(|inline| match inline {
        Inline::Ref { .. } => true,
        Inline::Text(text) => text.chars().all(|c| c == ',' || c.is_whitespace()),
        _ => false,
    });
    if !only_refs {
        return inlines.iter().collect();
    }
    let mut out = Vec::new();
    for inline in inlines.iter().filter(|i| matches!(i, Inline::Ref { .. })) {
        if !out.is_empty() {
            out.push(comma);
        }
        out.push(inline);
    }
    out
}

/// The lines of `text` as `str::lines` gives them, found with a vectorised search (comments
/// have many short lines).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let line = match ends.next() {
            Some(end) => {
                let line = &text[start..end];
                start = end + 1;
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => {
                let line = &text[start..];
                start = text.len();
                line
            }
        };
        Some(line)
    })
}

/// A table of the given bytes, for scans that test every byte.
const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

/// Copies `text` to `out`, a backslash before each byte of `special` that `escape(i, byte)`
/// says would be read as markup there.
fn escape_bytes(text: &str, out: &mut String, special: &[bool; 256], escape: impl Fn(usize, u8) -> bool) {
    let mut copied = 0;
    for (i, byte) in text.bytes().enumerate() {
        // All special bytes are ASCII, so `i` is a character boundary.
        if special[usize::from(byte)] && escape(i, byte) {
            out.push_str(&text[copied..i]);
            out.push('\\');
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
}

/// A line of one repeated punctuation character (a section adornment in RST, a heading
/// underline or rule in Markdown).
fn is_adornment(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else { return false };
    first.is_ascii_punctuation() && first != '\\' && line.len() >= 2 && chars.all(|c| c == first)
}

/// Test helpers: a resolver over a few made-up names, and aliases standing for sentences.
#[cfg(test)]
pub(crate) mod testing {
    use super::DocAliases;

    /// The made-up names the test resolvers know, as `pkg.name` (members dotted).
    pub fn known(name: &str) -> Option<String> {
        ["fooInit", "FooResult", "fooCtxCreate", "FOO_OK", "FOO_ERROR_VALUE", "FooCopy::srcHost"]
            .contains(&name)
            .then(|| format!("pkg.{name}").replace("::", "."))
    }

    /// The resolver of a Rust crate: the name itself.
    pub fn known_rust(name: &str) -> Option<String> {
        known(name).map(|_| name.to_string())
    }

    /// Two aliases, as a library description gives them.
    pub fn aliases() -> DocAliases {
        [("note_errors", "This call may also return earlier errors."), ("note_queued", "This call is queued.")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Doc {
        Doc::parse(text, &DocAliases::new())
    }

    #[test]
    fn plain_text_keeps_the_words_and_marks_code() {
        let doc = parse(
            "\\brief Creates a pool\n\nReturns the handle in \\p pool; see ::fooInit().\n\n\
             \\param[out] pool - Returned\n  pool handle\n\\param flags - Flags:\n- one\n- two\n\n\
             \\note Not prose.",
        );
        assert_eq!(doc.prose(), "Creates a pool Returns the handle in `pool`; see fooInit().");
        assert_eq!(doc.params[0].text(), "Returned pool handle");
        assert_eq!(doc.params[1].text(), "Flags: one two");
    }

    #[test]
    fn parsed_docs_parse_what_they_lack_with_their_aliases() {
        let aliases = testing::aliases();
        let raw = "Text.\n\\note_queued";
        let parsed = ParsedDocs::unparsed(&aliases);
        assert_eq!(parsed.get(raw).into_owned(), Doc::parse(raw, &aliases));
        assert!(matches!(parsed.get(raw).body.last(), Some(Block::Admonition(AdmonitionKind::Note, _))));
        let given = ParsedDocs::new(&aliases, [(raw, Doc::default())]);
        assert_eq!(given.get(raw).into_owned(), Doc::default());
    }

    #[test]
    fn members_split_at_the_first_double_colon() {
        assert_eq!(split_member("Rec::a::b"), Some(("Rec", "a::b")));
        assert_eq!(split_member("a:b"), None);
    }
}
