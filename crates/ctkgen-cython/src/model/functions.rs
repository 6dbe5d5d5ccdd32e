//! The Python entry points: which functions are wrapped and how each parameter is passed.

use ctkgen_ir::{Api, Type};
use serde::Serialize;

use crate::names::{docstring, py_ident};
use crate::params::{classify, ParamClass, Unclassified};
use crate::types::{cy_decl, cy_qualified, ValueKind};
use crate::CythonOptions;

#[derive(Debug, Clone, Serialize)]
pub struct ParamView {
    pub c_name: String,
    pub py_name: String,
    /// One of: value, handle, address, str, record_in, record_value, array, kernel_params,
    /// out_value, out_enum, out_object, out_address, out_bytes, out_array, inout.
    pub kind: String,
    /// The argument as written in the `def` signature, when it is one.
    pub arg: Option<String>,
    /// The expression passed to the C function.
    pub call: String,
    /// Cython type of the parameter (or of the pointee for outputs and arrays).
    pub cy_type: String,
    /// Python class involved (record, handle, scalar, enum), if any.
    pub class: String,
    /// For arrays: `int` or `handle` element conversion.
    pub element: String,
    /// Length parameter (python name) for out arrays.
    pub len: String,
    /// Expression giving the Python value returned for an output.
    pub result: String,
    /// Base wrapper of an output object: `_Record`, `_Handle`, `_Scalar`.
    pub wrapper: String,
    pub pointer_field: String,
    /// For out arrays: the length parameter is in/out, its value on return counts the elements.
    pub len_inout: bool,
    /// For lists of records: the record's alignment, for the temporary C array.
    pub align: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub name: String,
    /// The name the proc-address lookup is asked for with `first_version` (the IR's `lookup_name`).
    pub lookup_name: String,
    pub symbol: String,
    pub per_thread_symbol: Option<String>,
    pub first_version: u32,
    pub per_thread_first_version: u32,
    /// The parameter list in Cython syntax without the return type and name.
    pub c_params: String,
    pub c_arg_names: String,
    /// Parameter types, for the function-pointer typedef.
    pub c_types: String,
    pub params: Vec<ParamView>,
    pub outputs: usize,
    /// Whether the call runs with the GIL released (all but the `keep_gil` overrides).
    pub release_gil: bool,
    pub doc: String,
    pub signature: String,
    pub stub_returns: String,
}

/// The wrapped functions (those returning the status type), the classification report and the
/// parameters the classification could not decide.
pub(super) fn functions(
    api: &Api,
    options: &CythonOptions,
    result_class: Option<&str>,
) -> (Vec<FunctionView>, Vec<String>, Vec<Unclassified>) {
    let result_type = &options.conventions.result_type;
    let mut views = Vec::new();
    let mut report = Vec::new();
    let mut unclassified = Vec::new();
    for function in &api.functions {
        let returns_result = matches!(&function.ret, Type::Typedef { name } if name == result_type);
        if !returns_result {
            report.push(format!(
                "{}: skipped, returns {} instead of {result_type}",
                function.name,
                ctkgen_ir::abi::c_decl(api, &function.ret, "")
            ));
            continue;
        }
        let decisions = classify(api, function, &options.overrides);
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
        let params: Vec<ParamView> = function
            .params
            .iter()
            .zip(classes)
            .map(|(param, class)| param_view(api, &param.name, &param.ty, class, &inout_names))
            .collect();
        let c_params: Vec<String> = function.params.iter().map(|p| cy_decl(api, &p.ty, &py_ident(&p.name))).collect();
        let c_types: Vec<String> = function.params.iter().map(|p| cy_decl(api, &p.ty, "")).collect();
        let outputs = params.iter().filter(|p| !p.result.is_empty()).count();
        // Length parameters of out arrays stay inputs; everything else in signature order.
        let signature: Vec<String> = params.iter().filter_map(|p| p.arg.as_ref().map(|_| p.py_name.clone())).collect();
        let mut stub_returns = vec![result_class.unwrap_or(result_type).to_string()];
        stub_returns.extend(params.iter().filter(|p| !p.result.is_empty()).map(stub_type));
        views.push(FunctionView {
            name: function.name.clone(),
            lookup_name: function.lookup_name.clone(),
            symbol: function.symbol.clone(),
            per_thread_symbol: function.per_thread_symbol.clone(),
            first_version: function.first_version.unwrap_or(0),
            per_thread_first_version: function.per_thread_first_version.or(function.first_version).unwrap_or(0),
            c_params: c_params.join(", "),
            c_arg_names: function.params.iter().map(|p| py_ident(&p.name)).collect::<Vec<_>>().join(", "),
            c_types: c_types.join(", "),
            params,
            outputs,
            release_gil: !options.overrides.keep_gil.contains(&function.name),
            doc: function.doc.as_deref().map(docstring).unwrap_or_default(),
            signature: signature.join(", "),
            stub_returns: format!("tuple[{}]", stub_returns.join(", ")),
        });
    }
    (views, report, unclassified)
}

