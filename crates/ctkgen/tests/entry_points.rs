//! Both emitters resolve every function through `cuGetProcAddress` with the model's lookup name
//! and version. Asking under the public name would hand out another signature: `cuGraphInstantiate`
//! at 11040 is the old five-argument entry point, not `cuGraphInstantiateWithFlags`.

mod common;

use ctkgen::{GenerateOptions, Languages};

#[test]
fn emitted_loaders_use_the_lookup_name_and_version() {
    let (headers, api) = common::ctk("13.1");
    let options = GenerateOptions {
        languages: Languages::All,
        python_package: "ctkgen_cuda".into(),
        legacy_inline_layout: false,
        strict_integers: false,
        command: "test".into(),
        package: Default::default(),
    };
    let library = common::workspace().library("cuda-driver").unwrap();
    let files =
        ctkgen::emit(&[ctkgen::BoundLibrary { library: &library, headers: &headers, api: &api }], &options).unwrap();
    let file =
        |path: &str| files.iter().find(|f| f.path == path).unwrap_or_else(|| panic!("no {path}")).contents.clone();
    let cydriver = file("python/ctkgen_cuda/cydriver.pyx");
    let rust = file("rust/cuda-driver-sys/src/lib.rs");
    for f in &api.functions {
        let version = f.first_version.unwrap_or(0);
        let cython_call = format!("_resolve(&_pfn_{}, \"{}\", {version},", f.name, f.lookup_name);
        assert!(cydriver.contains(&cython_call), "cython: no `{cython_call}`");
        if let Some(version) = f.first_version {
            let rust_doc = format!("`cuGetProcAddress(\"{}\", {version})`", f.lookup_name);
            assert!(rust.contains(&rust_doc), "rust: no {rust_doc} for {}", f.name);
        }
    }
    assert!(cydriver.contains("_resolve(&_pfn_cuGraphInstantiate, \"cuGraphInstantiateWithFlags\", 11040,"));
}
