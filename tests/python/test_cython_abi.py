"""The Cython-level ABI against the official cuda.bindings of the same CTK, for every CTK with a
pinned official release (tests/parity/official.txt): compiled packages (cuda.core's modules)
import each `cdef` function of a `cy` module through its `__pyx_capi__` by name and signature
string, and Cython code written against the official `.pxd` names its declarations.

- Capsules: ours generated as `cuda.bindings`, each `cy` module run through Cython (no C compile),
  the exports read from the C file; the official ones from the imported release. Every official
  export must be ours with the same string.
- Declarations: a module naming every declaration of the official `.pxd` (types, enum members and
  macros, record members, functions) through ours must pass Cython.
- A compiled client: an extension written as a client writes it, cimporting the driver, runtime and
  NVRTC modules of the built 13.x package, imports (its capsule checks run) and calls through them.
"""
import json
import os
import subprocess
import sys
import sysconfig
import tempfile

import pytest

import cython_abi
from both_modules import official_path
from conftest import CACHE, REPO, build, catalogue_newest, catalogued_library_wheel, ir_json, wheel_library, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

OFFICIAL = parity.official_versions()
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")
MINORS = SELECTED.split(",") if SELECTED else sorted(OFFICIAL)
CYTHON = os.path.join(os.path.dirname(sys.executable), "cython")
MODULES = cython_abi.cython_modules()
PACKAGE = "cuda.bindings"


def generate(ctk, out, package=PACKAGE):
    xtask("generate", "--ctk", ctk, "--lang", "cython", "--python-package", package, "--out", out)
    return os.path.join(out, "python")


def our_exports(root, package, modules):
    """{module: {function: signature}} of our `cy` modules under `root`, through Cython."""
    folder = os.path.join(root, *package.split("."))
    out = {}
    for module in modules:
        c_file = os.path.join(root, f"{module}.c")
        cython_abi.cythonize(CYTHON, os.path.join(folder, f"{module}.pyx"), root, c_file)
        out[module] = cython_abi.exports_of_c(c_file)
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """{minor: (python folder, official sys.path)} for each pinned minor, generated once."""
    newest = catalogue_newest()
    out = {}
    for minor in MINORS:
        root = generate(newest[minor], str(tmp_path_factory.mktemp(f"abi-{minor}")))
        out[minor] = (root, official_path(CACHE, newest[minor]))
    return out


@pytest.mark.parametrize("minor", MINORS)
def test_every_official_capsule_is_ours_with_its_signature(generated, minor):
    root, paths = generated[minor]
    official = cython_abi.official_exports(paths, PACKAGE, MODULES)
    ours = our_exports(root, PACKAGE, [m for m in MODULES if m in official])
    problems = []
    for module, exports in sorted(official.items()):
        absent, different = cython_abi.compare(exports, ours[module])
        problems += [f"{module}.{f}: absent (official {exports[f]!r})" for f in absent]
        problems += [f"{module}.{f}: {ours[module][f]!r}, official {exports[f]!r}" for f in different]
        print(f"{minor} {module}: {len(exports) - len(absent) - len(different)} of {len(exports)} official "
              f"capsules identical; ours exports {len(ours[module])}")
    assert not problems, "\n".join(problems)


def test_a_signature_that_differs_is_seen():
    """Negative control: generated under another package name, the types the ABI table makes the
    module's own carry that name's prefix, so exactly the functions whose official signature names
    one differ, and the comparison reports each of them."""
    minor = "13.1" if "13.1" in OFFICIAL else sorted(OFFICIAL)[-1]
    newest = catalogue_newest()[minor]
    with tempfile.TemporaryDirectory(prefix="ctkgen-abi-") as tmp:
        root = generate(newest, tmp, package="ctkgen_other")
        official = cython_abi.official_exports(official_path(CACHE, newest), PACKAGE, MODULES)
        ours = our_exports(root, "ctkgen_other", [m for m in MODULES if m in official])
    seen = 0
    for module, exports in official.items():
        absent, different = cython_abi.compare(exports, ours[module])
        expected = sorted(f for f, sig in exports.items() if "__pyx_t_" in sig)
        assert absent == []
        assert different == expected, module
        seen += len(different)
    assert seen > 0


