"""What the package's metadata requires, against the official wheel of the same release: for every
pinned official cuda-bindings (tests/parity/official.txt; CTKGEN_PARITY_CTKS limits them), the
package generated for the newest catalogued CTK of that major.minor (nothing compiled) must
require, with itself and with each extra, what the official METADATA's `Requires-Dist` lines do,
and offer every extra the official one offers. A difference passes only where `[[requirements]]`
in tests/parity/exceptions.toml lists it with its reason (a listed one that no longer occurs
fails). headers/package.toml's [[requirements]] sets are what this checks."""
import email.parser
import glob
import os
import re
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import CACHE, REPO, catalogue_newest, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

OFFICIAL = parity.official_versions()
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")
MINORS = SELECTED.split(",") if SELECTED else sorted(OFFICIAL, key=lambda v: [int(p) for p in v.split(".")])
with open(os.path.join(REPO, "tests", "parity", "exceptions.toml"), "rb") as f:
    EXPLAINED = tomllib.load(f).get("requirements", [])
# The base requirements (no extra) are keyed by the empty name.
BASE = ""
EXTRA_CLAUSE = re.compile(r'(?:\s+and\s+)?\bextra\s*==\s*"([^"]+)"|\bextra\s*==\s*"([^"]+)"\s+and\s+')


def canonical(text):
    """One spelling of a requirement: packaging's, extras sorted, markers normalised."""
    return str(Requirement(text))


def split_extra(text):
    """(extra, requirement without its extra clause) of a `Requires-Dist` line."""
    spec, _, marker = text.partition(";")
    found = EXTRA_CLAUSE.search(marker)
    if not found:
        return BASE, canonical(text)
    extra = found.group(1) or found.group(2)
    rest = (marker[: found.start()] + marker[found.end():]).strip()
    # `(a and b) and extra == "all"`: what is left is one parenthesised clause.
    if rest.startswith("(") and rest.endswith(")") and rest.count("(") == 1:
        rest = rest[1:-1].strip()
    return extra, canonical(f"{spec.strip()}; {rest}" if rest else spec.strip())


def official_requirements(version):
    """{extra: set of requirements} of the official wheel's METADATA (every offered extra present)."""
    folder = parity.unpacked(CACHE, "cuda-bindings", version)
    (path,) = glob.glob(os.path.join(folder, "*.dist-info", "METADATA"))
    with open(path) as f:
        metadata = email.parser.Parser().parse(f, headersonly=True)
    out = {BASE: set()}
    out.update({extra: set() for extra in metadata.get_all("Provides-Extra") or []})
    for line in metadata.get_all("Requires-Dist") or []:
        extra, requirement = split_extra(line)
        out.setdefault(extra, set()).add(requirement)
    return out


def our_requirements(pyproject):
    """{extra: set of requirements} of a generated pyproject.toml."""
    with open(pyproject, "rb") as f:
        project = tomllib.load(f)["project"]
    out = {BASE: {canonical(r) for r in project.get("dependencies", [])}}
    for extra, requirements in project.get("optional-dependencies", {}).items():
        out[extra] = {canonical(r) for r in requirements}
    return out


def differences(minor, official, ours):
    """Every difference of one release: (minor, extra, side, requirement), the requirement None
    for an extra only one side offers."""
    found = []
    for extra in sorted(set(official) | set(ours)):
        for side, have, other in (("official", official, ours), ("ours", ours, official)):
            if extra in have and extra not in other:
                found.append((minor, extra, side, None))
            elif extra in have:
                found.extend((minor, extra, side, r) for r in sorted(have[extra] - other[extra]))
    return found


def explains(entry, difference):
    minor, extra, side, requirement = difference
    if entry["extra"] != extra or entry["side"] != side:
        return False
    if "ctks" in entry and minor not in entry["ctks"]:
        return False
    if "name" in entry:
        return requirement is not None and canonicalize_name(Requirement(requirement).name) == canonicalize_name(
            entry["name"])
    return requirement is None  # an entry without a name is for the whole extra


