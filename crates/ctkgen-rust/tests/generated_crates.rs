//! Builds what the emitter writes: every generated crate must pass `cargo clippy -D warnings`
//! (so also compile without warnings, including its compile-time layout assertions), document
//! with `cargo doc` under `RUSTDOCFLAGS="-D warnings"` (intra-doc links resolve) and pass its own
//! tests. These are the fixture models; the crates of every real CTK, under every feature, are
//! built by `crates/ctkgen/tests/rust_crates`.
//!
//! Generated crates compile in `CTKGEN_RUST_GEN_TARGET` (default: a folder in the system
//! temporary directory), apart from the workspace's target folder and its lock.

mod fixture_ir;
mod support;

use std::path::Path;
use std::process::Command;

use ctkgen_ir::Api;
use ctkgen_rust::{emit, RustOptions};
use support::{cargo, target_dir};

/// Extra test files to add to a generated crate: `(crate, path, contents)`.
type ExtraFile = (String, String, String);

/// Writes the crates into one Cargo workspace and returns its folder.
fn workspace(crates: &[(String, Api)], extra: &[ExtraFile]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut members = Vec::new();
    for (name, api) in crates {
        let options = RustOptions {
            crate_name: Some(name.clone()),
            ..RustOptions::with_command("ctkgen-rust generated_crates test")
        };
        let files = emit(api, &options, support::conventions()).unwrap_or_else(|e| panic!("{name}: {e}"));
        for file in files {
            let path = dir.path().join(name).join(&file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, file.contents).unwrap();
        }
        members.push(format!("{name:?}"));
    }
    for (name, path, contents) in extra {
        std::fs::write(dir.path().join(name).join(path), contents).unwrap();
    }
    let manifest = format!("[workspace]\nresolver = \"2\"\nmembers = [{}]\n", members.join(", "));
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    dir
}

fn check(crates: &[(String, Api)], extra: &[ExtraFile]) -> String {
    let dir = workspace(crates, extra);
    let tests = support::clippy_doc_test(dir.path(), &[]);
    let examples: Vec<String> = crates.iter().map(|(name, _)| name.clone()).collect();
    let mut out = tests;
    for name in examples.iter().take(1) {
        out.push_str(&cargo(
            dir.path(),
            &["run", "--quiet", "-p", name, "--example", &format!("{}_info", name.replace('-', "_"))],
        ));
    }
    out
}

#[test]
fn fixture_crates_build_pass_clippy_and_their_tests() {
    let mut crates =
        vec![("fixture-13-sys".to_string(), support::api(128)), ("fixture-12-sys".to_string(), support::api(64))];
    let mut extra = Vec::new();
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/headers");
    for (case, api) in fixture_ir::cases() {
        // Headers Rust cannot express are covered by the golden error files.
        if emit(&api, &RustOptions::default(), support::conventions()).is_ok() {
            let name = format!("golden-{}-sys", case.replace('_', "-"));
            let header = headers.join(format!("{case}.h"));
            if let Some(test) = c_agreement_test(&name, &api, &header) {
                extra.push((name.clone(), "tests/c_agreement.rs".into(), test));
            }
            crates.push((name, api));
        }
    }
    let out = check(&crates, &extra);
    assert!(out.contains("bitfields agree with the C compiler"), "{out}");
    // Without a driver, calls give a status and the load error explains.
    if !Path::new("/proc/driver/nvidia").exists() {
        assert!(out.contains("CUDA driver not found (libcuda.so.1: "), "{out}");
        assert!(out.contains("cuInit(0) = CUDA_ERROR_NOT_INITIALIZED"), "{out}");
    }
    assert!(out.contains("align_of::<CUtensorMap>() = 128"), "{out}");
    assert!(out.contains("align_of::<CUtensorMap>() = 64"), "{out}");
}

/// A library that depends on another and repeats some of its declarations: a tag only forward
/// declared, an over-aligned record, an enum, a constant. Its own record holds the shared one.
fn dependent_api(base: &Api) -> Api {
    use ctkgen_ir::{ConstantValue, Primitive::*, RecordKind, Type};
    use support::*;
    let tensor_map = base.record("CUtensorMap_st").expect("the base has an over-aligned record").clone();
    let holder = record(
        "holder_st",
        RecordKind::Struct,
        tensor_map.size * 2,
        tensor_map.align,
        vec![
            field("map", record_ty("CUtensorMap_st"), 0, tensor_map.size, tensor_map.align),
            field("stream", ptr(record_ty("CUstream_st")), tensor_map.size, 8, 8),
        ],
    );
    let status = enumeration(
        "nvrtcResult",
        &["nvrtcResult"],
        UnsignedInt,
        &[("NVRTC_SUCCESS", 0), ("NVRTC_ERROR_INTERNAL_ERROR", 11)],
    );
    let mut api = Api {
        format_version: base.format_version,
        provenance: base.provenance.clone(),
        functions: vec![function(
            "nvrtcVersion",
            "nvrtcVersion",
            None,
            enum_ty("nvrtcResult"),
            vec![param("major", ptr(prim(Int))), param("minor", ptr(prim(Int)))],
        )],
        records: vec![opaque("CUstream_st"), tensor_map, holder],
        enums: vec![status, base.enumeration("wide_enum").expect("the base has wide_enum").clone()],
        typedefs: vec![
            base.typedef("cuuint64_t").expect("the base has cuuint64_t").clone(),
            base.typedef("uint64_t").expect("the base has uint64_t").clone(),
            typedef("other_stream_t", ptr(record_ty("CUstream_st")), 8, 8),
        ],
        constants: base
            .constants
            .iter()
            .filter(|c| matches!((&c.ty, &c.value), (Type::Primitive { .. }, ConstantValue::Int(_))))
            .take(1)
            .cloned()
            .chain([constant("OWN_LIMIT", prim(Int), ConstantValue::Int(3), "3")])
            .collect(),
    };
    api.provenance.ctk = Some("13.1.0".into());
    api.sort();
    api
}

