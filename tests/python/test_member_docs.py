"""Enum member documentation as the official releases give it (issue 45 item 4): cuda.core turns
a member's `__doc__` into the explanation of an error and compares some with texts it reviewed,
so for every CTK minor with a pinned official release that documents each member (12.9.10 and
13.2 on; 13.0.3, 13.1.1 and 12.8.0's IntEnum members carry only the class docstring), every
member of every enum of ours (generated as `cuda.bindings`, the pure-Python enum modules loaded
alone, nothing compiled) must carry the official text, in one interpreter per side
(`member_docs_probe.py`). What differs is listed, by cause, in tests/parity/member_docs.toml;
a listed member that no longer differs on a checked CTK fails too. cuda.core's reviewed members
must be exact on the releases whose rendering cuda.core's cleanup was written against (13.2,
13.3). CTKGEN_PARITY_CTKS limits the CTKs."""
import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from both_modules import release_path
from conftest import CACHE, REPO, catalogue_newest, compatible_modules, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "cuda.bindings"
MODULES = ",".join(compatible_modules())
OFFICIAL = parity.official_versions()
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")
MINORS = SELECTED.split(",") if SELECTED else sorted(OFFICIAL, key=lambda v: [int(p) for p in v.split(".")])
with open(os.path.join(REPO, "tests", "parity", "member_docs.toml"), "rb") as f:
    LISTED = tomllib.load(f).get("difference", [])
# The members cuda.core's tests compare with the explanations it reviewed, and the CTKs whose
# official rendering its docstring cleanup was written against.
REVIEWED = ["driver.CUresult.CUDA_ERROR_INVALID_CONTEXT", "driver.CUresult.CUDA_ERROR_NOT_INITIALIZED",
            "runtime.cudaError_t.cudaErrorIncompatibleDriverContext", "runtime.cudaError_t.cudaErrorLaunchTimeout"]
REVIEWED_ON = ["13.2", "13.3"]


def probe(side, root, paths=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths)) if paths else dict(os.environ)
    result = subprocess.run([sys.executable, "-W", "ignore", os.path.join(HERE, "member_docs_probe.py"), side, root,
                             PACKAGE, MODULES], capture_output=True, text=True, env=env, timeout=600, cwd=HERE)
    assert result.returncode == 0, result.stderr[-6000:]
    return json.loads(result.stdout)


def documents_members(official):
    """Whether the release gives members texts of their own (not only the class docstring)."""
    return any(doc is not None and doc != enum["class"]
               for enums in official.values() for enum in enums.values() for doc in enum["members"].values())


def compare(ours, official):
    """({`module.Enum.MEMBER`: (ours, official, the name whose member it is when it is an alias
    in ours)} of the members both have whose texts differ, the number of members both have)."""
    differences, both = {}, 0
    for module, enums in official.items():
        for name, enum in enums.items():
            mine = ours.get(module, {}).get(name)
            if mine is None:
                continue  # a missing enum is the parity check's (test_parity.py)
            for member, doc in enum["members"].items():
                if member not in mine["members"]:
                    continue
                both += 1
                if mine["members"][member] != doc:
                    differences[f"{module}.{name}.{member}"] = (mine["members"][member], doc,
                                                                mine["aliases"].get(member))
    return differences, both


def listing(key, minor):
    """The index of the entry of member_docs.toml that lists `key` for CTK `minor`, or None."""
    for i, entry in enumerate(LISTED):
        if minor not in entry["ctks"]:
            continue
        if key in entry.get("names", ()) or ("pattern" in entry and re.fullmatch(entry["pattern"], key)):
            return i
    return None


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{minor: (differences, members both have) or None where the release documents no member}."""
    out = {}
    for minor in MINORS:
        official = probe("official", "-", release_path(CACHE, OFFICIAL[minor]))
        if not documents_members(official):
            out[minor] = None
            continue
        folder = str(tmp_path_factory.mktemp(f"member-docs-{minor}"))
        xtask("generate", "--ctk", catalogue_newest()[minor], "--lang", "cython", "--python-package", PACKAGE,
              "--out", folder)
        out[minor] = compare(probe("ours", os.path.join(folder, "python")), official)
    return out


def test_every_member_carries_the_official_text(results, capsys):
    if os.environ.get("CTKGEN_MEMBER_DOCS_DUMP"):
        # Every difference found, for reviewing them: {minor: {key: [ours, official]}}.
        with open(os.environ["CTKGEN_MEMBER_DOCS_DUMP"], "w") as f:
            json.dump({minor: found and found[0] for minor, found in results.items()}, f, indent=1)
    unlisted = []
    with capsys.disabled():
        print()
        for minor, found in results.items():
            if found is None:
                print(f"member docs {minor}: official {OFFICIAL[minor]}'s members carry only the class docstring")
                continue
            differences, both = found
            listed = sum(listing(key, minor) is not None for key in differences)
            print(f"member docs {minor}: {both - len(differences):,} of {both:,} members carry the official "
                  f"{OFFICIAL[minor]} text, {listed:,} differences listed")
            unlisted += [(minor, key, *texts) for key, texts in sorted(differences.items())
                         if listing(key, minor) is None]
    message = "\n".join(f"{minor} {key}:\n  ours     {ours!r}\n  official {theirs!r}"
                        for minor, key, ours, theirs, _ in unlisted[:30])
    assert not unlisted, f"{len(unlisted)} member docstrings differ, not listed in tests/parity/member_docs.toml:\n{message}"


def test_no_listed_difference_is_stale(results):
    stale = []
    for i, entry in enumerate(LISTED):
        for minor in entry["ctks"]:
            if results.get(minor) is None:
                continue
            differences = results[minor][0]
            for key in entry.get("names", ()):
                if key not in differences:
                    stale.append((minor, key))
            if "pattern" in entry and not any(re.fullmatch(entry["pattern"], key) for key in differences):
                stale.append((minor, entry["pattern"]))
    assert not stale, f"listed in tests/parity/member_docs.toml but not differing: {stale}"


def test_the_members_cuda_core_reviewed_are_exact(results):
    checked = [minor for minor in REVIEWED_ON if results.get(minor) is not None]
    if not checked:
        pytest.skip(f"none of {REVIEWED_ON} checked")
    for minor in checked:
        differences = results[minor][0]
        assert not [key for key in REVIEWED if key in differences], {k: differences[k] for k in REVIEWED if k in differences}