@pytest.mark.parametrize("minor", MINORS)
def test_every_function_raises_with_the_official_value(generated, minor):
    """A client compiled against the official `.pxd` looks for an exception only when a call
    returns the value declared there (`except ?X`): each of our functions must return the same
    one when it raised (the library or the function missing), or the client would go on with an
    error set. Values: the `.pxd`'s own (`= -42`), else the header's enumerators from the IR."""
    root, paths = generated[minor]
    libraries = cython_abi.library_of_cython_module()
    problems, counted = [], []
    for module in MODULES:
        official_pxd_file = os.path.join(paths[0], *PACKAGE.split("."), f"{module}.pxd")
        if not os.path.exists(official_pxd_file):
            continue
        with open(ir_json(catalogue_newest()[minor], libraries[module]), encoding="utf-8") as f:
            enum_values = {c["name"]: c["value"] for e in json.load(f)["enums"] for c in e["constants"]}
        official = cython_abi.except_values(official_pxd_file, enum_values)
        ours = cython_abi.except_values(os.path.join(root, *PACKAGE.split("."), f"{module}.pxd"), enum_values)
        both = sorted(set(official) & set(ours))
        problems += [f"{module}.{f}: ours {ours[f]}, official {official[f]}" for f in both if ours[f] != official[f]]
        counted.append(f"{module} {len(both)} ({sorted(set(official.values()))})")
    print(f"{minor}: except values compared: {', '.join(counted)}")
    assert counted and not problems, "\n".join(problems)


EXCEPTIONS = cython_abi.declaration_exceptions(os.path.join(REPO, "tests", "parity", "exceptions.toml"))
USED_EXCEPTIONS = set()


@pytest.mark.parametrize("minor", MINORS)
def test_official_declarations_compile_against_ours(generated, minor, tmp_path):
    root, paths = generated[minor]
    official_root = os.path.join(paths[0], *PACKAGE.split("."))
    counted = []
    for module in MODULES:
        pxd = os.path.join(official_root, f"{module}.pxd")
        if not os.path.exists(pxd):
            continue
        skip = cython_abi.excepted(EXCEPTIONS, module, minor, USED_EXCEPTIONS)
        probe, names, skipped = cython_abi.declarations_probe(pxd, PACKAGE, module, root, skip)
        cython_abi.cythonize(CYTHON, probe, root, str(tmp_path / f"probe_{module}.c"))
        counted.append(f"{module} {names} (listed {skipped})")
    print(f"{minor}: every official declaration named through ours: {', '.join(counted)}")
    assert counted


def test_every_listed_declaration_is_still_official():
    """Runs after the per-release checks: a listed group no checked release matched is stale."""
    if SELECTED:
        pytest.skip("only some releases were checked (CTKGEN_PARITY_CTKS)")
    stale = [e["cause"][:80] for i, e in enumerate(EXCEPTIONS) if i not in USED_EXCEPTIONS]
    assert not stale, stale


CLIENT = """\
# cython: language_level=3
from libc.stdio cimport printf, fflush, stdout
from {package} cimport cydriver, cyruntime, cynvrtc

cdef extern from "Python.h":
    int Py_AtExit(void (*func)() noexcept nogil)

cdef void late_call() noexcept nogil:
    # After the interpreter has finished: the first call of a function, as a client's static
    # destructors make it, holding no GIL.
    cdef int count = -1
    cdef cydriver.CUresult err = cydriver.cuDeviceGetCount(&count)
    printf(b"late call: %d\\n", <int>err)
    fflush(stdout)

def register_late_call():
    return Py_AtExit(late_call)

def driver_calls():
    cdef cydriver.CUdevice device = -1
    cdef const char *text = NULL
    cdef cydriver.CUresult init = cydriver.cuInit(0)
    cdef cydriver.CUresult got = cydriver.cuCtxGetDevice(&device)
    cydriver.cuGetErrorString(cydriver.CUDA_SUCCESS, &text)
    return int(init), int(got), device, text, int(cydriver.CUDA_ERROR_NOT_FOUND), int(cydriver.CU_IPC_HANDLE_SIZE)

def runtime_helpers():
    cdef cyruntime.cudaPos pos = cyruntime.make_cudaPos(1, 2, 3)
    cdef cyruntime.cudaExtent extent = cyruntime.make_cudaExtent(4, 5, 6)
    cdef cyruntime.cudaChannelFormatDesc desc = cyruntime.cudaCreateChannelDesc(8, 8, 0, 0, cyruntime.cudaChannelFormatKindUnsigned)
    cdef cyruntime.anon_struct0 *unused = NULL
    return (pos.x, pos.y, pos.z), (extent.width, extent.height, extent.depth), (desc.x, desc.y, desc.z, desc.w, <int>desc.f)

def runtime_versions():
    cdef int local = -1, runtime = -1
    cdef cyruntime.cudaError_t a = cyruntime.getLocalRuntimeVersion(&local)
    cdef cyruntime.cudaError_t b = cyruntime.cudaRuntimeGetVersion(&runtime)
    return int(a), local, int(b), runtime

def nvrtc_version():
    cdef int major = -1, minor = -1
    err = cynvrtc.nvrtcVersion(&major, &minor)
    return int(err), major, minor
"""


