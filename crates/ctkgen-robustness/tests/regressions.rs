//! Defects the robustness suites found, each pinned by the smallest input that showed it.

use ctkgen_ir::{Api, ConstantValue};

fn read(source: &str) -> Api {
    ctkgen_robustness::header_to_ir(source.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

/// Found by the layout property test: every unnamed union of one struct took the first one's
/// record (libclang gives them one USR), so the second's layout was lost and the Rust emitter
/// refused a record that C lays out fine.
#[test]
fn each_anonymous_member_keeps_its_own_record() {
    let api = read("struct T {\n    union { signed char a; long long b __attribute__((aligned(32))); };\n    int x;\n    union { double c; int d; };\n    struct { short e; };\n};\n");
    let t = api.record("T").unwrap();
    let types: Vec<String> = t.fields.iter().map(|f| format!("{}:{:?}", f.name, f.ty)).collect();
    assert_eq!(t.fields.iter().filter(|f| f.anonymous).count(), 3, "{types:?}");
    let (first, second, third) =
        (api.record("T___anon0").unwrap(), api.record("T___anon1").unwrap(), api.record("T___anon2").unwrap());
    assert_eq!((first.size, first.align), (32, 32));
    assert_eq!((second.size, second.align), (8, 8));
    assert_eq!(second.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["c", "d"]);
    assert_eq!((third.size, third.align), (2, 2));
    for (field, record) in t.fields.iter().filter(|f| f.anonymous).zip(["T___anon0", "T___anon1", "T___anon2"]) {
        assert_eq!(field.ty, ctkgen_ir::Type::Record { name: record.into() });
    }
    ctkgen_rust::emit(&api, &ctkgen_rust::RustOptions::default(), ctkgen_robustness::driver_conventions()).unwrap();
}

/// Found by the fuzz target's round trip: float macros that are infinite or NaN became JSON
/// `null`, so the model no longer read back from its own JSON.
#[test]
fn non_finite_float_macros_stay_out_of_the_model() {
    let api = read("#define HALF (1.0/2.0)\n#define INF (1.0/0.0)\n#define NOT_A_NUMBER (0.0/0.0)\n#define TOO_BIG 1e400\nstruct A { int x; };\n");
    let names: Vec<&str> = api.constants.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["HALF"]);
    assert_eq!(api.constants[0].value, ConstantValue::Float(0.5));
    assert_eq!(Api::from_json(&api.to_json()).unwrap().to_json(), api.to_json());
}

/// Found by the fuzz target's round trip: serde_json's default float parsing is not exact, so a
/// float constant read back from the model's JSON can move by one ulp (0.4830917874396136
/// became 0.48309178743961356): `xtask ir` then `ctkgen-cython-emit` prints another constant
/// than `generate`. Fixed by serde_json's `float_roundtrip` feature.
#[test]
fn float_constants_read_back_exactly() {
    let api = read("#define RATIO (1.0/2.07)\nstruct A { int x; };\n");
    let json = api.to_json();
    assert_eq!(Api::from_json(&json).unwrap().to_json(), json);
}
