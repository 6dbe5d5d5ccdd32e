"""The generated `nvrtc` module against the real NVRTC library of its CTK (from the
`nvidia-cuda-nvrtc` wheel the catalogue pins beside the headers; compiling needs no GPU): where
the library is found (a wheel in site-packages, a toolkit under CUDA_HOME, the named file), the
not-found error at the first call and never at import, and the same results as the official
`cuda.bindings.nvrtc` of that CTK, in one process (nvrtc_cases.py)."""
import ctypes.util
import json
import os
import subprocess
import sys
import tomllib

import pytest

from conftest import CACHE, REPO, wheel_library
import both_modules

HERE = os.path.dirname(os.path.abspath(__file__))


def catalogued_wheel(ctk):
    """(package, version) of the NVRTC wheel the catalogue pins for the newest release of `ctk`."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = tomllib.load(f)["release"]
    minor = [r for r in releases if r["ctk"].startswith(ctk + ".")]
    assert minor, f"no release {ctk} in the catalogue"
    newest = max(minor, key=lambda r: [int(p) for p in r["ctk"].split(".")])
    found = [c for c in newest.get("companion", []) if c["extra"] == "nvrtc"]
    assert found, f"CTK {newest['ctk']}: no nvrtc wheel in the catalogue"
    return found[0]["package"], found[0]["wheel_version"]


@pytest.fixture(scope="module")
def nvrtc_site(package):
    """A folder laid out as site-packages with the CTK's NVRTC wheel unpacked in it (libraries
    only), and the library file."""
    ctk, _ = package
    return wheel_library(*catalogued_wheel(ctk), "libnvrtc")


def bare_env(**extra):
    """The environment without anything that points at a library, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "CTKGEN_LIBNVRTC", "PYTHONPATH")}
    env.update(extra)
    return env


def run_python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


VERSION = "import ctkgen_cuda.nvrtc as n, json; e, a, b = n.nvrtcVersion(); print(json.dumps([int(e), a, b]))"


def expected_version(ctk):
    return [0, *[int(p) for p in ctk.split(".")[:2]]]


def test_found_in_site_packages(package, nvrtc_site):
    ctk, path = package
    site, _ = nvrtc_site
    result = run_python(VERSION, bare_env(PYTHONPATH=os.pathsep.join([path, site])))
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == expected_version(ctk)


def test_found_under_cuda_home(package, nvrtc_site, tmp_path):
    ctk, path = package
    _, library = nvrtc_site
    (tmp_path / "lib64").mkdir()
    os.symlink(library, tmp_path / "lib64" / os.path.basename(library))
    result = run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path)))
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == expected_version(ctk)


def test_named_file_wins(package, nvrtc_site, tmp_path):
    ctk, path = package
    _, library = nvrtc_site
    # A CUDA_HOME without the library, and the file named outright.
    result = run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path), CTKGEN_LIBNVRTC=library))
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == expected_version(ctk)


def test_not_found_at_the_first_call_never_at_import(package, tmp_path):
    ctk, path = package
    major = ctk.split(".")[0]
    if ctypes.util.find_library("nvrtc"):
        pytest.skip("this machine has an NVRTC on the system loader's path, so it is always found")
    code = ("import ctkgen_cuda.nvrtc as n\n"
            "try:\n    n.nvrtcVersion()\nexcept n.NVRTCNotFoundError as e:\n"
            "    print(isinstance(e, RuntimeError)); print(e)\n")
    result = run_python(code, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path)))
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "True"
    message = lines[1]
    assert message.startswith("NVRTC not found: tried"), message
    assert f"libnvrtc.so.{major}" in message and "CUDA_HOME" in message and "CTKGEN_LIBNVRTC" in message, message


def test_same_results_as_the_official_module(package, nvrtc_site):
    ctk, path = package
    site, library = nvrtc_site
    official = both_modules.official_path(CACHE, ctk)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for {ctk}")
    env = bare_env(PYTHONPATH=os.pathsep.join([*official, HERE]), LD_LIBRARY_PATH=os.path.dirname(library))
    result = subprocess.run([sys.executable, os.path.join(HERE, "nvrtc_cases.py"), path], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-6000:]
    outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(outcomes) >= 14
    differ = {}
    for case, sides in outcomes.items():
        ours, theirs = sides["ours"], sides["official"]
        same = ours.get("value") == theirs.get("value") and ours.get("error") == theirs.get("error")
        if not same:
            differ[case] = sides
    assert not differ, json.dumps(differ, indent=1)[:6000]
    # The calls reached the library and compiled: the PTX is real, the same on both sides.
    status, err, size, got, ptx = outcomes["compile_ptx"]["ours"]["value"]
    assert (status, err, got) == (0, 0, 0) and size == len(ptx) and ".entry add" in ptx
    assert outcomes["too_few_headers"]["ours"]["error"] == "RuntimeError"
    assert outcomes["destroy_resets_the_handle"]["ours"]["value"] == [True, 0, 0]
