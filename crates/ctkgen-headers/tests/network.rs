//! The real package index: fetching 13.1 and provisioning libclang. Set
//! `CTKGEN_SKIP_NETWORK_TESTS=1` on a machine that cannot reach it.

use std::path::Path;

use ctkgen_headers::{fetch, fetch_with, locate_libclang, locate_libclang_with, Cache, Catalogue, Pip};

/// The driver's headers, as its description names them.
fn driver() -> ctkgen_headers::LibraryHeaders {
    ctkgen_headers::LibraryHeaders {
        main: "cuda.h".into(),
        typedefs: Some("cudaTypedefs.h".into()),
        version_macro: Some("CUDA_VERSION".into()),
    }
}

fn network_allowed(test: &str) -> bool {
    let skip = std::env::var_os("CTKGEN_SKIP_NETWORK_TESTS").is_some_and(|v| v == "1");
    if skip {
        eprintln!("{test}: skipped, CTKGEN_SKIP_NETWORK_TESTS=1");
    }
    !skip
}

#[test]
fn fetches_ctk_13_1_from_the_index() {
    if !network_allowed("fetches_ctk_13_1_from_the_index") {
        return;
    }
    let catalogue_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/ctk.toml");
    let catalogue = Catalogue::load(&catalogue_path).unwrap();
    let release = catalogue.resolve("13.1").unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cache_dir.path().to_path_buf());

    let headers = fetch(release, &cache, &driver()).unwrap();
    assert_eq!(headers.ctk.as_deref(), Some(release.ctk.as_str()));
    assert_eq!(headers.cuda_version, Some(13010));
    assert!(headers.typedefs_header.as_ref().unwrap().is_file());
    // From the runtime wheel and from the profiler API's wheel.
    assert!(headers.include_dir.join("cudaEGL.h").is_file() && headers.include_dir.join("cudaProfiler.h").is_file());
    let text = std::fs::read_to_string(&headers.main_header).unwrap();
    assert!(text.contains("cuTensorMapEncodeTiled"));

    let offline = Pip::with_python("/nonexistent/python3");
    assert_eq!(fetch_with(release, &cache, &offline, &driver()).unwrap(), headers);
}

#[test]
fn locates_or_provisions_libclang() {
    if !network_allowed("locates_or_provisions_libclang") {
        return;
    }
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cache_dir.path().to_path_buf());
    let library = locate_libclang(&cache).unwrap();
    assert!(library.is_file(), "{}", library.display());
    let name = library.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("libclang") && name.contains(".so"), "{name}");
    // The second call finds what the first one found or provisioned, without pip.
    let offline = Pip::with_python("/nonexistent/python3");
    assert_eq!(locate_libclang_with(&cache, &offline).unwrap(), library);
}
