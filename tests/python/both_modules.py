"""Runs the same cases on a generated module (the driver's, or the one the cases name) and on the
official `cuda.bindings` module of the same name and CTK major.minor, in one process, on CPU.

Both talk to the fake driver (fake_driver/fake_libcuda.c): ours opens it through
$CTKGEN_LIBCUDA, the official module finds it as `libcuda.so.1` through LD_LIBRARY_PATH (the
fixture builds it under that name). The official wheel is the one the parity check pins and
unpacks (tests/parity/official.txt).

A case is a function `case_<name>(d)` of a test module, `d` being one of the two driver
modules; it returns JSON data. Run as a script, this module imports the test module named on
the command line and prints, as one JSON line, `{case: {"ours": outcome, "official": outcome}}`,
where an outcome is `{"value": ...}` or `{"error": exception class name, "message": ...}`. A
case the official module cannot run safely is named, with the reason, in the test module's
`OURS_ONLY`; its official outcome is `{"skipped": reason}`."""
import ctypes
import importlib
import json
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parity"))
import parity  # noqa: E402


def official_path(cache, ctk):
    """The folders to put on sys.path for the official module of `ctk`'s major.minor, or None
    when that minor has no pinned release."""
    version = parity.official_versions().get(".".join(ctk.split(".")[:2]))
    return None if version is None else release_path(cache, version)


def release_path(cache, version):
    """The folders to put on sys.path for cuda-bindings `version` and what it imports."""
    others = [parity.unpacked(cache, name, v) for name, v in parity.pins() if name != "cuda-bindings"]
    return [parity.unpacked(cache, "cuda-bindings", version), *others]


def run(cases_module, our_path, official, fake_libcuda, site=None):
    """Runs every case of `cases_module` (a module name importable from this folder) on both
    modules in one fresh interpreter; returns the outcomes. The cases module's `MODULE` names
    the module they take (the driver's by default). With `fake_libcuda` None no driver can be
    reached at all (no library path, no toolkit), and `site` (a folder laid out as
    site-packages, where both modules look for NVIDIA's wheels) goes on the path."""
    if fake_libcuda is None:
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")}
        env["PYTHONPATH"] = os.pathsep.join([our_path, *official, HERE, *([site] if site else [])])
    else:
        library_dir = os.path.dirname(fake_libcuda)
        assert os.path.basename(fake_libcuda) == "libcuda.so.1", fake_libcuda
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([our_path, *official, HERE]), CTKGEN_LIBCUDA=fake_libcuda,
                   LD_LIBRARY_PATH=os.pathsep.join(p for p in [library_dir, os.environ.get("LD_LIBRARY_PATH")] if p))
    result = subprocess.run([sys.executable, os.path.abspath(__file__), cases_module], env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-6000:]
    assert "runtime error" not in result.stderr, result.stderr[-6000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def outcome(case, module):
    try:
        return {"value": case(module)}
    except Exception as error:  # noqa: BLE001 (every exception is a finding to compare)
        return {"error": type(error).__name__, "message": str(error),
                "where": traceback.format_exc(limit=-2).strip().splitlines()[-3:]}


def main(name):
    cases = importlib.import_module(name)
    module_name = getattr(cases, "MODULE", "driver")
    ours = importlib.import_module(f"ctkgen_cuda.{module_name}")
    official = importlib.import_module(f"cuda.bindings.{module_name}")

    out = {}
    for module, label in ((ours, "ours"), (official, "official")):
        if not hasattr(module, "cuInit") or "CTKGEN_LIBCUDA" not in os.environ:
            continue  # cases that make no driver call, or run with no driver at all
        fake = ctypes.CDLL(os.environ["CTKGEN_LIBCUDA"])
        fake.fake_recorded_generic_calls.restype = ctypes.c_ulong
        before = fake.fake_recorded_generic_calls()
        init = module.cuInit(0)
        module.cuDriverGetVersion()
        # Both must have reached this fake driver, never a real one.
        assert int(init[0]) == 0 and fake.fake_recorded_generic_calls() > before, (label, init)
    for case_name in sorted(n for n in dir(cases) if n.startswith("case_")):
        case = getattr(cases, case_name)
        name = case_name[len("case_"):]
        skipped = getattr(cases, "OURS_ONLY", {}).get(name)
        out[name] = {"ours": outcome(case, ours),
                     "official": {"skipped": skipped} if skipped else outcome(case, official)}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
