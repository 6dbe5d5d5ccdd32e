#!/usr/bin/env bash
# Everything one device call runs, from the repo root on the GPU host, after
# `cargo xtask gpu-test --prepare-only` here: the GPU suite (target/gpu-bundle/run.sh), then the
# call-overhead benchmark (tests/bench/call_overhead.sh) on the 13.x package the suite built,
# so nothing is compiled twice. Results go to $OUT (else target/gpu-bundle/device): RESULTS.md,
# the suite's logs and JSON in gpu-results.tar.gz, and call_overhead-N.md and .json per run of
# the benchmark (a device call brings back at most 8 files). Exits 1 when anything failed.
#
#   bash tests/gpu/on-device.sh                 # the suite, then one run of the benchmark
#   SUITE=0 BENCH_RUNS=3 ROUNDS=6 bash tests/gpu/on-device.sh   # only build, then 3 runs
#   BENCH_RUNS=0 RUNTIME_RUNS=2 bash tests/gpu/on-device.sh    # the suite, the runtime rows twice
#   CLIENT_PACKAGES=DIR ...   the clients on each CTK's wheel of ours that
#       tests/gpu/prepare_client_packages.sh left in DIR, beside that CTK's official wheel and
#       libraries where carried (clients-<ctk>.md), alongside the suite; CLIENT_SUITES etc. pass on
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUNDLE=$ROOT/target/gpu-bundle
RESULTS=${OUT:-$BUNDLE/device}
mkdir -p "$RESULTS"
[ -f "$BUNDLE/MANIFEST" ] || { echo "no GPU bundle: run cargo xtask gpu-test --prepare-only first" >&2; exit 1; }
# shellcheck source=/dev/null
. "$BUNDLE/MANIFEST"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-device.XXXXXX")
package=$work/build/pkg-$CTK_13
failed=0

