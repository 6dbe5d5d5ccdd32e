//! Writes the crate generated from an IR file (`cargo xtask ir ... -o IR.json`) to a folder:
//! `cargo run -p ctkgen-rust --example emit_crate -- IR.json OUT_DIR [LIBRARY.toml [COMMAND]]`.
//! The library's conventions default to the driver's, `headers/libraries/cuda-driver.toml`;
//! COMMAND is the generating command the files' first lines name.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: emit_crate IR.json OUT_DIR [LIBRARY.toml [COMMAND]]";
    let ir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let out = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let library = args.next().map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../headers/libraries/cuda-driver.toml")
    });
    let command = args.next().unwrap_or_else(|| "cargo run -p ctkgen-rust --example emit_crate".into());
    let api = ctkgen_ir::Api::from_json(&std::fs::read_to_string(&ir)?)?;
    let conventions: ctkgen_ir::LibraryConventions = toml::from_str(&std::fs::read_to_string(&library)?)?;
    let options = ctkgen_rust::RustOptions::with_command(command);
    for file in ctkgen_rust::emit(&api, &options, &conventions)? {
        let path = out.join(&file.path);
        std::fs::create_dir_all(path.parent().ok_or("file without folder")?)?;
        std::fs::write(path, file.contents)?;
    }
    Ok(())
}
