//! Extra Python names for enums: a header can name one enum several times through typedefs of
//! its typedef (`typedef A B;` where `A` names the enum), and users of the bindings in use
//! today reach the enum under each of those names.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, Type};

/// For each enum (by IR name), the typedefs that reach it only through another typedef, in
/// name order. The enum's own typedefs (`Enum::typedef_names`) are not repeated here.
pub fn enum_typedef_aliases(api: &Api) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for typedef in &api.typedefs {
        let Type::Typedef { name: first } = &typedef.ty else { continue };
        if let Some(enumeration) = enum_behind(api, first) {
            out.entry(enumeration.to_string()).or_default().push(typedef.name.clone());
        }
    }
    for names in out.values_mut() {
        names.sort();
    }
    out
}

/// The enum a typedef name resolves to, following a chain of typedefs (a cycle, which a
/// well-formed header cannot have, ends the walk).
fn enum_behind<'a>(api: &'a Api, typedef: &'a str) -> Option<&'a str> {
    let mut current = typedef;
    for _ in 0..=api.typedefs.len() {
        match &api.typedef(current)?.ty {
            Type::Typedef { name } => current = name,
            Type::Enum { name } => return Some(name),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typedefs_of_an_enum_typedef_are_aliases_of_the_enum() {
        let typedef = |name: &str, ty: &str| {
            format!(
                r#"{{"name": "{name}", "ty": {ty}, "size": 4, "align": 4, "explicit_alignments": [], "doc": null}}"#
            )
        };
        let to = |name: &str| format!(r#"{{"kind": "typedef", "name": "{name}"}}"#);
        let typedefs = [
            typedef("Direct", r#"{"kind": "enum", "name": "tag"}"#),
            typedef("Outer", &to("Second")),
            typedef("Plain", r#"{"kind": "primitive", "name": "int"}"#),
            typedef("Second", &to("Direct")),
            typedef("Unrelated", &to("Plain")),
        ];
        let json = format!(
            r#"{{"format_version": 1, "provenance": {{"header": "t.h", "header_sha256": "", "ctk": null,
            "cuda_version": null, "target": "x86_64-unknown-linux-gnu", "language_modes": ["c11"],
            "libclang_version": ""}}, "functions": [], "records": [], "enums": [], "typedefs": [{}],
            "constants": []}}"#,
            typedefs.join(", ")
        );
        let api = Api::from_json(&json).expect("test IR reads back");
        let aliases = enum_typedef_aliases(&api);
        assert_eq!(aliases.len(), 1);
        assert_eq!(aliases["tag"], ["Outer", "Second"]);
    }
}
