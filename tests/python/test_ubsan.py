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


def test_legacy_inline_layout_fails_under_ubsan(ctk13):
    # Only the modules holding CUtensorMap are built, to save time.
    path = build(ctk13, legacy=True, modules=["cydriver", "_base", "_driver_types", "_driver_records_0", "_driver_records_1", "_driver_records_2", "_driver_records_3"])
    module = None
    for name in sorted(os.listdir(os.path.join(path, "ctkgen_cuda"))):
        if name.startswith("_driver_records_") and name.endswith(".pyx"):
            with open(os.path.join(path, "ctkgen_cuda", name)) as f:
                if "cdef class CUtensorMap_st(" in f.read():
                    module = name[:-4]
    assert module is not None
    result = exercise(path, module, "CUtensorMap_st", "CUtensorMap")
    assert result.returncode != 0, "the defective layout passed the sanitizer test"
    assert "misaligned address" in result.stderr
