"""The Cython-level ABI of a package: what each `cy` module exports in `__pyx_capi__` (function name
and the signature string importers check), read from a compiled module or from the C file Cython
writes for it, and the names a cuda.bindings `.pxd` declares as a Cython module that must compile
against ours."""

import ctypes
import glob
import json
import os
import re
import subprocess
import sys
import tomllib

import official_pxd
from conftest import described_libraries

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

_EXPORT = re.compile(r'__Pyx_ExportFunction\("([^"]+)", \(void \(\*\)\(void\)\)\w+, "([^"]*)"\)')


def cython_modules():
    """The `cy` module of every described library (headers/libraries/<name>.toml)."""
    return [conventions["python"]["cython_module"] for conventions in described_libraries().values()]


def exports_of_c(c_file):
    """{function: signature} a module's C file (as Cython wrote it) exports."""
    with open(c_file, encoding="utf-8") as f:
        return dict(_EXPORT.findall(f.read()))


def cythonize(cython, pyx, include, out_c):
    """Runs Cython on `pyx` (C output only); returns its diagnostics, raising on failure."""
    result = subprocess.run([cython, "-3", "-I", include, pyx, "-o", out_c], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"cython {os.path.basename(pyx)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def capsule_names(module):
    """{function: signature} of an imported module's `__pyx_capi__`."""
    name_of = ctypes.pythonapi.PyCapsule_GetName
    name_of.restype = ctypes.c_char_p
    name_of.argtypes = [ctypes.py_object]
    return {name: name_of(capsule).decode() for name, capsule in getattr(module, "__pyx_capi__", {}).items()}


def official_exports(paths, package, modules):
    """{module: {function: signature}} of the official modules, imported in a fresh interpreter
    with `paths` first on sys.path (a module the release lacks is left out)."""
    code = (
        "import importlib, json, sys\n"
        f"sys.path[:0] = {paths!r}\n"
        "import cython_abi\n"
        "out = {}\n"
        f"for m in {modules!r}:\n"
        "    try:\n"
        f"        mod = importlib.import_module({package!r} + '.' + m)\n"
        "    except ImportError:\n"
        "        continue\n"
        "    out[m] = cython_abi.capsule_names(mod)\n"
        "print(json.dumps(out))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=HERE, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def compare(official, ours):
    """(absent, different) between two {function: signature} maps: every official export must be
    ours too, with the same string; ours may export more."""
    absent = sorted(set(official) - set(ours))
    different = sorted(f for f in official if f in ours and ours[f] != official[f])
    return absent, different


def declaration_exceptions(path):
    """The `[[cython_declarations]]` groups of the parity exceptions file."""
    with open(path, "rb") as f:
        return tomllib.load(f).get("cython_declarations", [])


def excepted(groups, module, minor, used):
    """A predicate over names: whether a group lists the name for `module` at `minor`. Marks in
    `used` (by group index) each group that matched a name."""
    def listed(name):
        for i, group in enumerate(groups):
            if group["module"] != module or ("ctks" in group and minor not in group["ctks"]):
                continue
            if name in group.get("names", ()) or ("pattern" in group and re.fullmatch(group["pattern"], name)):
                used.add(i)
                return True
        return False
    return listed


def declarations_probe(official_pxd_path, package, module, folder, skip=lambda name: False):
    """Writes a Cython module naming every declaration of the official `.pxd` through ours, but
    those `skip` lists (and their members); returns its path, how many it names and how many it skipped."""
    names = official_pxd.declared_names(official_pxd_path)
    skipped = 0
    for kind in ("types", "constants", "functions"):
        listed = {n for n in names[kind] if skip(n)}
        skipped += len(listed)
        names[kind] -= listed
    for record in [r for r in names["members"] if skip(r)]:
        skipped += len(names["members"].pop(record))
    path = os.path.join(folder, f"probe_{module}.pyx")
    with open(path, "w") as f:
        f.write(official_pxd.probe_source(package, module, names))
    named = sum(len(v) for k, v in names.items() if k != "members") + sum(len(v) for v in names["members"].values())
    return path, named, skipped


def library_of_cython_module():
    """{`cy` module: the described library's name (its description's file name)}."""
    return {conventions["python"]["cython_module"]: name for name, conventions in described_libraries().items()}


_EXCEPT = re.compile(r"^cdef\s.*?\b(\w+)\(.*\)\s+except\s*\?\s*(\w+)\s+nogil", re.M)
_VALUED = re.compile(r"^\s*(?:cdef enum:\s*)?(\w+)(?:\s+\"\w+\")?\s*=\s*(-?\d+)\s*$", re.M)
# A status a types header adds to the library's: `#define NAME ((type)value)`.
_DEFINED = re.compile(r"^#define (\w+) \(\(\w+\)(-?\d+)\)$", re.M)


def except_values(pxd, enum_values):
    """{function: the value it returns when it raised} of a `.pxd`'s `except ?X` declarations (a
    function whose value is NULL is left out). X is resolved from the values the file gives its
    names or the C headers beside it define, else from `enum_values` (the header's enumerators)."""
    with open(pxd, encoding="utf-8") as f:
        text = f.read()
    own = {name: int(value) for name, value in _VALUED.findall(text)}
    for header in glob.glob(os.path.join(os.path.dirname(pxd), "*.h")):
        with open(header, encoding="utf-8") as f:
            own.update((name, int(value)) for name, value in _DEFINED.findall(f.read()))
    out = {}
    for function, value in _EXCEPT.findall(text):
        if value != "NULL":
            out[function] = own[value] if value in own else enum_values[value]
    return out
