#!/usr/bin/env bash
# Puts what tests/gpu/clients.sh needs on the GPU host into the bundle, under clients/: the script,
# python/client_programs.py and python/clients_env.py, and two wheels the host cannot fetch (it has
# no network): numpy 2.3 for CPython 3.12, put first only where the host's numba refuses the host's
# numpy, and filecheck, which numba-cuda's test modules import. The wheels are downloaded once into
# $CTKGEN_CACHE/client-wheels. Called by tests/gpu/prepare.sh; needs pip and the package index.
#
#   tests/gpu/prepare_clients.sh [BUNDLE]      # default target/gpu-bundle
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUNDLE=${1:-$ROOT/target/gpu-bundle}
CACHE=${CTKGEN_CACHE:-$ROOT/.ctkgen-cache}
WANTED=(filecheck==1.0.6 numpy==2.3.5)
# A device call carries the tracked tree and the bundle, 64 MiB together: a wheel that would leave
# less than 2 MiB of that is left out, saying so (clients.sh then reports numba's refusal, if any).
LIMIT=$((62 * 1024 * 1024))
store=$CACHE/client-wheels/gpu-cp312
rm -rf "$BUNDLE/clients"
mkdir -p "$store" "$BUNDLE/clients/wheels"
cp "$ROOT/tests/gpu/clients.sh" "$ROOT/tests/gpu/python/client_programs.py" "$ROOT/tests/gpu/python/clients_env.py" \
    "$BUNDLE/clients/"
tree=$(cd "$ROOT" && git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
for requirement in "${WANTED[@]}"; do
    name=${requirement%%==*}
    version=${requirement#*==}
    if ! compgen -G "$store/$name-$version-*.whl" >/dev/null; then
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2014_x86_64 -d "$store" "$requirement"
    fi
    wheel=$(ls "$store/$name-$version"-*.whl | head -1)
    total=$((tree + $(du -sb "$BUNDLE" | cut -f1) + $(stat -c %s "$wheel")))
    if [ "$total" -gt "$LIMIT" ]; then
        echo "clients: $(basename "$wheel") LEFT OUT: the tracked tree and the bundle would be $total bytes" >&2
        continue
    fi
    cp "$wheel" "$BUNDLE/clients/wheels/"
done
echo "clients: $(du -sh "$BUNDLE/clients" | cut -f1) in $BUNDLE/clients; with the tracked tree" \
    "$(( (tree + $(du -sb "$BUNDLE" | cut -f1)) / 1024 )) KiB of the 64 MiB a device call carries"
