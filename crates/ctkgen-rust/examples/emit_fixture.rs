//! Writes the crate generated for the hand-made fixture model to a folder, for inspection:
//! `cargo run -p ctkgen-rust --example emit_fixture -- OUT_DIR [64|128]`.

#[path = "../tests/support/mod.rs"]
mod support;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().ok_or("usage: emit_fixture OUT_DIR [ALIGN]")?);
    let align: u64 = args.next().as_deref().unwrap_or("128").parse()?;
    let api = support::api(align);
    let options = ctkgen_rust::RustOptions::with_command("cargo run -p ctkgen-rust --example emit_fixture");
    for file in ctkgen_rust::emit(&api, &options, &conventions()?)? {
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
