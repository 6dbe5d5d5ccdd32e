"""Where the runtime module finds libcudart, with the real library (the `nvidia-cuda-runtime`
wheel the catalogue pins for the CTK; `cudaRuntimeGetVersion` needs no GPU or driver): a wheel in
a site-packages folder, a toolkit under CUDA_HOME, the file named in the description's variable,
and the package's not-found error at the first call, never at import."""
import ctypes.util
import json
import os
import subprocess
import sys
import tomllib

import pytest

from conftest import REPO, wheel_library

with open(os.path.join(REPO, "headers", "libraries", "cuda-runtime.toml"), "rb") as f:
    PYTHON = tomllib.load(f)["python"]
MODULE, PATH_VARIABLE, NOT_FOUND = PYTHON["module"], PYTHON["library_path_env_var"], PYTHON["library_not_found_error"]


def catalogued_wheel(ctk):
    """(package, version) of the runtime wheel the catalogue pins for the newest release of `ctk`."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = tomllib.load(f)["release"]
    minor = [r for r in releases if r["ctk"].startswith(ctk + ".")]
    newest = max(minor, key=lambda r: [int(p) for p in r["ctk"].split(".")])
    return newest["package"], newest["wheel_version"]


@pytest.fixture(scope="module")
def runtime_site(package):
    """A folder laid out as site-packages with the CTK's runtime wheel unpacked in it (libraries
    only), and the library file."""
    ctk, _ = package
    return wheel_library(*catalogued_wheel(ctk), "libcudart")


def bare_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", PATH_VARIABLE, "PYTHONPATH")}
    env.update(extra)
    return env


VERSION = (f"import ctkgen_cuda.{MODULE} as r, json; e, v = r.cudaRuntimeGetVersion(); "
           "print(json.dumps([int(e), v]))")


def version_of(result, ctk):
    assert result.returncode == 0, result.stderr[-3000:]
    err, version = json.loads(result.stdout.splitlines()[-1])
    assert err == 0 and version // 1000 == int(ctk.split(".")[0]), (err, version)
    return version


def run_python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


def test_found_in_site_packages(package, runtime_site):
    ctk, path = package
    site, _ = runtime_site
    version_of(run_python(VERSION, bare_env(PYTHONPATH=os.pathsep.join([path, site]))), ctk)


def test_found_under_cuda_home(package, runtime_site, tmp_path):
    ctk, path = package
    _, library = runtime_site
    (tmp_path / "lib64").mkdir()
    os.symlink(library, tmp_path / "lib64" / os.path.basename(library))
    version_of(run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path))), ctk)


def test_named_file_wins(package, runtime_site, tmp_path):
    ctk, path = package
    _, library = runtime_site
    version_of(run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path), **{PATH_VARIABLE: library})), ctk)


def test_not_found_at_the_first_call_never_at_import(package, tmp_path):
    ctk, path = package
    if ctypes.util.find_library("cudart"):
        pytest.skip("this machine has a libcudart on the system loader's path, so it is always found")
    code = (f"import ctkgen_cuda.{MODULE} as r\n"
            f"try:\n    r.cudaRuntimeGetVersion()\nexcept r.{NOT_FOUND} as e:\n"
            "    print(isinstance(e, RuntimeError)); print(e)\n")
    result = run_python(code, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path)))
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "True", lines
    assert f"libcudart.so.{ctk.split('.')[0]}" in lines[1] and PATH_VARIABLE in lines[1], lines[1]
