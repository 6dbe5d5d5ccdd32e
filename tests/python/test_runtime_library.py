"""The runtime module's libcudart (`cudaRuntimeGetVersion` needs no GPU or driver).

Linked (the default build of a CTK whose runtime wheel ships libcudart_static.a, as the suite's
CTKs do): the loader module holds its own copy, hidden from every other module, and answers with
no libcudart anywhere; the file named in the description's variable still wins.

Unlinked (built with CTKGEN_STATIC_LIBRARIES=0, as a release without the archive is): where the
module finds the real library (the `nvidia-cuda-runtime` wheel the catalogue pins for the CTK) in
a wheel in a site-packages folder, a toolkit under CUDA_HOME, the named file, and the package's
not-found error at the first call, never at import."""
import ctypes.util
import glob
import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from conftest import REPO, build, wheel_library

with open(os.path.join(REPO, "headers", "libraries", "cuda-runtime.toml"), "rb") as f:
    PYTHON = tomllib.load(f)["python"]
MODULE, PATH_VARIABLE, NOT_FOUND = PYTHON["module"], PYTHON["library_path_env_var"], PYTHON["library_not_found_error"]
LOADER = PYTHON["cython_module"]


def catalogued_wheel(ctk):
    """(package, version) of the runtime wheel the catalogue pins for the newest release of `ctk`."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = tomllib.load(f)["release"]
    minor = [r for r in releases if r["ctk"].startswith(ctk + ".")]
    newest = max(minor, key=lambda r: [int(p) for p in r["ctk"].split(".")])
    return newest["package"], newest["wheel_version"]


@pytest.fixture(scope="module")
def unlinked(package):
    """(ctk, path) of the package built with no static archive linked: the runtime's loader
    module compiled again, every other module reused."""
    ctk, _ = package
    return ctk, build(ctk, static_libraries=False)


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


def test_found_in_site_packages(unlinked, runtime_site):
    ctk, path = unlinked
    site, _ = runtime_site
    version_of(run_python(VERSION, bare_env(PYTHONPATH=os.pathsep.join([path, site]))), ctk)


def test_found_under_cuda_home(unlinked, runtime_site, tmp_path):
    ctk, path = unlinked
    _, library = runtime_site
    (tmp_path / "lib64").mkdir()
    os.symlink(library, tmp_path / "lib64" / os.path.basename(library))
    version_of(run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path))), ctk)


def test_named_file_wins(unlinked, runtime_site, tmp_path):
    ctk, path = unlinked
    _, library = runtime_site
    version_of(run_python(VERSION, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path), **{PATH_VARIABLE: library})), ctk)


def test_not_found_at_the_first_call_never_at_import(unlinked, tmp_path):
    ctk, path = unlinked
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


# The loader module's state and what the process maps, after the version query.
LINK_STATE = (f"import ctkgen_cuda.{MODULE} as r, ctkgen_cuda.{LOADER} as c, json\n"
              "e, v = r.cudaRuntimeGetVersion()\n"
              "maps = [l.split()[-1] for l in open('/proc/self/maps') if 'libcudart' in l]\n"
              "print(json.dumps([int(e), v, c._library_linked(), sorted(set(maps))]))")


def link_state(path, env):
    result = run_python(LINK_STATE, env)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_linked_copy_answers_with_no_libcudart_anywhere(package, tmp_path):
    ctk, path = package
    err, version, linked, mapped = link_state(path, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path)))
    assert linked, "the loader module was built without the runtime's static archive"
    assert err == 0 and version // 1000 == int(ctk.split(".")[0]), (err, version)
    assert mapped == [], mapped


def test_linked_copy_is_hidden_from_other_modules(package):
    """The archive's symbols are in the loader module but none is exported: another module's own
    libcudart (a client's) never binds to this copy, nor this one to it."""
    _, path = package
    (loader,) = glob.glob(os.path.join(path, "ctkgen_cuda", f"{LOADER}.*.so"))
    local = subprocess.run(["nm", loader], capture_output=True, text=True, check=True).stdout
    exported = subprocess.run(["nm", "-D", "--defined-only", loader], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^[0-9a-f]+ t cudaRuntimeGetVersion$", local, re.M), "cudaRuntimeGetVersion is not linked in"
    leaked = [line for line in exported.splitlines() if " cuda" in line or " __cuda" in line]
    assert leaked == [], leaked[:10]


def test_named_file_wins_over_the_linked_copy(package, runtime_site):
    ctk, path = package
    _, library = runtime_site
    err, version, linked, mapped = link_state(path, bare_env(PYTHONPATH=path, **{PATH_VARIABLE: library}))
    assert linked and err == 0 and version // 1000 == int(ctk.split(".")[0]), (err, version, linked)
    assert mapped == [os.path.realpath(library)], mapped


def test_unlinked_build_links_nothing(unlinked, tmp_path):
    _, path = unlinked
    code = f"import ctkgen_cuda.{LOADER} as c; print(c._library_linked())"
    result = run_python(code, bare_env(PYTHONPATH=path, CUDA_HOME=str(tmp_path)))
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["False"], result.stdout
