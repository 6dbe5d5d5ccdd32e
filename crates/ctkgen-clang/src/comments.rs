//! Doc comments as the model keeps them: comment markers stripped, and the comment a function
//! has where clang attaches none.

/// The doc comment (`/** ... */` or `/*! ... */`) that ends `text` once trailing blank lines and
/// preprocessor conditional lines (`#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`) are
/// set aside; at least one such line must be there (else the comment was clang's to attach).
/// `text` is a header up to a declaration, as bytes: only the comment found is read as UTF-8.
pub(crate) fn comment_above_conditionals(text: &[u8]) -> Option<&str> {
    let mut rest = text.trim_ascii_end();
    let mut conditionals = 0;
    loop {
        let line_start = rest.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = rest[line_start..].trim_ascii_start();
        let directive = line.strip_prefix(b"#").map(|d| d.split(u8::is_ascii_whitespace).find(|w| !w.is_empty()));
        match directive {
            Some(Some(b"if" | b"ifdef" | b"ifndef" | b"elif" | b"else" | b"endif")) => {
                conditionals += 1;
                rest = rest[..line_start].trim_ascii_end();
            }
            _ => break,
        }
    }
    if conditionals == 0 || !rest.ends_with(b"*/") {
        return None;
    }
    let start = rest.windows(2).rposition(|w| w == b"/*")?;
    let comment = std::str::from_utf8(&rest[start..]).ok()?;
    (comment.starts_with("/**") || comment.starts_with("/*!")).then_some(comment)
}

/// Strips comment markers from a Doxygen comment; `None` for an empty one. Blank lines before
/// and after the text are dropped; the text is built in one buffer, as comments are most of
/// what a header holds.
pub fn clean_comment(raw: Option<String>) -> Option<String> {
    let raw = raw?;
    let mut text = String::with_capacity(raw.len());
    // Blank lines seen since the last line of text: kept only if more text follows.
    let mut blank_run = 0;
    for line in raw.lines() {
        let mut l = line.trim();
        for prefix in ["/**<", "///<", "/*!<", "/**", "/*!", "///", "//!", "/*"] {
            if let Some(rest) = l.strip_prefix(prefix) {
                l = rest;
                break;
            }
        }
        let l = l.strip_suffix("*/").unwrap_or(l);
        let l = l.trim_start();
        let l = l.strip_prefix("* ").or_else(|| l.strip_prefix('*')).unwrap_or(l).trim_end();
        if l.is_empty() {
            blank_run += 1;
            continue;
        }
        if !text.is_empty() {
            for _ in 0..=blank_run {
                text.push('\n');
            }
        }
        blank_run = 0;
        text.push_str(l);
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::{clean_comment, comment_above_conditionals};

    fn clean(raw: &str) -> Option<String> {
        clean_comment(Some(raw.to_string()))
    }

    #[test]
    fn strips_markers_and_outer_blank_lines_but_keeps_inner_ones() {
        let raw = "/**\n * \\brief Gets a thing\n *\n *\n * \\param x - the thing   \n *\n */";
        assert_eq!(clean(raw).as_deref(), Some("\\brief Gets a thing\n\n\n\\param x - the thing"));
        assert_eq!(clean("/**< one line */").as_deref(), Some("one line"));
        assert_eq!(clean("///< trailing member doc").as_deref(), Some("trailing member doc"));
        assert_eq!(clean("/*! a\n   *b\n */").as_deref(), Some("a\nb"));
    }

    #[test]
    fn an_empty_comment_is_none() {
        assert_eq!(clean("/** */"), None);
        assert_eq!(clean("/**\n *\n *\n */"), None);
        assert_eq!(clean_comment(None), None);
    }

    #[test]
    fn a_doc_comment_above_conditionals_is_found_and_others_are_not() {
        let above = |text: &str| comment_above_conditionals(text.as_bytes()).map(str::to_string);
        let doc = "/** \\brief Makes */";
        assert_eq!(above(&format!("x;\n{doc}\n#ifndef NO_INLINE\n")), Some(doc.to_string()));
        assert_eq!(above(&format!("{doc}\n#if A\n#else\n#endif\n  #  if B\n\n")), Some(doc.to_string()));
        // No conditional between: clang's to attach. Another directive, code or a plain comment: none.
        assert_eq!(above(&format!("{doc}\n")), None);
        assert_eq!(above(&format!("{doc}\n#define X 1\n")), None);
        assert_eq!(above(&format!("{doc}\nint x;\n#if A\n")), None);
        assert_eq!(above("/* plain */\n#if A\n"), None);
    }
}
