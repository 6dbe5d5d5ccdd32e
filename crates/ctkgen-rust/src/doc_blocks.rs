//! Doc comments through the printer: each travels as a placeholder attribute and is put back as
//! text once the piece is printed.

use std::cell::RefCell;

use proc_macro2::TokenStream;
use quote::quote;

use crate::syntax;

/// The doc comments of one printed piece. Each comment travels through quote, syn and
/// prettyplease as a placeholder attribute (`#[doc = "\u{1}N"]`, printed as one `///` line), and
/// [`DocBlocks::insert`] puts the comment's lines in place of the printed placeholder: the text is
/// copied once instead of being lexed, parsed, split into per-line literals and printed. Every doc
/// attribute prints on a line of its own, so the text has no say in the layout around it.
#[derive(Debug, Default)]
pub struct DocBlocks {
    /// Each comment's lines joined by `\n`, each non-empty one with the leading space `///`
    /// comments have; a placeholder's number indexes this list.
    blocks: RefCell<Vec<String>>,
}

/// Starts a placeholder's text; the header's prose reaches the printed text only through
/// [`DocBlocks::insert`], after the placeholders are found.
const PLACEHOLDER: char = '\u{1}';

impl DocBlocks {
    fn attr(&self, block: String) -> TokenStream {
        let text = self.placeholder(block);
        quote!(#[doc = #text])
    }

    /// Keeps `block` and returns the placeholder text that stands for it.
    fn placeholder(&self, block: String) -> String {
        let mut blocks = self.blocks.borrow_mut();
        let text = format!("{PLACEHOLDER}{}", blocks.len());
        blocks.push(block);
        text
    }

    /// `printed` with each placeholder line (`<indent>///\u{1}N`, or `//!` for inner docs)
    /// replaced by the comment's lines, each with that indentation and comment marker and without
    /// trailing spaces, as prettyplease prints a one-line doc attribute.
    pub fn insert(&self, printed: String) -> String {
        let blocks = self.blocks.borrow();
        if blocks.is_empty() {
            return printed;
        }
        let mut out = String::with_capacity(printed.len() + blocks.iter().map(|b| b.len() * 2).sum::<usize>());
        let mut rest = printed.as_str();
        while let Some(at) = rest.find(PLACEHOLDER) {
            let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = rest[at..].find('\n').map_or(rest.len(), |i| at + i);
            let marker = &rest[line_start..at];
            let number = &rest[at + PLACEHOLDER.len_utf8()..line_end];
            let block = number.parse::<usize>().ok().and_then(|n| blocks.get(n));
            let Some(block) = block.filter(|_| marker.ends_with("///") || marker.ends_with("//!")) else {
                // Not a placeholder line: keep it as printed.
                out.push_str(&rest[..line_end]);
                rest = &rest[line_end..];
                continue;
            };
            out.push_str(&rest[..line_start]);
            for (i, line) in block.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(marker);
                out.push_str(line.trim_end_matches(' '));
            }
            rest = &rest[line_end..];
        }
        out.push_str(rest);
        out
    }

    /// The doc attribute for `text`, lines trimmed (indented header prose must never read as a
    /// code block), runs of blank lines collapsed, each line with the leading space `///`
    /// comments have.
    pub fn doc_attrs(&self, text: &str) -> TokenStream {
        let lines: Vec<&str> = text.lines().map(|l| l.trim()).collect();
        let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(start, |i| i + 1);
        let mut kept: Vec<&str> = Vec::new();
        for line in &lines[start..end] {
            // One blank line at most between paragraphs.
            if line.is_empty() && kept.last().is_some_and(|l| l.is_empty()) {
                continue;
            }
            kept.push(line);
        }
        if kept.is_empty() {
            return TokenStream::new();
        }
        let mut block = String::with_capacity(kept.iter().map(|l| l.len() + 2).sum());
        for (i, line) in kept.iter().enumerate() {
            if i > 0 {
                block.push('\n');
            }
            if !line.is_empty() {
                block.push(' ');
                block.push_str(line);
            }
        }
        self.attr(block)
    }

