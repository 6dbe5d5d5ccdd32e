#!/usr/bin/env bash
# Import time of two builds of the package against each other and against the installed
# cuda.bindings, in one run (timings compare only within one run): each package source folder is
# built in place side by side and its bytecode written, then tests/bench/import_time.py alternates
# the sides and import_breakdown.py splits each. Markdown to stdout.
#
#   bash tests/bench/import_variants.sh NEW_SOURCE OLD_SOURCE [ROUNDS]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=${3:-21}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-import.XXXXXX")
for side in new old; do
    source=$([ $side = new ] && echo "$1" || echo "$2")
    cp -r "$source" "$work/$side"
    (cd "$work/$side" && env -u CUDA_HOME python3 setup.py build_ext --inplace -j "$(( $(nproc) / 2 ))" \
        >"$work/$side.log" 2>&1 && python3 -m compileall -q cuda/bindings >/dev/null) &
done
wait
for side in new old; do
    [ -n "$(find "$work/$side/cuda/bindings" -name '*.so' | head -1)" ] || { tail -20 "$work/$side.log"; exit 1; }
done
modules=$(cd "$work/new/cuda/bindings" && ls -- *.py | grep -v '^_' | sed 's/\.py$//' | paste -sd, -)
echo "## new ($1) against old ($2)"
python3 "$root/tests/bench/import_time.py" --ours "$work/new" --official "$work/old" --modules "$modules" --rounds "$rounds"
for side in new old; do
    echo "## $side against the installed cuda.bindings"
    python3 "$root/tests/bench/import_time.py" --ours "$work/$side" --modules "$modules" --rounds "$rounds"
done
for side in new old; do
    echo "## where the $side side's import goes"
    python3 "$root/tests/bench/import_breakdown.py" --path "$work/$side" --modules "$modules" --rounds 15 --top 8
done
