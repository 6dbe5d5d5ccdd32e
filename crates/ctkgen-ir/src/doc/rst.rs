//! reStructuredText for Python docstrings.

use std::cell::RefCell;
use std::fmt::Write;

use super::parse::push_paragraphs;
use super::{
    byte_set, escape_bytes, finish, is_adornment, push_indent, see_also_list, separate, split_lines, AdmonitionKind,
    Block, Doc, Inline,
};

impl Doc {
    /// reStructuredText for a Python docstring. `resolve` maps a C name (`fooInit`,
    /// `FooRecord::member`) to the full Python target of a `:py:obj:` role, or `None` when
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
        for param in &self.params {
            // A field name is inline text: `from_` there would be a reference.
            field.clear();
            field.push_str("param ");
            rst_escape(&param_name(&param.name), &mut field);
            rst.field(&field, &param.blocks, &mut out);
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
}

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

#[cfg(test)]
mod tests {
    use super::super::testing::{aliases, known};
    use super::*;

    fn rst(text: &str) -> String {
        Doc::parse(text, &aliases()).to_rst(&known, &|name: &str| format!("py_{name}"))
    }

    #[test]
    fn param_and_references() {
        let text = "\\brief Init\n\nThe \\p Flags parameter; see ::fooInit() and ::fooUnknown.\n\n\
                    \\param Flags - Initialization flag\n\n\\return\n::FOO_OK,\n::FOO_ERROR_VALUE\n\\note_errors\n";
        assert_eq!(
            rst(text),
            "Init\n\nThe ``Flags`` parameter; see :py:obj:`~pkg.fooInit` and ``fooUnknown``.\n\n.. note::\n\n   \
             This call may also return earlier errors.\n\n\
             :param py_Flags: Initialization flag\n:returns: :py:obj:`~pkg.FOO_OK`,\n    \
             :py:obj:`~pkg.FOO_ERROR_VALUE`\n"
        );
    }

    #[test]
    fn a_c_escape_in_prose_is_kept() {
        // `\0` is no command: the backslash stays, escaped for reStructuredText.
        assert_eq!(rst("The null character ('\\0')."), "The null character ('\\\\0').\n");
    }

    #[test]
    fn html_comment_markers_on_their_own_lines_are_dropped() {
        assert_eq!(
            rst("<!--\n\\brief Adds an index.\n\nNo way to make one yet.\n-->"),
            "Adds an index.\n\nNo way to make one yet.\n"
        );
    }

    #[test]
    fn a_restructuredtext_link_is_its_text_and_address() {
        assert_eq!(
            rst("As ptxas takes. `See here <https://example.com/a#b>`__."),
            "As ptxas takes. See here (https://example.com/a#b).\n"
        );
    }

    #[test]
    fn a_stray_colon_before_a_reference_is_dropped() {
        // `:::fooInit` is a typo of `::fooInit`; a third colon would be left before the role.
        assert_eq!(rst("See ::fooUnknown, :::fooInit."), "See ``fooUnknown``, :py:obj:`~pkg.fooInit`.\n");
    }

    #[test]
    fn python_parameter_names_are_escaped_in_fields() {
        let out = Doc::parse("\\param from - Source", &aliases()).to_rst(&known, &|name: &str| format!("{name}_"));
        assert_eq!(out, ":param from\\_: Source\n");
    }

    #[test]
    fn nested_bullet_lists() {
        let text = "Where:\n\n- \\p Width is the width\nof the array:\n    - A 1D array if zero.\n    - A 2D array\n      otherwise.\n\n- ::Flags may be\n  - one\n  - two\nAfter.";
        assert_eq!(
            rst(text),
            "Where:\n\n- ``Width`` is the width\n  of the array:\n\n  - A 1D array if zero.\n\n  - A 2D array\n    \
             otherwise.\n\n- ``Flags`` may be\n\n  - one\n\n  - two\n    After.\n"
        );
    }

    #[test]
    fn code_blocks_become_literal_blocks() {
        let text = "Defined as:\n\\code\n  typedef struct {\n      int x;\n  } T;\n\\endcode\nwhere x counts.";
        assert_eq!(rst(text), "Defined as::\n\n    typedef struct {\n        int x;\n    } T;\n\nwhere x counts.\n");
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
    }

