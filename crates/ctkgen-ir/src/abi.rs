//! The `abi` text form: one sorted line per declaration, for people and for diffs.
//!
//! Records show size, alignment, explicit alignments and every field offset; functions show
//! their ABI symbol, the version given to `cuGetProcAddress`, and their C signature.

use std::fmt::Write;

use crate::{Api, ConstantValue, Record, RecordKind, Type};

/// Spells a type in C around `declarator` (pass `""` for an abstract type).
pub fn c_decl(api: &Api, ty: &Type, declarator: &str) -> String {
    match ty {
        Type::Void => join("void", declarator),
        Type::Primitive { name } => join(name.c_name(), declarator),
        Type::Typedef { name } => join(name, declarator),
        Type::Enum { name } => {
            let spelled = match api.enumeration(name) {
                Some(e) if e.typedef_names.first() == Some(name) => name.clone(),
                _ => format!("enum {name}"),
            };
            join(&spelled, declarator)
        }
        Type::Record { name } => join(&record_spelling(api, name), declarator),
        Type::Pointer { pointee, pointee_const } => {
            let star = if *pointee_const && !matches!(**pointee, Type::Pointer { .. }) {
                // `const T *x`: the qualifier reads before the base type.
                return format!("const {}", c_decl(api, pointee, &format!("*{declarator}")));
            } else if *pointee_const {
                format!("* const{}", if declarator.is_empty() { String::new() } else { format!(" {declarator}") })
            } else {
                format!("*{declarator}")
            };
            match **pointee {
                Type::Function { .. } | Type::Array { .. } => c_decl(api, pointee, &format!("({star})")),
                _ => c_decl(api, pointee, &star),
            }
        }
        Type::Array { element, len } => c_decl(api, element, &format!("{declarator}[{len}]")),
        Type::Function { ret, params, variadic } => {
            let mut list: Vec<String> = params.iter().map(|p| c_decl(api, p, "")).collect();
            if *variadic {
                list.push("...".into());
            }
            if list.is_empty() {
                list.push("void".into());
            }
            c_decl(api, ret, &format!("{declarator}({})", list.join(", ")))
        }
    }
}

/// How C code names a record: `struct tag`, or the typedef of an untagged record.
pub fn record_spelling(api: &Api, name: &str) -> String {
    match api.record(name) {
        Some(r) if r.anonymous => r.typedef_name.clone().unwrap_or_else(|| format!("{} {name}", r.kind.c_keyword())),
        Some(r) => format!("{} {name}", r.kind.c_keyword()),
        None => format!("struct {name}"),
    }
}

fn join(base: &str, declarator: &str) -> String {
    if declarator.is_empty() {
        base.to_string()
    } else if declarator.starts_with('[') || declarator.starts_with('(') && !declarator.starts_with("(*") {
        format!("{base}{declarator}")
    } else {
        format!("{base} {declarator}")
    }
}

/// The whole summary. The first line names the source; no paths, no tool versions.
pub fn summary(api: &Api) -> String {
    let mut out = String::new();
    let p = &api.provenance;
    let extra: Vec<&str> = p.extra_headers.iter().map(|e| e.header.as_str()).collect();
    let _ = writeln!(
        out,
        "# abi of {}{}{}{} for {}",
        p.header,
        if extra.is_empty() { String::new() } else { format!(" with {}", extra.join(", ")) },
        p.ctk.as_deref().map(|v| format!(" from CTK {v}")).unwrap_or_default(),
        p.cuda_version.map(|v| format!(" (CUDA_VERSION {v})")).unwrap_or_default(),
        p.target
    );
    out.push_str("# units: size= and align= in bytes, field offsets (name@N) in bits\n");
    for record in &api.records {
        out.push_str(&record_line(record));
        out.push('\n');
    }
    for e in &api.enums {
        let names =
            if e.typedef_names.is_empty() { String::new() } else { format!(" ({})", e.typedef_names.join(", ")) };
        let _ = writeln!(out, "enum {}{names}: {}", e.name, e.underlying.c_name());
        for c in &e.constants {
            let _ = writeln!(out, "enum {}::{} = {}", e.name, c.name, c.value);
        }
    }
    for t in &api.typedefs {
        let _ = write!(out, "typedef {} = {} size={} align={}", t.name, c_decl(api, &t.ty, ""), t.size, t.align);
        for a in &t.explicit_alignments {
            let _ = write!(out, " [{} in {}]", a.spelling.render(a.value), a.mode);
        }
        out.push('\n');
    }
    for c in &api.constants {
        let value = match &c.value {
            ConstantValue::Int(v) => v.to_string(),
            ConstantValue::Float(v) => format!("{v:?}"),
            ConstantValue::Str(s) => format!("{s:?}"),
        };
        let _ = writeln!(out, "const {}: {} = {}", c.name, c_decl(api, &c.ty, ""), value);
    }
    for f in &api.functions {
        let params: Vec<String> = f.params.iter().map(|p| c_decl(api, &p.ty, &p.name)).collect();
        let version = match f.first_version {
            Some(v) if f.lookup_name != f.name => format!(" @{}:{v}", f.lookup_name),
            Some(v) => format!(" @{v}"),
            None => String::new(),
        };
        let ptds = match (&f.per_thread_symbol, f.per_thread_first_version) {
            (Some(s), Some(v)) => format!(" ptds={s}@{v}"),
            (Some(s), None) => format!(" ptds={s}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "fn {} -> {}{version}{ptds}: {}",
            f.name,
            f.symbol,
            c_decl(api, &f.ret, &format!("{}({})", f.name, params.join(", ")))
        );
    }
    out
}

/// One record: `record NAME struct size=.. align=.. [explicit ..] { field@bitoffset: type; .. }`.
pub fn record_line(record: &Record) -> String {
    let mut line = format!(
        "record {} {}",
        record.name,
        match record.kind {
            RecordKind::Struct => "struct",
            RecordKind::Union => "union",
        }
    );
    if !record.complete {
        line.push_str(" incomplete");
        return line;
    }
    let _ = write!(line, " size={} align={}", record.size, record.align);
    if record.packed {
        line.push_str(" packed");
    }
    for a in &record.explicit_alignments {
        let on = match &a.target {
            crate::AlignmentTarget::Record { .. } => "record".to_string(),
            crate::AlignmentTarget::Field { field, .. } => format!("field {field}"),
            crate::AlignmentTarget::Typedef { typedef } => format!("typedef {typedef}"),
        };
        let _ = write!(line, " [{on}: {} in {}]", a.spelling.render(a.value), a.mode);
    }
    line.push_str(" {");
    for f in &record.fields {
        let bits = match f.bit_width {
            Some(w) => format!(":{w}"),
            None => String::new(),
        };
        let _ = write!(line, " {}@{}{bits} size={} align={};", f.name, f.offset_bits, f.size, f.align);
    }
    line.push_str(" }");
    line
}
