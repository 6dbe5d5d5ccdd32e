//! The emitter on the fixture headers' models (see `fixture_ir`); the golden Rust output of each
//! fixture is checked with the model's snapshot, in `crates/ctkgen/tests/fixtures.rs`.

mod fixture_ir;

use ctkgen_rust::{emit, RustOptions};

/// The driver's conventions, read from the data file the pipeline reads.
fn conventions() -> &'static ctkgen_ir::LibraryConventions {
    static CONVENTIONS: std::sync::OnceLock<ctkgen_ir::LibraryConventions> = std::sync::OnceLock::new();
    CONVENTIONS.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-driver.toml");
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

fn options() -> RustOptions {
    RustOptions::with_command("cargo xtask generate --lang rust")
}

#[test]
fn headers_rust_cannot_express_fail_with_the_type_named() {
    let cases = fixture_ir::cases();
    let error_of = |case: &str| {
        let (_, api) = cases.iter().find(|(c, _)| c == case).unwrap_or_else(|| panic!("fixture {case}"));
        emit(api, &options(), conventions()).unwrap_err().to_string()
    };
    let packed_aligned = error_of("packed_aligned");
    assert!(packed_aligned.contains("`PackedAligned`") && packed_aligned.contains("packed"), "{packed_aligned}");
    let typedef_aligned = error_of("gnu_aligned");
    assert!(typedef_aligned.contains("typedef `AlignedInt`"), "{typedef_aligned}");
}
