//! Markdown for rustdoc.

use std::cell::RefCell;
use std::fmt::Write;

use super::{
    byte_set, escape_bytes, finish, is_adornment, push_indent, see_also_list, separate, split_lines, AdmonitionKind,
    Block, Doc, Inline,
};

impl Doc {
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
            for param in &self.params {
                // `name`: and the first paragraph, as one paragraph.
                let code = Inline::Code(param.name.clone());
                let (first, rest): (&[Inline], &[Block]) = match param.blocks.split_first() {
                    Some((Block::Paragraph(first), tail)) => (first, tail),
                    _ => (&[], &param.blocks),
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
    use super::super::testing::{aliases, known_rust};
    use super::*;

    fn md(text: &str) -> String {
        Doc::parse(text, &aliases()).to_markdown(&known_rust)
    }

    #[test]
    fn param_and_references() {
        let text = "\\brief Init\n\nThe \\p Flags parameter; see ::fooInit() and ::fooUnknown.\n\n\
                    \\param Flags - Initialization flag\n\n\\return\n::FOO_OK,\n::FOO_ERROR_VALUE\n\\note_errors\n";
        assert_eq!(
            md(text),
            "Init\n\nThe `Flags` parameter; see [`fooInit`] and `fooUnknown`.\n\n**Note:** This call may also \
             return earlier errors.\n\n# Parameters\n\n- `Flags`: Initialization \
             flag\n\n# Returns\n\n[`FOO_OK`],\n[`FOO_ERROR_VALUE`]\n"
        );
    }

    #[test]
    fn nested_bullet_lists() {
        let text = "Where:\n\n- \\p Width is the width\nof the array:\n    - A 1D array if zero.\n    - A 2D array\n      otherwise.\n\n- ::Flags may be\n  - one\n  - two\nAfter.";
        assert!(md(text).contains("\n  - A 2D array\n    otherwise.\n"));
    }

    #[test]
    fn numbered_lists() {
        assert_eq!(md("1) first\n\n2) second"), "1. first\n\n2. second\n");
    }

    #[test]
    fn code_blocks_are_fenced_as_c() {
        let text = "Defined as:\n\\code\n  typedef struct {\n      int x;\n  } T;\n\\endcode\nwhere x counts.";
        assert_eq!(md(text), "Defined as:\n\n```c\ntypedef struct {\n    int x;\n} T;\n```\n\nwhere x counts.\n");
    }

    #[test]
    fn notes_and_the_slash_note_slip() {
        assert_eq!(md("/note Careful."), "**Note:** Careful.\n");
    }

    #[test]
    fn unknown_commands_never_survive() {
        for text in ["\\note_unheard_of\nText \\foo bar.", "\\struct FooThing\nA struct.", "\\defgroup X Y\n@{\nText."]
        {
            let out = md(text);
            assert!(!out.contains("\\note_") && !out.contains("\\foo") && !out.contains("\\struct"), "{out}");
            assert!(!out.contains("@{") && !out.contains("defgroup"), "{out}");
        }
    }

    #[test]
    fn see_also_is_a_reference_list_unless_it_is_prose() {
        let text = "Body.\n\n\\sa\n::fooInit,\n::fooCtxCreate\n::fooOther";
        assert_eq!(md(text), "Body.\n\n# See also\n\n[`fooInit`], [`fooCtxCreate`], `fooOther`\n");
        assert_eq!(md("\\sa The \\p x docs"), "# See also\n\nThe `x` docs\n");
    }

    #[test]
    fn text_that_would_be_markup_is_escaped() {
        let out = md("Up to <N> items in [0, 1] with a*b and x_ and FOO_X.");
        assert_eq!(out, "Up to \\<N\\> items in \\[0, 1\\] with a\\*b and x\\_ and FOO_X.\n");
        assert_eq!(md("a\n# b\n1.5 c\n-1 d"), "a\n\\# b\n1\\.5 c\n\\-1 d\n");
    }

    #[test]
    fn urls_and_links_followed_by_a_parenthesis() {
        let out = md("See https://example.com/x and ::fooInit(now).");
        assert_eq!(out, "See <https://example.com/x> and [`fooInit`]\\(now).\n");
    }

    #[test]
    fn html_tables_and_lists() {
        let text = "Changes:\n<table>\n<tr><th>Node<th>Allowed\n<tr><td>kernel<td>See ::fooInit\n<tr><td>host</td>\n</table>\n<ul>\n<li>one\n  more</li>\n<li>two</li>\n</ul>";
        assert_eq!(
            md(text),
            "Changes:\n\n| Node | Allowed |\n| --- | --- |\n| kernel | See [`fooInit`] |\n| host |  |\n\n- one\n  more\n\n- two\n"
        );
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
        let text = "\\brief B\n\\details Details with \\c code and `span`.\n\n\\par Example\nSee \\ref fooInit and \\ref FOO_GROUP.";
        assert_eq!(
            md(text),
            "B\n\nDetails with `code` and `span`.\n\n**Example**\n\nSee [`fooInit`] and `FOO_GROUP`.\n"
        );
    }

    #[test]
    fn empty_input_renders_nothing() {
        assert_eq!(md("  \n"), "");
    }
}
