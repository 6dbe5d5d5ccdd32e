//! The Python entry points: which functions are wrapped and how each parameter is passed.

use ctkgen_ir::doc::ParsedDocs;
use ctkgen_ir::{Api, Type};
use serde::Serialize;

use super::param_kind::{param_view, typed_param_view, ParamScope, ParamView};
use super::RESULT_REUSE_MAX;
use crate::names::{py_ident, ParamNames};
use crate::params::{classify, is_const_string, ParamClass, Unclassified};
use std::collections::BTreeMap;

use crate::typed_values::{typed_view, TypedView};
use crate::types::cy_decl;
use crate::CythonOptions;

#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub name: String,
    /// The name the proc-address lookup is asked for with `first_version` (the IR's `lookup_name`).
    pub lookup_name: String,
    pub symbol: String,
    pub per_thread_symbol: Option<String>,
    pub first_version: u32,
    pub per_thread_first_version: u32,
    /// The C return type in Cython syntax: the status type, or `const char *` for a function
    /// that returns a string (wrapped as `(success, bytes)`, the string copied).
    pub c_return: String,
    pub returns_string: bool,
    /// The parameter list in Cython syntax without the return type and name.
    pub c_params: String,
    /// The arguments of the call into the library (cast back to the header's types where the
    /// declaration spells them otherwise).
    pub c_arg_names: String,
    /// The parameters' names as the declaration spells them.
    pub c_names: String,
    /// Parameter types, for the function-pointer typedef.
    pub c_types: String,
    pub params: Vec<ParamView>,
    /// How many values come back after the status.
    pub outputs: usize,
    /// Whether the result tuple goes through the reused-tuple helpers (few enough items).
    pub reuse_result: bool,
    /// Whether any parameter needs memory freed after the call (the call sits in `try`).
    pub cleanup: bool,
    /// Whether the call runs with the GIL released (all but the `keep_gil` overrides).
    pub release_gil: bool,
    /// The docstring (the raw comment until the docs pass renders it).
    pub doc: String,
    pub signature: String,
    pub stub_returns: String,
}

