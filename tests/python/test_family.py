"""The package's modules as one family: a library that depends on another (the runtime on the
driver) takes the other's classes for the C declarations both have, and its handles over a
struct the other has a handle for derive from that handle's class, so every call of either
module takes the other's objects. Run against fakes of both libraries (CPU only).

The relations expected are computed here from the two libraries' IR (a runtime handle typedef
and a driver handle typedef pointing at one struct tag), not listed by hand."""
import json
import os
import tomllib

import pytest

from conftest import REPO, fake_library, ir_json, probe


def descriptions():
    """{library: its description} of the libraries that depend on another one."""
    out = {}
    for name in sorted(os.listdir(os.path.join(REPO, "headers", "libraries"))):
        if name.endswith(".toml") and name.count(".") == 1:
            with open(os.path.join(REPO, "headers", "libraries", name), "rb") as f:
                out[name[:-5]] = tomllib.load(f)
    return out


DESCRIPTIONS = descriptions()
DEPENDENT = [(lib, dep) for lib, d in DESCRIPTIONS.items() for dep in d.get("depends_on", [])]


def fake_of(library, ctk, tmp_path, fake_libcuda):
    """The fake a library loads: the fake driver, whose entry-point lookup the driver module
    uses, or the generic recording fake built from the library's IR."""
    if library == "cuda-driver":
        return fake_libcuda
    return fake_library(str(tmp_path), ir_json(ctk, library), f"lib{library}-fake.so")


def handle_tags(ir):
    """{handle typedef: struct tag it points at} (typedef T struct tag *)."""
    out = {}
    for t in ir["typedefs"]:
        ty = t["ty"]
        if ty["kind"] == "pointer" and ty["pointee"]["kind"] == "record":
            out[t["name"]] = ty["pointee"]["name"]
    return out


PROBE = r'''
import json, importlib
lib = importlib.import_module("ctkgen_cuda." + {module!r})
dep = importlib.import_module("ctkgen_cuda." + {dep_module!r})
fake = __import__("ctypes").CDLL({fake_dep!r})
fake.fake_recorded_arg.restype = __import__("ctypes").c_uint64
out = {{"derived": {{}}, "calls": {{}}}}
for ours, theirs in {pairs!r}:
    a, b = getattr(lib, ours, None), getattr(dep, theirs, None)
    out["derived"][ours] = None if a is None or b is None else issubclass(a, b)
# Shared declarations are one class: the dependent module exports the other's object itself.
out["same"] = sorted(n for n in dir(lib) if not n.startswith("_") and isinstance(getattr(lib, n), type)
                     and getattr(dep, n, None) is getattr(lib, n))
# A handle made by the dependent module goes into the other's call, by value.
calls = {calls!r}
for ours, call in calls:
    h = getattr(lib, ours)(0x5A5A1000)
    fn = getattr(dep, call)
    err = fn(h)
    out["calls"][call] = [int(err[0]) if isinstance(err, tuple) else int(err), int(fake.fake_recorded_arg(0))]
print(json.dumps(out))
'''


@pytest.mark.parametrize("library,dependency", DEPENDENT)
def test_handles_over_a_shared_struct_derive_from_the_dependency(package, tmp_path, fake_libcuda, library,
                                                                  dependency):
    ctk, path = package
    ours, theirs = DESCRIPTIONS[library], DESCRIPTIONS[dependency]
    with open(ir_json(ctk, library)) as f:
        ir = json.load(f)
    with open(ir_json(ctk, dependency)) as f:
        dep_ir = json.load(f)
    their_tags = {}
    for name, tag in sorted(handle_tags(dep_ir).items()):
        their_tags.setdefault(tag, name)
    pairs = sorted((name, their_tags[tag]) for name, tag in handle_tags(ir).items() if tag in their_tags)
    assert pairs, "the libraries share no handle struct"
    # One call per related handle whose dependency function takes exactly that handle.
    single = {f["name"]: f["params"][0]["ty"].get("name") for f in dep_ir["functions"] if len(f["params"]) == 1}
    calls = sorted({(o, fn) for o, t in pairs for fn, ty in single.items() if ty == t})
    fake_dep = fake_of(dependency, ctk, tmp_path, fake_libcuda)
    fake_ours = fake_of(library, ctk, tmp_path, fake_libcuda)
    env = {theirs["python"]["library_path_env_var"]: fake_dep, ours["python"]["library_path_env_var"]: fake_ours}
    out = probe(path, PROBE.format(module=ours["python"]["module"], dep_module=theirs["python"]["module"],
                                   fake_dep=fake_dep, pairs=pairs, calls=calls), env)
    not_derived = sorted(k for k, v in out["derived"].items() if v is False)
    assert not not_derived, f"{library} handles that do not derive from {dependency}'s: {not_derived}"
    assert calls, "no single-handle call to try"
    for call, (err, recorded) in out["calls"].items():
        assert (err, recorded) == (0, 0x5A5A1000), call
    print(f"\n{ctk} {library} -> {dependency}: {sum(1 for v in out['derived'].values() if v)} handle classes derive, "
          f"{len(out['calls'])} calls take them, {len(out['same'])} shared classes: {', '.join(out['same'])}")


