//! The text an enum member carries as `__doc__`, in the form the compatible package gives it:
//! libraries built on it turn these texts into error explanations and compare some with what
//! they reviewed (cuda.core's), so the text follows the compatible package's rendering of the
//! same header comment rather than this package's reStructuredText docstrings (the stubs keep
//! those). The rules were read off the official releases' texts (13.2.0 and 13.3.1) against the
//! headers; `tests/python/test_member_docs.py` compares every member. The raise-convention
//! modules' members keep their comment as written (`plain_member_doc`).
//!
//! - Paragraphs (blank lines in the comment) are kept apart by one newline; within one, lines
//!   are joined and wrapped again at 75 columns as Python's `textwrap.fill` wraps (words broken
//!   after a hyphen between letters, long words never broken); the text ends with a newline.
//! - A literal `\n` in the comment and an HTML `<br>` break the line (after `<br>` the next line
//!   keeps the space that followed it).
//! - `\deprecated` ends the paragraph: what follows it is left out and `[Deprecated]` stands
//!   in its place.
//! - `\p x` and `\c x` are `` `x` ``; `__x__` (Markdown bold) is `x`; a trailing `*` goes.
//! - `::name`, `::Type::member` and `::function()` are `` :py:obj:`~.name` ``,
//!   `` :py:obj:`~.Type.member` ``, `` :py:obj:`~.function()` ``; without the leading `::` the
//!   same links are made, as Doxygen makes them, for a record's tag name, for `Type::member`
//!   where the type is a record, and for a function of the library followed by `()`.
//! - `\ref target "Title"` is a link to the title's first word, the rest of the title and its
//!   closing quote left as text after it (as the official text has it); a `\ref` without a
//!   title is its target as text.

use rustc_hash::FxHashSet as HashSet;

use ctkgen_ir::{Api, Type};

/// The columns the text is wrapped to.
const WIDTH: usize = 75;

/// What a comment's bare names may link to: the library's functions, its records' tag names,
/// and every name of a record (tags and the typedefs that name one).
pub(super) struct LinkNames {
    functions: HashSet<String>,
    tags: HashSet<String>,
    records: HashSet<String>,
}

impl LinkNames {
    pub(super) fn new(api: &Api) -> LinkNames {
        let tags: HashSet<String> = api.records.iter().filter(|r| r.parent.is_none()).map(|r| r.name.clone()).collect();
        let mut records = tags.clone();
        for t in &api.typedefs {
            let mut ty = &t.ty;
            for _ in 0..16 {
                match ty {
                    Type::Typedef { name } => match api.typedefs.iter().find(|d| d.name == *name) {
                        Some(next) => ty = &next.ty,
                        None => break,
                    },
                    _ => break,
                }
            }
            if matches!(ty, Type::Record { .. }) {
                records.insert(t.name.clone());
            }
        }
        LinkNames { functions: api.functions.iter().map(|f| f.name.clone()).collect(), tags, records }
    }
}

