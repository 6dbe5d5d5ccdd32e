//! A small hand-made model that exercises every shape the emitter handles, with layouts as
//! clang computes them for x86_64 Linux.

#![allow(dead_code)]

use ctkgen_ir::*;

pub fn prim(p: Primitive) -> Type {
    Type::Primitive { name: p }
}
pub fn named(name: &str) -> Type {
    Type::Typedef { name: name.into() }
}
pub fn record_ty(name: &str) -> Type {
    Type::Record { name: name.into() }
}
pub fn enum_ty(name: &str) -> Type {
    Type::Enum { name: name.into() }
}
pub fn ptr(t: Type) -> Type {
    Type::Pointer { pointee: Box::new(t), pointee_const: false }
}
pub fn const_ptr(t: Type) -> Type {
    Type::Pointer { pointee: Box::new(t), pointee_const: true }
}
pub fn array(t: Type, len: u64) -> Type {
    Type::Array { element: Box::new(t), len }
}

pub fn field(name: &str, ty: Type, offset_bytes: u64, size: u64, align: u64) -> Field {
    Field {
        name: name.into(),
        anonymous: false,
        ty,
        offset_bits: offset_bytes * 8,
        bit_width: None,
        size,
        align,
        doc: None,
    }
}
pub fn bits(name: &str, ty: Type, offset_bits: u64, width: u32, size: u64) -> Field {
    Field { name: name.into(), anonymous: false, ty, offset_bits, bit_width: Some(width), size, align: size, doc: None }
}

