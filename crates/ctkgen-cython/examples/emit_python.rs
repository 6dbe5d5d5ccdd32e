//! Emits the Python package of one library from a saved IR, for looking at the emitter's output
//! without the pipeline: `cargo run -p ctkgen-cython --example emit_python -- IR.json LIBRARY OUT`,
//! where LIBRARY names a description under `headers/libraries/`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, ir, library, out] = args.as_slice() else {
        return Err("usage: emit_python IR.json LIBRARY OUT".into());
    };
    let api = ctkgen_ir::Api::from_json(&std::fs::read_to_string(ir)?)?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries");
    let conventions = toml::from_str(&std::fs::read_to_string(dir.join(format!("{library}.toml")))?)?;
    let read_part =
        |part: &str| std::fs::read_to_string(dir.join(format!("{library}.{part}.toml"))).unwrap_or_default();
    let overrides =
        ctkgen_cython::Overrides::parse(&read_part("cython-params"))?.with_typed_values(&read_part("typed-values"))?;
    let options = ctkgen_cython::CythonOptions::new(conventions, overrides);
    for file in ctkgen_cython::emit(&api, &options)? {
        let path = Path::new(out).join(&file.path);
        std::fs::create_dir_all(path.parent().expect("a file has a folder"))?;
        std::fs::write(path, file.contents)?;
    }
    Ok(())
}
