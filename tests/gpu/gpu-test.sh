#!/usr/bin/env bash
# One command for the whole GPU suite: prepare the bundle here, then run it on this machine.
# Without a Hopper GPU, driver, nvcc or Cython the runner says what it skipped and exits 0.
# A run that happens writes tests/gpu/RESULTS.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$ROOT/tests/gpu/prepare.sh"
RESULTS_MD="$ROOT/tests/gpu/RESULTS.md" exec bash "$ROOT/target/gpu-bundle/run.sh"
