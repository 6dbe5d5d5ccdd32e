//! The raise convention (`convention = "raise"` in a library's description): functions named
//! from the C names by the description's [`RaiseNames`], a status other than success raised as
//! the description's exception, outputs returned alone, handles as plain ints, enums named
//! without the library's prefixes. The parameters keep the classification the status
//! convention decides ([`ParamKind`]); this pass says how each kind is passed here, and refuses
//! a kind the convention has no form for, naming the function and parameter.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, ConstantValue, NameCase, RaiseNames, Type};
use serde::Serialize;

use super::classes::{EnumMemberView, EnumView};
use super::functions::FunctionView;
use super::param_kind::ParamKind;
use crate::names::py_ident;
use crate::params::Override;
use crate::types::{enum_class, IntRange};
use crate::{CythonEmitError, CythonOptions};

/// What the raise convention's modules print, beside the enums (which take the model's list).
#[derive(Debug, Serialize)]
pub struct RaiseView {
    /// The exception class a status other than success raises.
    pub error: String,
    /// The status enum's class, as renamed.
    pub result_class: String,
    pub success_value: String,
    /// What a function returning a string gives back for NULL, as a Python expression.
    pub null_string: String,
    pub functions: Vec<RaiseFunctionView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RaiseFunctionView {
    /// The Python name.
    pub name: String,
    /// The C function, as the Cython-level module declares it.
    pub c_name: String,
    pub params: Vec<RaiseParam>,
    /// A function that returns a string instead of a status: it returns the text (no status).
    pub returns_string: bool,
    pub release_gil: bool,
    /// Whether memory or buffers are released after the call (the call sits in `try`).
    pub cleanup: bool,
    /// How many values come back: none is `None`, one the value, more a tuple.
    pub outputs: usize,
    pub signature: String,
    pub stub_returns: String,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RaiseParam {
    pub py_name: String,
    /// The C name, as the header's comment names the parameter.
    #[serde(skip)]
    pub c_name: String,
    /// How messages name it: `function: parameter`.
    pub what: String,
    /// Its fields are the parameter's own (`kind` names the variant): few parameters, so the
    /// map `flatten` makes costs nothing worth a serializer of its own.
    #[serde(flatten)]
    pub kind: RaiseKind,
    /// The Cython spelling of the C parameter type, for the cast in the call.
    pub c_type: String,
    /// What an output points at.
    pub cy_type: String,
    /// An output enum's class.
    pub class: Option<String>,
    /// Whether it is an argument of the Python function.
    pub input: bool,
}

impl RaiseParam {
    /// An output's Python type as the stub spells it.
    pub fn stub_type(&self) -> String {
        match (&self.kind, &self.class) {
            (RaiseKind::OutEnum, Some(class)) => class.clone(),
            (RaiseKind::OutValue, _) if self.cy_type.contains("float") || self.cy_type.contains("double") => {
                "float".into()
            }
            _ => "int".into(),
        }
    }
}

/// How a parameter is passed under the raise convention; the template has one macro per kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RaiseKind {
    /// A float, passed as is.
    Value,
    /// An integer or enum value, checked against the range of its C type.
    Int { range: IntRange },
    /// A handle: an int (its value) or None.
    Handle,
    /// `H *` the callee reads (and may clear): the handle is given by value, and the address of
    /// a copy is passed.
    HandleCopy,
    /// `const char *`: str (UTF-8), bytes, or None.
    Str,
    /// A list of strings (str or bytes, or ints that are their addresses), or an int that is the
    /// array's address, or None; `count` names the argument that says how many the callee reads.
    Strings { count: Option<String> },
    /// Memory the callee reads or writes: an int (the address) or a contiguous buffer, writable
    /// when the callee writes, of at least `len` (an argument) bytes when a length is given.
    Buffer { len: Option<String>, writable: bool },
    /// An integer or float the callee writes, returned.
    OutValue,
    /// A handle or pointer the callee writes, returned as an int.
    OutHandle,
    /// An enum the callee writes, returned as its member.
    OutEnum,
}

impl RaiseKind {
    fn is_output(&self) -> bool {
        matches!(self, RaiseKind::OutValue | RaiseKind::OutHandle | RaiseKind::OutEnum)
    }