FAMILY_PROBE = r'''
import json
from ctkgen_cuda import driver, runtime
out = {}
s = runtime.cudaStream_t(0x1000)
out["runtime stream is a driver stream"] = isinstance(s, driver.CUstream)
out["driver stream is not a runtime stream"] = not isinstance(driver.CUstream(1), runtime.cudaStream_t)
# Records shared by tag are one class; the runtime's own name for it derives from it.
out["CUuuid_st shared"] = runtime.CUuuid_st is driver.CUuuid_st
out["cudaUUID_t derives"] = issubclass(runtime.cudaUUID_t, driver.CUuuid_st)
prop = runtime.cudaDeviceProp()
out["nested view is the runtime alias"] = type(prop.uuid).__name__
# The member takes its own typedef's class, as cuda.bindings' does (a driver CUuuid_st is refused).
try:
    prop.uuid = driver.CUuuid_st()
    out["member refuses the base class"] = False
except TypeError:
    out["member refuses the base class"] = True
u = runtime.cudaUUID_t()
u.bytes = b"0123456789abcdef"
prop.uuid = u
out["uuid bytes"] = prop.uuid.bytes.decode()
# A runtime stream in a runtime call, a driver stream in a runtime call, and the reverse.
out["runtime call, driver stream"] = int(runtime.cudaStreamQuery(driver.CUstream(0x2000))[0])
out["driver call, runtime stream"] = int(driver.cuStreamQuery(runtime.cudaStream_t(0x3000))[0])
print(json.dumps(out))
'''


def test_runtime_and_driver_objects_cross(package, tmp_path, fake_libcuda):
    """The runtime (a library that depends on the driver) and the driver pass objects both ways."""
    ctk, path = package
    if "cuda-runtime" not in DESCRIPTIONS:
        pytest.skip("no runtime description")
    env = {}
    for library in ("cuda-driver", "cuda-runtime"):
        env[DESCRIPTIONS[library]["python"]["library_path_env_var"]] = fake_of(library, ctk, tmp_path, fake_libcuda)
    out = probe(path, FAMILY_PROBE, env)
    assert out == {
        "runtime stream is a driver stream": True,
        "driver stream is not a runtime stream": True,
        "CUuuid_st shared": True,
        "cudaUUID_t derives": True,
        "nested view is the runtime alias": "cudaUUID_t",
        "member refuses the base class": True,
        "uuid bytes": "0123456789abcdef",
        "runtime call, driver stream": 0,
        "driver call, runtime stream": 0,
    }


UTILS_PROBE = r'''
import json, sys, importlib.util
from ctkgen_cuda import driver, nvrtc, runtime, utils
out = {{}}
out["handles"] = [utils.get_cuda_native_handle(h) for h in
                  (driver.CUstream(0x1234), runtime.cudaStream_t(0x5678), runtime.cudaEvent_t(9), nvrtc.nvrtcProgram(7),
                   driver.CUcontext(0))]
errors = []
for bad in (5, object(), driver.CUuuid_st(), None):
    try:
        utils.get_cuda_native_handle(bad)
        errors.append("no error")
    except TypeError as e:
        errors.append(str(e))
out["errors"] = errors
# The official helpers, loaded from the pinned release's own files (pure Python), side by side.
spec = importlib.util.spec_from_file_location("official_ptx", {official_ptx!r})
official = importlib.util.module_from_spec(spec)
spec.loader.exec_module(official)
versions = sorted(official._ptx_to_cuda) + ["0.9", "99.0", "8", ""]
def outcome(f, *args):
    try:
        return ["ok", f(*args)]
    except Exception as e:
        return [type(e).__name__]
out["required"] = {{v: [outcome(utils.get_minimal_required_cuda_ver_from_ptx_ver, v),
                      outcome(official.get_minimal_required_cuda_ver_from_ptx_ver, v)] for v in versions}}
texts = ["//\n.version 8.8\n.target sm_90\n", ".version   9.1\n", ".target sm_90\n", "", ".version 12.34 x"]
out["ptx"] = [[outcome(utils.get_ptx_ver, t), outcome(official.get_ptx_ver, t)] for t in texts]
out["ptx_bytes"] = utils.get_ptx_ver(b".version 8.8\n")
print(json.dumps(out))
'''


