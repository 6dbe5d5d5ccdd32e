//! What the Cython-level module declares beyond the header's functions and types, so that Cython
//! code written against the compatible module compiles against this one: the integer macros as
//! constants, the compatible names of nested untagged records, the record helpers and the
//! aliased functions (see [`crate::abi::CythonAbi`]).

use ctkgen_ir::{Api, ConstantValue, Type};
use serde::Serialize;

use super::compat_names::anonymous_record_aliases;
use super::functions::FunctionView;
use super::nameable::is_nameable;
use super::pxd::flattened_fields;
use crate::abi::ConstantSource;
use crate::names::py_ident;
use crate::types::{cy_decl, record_cy_name};
use crate::{CythonEmitError, CythonOptions};

/// Everything of the module's Cython level that is not a header declaration.
#[derive(Debug, Default, Serialize)]
pub struct CyLevel {
    /// `(name, value)` of each integer macro: `cdef enum: NAME = value`, as the compatible
    /// module declares them (the value from the IR).
    pub constants: Vec<(String, String)>,
    /// `(compatible name, Cython name)` of each nested untagged record.
    pub record_aliases: Vec<(String, String)>,
    /// `(C name, header name)`: the module's own types, defined as the header's in C.
    pub own_types: Vec<(String, String)>,
    /// `(name, C value)`: members the module adds to the status enum, defined in the types header.
    pub status_members: Vec<(String, String)>,
    pub helpers: Vec<CyHelper>,
    /// Functions the ABI table declares that the header does not, found by the loader as the
    /// header's are.
    pub extra_functions: Vec<CyFunction>,
    pub aliases: Vec<CyAlias>,
    /// The value a function returns when it raised.
    pub except_value: String,
}

/// A function that returns a record with the given members set from its arguments.
#[derive(Debug, Serialize)]
pub struct CyHelper {
    pub name: String,
    /// The record's Cython name.
    pub record: String,
    pub c_params: String,
    /// `(member, parameter)` in order.
    pub fields: Vec<(String, String)>,
}

/// The Cython level of a function the ABI table declares: what the loader block of the `cy`
/// module needs (the same fields as [`FunctionView`]'s).
#[derive(Debug, Serialize)]
pub struct CyFunction {
    pub name: String,
    pub lookup_name: String,
    pub symbol: String,
    pub per_thread_symbol: Option<String>,
    pub first_version: u32,
    pub per_thread_first_version: u32,
    pub c_return: String,
    pub returns_string: bool,
    pub c_params: String,
    pub c_types: String,
    pub c_arg_names: String,
}

/// A function that calls another one of the library with the same arguments.
#[derive(Debug, Serialize)]
pub struct CyAlias {
    pub name: String,
    pub target: String,
    pub c_return: String,
    pub c_params: String,
    pub c_arg_names: String,
    /// The Python function's parameters and its call of the target's, and its stub's result.
    pub py_signature: String,
    pub py_args: String,
    pub stub_returns: String,
}

/// Words of a C type that name no declaration.
const C_TYPE_WORDS: &[&str] =
    &["const", "void", "char", "short", "int", "long", "unsigned", "signed", "float", "double", "size_t"];

