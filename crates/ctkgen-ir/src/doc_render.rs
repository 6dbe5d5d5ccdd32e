//! Renders the Doxygen comments kept in the model as reStructuredText (Python docstrings) and
//! Markdown (rustdoc).
//!
//! [`Doc::parse`] reads the comment once into a small tree of blocks (paragraphs, nested lists,
//! code, tables, notes) and inline pieces (text, code, cross references); each renderer lays
//! that tree out in its own syntax. Cross references (`::cuInit()`, `\ref X`) go through a
//! resolver the caller passes, so each language links only to items it really has. No Doxygen
//! command survives rendering: known ones become markup or short sentences, unknown ones are
//! dropped.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write;

/// A parsed doc comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    /// The `\brief` sentence (or nothing when the comment has none).
    pub summary: Vec<Inline>,
    /// Everything else that is not a parameter, return value or reference list, in order.
    pub body: Vec<Block>,
    /// `\param` entries in order, by their C name.
    pub params: Vec<(String, Vec<Block>)>,
    pub returns: Vec<Block>,
    /// The `\sa` entries.
    pub see_also: Vec<Inline>,
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

/// The sentence a documentation macro of the CUDA headers stands for, or `None` when it is
/// not one of them. Each is a short paraphrase of what the macro tells the reader.
pub fn macro_sentence(name: &str) -> Option<&'static str> {
    Some(match name {
        "notefnerr" => "This function may also return error codes from earlier asynchronous launches.",
        "note_null_stream" => "The NULL stream follows the usual default-stream rules here.",
        "note_async" => "In most cases this function runs asynchronously with respect to the host.",
        "note_sync" => "In most cases this function runs synchronously with respect to the host.",
        "note_memcpy" => {
            "A copy between host memory that is only partly registered with CUDA is not supported \
             and returns an invalid-value error."
        }
        "note_memset" => "The synchronization rules for memset operations apply.",
        "note_graph_thread_safety" => "Graph objects are not thread-safe.",
        "note_destroy_ub" => "Using the handle after this call is undefined behavior.",
        "note_version_mixing" => {
            "Mixing the driver version this code was built for with other versions of the headers \
             can hand out entry points with another signature."
        }
        "note_init_rt" => "The call may initialize the runtime.",
        "note_callback" => "This function must not be called from a stream callback or host function.",
        _ => return None,
    })
}

/// Commands that describe the declaration the comment is attached to; the line is dropped.
const STRUCTURAL: &[&str] = &[
    "struct",
    "typedef",
    "defgroup",
    "ingroup",
    "addtogroup",
    "weakgroup",
    "file",
    "fn",
    "var",
    "enum",
    "union",
    "class",
    "def",
    "name",
    "hideinitializer",
    "showinitializer",
    "internal",
    "endinternal",
];

enum Section {
    Body,
    Brief,
    Param(usize),
    Returns,
    SeeAlso,
    Admonition,
}

enum Chunk<'a> {
    Lines(Vec<Cow<'a, str>>),
    Admonition(AdmonitionKind, Vec<Cow<'a, str>>),
    Title(String),
}

impl Doc {
    /// Parses the cleaned text stored in the model (comment markers already removed).
    pub fn parse(text: &str) -> Doc {
        let text: Cow<str> =
            if text.contains('\t') { Cow::Owned(text.replace('\t', "    ")) } else { Cow::Borrowed(text) };
        let text = if has_triple_underscore(&text) { Cow::Owned(strip_manbrief(&text)) } else { text };
        let lines = logical_lines(&text);
        let mut brief = String::new();
        let mut chunks: Vec<Chunk> = Vec::new();
        let mut params: Vec<(String, Vec<Cow<str>>)> = Vec::new();
        let mut returns: Vec<Cow<str>> = Vec::new();
        let mut see_also = String::new();
        let mut section = Section::Body;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim();
            i += 1;
            if is_code_start(trimmed) {
                // A code block belongs to whatever section it appears in, whole.
                let mut block = vec![Cow::Borrowed(line)];
                if !trimmed.contains("\\endcode") && !trimmed.contains("@endcode") {
                    while i < lines.len() {
                        block.push(Cow::Borrowed(lines[i]));
                        i += 1;
                        if block.last().is_some_and(|l| l.contains("\\endcode") || l.contains("@endcode")) {
                            break;
                        }
                    }
                }
                if matches!(section, Section::Brief | Section::SeeAlso) {
                    section = Section::Body;
                }
                push_lines(&mut section, &mut chunks, &mut params, &mut returns, block);
                continue;
            }
            if trimmed.is_empty() {
                if !matches!(section, Section::Body) {
                    section = Section::Body;
                }
                body_lines(&mut chunks).push(Cow::Borrowed(""));
                continue;
            }
            if let Some((command, rest)) = leading_command(trimmed) {
                let rest = rest.trim();
                match command {
                    "brief" | "short" => {
                        brief.push_str(rest);
                        section = Section::Brief;
                        continue;
                    }
                    "details" => {
                        section = Section::Body;
                        body_lines(&mut chunks).push(Cow::Borrowed(rest));
                        continue;
                    }
                    "param" | "tparam" => {
                        let rest = rest.strip_prefix('[').and_then(|r| r.split_once(']')).map_or(rest, |(_, r)| r);
                        let mut words = rest.trim_start().splitn(2, char::is_whitespace);
                        // `\param *graphId` names the parameter `graphId`.
                        let name = words.next().unwrap_or_default().trim_start_matches(['*', '&']).to_string();
                        let text = words.next().unwrap_or_default().trim();
                        let text = text.strip_prefix('-').unwrap_or(text).trim_start();
                        params.push((name, vec![Cow::Borrowed(text)]));
                        section = Section::Param(params.len() - 1);
                        continue;
                    }
                    "return" | "returns" | "result" | "retval" => {
                        returns.push(Cow::Borrowed(rest));
                        section = Section::Returns;
                        continue;
                    }
                    "sa" | "see" => {
                        see_also.push(' ');
                        see_also.push_str(rest);
                        section = Section::SeeAlso;
                        continue;
                    }
                    "note" | "notes" | "remark" | "remarks" | "attention" | "warning" | "deprecated" => {
                        let kind = match command {
                            "warning" | "attention" => AdmonitionKind::Warning,
                            "deprecated" => AdmonitionKind::Deprecated,
                            _ => AdmonitionKind::Note,
                        };
                        chunks.push(Chunk::Admonition(kind, vec![Cow::Borrowed(rest)]));
                        section = Section::Admonition;
                        continue;
                    }
                    "par" => {
                        if !rest.is_empty() {
                            chunks.push(Chunk::Title(rest.to_string()));
                        } else {
                            body_lines(&mut chunks).push(Cow::Borrowed(""));
                        }
                        section = Section::Body;
                        continue;
                    }
                    _ if STRUCTURAL.contains(&command) => {
                        section = Section::Body;
                        continue;
                    }
                    _ => {
                        if let Some(sentence) = macro_sentence(command) {
                            chunks.push(Chunk::Admonition(AdmonitionKind::Note, vec![Cow::Borrowed(sentence)]));
                            section = Section::Body;
                            continue;
                        }
                        if !is_inline_command(command) {
                            // An unknown block command: keep its text, drop the command.
                            push_lines(&mut section, &mut chunks, &mut params, &mut returns, [Cow::Borrowed(rest)]);
                            continue;
                        }
                    }
                }
            }
            if trimmed.starts_with("@{") || trimmed.starts_with("@}") {
                continue;
            }
            match section {
                Section::Brief => {
                    let continues =
                        !brief.trim_end().ends_with('.') && trimmed.starts_with(|c: char| c.is_lowercase() || c == '(');
                    if continues {
                        brief.push('\n');
                        brief.push_str(trimmed);
                    } else {
                        section = Section::Body;
                        body_lines(&mut chunks).push(Cow::Borrowed(line));
                    }
                }
                Section::SeeAlso => {
                    see_also.push(' ');
                    see_also.push_str(trimmed);
                }
                _ => push_lines(&mut section, &mut chunks, &mut params, &mut returns, [Cow::Borrowed(line)]),
            }
        }

        let mut doc = Doc { summary: parse_inlines(brief.trim()), ..Doc::default() };
        for chunk in chunks {
            match chunk {
                Chunk::Lines(lines) => doc.body.extend(parse_blocks(&lines)),
                Chunk::Title(title) => {
                    let inlines = parse_inlines(&title);
                    doc.body.push(Block::Paragraph(match inlines.as_slice() {
                        [Inline::Text(text)] => vec![Inline::Strong(text.trim().to_string())],
                        _ => inlines,
                    }));
                }
                Chunk::Admonition(kind, lines) => {
                    let mut blocks = parse_blocks(&lines);
                    if blocks.is_empty() {
                        if kind != AdmonitionKind::Deprecated {
                            continue;
                        }
                        blocks.push(Block::Paragraph(vec![Inline::Text("This API is deprecated.".into())]));
                    }
                    // Notes that follow each other (`\notefnerr` `\note_async`) read as one.
                    if let Some(Block::Admonition(last_kind, last)) = doc.body.last_mut() {
                        if *last_kind == kind && kind == AdmonitionKind::Note {
                            last.extend(blocks);
                            continue;
                        }
                    }
                    doc.body.push(Block::Admonition(kind, blocks));
                }
            }
        }
        doc.params = params.into_iter().map(|(name, lines)| (name, parse_blocks(&lines))).collect();
        doc.returns = parse_blocks(&returns);
        doc.see_also = parse_inlines(see_also.trim());
        doc
    }

    /// reStructuredText for a Python docstring. `resolve` maps a C name (`cuInit`,
    /// `CUDA_MEMCPY2D::srcHost`) to the full Python target of a `:py:obj:` role, or `None` when
    /// the package has no such item (the name is then shown as a literal). `param_name` gives a
    /// C parameter's Python spelling.
    pub fn to_rst(&self, resolve: &dyn Fn(&str) -> Option<String>, param_name: &dyn Fn(&str) -> String) -> String {
        let rst = Rst { resolve, scratch: RefCell::default() };
        let mut out = String::with_capacity(1024);
        if !self.summary.is_empty() {
            rst.paragraph(&self.summary, "", &mut out);
        }
        for block in &self.body {
            rst.block(block, "", &mut out);
        }
        if !self.params.is_empty() || !self.returns.is_empty() {
            separate(&mut out);
        }
        let mut field = String::new();
        for (name, blocks) in &self.params {
            // A field name is inline text: `from_` there would be a reference.
            field.clear();
            field.push_str("param ");
            rst_escape(&param_name(name), &mut field);
            rst.field(&field, blocks, &mut out);
        }
        if !self.returns.is_empty() {
            rst.field("returns", &self.returns, &mut out);
        }
        if !self.see_also.is_empty() {
            let (head, comma) = (Inline::Text("See also: ".into()), Inline::Text(", ".into()));
            let line = std::iter::once(&head).chain(see_also_list(&self.see_also, &comma));
            rst.paragraph(line, "", &mut out);
        }
        finish(out)
    }

    /// Markdown for rustdoc. `resolve` maps a C name to an intra-doc link target that exists in
    /// the crate (`None`: the name is shown as inline code).
    pub fn to_markdown(&self, resolve: &dyn Fn(&str) -> Option<String>) -> String {
        let md = Markdown { resolve, scratch: RefCell::default() };
        let mut out = String::with_capacity(1024);
        if !self.summary.is_empty() {
            md.paragraph(&self.summary, "", &mut out);
        }
        for block in &self.body {
            md.block(block, "", &mut out);
        }
        if !self.params.is_empty() {
            separate(&mut out);
            out.push_str("# Parameters\n");
            let colon = Inline::Text(": ".into());
            for (name, blocks) in &self.params {
                // `name`: and the first paragraph, as one paragraph.
                let code = Inline::Code(name.clone());
                let (first, rest): (&[Inline], &[Block]) = match blocks.split_first() {
                    Some((Block::Paragraph(first), tail)) => (first, tail),
                    _ => (&[], blocks),
                };
                md.list_item("- ", [&code, &colon].into_iter().chain(first), rest, "", &mut out);
            }
        }
        if !self.returns.is_empty() {
            separate(&mut out);
            out.push_str("# Returns\n");
            for block in &self.returns {
                md.block(block, "", &mut out);
            }
        }
        if !self.see_also.is_empty() {
            separate(&mut out);
            out.push_str("# See also\n");
            let comma = Inline::Text(", ".into());
            md.paragraph(see_also_list(&self.see_also, &comma), "", &mut out);
        }
        finish(out)
    }
}