#[test]
fn a_dependent_crate_reuses_the_types_its_dependency_defines() {
    use ctkgen_rust::{emit_crate, Dependency, ToolkitModel};
    let mut base = support::api(128);
    base.provenance.ctk = Some("13.1.0".into());
    let dependent = dependent_api(&base);
    let shared_constant = dependent.constants.iter().find(|c| c.name != "OWN_LIMIT").unwrap().name.clone();
    let dir = tempfile::tempdir().unwrap();
    let base_options =
        RustOptions { crate_name: Some("base-sys".into()), ..RustOptions::with_command("generated_crates test") };
    let dependent_options =
        RustOptions { crate_name: Some("user-sys".into()), ..RustOptions::with_command("generated_crates test") };
    let user_conventions = support::library("nvrtc");
    let dependency = Dependency { crate_name: "base-sys", crate_version: &base_options.crate_version };
    let model = ToolkitModel { api: &dependent, parsed: None, dependencies: vec![&base] };
    let outputs = [
        ("base-sys", emit(&base, &base_options, support::conventions()).unwrap()),
        ("user-sys", emit_crate(&[model], &dependent_options, &user_conventions, &[dependency]).unwrap()),
    ];
    for (name, files) in &outputs {
        for file in files {
            let path = dir.path().join(name).join(&file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, &file.contents).unwrap();
        }
    }
    let lib = std::fs::read_to_string(dir.path().join("user-sys/src/lib.rs")).unwrap();
    let reexport =
        format!("pub use base_sys::{{{shared_constant}, CUstream_st, CUtensorMap_st, cuuint64_t, wide_enum}};");
    assert!(lib.contains(&reexport), "no `{reexport}` in:\n{lib}");
    for own in ["pub struct holder_st", "pub type other_stream_t", "pub const OWN_LIMIT", "pub struct nvrtcResult"] {
        assert!(lib.contains(own), "`{own}` is this crate's own");
    }
    assert!(!lib.contains("pub struct CUtensorMap_st"), "a shared record defined twice");
    let manifest = std::fs::read_to_string(dir.path().join("user-sys/Cargo.toml")).unwrap();
    assert!(manifest.contains("base-sys = { path = \"../base-sys\", version = \"=0.1.0\" }"), "{manifest}");
    // One type for one C type: a value of either crate's name is the other's, alignment and all.
    std::fs::write(
        dir.path().join("user-sys/tests/shared.rs"),
        "//! The re-exported types are the dependency's own.\n\n\
         #[test]\nfn shared_types_are_one_type() {\n\
         \x20   let map: base_sys::CUtensorMap_st = Default::default();\n\
         \x20   let holder = user_sys::holder_st { map, stream: ::core::ptr::null_mut::<base_sys::CUstream_st>() };\n\
         \x20   let back: base_sys::CUtensorMap_st = holder.map;\n\
         \x20   assert_eq!(::core::mem::align_of_val(&back), 128);\n\
         \x20   assert_eq!(user_sys::wide_enum::WIDE_BIG, base_sys::wide_enum::WIDE_BIG);\n\
         \x20   println!(\"shared types are one type\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nresolver = \"2\"\nmembers = [\"base-sys\", \"user-sys\"]\n",
    )
    .unwrap();
    let out = support::clippy_doc_test(dir.path(), &[]);
    assert!(out.contains("shared types are one type"), "{out}");
}

#[test]
fn a_layout_that_differs_from_the_header_stops_the_build() {
    let name = "fixture-layout-sys".to_string();
    let api = support::api(128);
    let record = api.records.iter().find(|r| r.complete && r.size > 0).expect("a complete record");
    let dir = workspace(&[(name.clone(), api.clone())], &[]);
    // Plant a wrong size in one compile-time check, as a header that changed under the crate would.
    let lib = dir.path().join(&name).join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    let check = format!("size_of::<{}>() != {} {{", record.name, record.size);
    assert!(source.contains(&check), "no size check `{check}` in the generated crate");
    std::fs::write(&lib, source.replace(&check, &format!("size_of::<{}>() != {} {{", record.name, record.size + 1)))
        .unwrap();
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["check", "--quiet", "-p", &name])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build passed with a wrong size for {}", record.name);
    let message = format!("size of {} differs from the header", record.name);
    assert!(text.contains(&message), "the build failed without `{message}`:\n{text}");
}

