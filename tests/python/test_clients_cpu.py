"""The libraries built on cuda.bindings, on ours as the only cuda.bindings, on CPU: the official
cuda-core and numba-cuda wheels installed `--no-deps` into the fresh virtual environment that holds
our wheel (generated as `cuda.bindings`; the fixture of test_as_cuda_bindings.py), with the pure
packages they need and the CTK's library wheels (runtime, NVRTC, nvJitLink, NVVM), all pinned
below and downloaded once into $CTKGEN_CACHE/client-wheels. Then `client_programs.py offline`
(tests/gpu/python: what needs no GPU — imports, cuda.core's Program from C++ to PTX, cubin and
LTO-IR, its Linker over nvJitLink, numba-cuda's compile_ptx and LTO-IR) runs on ours and, in the
same environment with the official cuda.bindings of the same CTK minor first on the path (the
parity pin), on the official package; the results (digests of everything compiled, symbol maps,
warnings) must be equal. cuda.core asks the driver for its version before it compiles PTX: the
fake driver answers (ours through CTKGEN_LIBCUDA, the official one as libcuda.so.1).

cuda.core imports some of the modules the official release of its CTK has (`cynvvm`,
`cynvjitlink`, and from 13.2 on `nvml`): where its import fails on ours, the comparison asserts
that it fails on such a module, one the package lacks, and skips, naming the missing ones. The GPU side of the
same programs is tests/gpu/clients.sh."""
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

import both_modules
import client_sources
from conftest import CACHE, REPO, run
from test_as_cuda_bindings import venv  # noqa: F401 (the fixture: our wheel alone in a fresh venv)

PROGRAMS = os.path.join(REPO, "tests", "gpu", "python", "client_programs.py")
LOOKUPS = os.path.join(REPO, "tests", "python", "client_lookups.py")
with open(os.path.join(REPO, "tests", "parity", "clients.toml"), "rb") as f:
    TABLE = tomllib.load(f)
# The clients as published, and the pure packages they need (numba's own bound keeps numpy < 2.6).
CLIENTS = ["cuda-core==1.2.2", "numba-cuda==0.30.4"]
DEPENDENCIES = ["cuda-pathfinder==1.9.1", "numba==0.68.1", "llvmlite==0.50.0", "numpy==2.2.6", "packaging==26.4"]