/// Shorthand for `Doc::parse(text).to_rst(..)`.
pub fn to_rst(text: &str, resolve: &dyn Fn(&str) -> Option<String>, param_name: &dyn Fn(&str) -> String) -> String {
    Doc::parse(text).to_rst(resolve, param_name)
}

/// Shorthand for `Doc::parse(text).to_markdown(..)`.
pub fn to_markdown(text: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    Doc::parse(text).to_markdown(resolve)
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

/// Doc comments parsed once, for emitters that render the same comments in their own formats:
/// looked up by the comment's text, parsed on the spot when absent.
#[derive(Debug, Default)]
pub struct ParsedDocs<'a> {
    docs: rustc_hash::FxHashMap<&'a str, Doc>,
}

impl<'a> ParsedDocs<'a> {
    /// The given comments and their parses (a comment given twice is kept once).
    pub fn new(parsed: impl IntoIterator<Item = (&'a str, Doc)>) -> ParsedDocs<'a> {
        ParsedDocs { docs: parsed.into_iter().collect() }
    }

    /// The parse of `raw`: the stored one, or a fresh one for a comment not given.
    pub fn get(&self, raw: &str) -> Cow<'_, Doc> {
        match self.docs.get(raw) {
            Some(doc) => Cow::Borrowed(doc),
            None => Cow::Owned(Doc::parse(raw)),
        }
    }
}

/// Every doc comment of a model with a label naming its declaration (`cuInit`,
/// `CUDA_MEMCPY2D_st.srcHost`, `CUDA_SUCCESS`), in model order.
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

/// Whether `text` holds `___` (the man-page markers use it), with a vectorised substring search.
fn has_triple_underscore(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"___").is_some()
}