    /// The doc attribute for Markdown rendered from a header comment: lines kept as they are
    /// (their indentation nests lists), each with the leading space `///` comments have.
    pub fn markdown_doc_attrs(&self, text: &str) -> TokenStream {
        match self.markdown_placeholder(text) {
            Some(placeholder) => quote!(#[doc = #placeholder]),
            None => TokenStream::new(),
        }
    }

    /// A planned (rendered) doc comment.
    pub fn optional(&self, doc: &Option<String>) -> TokenStream {
        doc.as_deref().map(|text| self.markdown_doc_attrs(text)).unwrap_or_default()
    }

    /// [`DocBlocks::optional`] as a syntax tree, for items built without tokens.
    pub fn optional_syntax(&self, doc: &Option<String>) -> Option<syn::Attribute> {
        self.markdown_doc_syntax(doc.as_deref()?)
    }

    /// [`DocBlocks::markdown_doc_attrs`] as a syntax tree.
    pub fn markdown_doc_syntax(&self, text: &str) -> Option<syn::Attribute> {
        self.markdown_placeholder(text).map(syntax::doc_attribute)
    }

    /// The placeholder for Markdown `text` (kept as a block), or none for blank text.
    fn markdown_placeholder(&self, text: &str) -> Option<String> {
        let text = text.trim_end();
        (!text.trim().is_empty()).then(|| self.placeholder(markdown_block(text)))
    }
}

/// A doc block of Markdown lines as they are, each non-empty one with the leading space `///`
/// comments have.
fn markdown_block(text: &str) -> String {
    let mut block = String::with_capacity(text.len() + text.len() / 32);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            block.push('\n');
        }
        let line = line.trim_end();
        if !line.is_empty() {
            block.push(' ');
            block.push_str(line);
        }
    }
    block
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    /// What the printer writes for `attrs` (built by `docs`) on a struct.
    fn printed_with(docs: &DocBlocks, attrs: TokenStream) -> String {
        let file: syn::File = syn::parse2(quote!(#attrs pub struct S;)).expect("parses");
        docs.insert(prettyplease::unparse(&file))
    }

    /// What the printer writes for the doc attributes of `text`.
    fn printed(text: &str) -> String {
        let docs = DocBlocks::default();
        let attrs = docs.doc_attrs(text);
        printed_with(&docs, attrs)
    }

    #[test]
    fn doc_lines_print_as_written_whatever_quotes_and_hashes_they_hold() {
        let text = "  \n\nplain\n\n\n   indented\nquote \" here\nraw end \"# and \"### too\nback\\slash \\n\nend\r";
        assert_eq!(
            printed(text),
            "/// plain\n///\n/// indented\n/// quote \" here\n/// raw end \"# and \"### too\n/// back\\slash \\n\n/// end\npub struct S;\n"
        );
        assert!(printed("car\rriage").contains("car\rriage"));
    }

    #[test]
    fn rendered_markdown_keeps_its_indentation() {
        let docs = DocBlocks::default();
        let attrs = docs.markdown_doc_attrs("- a\n  more  \n\n  - nested\n\n```c\n    int x;\n```\n\n");
        assert_eq!(
            printed_with(&docs, attrs),
            "/// - a\n///   more\n///\n///   - nested\n///\n/// ```c\n///     int x;\n/// ```\npub struct S;\n"
        );
    }

    #[test]
    fn comments_go_where_their_placeholders_print_at_any_depth() {
        let docs = DocBlocks::default();
        let (outer, field, inner) =
            (docs.doc_attrs("outer\ntwo"), docs.doc_attrs("field"), docs.doc_attrs("crate\n\nlevel"));
        let inner: TokenStream = inner
            .into_iter()
            .flat_map(|token| match token {
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '#' => vec![
                    proc_macro2::TokenTree::Punct(p),
                    proc_macro2::TokenTree::Punct(proc_macro2::Punct::new('!', proc_macro2::Spacing::Alone)),
                ],
                other => vec![other],
            })
            .collect();
        let file: syn::File = syn::parse2(quote!(#inner #outer pub struct S { #field pub x: u8 } )).expect("parses");
        assert_eq!(
            docs.insert(prettyplease::unparse(&file)),
            "//! crate\n//!\n//! level\n/// outer\n/// two\npub struct S {\n    /// field\n    pub x: u8,\n}\n"
        );
    }

    #[test]
    fn text_that_only_looks_like_a_placeholder_is_kept() {
        let docs = DocBlocks::default();
        let _ = docs.doc_attrs("only one");
        let text = "/// \u{1}0 not at the marker\n///\u{1}7\nlet x = 1; // \u{1}0\n".to_string();
        assert_eq!(docs.insert(text.clone()), text);
    }
}
