"""Every over-aligned class is constructed aligned to its alignof, a million times, under the
default allocator and under PYTHONMALLOC=malloc."""
import pytest

from conftest import python

COUNT = 1_000_000

CHECK = r'''
import ctkgen_cuda.driver
from ctkgen_cuda._base import _class_registry
classes = [c for c in _class_registry.values() if c._ctkgen_align > 16]
assert classes, "the IR yields no over-aligned record"
for cls in classes:
    align = cls._ctkgen_align
    keep = [None] * 997
    bad = 0
    for i in range(COUNT):
        obj = cls()
        if obj.getPtr() % align:
            bad += 1
        keep[i % 997] = obj
    assert bad == 0, f"{cls.__name__}: {bad} of {COUNT} misaligned"
print(sorted(c.__name__ for c in classes))
'''


@pytest.mark.parametrize("allocator", ["default", "malloc"])
def test_over_aligned_constructions(package, allocator):
    ctk, path = package
    env = {"PYTHONMALLOC": "malloc"} if allocator == "malloc" else {}
    result = python(path, CHECK.replace("COUNT", str(COUNT)), env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "CUtensorMap" in result.stdout
