//! Docstrings: every doc comment of the model rendered as reStructuredText, cross references
//! pointing (as `:py:obj:`) only at names the generated library module really has.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use ctkgen_ir::doc::{split_member, Block, Doc, Inline, ParsedDocs};
use ctkgen_ir::Api;

use super::raising::RaiseView;
use super::Model;
use crate::names::{docstring, py_ident, ParamNames};

/// The Python target of every name a comment may refer to, built once per emission from the
/// finished views (so only what the module defines can be linked). Only looked up (every
/// reference of every comment), never iterated, so hash maps.
pub(super) struct DocTargets {
    /// C name (function, class, alias, enum constant, constant) to its dotted Python target.
    names: HashMap<String, String>,
    /// Record class or alias target to the C names of its members.
    members: HashMap<String, HashSet<String>>,
    /// The library's Python spellings of parameter names (`:param` fields).
    param_names: std::collections::BTreeMap<String, String>,
}

impl DocTargets {
    pub(super) fn new(model: &Model) -> DocTargets {
        let module = format!("{}.{}", model.package, model.names.python);
        let target = |name: &str| format!("{module}.{name}");
        let mut names = HashMap::default();
        let mut members = HashMap::default();
        // Under the raise convention a function's Python name is not its C name.
        let raise_names = (model.conventions.python.convention == ctkgen_ir::CallConvention::Raise)
            .then_some(model.conventions.python.raise_names.as_ref())
            .flatten();
        for f in &model.functions {
            let python = match raise_names {
                Some(raise) => super::raising::function_name(raise, &f.name),
                None => f.name.clone(),
            };
            names.insert(f.name.clone(), target(&python));
        }
        for e in &model.enums {
            let class = target(&e.class);
            for alias in &e.aliases {
                names.insert(alias.clone(), class.clone());
            }
            for member in &e.members {
                names.insert(member.name.clone(), format!("{class}.{}", member.name));
            }
            names.insert(e.class.clone(), class);
        }
        for w in model.handles.iter().chain(&model.scalars) {
            names.insert(w.class.clone(), target(&w.class));
        }
        for r in &model.records {
            let fields: HashSet<String> = r.members.iter().map(|m| m.name.clone()).collect();
            // The tag, the class and every alias class: each is a class the module defines.
            for name in
                std::iter::once(&r.record).chain(std::iter::once(&r.class)).chain(r.aliases.iter().map(|a| &a.0))
            {
                let class = if *name == r.record { &r.class } else { name };
                names.insert(name.clone(), target(class));
                members.insert(target(class), fields.clone());
            }
        }
        for c in &model.constants {
            names.insert(c.name.clone(), target(&c.name));
        }
        DocTargets { names, members, param_names: model.conventions.python.parameter_names.clone() }
    }

    /// `pkg.module.name`, or `pkg.module.Record.member` for `Record::member`.
    fn resolve(&self, name: &str) -> Option<String> {
        match split_member(name) {
            None => self.names.get(name).cloned(),
            Some((head, member)) => {
                let class = self.names.get(head)?;
                self.members.get(class)?.contains(member).then(|| format!("{class}.{}", py_ident(member)))
            }
        }
    }

    /// The docstring body for a raw comment: reStructuredText escaped for a `"""` literal;
    /// `fallback` when the comment is empty or renders to nothing.
    pub(super) fn docstring(&self, raw: &str, fallback: &str, parsed: &ParsedDocs) -> String {
        let param_name = |name: &str| ParamNames(&self.param_names).get(name);
        if raw.is_empty() {
            return docstring(fallback);
        }
        self.render(&parsed.get(raw), fallback, &param_name)
    }

    /// The docstring of a function of the status convention: the comment's entries of the
    /// parameters it returns (after the status) moved to what it returns.
    pub(super) fn function_docstring(
        &self,
        raw: &str,
        parsed: &ParsedDocs,
        role: &dyn Fn(&str) -> Option<ParamRole>,
    ) -> String {
        if raw.is_empty() {
            return docstring("");
        }
        let mut doc = parsed.get(raw).into_owned();
        outputs_returned(&mut doc, role, Some("status"));
        let param_name = |name: &str| ParamNames(&self.param_names).get(name);
        self.render(&doc, "", &param_name)
    }

