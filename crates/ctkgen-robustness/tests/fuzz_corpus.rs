//! Replays the committed fuzz corpus (`fuzz/corpus/header_to_ir/seed-*` and `min-*`) through
//! the fuzz target's own entry point, so every CI run exercises it without a nightly compiler.
//! Each input that once crashed or panicked is kept there as a reproducer.

use std::path::PathBuf;

/// The committed inputs, or every file in `$CTKGEN_FUZZ_CORPUS` (a run's whole corpus, say).
fn committed_corpus() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os("CTKGEN_FUZZ_CORPUS") {
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
        inputs.sort();
        return inputs;
    }
    let dir = ctkgen_robustness::workspace_root().join("fuzz/corpus/header_to_ir");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("seed-") || n.starts_with("min-"))
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn the_committed_fuzz_corpus_replays_cleanly() {
    let inputs = committed_corpus();
    assert!(inputs.len() >= 20, "only {} committed inputs", inputs.len());
    let mut accepted = 0;
    for path in &inputs {
        let bytes = std::fs::read(path).unwrap();
        // A panic names the input, so a failure here says which file to look at.
        let outcome = std::panic::catch_unwind(|| ctkgen_robustness::check_header_bytes(&bytes));
        assert!(outcome.is_ok(), "{} panicked", path.display());
        accepted += usize::from(ctkgen_robustness::header_to_ir(&bytes).is_ok());
    }
    // Both outcomes are represented: the corpus is not all rejects or all accepts.
    assert!(accepted > 0 && accepted < inputs.len(), "{accepted} of {} accepted", inputs.len());
}

/// The entry point does catch the defect it exists for: a model whose JSON would not read
/// back (a non-finite float constant, before macros dropped them) fails the round trip.
#[test]
fn a_model_that_does_not_read_back_is_caught() {
    let mut api = ctkgen_robustness::header_to_ir(b"#define RATIO (1.0/2.0)\nstruct A { int x; };\n").unwrap();
    assert_eq!(api.constants.len(), 1);
    api.constants[0].value = ctkgen_ir::ConstantValue::Float(f64::INFINITY);
    assert!(ctkgen_ir::Api::from_json(&api.to_json()).is_err(), "infinity has no JSON form");
    let inf = ctkgen_robustness::header_to_ir(b"#define INF (1.0/0.0)\nstruct A { int x; };\n").unwrap();
    assert!(inf.constants.is_empty(), "{:?}", inf.constants);
}
