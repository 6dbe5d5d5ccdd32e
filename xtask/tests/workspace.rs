//! The workspace builds without cargo's warnings about itself: no two packages put a binary or
//! an example of the same name in one output folder (`cargo build --workspace --all-targets`
//! warns of a filename collision, which cargo says may become an error).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[test]
fn no_two_packages_build_a_binary_or_example_of_the_same_name() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // (kind, output name) -> the packages whose targets have it.
    let mut owners: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for package in metadata["packages"].as_array().unwrap() {
        for target in package["targets"].as_array().unwrap() {
            for kind in target["kind"].as_array().unwrap().iter().filter_map(|k| k.as_str()) {
                if kind == "bin" || kind == "example" {
                    let name = target["name"].as_str().unwrap().to_string();
                    owners.entry((kind.into(), name)).or_default().push(package["name"].as_str().unwrap().into());
                }
            }
        }
    }
    assert!(owners.keys().any(|(kind, _)| kind == "example"), "the workspace's examples are listed: {owners:?}");
    let shared: Vec<_> = owners.iter().filter(|(_, packages)| packages.len() > 1).collect();
    assert!(shared.is_empty(), "targets of one name in several packages: {shared:?}");
}
