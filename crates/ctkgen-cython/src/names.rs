//! Naming and escaping: C names that collide with Python or Cython words, and text that has to
//! sit inside Python string literals.

use std::collections::BTreeMap;

/// Words that cannot be used as a Cython argument or attribute name.
const RESERVED: &[&str] = &[
    // Python keywords and soft keywords that matter in signatures.
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "print",
    "exec",
    // Cython declaration words.
    "cdef",
    "cpdef",
    "ctypedef",
    "cimport",
    "struct",
    "union",
    "enum",
    "extern",
    "include",
    "inline",
    "nogil",
    "gil",
    "noexcept",
    "public",
    "readonly",
    "api",
    "sizeof",
    "NULL",
    "bint",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "const",
    "void",
    "object",
    "fused",
    "new",
    "namespace",
    "property",
    "by",
    "DEF",
    "IF",
    "ELIF",
    "ELSE",
];

/// A C identifier made safe for Python and Cython source.
pub fn py_ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// How a library's C parameter names are spelled in Python: its description's table
/// (`parameter_names`, the compatible module's spellings), else [`py_ident`]. Every place a
/// parameter's Python name appears takes it from here, so signature, stub, docstring, messages
/// and the locals derived from it agree.
#[derive(Debug, Clone, Copy)]
pub struct ParamNames<'a>(pub &'a BTreeMap<String, String>);

impl ParamNames<'_> {
    pub fn get(&self, c_name: &str) -> String {
        match self.0.get(c_name) {
            Some(name) => name.clone(),
            None => py_ident(c_name),
        }
    }

    /// The first table entry the generated code cannot use: a Python name must be an ASCII
    /// identifier, not a Python keyword, and not start with `_` (the wrappers' locals do). A
    /// Cython word is allowed: Cython 3 takes `object` as a parameter name (the Python suite
    /// compiles the driver's).
    pub fn problem(&self) -> Option<String> {
        self.0.iter().find_map(|(c_name, name)| {
            let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (!identifier || crate::PYTHON_KEYWORDS.contains(&name.as_str()))
                .then(|| format!("`{c_name}` = `{name}`: not a usable Python parameter name"))
        })
    }
}

/// Text made safe for the inside of a `"""` Python docstring: backslashes doubled, and every
/// quote escaped that sits in a run of three or ends the text (it would close the literal).
pub fn docstring(text: &str) -> String {
    let text = text.trim_end();
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    // A byte scan: both characters are ASCII (a char-set search costs several times more on the
    // megabyte of docstrings of a toolkit).
    while let Some(at) = rest.bytes().position(|b| b == b'\\' || b == b'"') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('\\') {
            out.push_str("\\\\");
            rest = &rest[1..];
            continue;
        }
        let run = rest.len() - rest.trim_start_matches('"').len();
        let quote = if run >= 3 || run == rest.len() { "\\\"" } else { "\"" };
        for _ in 0..run {
            out.push_str(quote);
        }
        rest = &rest[run..];
    }
    out.push_str(rest);
    out
}

/// A Python `str` literal of `text`, quotes included; characters beyond ASCII as `\u`/`\U` escapes.
pub fn py_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) > 0xffff => out.push_str(&format!("\\U{:08x}", c as u32)),
            c if (c as u32) > 0x7f => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text made safe for the inside of a `"` C or Python string literal.
pub fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn python_string_literals_escape_beyond_ascii() {
        assert_eq!(py_string("a \"b\"\\\n\u{2264} \u{1F600}"), "\"a \\\"b\\\"\\\\\\n\\u2264 \\U0001f600\"");
    }

    use super::*;

    #[test]
    fn reserved_words_get_a_suffix() {
        assert_eq!(py_ident("lambda"), "lambda_");
        assert_eq!(py_ident("char"), "char_");
        assert_eq!(py_ident("hStream"), "hStream");
    }

    #[test]
    fn docstrings_cannot_close_early() {
        assert_eq!(docstring("a \"\"\" b \\n"), "a \\\"\\\"\\\" b \\\\n");
        assert_eq!(docstring("say \"x\"\n"), "say \"x\\\"");
        assert_eq!(docstring("\"\"\"\" and \"\""), "\\\"\\\"\\\"\\\" and \\\"\\\"");
    }
}
