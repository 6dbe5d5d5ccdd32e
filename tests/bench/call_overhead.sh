#!/usr/bin/env bash
# Builds the C floor (floor.c), the Python floor (python_floor.c) and the empty kernel, then runs
# call_overhead.py against a built package of the generated bindings (the GPU suite's build, for
# example) and cuda.bindings in one process. Needs a GPU, nvcc, gcc and cuda-bindings.
#
#   tests/bench/call_overhead.sh PACKAGE_DIR [ROUNDS]     # JSON to $OUT/call_overhead.json if OUT is set
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package=$1
rounds=${2:-6}
include=${CUDA_HOME:-/usr/local/cuda}/include
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-call.XXXXXX")
nvcc -arch=sm_90 -cubin -o "$work/empty.cubin" "$here/empty_kernel.cu"
gcc -O2 -std=c11 -I "$include" -o "$work/floor" "$here/floor.c" -ldl
mkdir "$work/pyfloor"
# shellcheck disable=SC2046
gcc -O2 -shared -fPIC $(python3-config --includes) -I "$include" "$here/python_floor.c" \
    -o "$work/pyfloor/callfloor$(python3-config --extension-suffix)" -ldl
python3 "$here/call_overhead.py" --package-dir "$package" --cubin "$work/empty.cubin" --floor "$work/floor" \
    --python-floor "$work/pyfloor" --rounds "$rounds" ${OUT:+--json "$OUT/call_overhead.json"}
