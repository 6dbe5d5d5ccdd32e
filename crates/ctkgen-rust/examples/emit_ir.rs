//! Writes the crate generated from an IR file to a folder:
//! `cargo run -p ctkgen-rust --example emit_ir -- IR.json OUT_DIR`.
//! (The `cargo xtask generate` command is the real entry point; this is for inspection.)

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(ir), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: emit_ir IR.json OUT_DIR".into());
    };
    let api = ctkgen_ir::Api::from_json(&std::fs::read_to_string(&ir)?)?;
    let options = ctkgen_rust::RustOptions::for_api(&api, "cargo run -p ctkgen-rust --example emit_ir");
    let started = std::time::Instant::now();
    let files = ctkgen_rust::emit(&api, &options, &conventions()?)?;
    eprintln!("emitted {} files in {:?}", files.len(), started.elapsed());
    let out = std::path::PathBuf::from(out);
    for file in files {
        let path = out.join(&file.path);
        std::fs::create_dir_all(path.parent().ok_or("file without folder")?)?;
        std::fs::write(path, file.contents)?;
    }
    Ok(())
}

/// The driver's conventions from the workspace's `headers/libraries/`.
fn conventions() -> Result<ctkgen_ir::LibraryConventions, Box<dyn std::error::Error>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-driver.toml");
    Ok(toml::from_str(&std::fs::read_to_string(path)?)?)
}