/// The `__doc__` of a member of a raise-convention module: the compatible
/// package keeps its comment as written, lines joined, neither wrapped nor ended by a newline.
pub(super) fn plain_member_doc(raw: &str) -> Option<String> {
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// The member's `__doc__` from its header comment, or `None` without one.
pub(super) fn member_doc(raw: Option<&str>, names: &LinkNames) -> Option<String> {
    let raw = raw?;
    let mut paragraphs = Vec::new();
    for paragraph in split_paragraphs(raw) {
        let mut text = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(at) = text.find("\\deprecated") {
            text.truncate(at);
            text.push_str("[Deprecated]");
        }
        if text.ends_with('*') {
            text.pop();
            text.truncate(text.trim_end().len());
        }
        let text = autolinks(&scoped_links(&refs(&bold(&code_words(&text)))), names);
        let lines: Vec<String> = line_breaks(&text).iter().filter(|s| !s.trim().is_empty()).map(|s| fill(s)).collect();
        if !lines.is_empty() {
            paragraphs.push(lines.join("\n"));
        }
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n") + "\n")
}

/// The comment's paragraphs: runs of lines between blank lines.
fn split_paragraphs(raw: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in raw.lines() {
        if line.trim().is_empty() {
            if !out.last().is_some_and(String::is_empty) {
                out.push(String::new());
            }
        } else {
            let last = out.last_mut().expect("one paragraph at least");
            last.push_str(line);
            last.push('\n');
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The length of the identifier (`\w+`) at the start of `s`, in bytes.
fn word_len(s: &str) -> usize {
    s.char_indices().find(|&(_, c)| !is_word(c)).map_or(s.len(), |(i, _)| i)
}

/// `\p x` and `\c x` (an identifier, maybe `*`s before it and `()` after) as `` `x` ``.
fn code_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let arg = tail.strip_prefix("\\p ").or_else(|| tail.strip_prefix("\\c "));
        let taken = arg.and_then(|arg| {
            let stars = arg.len() - arg.trim_start_matches('*').len();
            let word = word_len(&arg[stars..]);
            (word > 0).then(|| {
                let mut end = stars + word;
                if arg[end..].starts_with("()") {
                    end += 2;
                }
                (&arg[..end], 3 + end)
            })
        });
        match taken {
            Some((word, used)) => {
                out.push('`');
                out.push_str(word);
                out.push('`');
                rest = &tail[used..];
            }
            None => {
                out.push('\\');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `__x__` between word boundaries (Markdown bold) as `x`, outside `` `code` ``.
fn bold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_code = false;
    while i < text.len() {
        let tail = &text[i..];
        let boundary = !text[..i].chars().next_back().is_some_and(is_word);
        if tail.starts_with('`') {
            in_code = !in_code;
        }
        if boundary && !in_code && tail.starts_with("__") {
            // The shortest identifier followed by `__` and a boundary.
            let inner = &tail[2..];
            let word = word_len(inner);
            let end = (1..word.saturating_sub(1))
                .find(|&n| inner[n..].starts_with("__") && !inner[n + 2..].chars().next().is_some_and(is_word));
            if let Some(n) = end.filter(|_| inner.is_char_boundary(word)) {
                out.push_str(&inner[..n]);
                i += 2 + n + 2;
                continue;
            }
        }
        let c = tail.chars().next().expect("within the text");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `\ref target "Title..."`: a link to the title's first word; `\ref target` alone: the target.
fn refs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\ref ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "\\ref ".len()..];
        let target_len = after.find(char::is_whitespace).unwrap_or(after.len());
        let (target, tail) = after.split_at(target_len);
        if target.is_empty() {
            out.push_str("\\ref ");
            rest = after;
            continue;
        }
        let title = tail.strip_prefix(' ').and_then(|t| t.strip_prefix('"'));
        match title.filter(|t| word_len(t) > 0) {
            Some(title) => {
                let word = word_len(title);
                out.push_str(&format!(":py:obj:`~.{}`", &title[..word]));
                let mut tail = title[word..].trim_start();
                if let Some(closed) = tail.strip_prefix('"') {
                    tail = closed;
                }
                rest = tail;
            }
            None => {
                out.push_str(target);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `::name(::member)*` and an optional `()` after it, not inside another name, as a link.
fn scoped_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let tail = &text[i..];
        let before = text[..i].chars().next_back();
        if tail.starts_with("::") && !before.is_some_and(|c| is_word(c) || c == ':') {
            let (parts, used) = scoped_name(&tail[2..]);
            if !parts.is_empty() {
                let mut end = 2 + used;
                let paren = if text[i + end..].starts_with("()") { "()" } else { "" };
                end += paren.len();
                out.push_str(&format!(":py:obj:`~.{}{paren}`", parts.join(".")));
                i += end;
                continue;
            }
        }
        let c = tail.chars().next().expect("within the text");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The identifiers of `a::b::c` at the start of `s`, and the bytes they take.
fn scoped_name(s: &str) -> (Vec<&str>, usize) {
    let mut parts = Vec::new();
    let first = word_len(s);
    if first == 0 {
        return (parts, 0);
    }
    parts.push(&s[..first]);
    let mut used = first;
    while let Some(next) = s[used..].strip_prefix("::") {
        let len = word_len(next);
        if len == 0 {
            break;
        }
        parts.push(&next[..len]);
        used += 2 + len;
    }
    (parts, used)
}

/// Doxygen's links made without `::`: a record's tag name, `Record::member`, `function()`.
fn autolinks(text: &str, names: &LinkNames) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let tail = &text[i..];
        let c = tail.chars().next().expect("within the text");
        let before = text[..i].chars().next_back();
        let starts = (c.is_ascii_alphabetic() || c == '_')
            && !before.is_some_and(|b| is_word(b) || matches!(b, '.' | '`' | '~' | ':'));
        if !starts {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let (parts, used) = scoped_name(tail);
        let paren = tail[used..].starts_with("()");
        let end = used + if paren { 2 } else { 0 };
        let blocked = |at: usize| tail[at..].chars().next().is_some_and(|n| is_word(n) || n == '`');
        let linked = if blocked(end) {
            None
        } else if paren && parts.len() == 1 && names.functions.contains(parts[0]) {
            Some(format!(":py:obj:`~.{}()`", parts[0]))
        } else if !paren
            && ((parts.len() > 1 && names.records.contains(parts[0]))
                || (parts.len() == 1 && names.tags.contains(parts[0])))
        {
            Some(format!(":py:obj:`~.{}`", parts.join(".")))
        } else {
            None
        };
        match linked {
            Some(link) => out.push_str(&link),
            None => out.push_str(&tail[..end]),
        }
        i += end;
    }
    out
}

/// The paragraph cut at each literal `\n` (the space after it dropped) and each `<br>` (the
/// space before it dropped, the one after kept).
fn line_breaks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut rest = text;
    loop {
        let newline = rest.find("\\n").filter(|&at| !rest[at + 2..].starts_with(|c: char| c.is_ascii_alphabetic()));
        let br = rest.find("<br>");
        let first_newline = match (newline, br) {
            (None, None) => break,
            (Some(n), Some(b)) => n < b,
            (newline, _) => newline.is_some(),
        };
        if first_newline {
            let n = newline.expect("a line break found");
            current.push_str(&rest[..n]);
            out.push(std::mem::take(&mut current));
            rest = rest[n + 2..].trim_start();
        } else {
            let b = br.expect("a line break found");
            current.push_str(rest[..b].trim_end());
            out.push(std::mem::take(&mut current));
            rest = &rest[b + "<br>".len()..];
        }
    }
    current.push_str(rest);
    out.push(current);
    out
}

/// Python's `textwrap.fill(text, width=75, break_long_words=False)` of one line of text whose
/// whitespace is single spaces (a leading one is kept, as textwrap keeps it).
fn fill(text: &str) -> String {
    let chunks = chunks(text);
    let mut lines: Vec<String> = Vec::new();
    let mut at = 0;
    while at < chunks.len() {
        if !lines.is_empty() && chunks[at].trim().is_empty() {
            at += 1;
            continue;
        }
        let mut line: Vec<&str> = Vec::new();
        let mut len = 0;
        while at < chunks.len() && len + chunks[at].chars().count() <= WIDTH {
            len += chunks[at].chars().count();
            line.push(chunks[at]);
            at += 1;
        }
        if at < chunks.len() && chunks[at].chars().count() > WIDTH && line.is_empty() {
            line.push(chunks[at]);
            at += 1;
        }
        if line.last().is_some_and(|c| c.trim().is_empty()) {
            line.pop();
        }
        if !line.is_empty() {
            lines.push(line.concat());
        }
    }
    lines.join("\n")
}

/// textwrap's chunks: runs of spaces, and words, a word broken after a hyphen that has two
/// letters (or letter, hyphen, letter) before it and letter, optional hyphen, letter after it.
fn chunks(text: &str) -> Vec<&str> {
    let letter = |c: char| is_word(c) && !c.is_ascii_digit() && !c.is_numeric();
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let start = chars[i].0;
        if chars[i].1 == ' ' {
            while i < chars.len() && chars[i].1 == ' ' {
                i += 1;
            }
        } else {
            let first = i;
            i += 1;
            while i < chars.len() && chars[i].1 != ' ' {
                let c = |k: usize| chars.get(k).map(|p| p.1);
                // A break after the hyphen at i - 1, the word having at least one character before it.
                let at_hyphen = i >= first + 2 && c(i - 1) == Some('-');
                if at_hyphen {
                    let h = i - 1;
                    let two_letters = h >= 2 && c(h - 1).is_some_and(letter) && c(h - 2).is_some_and(letter);
                    let hyphenated =
                        h >= 3 && c(h - 1).is_some_and(letter) && c(h - 2) == Some('-') && c(h - 3).is_some_and(letter);
                    let ahead = c(i).is_some_and(letter)
                        && (c(i + 1).is_some_and(letter) || (c(i + 1) == Some('-') && c(i + 2).is_some_and(letter)));
                    if (two_letters || hyphenated) && ahead {
                        break;
                    }
                }
                i += 1;
            }
        }
        let end = chars.get(i).map_or(text.len(), |p| p.0);
        out.push(&text[start..end]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> LinkNames {
        let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<HashSet<String>>();
        LinkNames {
            functions: set(&["widgetInit", "widgetReset"]),
            tags: set(&["widgetParams"]),
            records: set(&["widgetParams", "widgetWindow", "widgetValue"]),
        }
    }

    fn doc(raw: &str) -> String {
        member_doc(Some(raw), &names()).unwrap()
    }

    #[test]
    fn links_take_the_compatible_form() {
        assert_eq!(
            doc("Not initialized with\n::widgetInit() or ::widgetValue::count, see ::WIDGET_OK."),
            "Not initialized with :py:obj:`~.widgetInit()` or\n:py:obj:`~.widgetValue.count`, see \
             :py:obj:`~.WIDGET_OK`.\n"
        );
        // Bare names: a record tag, Record::member, a known function with (); nothing else.
        assert_eq!(
            doc("Adds widgetParams and widgetWindow::size, widgetReset() and other() to WIDGET_OK"),
            "Adds :py:obj:`~.widgetParams` and :py:obj:`~.widgetWindow.size`,\n:py:obj:`~.widgetReset()` and \
             other() to WIDGET_OK\n"
        );
        assert_eq!(doc("Uses \\p *data and \\c widgetReset()."), "Uses `*data` and `widgetReset()`.\n");
        assert_eq!(doc("in `__launch_bounds__` or __global__"), "in `__launch_bounds__` or global\n");
    }

    #[test]
    fn refs_link_the_first_word_of_their_title() {
        assert_eq!(
            doc("see \\ref group_x \"Interactions with X\" here"),
            "see :py:obj:`~.Interactions`with X\" here\n"
        );
        assert_eq!(doc("see \\ref attr::value \"value\" for more"), "see :py:obj:`~.value` for more\n");
        assert_eq!(doc("See \\ref WIDGET_OPS for details."), "See WIDGET_OPS for details.\n");
    }

    #[test]
    fn breaks_paragraphs_and_deprecation() {
        assert_eq!(doc("One (0: false)\\n\nType: int\\n\nApplies: all"), "One (0: false)\nType: int\nApplies: all\n");
        assert_eq!(doc("First.\n<br>\nSecond."), "First.\n Second.\n");
        assert_eq!(doc("Para one\ngoes on.\n\nPara two."), "Para one goes on.\nPara two.\n");
        assert_eq!(doc("Old value.\n\\deprecated\nSince 4.1."), "Old value. [Deprecated]\n");
        assert_eq!(doc("\\deprecated\nGone.\n\nStill valid before 12.0"), "[Deprecated]\nStill valid before 12.0\n");
        assert_eq!(doc("For __constant__ data, belongs to *"), "For constant data, belongs to\n");
        assert_eq!(member_doc(None, &names()), None);
        assert_eq!(
            plain_member_doc("Option `-arch=sm_NN`\n  not specified"),
            Some("Option `-arch=sm_NN` not specified".into())
        );
        assert_eq!(plain_member_doc(""), None);
    }

    #[test]
    fn wraps_as_python_textwrap_does() {
        let text = "make a best-effort attempt to adjust the kernel launch based on that assumption";
        assert_eq!(fill(text), "make a best-effort attempt to adjust the kernel launch based on that\nassumption");
        let hyphen = "Specifies whether the compiler should use (-prec-sqrt) support for the square root ok";
        assert_eq!(
            fill(hyphen),
            "Specifies whether the compiler should use (-prec-sqrt) support for the\nsquare root ok"
        );
        assert_eq!(
            chunks("best-effort (-prec-sqrt) a-b x-1"),
            ["best-", "effort", " ", "(-prec-", "sqrt)", " ", "a-b", " ", "x-1"]
        );
        // A word longer than the width stands alone; a leading space before it is dropped.
        let long = format!(" {} next", "x".repeat(80));
        assert_eq!(fill(&long), format!("{}\nnext", "x".repeat(80)));
        assert_eq!(fill(" Leading space kept"), " Leading space kept");
    }
}