/// The wrapped functions (those returning the status type, or a string), the classification
/// report, the parameters the classification could not decide and the typed values decided (by
/// `function.param`); `parsed` holds the parses of
/// their doc comments, `foreign` the libraries the library depends on (types its text names).
pub(super) fn functions(
    api: &Api,
    foreign: &[&Api],
    options: &CythonOptions,
    result_class: Option<&str>,
    parsed: &ParsedDocs,
) -> (Vec<FunctionView>, Vec<String>, Vec<Unclassified>, BTreeMap<String, TypedView>) {
    let result_type = &options.conventions.result_type;
    let cy_module = options.conventions.python.cython_module.as_str();
    let names = ParamNames(&options.conventions.python.parameter_names);
    let mut views = Vec::new();
    let mut report = Vec::new();
    let mut unclassified = Vec::new();
    let mut decided = BTreeMap::new();
    for function in &api.functions {
        // A reserved identifier (`__x`, `_X`) is the header's implementation, not its API (a
        // versioned symbol an inline function of the API calls): no binding.
        let bytes = function.name.as_bytes();
        if bytes.first() == Some(&b'_') && bytes.get(1).is_some_and(|b| *b == b'_' || b.is_ascii_uppercase()) {
            report.push(format!("{}: skipped, a reserved identifier", function.name));
            continue;
        }
        let returns_result = matches!(&function.ret, Type::Typedef { name } if name == result_type);
        let returns_string = !returns_result && is_const_string(api, &function.ret);
        if !returns_result && !returns_string {
            report.push(format!(
                "{}: skipped, returns {} instead of {result_type}",
                function.name,
                ctkgen_ir::abi::c_decl(api, &function.ret, "")
            ));
            continue;
        }
        let decisions = classify(api, function, &options.overrides, parsed);
        let mut classes = Vec::new();
        for (param, decision) in function.params.iter().zip(decisions) {
            let (class, reason) = match decision {
                Ok(d) => (d.class, d.reason),
                Err(u) => {
                    report.push(format!(
                        "{}.{}: UNCLASSIFIED ({}), passed as a raw address",
                        u.function, u.param, u.c_type
                    ));
                    unclassified.push(u);
                    (ParamClass::Address, "unclassified")
                }
            };
            if reason != "by value" {
                report.push(format!("{}.{}: {} ({reason})", function.name, param.name, class_label(&class)));
            }
            classes.push(class);
        }
        // Length parameters that go in and come back: their out arrays read the new count.
        let inout_names: Vec<&str> = function
            .params
            .iter()
            .zip(&classes)
            .filter(|(_, c)| matches!(c, ParamClass::InOut(_)))
            .map(|(p, _)| p.name.as_str())
            .collect();
        let typed = &options.overrides.typed;
        let at = ParamScope { api, cy_module, names, function: &function.name };
        let params: Vec<ParamView> = function
            .params
            .iter()
            .zip(classes)
            .map(|(param, class)| {
                let (name, ty) = (&function.name, &param.ty);
                if let Some(view) = typed
                    .spec(name, &param.name)
                    .and_then(|s| typed_view(api, foreign, cy_module, names, typed, function, s))
                {
                    let cases: Vec<String> = view
                        .cases
                        .iter()
                        .map(|c| match c.conv.class() {
                            Some(class) => format!("{} {class}", c.name),
                            None => format!(
                                "{} {}",
                                c.name,
                                serde_json::to_value(&c.conv).unwrap()["conv"].as_str().unwrap_or("")
                            ),
                        })
                        .collect();
                    report.push(format!(
                        "{name}.{}: typed by {}: {}; refused: {}",
                        param.name,
                        view.selector,
                        cases.join(", "),
                        if view.refused.is_empty() { "none".to_string() } else { view.refused.join(", ") }
                    ));
                    decided.insert(format!("{name}.{}", param.name), view.clone());
                    return typed_param_view(at, &param.name, ty, Some(view));
                }
                let hidden_size = typed.sized_by(name, &param.name).is_some_and(|s| {
                    typed_view(api, foreign, cy_module, names, typed, function, s).is_some_and(|v| v.size_hidden)
                });
                if hidden_size {
                    return typed_param_view(at, &param.name, ty, None);
                }
                param_view(at, &param.name, ty, class, &inout_names)
            })
            .collect();
        let mut params = with_size_query_defaults(params);
        // The Cython-level declarations keep the C names (made safe); only the Python module
        // follows the compatible module's spellings. Types follow the ABI table where it spells
        // them otherwise: the declaration and the Python wrapper's cast take its spelling, the
        // call into the library casts back to the header's type.
        let abi = &options.overrides.abi;
        let spelled: Vec<Option<&str>> =
            function.params.iter().map(|p| abi.parameter(&function.name, &p.name, &cy_decl(api, &p.ty, ""))).collect();
        for (view, spelling) in params.iter_mut().zip(&spelled) {
            if let Some(spelling) = spelling {
                view.c_type = qualified_spelling(api, cy_module, spelling);
            }
        }
        let c_params: Vec<String> = (function.params.iter().zip(&spelled))
            .map(|(p, spelling)| match spelling {
                Some(spelling) => spelled_decl(spelling, &py_ident(&p.name)),
                None => cy_decl(api, &p.ty, &py_ident(&p.name)),
            })
            .collect();
        let c_types: Vec<String> = function.params.iter().map(|p| cy_decl(api, &p.ty, "")).collect();
        let c_arg_names: Vec<String> = (function.params.iter().zip(&spelled).zip(&c_types))
            .map(|((p, spelling), header_type)| match spelling {
                Some(_) => format!("<{header_type}>{}", py_ident(&p.name)),
                None => py_ident(&p.name),
            })
            .collect();
        let outputs = params.iter().filter(|p| p.output).count() + usize::from(returns_string);
        // Length parameters of out arrays stay inputs; everything else in signature order.
        let signature: Vec<String> = params
            .iter()
            .filter(|p| p.arg_type.is_some())
            .map(|p| match &p.default {
                Some(value) => format!("{}={value}", p.py_name),
                None => p.py_name.clone(),
            })
            .collect();
        let mut stub_returns = vec![result_class.unwrap_or(result_type).to_string()];
        stub_returns.extend(params.iter().filter(|p| p.output).map(|p| p.stub_type.clone()));
        if returns_string {
            stub_returns.push("Optional[bytes]".to_string());
        }
        let cleanup = params.iter().any(|p| p.cleanup);
        views.push(FunctionView {
            name: function.name.clone(),
            lookup_name: function.lookup_name.clone(),
            symbol: function.symbol.clone(),
            per_thread_symbol: function.per_thread_symbol.clone(),
            first_version: function.first_version.unwrap_or(0),
            per_thread_first_version: function.per_thread_first_version.or(function.first_version).unwrap_or(0),
            c_return: if returns_string { cy_decl(api, &function.ret, "") } else { result_type.clone() },
            returns_string,
            c_params: c_params.join(", "),
            c_arg_names: c_arg_names.join(", "),
            c_names: function.params.iter().map(|p| py_ident(&p.name)).collect::<Vec<_>>().join(", "),
            c_types: c_types.join(", "),
            params,
            outputs,
            reuse_result: outputs < RESULT_REUSE_MAX,
            cleanup,
            release_gil: !options.overrides.keep_gil.contains(&function.name),
            doc: function.doc.clone().unwrap_or_default(),
            signature: signature.join(", "),
            stub_returns: format!("tuple[{}]", stub_returns.join(", ")),
        });
    }
    (views, report, unclassified, decided)
}