fn class_label(class: &ParamClass) -> &'static str {
    match class {
        ParamClass::Value(_) => "value",
        ParamClass::Str => "string",
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

fn stub_type(p: &ParamView) -> String {
    match p.kind.as_str() {
        "out_bytes" | "out_string" => "bytes".into(),
        "out_array" | "out_borrowed" => "list".into(),
        "out_address" => "int".into(),
        _ if !p.class.is_empty() => p.class.clone(),
        _ => "int".into(),
    }
}

fn empty_param(c_name: &str) -> ParamView {
    ParamView {
        c_name: c_name.to_string(),
        py_name: py_ident(c_name),
        kind: String::new(),
        arg: None,
        call: String::new(),
        cy_type: String::new(),
        class: String::new(),
        element: String::new(),
        len: String::new(),
        result: String::new(),
        wrapper: String::new(),
        pointer_field: String::new(),
        len_inout: false,
        align: 1,
    }
}

fn pointee_of(api: &Api, ty: &Type) -> Type {
    let mut current = ty;
    loop {
        match current {
            Type::Pointer { pointee, .. } => return (**pointee).clone(),
            Type::Typedef { name } => match api.typedef(name) {
                Some(def) => current = &def.ty,
                None => return Type::Void,
            },
            _ => return Type::Void,
        }
    }
}

fn param_view(api: &Api, name: &str, ty: &Type, class: ParamClass, inout_names: &[&str]) -> ParamView {
    let mut p = empty_param(name);
    let py = p.py_name.clone();
    let c_type = cy_qualified(api, ty);
    match class {
        ParamClass::Value(kind) => match kind {
            ValueKind::Int | ValueKind::Scalar { .. } | ValueKind::Float => {
                p.kind = "value".into();
                p.arg = Some(format!("{} {py}", cy_qualified(api, ty)));
                p.call = py.clone();
                if let ValueKind::Scalar { class } = kind {
                    p.class = class;
                }
            }
            ValueKind::Enum { class } => {
                p.kind = "value".into();
                p.arg = Some(format!("long long {py}"));
                p.call = format!("<{c_type}>{py}");
                p.class = class;
            }
            ValueKind::Handle { class } => {
                p.kind = "handle".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("<{c_type}>_p_{py}");
                p.class = class;
            }
            ValueKind::Record { class, .. } => {
                p.kind = "record_value".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("(<{c_type}*>_p_{py})[0]");
                p.class = class;
            }
            _ => {
                p.kind = "address".into();
                p.arg = Some(format!("object {py}"));
                p.call = format!("<{c_type}>_p_{py}");
            }
        },
        ParamClass::Str => {
            p.kind = "str".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::Address => {
            p.kind = "address".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::RecordIn { class, .. } => {
            p.kind = "record_in".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
            p.class = class;
        }
        ParamClass::Array(element) => {
            let pointee = pointee_of(api, ty);
            p.kind = "array".into();
            p.arg = Some(format!("object {py}"));
            p.cy_type = cy_qualified(api, &pointee);
            p.call = format!("<{c_type}>_a_{py}");
            p.element = element_conversion(&element).into();
        }
        ParamClass::RecordArray { class, record } => {
            let pointee = pointee_of(api, ty);
            p.kind = "record_array".into();
            p.arg = Some(format!("object {py}"));
            p.cy_type = cy_qualified(api, &pointee);
            p.call = format!("<{c_type}>_a_{py}");
            p.class = class;
            p.align = api.record(&record).map(|r| r.align).unwrap_or(1);
        }
        ParamClass::OutString => {
            p.kind = "out_string".into();
            p.cy_type = "const char*".into();
            p.call = format!("&_o_{py}");
            p.result = format!("(None if _o_{py} == NULL else <bytes>_o_{py})");
        }
        ParamClass::KernelParams => {
            p.kind = "kernel_params".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("<{c_type}>_p_{py}");
        }
        ParamClass::Out(kind) => {
            let pointee = pointee_of(api, ty);
            p.cy_type = cy_qualified(api, &pointee);
            match kind {
                ValueKind::Int | ValueKind::Float => {
                    p.kind = "out_value".into();
                    p.call = format!("&_o_{py}");
                    p.result = format!("_o_{py}");
                }
                ValueKind::Enum { class } => {
                    p.kind = "out_enum".into();
                    p.call = format!("&_o_{py}");
                    p.result = format!("_enum_value(_E_{class}, _o_{py})");
                    p.class = class;
                }
                ValueKind::Pointer => {
                    p.kind = "out_address".into();
                    p.call = format!("<{c_type}>&_o_{py}");
                    p.result = format!("<size_t>_o_{py}");
                    p.cy_type = "void*".into();
                }
                ValueKind::Scalar { ref class }
                | ValueKind::Handle { ref class }
                | ValueKind::Record { ref class, .. } => {
                    let class = class.clone();
                    let (wrapper, field) = match kind {
                        ValueKind::Scalar { .. } => ("_Scalar", "_pvt_ptr"),
                        ValueKind::Handle { .. } => ("_Handle", "_pvt_ptr"),
                        _ => ("_Record", "_pvt_addr"),
                    };
                    p.kind = "out_object".into();
                    p.wrapper = wrapper.into();
                    p.pointer_field = field.into();
                    p.call = format!("<{c_type}>(<{wrapper}>_o_{py}).{field}");
                    p.result = format!("_o_{py}");
                    p.class = class;
                }
                _ => unreachable!("out_class admits only the kinds above"),
            }
        }
        ParamClass::OutBytes { len } => {
            let pointee = pointee_of(api, ty);
            p.cy_type = cy_qualified(api, &pointee);
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>_a_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_bytes".into();
            // Data, not text: every byte comes back.
            p.element = "raw".into();
        }
        ParamClass::OutBorrowed { element, len } => {
            let inner = pointee_of(api, &pointee_of(api, ty));
            p.cy_type = cy_qualified(api, &inner);
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>&_o_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_borrowed".into();
            p.element = element_conversion(&element).into();
            match element {
                ValueKind::Handle { class }
                | ValueKind::Scalar { class }
                | ValueKind::Record { class, .. }
                | ValueKind::Enum { class } => p.class = class,
                _ => {}
            }
        }
        ParamClass::OutArray { element, len } => {
            let pointee = pointee_of(api, ty);
            p.cy_type = cy_qualified(api, &pointee);
            p.len_inout = inout_names.contains(&len.as_str());
            p.len = py_ident(&len);
            p.call = format!("<{c_type}>_a_{py}");
            p.result = format!("_r_{py}");
            p.kind = "out_array".into();
            p.element = element_conversion(&element).into();
            match element {
                ValueKind::CharArray { .. } => p.kind = "out_bytes".into(),
                ValueKind::Handle { class } | ValueKind::Scalar { class } | ValueKind::Record { class, .. } => {
                    p.class = class
                }
                ValueKind::Enum { class } => p.class = class,
                _ => {}
            }
        }
        ParamClass::InOut(kind) => {
            let pointee = pointee_of(api, ty);
            p.cy_type = cy_qualified(api, &pointee);
            p.kind = "inout".into();
            p.arg = Some(format!("object {py}"));
            p.call = format!("&_o_{py}");
            p.result = match &kind {
                ValueKind::Enum { class } => format!("_enum_value(_E_{class}, _o_{py})"),
                ValueKind::Handle { class } => format!("_new_handle(_C_{class}, <void*>_o_{py})"),
                ValueKind::Scalar { class } => format!("_new_scalar(_C_{class}, <long long>_o_{py})"),
                _ => format!("_o_{py}"),
            };
            if let ValueKind::Enum { class } | ValueKind::Handle { class } | ValueKind::Scalar { class } = &kind {
                p.class = class.clone();
            }
            p.element = element_conversion(&kind).into();
        }
    }
    p
}

/// How one element of a list converts to and from C: `handle`, `scalar`, `enum`, `record`,
/// `address`, `float` or `int`.
fn element_conversion(kind: &ValueKind) -> &'static str {
    match kind {
        ValueKind::Handle { .. } => "handle",
        ValueKind::Scalar { .. } => "scalar",
        ValueKind::Enum { .. } => "enum",
        ValueKind::Record { .. } => "record",
        ValueKind::Pointer => "address",
        ValueKind::Float => "float",
        _ => "int",
    }
}