fn strip_manbrief(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("___MANBRIEF___") {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        rest = match tail.find("___ENDMANBRIEF___") {
            Some(end) => &tail[end + "___ENDMANBRIEF___".len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out.replace("(___CURRENT_FILE___)", "")
}

fn body_lines<'c, 'a>(chunks: &'c mut Vec<Chunk<'a>>) -> &'c mut Vec<Cow<'a, str>> {
    if !matches!(chunks.last(), Some(Chunk::Lines(_))) {
        chunks.push(Chunk::Lines(Vec::new()));
    }
    match chunks.last_mut() {
        Some(Chunk::Lines(lines)) => lines,
        _ => unreachable!("a lines chunk was just pushed"),
    }
}

fn push_lines<'a>(
    section: &mut Section,
    chunks: &mut Vec<Chunk<'a>>,
    params: &mut [(String, Vec<Cow<'a, str>>)],
    returns: &mut Vec<Cow<'a, str>>,
    lines: impl IntoIterator<Item = Cow<'a, str>>,
) {
    match section {
        Section::Param(index) => params[*index].1.extend(lines),
        Section::Returns => returns.extend(lines),
        Section::Admonition => match chunks.last_mut() {
            Some(Chunk::Admonition(_, body)) => body.extend(lines),
            _ => body_lines(chunks).extend(lines),
        },
        Section::Body | Section::Brief | Section::SeeAlso => {
            *section = Section::Body;
            body_lines(chunks).extend(lines);
        }
    }
}

/// The comment's lines, with a line split before a block command that follows other text
/// (`... fashion: \code`, `kernel \param blockSize ...`): Doxygen starts the block there too.
fn logical_lines(text: &str) -> Vec<&str> {
    const SPLIT_AT: &[&str] = &["code", "param", "return", "returns", "sa", "note", "warning", "deprecated", "brief"];
    let mut lines = Vec::new();
    for line in split_lines(text) {
        let mut rest = line;
        let mut from = rest.len() - rest.trim_start().len() + 1;
        while let Some(pos) = rest.get(from..).and_then(|r| memchr::memchr(b'\\', r.as_bytes())).map(|p| p + from) {
            let word_end = rest[pos + 1..].find(|c: char| !is_ident_char(c)).map_or(rest.len(), |e| pos + 1 + e);
            let word = &rest[pos + 1..word_end];
            let after_space = rest[..pos].ends_with([' ', '\t']);
            let word_ends = rest[word_end..].is_empty() || rest[word_end..].starts_with([' ', '[', '\t']);
            if after_space && word_ends && SPLIT_AT.contains(&word) {
                lines.push(&rest[..pos]);
                rest = &rest[pos..];
                from = 1;
            } else {
                from = pos + 1;
            }
        }
        lines.push(rest);
    }
    lines
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

/// `\word rest` or `@word rest` at the start of a trimmed line (`/note`, a common slip, too).
fn leading_command(line: &str) -> Option<(&str, &str)> {
    let rest = line
        .strip_prefix('\\')
        .or_else(|| line.strip_prefix('@'))
        .or_else(|| line.strip_prefix("/note").filter(|r| r.is_empty() || r.starts_with(' ')).map(|_| &line[1..]))?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    let (command, tail) = rest.split_at(end);
    // `\param[in]` keeps its direction in the tail.
    Some((command, tail))
}

fn is_inline_command(command: &str) -> bool {
    matches!(command, "p" | "a" | "c" | "e" | "em" | "b" | "n" | "ref" | "link" | "endlink" | "f" | "anchor")
}

fn is_code_start(trimmed: &str) -> bool {
    ["\\code", "@code"]
        .iter()
        .any(|p| trimmed.strip_prefix(p).is_some_and(|r| r.is_empty() || r.starts_with([' ', '{', '\n'])))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A list item's marker: its indentation, whether it is numbered, where its text starts.
struct Marker {
    indent: usize,
    ordered: bool,
    content: usize,
}

fn list_marker(line: &str) -> Option<Marker> {
    let indent = indent_of(line);
    let rest = &line[indent..];
    for bullet in ["- ", "+ ", "* ", "-# ", "\u{2022} "] {
        if rest.starts_with(bullet) && !rest[bullet.len()..].trim().is_empty() {
            return Some(Marker { indent, ordered: bullet == "-# ", content: indent + bullet.len() });
        }
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let tail = &rest[digits..];
        if (tail.starts_with(". ") || tail.starts_with(") ")) && !tail[2..].trim().is_empty() {
            return Some(Marker { indent, ordered: true, content: indent + digits + 2 });
        }
    }
    None
}

/// Splits lines (a section of the comment) into blocks.
fn parse_blocks(lines: &[Cow<str>]) -> Vec<Block> {
    let mut blocks = Vec::new();
    // A paragraph's lines, trimmed and joined (reused).
    let mut joined = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let trimmed = line.trim();
        if trimmed.is_empty() {
            i += 1;
            continue;
        }
        if is_code_start(trimmed) {
            let (code, next) = read_code(lines, i);
            if !code.trim().is_empty() {
                blocks.push(Block::Code(code));
            }
            i = next;
            continue;
        }
        if let Some(tag) = html_block_start(trimmed) {
            let (inner, next) = read_html_block(lines, i, tag);
            i = next;
            match tag {
                "table" => {
                    if let Some(table) = parse_table(&inner) {
                        blocks.push(table);
                    }
                }
                _ => {
                    let items = split_html_items(&inner);
                    if !items.is_empty() {
                        blocks.push(Block::List { ordered: tag == "ol", items });
                    }
                }
            }
            continue;
        }
        if let Some(marker) = list_marker(line) {
            let (block, next) = parse_list(lines, i, &marker);
            blocks.push(block);
            i = next;
            continue;
        }
        let start = i;
        i += 1;
        while i < lines.len() {
            let t = lines[i].trim();
            if t.is_empty() || is_code_start(t) || html_block_start(t).is_some() || list_marker(&lines[i]).is_some() {
                break;
            }
            i += 1;
        }
        joined.clear();
        for (n, line) in lines[start..i].iter().enumerate() {
            if n > 0 {
                joined.push('\n');
            }
            joined.push_str(line.trim());
        }
        push_paragraphs(&mut blocks, parse_inlines(&joined));
    }
    blocks
}

/// A paragraph, split where the source forces a line break (`\n`, `<br>`).
fn push_paragraphs(blocks: &mut Vec<Block>, inlines: Vec<Inline>) {
    if !inlines.iter().any(|inline| matches!(inline, Inline::LineBreak)) {
        let paragraph = trim_inlines(inlines);
        if !paragraph.is_empty() {
            blocks.push(Block::Paragraph(paragraph));
        }
        return;
    }
    let mut part = Vec::with_capacity(inlines.len());
    for inline in inlines.into_iter().chain(std::iter::once(Inline::LineBreak)) {
        if inline == Inline::LineBreak {
            let paragraph = trim_inlines(std::mem::take(&mut part));
            if !paragraph.is_empty() {
                blocks.push(Block::Paragraph(paragraph));
            }
        } else {
            part.push(inline);
        }
    }
}

/// Drops leading and trailing whitespace of a run of inlines.
fn trim_inlines(mut inlines: Vec<Inline>) -> Vec<Inline> {
    if let Some(Inline::Text(text)) = inlines.first_mut() {
        let leading = text.len() - text.trim_start().len();
        text.drain(..leading);
    }
    if let Some(Inline::Text(text)) = inlines.last_mut() {
        text.truncate(text.trim_end().len());
    }
    inlines.retain(|i| !matches!(i, Inline::Text(t) if t.is_empty()));
    inlines
}

fn read_code(lines: &[Cow<str>], start: usize) -> (String, usize) {
    let first = lines[start].trim();
    let after = first.split_once(char::is_whitespace).map_or("", |(_, r)| r);
    let mut body: Vec<&str> = Vec::new();
    let mut i = start + 1;
    let mut closed = false;
    if let Some(pos) = after.find("\\endcode").or_else(|| after.find("@endcode")) {
        body.push(&after[..pos]);
        closed = true;
    } else if !after.trim().is_empty() && !after.trim_start().starts_with('{') {
        body.push(after);
    }
    while !closed && i < lines.len() {
        let line = &lines[i];
        i += 1;
        if let Some(pos) = line.find("\\endcode").or_else(|| line.find("@endcode")) {
            body.push(&line[..pos]);
            break;
        }
        body.push(line);
    }
    while body.first().is_some_and(|l| l.trim().is_empty()) {
        body.remove(0);
    }
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    let common = body.iter().filter(|l| !l.trim().is_empty()).map(|l| indent_of(l)).min().unwrap_or(0);
    let code: Vec<&str> = body.iter().map(|l| if l.trim().is_empty() { "" } else { l[common..].trim_end() }).collect();
    (code.join("\n"), i)
}

fn parse_list(lines: &[Cow<str>], start: usize, first: &Marker) -> (Block, usize) {
    let mut items = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let Some(marker) = list_marker(&lines[i]) else { break };
        if marker.indent != first.indent || marker.ordered != first.ordered {
            break;
        }
        let mut item = vec![Cow::Owned(format!("{}{}", " ".repeat(marker.content), &lines[i][marker.content..]))];
        i += 1;
        let mut ended = false;
        while i < lines.len() {
            let line = &lines[i];
            let trimmed = line.trim();
            if trimmed.is_empty() {
                let Some(next) = (i..lines.len()).find(|&j| !lines[j].trim().is_empty()) else {
                    i = lines.len();
                    break;
                };
                if list_marker(&lines[next]).is_some_and(|m| m.indent == first.indent) {
                    i = next;
                    break;
                }
                if indent_of(&lines[next]) > first.indent {
                    item.push(Cow::Borrowed(""));
                    i += 1;
                    continue;
                }
                ended = true;
                break;
            }
            if is_code_start(trimmed) {
                let (_, next) = read_code(lines, i);
                item.extend(lines[i..next].iter().cloned());
                i = next;
                continue;
            }
            if list_marker(line).is_some_and(|m| m.indent <= first.indent) {
                break;
            }
            item.push(line.clone());
            i += 1;
        }
        items.push(parse_blocks(&item));
        if ended {
            break;
        }
    }
    (Block::List { ordered: first.ordered, items }, i)
}

fn html_block_start(trimmed: &str) -> Option<&'static str> {
    if !trimmed.starts_with('<') {
        return None;
    }
    let lower = trimmed.get(..7).unwrap_or(trimmed).to_ascii_lowercase();
    ["table", "ul", "ol"].into_iter().find(|tag| {
        lower.strip_prefix('<').and_then(|r| r.strip_prefix(tag)).is_some_and(|r| r.starts_with(['>', ' ']))
    })
}

/// The text between `<tag>` and its matching close, and the line after the close.
fn read_html_block(lines: &[Cow<str>], start: usize, tag: &str) -> (String, usize) {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut depth = 0usize;
    let mut text = String::new();
    let mut i = start;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        let lower = line.to_ascii_lowercase();
        depth += lower.matches(&open).count();
        let closes = lower.matches(&close).count();
        text.push_str(line);
        text.push('\n');
        if closes >= depth {
            break;
        }
        depth -= closes;
    }
    let lower = text.to_ascii_lowercase();
    let begin = lower.find('>').map_or(0, |p| p + 1);
    let end = lower.rfind(&close).unwrap_or(text.len()).max(begin);
    (text[begin..end].to_string(), i)
}

fn split_html_items(inner: &str) -> Vec<Vec<Block>> {
    let lower = inner.to_ascii_lowercase();
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut pos = 0;
    while pos < lower.len() {
        let rest = &lower[pos..];
        if rest.starts_with("<ul") || rest.starts_with("<ol") {
            depth += 1;
        } else if rest.starts_with("</ul") || rest.starts_with("</ol") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && rest.starts_with("<li") && rest[3..].starts_with(['>', ' ']) {
            starts.push(pos);
        }
        pos += rest.chars().next().map_or(1, char::len_utf8);
    }
    let mut items = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(inner.len());
        let body = &inner[start..end];
        let body = &body[body.find('>').map_or(0, |p| p + 1)..];
        let body = body.trim_end();
        let body = body.strip_suffix("</li>").or_else(|| body.strip_suffix("</LI>")).unwrap_or(body);
        let lines: Vec<Cow<str>> = body.lines().map(|l| Cow::Borrowed(l.trim())).collect();
        items.push(parse_blocks(&lines));
    }
    items
}

fn parse_table(inner: &str) -> Option<Block> {
    let lower = inner.to_ascii_lowercase();
    let mut rows: Vec<Vec<Vec<Inline>>> = Vec::new();
    let mut header = false;
    let row_starts: Vec<usize> = lower.match_indices("<tr").map(|(p, _)| p).collect();
    for (n, &start) in row_starts.iter().enumerate() {
        let end = row_starts.get(n + 1).copied().unwrap_or(inner.len());
        let row_lower = &lower[start..end];
        let mut cell_starts: Vec<(usize, bool)> = Vec::new();
        for (p, _) in row_lower.match_indices('<') {
            let rest = &row_lower[p..];
            for (prefix, is_header) in [("<td", false), ("<th", true)] {
                if rest.starts_with(prefix) && rest[3..].starts_with(['>', ' ']) {
                    cell_starts.push((p, is_header));
                }
            }
        }
        let mut cells = Vec::new();
        for (k, &(p, is_header)) in cell_starts.iter().enumerate() {
            let cell_end = cell_starts.get(k + 1).map_or(end - start, |&(q, _)| q);
            let raw = &inner[start + p..start + cell_end];
            let raw = &raw[raw.find('>').map_or(0, |x| x + 1)..];
            let raw_lower = raw.to_ascii_lowercase();
            let cut = ["</td>", "</th>", "</tr>"].iter().filter_map(|t| raw_lower.find(t)).min().unwrap_or(raw.len());
            let text: Vec<&str> = raw[..cut].lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            cells.push(trim_inlines(parse_inlines(&text.join(" "))));
            if rows.is_empty() && is_header {
                header = true;
            }
        }
        if !cells.is_empty() {
            rows.push(cells);
        }
    }
    let columns = rows.iter().map(Vec::len).max()?;
    for row in &mut rows {
        row.resize(columns, Vec::new());
    }
    Some(Block::Table { header, rows })
}

fn decode_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => " ",
        "times" => "\u{d7}",
        "le" => "\u{2264}",
        "ge" => "\u{2265}",
        "ndash" => "\u{2013}",
        "mdash" => "\u{2014}",
        "micro" => "\u{b5}",
        _ => return None,
    })
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a paragraph's text into inline pieces.
pub fn parse_inlines(text: &str) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::new();
    // The pending plain text; each piece gets a copy of its own size.
    let mut plain = String::with_capacity(text.len());
    let flush = |plain: &mut String, out: &mut Vec<Inline>| {
        if !plain.is_empty() {
            out.push(Inline::Text(plain.as_str().into()));
            plain.clear();
        }
    };
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().expect("in bounds");
        match c {
            '\\' | '@' => {
                let word_len = rest[1..].find(|c: char| !is_ident_char(c)).unwrap_or(rest.len() - 1);
                let word = &rest[1..1 + word_len];
                if c == '\\' && rest[1..].starts_with('\\') {
                    // `\\n` in the source is a C escape sequence written out: show it as code.
                    let len = rest[2..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len() - 2);
                    if len > 0 {
                        flush(&mut plain, &mut out);
                        out.push(Inline::Code(rest[1..2 + len].to_string()));
                        i += 2 + len;
                        continue;
                    }
                }
                if word.is_empty() || (c == '@' && !is_inline_command(word) && macro_sentence(word).is_none()) {
                    // `\\`, `\<`, `\&`... stand for the character itself.
                    if let Some(next) = rest[1..].chars().next().filter(|n| c == '\\' && "\\@&$#<>%\".|:".contains(*n))
                    {
                        plain.push(next);
                        i += 1 + next.len_utf8();
                    } else {
                        plain.push(c);
                        i += 1;
                    }
                    continue;
                }
                i += 1 + word_len;
                match word {
                    "p" | "a" | "c" | "e" | "em" | "b" | "ref" => {
                        let (arg, used) = take_word(&text[i..]);
                        i += used;
                        if arg.is_empty() {
                            continue;
                        }
                        flush(&mut plain, &mut out);
                        out.push(match word {
                            "e" | "em" => Inline::Emphasis(arg.to_string()),
                            "b" => Inline::Strong(arg.to_string()),
                            "ref" => Inline::Ref { name: arg.trim_start_matches("::").to_string(), call: false },
                            _ => Inline::Code(arg.to_string()),
                        });
                    }
                    "n" => {
                        flush(&mut plain, &mut out);
                        out.push(Inline::LineBreak);
                    }
                    _ => {
                        // Unknown or layout-only command: dropped, with the space after it.
                        if text[i..].starts_with(' ') && (plain.is_empty() || plain.ends_with(char::is_whitespace)) {
                            i += 1;
                        }
                    }
                }
            }
            ':' if rest.starts_with("::")
                && rest[2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && !plain.ends_with(is_ident_char) =>
            {
                let mut end = 2;
                loop {
                    end += rest[end..].find(|c: char| !is_ident_char(c)).unwrap_or(rest.len() - end);
                    if rest[end..].starts_with("::")
                        && rest[end + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    {
                        end += 2;
                        continue;
                    }
                    break;
                }
                let name = &rest[2..end];
                let call = rest[end..].starts_with("()");
                i += end + if call { 2 } else { 0 };
                flush(&mut plain, &mut out);
                out.push(Inline::Ref { name: name.to_string(), call });
            }
            '`' => match rest[1..].find('`') {
                Some(len) if len > 0 && !rest[1..1 + len].contains("\n\n") => {
                    flush(&mut plain, &mut out);
                    out.push(Inline::Code(rest[1..1 + len].replace('\n', " ").trim().to_string()));
                    i += len + 2;
                }
                _ => {
                    plain.push('`');
                    i += 1;
                }
            },
            '<' => {
                if let Some((tag, closing, len)) = html_tag(rest) {
                    i += len;
                    match (tag.as_str(), closing) {
                        ("br", _) => {
                            flush(&mut plain, &mut out);
                            out.push(Inline::LineBreak);
                        }
                        ("b" | "strong" | "i" | "em" | "tt" | "code", false) => {
                            let close = format!("</{tag}>");
                            let inner_end = text[i..].to_ascii_lowercase().find(&close);
                            let Some(inner_end) = inner_end else { continue };
                            let inner = parse_inlines(&text[i..i + inner_end]);
                            i += inner_end + close.len();
                            flush(&mut plain, &mut out);
                            let inner = trim_inlines(inner);
                            match inner.as_slice() {
                                [Inline::Text(t)] => out.push(match tag.as_str() {
                                    "b" | "strong" => Inline::Strong(t.replace('\n', " ")),
                                    "i" | "em" => Inline::Emphasis(t.replace('\n', " ")),
                                    _ => Inline::Code(t.replace('\n', " ")),
                                }),
                                _ => out.extend(inner),
                            }
                        }
                        _ => {}
                    }
                } else {
                    plain.push('<');
                    i += 1;
                }
            }
            '&' => {
                let entity = rest[1..]
                    .find(';')
                    .filter(|&n| n <= 8)
                    .and_then(|n| decode_entity(&rest[1..1 + n]).map(|s| (s, n)));
                if let Some((decoded, n)) = entity {
                    plain.push_str(decoded);
                    i += n + 2;
                } else {
                    plain.push('&');
                    i += 1;
                }
            }
            'h' if (rest.starts_with("https://") || rest.starts_with("http://"))
                && (i == 0 || !is_ident_char(text[..i].chars().next_back().unwrap_or(' '))) =>
            {
                let len = rest.find(|c: char| c.is_whitespace() || c == '<' || c == '>').unwrap_or(rest.len());
                let url = rest[..len].trim_end_matches(['.', ',', ';', ':', ')', '\'', '"']);
                flush(&mut plain, &mut out);
                out.push(Inline::Url(url.to_string()));
                i += url.len();
            }
            _ => {
                // Copy the run up to the next character that may start something.
                let len = next_special(rest.as_bytes());
                plain.push_str(&rest[..len]);
                i += len;
            }
        }
    }
    flush(&mut plain, &mut out);
    out
}

