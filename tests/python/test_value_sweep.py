"""The value sweep (`sweep.py`) over the package of every CTK the suite builds: no value path
stores a value other than the one it was given. It runs on the UBSan build the suite already
makes, and again under AddressSanitizer and UBSan on the record build that
test_asan_stress.py makes (constructors and members; the function modules are not in that
build). Set CTKGEN_SWEEP_ASAN_FULL=1 to build the whole package under ASan and sweep the
functions there too (one more full build)."""
import json
import os

import pytest

from conftest import build, ir_json, python
from test_asan_stress import ASAN_UBSAN, record_modules, sanitized

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEP = os.path.join(HERE, "sweep.py")


def report(ctk, label, out):
    counts = ", ".join(f"{kind}: {out['paths'][kind]} paths x values = {out['values'].get(kind, 0)}"
                       for kind in sorted(out["paths"]))
    print(f"\nsweep {ctk} {label}: {counts}; {len(out['failures'])} failures")
    shown = "\n".join(out["failures"][:60])
    assert not out["failures"], f"{len(out['failures'])} failures, first ones:\n{shown}"


def test_every_value_path_checks_before_it_writes(package, fake_libcuda):
    ctk, path = package
    result = python(path, f"import runpy, sys; sys.argv = {[SWEEP, ir_json(ctk), 'ctkgen_cuda', fake_libcuda]!r}; "
                          "runpy.run_path(sys.argv[0], run_name='__main__')", {"CTKGEN_LIBCUDA": fake_libcuda})
    assert result.returncode == 0, result.stderr[-4000:]
    assert "runtime error" not in result.stderr, result.stderr[-4000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    for kind in ("constructor", "member", "argument"):
        assert out["paths"].get(kind, 0) > 0, out["paths"]
    report(ctk, "ubsan", out)


def test_the_sweep_is_clean_under_asan_and_ubsan(ctk13, fake_libcuda, monkeypatch):
    monkeypatch.setenv("CTKGEN_LIBCUDA", fake_libcuda)
    full = os.environ.get("CTKGEN_SWEEP_ASAN_FULL") == "1"
    if full:
        path = build(ctk13, cflags=ASAN_UBSAN)
    else:
        # The build test_asan_stress.py makes: no extra build.
        path = build(ctk13, cflags=ASAN_UBSAN, modules=["_base", "_types", *record_modules(ctk13)])
    result = sanitized([SWEEP, ir_json(ctk13), "ctkgen_cuda", fake_libcuda], path)
    stderr = result.stderr[-6000:]
    assert result.returncode == 0, stderr
    assert "ERROR: AddressSanitizer" not in result.stderr and "runtime error" not in result.stderr, stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["paths"].get("member", 0) > 0 and out["paths"].get("constructor", 0) > 0, out["paths"]
    if full:
        assert out["paths"].get("argument", 0) > 0, out["paths"]
    report(ctk13, "asan+ubsan" + (" full" if full else ""), out)
