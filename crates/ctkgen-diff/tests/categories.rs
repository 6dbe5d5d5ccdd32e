//! One small hand-made model per kind of change, checking where each lands and what it weighs.

use ctkgen_diff::{diff, AbiDiff, Detail, Impact, Section, Verdict};
use ctkgen_ir::{
    Api, Constant, ConstantValue, Enum, EnumConstant, Field, Function, LanguageMode, Param, Primitive, Provenance,
    Record, RecordKind, Type, Typedef, FORMAT_VERSION,
};

fn api(ctk: &str) -> Api {
    Api {
        format_version: FORMAT_VERSION,
        provenance: Provenance {
            header: "cuda.h".into(),
            header_sha256: "0".repeat(64),
            ctk: Some(ctk.into()),
            cuda_version: None,
            target: "x86_64-unknown-linux-gnu".into(),
            language_modes: vec![LanguageMode::C11, LanguageMode::Cxx17],
            libclang_version: "test".into(),
            extra_headers: Vec::new(),
        },
        functions: Vec::new(),
        records: Vec::new(),
        enums: Vec::new(),
        typedefs: Vec::new(),
        constants: Vec::new(),
    }
}

fn prim(name: Primitive) -> Type {
    Type::Primitive { name }
}

fn tydef(name: &str) -> Type {
    Type::Typedef { name: name.into() }
}

fn ptr(to: Type) -> Type {
    Type::Pointer { pointee: Box::new(to), pointee_const: false }
}

fn record_ty(name: &str) -> Type {
    Type::Record { name: name.into() }
}

fn function(name: &str, symbol: &str, params: &[(&str, Type)]) -> Function {
    Function {
        name: name.into(),
        symbol: symbol.into(),
        lookup_name: name.into(),
        per_thread_symbol: None,
        first_version: Some(12000),
        per_thread_first_version: None,
        ret: prim(Primitive::Int),
        params: params.iter().map(|(n, t)| Param { name: n.to_string(), ty: t.clone() }).collect(),
        deprecated: false,
        doc: None,
        header: None,
    }
}

fn field(name: &str, ty: Type, offset: u64, size: u64, align: u64) -> Field {
    Field { name: name.into(), anonymous: false, ty, offset_bits: offset * 8, bit_width: None, size, align, doc: None }
}

fn record(name: &str, size: u64, align: u64, fields: Vec<Field>) -> Record {
    Record::complete(name, RecordKind::Struct, size, align, fields)
}

fn typedef(name: &str, ty: Type, size: u64, align: u64) -> Typedef {
    Typedef {
        name: name.into(),
        ty,
        size,
        align,
        explicit_alignments: Vec::new(),
        system: false,
        doc: None,
        header: None,
    }
}

fn enumeration(name: &str, constants: &[(&str, i128)]) -> Enum {
    Enum {
        name: name.into(),
        typedef_names: Vec::new(),
        underlying: Primitive::UnsignedInt,
        constants: constants.iter().map(|(n, v)| EnumConstant { name: n.to_string(), value: *v, doc: None }).collect(),
        doc: None,
        header: None,
    }
}

fn constant(name: &str, value: i128) -> Constant {
    Constant {
        name: name.into(),
        ty: prim(Primitive::Int),
        value: ConstantValue::Int(value),
        expr: value.to_string(),
        doc: None,
        header: None,
    }
}

/// Two words: a struct with one `int` and one `unsigned long`.
fn pair_record(name: &str) -> Record {
    record(
        name,
        16,
        8,
        vec![field("a", prim(Primitive::Int), 0, 4, 4), field("b", prim(Primitive::UnsignedLong), 8, 8, 8)],
    )
}

fn sorted(mut api: Api) -> Api {
    api.sort();
    api
}

fn only(d: &AbiDiff, section: Section) -> Vec<(String, Impact)> {
    d.section(section).map(|c| (c.subject.clone(), c.impact)).collect()
}

