"""The value sweep (`sweep.py`) over the package of every CTK the suite builds: no value path
stores a value other than the one it was given. It runs on the UBSan build the suite already
makes, and again under AddressSanitizer and UBSan on the record build that
test_asan_stress.py makes (constructors and members; the function modules are not in that
build). Set CTKGEN_SWEEP_ASAN_FULL=1 to build the whole package under ASan and sweep the
functions there too (one more full build)."""
import glob
import json
import os
import re
import tomllib

import pytest

from conftest import REPO, build, fake_library, ir_json, probe, python
from test_asan_stress import ASAN_UBSAN, record_modules, sanitized

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEP = os.path.join(HERE, "sweep.py")


def report(ctk, label, out):
    counts = ", ".join(f"{kind}: {out['paths'][kind]} paths x values = {out['values'].get(kind, 0)}"
                       for kind in sorted(out["paths"]))
    print(f"\nsweep {ctk} {label}: {counts}; {len(out['failures'])} failures; "
          f"{len(out['refused'])} in-range counts refused before the call ({', '.join(out['refused'])})")
    shown = "\n".join(out["failures"][:60])
    assert not out["failures"], f"{len(out['failures'])} failures, first ones:\n{shown}"


def sweep_output(args, path, env=None, sanitize=False):
    """Runs sweep.py with `args` on the package at `path` (under ASan+UBSan with `sanitize`) and
    returns its findings; no sanitizer report is allowed."""
    if sanitize:
        result = sanitized(args, path, env=env)
    else:
        result = python(path, f"import runpy, sys; sys.argv = {args!r}; runpy.run_path(sys.argv[0], run_name='__main__')",
                        env)
    stderr = result.stderr[-6000:]
    assert result.returncode == 0, stderr
    assert "ERROR: AddressSanitizer" not in result.stderr and "runtime error" not in result.stderr, stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_sweep(ctk, path, fake_libcuda, strict_integers=False):
    env = {"CTKGEN_LIBCUDA": fake_libcuda, "CTKGEN_SWEEP_STRICT_INTEGERS": "1" if strict_integers else "0"}
    out = sweep_output([SWEEP, ir_json(ctk), "ctkgen_cuda", fake_libcuda], path, env)
    for kind in ("constructor", "member", "argument"):
        assert out["paths"].get(kind, 0) > 0, out["paths"]
    return out


def test_every_value_path_checks_before_it_writes(package, fake_libcuda, capsys):
    ctk, path = package
    out = run_sweep(ctk, path, fake_libcuda)
    with capsys.disabled():  # the counts belong in the run's output
        report(ctk, "ubsan", out)


def test_strict_integers_refuse_what_truncation_would_change(ctk13, fake_libcuda, capsys):
    """The same sweep on a package generated with `--strict-integers`: a float that is not
    integral is a TypeError on every integer path; 2.0 is 2. The sweep refuses to run against a
    package built the other way, so each mode is checked against its own expectations."""
    path = build(ctk13, strict_integers=True)
    out = run_sweep(ctk13, path, fake_libcuda, strict_integers=True)
    with capsys.disabled():
        report(ctk13, "ubsan strict-integers", out)
    default = build(ctk13)
    mixed = python(default, f"import runpy, sys; sys.argv = {[SWEEP, ir_json(ctk13), 'ctkgen_cuda']!r}; "
                            "runpy.run_path(sys.argv[0], run_name='__main__')", {"CTKGEN_SWEEP_STRICT_INTEGERS": "1"})
    assert mixed.returncode != 0 and "strict integers False" in mixed.stderr, mixed.stderr[-2000:]


def test_the_sweep_is_clean_under_asan_and_ubsan(ctk13, fake_libcuda, monkeypatch, capsys):
    monkeypatch.setenv("CTKGEN_LIBCUDA", fake_libcuda)
    full = os.environ.get("CTKGEN_SWEEP_ASAN_FULL") == "1"
    if full:
        path = build(ctk13, cflags=ASAN_UBSAN)
    else:
        # The build test_asan_stress.py makes: no extra build.
        path = build(ctk13, cflags=ASAN_UBSAN, modules=["_base", "_driver_types", *record_modules(ctk13)])
    out = sweep_output([SWEEP, ir_json(ctk13), "ctkgen_cuda", fake_libcuda], path, sanitize=True)
    assert out["paths"].get("member", 0) > 0 and out["paths"].get("constructor", 0) > 0, out["paths"]
    if full:
        assert out["paths"].get("argument", 0) > 0, out["paths"]
    with capsys.disabled():
        report(ctk13, "asan+ubsan" + (" full" if full else ""), out)


def run_library_sweep(ctk, path, library, tmp_path, sanitize=False):
    """The sweep over described library `library`'s Python module, against a fake of it."""
    with open(os.path.join(REPO, "headers", "libraries", f"{library}.toml"), "rb") as f:
        python = tomllib.load(f)["python"]
    ir = ir_json(ctk, library)
    fake = fake_library(str(tmp_path), ir, f"lib{library}-fake.so")
    env = {python["library_path_env_var"]: fake, "CTKGEN_SWEEP_MODULE": python["module"], "CTKGEN_SWEEP_STRICT_INTEGERS": "0"}
    out = sweep_output([SWEEP, ir, "ctkgen_cuda", fake], path, env, sanitize)
    # Every library has handles and scalars on every CTK (NVRTC's records come only from 13.3 on).
    assert out["paths"].get("constructor", 0) > 0 and out["paths"].get("argument", 0) > 0, out["paths"]
    return out