    /// The docstring body of a parsed comment, parameters spelled by `param_name`.
    fn render(&self, doc: &Doc, fallback: &str, param_name: &dyn Fn(&str) -> String) -> String {
        let rendered = doc.to_rst(&|name| self.resolve(name), param_name);
        if rendered.trim().is_empty() {
            return docstring(fallback);
        }
        // `inspect.cleandoc` (help(), Sphinx) removes the indentation the lines after the first
        // share; when all of them are indented (a lone directive's body) the text starts on the
        // second line, so that indentation is kept.
        let mut rest = rendered.lines().skip(1).filter(|l| !l.trim().is_empty()).peekable();
        if rest.peek().is_some() && rest.all(|l| l.starts_with(' ')) {
            return docstring(&format!("\n{rendered}"));
        }
        docstring(&rendered)
    }
}

/// What a parameter of a function is to its docstring, by the C name its comment uses.
pub(super) enum ParamRole {
    /// An argument of the Python function.
    Argument,
    /// Returned, under this Python name, as a value of this Python type (the stub's spelling).
    Returned { name: String, ty: String },
}

/// Moves a comment's entries of returned parameters from its parameters to what the function
/// returns, and drops those of parameters the Python function has not (`role` gives `None`).
/// `status`: the label of what the comment's return entry describes (the status returned first),
/// or `None` when the function returns no status (the entry is dropped then).
pub(super) fn outputs_returned(doc: &mut Doc, role: &dyn Fn(&str) -> Option<ParamRole>, status: Option<&str>) {
    let mut outputs: Vec<(Vec<Inline>, Vec<Block>)> = Vec::new();
    doc.params.retain(|p| match role(&p.name) {
        Some(ParamRole::Argument) => true,
        Some(ParamRole::Returned { name, ty }) => {
            // The type as a reference: a link where the module has the name, else a literal.
            let head = vec![
                Inline::Code(name),
                Inline::Text(" (".into()),
                Inline::Ref { name: ty, call: false },
                Inline::Text(")".into()),
            ];
            outputs.push((head, p.blocks.clone()));
            false
        }
        None => false,
    });
    let labelled = |label: Vec<Inline>, mut blocks: Vec<Block>| {
        let head: Vec<Inline> = label.into_iter().chain([Inline::Text(": ".into())]).collect();
        match blocks.first_mut() {
            Some(Block::Paragraph(inlines)) => {
                inlines.splice(0..0, head);
            }
            _ => blocks.insert(0, Block::Paragraph(head)),
        }
        blocks
    };
    doc.returns = match status {
        Some(_) if outputs.is_empty() => return,
        Some(status) => {
            let status = vec![Inline::Code(status.to_string())];
            let first = (!doc.returns.is_empty()).then(|| labelled(status, std::mem::take(&mut doc.returns)));
            let rest = outputs.into_iter().map(|(head, blocks)| labelled(head, blocks));
            vec![Block::List { ordered: false, items: first.into_iter().chain(rest).collect() }]
        }
        None if outputs.len() == 1 => {
            let (head, blocks) = outputs.remove(0);
            labelled(head, blocks)
        }
        None if outputs.is_empty() => Vec::new(),
        None => {
            let items = outputs.into_iter().map(|(head, blocks)| labelled(head, blocks)).collect();
            vec![Block::List { ordered: false, items }]
        }
    };
}

/// Docstrings of the raise convention's functions, which return their outputs and raise on a
/// status other than success where the header's comment lists every parameter and the statuses:
/// the Python arguments alone as parameters, the outputs' descriptions as what is returned, and
/// the exception.
pub(super) fn raise_docstrings(targets: &DocTargets, api: &Api, raise: &mut RaiseView, parsed: &ParsedDocs) {
    let error = raise.error.clone();
    for f in &mut raise.functions {
        let Some(raw) = api.function(&f.c_name).and_then(|c| c.doc.as_deref()).filter(|raw| !raw.is_empty()) else {
            continue;
        };
        let mut doc = parsed.get(raw).into_owned();
        let param = |name: &str| f.params.iter().find(|p| p.c_name == name);
        let role = |name: &str| {
            param(name).map(|p| match p.input {
                true => ParamRole::Argument,
                false => ParamRole::Returned { name: p.py_name.clone(), ty: p.stub_type() },
            })
        };
        if !f.returns_string {
            outputs_returned(&mut doc, &role, None);
            doc.body.push(Block::Paragraph(vec![
                Inline::Text("Raises ".into()),
                Inline::Code(error.clone()),
                Inline::Text(" when the library returns a status other than success.".into()),
            ]));
        }
        if f.returns_string {
            doc.params.retain(|p| param(&p.name).is_some());
        }
        let py_name = |name: &str| param(name).map_or_else(|| name.to_string(), |p| p.py_name.clone());
        f.doc = targets.render(&doc, "", &py_name);
    }
}