# The clients on prepared wheels need nothing the suite builds: they run alongside it.
clients_job=""
if [ -n "${CLIENT_PACKAGES:-}" ]; then
    (
        status=0
        for wheel_dir in "$CLIENT_PACKAGES"/ours-*; do
            ctk=${wheel_dir##*/ours-}
            official=$(ls "$CLIENT_PACKAGES/official-$ctk"/*.whl 2>/dev/null | head -1)
            libs=$CLIENT_PACKAGES/libs-$ctk
            LABEL=$ctk OURS_WHEEL=$(ls "$wheel_dir"/*.whl | head -1) OFFICIAL_WHEEL=$official \
                CLIENT_LIBS=$([ -d "$libs" ] && echo "$libs") RESULTS=$RESULTS \
                bash "$BUNDLE/clients/clients.sh" >"$work/clients-$ctk.log" 2>&1 || status=1
            echo "clients $ctk: $(tail -1 "$work/clients-$ctk.log")"
        done
        exit $status
    ) &
    clients_job=$!
fi

if [ "${SUITE:-1}" = 1 ]; then
    started=$(date +%s)
    WORK=$work/build OUT=$work/suite bash "$BUNDLE/run.sh" || failed=1
    echo "GPU suite: $( [ $failed = 0 ] && echo passed || echo FAILED ) after $(( $(date +%s) - started )) s"
    cp "$work/suite/RESULTS.md" "$RESULTS/" 2>/dev/null
    tar -czf "$RESULTS/gpu-results.tar.gz" -C "$work" suite
    source=$package
else
    # The benchmark builds the bundle's package into $package on its first run.
    source=$BUNDLE/pkgs/$CTK_13
fi

for run in $(seq 1 "${BENCH_RUNS:-1}"); do
    mkdir -p "$work/bench-$run"
    OUT=$work/bench-$run BUILD_DIR=$package bash "$ROOT/tests/bench/call_overhead.sh" "$source" "${ROUNDS:-6}" \
        | tee "$RESULTS/call_overhead-$run.md"
    [ "${PIPESTATUS[0]}" = 0 ] || failed=1
    cp "$work/bench-$run/call_overhead.json" "$RESULTS/call_overhead-$run.json" 2>/dev/null
done
# The runtime rows of the benchmark: the same method, on the runtime module the suite built.
if [ "${SUITE:-1}" = 1 ] && [ "${RUNTIME_BENCH:-1}" = 1 ]; then
    rt=$work/rtfloor
    mkdir -p "$rt"
    include=${CUDA_HOME:-/usr/local/cuda}/include
    # shellcheck disable=SC2046
    gcc -O2 -shared -fPIC $(python3-config --includes) -I "$include" "$ROOT/tests/bench/runtime_floor.c" \
        -o "$rt/rtfloor$(python3-config --extension-suffix)" -ldl &&
        nvcc -arch=sm_90 -cubin -o "$rt/empty.cubin" "$ROOT/tests/bench/empty_kernel.cu" || failed=1
    for run in $(seq 1 "${RUNTIME_RUNS:-1}"); do
        python3 "$ROOT/tests/bench/runtime_overhead.py" --package-dir "$package" --cubin "$rt/empty.cubin" \
            --floor-dir "$rt" --rounds "${ROUNDS:-6}" --json "$RESULTS/runtime_overhead-$run.json" \
            | tee "$RESULTS/runtime_overhead-$run.md"
        [ "${PIPESTATUS[0]}" = 0 ] || failed=1
    done
fi

# The README's family program, written for cuda.bindings: on ours (generated as cuda.bindings,
# first on the path) and on the official package installed here, on the real driver.
if [ "${FAMILY:-1}" = 1 ] && [ -d "$BUNDLE/pkgs/as-cuda-bindings" ]; then
    cb=$work/as-cuda-bindings
    cp -r "$BUNDLE/pkgs/as-cuda-bindings" "$cb"
    (cd "$cb" && env -u CUDA_HOME python3 setup.py build_ext --inplace -j "$(nproc)") >"$work/cb-build.log" 2>&1 \
        || { tail -20 "$work/cb-build.log"; failed=1; }
    {
        echo "# The README's family program on the H200"
        for side in ours official; do
            path=$([ $side = ours ] && echo "$cb" || echo "")
            echo
            echo "## $side"
            echo '```'
            PYTHONPATH=$path python3 -c 'import cuda.bindings, cuda.bindings.driver as d; print("cuda.bindings from", cuda.bindings.__file__)'
            PYTHONPATH=$path python3 "$BUNDLE/python/family_program.py" 2>&1 || { echo "exit status $?"; [ $side = ours ] && failed=1; }
            echo '```'
        done
    } >"$RESULTS/family_program.md" 2>&1
    cat "$RESULTS/family_program.md"
    # Size of the compiled modules (no debug information by default) beside the installed package's.
    official_dir=$(python3 -c 'import cuda.bindings, os; print(os.path.dirname(cuda.bindings.__file__))' 2>/dev/null)
    {
        echo "extension modules: ours $(find "$cb/cuda/bindings" -name '*.so' | wc -l) files, $(find "$cb/cuda/bindings" -name '*.so' -print0 | du -cb --files0-from=- | tail -1 | cut -f1) bytes;"
        echo "official $(find "$official_dir" -name '*.so' | wc -l) files, $(find "$official_dir" -name '*.so' -print0 | du -cb --files0-from=- | tail -1 | cut -f1) bytes ($official_dir)"
    } | tee "$RESULTS/module_sizes.txt"
    # Import time of every public module of ours against the same modules of the installed package,
    # each as pip leaves it: its Python modules compiled to bytecode (pip install does that; an
    # in-place build does not, and the host may forbid writing bytecode on import).
    python3 -m compileall -q "$cb/cuda/bindings" >/dev/null || failed=1
    modules=$(cd "$cb/cuda/bindings" && ls -- *.py | grep -v '^_' | sed 's/\.py$//' | paste -sd, -)
    python3 "$ROOT/tests/bench/import_time.py" --ours "$cb" --modules "$modules" --rounds "${IMPORT_ROUNDS:-15}" \
        --json "$RESULTS/import_time.json" | tee "$RESULTS/import_time.md" || failed=1
    # Where each side's import goes (tests/bench/import_breakdown.py), both sides in this run.
    for side in ours official; do
        python3 "$ROOT/tests/bench/import_breakdown.py" --path "$([ $side = ours ] && echo "$cb")" --modules "$modules" \
            --rounds "${IMPORT_ROUNDS:-15}" --top 12
    done >"$RESULTS/import_breakdown.md" 2>&1 || failed=1
    cat "$RESULTS/import_breakdown.md"
fi
if [ -n "$clients_job" ]; then
    wait "$clients_job" || failed=1
elif [ "${CLIENTS:-1}" = 1 ]; then
    BUILT=${cb:-} RESULTS=$RESULTS bash "$BUNDLE/clients/clients.sh" || failed=1  # cuda.core, numba-cuda
fi
exit "$failed"