pub(super) fn cy_level(
    api: &Api,
    options: &CythonOptions,
    functions: &[FunctionView],
    own_types: Vec<(String, String)>,
    status_members: Vec<(String, String)>,
) -> Result<CyLevel, CythonEmitError> {
    let abi = &options.overrides.abi;
    let conventions = &options.conventions;
    let mut constants: Vec<(String, String)> = (api.constants.iter())
        .filter_map(|c| match c.value {
            ConstantValue::Int(v) => Some((c.name.clone(), v.to_string())),
            _ => None,
        })
        .collect();
    for (name, target) in &abi.constant_aliases {
        let target = match target {
            ConstantSource::Value(value) => {
                constants.push((name.clone(), value.to_string()));
                continue;
            }
            ConstantSource::Named(target) => target,
        };
        // A release without the target goes without the alias (the table covers every release).
        let enumerator =
            || api.enums.iter().flat_map(|e| &e.constants).find(|c| &c.name == target).map(|c| c.value.to_string());
        let Some(value) = (constants.iter().find(|(c, _)| c == target).map(|(_, v)| v.clone())).or_else(enumerator)
        else {
            continue;
        };
        constants.push((name.clone(), value));
    }
    let record_aliases = match &conventions.python.anonymous_record_prefix {
        Some(prefix) => anonymous_record_aliases(api, prefix)
            .into_iter()
            .filter_map(|(record, alias)| {
                let record = api.record(&record).filter(|r| is_nameable(api, r))?;
                Some((alias, record_cy_name(record)))
            })
            .collect(),
        None => Vec::new(),
    };
    let mut helpers = Vec::new();
    if abi.record_helpers {
        for (name, helper) in &conventions.python.record_helpers {
            let problem = |what: String| CythonEmitError::RecordHelper(format!("{name}: {what}"));
            let record = (api.record(&helper.record))
                .or_else(|| match api.typedef(&helper.record).map(|t| api.resolve(&t.ty)) {
                    Some(Type::Record { name }) => api.record(name),
                    _ => None,
                })
                .ok_or_else(|| problem(format!("no record `{}` in the IR", helper.record)))?;
            let fields = flattened_fields(api, record);
            let mut c_params = Vec::new();
            let mut assigned = Vec::new();
            for (param, member) in helper.params.iter().zip(&helper.fields) {
                let (field, _) = (fields.iter())
                    .find(|(f, _)| py_ident(&f.name) == *member)
                    .ok_or_else(|| problem(format!("`{}` has no member `{member}`", helper.record)))?;
                c_params.push(cy_decl(api, &field.ty, &py_ident(param)));
                assigned.push((py_ident(&field.name), py_ident(param)));
            }
            helpers.push(CyHelper {
                name: name.clone(),
                record: record_cy_name(record),
                c_params: c_params.join(", "),
                fields: assigned,
            });
        }
    }
    let mut aliases = Vec::new();
    for (name, target) in &abi.function_aliases {
        let Some(f) = functions.iter().find(|f| &f.name == target) else { continue };
        aliases.push(CyAlias {
            name: name.clone(),
            target: target.clone(),
            c_return: f.c_return.clone(),
            c_params: f.c_params.clone(),
            c_arg_names: f.c_names.clone(),
            py_signature: f.signature.clone(),
            py_args: f
                .params
                .iter()
                .filter(|p| p.arg_type.is_some())
                .map(|p| p.py_name.clone())
                .collect::<Vec<_>>()
                .join(", "),
            stub_returns: f.stub_returns.clone(),
        });
    }
    let mut extra_functions = Vec::new();
    // Where the header declares the entry point (by name or as another name's symbol), or lacks a
    // type it takes, the release goes without it.
    let declared = |name: &String| api.function(name).is_some() || api.functions.iter().any(|f| &f.symbol == name);
    for (name, f) in abi.extra_functions.iter().filter(|(name, _)| !declared(name)) {
        let params = f.params.iter().map(|param| split_param(name, param)).collect::<Result<Vec<_>, _>>()?;
        let types = std::iter::once(f.returns.as_str()).chain(params.iter().map(|(ty, _)| ty.as_str()));
        if !types.into_iter().all(|ty| spellable(api, ty)) {
            continue;
        }
        extra_functions.push(CyFunction {
            name: name.clone(),
            lookup_name: f.lookup.clone(),
            symbol: name.clone(),
            per_thread_symbol: f.per_thread_symbol.clone(),
            first_version: f.version,
            per_thread_first_version: f.version,
            c_return: f.returns.clone(),
            returns_string: false,
            c_params: f.params.join(", "),
            c_types: params.iter().map(|(ty, _)| ty.clone()).collect::<Vec<_>>().join(", "),
            c_arg_names: params.iter().map(|(_, name)| name.clone()).collect::<Vec<_>>().join(", "),
        });
    }
    let except_value = abi.except_value.clone().unwrap_or_else(|| conventions.missing_function_constant.clone());
    Ok(CyLevel {
        constants,
        record_aliases,
        own_types,
        status_members,
        helpers,
        extra_functions,
        aliases,
        except_value,
    })
}

/// `type name` of a declared parameter: the name is the last word, the type what comes before it.
fn split_param(function: &str, param: &str) -> Result<(String, String), CythonEmitError> {
    let at = param.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    let (ty, name) = param.split_at(at);
    match (ty.trim(), name) {
        ("", _) | (_, "") => {
            Err(CythonEmitError::Overrides(format!("Cython ABI: {function}: parameter `{param}` is not `type name`")))
        }
        (ty, name) => Ok((ty.to_string(), name.to_string())),
    }
}

/// Whether every name in the C type `ty` (Cython syntax) is a C word or a type the IR declares.
fn spellable(api: &Api, ty: &str) -> bool {
    (ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty())
        .all(|w| C_TYPE_WORDS.contains(&w) || api.typedef(w).is_some() || api.record(w).is_some())
}
