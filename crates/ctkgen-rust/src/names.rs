//! Rust identifiers for C names: validation, keyword escaping and the names the generated crate
//! keeps for itself.

use std::fmt;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt};

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
    "FUNCTIONS",
    "ProcAddressLookup",
    "LoadError",
    "library_status",
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

/// A Rust identifier the plan decided. It is kept as text, not as a `proc_macro2::Ident` (which
/// is neither `Send` nor `Sync`), so that one plan can be shared by the printing threads; it
/// becomes an `Ident` where it is interpolated into tokens. Prints as `Ident` does (`r#type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    text: String,
    raw: bool,
}

impl Name {
    pub fn ident(&self) -> Ident {
        if self.raw {
            Ident::new_raw(&self.text, Span::call_site())
        } else {
            Ident::new(&self.text, Span::call_site())
        }
    }
}

impl ToTokens for Name {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append(self.ident());
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.raw {
            f.write_str("r#")?;
        }
        f.write_str(&self.text)
    }
}

impl<T: AsRef<str> + ?Sized> PartialEq<T> for Name {
    fn eq(&self, other: &T) -> bool {
        let other = other.as_ref();
        match other.strip_prefix("r#") {
            Some(rest) => self.raw && self.text == rest,
            None => !self.raw && self.text == other,
        }
    }
}

/// The identifier for a C name, escaped where it is a Rust keyword.
pub fn ident(name: &str, context: &str) -> Result<Name, RustEmitError> {
    if !is_identifier(name) {
        return Err(RustEmitError::InvalidIdentifier { name: name.into(), context: context.into() });
    }
    if UNRAWABLE.contains(&name) {
        return Ok(Name { text: format!("{name}_"), raw: false });
    }
    Ok(Name { text: name.to_string(), raw: KEYWORDS.contains(&name) })
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
pub fn synthetic(name: &str) -> Name {
    Name { text: name.to_string(), raw: false }
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
        let raw = ident("type", "t").unwrap();
        assert_eq!(raw, "r#type");
        assert_ne!(raw, "type");
        assert_eq!(quote::quote!(#raw).to_string(), "r#type");
    }
}
