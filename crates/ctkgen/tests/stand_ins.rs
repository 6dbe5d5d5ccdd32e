//! The pinned graphics API stand-ins (`headers/include/{GL,EGL,vdpau}`) declare exactly the types
//! of the real system headers: checked, where those headers are installed, by compiling the
//! model's layouts and each stand-in typedef's C type against the real headers instead.

mod common;

use std::process::Command;

use common::ctk;

const REAL_HEADERS: &str =
    "#include <GL/gl.h>\n#include <EGL/egl.h>\n#include <EGL/eglext.h>\n#include <vdpau/vdpau.h>\n";

/// Compiles `source` as C++17 against the CTK's headers and the system's, with no stand-ins.
fn compile_cxx(source: &str, include_dir: &std::path::Path) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("check.cc");
    std::fs::write(&path, source).unwrap();
    let out = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-x", "c++"])
        .arg("-I")
        .arg(include_dir)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run g++: {e}"));
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn the_stand_ins_agree_with_the_real_headers_where_installed() {
    let (headers, api) = ctk("13.1");
    if let Err(error) = compile_cxx(REAL_HEADERS, &headers.include_dir) {
        let first = error.lines().next().unwrap_or_default().to_string();
        eprintln!("the_stand_ins_agree_with_the_real_headers_where_installed: skipped, no system GL/EGL/VDPAU headers ({first})");
        return;
    }
    // Every layout, enum value and typedef size of the model, against the real headers.
    let oracle = ctkgen::oracle::c_source(&api, "cuda.h");
    compile_cxx(&oracle, &headers.include_dir).unwrap();

    // Each stand-in typedef names the very type the real header gives it.
    let stand_in_typedefs: Vec<&ctkgen_ir::Typedef> =
        api.typedefs.iter().filter(|t| t.header.as_deref().is_some_and(|h| h.contains('/'))).collect();
    assert!(stand_in_typedefs.len() >= 10, "{}", stand_in_typedefs.len());
    let mut checks = format!("{REAL_HEADERS}#include <type_traits>\n#include \"cuda.h\"\n");
    for t in &stand_in_typedefs {
        let spelled = ctkgen_ir::abi::c_decl(&api, &t.ty, "");
        checks
            .push_str(&format!("static_assert(std::is_same<{}, {spelled}>::value, \"typedef {}\");\n", t.name, t.name));
    }
    compile_cxx(&checks, &headers.include_dir).unwrap();
    // The check can fail: a wrong type is refused.
    let wrong = checks.replace("std::is_same<GLenum, unsigned int>", "std::is_same<GLenum, int>");
    assert_ne!(wrong, checks);
    let error = compile_cxx(&wrong, &headers.include_dir).expect_err("a wrong stand-in type must not compile");
    assert!(error.contains("typedef GLenum"), "{error}");
}
