#!/usr/bin/env bash
# Runs the Python test suite of the Cython emitter. Creates its own venv under the cache
# folder with pinned tools, then runs pytest. Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${CTKGEN_CACHE:-$repo/.ctkgen-cache}"
venv="$cache/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import Cython, setuptools, pytest" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$here/requirements.txt"
fi
cd "$here"
exec "$venv/bin/python" -m pytest -q "$@"
