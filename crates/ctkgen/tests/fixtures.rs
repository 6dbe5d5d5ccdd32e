//! The fixture headers in `tests/headers/`: one test per fixture checks its model against the IR
//! snapshot in `tests/golden/ir/`, has gcc confirm its layouts, renders that same model through
//! every emitter against `tests/golden/{cython,rust}/`, and pins down the facts the fixture
//! exists for. Accept intended changes with `cargo xtask accept-goldens`, then review the diff.

mod common;

use common::goldens;
use ctkgen_ir::{AlignmentSpelling, AlignmentTarget, Api, LanguageMode};

/// Reads a fixture and compares its model and every emitter's output with the goldens; all
/// differences are reported together, so a parser change shows in each golden it reaches.
fn load(name: &str) -> Api {
    let (headers, api) =
        common::fixture_with_headers(&format!("headers/{name}.h")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let model = goldens::snapshot_model(&api);
    let mut mismatches = goldens::check(name, &goldens::render(&model, &headers));
    let ir = std::panic::catch_unwind(|| {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(common::root().join("tests/golden/ir"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(name, model.to_json()));
    });
    if ir.is_err() {
        mismatches.insert(0, format!("ir: {name}.snap differs (diff above)"));
    }
    assert!(mismatches.is_empty(), "stale goldens (accept with `cargo xtask accept-goldens`): {mismatches:#?}");
    common::compile_oracle(&api, &common::root().join("tests/headers"), &format!("{name}.h"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    api
}

/// Each header in `tests/headers/` has its test above; a header without one would have no goldens.
#[test]
fn every_fixture_header_has_a_test() {
    let tested = [
        "anonymous",
        "bitfields",
        "c_alignas",
        "field_alignas",
        "functions_enums",
        "gnu_aligned",
        "members",
        "packed",
        "packed_aligned",
        "propagate",
    ];
    assert_eq!(goldens::cases(), tested);
}

fn layout(api: &Api, record: &str) -> (u64, u64) {
    let r = api.record(record).unwrap_or_else(|| panic!("no record {record}"));
    (r.size, r.align)
}

#[test]
fn field_alignas_in_each_language() {
    let api = load("field_alignas");
    assert_eq!(layout(&api, "FieldAligned_st"), (64, 64));
    let spellings: Vec<_> = api
        .record("FieldAligned_st")
        .unwrap()
        .explicit_alignments
        .iter()
        .map(|a| (a.mode, a.spelling, a.value))
        .collect();
    assert!(spellings.contains(&(LanguageMode::C11, AlignmentSpelling::CAlignas, 64)));
    assert!(spellings.contains(&(LanguageMode::Cxx17, AlignmentSpelling::Alignas, 64)));
}

#[test]
fn c_alignas_on_a_field() {
    let api = load("c_alignas");
    assert_eq!(layout(&api, "CAligned"), (64, 32));
    let value = &api.record("CAligned").unwrap().fields[1];
    assert_eq!((value.name.as_str(), value.offset_bits), ("value", 256));
}

#[test]
fn gnu_aligned_on_struct_macro_and_typedef() {
    let api = load("gnu_aligned");
    assert_eq!(layout(&api, "StructAligned"), (64, 64));
    assert_eq!(layout(&api, "MacroAligned"), (32, 32));
    let record = &api.record("MacroAligned").unwrap().explicit_alignments[0];
    assert_eq!((record.spelling, record.value), (AlignmentSpelling::GnuAligned, 32));
    assert_eq!(record.target, AlignmentTarget::Record { record: "MacroAligned".into() });
    let typedef = api.typedef("AlignedInt").unwrap();
    assert_eq!((typedef.size, typedef.align), (4, 16));
    assert_eq!(typedef.explicit_alignments[0].target, AlignmentTarget::Typedef { typedef: "AlignedInt".into() });
    assert_eq!(layout(&api, "HoldsAlignedTypedef"), (32, 16));
}

#[test]
fn over_alignment_propagates_through_members_arrays_and_unions() {
    let api = load("propagate");
    assert_eq!(layout(&api, "Descriptor"), (128, 128));
    assert_eq!(layout(&api, "Holder"), (256, 128));
    assert_eq!(layout(&api, "ArrayOfDescriptors"), (512, 128));
    assert_eq!(layout(&api, "MaybeDescriptor"), (128, 128));
    let over: Vec<&str> =
        api.over_aligned_records(ctkgen_ir::layout::PYTHON_OBJECT_ALIGNMENT).map(|r| r.name.as_str()).collect();
    assert_eq!(over, ["ArrayOfDescriptors", "Descriptor", "Holder", "MaybeDescriptor"]);
}

#[test]
fn packed_records() {
    let api = load("packed");
    assert_eq!(layout(&api, "Packed"), (13, 1));
    assert!(api.record("Packed").unwrap().packed);
    assert_eq!(layout(&api, "PragmaPacked"), (6, 2));
}

#[test]
fn packed_and_aligned_record() {
    let api = load("packed_aligned");
    assert_eq!(layout(&api, "PackedAligned"), (8, 8));
    assert!(api.record("PackedAligned").unwrap().packed);
}

#[test]
fn bitfields_keep_widths_and_bit_offsets() {
    let api = load("bitfields");
    let fields: Vec<_> =
        api.record("Flags").unwrap().fields.iter().map(|f| (f.name.as_str(), f.offset_bits, f.bit_width)).collect();
    assert_eq!(
        fields,
        [
            ("a", 0, Some(3)),
            ("b", 3, Some(5)),
            ("c", 8, Some(24)),
            ("d", 64, Some(40)),
            ("_anon0", 128, Some(0)),
            ("e", 128, Some(1)),
            ("after", 160, None)
        ]
    );
}

#[test]
fn anonymous_records_get_stable_names() {
    let api = load("anonymous");
    let names: Vec<&str> = api.records.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Extent",
            "Resource",
            "Resource___anon0",
            "Resource__points",
            "Resource__res",
            "Resource__res__array",
            "Resource__res__linear"
        ]
    );
    let anon = api.record("Resource").unwrap().fields.iter().find(|f| f.name == "_anon0").unwrap();
    assert!(anon.anonymous);
    assert_eq!(api.record("Extent").unwrap().typedef_name.as_deref(), Some("Extent"));
    let json = api.to_json();
    assert!(
        !json.contains(".h:") && !json.contains("unnamed") && !json.contains("anonymous at"),
        "names must hold no paths or lines"
    );
}

#[test]
fn functions_enums_and_constants() {
    let api = load("functions_enums");
    let create = api.function("ctxCreate").unwrap();
    assert_eq!(create.symbol, "ctxCreate_v2");
    assert!(create.doc.as_deref().unwrap().contains("Returned context handle"));
    // A doc comment above a preprocessor conditional is the function's within it; a plain one is not.
    assert_eq!(api.function("ctxPause").unwrap().doc.as_deref(), Some("\\brief Pauses a context"));
    assert_eq!(api.function("ctxResume").unwrap().doc, None);
    let wide = api.enumeration("Wide").unwrap();
    let values: Vec<i128> = wide.constants.iter().map(|c| c.value).collect();
    assert_eq!(values, [-5, 0x7fff_ffff_ffff_ffff]);
    assert_eq!(api.enumeration("Result_enum").unwrap().typedef_names, ["Result"]);
    // A comment belongs to the enumerator it precedes or trails, not to uncommented ones after it.
    let docs: Vec<Option<&str>> =
        api.enumeration("Flags_enum").unwrap().constants.iter().map(|c| c.doc.as_deref()).collect();
    assert_eq!(docs, [None, Some("The first flag"), None, Some("The last flag")]);
}

#[test]
fn members_with_conventions() {
    let api = load("members");
    let batch = api.record("Batch_st").unwrap();
    let names: Vec<&str> = batch.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["points", "numPoints", "streams", "total", "origin", "userData", "tag", "label"]);
    // Records know where their definition ends: the point before the batch that uses it.
    assert!(api.record("Point_st").unwrap().declared_end < batch.declared_end);
}
