//! The emitter on the fixture headers' models (see `fixture_ir`); the golden Rust output of each
//! fixture is checked with the model's snapshot, in `crates/ctkgen/tests/fixtures.rs`.

mod fixture_ir;

use ctkgen_ir::Api;
use ctkgen_rust::{emit, RustOptions};

fn options(api: &Api) -> RustOptions {
    RustOptions::for_api(api, "cargo xtask generate --lang rust")
}

#[test]
fn headers_rust_cannot_express_fail_with_the_type_named() {
    let cases = fixture_ir::cases();
    let error_of = |case: &str| {
        let (_, api) = cases.iter().find(|(c, _)| c == case).unwrap_or_else(|| panic!("fixture {case}"));
        emit(api, &options(api)).unwrap_err().to_string()
    };
    let packed_aligned = error_of("packed_aligned");
    assert!(packed_aligned.contains("`PackedAligned`") && packed_aligned.contains("packed"), "{packed_aligned}");
    let typedef_aligned = error_of("gnu_aligned");
    assert!(typedef_aligned.contains("typedef `AlignedInt`"), "{typedef_aligned}");
}

#[test]
fn emitter_source_holds_no_alignment_literals_or_cuda_names() {
    // Alignments come from the model and CUDA names from `DriverConventions`, never from logic.
    let sources = [
        ("lib.rs", include_str!("../src/lib.rs")),
        ("plan.rs", include_str!("../src/plan.rs")),
        ("types.rs", include_str!("../src/types.rs")),
        ("names.rs", include_str!("../src/names.rs")),
        ("print_items.rs", include_str!("../src/print_items.rs")),
        ("print_runtime.rs", include_str!("../src/print_runtime.rs")),
        ("print_crate.rs", include_str!("../src/print_crate.rs")),
    ];
    for (file, text) in sources {
        for literal in ["64", "128"] {
            for (i, _) in text.match_indices(literal) {
                let before = text[..i].chars().last().unwrap_or(' ');
                let after = text[i + literal.len()..].chars().next().unwrap_or(' ');
                let part_of_word =
                    before.is_ascii_alphanumeric() || before == '_' || after.is_ascii_alphanumeric() || after == '_';
                assert!(part_of_word, "{file}: alignment-like literal {literal}");
            }
        }
        for name in ["CUtensorMap", "CUresult", "cuGetProcAddress", "CUDA_ERROR", "libcuda", "cuInit"] {
            assert!(!text.contains(name), "{file}: mentions {name}");
        }
    }
}