/// A distinct value for bitfield number `index` of `width` bits.
fn pattern(index: usize, width: u32) -> u64 {
    let bits = 0xA5C3_5A3C_F00F_0FF0_u64.rotate_left(index as u32 * 7 + 3);
    if width >= 64 {
        bits
    } else {
        bits & ((1 << width) - 1)
    }
}

/// For a header with bitfields: the C compiler sets every named bitfield of every tagged record
/// and prints the bytes and the values it reads back; the returned Rust test checks that the
/// generated getters read those values from those bytes and the setters write the same bytes.
/// `None` when the header has no bitfields or no C compiler is installed.
fn c_agreement_test(crate_name: &str, api: &Api, header: &Path) -> Option<String> {
    let records: Vec<_> = api
        .records
        .iter()
        .filter(|r| r.complete && !r.anonymous && r.fields.iter().any(|f| f.bit_width.unwrap_or(0) > 0 && !f.anonymous))
        .collect();
    if records.is_empty() || !header.exists() {
        return None;
    }
    let mut c = format!(
        "#include \"{}\"\n#include <stdio.h>\n#include <string.h>\nint main(void) {{\n",
        header.canonicalize().ok()?.display()
    );
    for r in &records {
        c.push_str(&format!("  {{ {} v; memset(&v, 0, sizeof v);\n", ctkgen_ir::abi::record_spelling(api, &r.name)));
        for (i, f) in r.fields.iter().enumerate().filter(|(_, f)| f.bit_width.unwrap_or(0) > 0 && !f.anonymous) {
            c.push_str(&format!("    v.{} = {:#x}ULL;\n", f.name, pattern(i, f.bit_width.unwrap_or(0))));
        }
        c.push_str(&format!("    printf(\"{} bytes\"); for (unsigned i = 0; i < sizeof v; i++) printf(\" %u\", ((unsigned char *)&v)[i]); printf(\"\\n\");\n", r.name));
        for f in r.fields.iter().filter(|f| f.bit_width.unwrap_or(0) > 0 && !f.anonymous) {
            c.push_str(&format!("    printf(\"{} {} %lld\\n\", (long long)v.{});\n", r.name, f.name, f.name));
        }
        c.push_str("  }\n");
    }
    c.push_str("  return 0;\n}\n");
    let dir = tempfile::tempdir().ok()?;
    std::fs::write(dir.path().join("agree.c"), c).ok()?;
    let compiled =
        Command::new("cc").args(["-std=c11", "-o", "agree", "agree.c"]).current_dir(dir.path()).status().ok()?;
    assert!(compiled.success(), "the C agreement program for {crate_name} does not compile");
    let output = Command::new(dir.path().join("agree")).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;

    let krate = crate_name.replace('-', "_");
    let mut test = String::from("//! Bitfield accessors against bytes and values from the C compiler.\n\n#[test]\nfn bitfields_agree_with_the_c_compiler() {\n");
    for r in &records {
        let bytes_line = text.lines().find(|l| l.starts_with(&format!("{} bytes", r.name)))?;
        let bytes: Vec<&str> = bytes_line.split_whitespace().skip(2).collect();
        test.push_str(&format!("    {{\n        let bytes: [u8; {}] = [{}];\n", bytes.len(), bytes.join(", ")));
        test.push_str(&format!("        // SAFETY: the bytes are a value the C compiler wrote.\n        let read: {krate}::{0} = unsafe {{ ::core::ptr::read_unaligned(bytes.as_ptr().cast()) }};\n        let mut written = {krate}::{0}::default();\n", r.name));
        for (i, f) in r.fields.iter().enumerate().filter(|(_, f)| f.bit_width.unwrap_or(0) > 0 && !f.anonymous) {
            let line = text.lines().find(|l| l.starts_with(&format!("{} {} ", r.name, f.name)))?;
            let value: i128 = line.rsplit(' ').next()?.parse().ok()?;
            let _ = i;
            test.push_str(&format!(
                "        assert_eq!(read.{0}() as i128, {value});\n        written.set_{0}({value}_i128 as _);\n",
                f.name
            ));
        }
        test.push_str(&format!(
            "        // SAFETY: any value may be viewed as its bytes.\n        let written: [u8; {}] = unsafe {{ ::core::mem::transmute(written) }};\n        assert_eq!(written, bytes);\n    }}\n",
            bytes.len()
        ));
    }
    test.push_str("    println!(\"bitfields agree with the C compiler\");\n}\n");
    Some(test)
}