/// Where the next character that may start an inline construct is (never at 0). All of them
/// are ASCII, so the offset is a character boundary.
fn next_special(rest: &[u8]) -> usize {
    const STARTS: [bool; 256] = byte_set(b"\\@:`<&h");
    let mut k = 1;
    while k < rest.len() {
        let byte = rest[k];
        if STARTS[usize::from(byte)] && (byte != b'h' || rest[k..].starts_with(b"http")) {
            return k;
        }
        k += 1;
    }
    rest.len()
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

/// The argument of `\p word`: up to whitespace, without trailing sentence punctuation.
fn take_word(text: &str) -> (&str, usize) {
    let start = text.len() - text.trim_start_matches([' ', '\n']).len();
    let rest = &text[start..];
    let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let mut word = &rest[..len];
    loop {
        let trimmed = word.trim_end_matches(['.', ',', ';', ':', '!', '?', '"', '\'']);
        let trimmed = if trimmed.ends_with(')') && trimmed.matches('(').count() < trimmed.matches(')').count() {
            &trimmed[..trimmed.len() - 1]
        } else {
            trimmed
        };
        if trimmed.len() == word.len() {
            break;
        }
        word = trimmed;
    }
    (word, start + word.len())
}

/// A known HTML tag at the start of `text`: its lower-case name, whether it closes, its length.
fn html_tag(text: &str) -> Option<(String, bool, usize)> {
    let end = text.find('>')?;
    let inner = &text[1..end];
    if inner.contains(['<', '\n']) {
        return None;
    }
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let inner = inner.trim_end_matches('/').trim_end();
    let name_len = inner.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(inner.len());
    let name = inner[..name_len].to_ascii_lowercase();
    const KNOWN: &[&str] = &[
        "b", "strong", "i", "em", "tt", "code", "small", "big", "br", "p", "span", "sup", "sub", "u", "font", "center",
        "div", "li", "ul", "ol", "table", "tr", "td", "th", "pre",
    ];
    (KNOWN.contains(&name.as_str()) && (name_len == inner.len() || inner[name_len..].starts_with(' '))).then_some((
        name,
        closing,
        end + 1,
    ))
}

// ---------------------------------------------------------------------------------------------
// reStructuredText

struct Rst<'a> {
    resolve: &'a dyn Fn(&str) -> Option<String>,
    /// A paragraph's joined inline text before it is laid out in lines (reused).
    scratch: RefCell<String>,
}

