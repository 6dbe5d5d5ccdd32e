"""The record classes of the generated package under AddressSanitizer and UBSan: the lifecycle
stress in `asan_stress.py` (nested views outliving their parent, wrappers over foreign memory,
repeated member set/get, a million objects, objects released from several threads) runs clean.
The same stress run on a deliberately broken imitation (a view that does not keep its parent
alive) is stopped by ASan with a heap-use-after-free, so a clean run means something.

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
# -O0 without debug information: ASan instruments every access as at -O1 -g, and the builds
# take a third of the time; reports name functions from the symbol table.
ASAN_UBSAN = "-O0 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"


def libasan():
    path = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        pytest.skip("gcc has no libasan.so")
    return os.path.realpath(path)


def sanitized(args, pythonpath, timeout=1800, env=None):
    env = dict(
        os.environ,
        **(env or {}),
        PYTHONPATH=pythonpath,
        LD_PRELOAD=libasan(),
        # The value sweep asks for output arrays as long as a count's bound: a failed allocation
        # must be the MemoryError it is without ASan, not an abort.
        ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
    )
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=timeout)


def record_modules(ctk):
    """The record modules the package for `ctk` has (emitted once into a scratch folder)."""
    with tempfile.TemporaryDirectory() as scratch:
        package = emit(ctk, scratch)
        return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(package, "ctkgen_cuda", "_driver_records_*.pyx")))


@pytest.fixture(scope="module")
def asan_package(ctk13):
    modules = record_modules(ctk13)
    assert modules, "no record modules emitted"
    # The record modules and what they import; the function modules (and cydriver's loader)
    # hold no record objects and would only lengthen a slow sanitizer build.
    path = build(ctk13, cflags=ASAN_UBSAN, modules=["_base", "_driver_types", *modules])
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


def modules_defining(ctk, functions):
    """The function modules of the package for `ctk` that define `functions`."""
    with tempfile.TemporaryDirectory() as scratch:
        package = emit(ctk, scratch)
        found = set()
        for path in glob.glob(os.path.join(package, "ctkgen_cuda", "_driver_functions_*.pyx")):
            text = open(path, encoding="utf-8").read()
            if any(f"\ndef {name}(" in text for name in functions):
                found.add(os.path.basename(path)[:-4])
        return sorted(found)


def test_shared_and_returned_arrays_are_clean_under_asan(ctk13, fake_libcuda, monkeypatch):
    """A wrapper over another record's storage releases the array it set there (the shared
    member becomes NULL); records returned in lists own their storage. Seen failing before the
    fix: the shared member still pointed at the freed array."""
    functions = modules_defining(ctk13, ["cuGraphGetEdges", "cuGraphNodeGetDependencies", "cuInit"])
    records = record_modules(ctk13)
    path = build(ctk13, cflags=ASAN_UBSAN, modules=["_base", "_driver_types", *records, "cydriver", *functions])
    monkeypatch.setenv("CTKGEN_LIBCUDA", fake_libcuda)
    result = sanitized([os.path.join(HERE, "asan_shared_arrays.py"), "ctkgen_cuda", "_driver_types", *records, *functions],
                       path, timeout=900)
    report = result.stdout[-2000:] + result.stderr[-6000:]
    assert result.returncode == 0, report
    assert "ERROR: AddressSanitizer" not in result.stderr and "runtime error" not in result.stderr, report
    assert "shared arrays clean" in result.stdout, report


# A two-class imitation of the generated record classes, with the defect the stress hunts for:
# a nested view that does not keep its parent alive. OWNER_LINE decides whether it does.
RECORDS = r"""
# cython: language_level=3
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
from ._base import _class_registry

cdef class Inner:
    cdef char* addr
    cdef char* block
    cdef object owner
    _ctkgen_members = ("value",)
    _ctkgen_size = 8
    _ctkgen_align = 8

    def __cinit__(self, size_t _ptr=0):
        if _ptr == 0:
            self.block = <char*>calloc(1, 8)
            self.addr = self.block
        elif _ptr % 8:
            raise ValueError("misaligned")
        else:
            self.addr = <char*>_ptr

    def __dealloc__(self):
        free(self.block)

    def getPtr(self):
        return <size_t>self.addr

    def __copy__(self):
        cdef Inner other = Inner()
        memcpy(other.addr, self.addr, 8)
        return other

    @property
    def value(self):
        return (<long long*>self.addr)[0]

    @value.setter
    def value(self, v):
        (<long long*>self.addr)[0] = v


cdef class Outer(Inner):
    _ctkgen_members = ("inner", "value")
    _ctkgen_size = 8

    @property
    def inner(self):
        cdef Inner view = Inner(<size_t>self.addr)
        OWNER_LINE
        return view

    @inner.setter
    def inner(self, Inner other):
        memcpy(self.addr, other.addr, 8)


_class_registry.update(Inner=Inner, Outer=Outer)
"""

SETUP = r"""
from setuptools import setup, Extension
from Cython.Build import cythonize
setup(ext_modules=cythonize([Extension("imitation.records", ["imitation/records.pyx"])], quiet=True))
"""


def build_imitation(folder, keeps_owner):
    package = os.path.join(folder, "imitation")
    os.makedirs(package)
    open(os.path.join(package, "__init__.py"), "w").close()
    with open(os.path.join(package, "_base.py"), "w") as f:
        f.write("_class_registry = {}\n")
    owner_line = "view.owner = self" if keeps_owner else "pass  # the defect: the parent may die first"
    with open(os.path.join(package, "records.pyx"), "w") as f:
        f.write(RECORDS.replace("OWNER_LINE", owner_line))
    with open(os.path.join(folder, "setup.py"), "w") as f:
        f.write(SETUP)
    env = dict(os.environ, CFLAGS=ASAN_UBSAN, LDFLAGS=ASAN_UBSAN)
    result = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=folder, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]


@pytest.mark.parametrize("keeps_owner", [False, True], ids=["view-drops-owner", "view-keeps-owner"])
def test_the_stress_catches_a_view_that_outlives_its_memory(tmp_path, keeps_owner):
    build_imitation(str(tmp_path), keeps_owner)
    result = sanitized([os.path.join(HERE, "asan_stress.py"), "imitation", "records"], str(tmp_path), timeout=600)
    if keeps_owner:
        # The same classes done right pass: the report below is about the lifetime alone.
        assert result.returncode == 0 and "stress clean" in result.stdout, result.stderr[-4000:]
    else:
        assert result.returncode != 0, "the use after free went unnoticed"
        assert "heap-use-after-free" in result.stderr, result.stderr[-4000:]
