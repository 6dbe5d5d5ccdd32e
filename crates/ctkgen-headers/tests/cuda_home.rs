//! Headers of an installed toolkit.

use std::fs;

use ctkgen_headers::{from_cuda_home, HeadersError};

/// The driver's headers, as its description names them.
fn driver() -> ctkgen_headers::LibraryHeaders {
    ctkgen_headers::LibraryHeaders {
        main: "cuda.h".into(),
        typedefs: Some("cudaTypedefs.h".into()),
        version_macro: Some("CUDA_VERSION".into()),
    }
}

#[test]
fn reads_cuda_version_and_release() {
    let home = tempfile::tempdir().unwrap();
    let include = home.path().join("include");
    fs::create_dir(&include).unwrap();
    fs::write(
        include.join("cuda.h"),
        "#ifndef __cuda_cuda_h__\n/* CUDA_VERSION is below */\n#  define CUDA_VERSION 12080\n#endif\n",
    )
    .unwrap();
    fs::write(
        home.path().join("version.json"),
        r#"{ "cuda": { "name": "CUDA SDK", "version": "12.8.1" }, "cuda_cudart": { "version": "12.8.90" } }"#,
    )
    .unwrap();
    let headers = from_cuda_home(home.path(), &driver()).unwrap();
    assert_eq!(headers.include_dir, include);
    assert_eq!(headers.main_header, include.join("cuda.h"));
    assert_eq!(headers.typedefs_header, None);
    assert_eq!(headers.cuda_version, Some(12080));
    assert_eq!(headers.ctk.as_deref(), Some("12.8.1"));

    fs::write(include.join("cudaTypedefs.h"), "").unwrap();
    fs::remove_file(home.path().join("version.json")).unwrap();
    let headers = from_cuda_home(home.path(), &driver()).unwrap();
    assert_eq!(headers.typedefs_header, Some(include.join("cudaTypedefs.h")));
    assert_eq!(headers.ctk, None);
}

#[test]
fn a_header_without_cuda_version_has_none() {
    let home = tempfile::tempdir().unwrap();
    fs::create_dir(home.path().join("include")).unwrap();
    fs::write(home.path().join("include/cuda.h"), "#define CUDA_VERSION_MAJOR 13\n").unwrap();
    assert_eq!(from_cuda_home(home.path(), &driver()).unwrap().cuda_version, None);
}

#[test]
fn bad_inputs_are_errors_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    let error = from_cuda_home(home.path(), &driver()).unwrap_err();
    assert!(matches!(error, HeadersError::MissingHeader { .. }));
    assert_eq!(error.to_string(), format!("no cuda.h in {}/include", home.path().display()));

    fs::create_dir(home.path().join("include")).unwrap();
    fs::write(home.path().join("include/cuda.h"), "#define CUDA_VERSION 13x\n").unwrap();
    let error = from_cuda_home(home.path(), &driver()).unwrap_err();
    assert!(error.to_string().contains("cuda.h: malformed CUDA_VERSION"), "{error}");

    fs::write(home.path().join("include/cuda.h"), "#define CUDA_VERSION 13000\n").unwrap();
    fs::write(home.path().join("version.json"), "{ not json").unwrap();
    let error = from_cuda_home(home.path(), &driver()).unwrap_err();
    assert!(error.to_string().contains("version.json: malformed toolkit version"), "{error}");
}
