"""The enum classes clients recognise: for every CTK minor with a pinned official release
(tests/parity/official.txt; CTKGEN_PARITY_CTKS limits them), every enum of every module of ours,
generated as `cuda.bindings` (only the pure-Python enum modules are loaded, nothing compiled),
against the official release of the same CTK (`enum_classes_probe.py`, each side in its own
interpreter). numba-cuda types a global that is an enum class or member only when the class
derives from `cuda.bindings._internal._fast_enum.FastEnum` with the metaclass
`FastEnumMetaclass` (its `typeof` registrations), so:

- every enum of ours derives from the package's enum base (headers/package.toml `[private]`) and
  has its metaclass, whatever the official release of the CTK does;
- where the official enum derives from the official enum base, ours behaves as it does under the
  uses the base supports (iteration, len, `in`, lookup by value, names, aliases, name and value,
  pickling, repr), compared member by member over the names both have;
- where the official release used `enum.IntEnum` (13.0 and 13.1), the report says so.

Differences explained in `[[enum_classes]]` of tests/parity/exceptions.toml (by aspect and CTK)
pass; a listed one no checked CTK shows fails. A negative control plants the defect this test is
for (one class on a look-alike base, the design before) and a broken singleton, and sees both
reported."""
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from both_modules import release_path
from conftest import CACHE, REPO, catalogue_newest, compatible_modules, package_description, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "cuda.bindings"
PRIVATE = package_description()["private"]
PRIVATE_ARG = ",".join(PRIVATE[k] for k in ("internal_package", "enum_module", "enum_class", "enum_metaclass"))
MODULES = ",".join(compatible_modules())
OFFICIAL = parity.official_versions()
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")
MINORS = SELECTED.split(",") if SELECTED else sorted(OFFICIAL, key=lambda v: [int(p) for p in v.split(".")])
with open(os.path.join(REPO, "tests", "parity", "exceptions.toml"), "rb") as f:
    EXPLAINED = tomllib.load(f).get("enum_classes", [])