def library_modules(path, module):
    """The compiled modules of Python module `module` in a built package, the shared base, and
    the compiled modules of other libraries they import (a dependency's classes they reuse)."""
    package = os.path.join(path, "ctkgen_cuda")
    compiled = {os.path.basename(f).split(".")[0] for f in glob.glob(os.path.join(package, "*.pyx"))}
    wanted = {n for n in compiled if n == f"cy{module}" or n.startswith(f"_{module}_")} | {"_base"}
    pending = sorted(wanted)
    while pending:
        name = pending.pop()
        for suffix in (".pyx", ".pxd"):
            source = os.path.join(package, name + suffix)
            if os.path.exists(source):
                with open(source) as f:
                    for imported in re.findall(r"^from \.(\w+) c?import", f.read(), re.M):
                        if imported in compiled and imported not in wanted:
                            wanted.add(imported)
                            pending.append(imported)
    return sorted(wanted)


def test_the_nvrtc_module_checks_before_it_writes(package, tmp_path, capsys):
    ctk, path = package
    out = run_library_sweep(ctk, path, "nvrtc", tmp_path)
    with capsys.disabled():
        report(ctk, "nvrtc ubsan", out)


def test_the_nvrtc_module_is_clean_under_asan_and_ubsan(ctk13, tmp_path, capsys):
    path = build(ctk13, cflags=ASAN_UBSAN, modules=library_modules(build(ctk13), "nvrtc"))
    out = run_library_sweep(ctk13, path, "nvrtc", tmp_path, sanitize=True)
    with capsys.disabled():
        report(ctk13, "nvrtc asan+ubsan", out)


def test_the_runtime_module_checks_before_it_writes(package, tmp_path, capsys):
    ctk, path = package
    out = run_library_sweep(ctk, path, "cuda-runtime", tmp_path)
    with capsys.disabled():
        report(ctk, "runtime ubsan", out)


def test_the_runtime_module_is_clean_under_asan_and_ubsan(ctk13, tmp_path, capsys):
    path = build(ctk13, cflags=ASAN_UBSAN, modules=library_modules(build(ctk13), "runtime"))
    out = run_library_sweep(ctk13, path, "cuda-runtime", tmp_path, sanitize=True)
    with capsys.disabled():
        report(ctk13, "runtime asan+ubsan", out)


CASES = r'''
import ctypes, json
import ctkgen_cuda.driver as cuda
out = {}
def outcome(action):
    try:
        value = action()
        return ["ok", value if isinstance(value, (int, bytes, list)) else repr(value)]
    except Exception as error:
        return [type(error).__name__, str(error)]
out["u32_over"] = outcome(lambda: int(cuda.cuuint32_t(2**32 + 5)))
out["u32_from_u64"] = outcome(lambda: int(cuda.cuuint32_t(cuda.cuuint64_t(2**40))))
out["dptr_neg"] = outcome(lambda: int(cuda.CUdeviceptr(-1)))
out["dptr_str"] = outcome(lambda: int(cuda.CUdeviceptr("7")))
out["dptr_none"] = outcome(lambda: int(cuda.CUdeviceptr(None)))
out["ctx_str"] = outcome(lambda: int(cuda.CUcontext("7")))
p = cuda.CUDA_TEXTURE_DESC()
out["enum_array"] = outcome(lambda: setattr(p, "addressMode", [2**32 + 1, 0, 0]))
# An enum value in range but not a member reads back as a plain int.
mode = cuda.CUDA_TEXTURE_DESC()
mode.filterMode = 12345
out["enum_non_member"] = [type(mode.filterMode).__name__, mode.filterMode]
# An integer-typedef member (a device address, a cuuint*_t) set to None is 0, as in cuda.bindings;
# a plain integer member refuses None.
copy = cuda.CUDA_MEMCPY2D()
copy.srcDevice = 0x1000
copy.srcDevice = None
out["none_member"] = [int(copy.srcDevice), outcome(lambda: setattr(copy, "srcPitch", None))[0]]
h = cuda.CUipcMemHandle()
out["char_int"] = outcome(lambda: setattr(h, "reserved", 5))
data = bytes(range(1, 9)) + b"\0" + b"\x07" * (len(h.reserved) - 9)
h.reserved = data
twin = cuda.CUipcMemHandle()
twin.reserved = h.reserved
out["char_roundtrip"] = [h.reserved == data, twin.reserved == data]
m = cuda.CUtensorMap()
m.opaque = list(range(1, len(m.opaque) + 1))
before = m.opaque
out["atomic"] = [outcome(lambda: setattr(m, "opaque", [9] * (len(before) - 1) + [-1]))[0], m.opaque == before]
class T(cuda.CUuuid):
    def __init__(self, n):
        super().__init__()
        self.n = n
t = T(5)
out["subclass"] = [t.n, t.getPtr() != 5, outcome(lambda: cuda.CUuuid(5))[0]]
out["keyword_ptr"] = cuda.CUuuid(_ptr=t.getPtr()).getPtr() == t.getPtr()
print(json.dumps(out))
'''


def test_the_cases_of_the_issue(package):
    ctk, path = package
    out = probe(path, CASES)
    for key in ("u32_over", "u32_from_u64", "dptr_neg", "enum_array"):
        assert out[key][0] == "OverflowError", (key, out[key])
    for key in ("dptr_str", "dptr_none", "ctx_str", "char_int"):
        assert out[key][0] == "TypeError", (key, out[key])
    assert "cuuint32_t" in out["u32_over"][1] and "addressMode" in out["enum_array"][1]
    assert out["enum_non_member"] == ["int", 12345]
    assert out["none_member"] == [0, "TypeError"]
    assert out["char_roundtrip"] == [True, True]
    assert out["atomic"] == ["OverflowError", True]
    assert out["subclass"] == [5, True, "TypeError"]
    assert out["keyword_ptr"] is True
