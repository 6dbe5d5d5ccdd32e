//! Header bytes to the model, through libclang: any input may be refused, none may panic,
//! crash or hang. The entry point is shared with `cargo test -p ctkgen-robustness --test
//! fuzz_corpus`, which replays the committed corpus without a nightly toolchain.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    ctkgen_robustness::check_header_bytes(bytes);
});
