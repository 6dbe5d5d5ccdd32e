#!/usr/bin/env bash
# Prepares the GPU suite on a machine with Rust (no GPU needed): generates the Python packages
# for one CTK 13.x and one 12.x and the Rust crates of every CTK, builds the Rust test binary
# twice over the driver's crate, with the 13.x CTK's feature and with the 12.x one (the GPU host
# has no Rust), and puts everything the GPU host needs into one ignored folder,
# target/gpu-bundle/ (< 64 MiB).
#
#   tests/gpu/prepare.sh                        # CTKs 13.1 and 12.9
#   CTK_13=13.0 CTK_12=12.8 tests/gpu/prepare.sh
#   CTKGEN_XTASK=target/debug/xtask tests/gpu/prepare.sh   # an already built xtask binary
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
CTK_13=${CTK_13:-13.1}
CTK_12=${CTK_12:-12.9}
# Unquoted on use: "cargo xtask" is two words.
XTASK=${CTKGEN_XTASK:-cargo xtask}
GEN=target/gpu-gen
BUNDLE=target/gpu-bundle
LIMIT_BYTES=$((64 * 1024 * 1024))

$XTASK generate --ctk "$CTK_13" --lang cython --out "$GEN/13.1"
$XTASK generate --ctk "$CTK_12" --lang cython --out "$GEN/12.9"
# The 13.x package again under the official package's name, for the README's family program.
$XTASK generate --ctk "$CTK_13" --lang cython --python-package cuda.bindings --out "$GEN/as-cuda-bindings"
# The crates of every CTK, a feature each; the Rust program's Cargo.toml names $GEN/rust/cuda-driver-sys.
$XTASK generate --all --lang rust --out "$GEN"
feature_of() {  # 13.1 or 13.1.2 -> cuda-13010
    local major minor
    IFS=. read -r major minor _ <<<"$1"
    echo "cuda-$((major * 1000 + minor * 10))"
}
# The program once per toolkit: the feature chooses the crate's declarations (CUtensorMap's
# alignment among them).
for ctk in "$CTK_13" "$CTK_12"; do
    cargo build --release --offline --manifest-path tests/gpu/rust/Cargo.toml --target-dir target/gpu-rust \
        --features "cuda-driver-sys/$(feature_of "$ctk")"
    cp target/gpu-rust/release/tma-rust-tests "target/gpu-rust/tma-rust-tests-$ctk"
done

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/pkgs" "$BUNDLE/bin" "$BUNDLE/kernels" "$BUNDLE/python" "$BUNDLE/lib"
cp -r "$GEN/13.1/python" "$BUNDLE/pkgs/$CTK_13"
cp -r "$GEN/12.9/python" "$BUNDLE/pkgs/$CTK_12"
cp -r "$GEN/as-cuda-bindings/python" "$BUNDLE/pkgs/as-cuda-bindings"
# The README's program that uses every module (its second Python block under "Using the output").
python3 - "$BUNDLE/python/family_program.py" <<'PY'
import re, sys
section = open("README.md").read().split("## Using the output", 1)[1].split("\n## ", 1)[0]
open(sys.argv[1], "w").write(re.findall(r"```python\n(.*?)```", section, re.S)[1])
PY
cp "target/gpu-rust/tma-rust-tests-$CTK_13" "target/gpu-rust/tma-rust-tests-$CTK_12" "$BUNDLE/bin/"
cp tests/gpu/run.sh tests/gpu/report.py "$BUNDLE/"
cp tests/gpu/kernels/tma_kernels.cu "$BUNDLE/kernels/"
cp tests/gpu/python/tma_suite.py tests/gpu/python/graph_programs.py tests/gpu/python/fatbin_programs.py tests/gpu/python/run_suite.py "$BUNDLE/python/"
# The runtime and nvFatbin libraries of the 12.x release (about 1 and 2 MiB), from the wheels the
# catalogue names for them: a GPU host with only a 13.x toolkit has no libcudart.so.12 or
# libnvfatbin.so.12 for the 12.x package's modules.
python3 - "$CTK_12" "$BUNDLE/lib" <<'PY'
import glob, subprocess, sys, tempfile, tomllib, zipfile
minor, target = sys.argv[1], sys.argv[2]
with open("headers/ctk.toml", "rb") as f:
    releases = [r for r in tomllib.load(f)["release"] if r["ctk"].startswith(minor + ".")]
release = releases[-1]
wanted = [(release["package"], release["wheel_version"], "libcudart.so.")]
wanted += [(c["package"], c["wheel_version"], "libnvfatbin.so.") for c in release.get("companion", [])
           if c["extra"] == "nvfatbin"]
for package, version, stem in wanted:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "-d", tmp, f"{package}=={version}"], check=True)
        (wheel,) = glob.glob(f"{tmp}/*.whl")
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if f"/lib/{stem}" in name:
                    with open(f"{target}/{name.rsplit('/', 1)[1]}", "wb") as out:
                        out.write(z.read(name))
PY
printf 'CTK_13=%s\nCTK_12=%s\nFEATURE_13=%s\nFEATURE_12=%s\n' "$CTK_13" "$CTK_12" \
    "$(feature_of "$CTK_13")" "$(feature_of "$CTK_12")" >"$BUNDLE/MANIFEST"
bash tests/gpu/prepare_clients.sh "$BUNDLE"  # cuda.core and numba-cuda on ours: clients.sh, its programs, wheels

size=$(du -sb "$BUNDLE" | cut -f1)
if [ "$size" -ge "$LIMIT_BYTES" ]; then
    echo "bundle is $size bytes, over the 64 MiB a device call carries" >&2
    exit 1
fi
echo "bundle ready: $BUNDLE ($((size / 1024)) KiB; CTKs $CTK_13 and $CTK_12)"