#[test]
fn identical_models_exit_zero() {
    let mut a = api("1.0");
    a.functions.push(function("cuInit", "cuInit", &[("flags", prim(Primitive::UnsignedInt))]));
    a.records.push(pair_record("P_st"));
    let d = diff(&a, &a);
    assert!(d.changes.is_empty(), "{:?}", d.changes);
    assert_eq!((d.verdict(), d.exit_code()), (Verdict::Identical, 0));
}

#[test]
fn added_function_is_compatible_and_removed_one_is_not() {
    let old = api("1.0");
    let mut new = api("1.1");
    new.functions.push(function("cuNew", "cuNew", &[]));
    let d = diff(&old, &new);
    assert_eq!(only(&d, Section::AddedFunctions), [("cuNew".to_string(), Impact::Compatible)]);
    assert_eq!((d.verdict(), d.exit_code()), (Verdict::Compatible, 1));

    let back = diff(&new, &old);
    assert_eq!(only(&back, Section::RemovedFunctions), [("cuNew".to_string(), Impact::Incompatible)]);
    assert_eq!((back.verdict(), back.exit_code()), (Verdict::Incompatible, 2));
}

#[test]
fn changed_parameter_layout_is_a_signature_change() {
    let mut old = api("1.0");
    old.functions.push(function("cuF", "cuF", &[("n", prim(Primitive::UnsignedInt))]));
    let mut new = api("1.1");
    new.functions.push(function("cuF", "cuF", &[("n", prim(Primitive::UnsignedLong))]));
    let d = diff(&old, &new);
    let change = d.section(Section::ChangedSignatures).next().expect("a signature change");
    let Detail::SignatureChanged { differences, .. } = &change.detail else { panic!("{:?}", change.detail) };
    assert_eq!(differences, &["parameter 0: `unsigned int n` → `unsigned long n`"]);
    assert_eq!(d.verdict(), Verdict::Incompatible);
}

#[test]
fn typedef_spelling_and_parameter_names_are_not_abi() {
    let mut old = api("1.0");
    old.functions.push(function("cuF", "cuF", &[("count", prim(Primitive::UnsignedLong))]));
    let mut new = api("1.1");
    new.typedefs.push(typedef("size_t", prim(Primitive::UnsignedLong), 8, 8));
    new.functions.push(function("cuF", "cuF", &[("n", tydef("size_t"))]));
    let d = diff(&old, &new);
    assert_eq!(d.section(Section::ChangedSignatures).count(), 0);
    let note = d.section(Section::Notes).next().expect("a note");
    assert!(
        matches!(&note.detail, Detail::ParamsRenamed { renames } if renames[0].old == "count" && renames[0].new == "n")
    );
    // Only the typedef itself is new.
    assert_eq!(d.verdict(), Verdict::Compatible);
    assert_eq!(d.count(Impact::Compatible), 1);
}

#[test]
fn struct_tag_renamed_with_same_layout_is_a_rename() {
    let mut old = api("1.0");
    old.records.push(pair_record("P_st"));
    old.typedefs.push(typedef("P", record_ty("P_st"), 16, 8));
    old.functions.push(function("cuF", "cuF", &[("p", ptr(tydef("P")))]));
    let mut new = api("1.1");
    new.records.push(pair_record("P_v2_st"));
    new.typedefs.push(typedef("P", record_ty("P_v2_st"), 16, 8));
    new.functions.push(function("cuF", "cuF", &[("p", ptr(tydef("P")))]));
    let d = diff(&sorted(old), &sorted(new));
    assert_eq!(d.section(Section::ChangedSignatures).count(), 0);
    assert_eq!(d.section(Section::RemovedTypes).count(), 0);
    let renames = only(&d, Section::Renames);
    assert_eq!(
        renames,
        [
            ("P".to_string(), Impact::Compatible),
            ("P_st".to_string(), Impact::Compatible),
            ("cuF".to_string(), Impact::Compatible)
        ]
    );
    let record = d.section(Section::Renames).find(|c| c.subject == "P_st").unwrap();
    assert!(matches!(&record.detail, Detail::RecordRenamed { new_name, .. } if new_name == "P_v2_st"));
    assert_eq!(d.verdict(), Verdict::Compatible);
}

