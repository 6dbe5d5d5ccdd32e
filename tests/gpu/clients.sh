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
#   OURS_WHEEL=FILE ...  ours from a wheel built elsewhere for this interpreter (nothing compiled here)
#   OFFICIAL_WHEEL=FILE ...  the official side from this wheel (another release than the installed
#                        one: the official package of the CTK ours is for), in an environment of its own
#   CLIENT_LIBS=DIR ...  libraries the host lacks (`*.so*`, `*.xz` unpacked), first on LD_LIBRARY_PATH on
#                        both sides: the 12.x NVRTC and runtime where the host has only 13.x ones
#   CLIENT_PROGRAMS=core ...  only these programs (default "core numba")
#   CLIENT_TESTS=0 ...   the programs only;   CLIENT_TEST_MODULES="numba.cuda.tests..." other modules
#   CLIENT_SUITES="cudapy=numba.cuda.tests.cudapy cudadrv=numba.cuda.tests.cudadrv"   suites by name,
#                        each run and reported on its own (default: one suite, `subset`, of the modules)
#                        CLIENT_TESTS_TIMEOUT_<name>=S: that suite's time limit (else CLIENT_TESTS_TIMEOUT, 240);
#                        NAME=pytest:DIR runs the pytest suite in DIR instead (cuda.core's tests, test input only)
#   CLIENT_EXTRA_WHEELS=DIR ...  every wheel in DIR installed (no dependencies) first on both sides' path
#   LABEL=12.9 ...       named in the report's heading and file name (clients-12.9.md)
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
SUITES=${CLIENT_SUITES:-"subset=$(echo $MODULES | tr ' ' ',')"}
REPORT=$RESULTS/clients${LABEL:+-$LABEL}.md
mkdir -p "$RESULTS"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-clients.XXXXXX")
echo "clients: work folder $work"
started=$(date +%s)

finish() {  # a report without comparison: why nothing ran
    printf '# cuda.core and numba-cuda on the official cuda.bindings and on ours\n\n%s\n' "$2" >"$REPORT"
    echo "clients: $2"
    exit "$1"
}
{ command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } || finish 0 "skipped: no NVIDIA GPU here"
python3 -c 'import cuda.bindings, cuda.core, numba_cuda' >"$work/clients-import.log" 2>&1 ||
    finish 0 "skipped: python3 here lacks cuda-bindings, cuda-core or numba-cuda: $(tail -1 "$work/clients-import.log")"

unpack_wheel() {  # wheel, folder: the wheel's files as pip installs them, no dependencies
    python3 -m pip install -q --no-deps --no-index --no-compile --target "$2" "$1" >>"$work/carried.log" 2>&1
}
# Ours, generated as cuda.bindings: a wheel built elsewhere, the folder on-device.sh built, else built here.
if [ -n "${OURS_WHEEL:-}" ]; then
    ours=$work/ours-wheel
    unpack_wheel "$OURS_WHEEL" "$ours" || finish 1 "FAILED: unpacking $OURS_WHEEL: $(tail -3 "$work/carried.log")"
elif [ -n "${BUILT:-}" ] && compgen -G "$BUILT/cuda/bindings/_base*.so" >/dev/null; then
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
# What a pytest suite needs beyond the host's packages (its plugins and imports), on both sides.
extra_wheels_note=""
if [ -n "${CLIENT_EXTRA_WHEELS:-}" ] && compgen -G "$CLIENT_EXTRA_WHEELS/*.whl" >/dev/null; then
    python3 -m pip install -q --no-deps --no-index --no-compile --target "$work/extra-wheels" "$CLIENT_EXTRA_WHEELS"/*.whl \
        >>"$work/carried.log" 2>&1 || finish 1 "FAILED: installing $CLIENT_EXTRA_WHEELS: $(tail -3 "$work/carried.log")"
    extra=${extra:+$extra:}$work/extra-wheels
    extra_wheels_note="; on both sides: $(cd "$CLIENT_EXTRA_WHEELS" && ls *.whl | paste -sd' ')"
fi

iso=$(python3 "$PY/clients_env.py" isolate --package "$ours" --venv "$work/isolated" 2>"$work/isolate.log") ||
    finish 1 "FAILED: the isolated environment: $(tail -5 "$work/isolate.log")"
# The official side: as installed, or the carried wheel in an environment of its own built the same way.
official_py=python3 official_path=$extra official_dir=""
if [ -n "${OFFICIAL_WHEEL:-}" ]; then
    official_dir=$work/official-wheel
    unpack_wheel "$OFFICIAL_WHEEL" "$official_dir" || finish 1 "FAILED: unpacking $OFFICIAL_WHEEL: $(tail -3 "$work/carried.log")"
    official_py=$(python3 "$PY/clients_env.py" isolate --package "$official_dir" --venv "$work/isolated-official" \
        2>>"$work/isolate.log") || finish 1 "FAILED: the official side's environment: $(tail -5 "$work/isolate.log")"
    official_path=$official_dir${extra:+:$extra}
fi
libs_note="no libraries carried"
if [ -n "${CLIENT_LIBS:-}" ]; then
    mkdir -p "$work/libs"
    for lib in "$CLIENT_LIBS"/*; do
        case $lib in
            */standins.txt) ;;
            *.xz) xz -dc "$lib" >"$work/libs/$(basename "${lib%.xz}")" ;;
            *) cp "$lib" "$work/libs/" ;;
        esac
    done
    libs_note="first on LD_LIBRARY_PATH: $(cd "$work/libs" && ls | paste -sd' ')"
    # A library not carried: the host's one of its own major, under the name asked for.
    if [ -f "$CLIENT_LIBS/standins.txt" ]; then
        while IFS== read -r wanted host_name; do
            found=$( { ldconfig -p | awk -v n="$host_name" '$1 == n {print $NF}';
                       ls "${CUDA_HOME:-/usr/local/cuda}/lib64/$host_name" 2>/dev/null; } | head -1)
            if [ -n "$found" ]; then
                ln -sf "$found" "$work/libs/$wanted"
                libs_note="$libs_note; STAND-IN: $wanted is the host's $found"
            else
                libs_note="$libs_note; $wanted: neither carried nor a host $host_name to stand in"
            fi
        done <"$CLIENT_LIBS/standins.txt"
    fi
    export LD_LIBRARY_PATH=$work/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

