//! The names the compatible module gives untagged nested records, as aliases of ours.

use std::collections::BTreeMap;

use ctkgen_ir::{Api, Record};

/// `{record name: alias}` for every untagged record declared inside another: one counter per
/// kind (struct, union), in the order the header closes the records (an inner record before
/// the one holding it). A record that is an unnamed member takes a number but no alias, as its
/// members belong to the record around it. Records without a known position get none.
pub(super) fn anonymous_record_aliases(api: &Api, prefix: &str) -> BTreeMap<String, String> {
    let mut nested: Vec<(&Record, u64)> = api
        .records
        .iter()
        .filter(|r| r.anonymous && r.parent.is_some() && r.complete)
        .filter_map(|r| r.declared_end.map(|end| (r, end)))
        .collect();
    nested.sort_by_key(|(r, end)| (*end, r.name.clone()));
    let mut counters: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (record, _) in nested {
        let keyword = record.kind.c_keyword();
        let counter = counters.entry(keyword).or_default();
        let number = *counter;
        *counter += 1;
        if !is_unnamed_member(api, record) {
            out.insert(record.name.clone(), format!("{prefix}{keyword}{number}"));
        }
    }
    out
}

fn is_unnamed_member(api: &Api, record: &Record) -> bool {
    record.parent.as_ref().is_some_and(|path| {
        api.record(&path.record)
            .and_then(|p| p.fields.iter().find(|f| f.name == path.field))
            .is_some_and(|f| f.anonymous)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctkgen_ir::{Field, FieldPath, Provenance, RecordKind, Type};

    fn nested(name: &str, kind: RecordKind, parent: &str, field: &str, end: u64) -> Record {
        let mut r = Record::complete(name, kind, 4, 4, Vec::new());
        r.anonymous = true;
        r.parent = Some(FieldPath { record: parent.into(), field: field.into() });
        r.declared_end = Some(end);
        r
    }

    fn member(name: &str, record: &str, anonymous: bool) -> Field {
        Field {
            name: name.into(),
            anonymous,
            ty: Type::Record { name: record.into() },
            offset_bits: 0,
            bit_width: None,
            size: 4,
            align: 4,
            doc: None,
        }
    }

    #[test]
    fn numbers_follow_closing_braces_per_kind_and_unnamed_members_take_one() {
        let mut outer = Record::complete(
            "Outer",
            RecordKind::Struct,
            16,
            4,
            vec![
                member("u", "Outer__u", false),
                member("_anon0", "Outer___anon0", true),
                member("s", "Outer__s", false),
            ],
        );
        outer.declared_end = Some(500);
        let api = Api {
            records: vec![
                outer,
                nested("Outer___anon0", RecordKind::Union, "Outer", "_anon0", 200),
                nested("Outer__s", RecordKind::Struct, "Outer", "s", 300),
                nested("Outer__u", RecordKind::Union, "Outer", "u", 100),
                nested("Outer__u__inner", RecordKind::Struct, "Outer__u", "inner", 50),
            ],
            format_version: ctkgen_ir::FORMAT_VERSION,
            provenance: Provenance::unknown("nested.h"),
            functions: Vec::new(),
            enums: Vec::new(),
            typedefs: Vec::new(),
            constants: Vec::new(),
        };
        let aliases = anonymous_record_aliases(&api, "p_");
        let expected: BTreeMap<String, String> =
            [("Outer__s", "p_struct1"), ("Outer__u", "p_union0"), ("Outer__u__inner", "p_struct0")]
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
        assert_eq!(aliases, expected);
    }
}
