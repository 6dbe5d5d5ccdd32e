#!/usr/bin/env bash
# On the GPU host: the cuda.core and numba-cuda installed there run the programs of
# python/client_programs.py twice, (a) on the installed official cuda.bindings and (b) on ours,
# generated as cuda.bindings, as the only cuda.bindings; then a subset of numba-cuda's own tests on
# both sides. The results are compared and written to $RESULTS/clients.md; the exit status is 1
# when ours failed or gave other results. tests/gpu/prepare.sh (through prepare_clients.sh)
# copies this script, its two Python files and a numpy wheel into target/gpu-bundle/clients/.
#
#   bash target/gpu-bundle/clients/clients.sh              # builds ours from the bundle's source
#   BUILT=DIR bash target/gpu-bundle/clients/clients.sh    # DIR: ours already built in place
#   CLIENT_TESTS=0 ...   the programs only;   CLIENT_TEST_MODULES="numba.cuda.tests..." other modules
#
# (b) runs in an environment of its own (python/clients_env.py isolate): a pyvenv.cfg over the
# same interpreter whose site-packages links everything the system's has but cuda/bindings and
# cuda_bindings-*.dist-info, with a dist-info of ours; our package folder is first on PYTHONPATH.
# Unlike `python -S`, the site-packages' .pth files still run there (numba-cuda redirects
# numba.cuda through one), also in the worker processes numba's test runner spawns.
# numba-cuda refuses a numpy newer than it knows: where importing its array support (numba.cuda.np.arrayobj, which names np.row_stack) fails, the carried numpy wheel
# is installed into the work folder and put first on both sides (filecheck likewise, where absent).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=$HERE
[ -f "$PY/client_programs.py" ] || PY=$HERE/python  # run from the repository rather than the bundle
SOURCE=${PACKAGE_SRC:-$HERE/../pkgs/as-cuda-bindings}
WHEELS=${CLIENT_WHEELS:-$HERE/wheels}
RESULTS=${RESULTS:-${OUT:-$PWD/clients-results}}
MODULES=${CLIENT_TEST_MODULES:-"numba.cuda.tests.cudapy.test_array_args numba.cuda.tests.cudapy.test_atomics
numba.cuda.tests.cudapy.test_sm numba.cuda.tests.cudapy.test_sync numba.cuda.tests.cudapy.test_stream_api
numba.cuda.tests.cudapy.test_reduction numba.cuda.tests.cudadrv.test_events numba.cuda.tests.cudadrv.test_streams
numba.cuda.tests.cudadrv.test_linker numba.cuda.tests.cudadrv.test_nvjitlink numba.cuda.tests.cudadrv.test_cuda_memory
numba.cuda.tests.cudadrv.test_cuda_driver numba.cuda.tests.cudadrv.test_nvvm_driver numba.cuda.tests.cudadrv.test_nvrtc
numba.cuda.tests.cudadrv.test_context_stack numba.cuda.tests.cudadrv.test_host_alloc numba.cuda.tests.cudapy.test_matmul
numba.cuda.tests.cudapy.test_laplace numba.cuda.tests.cudapy.test_device_func"}
mkdir -p "$RESULTS"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-clients.XXXXXX")
echo "clients: work folder $work"
started=$(date +%s)

finish() {  # a report without comparison: why nothing ran
    printf '# cuda.core and numba-cuda on the official cuda.bindings and on ours\n\n%s\n' "$2" >"$RESULTS/clients.md"
    echo "clients: $2"
    exit "$1"
}
{ command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } || finish 0 "skipped: no NVIDIA GPU here"
python3 -c 'import cuda.bindings, cuda.core, numba_cuda' >"$work/clients-import.log" 2>&1 ||
    finish 0 "skipped: python3 here lacks cuda-bindings, cuda-core or numba-cuda: $(tail -1 "$work/clients-import.log")"

# Ours, generated as cuda.bindings: the folder on-device.sh built, else built here.
if [ -n "${BUILT:-}" ] && compgen -G "$BUILT/cuda/bindings/_base*.so" >/dev/null; then
    ours=$BUILT
else
    ours=$work/package
    cp -r "$SOURCE" "$ours" || finish 1 "FAILED: no package source at $SOURCE"
    (cd "$ours" && env -u CUDA_HOME python3 setup.py build_ext --inplace -j "$(nproc)") >"$work/build.log" 2>&1 ||
        finish 1 "FAILED: building ours failed: $(tail -5 "$work/build.log")"
fi

# What the host may lack, from the carried wheels, first on the path on both sides: numpy where
# numba refuses the installed one, filecheck (numba-cuda's test modules import it).
extra=""
carried() {  # name: installs the carried wheel of that name into the work folder ($wheel: its file)
    wheel=$(ls "$WHEELS/$1"-*.whl 2>/dev/null | head -1)
    [ -n "$wheel" ] && python3 -m pip install -q --no-deps --no-index --no-compile --target "$work/$1" "$wheel" \
        >>"$work/carried.log" 2>&1 && extra=${extra:+$extra:}$work/$1
}
numpy_note="numba-cuda imports with the installed numpy $(python3 -c 'import numpy; print(numpy.__version__)' 2>&1)"
if ! python3 -c 'import numba.cuda.np.arrayobj' >"$work/numba-import.log" 2>&1; then
    refused=$(grep -v '^ ' "$work/numba-import.log" | tail -1)
    if carried numpy; then
        numpy_note="numba-cuda refused the installed numpy ($refused); $(basename "$wheel") goes first on both sides"
    else
        numpy_note="numba does not import ($refused) and no numpy wheel could be installed from $WHEELS"
    fi
fi
filecheck_note="filecheck installed"
if ! python3 -c 'import filecheck' 2>/dev/null; then
    if carried filecheck; then
        filecheck_note="filecheck from $(basename "$wheel")"
    else
        filecheck_note="no filecheck (numba-cuda's test modules will not import)"
    fi
fi

iso=$(python3 "$PY/clients_env.py" isolate --package "$ours" --venv "$work/isolated" 2>"$work/isolate.log") ||
    finish 1 "FAILED: the isolated environment: $(tail -5 "$work/isolate.log")"

{
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
    echo "python3: $(command -v python3), $(python3 -c 'import sys; print(sys.version.split()[0])')"
    python3 -m pip list 2>/dev/null | grep -i -E '^(cuda-core|cuda-bindings|cuda-pathfinder|numba|numba-cuda|llvmlite|numpy|nvidia-nvjitlink|nvidia-nvvm|nvidia-cuda-nvrtc) '
    echo "numpy: $numpy_note; $filecheck_note"
    echo "ours: $ours (first on PYTHONPATH), run by $iso; $(tail -1 "$work/isolate.log")"
} >"$work/host.txt"
cat "$work/host.txt"

run_side() {  # side, interpreter, PYTHONPATH, the folder cuda.bindings must come from (or "")
    local dir=$work/run-$1
    mkdir -p "$dir"
    for program in core numba; do
        (cd "$dir" && PYTHONPATH=$3 timeout "${CLIENT_PROGRAM_TIMEOUT:-300}" "$2" "$PY/client_programs.py" "$program" \
            ${4:+--expect-bindings "$4"} --json "$dir/$program.json") >"$dir/$program.log" 2>&1
        echo $? >"$dir/$program.status"
        echo "clients: $1 $program: exit $(cat "$dir/$program.status") after $(( $(date +%s) - started )) s"
    done
    if [ "${CLIENT_TESTS:-1}" = 1 ]; then
        # shellcheck disable=SC2086 (one module a word)
        (cd "$dir" && PYTHONPATH=$3 timeout "${CLIENT_TESTS_TIMEOUT:-240}" "$2" -m numba.runtests \
            -m "${CLIENT_TEST_JOBS:-8}" $MODULES) >"$dir/tests.log" 2>&1
        echo $? >"$dir/tests.status"
        echo "clients: $1 numba-cuda tests: exit $(cat "$dir/tests.status") after $(( $(date +%s) - started )) s"
    fi
}
run_side official python3 "$extra" ""
run_side ours "$iso" "$ours${extra:+:$extra}" "$ours"

python3 "$PY/clients_env.py" report --official "$work/run-official" --ours "$work/run-ours" --out "$RESULTS/clients.md" \
    --modules "$(echo $MODULES | tr ' ' ',')" --host "$work/host.txt"
status=$?
cat "$RESULTS/clients.md"
echo "clients: $( [ $status = 0 ] && echo 'same results' || echo 'ours FAILED or DIFFERS') after $(( $(date +%s) - started )) s"
exit $status
