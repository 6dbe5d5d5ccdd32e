//! Inline parsing: a paragraph's text into text, code, emphasis, references, URLs and breaks.

use super::{byte_set, DocAliases, Inline};

/// Commands that mark up words inside a paragraph (never a block of their own).
pub(super) fn is_inline_command(command: &str) -> bool {
    matches!(command, "p" | "a" | "c" | "e" | "em" | "b" | "n" | "ref" | "link" | "endlink" | "f" | "anchor")
}

/// Drops leading and trailing whitespace of a run of inlines.
pub(super) fn trim_inlines(mut inlines: Vec<Inline>) -> Vec<Inline> {
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

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a paragraph's text into inline pieces; `@word` stays text unless it is a command or
/// one of `aliases` (dropped: an alias stands for a note only at the start of a line).
pub(super) fn parse_inlines(text: &str, aliases: &DocAliases) -> Vec<Inline> {
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
                if c == '\\' && word.starts_with(|d: char| d.is_ascii_digit()) {
                    // `'\0'`: a C escape in prose, not a command (no command starts with a digit).
                    plain.push('\\');
                    plain.push_str(word);
                    i += 1 + word_len;
                    continue;
                }
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
                if word.is_empty() || (c == '@' && !is_inline_command(word) && !aliases.contains_key(word)) {
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
            // A stray colon before a reference (`:::name`, a typo some headers have) is dropped.
            ':' if rest.starts_with(":::")
                && rest[3..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && !plain.ends_with(is_ident_char) =>
            {
                i += 1;
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
                // `text <https://...>`__, a link some headers write in reStructuredText: the
                // text, then the address.
                Some(len) if rest[1 + len + 1..].starts_with('_') && link_text(&rest[1..1 + len]).is_some() => {
                    let (label, url) = link_text(&rest[1..1 + len]).expect("checked");
                    plain.push_str(label);
                    plain.push_str(" (");
                    flush(&mut plain, &mut out);
                    out.push(Inline::Url(url.to_string()));
                    plain.push(')');
                    i += len + 2;
                    i += text[i..].len() - text[i..].trim_start_matches('_').len();
                }
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
                            let inner = parse_inlines(&text[i..i + inner_end], aliases);
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

/// `text <https://...>` (a reStructuredText link's inside): the text and the address.
fn link_text(inside: &str) -> Option<(&str, &str)> {
    let (label, url) = inside.strip_suffix('>')?.rsplit_once('<')?;
    let label = label.trim_end();
    let plain_url = (url.starts_with("https://") || url.starts_with("http://")) && !url.contains(char::is_whitespace);
    (plain_url && !label.is_empty()).then_some((label, url))
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

/// The argument of `\p word`: up to whitespace, without trailing sentence punctuation.
fn take_word(text: &str) -> (&str, usize) {
    let start = text.len() - text.trim_start_matches([' ', '\n']).len();
    let rest = &text[start..];
    let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let mut word = &rest[..len];
    loop {
        let trimmed = word.trim_end_matches(['.', ',', ';', ':', '!', '?']);
        // A closing quote stays with the word it quotes (`\c "name"`); a lone one is prose.
        let trimmed = match trimmed.chars().last() {
            Some(quote @ ('"' | '\'')) if trimmed.matches(quote).count() % 2 == 1 => &trimmed[..trimmed.len() - 1],
            _ => trimmed,
        };
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
