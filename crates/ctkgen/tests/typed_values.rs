//! Values typed by an enum argument, on every CTK of the catalogue: each `void *` next to an
//! enum parameter is either typed by the driver's `typed-values` data or listed as not typed,
//! and every enumerator of a typed value's selector has a type the binding carries (from the
//! header's text or the data) or is bookkeeping. A new CTK that adds a value or an enumerator
//! fails here until the data says what it is.

mod common;

use ctkgen_cython::typed_values::audit;

#[test]
fn every_enum_typed_value_of_every_ctk_has_a_type() {
    let library = common::workspace().library("cuda-driver").unwrap();
    let data = &library.cython_params.typed;
    let mut problems = Vec::new();
    for version in common::all_ctks() {
        let (_, api) = common::ctk(&version);
        let found = audit(&api, &[], data);
        for (what, list) in [
            ("a `void *` next to an enum, neither typed nor listed as not typed", &found.unlisted),
            ("a typed value whose parameter or selector is not there", &found.missing),
            ("an enumerator with no type from the text or the data", &found.untyped),
            ("an enumerator whose type the binding cannot carry", &found.uncarried),
        ] {
            problems.extend(list.iter().map(|item| format!("{version}: {what}: {item}")));
        }
        let enumerators: usize = found.typed.values().sum();
        eprintln!("-- {version}: {} typed functions, {enumerators} typed enumerators", found.typed.len());
    }
    assert!(
        problems.is_empty(),
        "headers/libraries/cuda-driver.typed-values.toml is incomplete:\n{}",
        problems.join("\n")
    );
}
