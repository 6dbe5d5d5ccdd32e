#!/usr/bin/env bash
# Builds a GPU check program (default gpu/smoke.rs) against the crate generated from an IR file
# and copies the binary to OUT; run it on a machine with a driver.
# usage: crates/ctkgen-rust/gpu/run.sh IR.json [SOURCE.rs] OUT_BINARY   (from the workspace root)
set -euo pipefail
ir=$1
if [ $# -eq 3 ]; then source=$2 out=$3; else source=crates/ctkgen-rust/gpu/smoke.rs out=$2; fi
work=$(mktemp -d)
cargo run -q -p ctkgen-rust --example emit_crate -- "$ir" "$work/sys"
mkdir -p "$work/smoke/src"
cp "$source" "$work/smoke/src/main.rs"
cat > "$work/smoke/Cargo.toml" <<TOML
[package]
name = "smoke"
version = "0.0.0"
edition = "2021"
[dependencies]
cuda-driver-sys = { path = "../sys" }
[workspace]
TOML
CARGO_TARGET_DIR=${CTKGEN_RUST_GEN_TARGET:-/tmp/ctkgen-rust-gen-target} cargo build -q --release --manifest-path "$work/smoke/Cargo.toml"
cp "${CTKGEN_RUST_GEN_TARGET:-/tmp/ctkgen-rust-gen-target}/release/smoke" "$out"
rm -rf "$work"
