//! The diff on real `cuda.h` releases, read through the pipeline. The golden report of
//! 12.9 → 13.0 lives in `tests/golden/diff/`; accept an intended change with
//! `cargo xtask accept-goldens` (with every other golden) and review its diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ctkgen::{HeaderSource, ReadOptions, Workspace};
use ctkgen_diff::{diff, AbiDiff, Detail, Impact, Section, Verdict};
use ctkgen_ir::Api;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The model of one CTK, read once per test binary.
fn ctk(query: &str) -> Api {
    static CACHE: OnceLock<Mutex<BTreeMap<String, Api>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(hit) = cache.lock().unwrap().get(query) {
        return hit.clone();
    }
    let ws = Workspace::new(root());
    let headers =
        ctkgen::resolve_headers(&ws, &HeaderSource::Ctk(query.to_string())).unwrap_or_else(|e| panic!("{query}: {e}"));
    let api = ctkgen::read_api(&ws, &headers, &ReadOptions::default()).unwrap_or_else(|e| panic!("{query}: {e}"));
    cache.lock().unwrap().insert(query.to_string(), api.clone());
    api
}

fn subjects(d: &AbiDiff, section: Section) -> Vec<String> {
    d.section(section).map(|c| c.subject.clone()).collect()
}

/// The `## ` section that follows the summary, with its bullets.
fn first_section(markdown: &str) -> &str {
    let start = markdown.find("\n## ").expect("a section") + 1;
    let end = markdown[start + 3..].find("\n## ").map_or(markdown.len(), |i| start + 3 + i);
    &markdown[start..end]
}

#[test]
fn from_12_9_to_13_0() {
    let d = diff(&ctk("12.9"), &ctk("13.0"));
    assert_eq!((d.verdict(), d.exit_code()), (Verdict::Incompatible, 2));
    let md = d.to_markdown();
    assert!(md.starts_with("# ABI diff: CTK 12.9."), "{md}");
    assert!(md.contains("(CUDA_VERSION 12090) → CTK 13.0."), "{md}");

    let first = first_section(&md);
    assert!(first.starts_with("## Alignment changes"), "{first}");
    assert!(
        first.contains("- `CUtensorMap_st`: align 64 → 128, size 128; reached from `cuTensorMapEncodeIm2col`"),
        "{first}"
    );

    let create =
        d.section(Section::AbiSymbolChanges).find(|c| c.subject == "cuCtxCreate").expect("cuCtxCreate re-pointed");
    let Detail::SymbolBinding { changes, dropped_symbols } = &create.detail else { panic!("{create:?}") };
    let symbol = changes.iter().find(|c| c.field == "symbol").unwrap();
    assert_eq!((symbol.old.as_deref(), symbol.new.as_deref()), (Some("cuCtxCreate_v2"), Some("cuCtxCreate_v4")));
    assert_eq!(dropped_symbols, &["cuCtxCreate_v2"]);
    assert!(md.contains("- `cuCtxCreate`: symbol `cuCtxCreate_v2` → `cuCtxCreate_v4`"), "{md}");
    // The explicitly versioned name is gone; its symbol is what `cuCtxCreate` means now.
    let v4 =
        d.section(Section::RemovedFunctions).find(|c| c.subject == "cuCtxCreate_v4").expect("cuCtxCreate_v4 removed");
    assert!(
        matches!(&v4.detail, Detail::FunctionRemoved { symbol_now_bound_by, .. } if symbol_now_bound_by == &["cuCtxCreate"])
    );
    assert!(subjects(&d, Section::ChangedSignatures).contains(&"cuCtxCreate".to_string()));

    let churn = subjects(&d, Section::ExpectedChurn);
    assert!(churn.contains(&"CUdevice_attribute_enum::CU_DEVICE_ATTRIBUTE_MAX".to_string()), "{churn:?}");
    assert!(d.section(Section::ExpectedChurn).all(|c| c.impact == Impact::Churn));
    assert!(subjects(&d, Section::EnumChanges).iter().all(|s| !s.ends_with("_MAX")));
    assert!(md.contains("## Expected churn"));
    assert!(md.contains("- `CUdevice_attribute_enum::CU_DEVICE_ATTRIBUTE_MAX`: 144 → 148"), "{md}");

    // Spelled the same, changed only through a record: told once, with the record.
    assert!(!subjects(&d, Section::ChangedSignatures).contains(&"cuTensorMapEncodeTiled".to_string()));
    assert!(subjects(&d, Section::OtherLayoutChanges).contains(&"CUdevSmResource_st".to_string()));

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/golden/diff"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("12.9-13.0", md));
}

#[test]
fn from_12_0_to_12_9() {
    let d = diff(&ctk("12.0"), &ctk("12.9"));
    // The six prototypes whose struct tag moved to a `_v1_st` of the same layout.
    let mut renamed: Vec<String> = d
        .section(Section::Renames)
        .filter(|c| matches!(c.detail, Detail::SignatureTagsRenamed { .. }))
        .map(|c| c.subject.clone())
        .collect();
    renamed.sort();
    assert_eq!(
        renamed,
        [
            "cuGraphAddBatchMemOpNode",
            "cuGraphAddMemAllocNode",
            "cuGraphBatchMemOpNodeGetParams",
            "cuGraphBatchMemOpNodeSetParams",
            "cuGraphExecBatchMemOpNodeSetParams",
            "cuGraphMemAllocNodeGetParams",
        ]
    );
    let records: Vec<(String, String)> = d
        .section(Section::Renames)
        .filter_map(|c| match &c.detail {
            Detail::RecordRenamed { new_name, .. } => Some((c.subject.clone(), new_name.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        records,
        [
            ("CUDA_BATCH_MEM_OP_NODE_PARAMS_st".to_string(), "CUDA_BATCH_MEM_OP_NODE_PARAMS_v1_st".to_string()),
            ("CUDA_MEM_ALLOC_NODE_PARAMS_st".to_string(), "CUDA_MEM_ALLOC_NODE_PARAMS_v1_st".to_string()),
        ]
    );
    assert_eq!(subjects(&d, Section::ChangedSignatures), Vec::<String>::new());
    assert_eq!(subjects(&d, Section::RemovedFunctions), Vec::<String>::new());
    assert_eq!(subjects(&d, Section::RemovedTypes), Vec::<String>::new());
    assert_eq!(d.section(Section::AddedFunctions).count(), 72);

    // 12.0 -> 12.9 only adds: new functions, new variants with their own symbols and versions,
    // and tag renames with identical layout.
    let breaking: Vec<&str> =
        d.changes.iter().filter(|c| c.impact == Impact::Incompatible).map(|c| c.subject.as_str()).collect();
    assert_eq!(breaking, Vec::<&str>::new());
    assert_eq!((d.verdict(), d.exit_code()), (Verdict::Compatible, 1));
}

#[test]
fn same_ctk_is_identical_and_an_addition_is_compatible() {
    let api = ctk("13.0");
    let same = diff(&api, &api);
    assert!(same.changes.is_empty(), "{:?}", &same.changes[..same.changes.len().min(5)]);
    assert_eq!((same.verdict(), same.exit_code()), (Verdict::Identical, 0));

    let mut older = api.clone();
    older.functions.retain(|f| f.name != "cuMemGetMemPool");
    let added = diff(&older, &api);
    assert_eq!(subjects(&added, Section::AddedFunctions), ["cuMemGetMemPool"]);
    assert_eq!(added.changes.len(), 1);
    assert_eq!((added.verdict(), added.exit_code()), (Verdict::Compatible, 1));
}
