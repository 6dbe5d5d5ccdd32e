//! The output-parameter pass: decides for every pointer parameter whether it is an input, an
//! output the binding allocates, an array or an in/out value, from the header documentation
//! (`\param name - Returned ...`) and the overrides file. Anything it cannot decide is reported
//! by name, never guessed.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, Function, Primitive, Type};

use crate::types::{value_kind, ValueKind};
use crate::CythonEmitError;

/// What an override in `overrides.toml` says about one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Override {
    /// An output the binding allocates and returns.
    Out,
    /// A record or value read and written in place.
    InOut,
    /// An input; pointers to scalars become lists.
    In,
    /// A raw address (int, None, buffer or object with `getPtr`).
    Address,
    /// `void **kernelParams`: a list of argument addresses.
    KernelParams,
    /// An output array whose element count is another parameter.
    OutArray { len: String },
}

/// Per-function parameter overrides, read from TOML tables `[function] param = "kind"`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub params: BTreeMap<String, BTreeMap<String, Override>>,
}

/// The overrides shipped with ctkgen, embedded so generation does not depend on the directory.
pub const DEFAULT_OVERRIDES: &str = include_str!("../../../templates/cython/overrides.toml");

impl Overrides {
    pub fn parse(text: &str) -> Result<Overrides, CythonEmitError> {
        let raw: BTreeMap<String, BTreeMap<String, String>> =
            toml::from_str(text).map_err(|e| CythonEmitError::Overrides(e.to_string()))?;
        let mut params = BTreeMap::new();
        for (function, entries) in raw {
            let mut parsed = BTreeMap::new();
            for (param, kind) in entries {
                let value = match kind.as_str() {
                    "out" => Override::Out,
                    "inout" => Override::InOut,
                    "in" => Override::In,
                    "address" => Override::Address,
                    "kernel_params" => Override::KernelParams,
                    other => match other.strip_prefix("out_array(").and_then(|r| r.strip_suffix(')')) {
                        Some(len) => Override::OutArray { len: len.to_string() },
                        None => {
                            return Err(CythonEmitError::Overrides(format!(
                                "{function}.{param}: unknown kind `{other}`"
                            )))
                        }
                    },
                };
                parsed.insert(param, value);
            }
            params.insert(function, parsed);
        }
        Ok(Overrides { params })
    }

    pub fn embedded() -> Overrides {
        Overrides::parse(DEFAULT_OVERRIDES).expect("embedded overrides parse")
    }

    fn get(&self, function: &str, param: &str) -> Option<&Override> {
        self.params.get(function)?.get(param)
    }
}

/// The decision for one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamClass {
    /// Passed by value (integers, enums, handles, records by value).
    Value(ValueKind),
    /// `const char *`: bytes or str.
    Str,
    /// A raw address.
    Address,
    /// A pointer to one record read by the callee.
    RecordIn { class: String, record: String },
    /// `const T *` with T a scalar or handle: a list.
    Array(ValueKind),
    KernelParams,
    /// Allocated by the binding and returned.
    Out(ValueKind),
    /// `char *` or `T *` of `len` elements, allocated and returned.
    OutArray { element: ValueKind, len: String },
    /// A scalar read and written back: passed in, returned.
    InOut(ValueKind),
}

/// Why a parameter got its class; written to the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub class: ParamClass,
    pub reason: &'static str,
}

/// A parameter the pass could not classify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclassified {
    pub function: String,
    pub param: String,
    pub c_type: String,
}

/// Whether a `\param` text says the callee writes the value.
pub fn doc_says_returned(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    lower.starts_with("returned")
        || lower.starts_with("returns ")
        || lower.starts_with("pointer to returned")
        || lower.starts_with("location to return")
        || lower.starts_with("location to store")
        || lower.starts_with("output ")
        || lower.starts_with("the returned")
        || lower.starts_with("optionally returns")
        || lower.starts_with("on success, returns")
        || lower.contains(" to return ")
        || lower.contains("will be returned")
}

/// The `\\param name - text` entries of a doc comment, continuation lines joined.
///
/// `ctkgen_ir::doc::parse` keys entries by the word right after the command, which is empty
/// when the command is followed by several spaces; this reads names the way cuda.h writes them.
pub fn param_docs(text: &str) -> BTreeMap<String, String> {
    let mut params = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        let command = trimmed.strip_prefix('\\').or_else(|| trimmed.strip_prefix('@'));
        if let Some(command) = command {
            current = None;
            let rest = ["param[in,out]", "param[out]", "param[in]", "param"]
                .iter()
                .find_map(|c| command.strip_prefix(c).filter(|r| r.starts_with(char::is_whitespace)));
            if let Some(rest) = rest {
                let rest = rest.trim_start();
                let (name, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let body = body.trim_start().trim_start_matches('-').trim();
                params.insert(name.to_string(), body.to_string());
                current = Some(name.to_string());
            }
            continue;
        }
        match (&current, trimmed.is_empty()) {
            (Some(name), false) => {
                let entry = params.entry(name.clone()).or_insert_with(String::new);
                entry.push(' ');
                entry.push_str(trimmed);
            }
            (Some(_), true) => current = None,
            _ => {}
        }
    }
    params
}

