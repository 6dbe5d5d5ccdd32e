#!/usr/bin/env bash
# Prepares, here, what clients.sh needs to run cuda.core and numba-cuda on ours for each CTK named,
# so that the GPU host compiles nothing: for each CTK, ours generated as cuda.bindings and built
# as a wheel for the host's CPython 3.12 (ours-<ctk>/), and for a CTK whose major the host lacks
# (it has the 13.x libraries and the official cuda.bindings 13.x only), the official cuda-bindings
# wheel of that CTK (official-<ctk>/, the version tests/parity/official.txt pins) and the libraries
# of that major the host lacks, taken from the release's wheels and compressed (libs-<ctk>/).
# A device call carries at most 64 MiB with the tracked tree: libraries are taken in the order
# LIBRARIES names them (default "runtime nvrtc nvjitlink") while they fit under LIMIT_MIB. One not
# carried is written to libs-<ctk>/standins.txt as `libfoo.so.12=libfoo.so.13`: clients.sh then
# gives both sides the host's library of its own major under the name asked for (and says so).
#
#   tests/gpu/prepare_client_packages.sh DIR 13.1 12.9
#   PYTHON312=path  a CPython 3.12 (default: pyenv's newest 3.12); FORCE=1 rebuilds wheels present
#
# on-device.sh CLIENT_PACKAGES=DIR runs clients.sh once per ours-<ctk> wheel found there.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
shift
CACHE=${CTKGEN_CACHE:-$ROOT/.ctkgen-cache}
XTASK=${CTKGEN_XTASK:-cargo xtask}
HOST_MAJOR=${HOST_MAJOR:-13}
LIMIT_MIB=${LIMIT_MIB:-60}
PYTHON312=${PYTHON312:-$(ls -d "$(pyenv root 2>/dev/null || echo ~/.pyenv)"/versions/3.12.*/bin/python3 2>/dev/null | sort -V | tail -1)}
[ -x "$PYTHON312" ] || { echo "no CPython 3.12 here: set PYTHON312" >&2; exit 1; }
venv=$CACHE/client-packages/venv312
if [ ! -x "$venv/bin/python" ]; then
    "$PYTHON312" -m venv "$venv"
fi
# The build requirements the generated pyproject.toml names, installed once.
tracked=$(cd "$ROOT" && git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
carried() { echo $(( (tracked + $(du -sb "$DIR" | cut -f1) + ${1:-0}) / 1048576 )); }

for ctk in "$@"; do
    gen=$ROOT/target/gpu-gen/as-cuda-bindings-$ctk
    $XTASK generate --ctk "$ctk" --lang cython --python-package cuda.bindings --out "$gen"
    requires=$(python3 -c 'import sys, tomllib; print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' \
        "$gen/python/pyproject.toml")
    # shellcheck disable=SC2086 (one requirement a word)
    "$venv/bin/python" -m pip install -q $requires
    if [ "${FORCE:-0}" = 1 ] || ! compgen -G "$DIR/ours-$ctk/*.whl" >/dev/null; then
        rm -rf "$DIR/ours-$ctk"
        started=$(date +%s)
        (cd "$gen/python" && env -u CUDA_HOME "$venv/bin/python" -m pip wheel --no-deps --no-build-isolation -q \
            -w "$DIR/ours-$ctk" .)
        echo "ours $ctk: $(basename "$DIR/ours-$ctk"/*.whl) built in $(( $(date +%s) - started )) s"
    fi
    [ "${ctk%%.*}" = "$HOST_MAJOR" ] && continue

    official=$(grep -E "^cuda-bindings==$ctk\." "$ROOT/tests/parity/official.txt" | tail -1)
    if [ -n "$official" ] && ! compgen -G "$DIR/official-$ctk/*.whl" >/dev/null; then
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2014_x86_64 -d "$DIR/official-$ctk" "$official"
    fi
    # The release's library wheels, as the catalogue names them (headers/ctk.toml), by need.
    rm -rf "$DIR/libs-$ctk"
    mkdir -p "$DIR/libs-$ctk"
    python3 - "$ROOT/headers/ctk.toml" "$ctk" "${LIBRARIES:-runtime nvrtc nvjitlink}" <<'PY' >"$DIR/libs-$ctk.wanted"
import sys, tomllib
catalogue, minor, wanted = sys.argv[1], sys.argv[2], sys.argv[3].split()
releases = [r for r in tomllib.load(open(catalogue, "rb"))["release"] if r["ctk"].startswith(minor + ".")]
release = releases[-1]
wheels = {c["extra"]: c for c in release.get("companion", [])}
wheels["runtime"] = release
patterns = {"runtime": ("libcudart.so.*", "libcudart"), "nvrtc": ("libnvrtc*.so.*", "libnvrtc"),
            "nvjitlink": ("libnvJitLink.so.*", "libnvJitLink")}
for extra, (pattern, stem) in patterns.items():
    chosen = extra in wanted and extra in wheels
    print(wheels[extra]["package"] if chosen else "-", wheels[extra]["wheel_version"] if chosen else "-", pattern, stem)
PY
    major=${ctk%%.*}
    while read -r package version pattern stem; do
        if [ "$package" = - ]; then
            echo "$stem.so.$major=$stem.so.$HOST_MAJOR" >>"$DIR/libs-$ctk/standins.txt"
            continue
        fi
        # The unpacked wheel the Python suite keeps in the cache, else the wheel fetched now.
        unpacked=$CACHE/wheel-libraries/$package-$version
        if [ ! -d "$unpacked" ]; then
            unpacked=$(mktemp -d)
            python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
                --platform manylinux_2_17_x86_64 --platform manylinux_2_12_x86_64 -d "$unpacked" "$package==$version"
            python3 -c 'import glob, sys, zipfile; zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]).extractall(sys.argv[1])' \
                "$unpacked"
        fi
        for lib in $(find "$unpacked" -path '*/lib/*' -name "$pattern" ! -name '*.alt.*' | sort); do
            xz -9 -T0 -c "$lib" >"$DIR/libs-$ctk/$(basename "$lib").xz"
        done
        if [ "$(carried)" -gt "$LIMIT_MIB" ]; then
            echo "clients $ctk: $package LEFT OUT: with it a device call would carry $(carried) MiB" >&2
            find "$DIR/libs-$ctk" -name "$stem*" -delete
            echo "$stem.so.$major=$stem.so.$HOST_MAJOR" >>"$DIR/libs-$ctk/standins.txt"
        fi
    done <"$DIR/libs-$ctk.wanted"
    rm -f "$DIR/libs-$ctk.wanted"
    echo "clients $ctk: official $(ls "$DIR/official-$ctk" 2>/dev/null | paste -sd' '); libraries $(ls "$DIR/libs-$ctk" | paste -sd' ')"
done
echo "client packages: $(du -sh "$DIR" | cut -f1) in $DIR; with the tracked tree $(carried) MiB of the 64 a device call carries"