#[test]
fn struct_tag_renamed_with_other_layout_is_a_signature_change() {
    let mut old = api("1.0");
    old.records.push(pair_record("P_st"));
    old.functions.push(function("cuF", "cuF", &[("p", ptr(record_ty("P_st")))]));
    let mut new = api("1.1");
    let mut wider = pair_record("P_v2_st");
    wider.fields[1].offset_bits = 16 * 8;
    wider.size = 24;
    new.records.push(wider);
    new.functions.push(function("cuF", "cuF", &[("p", ptr(record_ty("P_v2_st")))]));
    let d = diff(&old, &new);
    assert_eq!(only(&d, Section::ChangedSignatures), [("cuF".to_string(), Impact::Incompatible)]);
    assert_eq!(only(&d, Section::RemovedTypes), [("P_st".to_string(), Impact::Incompatible)]);
    assert_eq!(d.section(Section::Renames).count(), 0);
}

#[test]
fn alignment_change_leads_and_names_its_users() {
    let mut old = api("1.0");
    old.records.push(record(
        "Map_st",
        128,
        64,
        vec![field("opaque", Type::Array { element: Box::new(prim(Primitive::UnsignedLongLong)), len: 16 }, 0, 128, 8)],
    ));
    old.functions.push(function("cuEncode", "cuEncode", &[("map", ptr(record_ty("Map_st")))]));
    old.records.push(pair_record("Grow_st"));
    let mut new = old.clone();
    new.records[0].align = 128;
    let grow = new.records.iter_mut().find(|r| r.name == "Grow_st").unwrap();
    grow.size = 24;
    grow.fields.push(field("c", prim(Primitive::UnsignedLong), 16, 8, 8));
    let (old, new) = (sorted(old), sorted(new));
    let d = diff(&old, &new);
    let first = &d.changes[0];
    assert_eq!(
        (first.section, first.subject.as_str(), first.impact),
        (Section::AlignmentChanges, "Map_st", Impact::Incompatible)
    );
    let Detail::RecordLayout { old: Some(before), new: Some(after), used_by, .. } = &first.detail else { panic!() };
    assert_eq!((before.align, after.align), (64, 128));
    assert_eq!(used_by, &["cuEncode"]);
    // The spelled signature did not change; the record's entry carries it.
    assert_eq!(d.section(Section::ChangedSignatures).count(), 0);
    assert_eq!(only(&d, Section::OtherLayoutChanges), [("Grow_st".to_string(), Impact::Incompatible)]);
    let md = d.to_markdown();
    let alignment = md.find("## Alignment changes").unwrap();
    let other = md.find("## Other layout changes").unwrap();
    assert!(alignment < other, "{md}");
    assert!(md.contains("- `Map_st`: align 64 → 128, size 128; reached from `cuEncode`"), "{md}");
}

#[test]
fn reserved_bytes_put_to_use_keep_the_layout() {
    let mut old = api("1.0");
    let reserved = |len: u64, at: u64| {
        field("reserved", Type::Array { element: Box::new(prim(Primitive::UnsignedChar)), len }, at, len, 1)
    };
    old.records.push(record("Props_st", 32, 8, vec![field("kind", prim(Primitive::Int), 0, 4, 4), reserved(28, 4)]));
    old.records.push(record(
        "Outer_st",
        40,
        8,
        vec![field("props", record_ty("Props_st"), 0, 32, 8), field("tail", prim(Primitive::Long), 32, 8, 8)],
    ));
    let mut new = old.clone();
    new.records.iter_mut().find(|r| r.name == "Props_st").unwrap().fields = vec![
        field("kind", prim(Primitive::Int), 0, 4, 4),
        field("usage", prim(Primitive::UnsignedShort), 4, 2, 2),
        reserved(26, 6),
    ];
    let d = diff(&sorted(old), &sorted(new));
    assert_eq!(only(&d, Section::FieldsAddedInPlace), [("Props_st".to_string(), Impact::Compatible)]);
    // A record holding the grown one by value is unaffected.
    assert!(d.changes.iter().all(|c| c.subject != "Outer_st"), "{:?}", d.changes);
    assert_eq!(d.verdict(), Verdict::Compatible);
}