pub fn record(name: &str, kind: RecordKind, size: u64, align: u64, fields: Vec<Field>) -> Record {
    Record::complete(name, kind, size, align, fields)
}
pub fn opaque(name: &str) -> Record {
    Record { complete: false, size: 0, align: 0, ..record(name, RecordKind::Struct, 0, 0, Vec::new()) }
}
pub fn typedef(name: &str, ty: Type, size: u64, align: u64) -> Typedef {
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
pub fn enumeration(name: &str, typedef_names: &[&str], underlying: Primitive, constants: &[(&str, i128)]) -> Enum {
    Enum {
        name: name.into(),
        typedef_names: typedef_names.iter().map(|s| s.to_string()).collect(),
        underlying,
        constants: constants.iter().map(|(n, v)| EnumConstant { name: n.to_string(), value: *v, doc: None }).collect(),
        doc: None,
        header: None,
    }
}
pub fn param(name: &str, ty: Type) -> Param {
    Param { name: name.into(), ty }
}
pub fn function(name: &str, symbol: &str, version: Option<u32>, ret: Type, params: Vec<Param>) -> Function {
    Function {
        name: name.into(),
        symbol: symbol.into(),
        lookup_name: name.into(),
        per_thread_symbol: None,
        first_version: version,
        per_thread_first_version: None,
        ret,
        params,
        deprecated: false,
        doc: None,
        header: None,
    }
}
pub fn constant(name: &str, ty: Type, value: ConstantValue, expr: &str) -> Constant {
    Constant { name: name.into(), ty, value, expr: expr.into(), doc: None, header: None }
}

fn aligned_field(record: &str, field: &str, value: u64) -> Vec<ExplicitAlignment> {
    [(AlignmentSpelling::CAlignas, LanguageMode::C11), (AlignmentSpelling::Alignas, LanguageMode::Cxx17)]
        .into_iter()
        .map(|(spelling, mode)| ExplicitAlignment {
            target: AlignmentTarget::Field { record: record.into(), field: field.into() },
            spelling,
            value,
            mode,
        })
        .collect()
}

/// The fixture; `tensor_map_align` is 64 for a 12.x-like header and 128 for 13.x.
pub fn api(tensor_map_align: u64) -> Api {
    use Primitive::*;
    let cuuint64 = named("cuuint64_t");
    let mut tensor_map = record(
        "CUtensorMap_st",
        RecordKind::Struct,
        128.max(tensor_map_align),
        tensor_map_align,
        vec![field("opaque", array(cuuint64.clone(), 16), 0, 128, 8)],
    );
    tensor_map.explicit_alignments = aligned_field("CUtensorMap_st", "opaque", tensor_map_align);
    tensor_map.doc = Some("Tensor map descriptor.\n  Requires alignment.".into());

    // struct { char a; alignas(16) int b; char c; }
    let mut aligned_middle = record(
        "aligned_middle_st",
        RecordKind::Struct,
        32,
        16,
        vec![field("a", prim(Char), 0, 1, 1), field("b", prim(Int), 16, 4, 4), field("c", prim(Char), 20, 1, 1)],
    );
    aligned_middle.explicit_alignments = aligned_field("aligned_middle_st", "b", 16);

    // struct { unsigned a:3; int b:5; unsigned c:24; char d; unsigned long long e:40; _Bool f:1; CUresult g:4; }
    let bitfields = record(
        "bits_st",
        RecordKind::Struct,
        16,
        8,
        vec![
            bits("a", prim(UnsignedInt), 0, 3, 4),
            bits("b", prim(Int), 3, 5, 4),
            bits("c", prim(UnsignedInt), 8, 24, 4),
            field("d", prim(Char), 4, 1, 1),
            bits("e", prim(UnsignedLongLong), 64, 40, 8),
            bits("f", prim(Bool), 104, 1, 1),
            bits("g", named("CUresult"), 105, 4, 4),
            bits("type", prim(UnsignedInt), 109, 3, 4),
        ],
    );

    let union = record(
        "CUlaunchAttributeValue_union",
        RecordKind::Union,
        64,
        8,
        vec![
            field("pad", array(prim(Char), 64), 0, 64, 1),
            field("stream", named("CUstream"), 0, 8, 8),
            field("priority", prim(Int), 0, 4, 4),
            field("hostFn", named("CUhostFn"), 0, 8, 8),
        ],
    );

    // struct { int resType; union { struct { CUarray hArray; } array; int reserved[32]; } res; unsigned flags; }
    let mut res_array = record(
        "CUDA_RESOURCE_DESC_st__res__array",
        RecordKind::Struct,
        8,
        8,
        vec![field("hArray", ptr(record_ty("CUarray_st")), 0, 8, 8)],
    );
    res_array.anonymous = true;
    res_array.parent = Some(FieldPath { record: "CUDA_RESOURCE_DESC_st__res".into(), field: "array".into() });
    let mut res = record(
        "CUDA_RESOURCE_DESC_st__res",
        RecordKind::Union,
        128,
        8,
        vec![
            field("array", record_ty("CUDA_RESOURCE_DESC_st__res__array"), 0, 8, 8),
            field("reserved", array(prim(Int), 32), 0, 128, 4),
        ],
    );
    res.anonymous = true;
    res.parent = Some(FieldPath { record: "CUDA_RESOURCE_DESC_st".into(), field: "res".into() });
    let resource_desc = record(
        "CUDA_RESOURCE_DESC_st",
        RecordKind::Struct,
        144,
        8,
        vec![
            field("resType", prim(Int), 0, 4, 4),
            field("res", record_ty("CUDA_RESOURCE_DESC_st__res"), 8, 128, 8),
            field("flags", prim(UnsignedInt), 136, 4, 4),
        ],
    );

    // struct outer { int kind; union { int i; float f; }; }  -- an unnamed member
    let mut outer_anon = record(
        "outer_st__anon0",
        RecordKind::Union,
        4,
        4,
        vec![field("i", prim(Int), 0, 4, 4), field("f", prim(Float), 0, 4, 4)],
    );
    outer_anon.anonymous = true;
    outer_anon.parent = Some(FieldPath { record: "outer_st".into(), field: "_anon0".into() });
    let mut anon_field = field("_anon0", record_ty("outer_st__anon0"), 4, 4, 4);
    anon_field.anonymous = true;
    let outer = record("outer_st", RecordKind::Struct, 8, 4, vec![field("kind", prim(Int), 0, 4, 4), anon_field]);

    // typedef struct { unsigned x; } untagged_t;
    let mut untagged = record("untagged_t", RecordKind::Struct, 4, 4, vec![field("x", prim(UnsignedInt), 0, 4, 4)]);
    untagged.anonymous = true;
    untagged.typedef_name = Some("untagged_t".into());

    let mut packed = record(
        "packed_st",
        RecordKind::Struct,
        5,
        1,
        vec![field("tag", prim(Char), 0, 1, 1), field("value", prim(UnsignedInt), 1, 4, 4)],
    );
    packed.packed = true;

    let host_fn = ptr(Type::Function { ret: Box::new(Type::Void), params: vec![ptr(Type::Void)], variadic: false });

    let mut records = vec![
        tensor_map,
        aligned_middle,
        bitfields,
        union,
        res_array,
        res,
        resource_desc,
        outer_anon,
        outer,
        untagged,
        packed,
        opaque("CUctx_st"),
        opaque("CUstream_st"),
        opaque("CUarray_st"),
    ];
    records.sort_by(|a, b| a.name.cmp(&b.name));

    let mut enums = vec![
        enumeration(
            "cudaError_enum",
            &["CUresult"],
            UnsignedInt,
            &[
                ("CUDA_SUCCESS", 0),
                ("CUDA_ERROR_INVALID_VALUE", 1),
                ("CUDA_ERROR_NOT_INITIALIZED", 3),
                ("CUDA_ERROR_NOT_FOUND", 500),
                ("CUDA_ERROR_UNKNOWN", 999),
            ],
        ),
        enumeration("wide_enum", &[], Long, &[("WIDE_NEGATIVE", -1), ("WIDE_BIG", 0x1_0000_0000), ("WIDE_ZERO", 0)]),
        enumeration("high_bit_enum", &[], UnsignedInt, &[("HIGH_BIT", 0x8000_0000), ("HIGH_MAX", 0x7fff_ffff)]),
        enumeration(
            "CUctx_flags_enum",
            &["CUctx_flags"],
            UnsignedInt,
            &[
                ("CU_CTX_SCHED_AUTO", 0),
                ("CU_CTX_SCHED_SPIN", 1),
                ("CU_CTX_SCHED_YIELD", 2),
                ("CU_CTX_SCHED_BLOCKING_SYNC", 4),
                ("CU_CTX_BLOCKING_SYNC", 4),
                ("CU_CTX_SCHED_MASK", 7),
                ("CU_CTX_MAP_HOST", 8),
            ],
        ),
        enumeration(
            "CUdriverProcAddress_flags_enum",
            &["CUdriverProcAddress_flags"],
            UnsignedInt,
            &[
                ("CU_GET_PROC_ADDRESS_DEFAULT", 0),
                ("CU_GET_PROC_ADDRESS_LEGACY_STREAM", 1),
                ("CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM", 2),
            ],
        ),
        enumeration(
            "CUdriverProcAddressQueryResult_enum",
            &["CUdriverProcAddressQueryResult"],
            UnsignedInt,
            &[
                ("CU_GET_PROC_ADDRESS_SUCCESS", 0),
                ("CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND", 1),
                ("CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT", 2),
            ],
        ),
        enumeration("plain_mode", &["plain_mode"], Int, &[("MODE_A", 0), ("MODE_B", 1), ("MODE_C", 2), ("MODE_D", 3)]),
    ];
    enums.sort_by(|a, b| a.name.cmp(&b.name));

    let mut typedefs = vec![
        Typedef { system: true, ..typedef("uint64_t", prim(UnsignedLong), 8, 8) },
        Typedef { system: true, ..typedef("__kernel_weird_t", prim(UnsignedInt), 4, 4) },
        typedef("cuuint64_t", named("uint64_t"), 8, 8),
        typedef("cuuint32_t", named("uint32_t"), 4, 4),
        typedef("weird_t", named("__kernel_weird_t"), 4, 4),
        typedef("CUresult", enum_ty("cudaError_enum"), 4, 4),
        typedef("CUctx_flags", enum_ty("CUctx_flags_enum"), 4, 4),
        typedef("CUdriverProcAddress_flags", enum_ty("CUdriverProcAddress_flags_enum"), 4, 4),
        typedef("CUdriverProcAddressQueryResult", enum_ty("CUdriverProcAddressQueryResult_enum"), 4, 4),
        typedef("plain_mode", enum_ty("plain_mode"), 4, 4),
        typedef("CUcontext", ptr(record_ty("CUctx_st")), 8, 8),
        typedef("CUstream", ptr(record_ty("CUstream_st")), 8, 8),
        typedef("CUarray", ptr(record_ty("CUarray_st")), 8, 8),
        typedef("CUdevice_v1", prim(Int), 4, 4),
        typedef("CUdevice", named("CUdevice_v1"), 4, 4),
        typedef("CUtensorMap", record_ty("CUtensorMap_st"), 128.max(tensor_map_align), tensor_map_align),
        typedef("CUlaunchAttributeValue", record_ty("CUlaunchAttributeValue_union"), 64, 8),
        typedef("CUDA_RESOURCE_DESC", record_ty("CUDA_RESOURCE_DESC_st"), 144, 8),
        typedef("untagged_t", record_ty("untagged_t"), 4, 4),
        typedef("CUhostFn", host_fn.clone(), 8, 8),
    ];
    typedefs.sort_by(|a, b| a.name.cmp(&b.name));

    let mut constants = vec![
        constant("CU_STREAM_LEGACY", named("CUstream"), ConstantValue::Int(1), "( ( CUstream ) 0x1 )"),
        constant("CU_STREAM_PER_THREAD", named("CUstream"), ConstantValue::Int(2), "( ( CUstream ) 0x2 )"),
        constant("CU_DEVICE_CPU", named("CUdevice"), ConstantValue::Int(-1), "( ( CUdevice ) - 1 )"),
        constant("CU_LAUNCH_PARAM_END", ptr(Type::Void), ConstantValue::Int(0), "( ( void * ) 0x00 )"),
        constant("CU_LAUNCH_PARAM_BUFFER_POINTER", ptr(Type::Void), ConstantValue::Int(1), "( ( void * ) 0x01 )"),
        constant("CUDA_VERSION", prim(Int), ConstantValue::Int(13010), "13010"),
        constant(
            "CU_MEM_HOST_ALL",
            prim(UnsignedLongLong),
            ConstantValue::Int(u64::MAX as i128),
            "0xffffffffffffffffULL",
        ),
        constant("CU_SCALE", prim(Double), ConstantValue::Float(0.5), "0.5"),
        constant("CU_NEG_SCALE", prim(Float), ConstantValue::Float(-2.25), "-2.25f"),
        constant(
            "CU_NAME",
            const_ptr(prim(Char)),
            ConstantValue::Str("cuda \"driver\"".into()),
            "\"cuda \\\"driver\\\"\"",
        ),
        constant("CU_ERROR_DEFAULT", named("CUresult"), ConstantValue::Int(999), "( ( CUresult ) 999 )"),
    ];
    constants.sort_by(|a, b| a.name.cmp(&b.name));

    let mut functions = vec![
        {
            let mut f =
                function("cuInit", "cuInit", Some(2000), named("CUresult"), vec![param("Flags", prim(UnsignedInt))]);
            f.doc = Some("\\brief Initialize the CUDA driver API\n\nInitializes the driver API.\n\n\\param Flags - Initialization flag for CUDA.\n\n\\return\n::CUDA_SUCCESS,\n::CUDA_ERROR_INVALID_VALUE\n\\notefnerr\n\n\\sa cuDriverGetVersion".into());
            f
        },
        function(
            "cuCtxCreate",
            "cuCtxCreate_v4",
            Some(12050),
            named("CUresult"),
            vec![
                param("pctx", ptr(named("CUcontext"))),
                param("flags", prim(UnsignedInt)),
                param("dev", named("CUdevice")),
            ],
        ),
        function(
            "cuGetProcAddress",
            "cuGetProcAddress_v2",
            Some(12000),
            named("CUresult"),
            vec![
                param("symbol", const_ptr(prim(Char))),
                param("pfn", ptr(ptr(Type::Void))),
                param("cudaVersion", prim(Int)),
                param("flags", cuuint64.clone()),
                param("symbolStatus", ptr(named("CUdriverProcAddressQueryResult"))),
            ],
        ),
        {
            let mut f = function(
                "cuMemcpyAsync",
                "cuMemcpyAsync",
                Some(4000),
                named("CUresult"),
                vec![
                    param("dst", cuuint64.clone()),
                    param("src", cuuint64.clone()),
                    param("ByteCount", named("size_t")),
                    param("hStream", named("CUstream")),
                ],
            );
            f.per_thread_symbol = Some("cuMemcpyAsync_ptsz".into());
            f.per_thread_first_version = Some(7000);
            f
        },
        function(
            "cuLaunchHostFunc",
            "cuLaunchHostFunc",
            Some(10000),
            named("CUresult"),
            vec![
                param("hStream", named("CUstream")),
                param("fn", named("CUhostFn")),
                param("userData", ptr(Type::Void)),
            ],
        ),
        function(
            "cuRegisterCallback",
            "cuRegisterCallback",
            None,
            named("CUresult"),
            vec![
                param(
                    "callback",
                    ptr(Type::Function {
                        ret: Box::new(prim(Int)),
                        params: vec![prim(Int), ptr(Type::Void)],
                        variadic: false,
                    }),
                ),
                param("table", array(prim(Int), 4)),
            ],
        ),
        function(
            "cuTensorMapEncodeTiled",
            "cuTensorMapEncodeTiled",
            Some(12000),
            named("CUresult"),
            vec![
                param("tensorMap", ptr(named("CUtensorMap"))),
                param("tensorRank", named("cuuint32_t")),
                param("globalDim", const_ptr(cuuint64.clone())),
            ],
        ),
        {
            let mut f = function(
                "cuGetErrorCount",
                "cuGetErrorCount",
                None,
                prim(Int),
                vec![param("type", prim(Int)), param("self", prim(Int))],
            );
            f.deprecated = true;
            f
        },
    ];
    functions.sort_by(|a, b| a.name.cmp(&b.name));

    Api {
        format_version: FORMAT_VERSION,
        provenance: Provenance {
            header: "fixture.h".into(),
            header_sha256: "0".repeat(64),
            ctk: Some(if tensor_map_align > 64 { "13.1.0" } else { "12.9.0" }.into()),
            cuda_version: Some(if tensor_map_align > 64 { 13010 } else { 12090 }),
            target: "x86_64-unknown-linux-gnu".into(),
            language_modes: vec![LanguageMode::C11, LanguageMode::Cxx17],
            libclang_version: "fixture".into(),
            extra_headers: Vec::new(),
        },
        functions,
        records,
        enums,
        typedefs,
        constants,
    }
}

/// The driver's conventions, as the pipeline loads them from `headers/libraries/`.
pub fn conventions() -> &'static ctkgen_ir::LibraryConventions {
    static CONVENTIONS: std::sync::OnceLock<ctkgen_ir::LibraryConventions> = std::sync::OnceLock::new();
    CONVENTIONS.get_or_init(|| library("cuda-driver"))
}

