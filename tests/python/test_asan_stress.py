"""The record classes of the generated package under AddressSanitizer and UBSan: the lifecycle
stress in `asan_stress.py` (nested views outliving their parent, wrappers over foreign memory,
repeated member set/get, a million objects, objects released from several threads) runs clean.
A deliberately broken wrapper (a view that does not keep its owner alive) is caught, so a clean
run means something.

ASan in a Python extension needs its runtime loaded first (`LD_PRELOAD` of gcc's libasan) and
leak detection off (CPython keeps memory until exit by design); each run is a subprocess."""
import glob
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import build, emit

HERE = os.path.dirname(os.path.abspath(__file__))
ASAN_UBSAN = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"


def libasan():
    path = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        pytest.skip("gcc has no libasan.so")
    return os.path.realpath(path)


def sanitized(args, pythonpath, timeout=1800):
    env = dict(
        os.environ,
        PYTHONPATH=pythonpath,
        LD_PRELOAD=libasan(),
        ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
    )
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=timeout)


def record_modules(ctk):
    """The record modules the package for `ctk` has (emitted once into a scratch folder)."""
    with tempfile.TemporaryDirectory() as scratch:
        package = emit(ctk, scratch)
        return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(package, "ctkgen_cuda", "_records_*.pyx")))


@pytest.fixture(scope="module")
def asan_package(ctk13):
    modules = record_modules(ctk13)
    assert modules, "no record modules emitted"
    path = build(ctk13, cflags=ASAN_UBSAN, modules=["cydriver", "_base", "_types", *modules])
    return path, modules


def test_lifecycle_stress_is_clean_under_asan_and_ubsan(asan_package):
    path, modules = asan_package
    result = sanitized([os.path.join(HERE, "asan_stress.py"), "ctkgen_cuda", *modules], path)
    report = result.stderr[-6000:]
    assert result.returncode == 0, report
    assert "ERROR: AddressSanitizer" not in result.stderr and "runtime error" not in result.stderr, report
    assert "stress clean" in result.stdout, result.stdout[-2000:]
    assert "many_objects: 1000000" in result.stdout
    # The run covered what matters: over-aligned classes and nested views.
    first = result.stdout.splitlines()[0]
    assert not first.endswith(" 0 over-aligned"), first
    views = next(line for line in result.stdout.splitlines() if line.startswith("views_outlive_parents"))
    assert int(views.split(": ")[1]) > 100, views


BROKEN = r'''
# cython: language_level=3
from libc.stdlib cimport malloc, free

cdef class Owner:
    cdef int* data
    def __cinit__(self):
        self.data = <int*>malloc(16 * sizeof(int))
        for i in range(16):
            self.data[i] = i
    def __dealloc__(self):
        free(self.data)
    def view(self):
        cdef View v = View()
        v.data = self.data
        # The defect: the view does not keep its owner alive.
        return v

cdef class View:
    cdef int* data
    def read(self):
        return self.data[3]
'''

BROKEN_SETUP = r'''
from setuptools import setup, Extension
from Cython.Build import cythonize
setup(ext_modules=cythonize([Extension("broken_wrapper", ["broken_wrapper.pyx"])], quiet=True))
'''


def build_broken(folder):
    with open(os.path.join(folder, "broken_wrapper.pyx"), "w") as f:
        f.write(BROKEN)
    with open(os.path.join(folder, "setup.py"), "w") as f:
        f.write(BROKEN_SETUP)
    env = dict(os.environ, CFLAGS=ASAN_UBSAN, LDFLAGS=ASAN_UBSAN)
    result = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=folder, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]


def test_a_view_that_outlives_its_memory_is_caught(tmp_path):
    build_broken(str(tmp_path))
    code = "import broken_wrapper, gc\nv = broken_wrapper.Owner().view()\ngc.collect()\nprint(v.read())\n"
    result = sanitized(["-c", code], str(tmp_path), timeout=300)
    assert result.returncode != 0, "the use after free went unnoticed"
    assert "heap-use-after-free" in result.stderr, result.stderr[-4000:]
    # Held correctly, the same wrapper is clean: the report above is about the lifetime alone.
    kept = "import broken_wrapper\no = broken_wrapper.Owner()\nv = o.view()\nprint(v.read())\n"
    result = sanitized(["-c", kept], str(tmp_path), timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "3", result.stderr[-4000:]