#[test]
fn moved_field_is_incompatible_and_renamed_field_is_a_note() {
    let mut old = api("1.0");
    old.records.push(pair_record("P_st"));
    let mut moved = old.clone();
    moved.records[0].fields[0].offset_bits = 32;
    let d = diff(&old, &moved);
    assert_eq!(only(&d, Section::OtherLayoutChanges), [("P_st".to_string(), Impact::Incompatible)]);

    let mut renamed = old.clone();
    renamed.records[0].fields[0].name = "alpha".into();
    let d = diff(&old, &renamed);
    assert_eq!(only(&d, Section::Notes), [("P_st".to_string(), Impact::Note)]);
    assert_eq!(d.verdict(), Verdict::Identical);
}

#[test]
fn symbol_moves_are_abi_changes() {
    let mut old = api("1.0");
    old.functions.push(function("cuCtxCreate", "cuCtxCreate_v2", &[]));
    old.functions.push(function("cuCtxCreate_v4", "cuCtxCreate_v4", &[]));
    old.functions.push(function("cuGone_v3", "cuGone_v3", &[]));
    let mut new = api("2.0");
    let mut create = function("cuCtxCreate", "cuCtxCreate_v4", &[]);
    create.first_version = Some(12050);
    new.functions.push(create);
    let d = diff(&old, &new);
    let symbols: Vec<_> = d.section(Section::AbiSymbolChanges).collect();
    assert_eq!(symbols.len(), 1, "{symbols:?}");
    let Detail::SymbolBinding { changes, dropped_symbols } = &symbols[0].detail else { panic!("{:?}", symbols[0]) };
    assert_eq!(symbols[0].subject, "cuCtxCreate");
    assert_eq!(changes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["symbol", "first_version"]);
    assert_eq!(dropped_symbols, &["cuCtxCreate_v2"]);
    let gone = d.section(Section::RemovedFunctions).find(|c| c.subject == "cuGone_v3").unwrap();
    assert!(
        matches!(&gone.detail, Detail::FunctionRemoved { symbol_now_bound_by, .. } if symbol_now_bound_by.is_empty())
    );
    let removed = d.section(Section::RemovedFunctions).find(|c| c.subject == "cuCtxCreate_v4").unwrap();
    assert!(
        matches!(&removed.detail, Detail::FunctionRemoved { symbol_now_bound_by, .. } if symbol_now_bound_by == &["cuCtxCreate"])
    );
}

#[test]
fn new_per_thread_variant_is_an_addition() {
    let mut old = api("1.0");
    old.functions.push(function("cuLaunch", "cuLaunch", &[]));
    let mut new = old.clone();
    new.functions[0].per_thread_symbol = Some("cuLaunch_ptsz".into());
    let d = diff(&old, &new);
    assert_eq!(only(&d, Section::AbiSymbolChanges), [("cuLaunch".to_string(), Impact::Compatible)]);
}

