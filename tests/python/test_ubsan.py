"""Every record class exercised under -fsanitize=alignment,undefined gives no report; the
legacy inline layout (negative control) does."""
import os

from conftest import build, python

HERE = os.path.dirname(os.path.abspath(__file__))


def exercise(path, *args):
    code = f"import sys; sys.path.insert(0, {HERE!r}); import exercise; exercise.main('ctkgen_cuda', {list(args) or None!r})"
    return python(path, code)


def test_every_record_class_is_clean_under_ubsan(package):
    ctk, path = package
    result = exercise(path)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "runtime error" not in result.stderr
    assert "exercised" in result.stdout


def records_module_of(path, cls):
    """The driver records module of the package at `path` that defines class `cls`."""
    for name in sorted(os.listdir(os.path.join(path, "ctkgen_cuda"))):
        if name.startswith("_driver_records_") and name.endswith(".pyx"):
            with open(os.path.join(path, "ctkgen_cuda", name)) as f:
                if f"cdef class {cls}(" in f.read():
                    return name[:-4]
    return None


def test_legacy_inline_layout_fails_under_ubsan(ctk13):
    # Only the module holding CUtensorMap (where the aligned build has it) and what it needs are
    # built; the layout's chunking is the same, and the module is looked up again below.
    module = records_module_of(build(ctk13), "CUtensorMap_st")
    path = build(ctk13, legacy=True, modules=["cydriver", "_base", "_driver_types", module])
    assert records_module_of(path, "CUtensorMap_st") == module
    result = exercise(path, module, "CUtensorMap_st", "CUtensorMap")
    assert result.returncode != 0, "the defective layout passed the sanitizer test"
    assert "misaligned address" in result.stderr