    fn needs_cleanup(&self) -> bool {
        matches!(self, RaiseKind::Strings { .. } | RaiseKind::Buffer { .. })
    }
}

/// `name` in the description's case: snake case splits before a capital that follows a lower
/// case letter or digit, and before the last capital of a run that a lower case letter follows
/// (`majorIR` is `major_ir`, `IRVersion` is `ir_version`).
pub fn cased(name: &str, case: NameCase) -> String {
    if case == NameCase::Keep {
        return name.to_string();
    }
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let before = chars[i - 1];
            let after_is_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = before.is_ascii_lowercase()
                || before.is_ascii_digit()
                || (before.is_ascii_uppercase() && after_is_lower);
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// `name` without `prefix`, unless that leaves nothing or no identifier.
fn stripped<'a>(name: &'a str, prefix: &str) -> &'a str {
    match name.strip_prefix(prefix) {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => rest,
        _ => name,
    }
}

/// A function's Python name.
pub fn function_name(names: &RaiseNames, c_name: &str) -> String {
    py_ident(&cased(stripped(c_name, &names.function_prefix), names.case))
}

/// A parameter's Python name: as the description's table spells it (`parameter_names`), else in
/// the convention's case.
pub fn param_name(names: &RaiseNames, spelled: &BTreeMap<String, String>, c_name: &str) -> String {
    match spelled.get(c_name) {
        Some(name) => name.clone(),
        None => py_ident(&cased(c_name, names.case)),
    }
}

/// The library's enums under the convention's names: the class without the type prefix, each
/// member without the constant prefix and then what every member of its enum still shares up to
/// an underscore. Macros naming an enumerator (`#define FOO_OLD FOO_NEW`) are members too,
/// named alike, with the value they stand for.
pub(super) fn enums(api: &Api, names: &RaiseNames) -> Vec<EnumView> {
    api.enums
        .iter()
        .map(|e| {
            let c_class = enum_class(api, &e.name);
            let class = stripped(&c_class, &names.type_prefix).to_string();
            let mut members: Vec<(String, i128, String)> =
                e.constants.iter().map(|c| (c.name.clone(), c.value, c.doc.clone().unwrap_or_default())).collect();
            for constant in &api.constants {
                let typed_by_enum = matches!(api.resolve(&constant.ty), Type::Enum { name } if *name == e.name);
                if let (true, ConstantValue::Int(value)) = (typed_by_enum, &constant.value) {
                    if !members.iter().any(|(name, _, _)| *name == constant.name) {
                        members.push((constant.name.clone(), *value, String::new()));
                    }
                }
            }
            let members = super::classes::in_member_order(members, |(_, value, _)| *value);
            let bare: Vec<&str> = members.iter().map(|(name, _, _)| stripped(name, &names.constant_prefix)).collect();
            let shared = shared_prefix(&bare);
            EnumView {
                aliases: Vec::new(),
                members: members
                    .iter()
                    .zip(&bare)
                    .map(|((_, value, doc), bare)| EnumMemberView {
                        name: py_ident(&bare[shared..]),
                        value: value.to_string(),
                        doc: doc.clone(),
                        member_doc: super::member_docs::plain_member_doc(doc),
                    })
                    .collect(),
                doc: e.doc.clone().unwrap_or_default(),
                class,
            }
        })
        .collect()
}

/// The length of what every name shares up to and including an underscore, when each keeps an
/// identifier after it (0 for fewer than two names).
fn shared_prefix(names: &[&str]) -> usize {
    let [first, rest @ ..] = names else { return 0 };
    if rest.is_empty() {
        return 0;
    }
    let mut candidate = 0;
    for (i, c) in first.char_indices() {
        if c == '_' && rest.iter().all(|n| n.get(..=i) == first.get(..=i)) {
            candidate = i + 1;
        }
        if rest.iter().any(|n| n.get(..=i) != first.get(..=i)) {
            break;
        }
    }
    let usable = |n: &&str| n[candidate..].starts_with(|c: char| c.is_ascii_alphabetic());
    if names.iter().all(usable) {
        candidate
    } else {
        0
    }
}