    #[test]
    fn unknown_commands_never_survive() {
        for text in ["\\note_unheard_of\nText \\foo bar.", "\\struct FooThing\nA struct.", "\\defgroup X Y\n@{\nText."]
        {
            let out = rst(text);
            assert!(!out.contains("\\note_") && !out.contains("\\foo") && !out.contains("\\struct"), "{out}");
            assert!(!out.contains("@{") && !out.contains("defgroup"), "{out}");
        }
        assert_eq!(rst("\\note_queued"), ".. note::\n\n   This call is queued.\n");
    }

    #[test]
    fn see_also_is_a_reference_list() {
        let text = "Body.\n\n\\sa\n::fooInit,\n::fooCtxCreate\n::fooOther";
        assert_eq!(rst(text), "Body.\n\nSee also: :py:obj:`~pkg.fooInit`, :py:obj:`~pkg.fooCtxCreate`, ``fooOther``\n");
    }

    #[test]
    fn emphasis_strong_and_line_breaks() {
        let out = rst("A \\e cubin by \\b nvcc, <b>bold</b> <i>x</i>.\\n Next<br>line");
        assert_eq!(out, "A *cubin* by **nvcc**, **bold** *x*.\n\nNext\n\nline\n");
    }

    #[test]
    fn member_references_and_urls() {
        let out = rst("See ::FooCopy::srcHost at https://example.com/a_b.html.");
        assert_eq!(out, "See :py:obj:`~pkg.FooCopy.srcHost` at https://example.com/a_b.html.\n");
    }

    #[test]
    fn markup_next_to_words_gets_an_escaped_space() {
        assert_eq!(rst("\\p dptr's and (\\p x) and a\\p y"), "``dptr's`` and (``x``) and a\\ ``y``\n");
        assert_eq!(rst("x ::fooInit()s"), "x :py:obj:`~pkg.fooInit`\\ s\n");
    }

    #[test]
    fn rst_escapes_text_that_would_be_markup() {
        assert_eq!(rst("*addr | value, FOO_X_ and name_"), "\\*addr \\| value, FOO_X\\_ and name\\_\n");
        assert_eq!(rst("-1 means none"), "\\-1 means none\n");
        assert_eq!(rst("A. Smith"), "\\A. Smith\n");
        assert_eq!(rst("ends with ::"), "ends with :\\:\n");
    }

    #[test]
    fn html_tables_and_lists() {
        let text = "Changes:\n<table>\n<tr><th>Node<th>Allowed\n<tr><td>kernel<td>See ::fooInit\n<tr><td>host</td>\n</table>\n<ul>\n<li>one\n  more</li>\n<li>two</li>\n</ul>";
        assert_eq!(
            rst(text),
            "Changes:\n\n.. list-table::\n   :header-rows: 1\n\n   * - Node\n     - Allowed\n   * - kernel\n     - See \
             :py:obj:`~pkg.fooInit`\n   * - host\n     -\n\n- one\n  more\n\n- two\n"
        );
    }

    #[test]
    fn par_titles_details_refs_and_code_spans() {
        let text = "\\brief B\n\\details Details with \\c code and `span`.\n\n\\par Example\nSee \\ref fooInit and \\ref FOO_GROUP.";
        assert_eq!(
            rst(text),
            "B\n\nDetails with ``code`` and ``span``.\n\n**Example**\n\nSee :py:obj:`~pkg.fooInit` and ``FOO_GROUP``.\n"
        );
    }

    #[test]
    fn a_quoted_word_keeps_its_closing_quote() {
        assert_eq!(
            rst("Returns \\c \"FOO_OK\". Else \\c \"FOO_ERROR unknown\"."),
            "Returns ``\"FOO_OK\"``. Else ``\"FOO_ERROR`` unknown\".\n"
        );
        assert_eq!(rst("Named \\p name\" here."), "Named ``name``\" here.\n");
    }

    #[test]
    fn empty_input_renders_nothing() {
        assert_eq!(rst(""), "");
    }
}