/// Characters markup may touch on its left and on its right and still be recognised.
const RST_BEFORE_MARKUP: &str = "-:/'\"<([{";
const RST_AFTER_MARKUP: &str = "-.,:;!?\\/'\")]}>";

impl Rst<'_> {
    fn block(&self, block: &Block, indent: &str, out: &mut String) {
        match block {
            Block::Paragraph(inlines) => self.paragraph(inlines, indent, out),
            Block::List { ordered, items } => {
                let mut marker = String::new();
                let mut inner = String::new();
                let mut text = String::new();
                for (n, item) in items.iter().enumerate() {
                    marker.clear();
                    if *ordered {
                        let _ = write!(marker, "{}. ", n + 1);
                    } else {
                        marker.push_str("- ");
                    }
                    push_indent(&mut inner, indent, marker.len());
                    text.clear();
                    for block in item {
                        self.block(block, &inner, &mut text);
                    }
                    separate(out);
                    let text = text.trim_end();
                    out.push_str(indent);
                    if text.is_empty() {
                        out.push_str(marker.trim_end());
                    } else {
                        out.push_str(&marker);
                        out.push_str(&text[inner.len()..]);
                    }
                    out.push('\n');
                }
            }
            Block::Code(code) => {
                // A paragraph ending in ':' introduces the literal block with '::'.
                if ends_with_colon_paragraph(out, indent) {
                    out.pop();
                    out.push_str(":\n");
                } else {
                    separate(out);
                    out.push_str(indent);
                    out.push_str("::\n");
                }
                out.push('\n');
                for line in code.lines() {
                    if !line.is_empty() {
                        out.push_str(indent);
                        out.push_str("    ");
                        out.push_str(line);
                    }
                    out.push('\n');
                }
            }
            Block::Admonition(kind, blocks) => {
                separate(out);
                out.push_str(indent);
                out.push_str(match kind {
                    AdmonitionKind::Note => ".. note::\n",
                    AdmonitionKind::Warning => ".. warning::\n",
                    AdmonitionKind::Deprecated => ".. admonition:: Deprecated\n",
                });
                out.push('\n');
                let mut inner = String::new();
                push_indent(&mut inner, indent, 3);
                for block in blocks {
                    self.block(block, &inner, out);
                }
            }
            Block::Table { header, rows } => {
                separate(out);
                out.push_str(indent);
                out.push_str(".. list-table::\n");
                if *header {
                    out.push_str(indent);
                    out.push_str("   :header-rows: 1\n");
                }
                out.push('\n');
                let mut inner = String::new();
                push_indent(&mut inner, indent, 7);
                for row in rows {
                    for (k, cell) in row.iter().enumerate() {
                        let lead = if k == 0 { "* - " } else { "  - " };
                        let mut text = String::new();
                        let mut cell_blocks = Vec::new();
                        push_paragraphs(&mut cell_blocks, cell.clone());
                        for block in &cell_blocks {
                            self.block(block, &inner, &mut text);
                        }
                        let text = text.trim_end();
                        out.push_str(indent);
                        out.push_str("   ");
                        if text.is_empty() {
                            out.push_str(lead.trim_end());
                        } else {
                            out.push_str(lead);
                            out.push_str(&text[inner.len()..]);
                        }
                        out.push('\n');
                        // The next cell's marker would continue a paragraph of this one.
                        if text.contains('\n') {
                            out.push('\n');
                        }
                    }
                }
            }
        }
    }

    /// `:name: body` with the body's lines under the name.
    fn field(&self, name: &str, blocks: &[Block], out: &mut String) {
        let inner = "    ";
        let mut text = String::new();
        for block in blocks {
            self.block(block, inner, &mut text);
        }
        let text = text.trim_end();
        out.push(':');
        out.push_str(name);
        out.push(':');
        if text.is_empty() {
            out.push('\n');
        } else if matches!(blocks.first(), Some(Block::Paragraph(_))) {
            out.push(' ');
            out.push_str(&text[inner.len()..]);
            out.push('\n');
        } else {
            out.push_str("\n\n");
            out.push_str(text);
            out.push('\n');
        }
    }

    fn paragraph<'i>(&self, inlines: impl IntoIterator<Item = &'i Inline>, indent: &str, out: &mut String) {
        let mut text = self.scratch.borrow_mut();
        text.clear();
        let (starts_with_text, ends_with_text) = self.inlines(inlines, &mut text);
        if text.trim().is_empty() {
            return;
        }
        separate(out);
        for (n, line) in split_lines(&text).enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            out.push_str(indent);
            if (n == 0 && starts_with_text && rst_starts_block(line)) || is_adornment(line) {
                out.push('\\');
            }
            out.push_str(line);
            out.push('\n');
        }
        // A paragraph ending in '::' would announce a literal block.
        if out.ends_with("::\n") && ends_with_text {
            let len = out.len();
            out.replace_range(len - 2..len - 1, "\\:");
        }
    }

    /// Writes the inlines to `text`, adding an escaped space (which renders as nothing) where
    /// markup would touch a character that stops docutils from recognising it. Says whether the
    /// first inline is plain text and whether the last is (or there is none).
    fn inlines<'i>(&self, inlines: impl IntoIterator<Item = &'i Inline>, text: &mut String) -> (bool, bool) {
        let mut first_is_text = None;
        let mut last_is_text = true;
        let mut after_markup = false;
        for inline in inlines {
            last_is_text = matches!(inline, Inline::Text(_));
            first_is_text.get_or_insert(last_is_text);
            let mut start = text.len();
            let markup = self.inline(inline, text);
            if after_markup && text[start..].chars().next().is_some_and(|c| !allowed_next_to(c, RST_AFTER_MARKUP)) {
                text.insert_str(start, "\\ ");
                start += 2;
            }
            if markup && text[..start].chars().next_back().is_some_and(|c| !allowed_next_to(c, RST_BEFORE_MARKUP)) {
                text.insert_str(start, "\\ ");
            }
            after_markup = markup;
        }
        (first_is_text.unwrap_or(false), last_is_text)
    }

    /// Writes one inline; says whether it is markup (which needs word boundaries around it).
    fn inline(&self, inline: &Inline, out: &mut String) -> bool {
        match inline {
            Inline::Text(text) => {
                rst_escape(text, out);
                false
            }
            Inline::Code(code) => rst_literal(code, out),
            Inline::Emphasis(text) | Inline::Strong(text) => {
                let text = text.trim();
                if text.is_empty() {
                    return false;
                }
                let mark = if matches!(inline, Inline::Strong(_)) { "**" } else { "*" };
                out.push_str(mark);
                rst_escape(text, out);
                out.push_str(mark);
                true
            }
            Inline::Ref { name, call } => match (self.resolve)(name) {
                Some(target) if !target.contains('`') => {
                    out.push_str(":py:obj:`~");
                    out.push_str(&target);
                    out.push('`');
                    true
                }
                _ if *call => rst_literal(&format!("{name}()"), out),
                _ => rst_literal(name, out),
            },
            Inline::Url(url) => {
                out.push_str(url);
                true
            }
            Inline::LineBreak => {
                out.push('\n');
                false
            }
        }
    }
}