{
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
    echo "python3: $(command -v python3), $(python3 -c 'import sys; print(sys.version.split()[0])')"
    python3 -m pip list 2>/dev/null | grep -i -E '^(cuda-core|cuda-bindings|cuda-pathfinder|numba|numba-cuda|llvmlite|numpy|nvidia-nvjitlink|nvidia-nvvm|nvidia-cuda-nvrtc) '
    echo "numpy: $numpy_note; $filecheck_note$extra_wheels_note"
    echo "ours: $ours (first on PYTHONPATH), run by $iso; $(grep "$work/isolated:" "$work/isolate.log")"
    echo "official: ${OFFICIAL_WHEEL:+$(basename "$OFFICIAL_WHEEL") in $official_dir, run by }$official_py"
    echo "libraries: $libs_note"
} >"$work/host.txt"
cat "$work/host.txt"

run_side() {  # side, interpreter, PYTHONPATH, the folder cuda.bindings must come from (or "")
    local dir=$work/run-$1
    mkdir -p "$dir"
    for program in ${CLIENT_PROGRAMS:-core numba}; do
        (cd "$dir" && PYTHONPATH=$3 timeout "${CLIENT_PROGRAM_TIMEOUT:-300}" "$2" "$PY/client_programs.py" "$program" \
            ${4:+--expect-bindings "$4"} --json "$dir/$program.json") >"$dir/$program.log" 2>&1
        echo $? >"$dir/$program.status"
        echo "clients: $1 $program: exit $(cat "$dir/$program.status") after $(( $(date +%s) - started )) s"
    done
    if [ "${CLIENT_TESTS:-1}" = 1 ]; then
        for entry in $SUITES; do
            local suite=${entry%%=*} modules=${entry#*=}
            local limit_var=CLIENT_TESTS_TIMEOUT_$suite
            local limit=${!limit_var:-${CLIENT_TESTS_TIMEOUT:-240}}
            if [ "${modules#pytest:}" != "$modules" ]; then
                # A pytest suite (cuda.core's): a copy per side, so neither writes beside the other;
                # outcomes per test from the JUnit XML.
                cp -r "${modules#pytest:}" "$dir/suite-$suite"
                (cd "$dir/suite-$suite" && PYTHONPATH=$3 timeout "$limit" "$2" -m pytest -p no:cacheprovider -p no:randomly --continue-on-collection-errors -q -rfE \
                    --junitxml="$dir/tests-$suite.xml" .) >"$dir/tests-$suite.log" 2>&1
            else
                # shellcheck disable=SC2046 (one module a word)
                (cd "$dir" && PYTHONPATH=$3 timeout "$limit" "$2" -m numba.runtests -v \
                    -m "${CLIENT_TEST_JOBS:-8}" $(echo "$modules" | tr ',' ' ')) >"$dir/tests-$suite.log" 2>&1
            fi
            echo $? >"$dir/tests-$suite.status"
            echo "clients: $1 tests $suite: exit $(cat "$dir/tests-$suite.status") after $(( $(date +%s) - started )) s"
        done
    fi
}
# Both sides at once (PARALLEL_SIDES=0: one after the other): each has the GPU to itself no less
# than numba's runner already shares it between its workers.
if [ "${PARALLEL_SIDES:-1}" = 1 ]; then
    run_side official "$official_py" "$official_path" "$official_dir" &
    run_side ours "$iso" "$ours${extra:+:$extra}" "$ours" &
    wait
else
    run_side official "$official_py" "$official_path" "$official_dir"
    run_side ours "$iso" "$ours${extra:+:$extra}" "$ours"
fi

python3 "$PY/clients_env.py" report --official "$work/run-official" --ours "$work/run-ours" --out "$REPORT" \
    --suites "$SUITES" --host "$work/host.txt" --title "${LABEL:-}"
status=$?
tar -czf "$RESULTS/clients${LABEL:+-$LABEL}-logs.tar.gz" -C "$work" run-official run-ours host.txt 2>/dev/null
cat "$REPORT"
echo "clients: $( [ $status = 0 ] && echo 'same results' || echo 'ours FAILED or DIFFERS') after $(( $(date +%s) - started )) s"
exit $status
