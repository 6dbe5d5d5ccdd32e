#!/usr/bin/env bash
# Builds the C floor (floor.c), the Python floor (python_floor.c) and the empty kernel, then runs
# call_overhead.py against the generated package and cuda.bindings in one process. Needs a GPU,
# nvcc, gcc, Cython and cuda-bindings.
#
#   tests/bench/call_overhead.sh [PACKAGE_DIR [ROUNDS]]    # JSON to $OUT/call_overhead.json if OUT is set
#   BUILD_DIR=/tmp/pkg tests/bench/call_overhead.sh ...   # build an unbuilt package there, once
#
# PACKAGE_DIR is a generated Python package (default: the 13.1 package of the GPU bundle that
# `cargo xtask gpu-test --prepare-only` assembles); it is built here unless it already is.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package=${1:-$here/../../target/gpu-bundle/pkgs/13.1}
rounds=${2:-6}
include=${CUDA_HOME:-/usr/local/cuda}/include
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-call.XXXXXX")
if ! compgen -G "$package/*/_base*.so" >/dev/null; then
    # Built in a copy, against the cuda.h it was generated from (./include), never a toolkit's;
    # BUILD_DIR names the copy's folder, which a later run then finds built and reuses.
    build=${BUILD_DIR:-$work/pkg}
    if ! compgen -G "$build/*/_base*.so" >/dev/null; then
        rm -rf "$build" && mkdir -p "$(dirname "$build")" && cp -r "$package" "$build"
        (cd "$build" && env -u CUDA_HOME python3 setup.py build_ext --inplace -j "$(nproc)") >"$work/build.log" 2>&1 \
            || { tail -20 "$work/build.log"; exit 1; }
    fi
    package=$build
fi
nvcc -arch=sm_90 -cubin -o "$work/empty.cubin" "$here/empty_kernel.cu"
gcc -O2 -std=c11 -I "$include" -o "$work/floor" "$here/floor.c" -ldl
mkdir "$work/pyfloor"
# shellcheck disable=SC2046
gcc -O2 -shared -fPIC $(python3-config --includes) -I "$include" "$here/python_floor.c" \
    -o "$work/pyfloor/callfloor$(python3-config --extension-suffix)" -ldl
python3 "$here/call_overhead.py" --package-dir "$package" --cubin "$work/empty.cubin" --floor "$work/floor" \
    --python-floor "$work/pyfloor" --rounds "$rounds" ${OUT:+--json "$OUT/call_overhead.json"}
