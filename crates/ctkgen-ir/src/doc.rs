//! Splits the Doxygen comments kept in the model into the parts emitters use.

use std::collections::BTreeMap;

/// A doc comment taken apart: the prose before the first command, each `\param`, `\return`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocParts {
    pub brief: String,
    pub body: String,
    pub params: BTreeMap<String, String>,
    pub returns: String,
}

/// Parses the cleaned text stored in the model (comment markers already removed).
pub fn parse(text: &str) -> DocParts {
    let mut parts = DocParts::default();
    enum Section {
        Body,
        Param(String),
        Returns,
        Other,
    }
    let mut section = Section::Body;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(rest) = strip_command(trimmed, &["param", "param[in]", "param[out]", "param[in,out]"]) {
            // A direction may also stand apart from the command: `\param [out] name`.
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((direction, after)) if direction.split(',').all(|d| matches!(d.trim(), "in" | "out")) => after,
                _ => rest,
            };
            let mut words = rest.trim_start().splitn(2, char::is_whitespace);
            let name = words.next().unwrap_or_default().to_string();
            let text = words.next().unwrap_or_default().trim();
            let text = text.strip_prefix("- ").unwrap_or(text).trim_start_matches('-').trim();
            parts.params.insert(name.clone(), text.to_string());
            section = Section::Param(name);
            continue;
        }
        if let Some(rest) = strip_command(trimmed, &["return", "returns"]) {
            parts.returns.push_str(rest.trim());
            section = Section::Returns;
            continue;
        }
        if let Some(rest) = strip_command(trimmed, &["brief"]) {
            parts.brief.push_str(rest.trim());
            section = Section::Body;
            continue;
        }
        if trimmed.starts_with('\\') || trimmed.starts_with('@') {
            section = Section::Other;
            continue;
        }
        match &section {
            Section::Body => {
                if parts.brief.is_empty() && !trimmed.is_empty() && parts.body.is_empty() {
                    parts.brief.push_str(trimmed);
                } else {
                    parts.body.push_str(line);
                    parts.body.push('\n');
                }
            }
            Section::Param(name) => {
                if !trimmed.is_empty() {
                    let entry = parts.params.entry(name.clone()).or_default();
                    entry.push(' ');
                    entry.push_str(trimmed);
                }
            }
            Section::Returns => {
                if !trimmed.is_empty() {
                    parts.returns.push(' ');
                    parts.returns.push_str(trimmed);
                }
            }
            Section::Other => {}
        }
    }
    parts.body = parts.body.trim().to_string();
    parts.returns = parts.returns.trim().to_string();
    for text in parts.params.values_mut() {
        *text = text.trim().to_string();
    }
    parts
}

fn strip_command<'a>(line: &'a str, names: &[&str]) -> Option<&'a str> {
    let rest = line.strip_prefix('\\').or_else(|| line.strip_prefix('@'))?;
    names.iter().find_map(|name| {
        let tail = rest.strip_prefix(name)?;
        (tail.is_empty() || tail.starts_with(char::is_whitespace)).then_some(tail)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_params_and_returns() {
        let doc = parse("\\brief Create a context\n\nLonger text.\n\n\\param   pctx  - Returned context handle\n\\param flags - Context creation flags\n  more\n\n\\return\n::CUDA_SUCCESS\n");
        assert_eq!(doc.brief, "Create a context");
        assert_eq!(doc.body, "Longer text.");
        assert_eq!(doc.params["pctx"], "Returned context handle");
        assert_eq!(doc.params["flags"], "Context creation flags more");
        assert_eq!(doc.returns, "::CUDA_SUCCESS");
    }

    #[test]
    fn a_direction_apart_from_the_command_is_not_the_name() {
        let doc = parse("Compiles.\n\n\\param [out] ptxSizeRet - Size of the PTX\n\\param [in,out] n - Count\n\\param [in] prog Program\n");
        assert_eq!(doc.params.get("ptxSizeRet").map(String::as_str), Some("Size of the PTX"));
        assert_eq!(doc.params.get("n").map(String::as_str), Some("Count"));
        assert_eq!(doc.params.get("prog").map(String::as_str), Some("Program"));
        assert_eq!(doc.params.len(), 3);
    }
}