/// The raise convention's view of every wrapped function, from the status convention's views
/// of the same functions (their parameter kinds and rendered docs).
pub(super) fn build(
    api: &Api,
    options: &CythonOptions,
    names: &RaiseNames,
    functions: &[FunctionView],
    enums: &[EnumView],
) -> Result<RaiseView, CythonEmitError> {
    let conventions = &options.conventions;
    let result = conventions.result_enum(api).ok_or_else(|| {
        CythonEmitError::Raise(format!("the header declares no status enum `{}`", conventions.result_type))
    })?;
    let result_index = api.enums.iter().position(|e| e.name == result.name).unwrap_or(0);
    let success = conventions
        .success_value(api)
        .ok_or_else(|| CythonEmitError::Raise(format!("the status enum has no `{}`", conventions.success_constant)))?;
    let mut views = Vec::new();
    for f in functions {
        let c_function =
            api.function(&f.name).ok_or_else(|| CythonEmitError::Raise(format!("{}: not in the IR", f.name)))?;
        let py_function = function_name(names, &f.name);
        let spelled = &conventions.python.parameter_names;
        let py_names: Vec<String> = c_function.params.iter().map(|p| param_name(names, spelled, &p.name)).collect();
        let renamed = |status_name: &str| {
            f.params
                .iter()
                .position(|q| q.py_name == status_name)
                .map(|i| py_names[i].clone())
                .unwrap_or_else(|| param_name(names, spelled, status_name))
        };
        let mut params = Vec::new();
        for ((p, c_param), py_name) in f.params.iter().zip(&c_function.params).zip(&py_names) {
            let unsupported = || {
                CythonEmitError::Raise(format!(
                    "{}.{}: the raise convention has no form for this parameter ({})",
                    f.name,
                    c_param.name,
                    serde_json::to_value(&p.kind)
                        .ok()
                        .and_then(|v| v["kind"].as_str().map(str::to_string))
                        .unwrap_or_default()
                ))
            };
            let kind = match &p.kind {
                ParamKind::Value => RaiseKind::Value,
                ParamKind::Int { range } | ParamKind::EnumValue { range } => RaiseKind::Int { range: *range },
                ParamKind::Handle => RaiseKind::Handle,
                ParamKind::HandleRef => RaiseKind::HandleCopy,
                ParamKind::Str => RaiseKind::Str,
                ParamKind::StrArray { count } => RaiseKind::Strings { count: count.as_deref().map(renamed) },
                ParamKind::Address => {
                    let len = match options.overrides.get(&f.name, &c_param.name) {
                        Some(Override::InBytes { len }) => Some(param_name(names, spelled, len)),
                        _ => None,
                    };
                    let writable = !matches!(api.resolve(&c_param.ty), Type::Pointer { pointee_const: true, .. });
                    RaiseKind::Buffer { len, writable }
                }
                ParamKind::OutValue => RaiseKind::OutValue,
                ParamKind::OutEnum => RaiseKind::OutEnum,
                ParamKind::OutAddress | ParamKind::OutObject { object: super::ObjectKind::Handle } => {
                    RaiseKind::OutHandle
                }
                _ => return Err(unsupported()),
            };
            let class = match (&kind, &p.class) {
                (RaiseKind::OutEnum, Some(c_class)) => Some(renamed_class(api, enums, c_class)),
                _ => None,
            };
            params.push(RaiseParam {
                what: format!("{py_function}: {py_name}"),
                py_name: py_name.clone(),
                c_name: c_param.name.clone(),
                input: !kind.is_output(),
                c_type: p.c_type.clone(),
                cy_type: p.cy_type.clone(),
                class,
                kind,
            });
        }
        // A buffer's length must be an argument of the function.
        for p in &params {
            if let RaiseKind::Buffer { len: Some(len), .. } = &p.kind {
                if !params.iter().any(|q| &q.py_name == len && q.input) {
                    return Err(CythonEmitError::Raise(format!(
                        "{}: no argument `{len}` gives the length of `{}`",
                        f.name, p.py_name
                    )));
                }
            }
        }
        let outputs = params.iter().filter(|p| !p.input).count();
        let mut returns: Vec<String> = params.iter().filter(|p| !p.input).map(RaiseParam::stub_type).collect();
        let stub_returns = match (f.returns_string, returns.len()) {
            (true, _) if names.null_string.is_some() => "str".to_string(),
            (true, _) => "Optional[str]".to_string(),
            (false, 0) => "None".to_string(),
            (false, 1) => returns.remove(0),
            (false, _) => format!("tuple[{}]", returns.join(", ")),
        };
        views.push(RaiseFunctionView {
            signature: params.iter().filter(|p| p.input).map(|p| p.py_name.clone()).collect::<Vec<_>>().join(", "),
            cleanup: params.iter().any(|p| p.kind.needs_cleanup()),
            name: py_function,
            c_name: f.name.clone(),
            params,
            returns_string: f.returns_string,
            release_gil: f.release_gil,
            outputs,
            stub_returns,
            doc: f.doc.clone(),
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(twice) = views.iter().find(|v| !seen.insert(v.name.as_str())) {
        return Err(CythonEmitError::Raise(format!("two functions are named `{}`", twice.name)));
    }
    Ok(RaiseView {
        error: names.error.clone(),
        result_class: enums.get(result_index).map(|e| e.class.clone()).unwrap_or_default(),
        success_value: success.to_string(),
        null_string: names
            .null_string
            .as_deref()
            .map_or_else(|| "None".to_string(), |text| format!("\"{}\"", crate::names::string_literal(text))),
        functions: views,
    })
}

/// The renamed class of the enum the status convention calls `c_class`.
fn renamed_class(api: &Api, enums: &[EnumView], c_class: &str) -> String {
    api.enums
        .iter()
        .position(|e| enum_class(api, &e.name) == c_class)
        .and_then(|i| enums.get(i))
        .map(|e| e.class.clone())
        .unwrap_or_else(|| c_class.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_reads_runs_of_capitals_as_one_word() {
        for (from, to) in [
            ("GetLinkedCubinSize", "get_linked_cubin_size"),
            ("Version", "version"),
            ("IRVersion", "ir_version"),
            ("LLVMVersion", "llvm_version"),
            ("majorIR", "major_ir"),
            ("majorDbg", "major_dbg"),
            ("bufferSizeRet", "buffer_size_ret"),
            ("numOptions", "num_options"),
            ("GetPTX", "get_ptx"),
            ("get2D", "get2_d"),
            ("x", "x"),
        ] {
            assert_eq!(cased(from, NameCase::Snake), to, "{from}");
        }
        assert_eq!(cased("numOptions", NameCase::Keep), "numOptions");
    }

    #[test]
    fn members_lose_the_prefix_and_what_they_all_share() {
        assert_eq!(shared_prefix(&["INPUT_NONE", "INPUT_CUBIN", "INPUT_PTX"]), "INPUT_".len());
        assert_eq!(shared_prefix(&["SUCCESS", "ERROR_X", "ERROR_Y"]), 0);
        assert_eq!(shared_prefix(&["ERROR_X", "ERROR_Y"]), "ERROR_".len());
        // A member that would start with a digit keeps the shared part.
        assert_eq!(shared_prefix(&["MODE_1", "MODE_2"]), 0);
        assert_eq!(shared_prefix(&["ONLY_ONE"]), 0);
        assert_eq!(shared_prefix(&["A_B_C", "A_B_D", "A_X"]), "A_".len());
        assert_eq!(stripped("fooCreate", "foo"), "Create");
        assert_eq!(stripped("foo2", "foo"), "foo2");
        assert_eq!(stripped("barCreate", "foo"), "barCreate");
    }
}
