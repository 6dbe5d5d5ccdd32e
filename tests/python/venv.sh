#!/usr/bin/env bash
# Makes VENV a virtual environment holding what the requirement FILEs list (each installed with
# `pip install -r`), created with $CTKGEN_VENV_PYTHON (default python3); prints nothing. The venv records the
# digest of the files it was filled from: a missing venv, a half-made one or a changed list all
# lead to (re)installing. One shell at a time per venv, through a lock in VENV's parent's locks/.
# Used by run.sh (the Python suite's venv) and by `cargo xtask release` (its tools, and a build
# venv per interpreter).
# Usage: venv.sh VENV FILE...
set -euo pipefail
venv="$1"
shift
parent="$(dirname "$venv")"
mkdir -p "$parent/locks"
wanted="$(cat "$@" | sha256sum | cut -d' ' -f1)"
requirements=()
for file in "$@"; do
    requirements+=(-r "$file")
done
(
    flock 9
    if [ ! -x "$venv/bin/python" ]; then
        "${CTKGEN_VENV_PYTHON:-python3}" -m venv "$venv"
    fi
    if [ "$(cat "$venv/.ctkgen-requirements" 2>/dev/null)" != "$wanted" ]; then
        "$venv/bin/python" -m pip install -q "${requirements[@]}"
        echo "$wanted" > "$venv/.ctkgen-requirements"
    fi
) 9>"$parent/locks/python-$(basename "$venv").lock"
