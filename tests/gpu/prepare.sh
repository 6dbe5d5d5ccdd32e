#!/usr/bin/env bash
# Prepares the GPU suite on a machine with Rust (no GPU needed): generates the Python packages
# for one CTK 13.x and one 12.x, builds the Rust test binary over the generated 13.x crate, and
# puts everything the GPU host needs into one ignored folder, target/gpu-bundle/ (< 64 MiB).
#
#   tests/gpu/prepare.sh                        # CTKs 13.1 and 12.9
#   CTK_13=13.0 CTK_12=12.8 tests/gpu/prepare.sh
#   CTKGEN_XTASK=target/debug/xtask tests/gpu/prepare.sh   # an already built xtask binary
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
CTK_13=${CTK_13:-13.1}
CTK_12=${CTK_12:-12.9}
# Unquoted on use: "cargo xtask" is two words.
XTASK=${CTKGEN_XTASK:-cargo xtask}
GEN=target/gpu-gen
BUNDLE=target/gpu-bundle
LIMIT_BYTES=$((64 * 1024 * 1024))

# The Rust program's Cargo.toml names $GEN/13.1/rust/cuda-driver-sys; another 13.x is generated there too.
$XTASK generate --ctk "$CTK_13" --lang all --out "$GEN/13.1"
$XTASK generate --ctk "$CTK_12" --lang cython --out "$GEN/12.9"
cargo build --release --offline --manifest-path tests/gpu/rust/Cargo.toml --target-dir target/gpu-rust

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/pkgs" "$BUNDLE/bin" "$BUNDLE/kernels" "$BUNDLE/python"
cp -r "$GEN/13.1/python" "$BUNDLE/pkgs/$CTK_13"
cp -r "$GEN/12.9/python" "$BUNDLE/pkgs/$CTK_12"
cp target/gpu-rust/release/tma-rust-tests "$BUNDLE/bin/"
cp tests/gpu/run.sh tests/gpu/report.py "$BUNDLE/"
cp tests/gpu/kernels/tma_kernels.cu "$BUNDLE/kernels/"
cp tests/gpu/python/tma_suite.py tests/gpu/python/run_suite.py "$BUNDLE/python/"
printf 'CTK_13=%s\nCTK_12=%s\n' "$CTK_13" "$CTK_12" >"$BUNDLE/MANIFEST"

size=$(du -sb "$BUNDLE" | cut -f1)
if [ "$size" -ge "$LIMIT_BYTES" ]; then
    echo "bundle is $size bytes, over the 64 MiB a device call carries" >&2
    exit 1
fi
echo "bundle ready: $BUNDLE ($((size / 1024)) KiB; CTKs $CTK_13 and $CTK_12)"