fn allowed_next_to(c: char, allowed: &str) -> bool {
    c.is_whitespace() || allowed.contains(c)
}

/// `indent` followed by `extra` spaces, in `buffer`.
fn push_indent(buffer: &mut String, indent: &str, extra: usize) {
    buffer.clear();
    buffer.push_str(indent);
    buffer.extend(std::iter::repeat_n(' ', extra));
}

/// Whether the last thing written is a paragraph at `indent` whose text ends with one ':'.
fn ends_with_colon_paragraph(out: &str, indent: &str) -> bool {
    if !out.ends_with(":\n") || out.ends_with("::\n") || out.ends_with("\\:\n") {
        return false;
    }
    let last = out[..out.len() - 1].rsplit('\n').next().unwrap_or("");
    let Some(rest) = last.strip_prefix(indent) else { return false };
    !rest.starts_with(char::is_whitespace) && !rest.starts_with("- ") && !rst_starts_block(rest)
}

/// Writes `code` as an inline literal; says whether it is markup (a literal that cannot be
/// written as one is escaped text).
fn rst_literal(code: &str, out: &mut String) -> bool {
    let code = code.trim();
    if code.is_empty() || code.starts_with('`') || code.ends_with('`') || has_double_backtick(code) {
        rst_escape(code, out);
        return false;
    }
    out.push_str("``");
    out.push_str(code);
    out.push_str("``");
    true
}

fn has_double_backtick(text: &str) -> bool {
    text.as_bytes().windows(2).any(|pair| pair == b"``")
}

/// Writes `text` with what would be markup escaped.
fn rst_escape(text: &str, out: &mut String) {
    const SPECIAL: [bool; 256] = byte_set(b"\\*`|_");
    escape_bytes(text, out, &SPECIAL, |i, byte| match byte {
        b'\\' | b'*' | b'`' | b'|' => true,
        // `name_` and `name__` are references.
        b'_' => !text[i + 1..].chars().next().is_some_and(char::is_alphanumeric),
        _ => false,
    });
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

/// Whether a paragraph's first line would be read as the start of another construct (a list,
/// an enumerated list, a directive, a field, a table...).
fn rst_starts_block(line: &str) -> bool {
    let first = line.chars().next().unwrap_or(' ');
    if "-+*#|:.>/(=_[\u{2022}".contains(first) {
        return true;
    }
    let word = line.split_whitespace().next().unwrap_or("");
    let Some(stem) = word.strip_suffix(['.', ')']) else { return false };
    !stem.is_empty()
        && (stem.chars().all(|c| c.is_ascii_digit())
            || (stem.chars().count() == 1 && stem.chars().all(|c| c.is_ascii_alphabetic()))
            || stem.chars().all(|c| "ivxlcdmIVXLCDM".contains(c)))
}

/// A line of one repeated punctuation character (a section adornment in RST, a heading
/// underline or rule in Markdown).
fn is_adornment(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else { return false };
    first.is_ascii_punctuation() && first != '\\' && line.len() >= 2 && chars.all(|c| c == first)
}

// ---------------------------------------------------------------------------------------------
// Markdown

struct Markdown<'a> {
    resolve: &'a dyn Fn(&str) -> Option<String>,
    /// A paragraph's joined inline text before it is laid out in lines (reused).
    scratch: RefCell<String>,
}