def test_utils_follow_the_official_helpers(package, tmp_path, fake_libcuda):
    """utils: any module's handle gives its value, anything else a TypeError naming its type; the
    PTX helpers agree with the pinned official release's on every version it knows."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
    import parity
    from conftest import CACHE
    ctk, path = package
    minor = ".".join(ctk.split(".")[:2])
    official_root = parity.unpacked(CACHE, "cuda-bindings", parity.official_versions()[minor])
    official_ptx = os.path.join(official_root, "cuda", "bindings", "utils", "_ptx_utils.py")
    env = {DESCRIPTIONS["cuda-driver"]["python"]["library_path_env_var"]: fake_libcuda}
    out = probe(path, UTILS_PROBE.format(official_ptx=official_ptx), env)
    assert out["handles"] == [0x1234, 0x5678, 9, 7, 0]
    assert [e.split(":")[0] for e in out["errors"]] == ["Unknown type"] * 4
    assert "'int'" in out["errors"][0] and "CUuuid_st" in out["errors"][2], out["errors"]
    for version, (ours, theirs) in out["required"].items():
        assert ours == theirs, version
    assert sum(1 for ours, _ in out["required"].values() if ours[0] == "ok") >= 40
    for ours, theirs in out["ptx"]:
        assert ours == theirs
    assert out["ptx_bytes"] == "8.8"


HELPERS_PROBE = r'''
import json, sys
sys.path[:0] = {official_path!r}
from cuda.bindings import runtime as official
sys.path[:0] = [{ours_path!r}]
from ctkgen_cuda import runtime as ours
out = {{}}
for name, helper in {helpers!r}.items():
    args = list(range(3, 3 + len(helper["params"])))
    mine = getattr(ours, name)(*args)
    record = mine[1] if helper.get("status_first") else mine
    got = {{f: int(getattr(record, f)) for f in helper["fields"]}}
    entry = {{"ours": got, "type": type(record).__name__,
             "status": int(mine[0]) if helper.get("status_first") else None}}
    try:
        theirs = getattr(official, name)(*args)
        theirs = theirs[1] if helper.get("status_first") else theirs
        entry["official"] = {{f: int(getattr(theirs, f)) for f in helper["fields"]}}
    except Exception as e:  # a helper that calls the library (none is loaded here)
        entry["official"] = type(e).__name__
    out[name] = entry
print(json.dumps(out))
'''


def test_record_helpers_make_what_the_official_ones_make(package):
    """The description's record helpers (make_cudaPos, ...) give records of the fields the
    official module's helpers give for the same arguments (where those need no library)."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
    import parity
    from conftest import CACHE
    ctk, path = package
    minor = ".".join(ctk.split(".")[:2])
    official = [parity.unpacked(CACHE, "cuda-bindings", parity.official_versions()[minor])]
    official += [parity.unpacked(CACHE, name, v) for name, v in parity.pins() if name != "cuda-bindings"]
    for library, description in DESCRIPTIONS.items():
        helpers = description["python"].get("record_helpers", {})
        if not helpers:
            continue
        module = description["python"]["module"]
        out = probe(path, HELPERS_PROBE.replace("runtime as", f"{module} as").format(
            official_path=official, ours_path=path, helpers=helpers))
        compared = 0
        for name, entry in out.items():
            fields = helpers[name]["fields"]
            assert entry["ours"] == {f: 3 + i for i, f in enumerate(fields)}, name
            assert entry["type"] == helpers[name]["record"], name
            if helpers[name].get("status_first"):
                assert entry["status"] == 0, name
            if isinstance(entry["official"], dict):
                assert entry["ours"] == entry["official"], name
                compared += 1
        assert compared >= len(helpers) - 1, out


MAJOR_CHECK_PROBE = r'''
import json, warnings
from ctkgen_cuda import driver, utils
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    utils.warn_if_cuda_major_version_mismatch()
    utils.warn_if_cuda_major_version_mismatch()
err, version = driver.cuDriverGetVersion()
print(json.dumps({"warnings": [(w.category.__name__, str(w.message)) for w in caught],
                  "driver": [int(err), version], "ours": driver.CUDA_VERSION}))
'''


def test_the_major_version_check_warns_once_and_is_silenced_by_its_variable(package, fake_libcuda):
    """The fake driver reports version 0, an older major than any package's: the first call warns
    (UserWarning, naming the switch), the second does nothing; the switch silences it; `0` does not."""
    ctk, path = package
    env = {"CTKGEN_LIBCUDA": fake_libcuda}
    warned = probe(path, MAJOR_CHECK_PROBE, env)
    assert warned["driver"] == [0, 0] and warned["ours"] // 1000 == int(ctk.split(".")[0])
    assert [w[0] for w in warned["warnings"]] == ["UserWarning"], warned
    assert "CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING=1" in warned["warnings"][0][1]
    for value, expected in (("1", 0), ("yes", 0), ("0", 1), ("", 1)):
        out = probe(path, MAJOR_CHECK_PROBE, dict(env, CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING=value))
        assert len(out["warnings"]) == expected, (value, out)