def test_a_compiled_client_imports_and_calls_through_our_cy_modules(tmp_path, fake_libcuda):
    """An extension that cimports the 13.x package's cy modules as a client does: compiling it checks
    the declarations, importing it checks every capsule it uses, the calls reach the libraries, and a function first called after the interpreter has finished
    (from a `Py_AtExit` hook, as a client's static destructors call) works without Python."""
    ctk = "13.1"
    site = build(ctk)
    package = next(p for p in os.listdir(site) if os.path.isdir(os.path.join(site, p, "")) and
                   os.path.exists(os.path.join(site, p, "cydriver.pxd")))
    client = tmp_path / "abi_client.pyx"
    client.write_text(CLIENT.format(package=package))
    c_file = tmp_path / "abi_client.c"
    cython_abi.cythonize(CYTHON, str(client), site, str(c_file))
    so = tmp_path / ("abi_client" + sysconfig.get_config_var("EXT_SUFFIX"))
    # The package's own folder (its types headers) and the headers it ships under include/.
    includes = [sysconfig.get_paths()["include"], os.path.join(site, package), os.path.join(site, "include")]
    subprocess.run(["cc", "-O0", "-shared", "-fPIC", "-Wall", "-Werror=incompatible-pointer-types",
                    *[f"-I{i}" for i in includes], str(c_file), "-o", str(so)], check=True)
    newest = catalogue_newest()[ctk]
    runtime = wheel_library(*catalogued_library_wheel(ctk, "cuda_runtime_api.h"), "libcudart")[1]
    nvrtc = wheel_library(*catalogued_library_wheel(ctk, "nvrtc.h"), "libnvrtc")[1]
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import abi_client as c\n"
        "import importlib, cython_abi, json\n"
        "capi = {m: cython_abi.capsule_names(importlib.import_module(sys.argv[3] + '.' + m)) for m in sys.argv[4:]}\n"
        "print(json.dumps(capi))\n"
        "print(c.driver_calls()); print(c.runtime_helpers()); print(c.runtime_versions()); print(c.nvrtc_version())\n"
        "assert c.register_late_call() == 0; sys.stdout.flush()\n"
    )
    env = dict(os.environ, CTKGEN_LIBCUDA=fake_libcuda, CTKGEN_LIBCUDART=runtime, CTKGEN_LIBNVRTC=nvrtc)
    modules = ["cydriver", "cyruntime", "cynvrtc"]
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path), site, package, *modules], env=env,
                            capture_output=True, text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # The library loaded, a function first called after the interpreter finished resolves in C.
    assert lines[-1] == "late call: 0", result.stdout[-2000:]
    lines = lines[:-1]
    driver, helpers, versions, nvrtc_result = [eval(line) for line in lines[-4:]]
    # The compiled modules export what the C files say: the capsule check on C files is sound.
    assert json.loads(lines[-5]) == our_exports(site, package, modules)
    # The fake driver's cuCtxGetDevice writes 7 and cuGetErrorString says "no error" for success.
    assert driver == (0, 0, 7, b"no error", 500, 64), driver
    assert helpers == ((1, 2, 3), (4, 5, 6), (8, 8, 0, 0, 1))
    major, minor = (int(p) for p in newest.split(".")[:2])
    assert versions == (0, major * 1000 + minor * 10, 0, major * 1000 + minor * 10), versions
    assert nvrtc_result == (0, major, minor)