impl Markdown<'_> {
    fn block(&self, block: &Block, indent: &str, out: &mut String) {
        match block {
            Block::Paragraph(inlines) => self.paragraph(inlines, indent, out),
            Block::List { ordered, items } => {
                let mut marker = String::new();
                for (n, item) in items.iter().enumerate() {
                    marker.clear();
                    if *ordered {
                        let _ = write!(marker, "{}. ", n + 1);
                    } else {
                        marker.push_str("- ");
                    }
                    self.list_item(&marker, [], item, indent, out);
                }
            }
            Block::Code(code) => {
                separate(out);
                let fence = "`".repeat(longest_run(code, '`').max(2) + 1);
                out.push_str(indent);
                out.push_str(&fence);
                out.push_str("c\n");
                for line in code.lines() {
                    if !line.is_empty() {
                        out.push_str(indent);
                        out.push_str(line);
                    }
                    out.push('\n');
                }
                out.push_str(indent);
                out.push_str(&fence);
                out.push('\n');
            }
            Block::Admonition(kind, blocks) => {
                let label = Inline::Strong(
                    match kind {
                        AdmonitionKind::Note => "Note:",
                        AdmonitionKind::Warning => "Warning:",
                        AdmonitionKind::Deprecated => "Deprecated:",
                    }
                    .into(),
                );
                let space = Inline::Text(" ".into());
                let mut rest = blocks.as_slice();
                match blocks.split_first() {
                    Some((Block::Paragraph(inlines), tail)) => {
                        self.paragraph([&label, &space].into_iter().chain(inlines), indent, out);
                        rest = tail;
                    }
                    _ => self.paragraph([&label], indent, out),
                }
                for block in rest {
                    self.block(block, indent, out);
                }
            }
            Block::Table { rows, .. } => {
                separate(out);
                let mut text = String::new();
                for (n, row) in rows.iter().enumerate() {
                    out.push_str(indent);
                    out.push('|');
                    for cell in row {
                        text.clear();
                        for inline in cell {
                            let start = text.len();
                            match inline {
                                Inline::LineBreak => text.push_str("<br>"),
                                other => self.inline(other, &mut text),
                            }
                            guard_link_end(&mut text, start);
                        }
                        let text = text.replace('\n', " ").replace('|', "\\|");
                        out.push(' ');
                        out.push_str(text.trim());
                        out.push_str(" |");
                    }
                    out.push('\n');
                    if n == 0 {
                        out.push_str(indent);
                        out.push('|');
                        out.push_str(&" --- |".repeat(row.len()));
                        out.push('\n');
                    }
                }
            }
        }
    }

    /// A list item: `lead` (a paragraph, when not empty) and then `item`, under `marker`.
    fn list_item<'i>(
        &self,
        marker: &str,
        lead: impl IntoIterator<Item = &'i Inline>,
        item: &[Block],
        indent: &str,
        out: &mut String,
    ) {
        let mut inner = String::new();
        push_indent(&mut inner, indent, marker.len());
        let mut text = String::new();
        self.paragraph(lead, &inner, &mut text);
        for block in item {
            self.block(block, &inner, &mut text);
        }
        separate(out);
        let text = text.trim_end();
        out.push_str(indent);
        if text.is_empty() {
            out.push_str(marker.trim_end());
        } else {
            out.push_str(marker);
            out.push_str(&text[inner.len()..]);
        }
        out.push('\n');
    }

    fn paragraph<'i>(&self, inlines: impl IntoIterator<Item = &'i Inline>, indent: &str, out: &mut String) {
        let mut text = self.scratch.borrow_mut();
        text.clear();
        for inline in inlines {
            let start = text.len();
            self.inline(inline, &mut text);
            guard_link_end(&mut text, start);
        }
        if text.trim().is_empty() {
            return;
        }
        separate(out);
        for line in split_lines(&text) {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            out.push_str(indent);
            markdown_line_start(line, out);
            out.push('\n');
        }
    }

    fn inline(&self, inline: &Inline, out: &mut String) {
        match inline {
            Inline::Text(text) => markdown_escape(text, out),
            Inline::Code(code) => markdown_code(code, out),
            Inline::Emphasis(text) | Inline::Strong(text) => {
                let mark = if matches!(inline, Inline::Strong(_)) { "**" } else { "*" };
                out.push_str(mark);
                markdown_escape(text.trim(), out);
                out.push_str(mark);
            }
            Inline::Ref { name, call } => match (self.resolve)(name) {
                Some(target) => {
                    out.push_str("[`");
                    out.push_str(name);
                    out.push_str("`]");
                    if target != *name {
                        out.push('(');
                        out.push_str(&target);
                        out.push(')');
                    }
                }
                None if *call => markdown_code(&format!("{name}()"), out),
                None => markdown_code(name, out),
            },
            Inline::Url(url) => {
                out.push('<');
                out.push_str(url);
                out.push('>');
            }
            Inline::LineBreak => out.push('\n'),
        }
    }
}

/// A link followed by `(`, `[` or `:` would be read as part of the link: escapes the piece
/// written from `start` on.
fn guard_link_end(text: &mut String, start: usize) {
    if text[..start].ends_with(']') && text[start..].starts_with(['(', ':']) {
        text.insert(start, '\\');
    }
}

fn markdown_code(code: &str, out: &mut String) {
    let code = code.trim();
    let ticks = longest_run(code, '`') + 1;
    if ticks > 1 || code.starts_with('`') || code.ends_with('`') {
        out.extend(std::iter::repeat_n('`', ticks));
        out.push(' ');
        out.push_str(code);
        out.push(' ');
        out.extend(std::iter::repeat_n('`', ticks));
    } else {
        out.push('`');
        out.push_str(code);
        out.push('`');
    }
}

