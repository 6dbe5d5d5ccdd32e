//! Writes the Cython package for one IR JSON file; used by the Python test suite.
//!
//! `ctkgen-cython-emit --ir IR.json --out DIR [--package NAME] [--legacy-inline-layout]`

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ctkgen_cython::{emit, CythonOptions, Overrides};
use ctkgen_ir::Api;

fn main() -> ExitCode {
    let mut ir = None;
    let mut out = None;
    let mut options = match shipped_options() {
        Ok(options) => CythonOptions { command: "ctkgen-cython-emit".into(), ..options },
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ir" => ir = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "--package" => options.python_package = args.next().unwrap_or_default(),
            "--command" => options.command = args.next().unwrap_or_default(),
            "--legacy-inline-layout" => options.legacy_inline_layout = true,
            "--strict-params" => options.strict_params = true,
            "--lenient-params" => options.strict_params = false,
            other => {
                eprintln!("error: unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(ir), Some(out)) = (ir, out) else {
        eprintln!("usage: ctkgen-cython-emit --ir IR.json --out DIR [--package NAME] [--legacy-inline-layout]");
        return ExitCode::from(2);
    };
    let result = (|| -> Result<usize, String> {
        let text = std::fs::read_to_string(&ir).map_err(|e| format!("cannot read {}: {e}", ir.display()))?;
        let api = Api::from_json(&text).map_err(|e| format!("cannot parse {}: {e}", ir.display()))?;
        let files = emit(&api, &options).map_err(|e| {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            text
        })?;
        for file in &files {
            let path = out.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            if std::fs::read_to_string(&path).ok().as_deref() != Some(file.contents.as_str()) {
                std::fs::write(&path, &file.contents).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        }
        Ok(files.len())
    })();
    match result {
        Ok(n) => {
            eprintln!("wrote {n} files under {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The options for the library described in the workspace's `headers/libraries/cuda-driver*.toml`.
fn shipped_options() -> Result<CythonOptions, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries");
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let conventions =
        toml::from_str(&read("cuda-driver.toml")?).map_err(|e| format!("cuda-driver.toml: {}", e.message()))?;
    let overrides = Overrides::parse(&read("cuda-driver.cython-params.toml")?).map_err(|e| e.to_string())?;
    Ok(CythonOptions::new(conventions, overrides))
}
