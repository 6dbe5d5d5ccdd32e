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
exit "$failed"
