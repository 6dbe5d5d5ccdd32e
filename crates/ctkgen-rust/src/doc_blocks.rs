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
    /// A placeholder's number indexes this list.
    blocks: RefCell<Vec<Block>>,
}

/// Starts a placeholder's text; the header's prose reaches the printed text only through
/// [`DocBlocks::insert`], after the placeholders are found.
const PLACEHOLDER: char = '\u{1}';

/// What a placeholder stands for.
#[derive(Debug)]
enum Block {
    /// A comment's lines joined by `\n`, each non-empty one with the leading space `///`
    /// comments have.
    Lines(String),
    /// A whole attribute's text, `#[cfg_attr(<predicate>, doc = "...")]`, put in place of the
    /// placeholder line with that line's indentation.
    Attribute(String),
}

/// A printed item's comment: one for every toolkit of the item's form, or several, each under the
/// `cfg` predicate (as text) of the toolkits that have it (none for toolkits without a comment).
pub enum Comment<'a> {
    Shared(Option<&'a str>),
    PerToolkit(Vec<(String, &'a str)>),
}

impl DocBlocks {
    fn attr(&self, block: String) -> TokenStream {
        let text = self.placeholder(block);
        quote!(#[doc = #text])
    }

    /// Keeps `block` and returns the placeholder text that stands for it.
    fn placeholder(&self, block: String) -> String {
        self.placeholder_for(Block::Lines(block))
    }

    fn placeholder_for(&self, block: Block) -> String {
        let mut blocks = self.blocks.borrow_mut();
        let text = format!("{PLACEHOLDER}{}", blocks.len());
        blocks.push(block);
        text
    }

    /// The attributes of a rendered comment: a doc block, or one `cfg_attr` doc per toolkit group.
    pub fn comment(&self, comment: &Comment) -> TokenStream {
        self.comment_syntax(comment).into_iter().map(|attr| quote!(#attr)).collect()
    }

    /// [`DocBlocks::comment`] as syntax trees. A comment per toolkit travels as a placeholder doc
    /// line too, which [`DocBlocks::insert`] replaces by the whole `cfg_attr`: prettyplease would
    /// break a long predicate over lines and leave a blank line after it.
    pub fn comment_syntax(&self, comment: &Comment) -> Vec<syn::Attribute> {
        match comment {
            Comment::Shared(text) => text.and_then(|text| self.markdown_doc_syntax(text)).into_iter().collect(),
            Comment::PerToolkit(variants) => variants
                .iter()
                .filter(|(_, text)| !text.trim().is_empty())
                .map(|(predicate, text)| {
                    let attribute = cfg_doc_attribute(predicate, text);
                    syntax::doc_attribute(self.placeholder_for(Block::Attribute(attribute)))
                })
                .collect(),
        }
    }

    /// `printed` with each placeholder line (`<indent>///\u{1}N`, or `//!` for inner docs)
    /// replaced by the comment's lines, each with that indentation and comment marker and without
    /// trailing spaces, as prettyplease prints a one-line doc attribute; or by an attribute, with
    /// that indentation.
    pub fn insert(&self, printed: String) -> String {
        let blocks = self.blocks.borrow();
        if blocks.is_empty() {
            return printed;
        }
        let size = |block: &Block| match block {
            Block::Lines(lines) => lines.len() * 2,
            Block::Attribute(attribute) => attribute.len(),
        };
        let mut out = String::with_capacity(printed.len() + blocks.iter().map(size).sum::<usize>());
        let mut rest = printed.as_str();
        while let Some(at) = rest.find(PLACEHOLDER) {
            let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = rest[at..].find('\n').map_or(rest.len(), |i| at + i);
            let marker = &rest[line_start..at];
            let number = &rest[at + PLACEHOLDER.len_utf8()..line_end];
            let block = number.parse::<usize>().ok().and_then(|n| blocks.get(n));
            // An attribute stands only for an outer doc line.
            let placed =
                |b: &&Block| marker.ends_with("///") || (marker.ends_with("//!") && matches!(b, Block::Lines(_)));
            let Some(block) = block.filter(placed) else {
                // Not a placeholder line: keep it as printed.
                out.push_str(&rest[..line_end]);
                rest = &rest[line_end..];
                continue;
            };
            out.push_str(&rest[..line_start]);
            match block {
                Block::Lines(lines) => {
                    for (i, line) in lines.split('\n').enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        out.push_str(marker);
                        out.push_str(line.trim_end_matches(' '));
                    }
                }
                Block::Attribute(attribute) => {
                    out.push_str(marker.trim_end_matches('/'));
                    out.push_str(attribute);
                }
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

/// `#[cfg_attr(<predicate>, doc = "...")]` for Markdown `text`: a string literal spanning lines,
/// from the line after its opening quote to the line before its closing one, the lines as they
/// are but for trailing spaces (`\\`, `"` and carriage returns escaped).
fn cfg_doc_attribute(predicate: &str, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + predicate.len() + 32);
    out.push_str("#[cfg_attr(");
    out.push_str(predicate);
    out.push_str(", doc = \"\n");
    for line in text.trim_end().lines() {
        for c in line.trim_end().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        out.push('\n');
    }
    out.push_str("\")]");
    out
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
    fn comments_per_toolkit_print_as_literals_spanning_lines_under_their_cfg() {
        let docs = DocBlocks::default();
        let text = "First line, a \"quote\"\n\n  - indented \\ item\ncar\rriage  ";
        let comment = Comment::PerToolkit(vec![
            ("feature = \"old\"".to_string(), text),
            ("not(feature = \"old\")".to_string(), "New."),
            ("feature = \"none\"".to_string(), "  \n"),
        ]);
        let attrs = docs.comment(&comment);
        let printed = printed_with(&docs, attrs);
        assert_eq!(
            printed,
            "#[cfg_attr(feature = \"old\", doc = \"\nFirst line, a \\\"quote\\\"\n\n  - indented \\\\ item\ncar\\rriage\n\")]\n\
             #[cfg_attr(not(feature = \"old\"), doc = \"\nNew.\n\")]\npub struct S;\n"
        );
        // What rustc reads: each text, its lines' trailing spaces dropped, between line breaks.
        let file = syn::parse_file(&printed).expect("the printed comments parse");
        let syn::Item::Struct(item) = &file.items[0] else { panic!("a struct") };
        let values: Vec<String> = item
            .attrs
            .iter()
            .map(|attr| {
                let syn::Meta::List(list) = &attr.meta else { panic!("a cfg_attr") };
                let (_, doc): (syn::Meta, syn::MetaNameValue) = list
                    .parse_args_with(|input: syn::parse::ParseStream| {
                        let predicate = input.parse()?;
                        input.parse::<syn::Token![,]>()?;
                        Ok((predicate, input.parse()?))
                    })
                    .expect("a predicate and a doc");
                let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. }) = doc.value else { panic!("text") };
                lit.value()
            })
            .collect();
        assert_eq!(values, ["\nFirst line, a \"quote\"\n\n  - indented \\ item\ncar\rriage\n", "\nNew.\n"]);

        // Within an item, the attribute takes the placeholder's indentation; its text does not.
        let docs = DocBlocks::default();
        let attrs = docs.comment(&Comment::PerToolkit(vec![("x".to_string(), "a\n b")]));
        let file: syn::File = syn::parse2(quote!(pub struct S { #attrs pub x: u8 })).expect("parses");
        assert_eq!(
            docs.insert(prettyplease::unparse(&file)),
            "pub struct S {\n    #[cfg_attr(x, doc = \"\na\n b\n\")]\n    pub x: u8,\n}\n"
        );
    }

    #[test]
    fn text_that_only_looks_like_a_placeholder_is_kept() {
        let docs = DocBlocks::default();
        let _ = docs.doc_attrs("only one");
        let text = "/// \u{1}0 not at the marker\n///\u{1}7\nlet x = 1; // \u{1}0\n".to_string();
        assert_eq!(docs.insert(text.clone()), text);
        // An attribute's placeholder in an inner doc line has nowhere to go.
        let docs = DocBlocks::default();
        let _ = docs.comment(&Comment::PerToolkit(vec![("x".to_string(), "text")]));
        let text = "//!\u{1}0\n".to_string();
        assert_eq!(docs.insert(text.clone()), text);
    }
}