fn longest_run(text: &str, c: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Writes `text` with what Markdown would read as markup escaped.
fn markdown_escape(text: &str, out: &mut String) {
    const SPECIAL: [bool; 256] = byte_set(b"\\`*[]<>~|&_");
    escape_bytes(text, out, &SPECIAL, |i, byte| match byte {
        b'\\' | b'`' | b'*' | b'[' | b']' | b'<' | b'>' | b'~' | b'|' => true,
        b'&' => text[i + 1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '#'),
        // Inside a word `_` never starts emphasis; at a word's edge it may.
        b'_' => {
            let previous = text[..i].chars().next_back().unwrap_or(' ');
            let next = text[i + 1..].chars().next().unwrap_or(' ');
            !(previous.is_alphanumeric() && next.is_alphanumeric())
        }
        _ => false,
    });
}

/// Writes `line`, escaping what would make it start a heading, quote, list, rule or heading
/// underline.
fn markdown_line_start(line: &str, out: &mut String) {
    let first = line.chars().next().unwrap_or(' ');
    if matches!(first, '#' | '>' | '+' | '-' | '=' | '|' | '~' | ':') || is_adornment(line) {
        out.push('\\');
        out.push_str(line);
        return;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(['.', ')']) {
        out.push_str(&line[..digits]);
        out.push('\\');
        out.push_str(&line[digits..]);
        return;
    }
    out.push_str(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(name: &str) -> Option<String> {
        ["cuInit", "CUresult", "cuCtxCreate", "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_MEMCPY2D::srcHost"]
            .contains(&name)
            .then(|| format!("pkg.{name}").replace("::", "."))
    }

    fn known_rust(name: &str) -> Option<String> {
        known(name).map(|_| name.to_string())
    }

    fn rst(text: &str) -> String {
        to_rst(text, &known, &|name: &str| format!("py_{name}"))
    }

    fn md(text: &str) -> String {
        to_markdown(text, &known_rust)
    }

    #[test]
    fn brief_becomes_summary_and_continues_on_lowercase_lines() {
        let doc = Doc::parse("\\brief Disables access to a peer and\nunregisters allocations.\nMore text.");
        assert_eq!(doc.summary, vec![Inline::Text("Disables access to a peer and\nunregisters allocations.".into())]);
        assert_eq!(doc.body, vec![Block::Paragraph(vec![Inline::Text("More text.".into())])]);
        let doc = Doc::parse("\\brief Initialize the driver\nInitializes it.");
        assert_eq!(doc.summary, vec![Inline::Text("Initialize the driver".into())]);
    }

    #[test]
    fn param_and_references() {
        let text = "\\brief Init\n\nThe \\p Flags parameter; see ::cuInit() and ::cuUnknown.\n\n\
                    \\param Flags - Initialization flag\n\n\\return\n::CUDA_SUCCESS,\n::CUDA_ERROR_INVALID_VALUE\n\\notefnerr\n";
        let out = rst(text);
        assert_eq!(
            out,
            "Init\n\nThe ``Flags`` parameter; see :py:obj:`~pkg.cuInit` and ``cuUnknown``.\n\n.. note::\n\n   \
             This function may also return error codes from earlier asynchronous launches.\n\n\
             :param py_Flags: Initialization flag\n:returns: :py:obj:`~pkg.CUDA_SUCCESS`,\n    \
             :py:obj:`~pkg.CUDA_ERROR_INVALID_VALUE`\n"
        );
        let out = md(text);
        assert_eq!(
            out,
            "Init\n\nThe `Flags` parameter; see [`cuInit`] and `cuUnknown`.\n\n**Note:** This function may also \
             return error codes from earlier asynchronous launches.\n\n# Parameters\n\n- `Flags`: Initialization \
             flag\n\n# Returns\n\n[`CUDA_SUCCESS`],\n[`CUDA_ERROR_INVALID_VALUE`]\n"
        );
    }

    #[test]
    fn python_parameter_names_are_escaped_in_fields() {
        let out = to_rst("\\param from - Source", &known, &|name: &str| format!("{name}_"));
        assert_eq!(out, ":param from\\_: Source\n");
    }

    #[test]
    fn param_with_direction_and_continuation() {
        let doc = Doc::parse("\\param[out] pctx - Returned\n          handle\n\\param[in] flags Flags");
        assert_eq!(doc.params.len(), 2);
        assert_eq!(doc.params[0].0, "pctx");
        assert_eq!(doc.params[0].1, vec![Block::Paragraph(vec![Inline::Text("Returned\nhandle".into())])]);
        assert_eq!(doc.params[1].0, "flags");
    }

    #[test]
    fn nested_bullet_lists() {
        let text = "Where:\n\n- \\p Width is the width\nof the array:\n    - A 1D array if zero.\n    - A 2D array\n      otherwise.\n\n- ::Flags may be\n  - one\n  - two\nAfter.";
        let doc = Doc::parse(text);
        let Block::List { items, ordered: false } = &doc.body[1] else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2));
        let out = rst(text);
        assert_eq!(
            out,
            "Where:\n\n- ``Width`` is the width\n  of the array:\n\n  - A 1D array if zero.\n\n  - A 2D array\n    \
             otherwise.\n\n- ``Flags`` may be\n\n  - one\n\n  - two\n    After.\n"
        );
        assert!(md(text).contains("\n  - A 2D array\n    otherwise.\n"));
    }

    #[test]
    fn numbered_lists_and_plus_bullets() {
        let doc = Doc::parse("1) first\n\n2) second\n  + sub\n");
        let Block::List { ordered: true, items } = &doc.body[0] else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(items[1][1], Block::List { ordered: false, .. }));
        assert_eq!(md("1) first\n\n2) second"), "1. first\n\n2. second\n");
    }

    #[test]
    fn code_blocks_become_literal_and_fenced_c() {
        let text = "Defined as:\n\\code\n  typedef struct {\n      int x;\n  } T;\n\\endcode\nwhere x counts.";
        assert_eq!(rst(text), "Defined as::\n\n    typedef struct {\n        int x;\n    } T;\n\nwhere x counts.\n");
        assert_eq!(md(text), "Defined as:\n\n```c\ntypedef struct {\n    int x;\n} T;\n```\n\nwhere x counts.\n");
        assert_eq!(rst("Text.\n\\code\nint x;\n\\endcode"), "Text.\n\n::\n\n    int x;\n");
    }

    #[test]
    fn notes_warnings_and_deprecated() {
        let out = rst("\\deprecated\n\nOld.\n\n\\note Be careful\nwith this.\n\n\\warning Going away.");
        assert_eq!(
            out,
            ".. admonition:: Deprecated\n\n   This API is deprecated.\n\nOld.\n\n.. note::\n\n   Be careful\n   \
             with this.\n\n.. warning::\n\n   Going away.\n"
        );
        assert_eq!(md("/note Careful."), "**Note:** Careful.\n");
    }

    #[test]
    fn unknown_commands_never_survive() {
        for text in ["\\note_unheard_of\nText \\foo bar.", "\\struct CUfoo\nA struct.", "\\defgroup X Y\n@{\nText."] {
            for out in [rst(text), md(text)] {
                assert!(!out.contains("\\note_") && !out.contains("\\foo") && !out.contains("\\struct"), "{out}");
                assert!(!out.contains("@{") && !out.contains("defgroup"), "{out}");
            }
        }
        assert_eq!(
            rst("\\note_async"),
            ".. note::\n\n   In most cases this function runs asynchronously with respect to the host.\n"
        );
    }

    #[test]
    fn see_also_is_a_reference_list() {
        let text = "Body.\n\n\\sa\n::cuInit,\n::cuCtxCreate\n::cuOther";
        assert_eq!(rst(text), "Body.\n\nSee also: :py:obj:`~pkg.cuInit`, :py:obj:`~pkg.cuCtxCreate`, ``cuOther``\n");
        assert_eq!(md(text), "Body.\n\n# See also\n\n[`cuInit`], [`cuCtxCreate`], `cuOther`\n");
    }

    #[test]
    fn emphasis_strong_line_breaks_and_html() {
        let out = rst("A \\e cubin by \\b nvcc, <b>bold</b> <i>x</i>.\\n Next<br>line");
        assert_eq!(out, "A *cubin* by **nvcc**, **bold** *x*.\n\nNext\n\nline\n");
        let out = md("Up to <N> items in [0, 1] with a*b and x_ and CU_X.");
        assert_eq!(out, "Up to \\<N\\> items in \\[0, 1\\] with a\\*b and x\\_ and CU_X.\n");
    }

    #[test]
    fn member_references_and_urls() {
        let out = rst("See ::CUDA_MEMCPY2D::srcHost at https://example.com/a_b.html.");
        assert_eq!(out, "See :py:obj:`~pkg.CUDA_MEMCPY2D.srcHost` at https://example.com/a_b.html.\n");
        let out = md("See https://example.com/x and ::cuInit(now).");
        assert_eq!(out, "See <https://example.com/x> and [`cuInit`]\\(now).\n");
    }

    #[test]
    fn markup_next_to_words_gets_an_escaped_space() {
        assert_eq!(rst("\\p dptr's and (\\p x) and a\\p y"), "``dptr's`` and (``x``) and a\\ ``y``\n");
        assert_eq!(rst("x ::cuInit()s"), "x :py:obj:`~pkg.cuInit`\\ s\n");
    }

    #[test]
    fn rst_escapes_text_that_would_be_markup() {
        assert_eq!(rst("*addr | value, CU_X_ and name_"), "\\*addr \\| value, CU_X\\_ and name\\_\n");
        assert_eq!(rst("-1 means none"), "\\-1 means none\n");
        assert_eq!(rst("A. Smith"), "\\A. Smith\n");
        assert_eq!(rst("ends with ::"), "ends with :\\:\n");
    }

    #[test]
    fn markdown_escapes_line_starts() {
        assert_eq!(md("a\n# b\n1.5 c\n-1 d"), "a\n\\# b\n1\\.5 c\n\\-1 d\n");
    }

    #[test]
    fn html_tables_and_lists() {
        let text = "Changes:\n<table>\n<tr><th>Node<th>Allowed\n<tr><td>kernel<td>See ::cuInit\n<tr><td>host</td>\n</table>\n<ul>\n<li>one\n  more</li>\n<li>two</li>\n</ul>";
        let out = rst(text);
        assert_eq!(
            out,
            "Changes:\n\n.. list-table::\n   :header-rows: 1\n\n   * - Node\n     - Allowed\n   * - kernel\n     - See \
             :py:obj:`~pkg.cuInit`\n   * - host\n     -\n\n- one\n  more\n\n- two\n"
        );
        let out = md(text);
        assert_eq!(out, "Changes:\n\n| Node | Allowed |\n| --- | --- |\n| kernel | See [`cuInit`] |\n| host |  |\n\n- one\n  more\n\n- two\n");
    }

    #[test]
    fn entities_and_manbrief_markers() {
        assert_eq!(md("64 &times; 64"), "64 \u{d7} 64\n");
        assert_eq!(md("a newline \\\\n and \\\\ alone"), "a newline `\\n` and \\\\ alone\n");
        let out =
            md("\\defgroup G Group\n\n___MANBRIEF___ brief\n(___CURRENT_FILE___) ___ENDMANBRIEF___\n\nText.\n\n@{");
        assert_eq!(out, "Text.\n");
    }

    #[test]
    fn par_titles_details_refs_and_code_spans() {
        let text = "\\brief B\n\\details Details with \\c code and `span`.\n\n\\par Example\nSee \\ref cuInit and \\ref CUDA_GROUP.";
        assert_eq!(
            rst(text),
            "B\n\nDetails with ``code`` and ``span``.\n\n**Example**\n\nSee :py:obj:`~pkg.cuInit` and ``CUDA_GROUP``.\n"
        );
        assert_eq!(
            md(text),
            "B\n\nDetails with `code` and `span`.\n\n**Example**\n\nSee [`cuInit`] and `CUDA_GROUP`.\n"
        );
    }

    #[test]
    fn nested_html_lists() {
        let text = "<ul>\n<li>outer\n<ul><li>inner one</li>\n<li>inner two</li></ul></li>\n<li>last</li>\n</ul>";
        let doc = Doc::parse(text);
        let [Block::List { items, .. }] = doc.body.as_slice() else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2), "{:?}", items[0]);
    }

    #[test]
    fn see_also_with_prose_stays_prose() {
        assert_eq!(md("\\sa The \\p x docs"), "# See also\n\nThe `x` docs\n");
    }

    #[test]
    fn block_commands_after_text_start_their_block() {
        let doc =
            Doc::parse("Use it like this: \\code\nf();\n\\endcode\nSize for a\nkernel \\param blockSize Block size.");
        assert_eq!(
            doc.body,
            vec![
                Block::Paragraph(vec![Inline::Text("Use it like this:".into())]),
                Block::Code("f();".into()),
                Block::Paragraph(vec![Inline::Text("Size for a\nkernel".into())]),
            ]
        );
        assert_eq!(
            doc.params,
            vec![("blockSize".into(), vec![Block::Paragraph(vec![Inline::Text("Block size.".into())])])]
        );
    }

    #[test]
    fn empty_input_renders_nothing() {
        assert_eq!(rst(""), "");
        assert_eq!(md("  \n"), "");
    }
}
