"""Every name cuda-core 1.2.x and numba-cuda 0.30.4 use from cuda.bindings (tests/parity/clients.toml)
exists in ours, generated as `cuda.bindings` (nothing compiled): library modules' names from their
stubs, Cython-level declarations from their `.pxd`, private modules from their sources. Prints the
report, each name marked public or private; a missing one fails unless `[[client_names]]` in
tests/parity/exceptions.toml lists it with its reason (a listed one that is present fails too)."""
import os
import re
import sys
import tomllib

import pytest

import official_pxd
import ast

from conftest import REPO, catalogue_newest, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

PACKAGE = "cuda.bindings"
# Each major's packages the names are looked for in: a name of one major's client build counts as
# ours when any of them has it (some exist from a later minor on, as the clients check).
CTKS = {12: ["12.9"], 13: ["13.1", sorted(catalogue_newest(), key=lambda v: [int(p) for p in v.split(".")])[-1]]}
with open(os.path.join(REPO, "tests", "parity", "clients.toml"), "rb") as f:
    GROUPS = tomllib.load(f)["group"]
with open(os.path.join(REPO, "tests", "parity", "exceptions.toml"), "rb") as f:
    EXCEPTIONS = tomllib.load(f).get("client_names", [])


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    """{major: [python folder of each of its packages]}, generated as `cuda.bindings`."""
    out = {}
    for major, ctks in CTKS.items():
        for ctk in dict.fromkeys(ctks):
            folder = str(tmp_path_factory.mktemp(f"clients-{ctk}"))
            xtask("generate", "--ctk", ctk, "--lang", "cython", "--python-package", PACKAGE, "--out", folder)
            out.setdefault(major, []).append(os.path.join(folder, "python"))
    return out


def stub_methods(stub):
    """{class: its methods, its stub bases' included} of a stub file."""
    tree = ast.parse(open(stub, encoding="utf-8").read())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def methods(name, seen=()):
        node = classes.get(name)
        if node is None or name in seen:
            return set()
        own = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
        for base in node.bases:
            if isinstance(base, ast.Name):
                own |= methods(base.id, (*seen, name))
        return own
    return {name: methods(name) for name in classes}


def module_files(root, module):
    """The source files of `module` in the generated package (.py, .pyx, .pyi, .pxd)."""
    base = os.path.join(root, *module.split("."))
    found = [base + ext for ext in (".py", ".pyx", ".pyi", ".pxd") if os.path.exists(base + ext)]
    init = os.path.join(base, "__init__.py")
    return found + ([init] if os.path.exists(init) else [])


def defined_in_source(files, name):
    pattern = re.compile(rf"^(?:(?:c?p?def|class)\s+{re.escape(name)}\b|{re.escape(name)}\s*=)", re.M)
    return any(pattern.search(open(f, encoding="utf-8").read()) for f in files if not f.endswith(".pxd"))


def present(root, group, name):
    module, kind = group["module"], group["kind"]
    if module == "<distribution>":
        if name == "cuda-bindings":
            return 'name = "cuda-bindings"' in open(os.path.join(root, "pyproject.toml")).read()
        return os.path.exists(os.path.join(root, *PACKAGE.split("."), "__init__.py"))
    files = module_files(root, module)
    if name == "<module>" or not files:
        return bool(files)
    short = module.rsplit(".", 1)[1]
    if kind.startswith("cimport"):
        declared = official_pxd.declared_names(next(f for f in files if f.endswith(".pxd")))
        if kind == "cimport-function":
            return name in declared["functions"]
        head, _, member = name.partition(".")
        return head in declared["types"] and (not member or member in declared["constants"])
    if name == "__pyx_capi__":
        return short.startswith("cy") and any(f.endswith(".pyx") for f in files)
    stub = next((f for f in files if f.endswith(".pyi")), None)
    if stub is None or kind == "metadata":
        return defined_in_source(files, name)
    surface = parity.stub_surface(stub)
    head, _, member = name.partition(".")
    if member == "<member>.__doc__":
        # Each member of the enum carries the header's comment on it: the enum module hands the
        # comments to the enum base it imports (or defines), which sets them on the members.
        package = module.rsplit(".", 1)[0]
        enums = next(f for f in module_files(root, package + f"._{short}_enums") if f.endswith(".py"))
        text = open(enums).read()
        base = re.search(r"^from \.([\w.]+) import \w+ as _FastEnum, _add_members$", text, re.M)
        if base:
            text += open(next(f for f in module_files(root, f"{package}.{base.group(1)}") if f.endswith(".py"))).read()
        return head in surface["enums"] and "member.__doc__ = doc" in text and "_add_members(" in text
    if member:
        return (member in surface["enums"].get(head, ()) or member in surface["members"].get(head, ())
                or member in stub_methods(stub).get(head, ()))
    return (head in surface["enums"] or head in surface["classes"] or head in surface["functions"]
            or head in surface["constants"])


def test_every_name_the_clients_use_is_ours(roots):
    listed = {(e["module"], n): e["cause"] for e in EXCEPTIONS for n in e["names"]}
    missing, stale, lines = [], [], []
    for group in GROUPS:
        names = group["names"]
        absent = [n for n in names
                  if not any(present(root, group, n) for major in group["majors"] for root in roots[major])]
        marker = "private" if group["private"] else "public"
        lines.append(f"{group['module']} ({group['kind']}, {marker}; {', '.join(group['clients'])}; "
                     f"CTK {' or '.join(v for m in group['majors'] for v in CTKS[m])}): "
                     f"{len(names) - len(absent)} of {len(names)} present"
                     + (f"; absent: {', '.join(absent)}" if absent else ""))
        missing += [(group["module"], n) for n in absent if (group["module"], n) not in listed]
        stale += [(group["module"], n) for n in names if n not in absent and (group["module"], n) in listed]
    print("\n".join(lines))
    assert not missing, f"names the clients use that ours lacks: {missing}"
    assert not stale, f"listed in [[client_names]] but present: {stale}"