def probe(side, root, paths=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths)) if paths else dict(os.environ)
    result = subprocess.run([sys.executable, "-W", "ignore", os.path.join(HERE, "enum_classes_probe.py"), side, root,
                             PACKAGE, MODULES, PRIVATE_ARG], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-6000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """{minor: the generated package's root folder (holding `cuda/bindings`)}, made on first use."""
    folders = {}

    def get(minor):
        if minor not in folders:
            out = str(tmp_path_factory.mktemp(f"enums-{minor}"))
            xtask("generate", "--ctk", catalogue_newest()[minor], "--lang", "cython", "--python-package", PACKAGE,
                  "--out", out)
            folders[minor] = os.path.join(out, "python")
        return folders[minor]
    return get


def official_side(minor):
    return probe("official", "-", release_path(CACHE, OFFICIAL[minor]))


def base_problems(module, name, mine):
    """What is wrong with one enum class of ours, whatever the official release does."""
    out = []
    internal = f"{PACKAGE}.{PRIVATE['internal_package']}.{PRIVATE['enum_module']}"
    if mine["kind"] != "FastEnum" or f"{internal}.{PRIVATE['enum_class']}" not in mine["bases"]:
        out.append(f"{module}.{name}: derives from {mine['bases']}, not {internal}.{PRIVATE['enum_class']}")
    if not mine["package_metaclass"]:
        out.append(f"{module}.{name}: metaclass {mine['metaclass']}, not {internal}.{PRIVATE['enum_metaclass']}")
    return out


def behaviour_differences(mine, theirs):
    """[(aspect, what)] where ours behaves otherwise than the official class, over the names
    both have. Aspects: `class` (repr, len, an absent value), `members` (a name whose value no
    other name has), `iteration` (order of those names), `aliases` (values with several names)."""
    out = []
    for key in ("repr", "len_counts_iteration", "absent"):
        if mine[key] != theirs[key]:
            out.append(("class", f"{key}: ours {mine[key]!r}, official {theirs[key]!r}"))
    common = [n for n in theirs["members"] if n in mine["members"]]
    for name in common:
        if mine["members"][name] != theirs["members"][name]:
            diff = {k: (v, theirs["members"][name][k]) for k, v in mine["members"][name].items()
                    if v != theirs["members"][name].get(k)}
            out.append(("members", f"{name}: (ours, official) {diff}"))
    order = [n for n in mine["iteration"] if n in common], [n for n in theirs["iteration"] if n in common]
    if order[0] != order[1]:
        out.append(("iteration", "the order of iteration differs"))
    for value, their in theirs["aliases"].items():
        my = mine["aliases"].get(value)
        if my is None:
            continue
        if my["names"] == their["names"]:
            diff = {k: (v, their[k]) for k, v in my.items() if v != their[k]}
        else:  # other releases' names beside them: whether the names are one member
            diff = {k: (my[k], their[k]) for k in ("same_member",) if my[k] != their[k]}
        if diff:
            out.append(("aliases", f"value {value} {their['names']}: (ours, official) {diff}"))
    return out


def explained(minor, module, name, aspect):
    """The index of the `[[enum_classes]]` entry that explains a difference, or None."""
    return next((i for i, e in enumerate(EXPLAINED) if e["aspect"] == aspect and minor in e["ctks"]
                 and e.get("module", module) == module and name in e.get("names", [name])), None)


def compare(minor, ours, official):
    """(problems, explained entries seen as (aspect, ctk) pairs, report lines) for one CTK."""
    problems, seen, report = [], set(), []
    for module, classes in ours.items():
        for name, mine in classes.items():
            problems += base_problems(module, name, mine)
    for module, theirs in official.items():
        mine = ours.get(module, {})
        kinds = {}
        both = same = aliased = 0
        for name, their in sorted(theirs.items()):
            kinds[their["kind"]] = kinds.get(their["kind"], 0) + 1
            if name not in mine:
                continue  # a missing enum is the parity check's (test_parity.py)
            both += 1
            if their["kind"] == "FastEnum" and mine[name]["kind"] != "FastEnum":
                problems.append(f"{module}.{name}: the official class derives from the official enum base, ours does not")
            if their["package_metaclass"] and not mine[name]["package_metaclass"]:
                problems.append(f"{module}.{name}: the official class has the official enum metaclass, ours does not")
            if their["kind"] != "FastEnum":
                continue
            if mine[name]["class"] != their["class"]:
                # A typedef of another enum: ours binds the name to that class (whose members
                # compare identical), the official module makes a class of the same members
                # (tests/parity/README.md); the class is compared under its own name.
                aliased += 1
                continue
            differences = behaviour_differences(mine[name]["behaviour"], their["behaviour"])
            for aspect, what in differences:
                entry = explained(minor, module, name, aspect)
                if entry is None:
                    problems.append(f"{module}.{name}: behaves otherwise ({aspect}): {what}")
                else:
                    seen.add((entry, minor))
            same += not differences
        if not theirs and not mine:
            continue
        official_kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
        on_base = sum(not base_problems(module, n, m) for n, m in mine.items())
        report.append(f"enum classes {module} {minor}: {on_base} of our {len(mine)} on the package's FastEnum with "
                      f"its metaclass; official {OFFICIAL[minor]}: {official_kinds}"
                      + (" (official used enum.IntEnum: behaviour not compared)" if "IntEnum" in kinds else
                         f"; {same} of {both - aliased} classes both have behave alike member by member ({aliased} names "
                         "are typedefs ours binds to the enum they name)"))
    return problems, seen, report


@pytest.fixture(scope="module")
def results(generated):
    return {minor: compare(minor, probe("ours", generated(minor)), official_side(minor)) for minor in MINORS}


def test_every_enum_derives_from_the_package_enum_base(results, capsys):
    with capsys.disabled():
        print()
        for minor, (_, _, report) in results.items():
            print("\n".join(report))
    problems = [f"{minor} {p}" for minor, (found, _, _) in results.items() for p in found]
    assert not problems, "\n".join(problems[:60]) + (f"\n... {len(problems)} in all" if len(problems) > 60 else "")


def test_no_explained_difference_is_stale(results):
    seen = set().union(*(s for _, s, _ in results.values())) if results else set()
    stale = [(e["aspect"], e.get("names"), minor) for i, e in enumerate(EXPLAINED) for minor in e["ctks"]
             if minor in results and (i, minor) not in seen]
    assert not stale, f"[[enum_classes]] in tests/parity/exceptions.toml lists differences no longer seen: {stale}"


def plant(root):
    """The defects this test is for, planted in a copy of a generated package: `cudaRoundMode`
    on a look-alike base with a metaclass of its own (the API the same, the classes not the ones
    clients know), and a driver enum whose lookup by value makes a new int."""
    folder = os.path.join(root, *PACKAGE.split("."))
    path = os.path.join(folder, "_runtime_enums.py")
    text = open(path).read()
    look_alike = ("class _LookAlikeType(type):\n"
                  "    __call__ = type(_FastEnum).__call__\n"
                  "    __getattr__ = type(_FastEnum).__getattr__\n"
                  "    __singletons__ = vars(type(_FastEnum))['__singletons__']\n"
                  "    __members__ = vars(type(_FastEnum))['__members__']\n"
                  "    __iter__ = lambda cls: iter(cls.__singletons__.values())\n"
                  "    __len__ = lambda cls: len(cls.__singletons__)\n"
                  "    __contains__ = lambda cls, v: v in cls.__singletons__\n"
                  "    __repr__ = lambda cls: f\"<enum {cls.__name__!r}>\"\n\n\n"
                  "class _LookAlike(int, metaclass=_LookAlikeType):\n"
                  "    name = property(lambda self: self._name_)\n"
                  "    value = property(int)\n"
                  "    __repr__ = _FastEnum.__repr__\n"
                  "    __reduce__ = _FastEnum.__reduce__\n\n\n"
                  "class cudaRoundMode(_LookAlike):")
    assert "class cudaRoundMode(_FastEnum):" in text
    open(path, "w").write(text.replace("class cudaRoundMode(_FastEnum):", look_alike))
    with open(os.path.join(folder, "_driver_enums.py"), "a") as f:
        f.write("\n_fresh = int.__new__(CUmemAllocationType, 1)\n_fresh._name_ = 'CU_MEM_ALLOCATION_TYPE_PINNED'\n"
                "CUmemAllocationType.__singletons__[1] = _fresh\n")


def test_negative_control_planted_differences_fail(generated, tmp_path):
    minor = MINORS[-1]
    root = str(tmp_path / "planted")
    shutil.copytree(generated(minor), root)
    plant(root)
    problems, _, _ = compare(minor, probe("ours", root), official_side(minor))
    assert any(re.match(r"runtime\.cudaRoundMode: derives from .*, not cuda\.bindings\._internal\._fast_enum\.FastEnum$", p)
               for p in problems), problems
    assert "runtime.cudaRoundMode: metaclass cuda.bindings._runtime_enums._LookAlikeType, not " \
           "cuda.bindings._internal._fast_enum.FastEnumMetaclass" in problems, problems
    assert "runtime.cudaRoundMode: the official class derives from the official enum base, ours does not" in problems
    assert "runtime.cudaRoundMode: the official class has the official enum metaclass, ours does not" in problems
    assert any(p.startswith("driver.CUmemAllocationType: behaves otherwise (members): CU_MEM_ALLOCATION_TYPE_PINNED:")
               and "'by_value'" in p for p in problems), problems
    assert len(problems) == 5, problems
