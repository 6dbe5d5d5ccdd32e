//! Rust identifiers for C names: validation, keyword escaping and the names the generated crate
//! keeps for itself.

use proc_macro2::{Ident, Span};

use crate::RustEmitError;

/// Words that are keywords in some Rust edition; a C name equal to one is written `r#name`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers; a C name equal to one gets a trailing `_`.
const UNRAWABLE: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Names the generated crate defines at its top level. A header declaring one of them would
/// clash, so it is refused. (Everything else the generated code uses is written with a full
/// path, so a header may name a type `Result` or `Option`.)
pub const RESERVED: &[&str] = &[
    "runtime",
    "layout",
    "FUNCTIONS",
    "ProcAddressLookup",
    "LoadError",
    "driver_status",
    "function_available",
    "per_thread_default_stream",
];

/// Locals of the generated function wrappers; a parameter with one of these names is renamed.
pub const WRAPPER_LOCALS: &[&str] = &["address", "function", "missing", "FUNCTIONS"];

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The identifier for a C name, escaped where it is a Rust keyword.
pub fn ident(name: &str, context: &str) -> Result<Ident, RustEmitError> {
    if !is_identifier(name) {
        return Err(RustEmitError::InvalidIdentifier { name: name.into(), context: context.into() });
    }
    if UNRAWABLE.contains(&name) {
        return Ok(Ident::new(&format!("{name}_"), Span::call_site()));
    }
    if KEYWORDS.contains(&name) {
        return Ok(Ident::new_raw(name, Span::call_site()));
    }
    Ok(Ident::new(name, Span::call_site()))
}

/// The spelling [`ident`] produces, without the `r#` marker: what a name looks like to users.
pub fn plain(name: &str) -> String {
    if UNRAWABLE.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// An identifier the generator makes up itself (always valid).
pub fn synthetic(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_keywords_and_rejects_garbage() {
        assert_eq!(ident("type", "t").unwrap().to_string(), "r#type");
        assert_eq!(ident("self", "t").unwrap().to_string(), "self_");
        assert_eq!(ident("pctx", "t").unwrap().to_string(), "pctx");
        assert!(ident("1abc", "t").is_err());
        assert!(ident("a b", "t").is_err());
        assert!(ident("", "t").is_err());
    }
}