#[test]
fn enum_constants_and_sentinels() {
    let mut old = api("1.0");
    old.enums.push(enumeration("Attr_enum", &[("ATTR_A", 1), ("ATTR_B", 2), ("ATTR_GONE", 3), ("ATTR_MAX", 4)]));
    old.enums.push(enumeration("Opt_enum", &[("OPT_X", 0), ("OPT_NUM_OPTIONS", 1), ("FLAGS_MASK", 0b11)]));
    let mut new = api("1.1");
    new.enums.push(enumeration("Attr_enum", &[("ATTR_A", 1), ("ATTR_B", 20), ("ATTR_C", 5), ("ATTR_MAX", 6)]));
    new.enums.push(enumeration("Opt_enum", &[("OPT_X", 0), ("OPT_NUM_OPTIONS", 2), ("FLAGS_MASK", 0b111)]));
    let d = diff(&old, &new);
    assert_eq!(
        only(&d, Section::EnumChanges),
        [
            ("Attr_enum::ATTR_B".to_string(), Impact::Incompatible),
            ("Attr_enum::ATTR_GONE".to_string(), Impact::Incompatible),
            ("Attr_enum".to_string(), Impact::Compatible),
        ]
    );
    assert_eq!(
        only(&d, Section::ExpectedChurn),
        [
            ("Attr_enum::ATTR_MAX".to_string(), Impact::Churn),
            ("Opt_enum::FLAGS_MASK".to_string(), Impact::Churn),
            ("Opt_enum::OPT_NUM_OPTIONS".to_string(), Impact::Churn),
        ]
    );

    // Churn alone never decides the verdict; a mask losing a bit is no churn.
    let mut narrowed = old.clone();
    narrowed.enums[1].constants[2].value = 0b01;
    narrowed.enums[0].constants[3].value = 9;
    let d = diff(&old, &narrowed);
    assert_eq!(only(&d, Section::ExpectedChurn), [("Attr_enum::ATTR_MAX".to_string(), Impact::Churn)]);
    assert_eq!(only(&d, Section::EnumChanges), [("Opt_enum::FLAGS_MASK".to_string(), Impact::Incompatible)]);
}

#[test]
fn constant_macros() {
    let mut old = api("1.0");
    old.constants =
        vec![constant("CUDA_VERSION", 12000), constant("CU_GONE", 1), constant("CU_KEEP", 2), constant("CU_MOVED", 3)];
    let mut new = api("1.1");
    new.constants =
        vec![constant("CUDA_VERSION", 12090), constant("CU_KEEP", 2), constant("CU_MOVED", 4), constant("CU_NEW", 5)];
    let d = diff(&old, &new);
    assert_eq!(
        only(&d, Section::Constants),
        [
            ("CU_GONE".to_string(), Impact::Incompatible),
            ("CU_MOVED".to_string(), Impact::Incompatible),
            ("CU_NEW".to_string(), Impact::Compatible),
        ]
    );
    assert_eq!(only(&d, Section::ExpectedChurn), [("CUDA_VERSION".to_string(), Impact::Churn)]);
}

#[test]
fn typedef_retargeted_to_another_layout() {
    let mut old = api("1.0");
    old.typedefs.push(typedef("CUsize", prim(Primitive::UnsignedInt), 4, 4));
    let mut new = api("1.1");
    new.typedefs.push(typedef("CUsize", prim(Primitive::UnsignedLong), 8, 8));
    let d = diff(&old, &new);
    assert_eq!(only(&d, Section::AlignmentChanges), [("CUsize".to_string(), Impact::Incompatible)]);
    assert!(matches!(&d.changes[0].detail, Detail::TypedefRetargeted { same_layout: false, .. }));
}

#[test]
fn report_forms_are_deterministic_and_complete() {
    let mut old = api("1.0");
    old.functions.push(function("cuA", "cuA", &[]));
    let mut new = api("1.1");
    new.functions.push(function("cuB", "cuB", &[]));
    let d = diff(&old, &new);
    assert_eq!(d, diff(&old, &new));
    let md = d.to_markdown();
    assert!(
        md.starts_with(
            "# ABI diff: CTK 1.0 → CTK 1.1\n\n**Verdict: incompatible** (exit code 2): 1 incompatible, 1 compatible"
        ),
        "{md}"
    );
    assert!(md.find("## Removed functions").unwrap() < md.find("## Added functions").unwrap());
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    assert_eq!(json["verdict"], "incompatible");
    assert_eq!(json["exit_code"], 2);
    assert_eq!(json["changes"][0]["detail"]["kind"], "function_removed");
    assert_eq!(json["old"]["ctk"], "1.0");
}
