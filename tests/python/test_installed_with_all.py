"""Works where the official package works: our wheel (generated as cuda.bindings for the newest
13.x the suite builds) installed with its `all` extra from the package index into a fresh virtual
environment that holds nothing else, on a machine with no driver and no toolkit. In a process with
an empty LD_LIBRARY_PATH and no CUDA_HOME, `runtime.cudaRuntimeGetVersion()` answers from the
runtime linked into the package (no libcudart is mapped) and NVRTC answers from the library wheel
the extra brought, as `pip install cuda-bindings[all]` gives cuda.core.

Needs the package index (pip's cache makes a second run quick); CTKGEN_OFFLINE=1 skips it."""
import json
import os
import subprocess
import sys

import pytest

from conftest import run
from test_as_cuda_bindings import kept_wheel

pytestmark = pytest.mark.skipif(os.environ.get("CTKGEN_OFFLINE") == "1", reason="CTKGEN_OFFLINE=1: no package index")

PROBE = r"""
import importlib.metadata as m, json, os
from cuda.bindings import runtime, nvrtc
err, runtime_version = runtime.cudaRuntimeGetVersion()
nvrtc_err, major, minor = nvrtc.nvrtcVersion()
source = b'extern "C" __global__ void k(int *x) { *x = 1; }'
create_err, program = nvrtc.nvrtcCreateProgram(source, b"k.cu", 0, [], [])
compile_err, = nvrtc.nvrtcCompileProgram(program, 0, [])
mapped = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcudart" in l or "libnvrtc" in l})
owners = {}
for dist in m.distributions():
    for file in dist.files or ():
        path = os.path.realpath(dist.locate_file(file))
        if path in mapped:
            owners[path] = [dist.metadata["Name"], dist.version]
print(json.dumps({"runtime": [int(err), runtime_version], "nvrtc": [int(nvrtc_err), major, minor],
                  "compiled": [int(create_err), int(compile_err)], "mapped": mapped, "owners": owners,
                  "distributions": sorted(d.metadata["Name"] for d in m.distributions()),
                  "bindings": m.version("cuda-bindings")}))
"""


@pytest.fixture(scope="module")
def installed(ctk13, tmp_path_factory):
    """(ctk, interpreter, site-packages) of a fresh venv with our wheel installed with `[all]`."""
    tmp = tmp_path_factory.mktemp("installed-with-all")
    wheel = kept_wheel(ctk13, tmp)
    home = tmp / "venv"
    # The interpreter the wheel was built for, outside any venv.
    run([sys._base_executable, "-m", "venv", str(home)])
    interpreter = str(home / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_NO_INDEX")}
    run([interpreter, "-m", "pip", "install", "-q", f"{wheel}[all]"], env=env, timeout=900)
    site = run([interpreter, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    return ctk13, interpreter, site


def test_runtime_and_nvrtc_answer_with_no_driver_and_no_library_path(installed):
    ctk, interpreter, site = installed
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "", "HOME": os.environ.get("HOME", "/")}
    result = subprocess.run([interpreter, "-c", PROBE], env=env, cwd="/", capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    found = json.loads(result.stdout.splitlines()[-1])
    print(json.dumps(found, indent=1))
    # Ours is the one cuda-bindings, and nothing official came with the extra.
    assert found["bindings"].startswith(ctk + "."), found["bindings"]
    assert found["distributions"].count("cuda-bindings") == 1, found["distributions"]
    assert "cuda-python" not in found["distributions"], found["distributions"]
    major, minor = (int(p) for p in ctk.split(".")[:2])
    assert found["runtime"] == [0, major * 1000 + minor * 10], found["runtime"]
    # The runtime is the linked copy: no libcudart is opened.
    assert not [p for p in found["mapped"] if "libcudart" in p], found["mapped"]
    # NVRTC from the wheel the extra installed, which says the version it answers.
    nvrtc_err, nvrtc_major, nvrtc_minor = found["nvrtc"]
    assert nvrtc_err == 0 and nvrtc_major == major, found["nvrtc"]
    (library,) = [p for p in found["mapped"] if "libnvrtc.so" in p]
    assert library.startswith(os.path.realpath(site)), (library, site)
    name, version = found["owners"][library]
    assert version.split(".")[:2] == [str(nvrtc_major), str(nvrtc_minor)], (name, version, found["nvrtc"])
    assert found["compiled"] == [0, 0], found["compiled"]
