//! The build-time guard: static assertions that the compiled-against header has the layouts of the IR.

use ctkgen_ir::{Api, LibraryConventions};
use serde::Serialize;

use super::nameable::{c_spelling, is_nameable};
use super::pxd::flattened_fields;
use crate::names::string_literal;
use crate::types::{typedef_class, TypedefClass};

#[derive(Debug, Serialize)]
pub struct LayoutAssert {
    pub expr: String,
    pub message: String,
}

pub(super) fn layout_asserts(api: &Api, conventions: &LibraryConventions) -> Vec<LayoutAssert> {
    let from = match &conventions.version_macro {
        Some(version_macro) => format!(
            "{} {} {}",
            api.provenance.header,
            version_macro,
            api.provenance.cuda_version.map(|v| v.to_string()).unwrap_or_else(|| "unknown".into())
        ),
        None => format!("{} of CTK {}", api.provenance.header, api.provenance.ctk.as_deref().unwrap_or("unknown")),
    };
    let mut out = Vec::new();
    // The handle and integer typedefs: their sizes are what the module's `sizeof` answers.
    for def in &api.typedefs {
        if matches!(typedef_class(api, &def.name), Some(TypedefClass::Handle | TypedefClass::Scalar)) && def.align != 0
        {
            out.push(LayoutAssert {
                expr: format!("sizeof({}) == {}", def.name, def.size),
                message: string_literal(&format!(
                    "ctkgen: {} differs: sizeof is not {} as in {from}",
                    def.name, def.size
                )),
            });
        }
    }
    for record in &api.records {
        if !record.complete || !is_nameable(api, record) {
            continue;
        }
        let spelled = c_spelling(record);
        let name = &record.name;
        out.push(LayoutAssert {
            expr: format!("sizeof({spelled}) == {}", record.size),
            message: string_literal(&format!("ctkgen: {name} differs: sizeof is not {} as in {from}", record.size)),
        });
        out.push(LayoutAssert {
            expr: format!("_Alignof({spelled}) == {}", record.align),
            message: string_literal(&format!("ctkgen: {name} differs: alignof is not {} as in {from}", record.align)),
        });
        for (field, bits) in flattened_fields(api, record) {
            if field.bit_width.is_some() || bits % 8 != 0 {
                continue;
            }
            out.push(LayoutAssert {
                expr: format!("offsetof({spelled}, {}) == {}", field.name, bits / 8),
                message: string_literal(&format!(
                    "ctkgen: {name} differs: offset of {} is not {} as in {from}",
                    field.name,
                    bits / 8
                )),
            });
        }
    }
    out
}
