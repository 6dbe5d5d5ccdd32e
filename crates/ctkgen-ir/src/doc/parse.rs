//! The comment -> tree parser: sections (`\brief`, `\param`, `\return`, `\sa`, notes), then
//! the blocks of each (paragraphs, lists, code, HTML tables and lists). Inline pieces are
//! `inline.rs`'s job.

use std::borrow::Cow;

use super::inline::{is_ident_char, is_inline_command, parse_inlines, trim_inlines};
use super::{split_lines, AdmonitionKind, Block, Direction, Doc, DocAliases, Inline, Param};

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

/// A `\param` entry before its lines are parsed into blocks.
struct ParamLines<'a> {
    name: String,
    direction: Option<Direction>,
    lines: Vec<Cow<'a, str>>,
}

enum Chunk<'a> {
    Lines(Vec<Cow<'a, str>>),
    Admonition(AdmonitionKind, Vec<Cow<'a, str>>),
    Title(String),
}

impl Doc {
    /// Parses the cleaned text stored in the model (comment markers already removed). A line
    /// starting with one of `aliases` (`\name`) becomes a note holding its sentence.
    pub fn parse(text: &str, aliases: &DocAliases) -> Doc {
        let text: Cow<str> =
            if text.contains('\t') { Cow::Owned(text.replace('\t', "    ")) } else { Cow::Borrowed(text) };
        let text = if has_triple_underscore(&text) { Cow::Owned(strip_manbrief(&text)) } else { text };
        let lines = logical_lines(&text);
        let mut brief = String::new();
        let mut chunks: Vec<Chunk> = Vec::new();
        let mut params: Vec<ParamLines> = Vec::new();
        let mut returns: Vec<Cow<str>> = Vec::new();
        let mut see_also = String::new();
        let mut section = Section::Body;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim();
            i += 1;
            if trimmed == "<!--" || trimmed == "-->" {
                // An HTML comment's markers on lines of their own (a header may wrap a whole
                // comment in one): the text between them is the documentation there is.
                continue;
            }
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
                        let (direction, rest) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
                            Some((stated, rest)) => (direction(stated), rest),
                            None => (None, rest),
                        };
                        let mut words = rest.trim_start().splitn(2, char::is_whitespace);
                        // `\param *graphId` names the parameter `graphId`.
                        let name = words.next().unwrap_or_default().trim_start_matches(['*', '&']).to_string();
                        let text = words.next().unwrap_or_default().trim();
                        let text = text.strip_prefix('-').unwrap_or(text).trim_start();
                        params.push(ParamLines { name, direction, lines: vec![Cow::Borrowed(text)] });
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
                        if let Some(sentence) = aliases.get(command) {
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

        let mut doc = Doc { summary: parse_inlines(brief.trim(), aliases), ..Doc::default() };
        for chunk in chunks {
            match chunk {
                Chunk::Lines(lines) => doc.body.extend(parse_blocks(&lines, aliases)),
                Chunk::Title(title) => {
                    let inlines = parse_inlines(&title, aliases);
                    doc.body.push(Block::Paragraph(match inlines.as_slice() {
                        [Inline::Text(text)] => vec![Inline::Strong(text.trim().to_string())],
                        _ => inlines,
                    }));
                }
                Chunk::Admonition(kind, lines) => {
                    let mut blocks = parse_blocks(&lines, aliases);
                    if blocks.is_empty() {
                        if kind != AdmonitionKind::Deprecated {
                            continue;
                        }
                        blocks.push(Block::Paragraph(vec![Inline::Text("This API is deprecated.".into())]));
                    }
                    // Notes that follow each other (two aliases on adjacent lines) read as one.
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
        doc.params = params
            .into_iter()
            .map(|p| Param { name: p.name, direction: p.direction, blocks: parse_blocks(&p.lines, aliases) })
            .collect();
        doc.returns = parse_blocks(&returns, aliases);
        doc.see_also = parse_inlines(see_also.trim(), aliases);
        doc
    }
}

/// The direction `\param[...]` states: `in`, `out`, `in,out` (spaces allowed, as in
/// `[in, out]`); `None` for anything else.
fn direction(stated: &str) -> Option<Direction> {
    let mut parts = stated.split(',').map(str::trim);
    match (parts.next(), parts.next(), parts.next()) {
        (Some("in"), None, _) => Some(Direction::In),
        (Some("out"), None, _) => Some(Direction::Out),
        (Some("inout"), None, _) | (Some("in"), Some("out"), None) | (Some("out"), Some("in"), None) => {
            Some(Direction::InOut)
        }
        _ => None,
    }
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
    params: &mut [ParamLines<'a>],
    returns: &mut Vec<Cow<'a, str>>,
    lines: impl IntoIterator<Item = Cow<'a, str>>,
) {
    match section {
        Section::Param(index) => params[*index].lines.extend(lines),
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
fn parse_blocks(lines: &[Cow<str>], aliases: &DocAliases) -> Vec<Block> {
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
                    if let Some(table) = parse_table(&inner, aliases) {
                        blocks.push(table);
                    }
                }
                _ => {
                    let items = split_html_items(&inner, aliases);
                    if !items.is_empty() {
                        blocks.push(Block::List { ordered: tag == "ol", items });
                    }
                }
            }
            continue;
        }
        if let Some(marker) = list_marker(line) {
            let (block, next) = parse_list(lines, i, &marker, aliases);
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
        push_paragraphs(&mut blocks, parse_inlines(&joined, aliases));
    }
    blocks
}

/// A paragraph, split where the source forces a line break (`\n`, `<br>`).
pub(super) fn push_paragraphs(blocks: &mut Vec<Block>, inlines: Vec<Inline>) {
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

fn parse_list(lines: &[Cow<str>], start: usize, first: &Marker, aliases: &DocAliases) -> (Block, usize) {
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
        items.push(parse_blocks(&item, aliases));
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

fn split_html_items(inner: &str, aliases: &DocAliases) -> Vec<Vec<Block>> {
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
        items.push(parse_blocks(&lines, aliases));
    }
    items
}

fn parse_table(inner: &str, aliases: &DocAliases) -> Option<Block> {
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
            cells.push(trim_inlines(parse_inlines(&text.join(" "), aliases)));
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

#[cfg(test)]
mod tests {
    use super::super::testing::aliases;
    use super::*;

    fn parse(text: &str) -> Doc {
        Doc::parse(text, &DocAliases::new())
    }

    fn paragraph(text: &str) -> Block {
        Block::Paragraph(vec![Inline::Text(text.into())])
    }

    #[test]
    fn brief_becomes_summary_and_continues_on_lowercase_lines() {
        let doc = parse("\\brief Disables access to a peer and\nunregisters allocations.\nMore text.");
        assert_eq!(doc.summary, vec![Inline::Text("Disables access to a peer and\nunregisters allocations.".into())]);
        assert_eq!(doc.body, vec![paragraph("More text.")]);
        let doc = parse("\\brief Initialize the driver\nInitializes it.");
        assert_eq!(doc.summary, vec![Inline::Text("Initialize the driver".into())]);
    }

    #[test]
    fn param_with_direction_and_continuation() {
        let doc = parse("\\param[out] pctx - Returned\n          handle\n\\param[in] flags Flags");
        assert_eq!(doc.params.len(), 2);
        assert_eq!(doc.params[0].name, "pctx");
        assert_eq!(doc.params[0].blocks, vec![paragraph("Returned\nhandle")]);
        assert_eq!(doc.params[1].name, "flags");
    }

    #[test]
    fn every_form_of_a_stated_direction_is_read() {
        let doc = parse(
            "\\param[out] a - A\n\\param [in,out] b - B\n\\param[in] c C\n@param[out] d D\n\
             \\param   [in]  e   E.\n\\param[in, out] f F\n@param [in] g G\n\\param h - H\n\
             \\param[sideways] i I\n\\param *j - J",
        );
        let read: Vec<(&str, Option<Direction>, String)> =
            doc.params.iter().map(|p| (p.name.as_str(), p.direction, p.text())).collect();
        assert_eq!(
            read,
            [
                ("a", Some(Direction::Out), "A".to_string()),
                ("b", Some(Direction::InOut), "B".into()),
                ("c", Some(Direction::In), "C".into()),
                ("d", Some(Direction::Out), "D".into()),
                ("e", Some(Direction::In), "E.".into()),
                ("f", Some(Direction::InOut), "F".into()),
                ("g", Some(Direction::In), "G".into()),
                ("h", None, "H".into()),
                // An unknown direction is no direction, and never the parameter's name.
                ("i", None, "I".into()),
                ("j", None, "J".into()),
            ]
        );
    }

    #[test]
    fn an_alias_in_the_table_becomes_a_note_with_its_sentence() {
        let aliases = aliases();
        let doc = Doc::parse("Does it.\n\\note_errors\n\\note_queued\n", &aliases);
        let note = |text: &str| paragraph(text);
        assert_eq!(
            doc.body,
            vec![
                paragraph("Does it."),
                // Notes that follow each other read as one.
                Block::Admonition(
                    AdmonitionKind::Note,
                    vec![note("This call may also return earlier errors."), note("This call is queued.")]
                ),
            ]
        );
    }

    #[test]
    fn an_alias_not_in_the_table_is_dropped_like_any_unknown_command() {
        let text = "Does it.\n\\note_errors\n";
        let without = parse(text);
        assert_eq!(without.body, vec![paragraph("Does it.")]);
        assert_eq!(without, parse("Does it.\n\\unheard_of\n"));
        // Inline, `@word` is text unless it is a command or an alias; an alias there is dropped.
        assert_eq!(parse("Mail x@note_errors now").body, vec![paragraph("Mail x@note_errors now")]);
        assert_eq!(Doc::parse("Mail x@note_errors now", &aliases()).body, vec![paragraph("Mail x now")]);
    }

    #[test]
    fn numbered_lists_and_plus_bullets() {
        let doc = parse("1) first\n\n2) second\n  + sub\n");
        let Block::List { ordered: true, items } = &doc.body[0] else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(items[1][1], Block::List { ordered: false, .. }));
    }

    #[test]
    fn nested_bullet_lists() {
        let doc = parse("Where:\n\n- \\p Width is the width\nof the array:\n    - A 1D array if zero.\n    - A 2D array\n      otherwise.\n\n- ::Flags may be\n  - one\n  - two\nAfter.");
        let Block::List { items, ordered: false } = &doc.body[1] else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2));
    }

    #[test]
    fn nested_html_lists() {
        let text = "<ul>\n<li>outer\n<ul><li>inner one</li>\n<li>inner two</li></ul></li>\n<li>last</li>\n</ul>";
        let doc = parse(text);
        let [Block::List { items, .. }] = doc.body.as_slice() else { panic!("{:?}", doc.body) };
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2), "{:?}", items[0]);
    }

    #[test]
    fn block_commands_after_text_start_their_block() {
        let doc = parse("Use it like this: \\code\nf();\n\\endcode\nSize for a\nkernel \\param blockSize Block size.");
        assert_eq!(
            doc.body,
            vec![paragraph("Use it like this:"), Block::Code("f();".into()), paragraph("Size for a\nkernel")]
        );
        assert_eq!(
            doc.params,
            vec![Param { name: "blockSize".into(), direction: None, blocks: vec![paragraph("Block size.")] }]
        );
    }
}