/// Classifies every parameter of `function`; `Err` carries the one it cannot decide.
pub fn classify(api: &Api, function: &Function, overrides: &Overrides) -> Vec<Result<Decision, Unclassified>> {
    let docs = function.doc.as_deref().map(param_docs).unwrap_or_default();
    function
        .params
        .iter()
        .map(|param| {
            let text = docs.get(&param.name).map(String::as_str).unwrap_or("");
            classify_one(api, function, &param.name, &param.ty, text, overrides.get(&function.name, &param.name))
                .ok_or_else(|| Unclassified {
                    function: function.name.clone(),
                    param: param.name.clone(),
                    c_type: ctkgen_ir::abi::c_decl(api, &param.ty, ""),
                })
        })
        .collect()
}

fn decided(class: ParamClass, reason: &'static str) -> Option<Decision> {
    Some(Decision { class, reason })
}

fn classify_one(api: &Api, function: &Function, name: &str, ty: &Type, doc_text: &str, ov: Option<&Override>) -> Option<Decision> {
    let _ = function;
    let (pointee, pointee_const) = match api.resolve_keep_handles(ty) {
        Type::Pointer { pointee, pointee_const } => ((**pointee).clone(), *pointee_const),
        _ => {
            return match value_kind(api, ty) {
                ValueKind::Opaque | ValueKind::Array { .. } | ValueKind::CharArray { .. } => None,
                ValueKind::Pointer => decided(ParamClass::Address, "pointer value"),
                kind => decided(ParamClass::Value(kind), "by value"),
            }
        }
    };
    let target = value_kind(api, &pointee);
    let is_char = matches!(api.resolve(&pointee), Type::Primitive { name: Primitive::Char | Primitive::SignedChar | Primitive::UnsignedChar });
    let is_void = matches!(api.resolve(&pointee), Type::Void);
    match ov {
        Some(Override::Address) => return decided(ParamClass::Address, "override"),
        Some(Override::KernelParams) => return decided(ParamClass::KernelParams, "override"),
        Some(Override::OutArray { len }) => {
            let element = if is_char { ValueKind::CharArray { len: 0 } } else { target };
            return decided(ParamClass::OutArray { element, len: len.clone() }, "override");
        }
        Some(Override::Out) => return out_class(target, "override"),
        Some(Override::InOut) => {
            return match target {
                ValueKind::Record { class, record } => decided(ParamClass::RecordIn { class, record }, "override"),
                ValueKind::Int | ValueKind::Float | ValueKind::Enum { .. } | ValueKind::Scalar { .. } | ValueKind::Handle { .. } => {
                    decided(ParamClass::InOut(target), "override")
                }
                _ => None,
            }
        }
        Some(Override::In) => return input_class(target, is_char, is_void, "override"),
        None => {}
    }
    if pointee_const {
        return input_class(target, is_char, is_void, "const pointee");
    }
    if doc_says_returned(doc_text) {
        return out_class(target, "documented as returned");
    }
    if is_void {
        return decided(ParamClass::Address, "void pointer input");
    }
    let _ = name;
    None
}

fn input_class(target: ValueKind, is_char: bool, is_void: bool, reason: &'static str) -> Option<Decision> {
    if is_char {
        return decided(ParamClass::Str, reason);
    }
    if is_void {
        return decided(ParamClass::Address, reason);
    }
    match target {
        ValueKind::Record { class, record } => decided(ParamClass::RecordIn { class, record }, reason),
        ValueKind::Int | ValueKind::Float | ValueKind::Enum { .. } | ValueKind::Scalar { .. } | ValueKind::Handle { .. } => {
            decided(ParamClass::Array(target), reason)
        }
        ValueKind::Pointer => decided(ParamClass::Address, reason),
        _ => None,
    }
}

fn out_class(target: ValueKind, reason: &'static str) -> Option<Decision> {
    match target {
        ValueKind::Int
        | ValueKind::Float
        | ValueKind::Enum { .. }
        | ValueKind::Scalar { .. }
        | ValueKind::Handle { .. }
        | ValueKind::Record { .. }
        | ValueKind::Pointer => decided(ParamClass::Out(target), reason),
        _ => None,
    }
}

/// Resolving typedefs, but stopping at a handle typedef (a handle is a value, not a pointer).
trait ResolveKeepHandles {
    fn resolve_keep_handles<'a>(&'a self, ty: &'a Type) -> &'a Type;
}

impl ResolveKeepHandles for Api {
    fn resolve_keep_handles<'a>(&'a self, ty: &'a Type) -> &'a Type {
        match ty {
            Type::Typedef { name } if crate::types::typedef_class(self, name).is_some() => ty,
            Type::Typedef { name } => match self.typedef(name) {
                Some(def) => self.resolve_keep_handles(&def.ty),
                None => ty,
            },
            _ => ty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returned_wording() {
        assert!(doc_says_returned("Returned context handle of the new context"));
        assert!(doc_says_returned("Pointer to return the parameters"));
        assert!(!doc_says_returned("Tensor map object to create"));
        assert!(!doc_says_returned("Context creation flags"));
    }

    #[test]
    fn param_docs_with_aligned_names() {
        let docs = param_docs("\\brief x\n\n\\param pHandle        - Returned array\n\\param flags - Flags\n  more\n\n\\return\n");
        assert_eq!(docs["pHandle"], "Returned array");
        assert_eq!(docs["flags"], "Flags more");
    }

    #[test]
    fn overrides_parse() {
        let o = Overrides::parse("[cuA]\nx = \"out\"\ny = \"out_array(n)\"\n").unwrap();
        assert_eq!(o.get("cuA", "x"), Some(&Override::Out));
        assert_eq!(o.get("cuA", "y"), Some(&Override::OutArray { len: "n".into() }));
        assert!(Overrides::parse("[cuA]\nx = \"sideways\"\n").is_err());
        Overrides::embedded();
    }
}
