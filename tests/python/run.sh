#!/usr/bin/env bash
# Runs the Python test suite of the Cython emitter. Creates its own venv under the cache
# folder with pinned tools, then runs pytest. Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${CTKGEN_CACHE:-$repo/.ctkgen-cache}"
venv="$cache/venv"
# The venv records the digest of the requirements it was filled from: a missing venv, a
# half-made one or a changed pin list all lead to (re)installing. One shell at a time.
mkdir -p "$cache/locks"
# The digest covers the file the list includes (the package's own build requirements) too.
wanted="$(cat "$here/requirements.txt" "$repo/templates/cython/build-requirements.txt" | sha256sum | cut -d' ' -f1)"
(
    flock 9
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    if [ "$(cat "$venv/.ctkgen-requirements" 2>/dev/null)" != "$wanted" ]; then
        "$venv/bin/python" -m pip install -q -r "$here/requirements.txt"
        echo "$wanted" > "$venv/.ctkgen-requirements"
    fi
) 9>"$cache/locks/python-venv.lock"
cd "$here"
# Every test by name as it finishes, the reason of each skip and the slowest ten at the end;
# no .pytest_cache left in the source tree.
exec "$venv/bin/python" -m pytest -v -rs -p no:cacheprovider --durations=10 "$@"