def library_wheels(ctk):
    """[package==version] of the CTK's runtime, NVRTC, nvJitLink and NVVM wheels: the catalogue's
    pins for the newest release of `ctk`; nvJitLink and NVVM, where the catalogue has no pin for
    them yet, at the NVRTC wheel's version (one version for the three in 13.x releases)."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = [r for r in tomllib.load(f)["release"] if r["ctk"].startswith(ctk + ".")]
    release = max(releases, key=lambda r: [int(p) for p in r["ctk"].split(".")])
    companions = {c["extra"]: (c["package"], c["wheel_version"]) for c in release.get("companion", [])}
    nvrtc = companions["nvrtc"]
    suffix = nvrtc[0][len("nvidia-cuda-nvrtc"):]  # "" on 13.x, "-cu12" on 12.x
    wanted = [(release["package"], release["wheel_version"]), nvrtc,
              companions.get("nvjitlink", (f"nvidia-nvjitlink{suffix}", nvrtc[1])),
              companions.get("nvvm", (f"nvidia-nvvm{suffix}", nvrtc[1]))]
    return [f"{name}=={version}" for name, version in wanted]


def downloaded(requirements):
    """The wheels of `requirements` (each pinned, no dependencies) for this interpreter, downloaded
    once into the cache; returns their paths."""
    key = hashlib.sha256(f"{sorted(requirements)}|{sys.version_info[:2]}".encode()).hexdigest()[:16]
    folder = os.path.join(CACHE, "client-wheels", key)
    if not os.path.exists(os.path.join(folder, ".complete")):
        os.makedirs(os.path.join(CACHE, "locks"), exist_ok=True)
        with open(os.path.join(CACHE, "locks", f"client-wheels-{key}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(os.path.join(folder, ".complete")):
                partial = f"{folder}.{os.getpid()}"
                shutil.rmtree(partial, ignore_errors=True)
                run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "--dest",
                     partial, *requirements])
                open(os.path.join(partial, ".complete"), "w").close()
                shutil.rmtree(folder, ignore_errors=True)
                os.rename(partial, folder)
    wheels = sorted(glob.glob(os.path.join(folder, "*.whl")))
    assert len(wheels) == len(requirements), wheels
    return wheels


@pytest.fixture(scope="module")
def clients(venv):  # noqa: F811 (pytest's fixture argument)
    """The venv of test_as_cuda_bindings (our wheel alone) with the clients, their pure dependencies
    and the CTK's library wheels installed, offline and without dependency resolution."""
    ctk, interpreter, wheel = venv
    wheels = downloaded(CLIENTS + DEPENDENCIES + library_wheels(ctk))
    run([interpreter, "-m", "pip", "install", "-q", "--no-deps", "--no-index", *wheels])
    site = subprocess.run([interpreter, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    official = both_modules.official_path(CACHE, ctk)
    missing = [] if official is None else [m for m in official_extension_modules(official[0])
                                           if not any(n.startswith(f"cuda/bindings/{m}.") for n in names)]
    return ctk, interpreter, site, missing


def official_extension_modules(root):
    """The compiled modules of an unpacked official release, as `name` or `_internal/name`."""
    out = []
    for folder in ("", "_internal"):
        for name in sorted(os.listdir(os.path.join(root, "cuda", "bindings", folder))):
            if name.endswith(".so"):
                out.append(os.path.join(folder, name.split(".")[0]))
    return out


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH")
           and not k.startswith("CTKGEN_LIB")}
    env.update(extra)
    return env


def offline(interpreter, env, *args):
    """Runs the offline program; returns (exit status, its JSON object)."""
    result = subprocess.run([interpreter, PROGRAMS, "offline", *args], env=env, capture_output=True, text=True,
                            cwd="/", timeout=900)
    assert result.stdout.strip(), f"no output (exit {result.returncode}):\n{result.stderr[-4000:]}"
    return result.returncode, json.loads(result.stdout)


@pytest.fixture(scope="module")
def official_run(clients, fake_libcuda):
    """The offline program on the official cuda.bindings of the same CTK minor (first on the path,
    so the same clients import it), against the fake driver as libcuda.so.1."""
    ctk, interpreter, _, _ = clients
    official = both_modules.official_path(CACHE, ctk)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for {ctk}")
    env = clean_env(PYTHONPATH=official[0], LD_LIBRARY_PATH=os.path.dirname(fake_libcuda))
    return offline(interpreter, env)


@pytest.fixture(scope="module")
def ours_run(clients, fake_libcuda):
    _, interpreter, site, _ = clients
    return offline(interpreter, clean_env(CTKGEN_LIBCUDA=fake_libcuda), "--expect-bindings", site)


def test_pip_takes_ours_for_what_the_clients_require(clients):
    """`pip check`: numba-cuda's `cuda-bindings>=12.9.1,<14` (and every other requirement of the
    installed clients) is met, by our distribution: the venv holds no other cuda-bindings."""
    _, interpreter, _, _ = clients
    check = subprocess.run([interpreter, "-m", "pip", "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    listed = subprocess.run([interpreter, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True,
                            check=True)
    versions = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
    assert versions["cuda-core"] == "1.2.2" and versions["numba-cuda"] == "0.30.4", versions
    assert versions["cuda-bindings"].startswith(clients[0] + "."), versions


def test_ours_is_the_only_cuda_bindings(ours_run, clients):
    _, _, site, _ = clients
    status, out = ours_run
    assert status != 2, out["bindings"]
    bindings = out["bindings"]
    assert bindings["file"] == os.path.join(site, "cuda", "bindings", "__init__.py"), bindings
    assert bindings["other_cuda_bindings_on_path"] == [], bindings
    assert bindings["version"] == bindings["distribution"], bindings
    assert len(bindings["distributions_named_cuda_bindings"]) == 1, bindings


def test_the_official_package_runs_the_offline_program(official_run):
    """The reference side: everything runs and is available (nvJitLink and NVVM from their wheels),
    so a comparison with ours compares results, not absences."""
    status, out = official_run
    assert status == 0 and not out["failed"], json.dumps(out["results"], indent=1)[-6000:] + str(
        out["info"].get("tracebacks"))
    results = out["results"]
    assert "unavailable" not in json.dumps(results), results
    assert results["imports"] == {"cuda.core": "1.2.2", "numba.cuda_from_numba_cuda": True}
    program = results["program"]
    assert [program[t]["code_type"] for t in ("ptx", "cubin", "ltoir")] == ["ptx", "cubin", "ltoir"]
    assert program["ptx"]["symbol_mapping"] == program["cubin"]["symbol_mapping"] != {}
    assert results["link_ltoir"]["elf"] and results["link_ptx"]["elf"]
    assert set(results["numba_compile_ptx"]) == {"add_squares", "block_sum", "combine", "enum_globals"}


def test_ours_gives_the_official_results(ours_run, official_run, clients):
    _, _, _, missing = clients
    status, out = ours_run
    error = out["results"]["imports"].get("error")
    if error is not None:
        # The clients stop at import: only on one of the official modules the package does not
        # have yet.
        if error.startswith("ModuleNotFoundError: No module named 'cuda.bindings."):
            named = error.split("'")[1][len("cuda.bindings."):].replace(".", "/")
        else:  # `from cuda.bindings import nvml`
            assert error.startswith("ImportError: cannot import name "), out["results"]
            named = re.match(r"ImportError: cannot import name '?(\w+)", error).group(1)
        assert named in missing, (named, missing)
        pytest.skip(f"the package has no {', '.join(missing)} yet: cuda.core stops at import ({error})")
    official = official_run[1]["results"]
    differences = {step: {"ours": out["results"].get(step), "official": official[step]}
                   for step in official if out["results"].get(step) != official[step]}
    assert not differences, json.dumps(differences, indent=1)[-8000:]
    assert status == 0 and not out["failed"], out["info"].get("tracebacks")


def uncovered(found, major):
    """The (module, name) of `found` that tests/parity/clients.toml has not for CTK `major`, nor
    leaves out; a name counts as there when the table has it or one of its members (`X.Y`)."""
    listed = {(g["module"], n) for g in TABLE["group"] if major in g["majors"] for n in g["names"]}
    listed |= {(g["module"], n.split(".")[0]) for g in TABLE["group"] if major in g["majors"] for n in g["names"]}
    listed |= {(x["module"], x["name"]) for x in TABLE["left_out"]}
    return sorted(set(found) - listed)


def official_modules(ctk):
    """The module names of the official package of `ctk` and those the table names."""
    root = both_modules.official_path(CACHE, ctk)[0]
    modules = {g["module"] for g in TABLE["group"] if g["module"] != "<distribution>"}
    for folder, _, files in os.walk(os.path.join(root, "cuda", "bindings")):
        for name in files:
            if name.endswith((".py", ".so", ".pyx")):
                module = os.path.relpath(os.path.join(folder, name), root).split(".")[0].replace(os.sep, ".")
                modules.add(module.removesuffix(".__init__"))
    return modules


def test_the_table_has_every_name_the_clients_sources_use(clients):
    """The Python files of both client wheels (their test suites included), read again: each module
    of cuda.bindings they import, each name imported from one, each attribute read of one, and the
    driver functions numba-cuda calls through its `driver` object."""
    ctk, _, _, _ = clients
    if both_modules.official_path(CACHE, ctk) is None:
        pytest.skip(f"no official cuda-bindings release pinned for {ctk}")
    modules = official_modules(ctk)
    wheels = [w for w in downloaded(CLIENTS + DEPENDENCIES + library_wheels(ctk))
              if os.path.basename(w).startswith(("cuda_core-", "numba_cuda-"))]
    found = {name: client_sources.wheel_uses(wheel, modules, skip=()) for name, wheel in
             zip(["cuda-core", "numba-cuda"], wheels)}
    # numba-cuda's `driver` object forwards every attribute to cuda.bindings.driver.
    found["numba-cuda"] |= client_sources.forwarded_uses(wheels[1], "driver", "cuda.bindings.driver", r"cu[A-Z]\w+",
                                                         skip=())
    assert all(len(uses) > 5 for uses in found.values()), found
    # The comparison itself can fail: a name the sources use, taken from the table, is reported.
    taken = ("cuda.bindings.driver", "CUstream_flags")
    assert taken in found["numba-cuda"]
    saved = TABLE["group"]
    TABLE["group"] = [dict(g, names=[n for n in g["names"] if n.split(".")[0] != taken[1]]) for g in saved]
    try:
        assert uncovered(found["numba-cuda"], int(ctk.split(".")[0])) == [taken, (taken[0], f"{taken[1]}.CU_STREAM_DEFAULT")]
    finally:
        TABLE["group"] = saved
    missing = {client: uncovered(uses, int(ctk.split(".")[0])) for client, uses in found.items()}
    assert not any(missing.values()), f"used by the clients, not in tests/parity/clients.toml: {missing}"
    # A use the table leaves out must still be one: a stale entry fails.
    stale = [x for x in TABLE["left_out"] if not any((x["module"], x["name"]) in uses for uses in found.values())]
    assert not stale, f"left out in tests/parity/clients.toml, but no client uses it: {stale}"


@pytest.mark.parametrize("major", [13, 12])
def test_the_table_has_every_function_cuda_core_takes(clients, major):
    """Every C function cuda-core's compiled modules look up in the official package's `cy`
    modules as they import (client_lookups.py): a missing one would stop `import cuda.core` on a
    package that the table's check passed. cuda-core imports its build for the major of the
    cuda.bindings it finds: the venv's CTK for 13, the newest pinned 12.x release for 12."""
    ctk, interpreter, _, _ = clients
    if major != int(ctk.split(".")[0]):
        ctk = max((v for v in both_modules.parity.official_versions() if v.startswith(f"{major}.")),
                  key=lambda v: [int(p) for p in v.split(".")])
    official = both_modules.official_path(CACHE, ctk)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for {ctk}")
    result = subprocess.run([interpreter, LOOKUPS], env=clean_env(PYTHONPATH=os.pathsep.join(official)),
                            capture_output=True, text=True, cwd="/", timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    out = json.loads(result.stdout)
    # Modules that need what this environment has not: PyTorch's symbols, or NVML (see [[left_out]]).
    unexpected = {m: e for m, e in out["failed"].items() if "aoti_torch" not in e and "nvml" not in e}
    assert not unexpected, unexpected
    found = {(module, name) for module, names in out["lookups"].items() for name in names}
    assert len(out["lookups"].get("cuda.bindings.cydriver", [])) > 100, out["lookups"].keys()
    assert not uncovered(found, major), uncovered(found, major)
