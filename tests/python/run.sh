#!/usr/bin/env bash
# Runs the Python test suite of the Cython emitter. Creates its own venv under the cache
# folder with pinned tools, then runs pytest. Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${CTKGEN_CACHE:-$repo/.ctkgen-cache}"
venv="$cache/venv"
# The venv is (re)filled from the pins when they change (venv.sh); its digest covers the file
# the list includes (the package's own build requirements) too.
bash "$here/venv.sh" "$venv" "$here/requirements.txt" "$repo/templates/cython/build-requirements.txt"
cd "$here"
# Every test by name as it finishes, the reason of each skip and the slowest ten at the end;
# no .pytest_cache left in the source tree.
exec "$venv/bin/python" -m pytest -v -rs -p no:cacheprovider --durations=10 "$@"
