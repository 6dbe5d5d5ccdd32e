#!/usr/bin/env bash
# `cargo xtask bench` on a Linux host without a Rust toolchain (the GPU host, for its core count).
#
#   bash tests/bench/generator_elsewhere.sh pack     # here: target/generator-bench.tar.xz
#   bash tests/bench/generator_elsewhere.sh run [N]  # there, in a copy of this tree: N runs (9)
#
# The bundle holds the release binary, the pinned libclang, every catalogued CTK's headers and
# bindgen, as `bench` finds them in the cache. The binary locates the workspace by the path it
# was built in, so `run` links that path to this tree when they differ.
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=target/generator-bench.tar.xz

case "${1:-}" in
pack)
    cargo build --release --package xtask
    cargo run --release --package xtask -- headers fetch --all
    # bench installs bindgen into the cache on its first full run.
    test -x .ctkgen-cache/bindgen-0.73.2/bin/bindgen || cargo run --release --package xtask -- bench --runs 1
    echo "$PWD" >target/generator-bench.root
    tar -cf - target/release/xtask target/generator-bench.root .ctkgen-cache/libclang .ctkgen-cache/ctk \
        .ctkgen-cache/bindgen-0.73.2/bin | xz -T0 -6 >"$bundle"
    ls -l "$bundle"
    ;;
run)
    tar -xJf "$bundle"
    built_in=$(cat target/generator-bench.root)
    if [ "$(realpath "$built_in" 2>/dev/null || true)" != "$(realpath "$PWD")" ]; then
        mkdir -p "$(dirname "$built_in")"
        ln -sfn "$PWD" "$built_in"
    fi
    target/release/xtask bench --runs "${2:-9}"
    ;;
*)
    echo "usage: $0 pack | run [RUNS]" >&2
    exit 2
    ;;
esac
