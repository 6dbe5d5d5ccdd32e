#!/usr/bin/env bash
# Everything one device call runs, from the repo root on the GPU host, after
# `cargo xtask gpu-test --prepare-only` here: the GPU suite (target/gpu-bundle/run.sh), then the
# call-overhead benchmark (tests/bench/call_overhead.sh) on the 13.x package the suite built,
# so nothing is compiled twice. Results go to $OUT (else target/gpu-bundle/device): RESULTS.md,
# call_overhead.md and .json, and the suite's logs and JSON in gpu-results.tar.gz (a device
# call brings back at most 8 files). Exits 1 when the suite or the benchmark failed.
#
#   bash tests/gpu/on-device.sh              # ROUNDS=6 rounds of the benchmark by default
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUNDLE=$ROOT/target/gpu-bundle
RESULTS=${OUT:-$BUNDLE/device}
mkdir -p "$RESULTS"
[ -f "$BUNDLE/MANIFEST" ] || { echo "no GPU bundle: run cargo xtask gpu-test --prepare-only first" >&2; exit 1; }
# shellcheck source=/dev/null
. "$BUNDLE/MANIFEST"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-device.XXXXXX")

started=$(date +%s)
WORK=$work/build OUT=$work/suite bash "$BUNDLE/run.sh"
suite=$?
echo "GPU suite: exit $suite after $(( $(date +%s) - started )) s"
cp "$work/suite/RESULTS.md" "$RESULTS/" 2>/dev/null
tar -czf "$RESULTS/gpu-results.tar.gz" -C "$work" suite

started=$(date +%s)
OUT=$RESULTS bash "$ROOT/tests/bench/call_overhead.sh" "$work/build/pkg-$CTK_13" "${ROUNDS:-6}" \
    | tee "$RESULTS/call_overhead.md"
bench=${PIPESTATUS[0]}
echo "call overhead: exit $bench after $(( $(date +%s) - started )) s"
[ "$suite" = 0 ] && [ "$bench" = 0 ]