def judge(found, explained, minors):
    """(unexplained differences, stale entries): an entry is judged only where it names a checked
    release (or names none)."""
    unexplained = [d for d in found if not any(explains(e, d) for e in explained)]
    stale = [e for e in explained
             if set(e.get("ctks", minors)) & set(minors) and not any(explains(e, d) for d in found)]
    return unexplained, stale


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """{minor: the generated package's pyproject.toml} for every checked release."""
    newest = catalogue_newest()
    out = {}
    for minor in MINORS:
        folder = tmp_path_factory.mktemp(f"requirements-{minor}")
        xtask("generate", "--ctk", newest[minor], "--lang", "cython", "--out", str(folder))
        out[minor] = folder / "python" / "pyproject.toml"
    return out


@pytest.fixture(scope="module")
def compared(generated):
    """{minor: (official, ours)} for every checked release."""
    return {minor: (official_requirements(OFFICIAL[minor]), our_requirements(pyproject))
            for minor, pyproject in generated.items()}


def official_metadata(version):
    folder = parity.unpacked(CACHE, "cuda-bindings", version)
    (path,) = glob.glob(os.path.join(folder, "*.dist-info", "METADATA"))
    with open(path) as f:
        return email.parser.Parser().parse(f, headersonly=True)


def test_requires_python_and_classifiers_are_the_officials(generated):
    """`Requires-Python` is the official wheel's; where it states none, the oldest Python its
    classifiers name (what `cargo xtask release` reads to choose interpreters). The classifiers
    are the official ones less the licence's (the package's licence is its own)."""
    for minor, pyproject in generated.items():
        official = official_metadata(OFFICIAL[minor])
        with open(pyproject, "rb") as f:
            project = tomllib.load(f)["project"]
        classifiers = [c for c in official.get_all("Classifier") or [] if not c.startswith("License ::")]
        assert project.get("classifiers", []) == classifiers, minor
        pythons = [c.rsplit(" :: ", 1)[1] for c in classifiers if c.startswith("Programming Language :: Python :: 3.")]
        expected = official.get("Requires-Python") or f">={min(pythons, key=lambda v: [int(p) for p in v.split('.')])}"
        assert project["requires-python"] == expected, (minor, project["requires-python"], expected)


def test_every_official_requirement_is_ours_or_listed(compared):
    found = [d for minor, (official, ours) in compared.items() for d in differences(minor, official, ours)]
    unexplained, stale = judge(found, EXPLAINED, list(compared))
    for minor, (official, ours) in compared.items():
        print(f"{minor}: extras {sorted(e for e in ours if e)}, {sum(len(v) for v in ours.values())} requirements "
              f"(official {sum(len(v) for v in official.values())})")
    assert not unexplained, "differences not in exceptions.toml [[requirements]]:\n" + "\n".join(map(str, unexplained))
    assert not stale, f"listed differences that no longer occur: {stale}"


def test_a_planted_difference_is_found(compared):
    """Negative control: a requirement dropped from ours, one added, and an extra ours lacks are
    each reported, and an entry explaining nothing is stale."""
    minor = max(compared, key=lambda v: [int(p) for p in v.split(".")])
    official, ours = compared[minor]
    planted = {extra: set(requirements) for extra, requirements in ours.items()}
    dropped = sorted(planted["all"])[0]
    planted["all"].discard(dropped)
    planted["all"].add(canonical("nvidia-planted==1.*"))
    planted["planted"] = set()
    unexplained, _ = judge(differences(minor, official, planted), EXPLAINED, [minor])
    assert (minor, "all", "official", dropped) in unexplained, unexplained
    assert (minor, "all", "ours", canonical("nvidia-planted==1.*")) in unexplained, unexplained
    assert (minor, "planted", "ours", None) in unexplained, unexplained
    idle = {"extra": "all", "side": "ours", "name": "nvidia-nothing", "reason": "planted"}
    _, stale = judge(differences(minor, official, ours), [idle], [minor])
    assert stale == [idle], stale


def test_markers_read_as_the_official_metadata_writes_them():
    assert split_extra('nvidia-cufile-cu12; sys_platform == "linux" and extra == "all"') == (
        "all", 'nvidia-cufile-cu12; sys_platform == "linux"')
    assert split_extra('nvidia-cudla==13.*; (platform_system == "Linux" and platform_machine == "aarch64") '
                       'and extra == "all"') == (
        "all", 'nvidia-cudla==13.*; platform_system == "Linux" and platform_machine == "aarch64"')
    assert split_extra('cython<3.3,>=3.2; extra == "test"') == ("test", "cython<3.3,>=3.2")
    assert split_extra('pywin32; sys_platform == "win32"') == (BASE, 'pywin32; sys_platform == "win32"')