/// A library's conventions, from `headers/libraries/<name>.toml` as the pipeline loads them.
pub fn library(name: &str) -> ctkgen_ir::LibraryConventions {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../headers/libraries/{name}.toml"));
    toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Where generated crates compile: `CTKGEN_RUST_GEN_TARGET` (default: a folder in the system
/// temporary directory), apart from the workspace's target folder and its lock.
pub fn target_dir() -> std::path::PathBuf {
    std::env::var_os("CTKGEN_RUST_GEN_TARGET")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("ctkgen-rust-gen-target"))
}

/// Runs cargo in `dir`, with each `(name, value)` of `env` set (or removed, for `None`); returns
/// stdout and stderr together, failing the test on a non-zero exit.
pub fn cargo_with(dir: &std::path::Path, args: &[&str], env: &[(&str, Option<&std::ffi::OsStr>)]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        // Every rustdoc lint is an error: broken intra-doc links, bare URLs, HTML, code blocks.
        .env("RUSTDOCFLAGS", "-D warnings");
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let output = command.output().expect("cargo runs");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "cargo {args:?} failed:\n{text}");
    text
}

/// [`cargo_with`] in the environment as it is.
pub fn cargo(dir: &std::path::Path, args: &[&str]) -> String {
    cargo_with(dir, args, &[])
}

/// `cargo clippy -D warnings` (so also a build without warnings), `cargo doc` with every rustdoc
/// lint an error, then `cargo test`, over the workspace in `dir`; returns the tests' output.
pub fn clippy_doc_test(dir: &std::path::Path, env: &[(&str, Option<&std::ffi::OsStr>)]) -> String {
    let clippy = cargo_with(dir, &["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"], env);
    assert!(!clippy.contains("warning"), "{clippy}");
    let doc = cargo_with(dir, &["doc", "--workspace", "--no-deps", "--quiet"], env);
    assert!(!doc.contains("warning"), "{doc}");
    cargo_with(dir, &["test", "--workspace", "--quiet", "--", "--nocapture", "--test-threads=1"], env)
}