/// A declaration of `name` with the type spelled `spelling` (Cython syntax, `const void **`).
pub(super) fn spelled_decl(spelling: &str, name: &str) -> String {
    match spelling.ends_with('*') {
        true => format!("{spelling}{name}"),
        false => format!("{spelling} {name}"),
    }
}

/// `spelling` as another module writes it: each name the library declares taken from `cy_module`.
fn qualified_spelling(api: &Api, cy_module: &str, spelling: &str) -> String {
    let declared = |word: &str| {
        api.typedef(word).is_some() || api.record(word).is_some() || api.enums.iter().any(|e| e.name == word)
    };
    let mut out = String::new();
    let mut word = String::new();
    for c in spelling.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            if declared(&word) {
                out.push_str(cy_module);
                out.push('.');
            }
            out.push_str(&word);
            word.clear();
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

/// The in/out counts of output arrays default to 0, so `f(handle)` asks only how many there are,
/// as the size queries of the official bindings do. Only a trailing run of such arguments can
/// have defaults: an argument after one with a default must have one too.
fn with_size_query_defaults(mut params: Vec<ParamView>) -> Vec<ParamView> {
    let counts: Vec<String> = params.iter().filter_map(|p| p.kind.inout_len().map(str::to_string)).collect();
    for param in params.iter_mut().rev().filter(|p| p.arg_type.is_some()) {
        if !counts.contains(&param.py_name) {
            break;
        }
        param.default = Some("0".into());
    }
    params
}

fn class_label(class: &ParamClass) -> &'static str {
    match class {
        ParamClass::Value(_) => "value",
        ParamClass::Str => "string",
        ParamClass::StrArray { .. } => "list of strings",
        ParamClass::HandleRef => "handle by reference",
        ParamClass::Address => "address",
        ParamClass::RecordIn { .. } => "record input",
        ParamClass::Array(_) => "input list",
        ParamClass::RecordArray { .. } => "input list of records",
        ParamClass::OutString => "output string",
        ParamClass::KernelParams => "kernel parameters",
        ParamClass::Out(_) => "output",
        ParamClass::OutArray { .. } => "output array",
        ParamClass::OutBytes { .. } => "output bytes",
        ParamClass::OutBorrowed { .. } => "output array owned by the driver",
        ParamClass::InOut(_) => "in/out",
    }
}
