#!/usr/bin/env bash
# The GPU suite's runner, run from inside the bundle that tests/gpu/prepare.sh assembles
# (target/gpu-bundle/): builds the generated Cython packages and the TMA kernels, then runs the
# Python tests (one CTK 13.x and one 12.x package) and the Rust test binary (built for each of
# the two CTKs), and writes
# RESULTS.md. Needs an NVIDIA GPU of compute capability >= 9.0 with its driver, nvcc, and a
# python3 with Cython and numpy; where any is missing it says what it skipped and exits 0.
#
#   bash target/gpu-bundle/run.sh            # results under $OUT, else target/gpu-bundle/results
#   JOBS=16 RESULTS_MD=tests/gpu/RESULTS.md bash target/gpu-bundle/run.sh
set -uo pipefail
BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RESULTS=${OUT:-$BUNDLE/results}
JOBS=${JOBS:-$(nproc)}
PYTHON=${PYTHON:-python3}
mkdir -p "$RESULTS"
LOG=$RESULTS/run.log
: >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }

# --- prerequisites: report each missing one and skip without failing -------------------------
missing=()
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    missing+=("no NVIDIA GPU or driver (nvidia-smi -L failed)")
else
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | head -1 | tr -d ' ')
    if [ -z "$cc" ] || [ "${cc%%.*}" -lt 9 ]; then
        missing+=("GPU 0 has compute capability '${cc:-unknown}', TMA needs 9.0 or later")
    fi
fi
command -v nvcc >/dev/null 2>&1 || missing+=("nvcc not on PATH")
"$PYTHON" -c 'import Cython, numpy, setuptools' >/dev/null 2>&1 \
    || missing+=("$PYTHON lacks Cython, numpy or setuptools")
[ -f "$BUNDLE/MANIFEST" ] || missing+=("$BUNDLE is not a prepared bundle (run tests/gpu/prepare.sh)")
if [ ${#missing[@]} -gt 0 ]; then
    for reason in "${missing[@]}"; do say "SKIPPED GPU suite: $reason"; done
    say "GPU suite not run; nothing failed."
    exit 0
fi

# shellcheck source=/dev/null
. "$BUNDLE/MANIFEST"   # CTK_13, CTK_12: the package folders under pkgs/; FEATURE_13, FEATURE_12
# WORK may name the folder to build in (tests/gpu/on-device.sh reuses the built package).
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-gpu.XXXXXX")}
mkdir -p "$WORK"
say "GPU suite: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader -i 0)"
say "work folder $WORK, $JOBS jobs"

# --- build: both Cython packages and both kernel variants at once -----------------------------
# The packages must compile against the cuda.h they were generated from (./include), never a
# toolkit's: CUDA_HOME would redirect setup.py.
build_package() {  # label
    cp -r "$BUNDLE/pkgs/$1" "$WORK/pkg-$1"
    (cd "$WORK/pkg-$1" && env -u CUDA_HOME CTKGEN_BUILD_JOBS="$JOBS" \
        "$PYTHON" setup.py build_ext --inplace -j "$JOBS") >"$WORK/build-$1.log" 2>&1
}
build_kernels() {  # label
    local include=$BUNDLE/pkgs/$1/include version
    version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$include/cuda.h")
    nvcc -arch=sm_90 -cubin -I "$include" -DEXPECTED_CUDA_VERSION="$version" \
        -o "$WORK/tma_kernels-$1.cubin" "$BUNDLE/kernels/tma_kernels.cu" >"$WORK/nvcc-$1.log" 2>&1
}
started=$(date +%s)
pids=()
for label in "$CTK_13" "$CTK_12"; do
    build_package "$label" & pids+=("$!:package $label")
    build_kernels "$label" & pids+=("$!:kernels $label")
done
build_failed=0
for entry in "${pids[@]}"; do
    if ! wait "${entry%%:*}"; then say "BUILD FAILED: ${entry#*:}"; build_failed=1; fi
done
say "builds done in $(( $(date +%s) - started )) s"
cat "$WORK"/build-*.log "$WORK"/nvcc-*.log >"$RESULTS/build.log" 2>/dev/null
if [ "$build_failed" = 1 ]; then
    tail -n 30 "$WORK"/nvcc-*.log "$WORK"/build-*.log | tee -a "$LOG"
fi

# --- tests ------------------------------------------------------------------------------------
align_of() {  # the alignment the header gives CUtensorMap: 128 from 13.0 on, 64 before
    case "$1" in 12.*) echo 64 ;; *) echo 128 ;; esac
}
# Libraries a package may not find on this host as it names them (the 12.x runtime), from the bundle.
export CTKGEN_GPU_LIBS="$BUNDLE/lib"
for label in "$CTK_13" "$CTK_12"; do
    "$PYTHON" "$BUNDLE/python/run_suite.py" --package-dir "$WORK/pkg-$label" \
        --cubin "$WORK/tma_kernels-$label.cubin" --map-align "$(align_of "$label")" --label "python $label" \
        --json "$WORK/python-$label.json" --log "$WORK/python-$label.log" --jobs 6 2>&1 | tee -a "$LOG" &
done
# The Rust program, built once per toolkit with the crate's feature for it.
for label in "$CTK_13" "$CTK_12"; do
    "$BUNDLE/bin/tma-rust-tests-$label" --cubin "$WORK/tma_kernels-$label.cubin" \
        --map-align "$(align_of "$label")" --json "$WORK/rust-$label.json" 2>&1 \
        | sed "s/^/rust $label: /" | tee -a "$LOG"
done
wait
cat "$WORK"/python-*.log >"$RESULTS/tests.log" 2>/dev/null
# Each Rust run is labelled with the CTK and the feature its binary was built with.
"$PYTHON" - "$WORK/rust-$CTK_13.json" "$CTK_13" "${FEATURE_13:-}" "$WORK/rust-$CTK_12.json" "$CTK_12" "${FEATURE_12:-}" <<'PY'
import json, sys
args = sys.argv[1:]
for path, ctk, feature in zip(args[0::3], args[1::3], args[2::3]):
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        continue
    data["label"] = f"rust {ctk} (cuda-driver-sys, feature {feature})"
    json.dump(data, open(path, "w"), indent=1)
PY

# --- report -----------------------------------------------------------------------------------
"$PYTHON" - "$WORK/env.json" "$PYTHON" <<'PY'
import datetime, json, subprocess, sys
def out(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"unavailable ({error})"
import Cython
gpu = out(["nvidia-smi", "--query-gpu=name,memory.total,compute_cap", "--format=csv,noheader", "-i", "0"])
env = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "gpu": gpu,
    "driver": out(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"]),
    "nvcc": out(["nvcc", "--version"]).splitlines()[-1],
    "python": sys.version.split()[0],
    "cython": Cython.__version__,
}
json.dump(env, open(sys.argv[1], "w"))
PY
"$PYTHON" "$BUNDLE/report.py" --out "$RESULTS/RESULTS.md" --env "$WORK/env.json" \
    "$WORK/python-$CTK_13.json" "$WORK/python-$CTK_12.json" "$WORK/rust-$CTK_13.json" "$WORK/rust-$CTK_12.json" \
    | tee -a "$LOG"
status=${PIPESTATUS[0]}
cp "$WORK"/python-*.json "$WORK"/rust-*.json "$RESULTS/" 2>/dev/null
if [ -n "${RESULTS_MD:-}" ]; then cp "$RESULTS/RESULTS.md" "$RESULTS_MD"; fi
[ "$build_failed" = 1 ] && status=1
say "RESULTS.md: $RESULTS/RESULTS.md"
exit "$status"
