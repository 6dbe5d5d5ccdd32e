#!/usr/bin/env bash
# Builds gpu/smoke.rs against the crate generated from an IR file and copies the binary to OUT.
# usage: gpu/run.sh IR.json OUT_BINARY   (run from the workspace root)
set -euo pipefail
ir=$1 out=$2
work=$(mktemp -d)
cargo run -q -p ctkgen-rust --example emit_ir -- "$ir" "$work/sys"
mkdir -p "$work/smoke/src"
cp crates/ctkgen-rust/gpu/smoke.rs "$work/smoke/src/main.rs"
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
