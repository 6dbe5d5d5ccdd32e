"""API-surface parity with the official cuda.bindings modules (each described library's), for every
CTK of the catalogue that has an official release of the same major.minor (pinned in
tests/parity/official.txt).
Record members are compared too. Every difference must be listed in tests/parity/exceptions.toml, and every listed one must
still occur. Ours is read from the generated stubs, so no CTK needs compiling here;
`test_stub_matches_built_module` checks on the suite's built packages that the stubs and the
module agree."""
import glob
import os
import sys
import tempfile

import pytest

from conftest import CACHE, REPO, catalogue_newest, compatible_modules, emit, probe

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

OFFICIAL = parity.official_versions()
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")

# The generated modules that follow an official one of the same name.
MODULES = compatible_modules()


def our_surfaces(ctk):
    """{module: surface} of the package generated for `ctk`, from its stubs (generation only, no build)."""
    with tempfile.TemporaryDirectory(prefix="ctkgen-parity-") as tmp:
        package = emit(ctk, tmp)
        out = {}
        for module in MODULES:
            (stub,) = glob.glob(os.path.join(package, "*", f"{module}.pyi"))
            out[module] = parity.stub_surface(stub)
        return out


@pytest.fixture(scope="module")
def all_results():
    """{module: {minor: (official surface, differences, counts)}}."""
    newest = catalogue_newest()
    minors = SELECTED.split(",") if SELECTED else sorted(OFFICIAL)
    out = {module: {} for module in MODULES}
    for minor in minors:
        ours = our_surfaces(newest[minor])
        for module in MODULES:
            official = parity.official_surface(CACHE, OFFICIAL[minor], module)
            if official is None:
                continue  # the release has no such module: nothing to follow
            diffs, counts = parity.compare(official, ours[module])
            out[module][minor] = (official, diffs, counts)
    return out


@pytest.fixture(scope="module", params=MODULES)
def results(request, all_results):
    return request.param, all_results[request.param]


def test_every_official_release_has_a_catalogue_ctk():
    assert set(OFFICIAL) <= set(catalogue_newest())


def test_every_difference_is_listed(results, capsys):
    module, results = results
    exceptions = parity.load_exceptions(module=module)
    unlisted, _ = parity.judge({c: (o, d) for c, (o, d, _) in results.items()}, exceptions, complete=False)
    with capsys.disabled():
        print()
        for ctk, (_, diffs, counts) in results.items():
            listed = len(diffs) - len(unlisted.get(ctk, {}))
            print(f"parity {parity.report_line(ctk, counts, listed, module)}")
    message = "\n".join(f"{ctk} {key}: {what}" for ctk, found in unlisted.items() for key, what in sorted(found.items()))
    assert not unlisted, f"differences from cuda.bindings.{module} not listed in tests/parity/exceptions.toml:\n{message}"


def test_no_listed_exception_is_stale(results):
    module, results = results
    exceptions = parity.load_exceptions(module=module)
    complete = set(results) == set(OFFICIAL)
    _, stale = parity.judge({c: (o, d) for c, (o, d, _) in results.items()}, exceptions, complete)
    assert not stale, f"listed in tests/parity/exceptions.toml but no longer differing: {', '.join(stale)}"


STUB_PROBE = r'''
import json, sys
sys.path.insert(0, {parity_dir!r})
import parity
import ctkgen_cuda.{module} as module
print(json.dumps(parity.module_surface(module)))
'''


@pytest.mark.parametrize("module", MODULES)
def test_stub_matches_built_module(package, module):
    """The stubs declare exactly what the built module has, parameters included: what the
    parity check reads from them is what users get."""
    ctk, path = package
    built = probe(path, STUB_PROBE.format(parity_dir=parity.HERE, module=module))
    (stub,) = glob.glob(os.path.join(path, "*", f"{module}.pyi"))
    declared = parity.stub_surface(stub)
    for kind in ("classes", "constants"):
        assert sorted(built[kind]) == declared[kind], kind
    assert built["members"] == declared["members"]
    assert built["bases"] == declared["bases"]
    assert built["enums"] == declared["enums"]
    assert built["enum_bases"] == declared["enum_bases"]
    assert built["functions"] == declared["functions"]


# ---- the comparison itself, on small made-up surfaces ---------------------------------------

def surface(**kw):
    classes = kw.get("classes", {})
    return {"enums": kw.get("enums", {}), "classes": sorted(classes), "members": classes,
            "functions": kw.get("functions", {}), "constants": kw.get("constants", [])}


OFFICIAL_TOY = surface(enums={"E": ["A", "B"]}, classes={"R": ["m", "n"], "S": ["p"]},
                       functions={"f": ["x", "y"], "g": None}, constants=["K"])


def test_compare_finds_a_class_that_does_not_derive_from_the_sibling_class():
    official = dict(surface(classes={"T": [], "U": []}), bases={"T": ["driver.H"], "U": []})
    diffs, counts = parity.compare(official, dict(surface(classes={"T": [], "U": []}), bases={"T": [], "U": []}))
    assert diffs == {"T(driver.H)": "does not derive from it"}
    assert counts["names"] == 3 and counts["present"] == 2
    # Deriving from more than the official class does is no difference.
    ours = dict(surface(classes={"T": [], "U": []}), bases={"T": ["driver.H"], "U": ["driver.V"]})
    assert parity.compare(official, ours)[0] == {}
    assert parity.official_has(official, "T(driver.H)") and not parity.official_has(official, "U(driver.V)")


def test_compare_finds_each_kind_of_difference():
    ours = surface(enums={"E": ["A"]}, classes={"K": [], "R": ["m"]}, functions={"f": ["y", "x"], "g": ["z"]})
    diffs, counts = parity.compare(OFFICIAL_TOY, ours)
    assert set(diffs) == {"E.B", "R.n", "S", "K", "f()"}
    assert counts == {"names": 11, "present": 6, "signatures": 1, "matching": 0, "int_enums": 0}
    assert parity.compare(OFFICIAL_TOY, OFFICIAL_TOY)[0] == {}


def test_judge_reports_unlisted_and_stale():
    diffs, _ = parity.compare(OFFICIAL_TOY, surface(enums={"E": ["A", "B"]}, classes={"R": ["m", "n"], "S": ["p"]},
                                                     functions={"f": ["x", "y"], "g": ["z"]}))
    listed = {"K": ("not yet", None), "R.m": ("fixed since", None), "E.C": ("never official", None)}
    unlisted, stale = parity.judge({"1.0": (OFFICIAL_TOY, diffs)}, listed, complete=False)
    assert unlisted == {} and stale == ["R.m"]
    unlisted, stale = parity.judge({"1.0": (OFFICIAL_TOY, diffs)}, listed, complete=True)
    assert stale == ["E.C", "R.m"]
    unlisted, _ = parity.judge({"1.0": (OFFICIAL_TOY, diffs)}, {}, complete=True)
    assert unlisted == {"1.0": {"K": "missing constant"}}
    limited = {"K": ("other CTK only", ["2.0"])}
    assert parity.judge({"1.0": (OFFICIAL_TOY, diffs)}, limited, complete=True)[0] == unlisted


def test_compare_finds_an_enum_off_the_package_enum_base():
    """An official enum on the package's light enum base (which clients recognise) must be on
    ours too; one on enum.IntEnum (13.0, 13.1) is counted for the report, not a difference."""
    official = dict(surface(enums={"E": ["A"], "F": ["B"], "G": ["C"]}),
                    enum_bases={"E": "FastEnum", "F": "FastEnum", "G": "IntEnum"})
    ours = dict(surface(enums={"E": ["A"], "F": ["B"], "G": ["C"]}),
                enum_bases={"E": "FastEnum", "F": "other", "G": "FastEnum"})
    diffs, counts = parity.compare(official, ours)
    assert diffs == {"F(FastEnum)": "does not derive from the package's enum base"}
    assert counts["int_enums"] == 1
    assert parity.official_has(official, "F(FastEnum)") and not parity.official_has(official, "G(FastEnum)")
    assert "1 official enums derive from enum.IntEnum" in parity.report_line("13.1", counts, 0)


def test_stub_enums_on_the_package_enum_base(tmp_path):
    """The stub's enums are on the package's enum base when the stub imports it as `_FastEnum`."""
    (tmp_path / "_internal").mkdir()
    (tmp_path / "_internal" / "_fast_enum.py").write_text("class FastEnum(int):\n    pass\n")
    stub = tmp_path / "driver.pyi"
    stub.write_text("from ._internal._fast_enum import FastEnum as _FastEnum\n\nclass E(_FastEnum):\n    A: E\n\nF = E\n")
    assert parity.stub_surface(str(stub))["enum_bases"] == {"E": "FastEnum", "F": "FastEnum"}
    stub.write_text("class _FastEnum(int): ...\n\nclass E(_FastEnum):\n    A: E\n")
    assert parity.stub_surface(str(stub))["enum_bases"] == {"E": "other"}


def test_a_missing_default_is_a_difference():
    """Defaults are part of a signature: `f(x, n)` where cuda.bindings has `f(x, n=0)` breaks
    `f(x)`, the size query programs write."""
    official = surface(functions={"query": ["graph", "count=0"]})
    assert parity.compare(official, surface(functions={"query": ["graph", "count"]}))[0] == {
        "query()": "official (graph, count=0), ours (graph, count)"}
    assert parity.compare(official, surface(functions={"query": ["graph", "count=0"]}))[0] == {}


def test_stub_and_module_spell_defaults_alike(tmp_path):
    """The stub's `count=0` and an imported function's default read as the same text."""
    stub = tmp_path / "driver.pyi"
    stub.write_text("def query(graph, count=0, *, flags=None) -> tuple[int]: ...\n")
    module = tmp_path / "toy_defaults.py"
    module.write_text("def query(graph, count=0, *, flags=None):\n    pass\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import toy_defaults
        imported = parity.module_surface(toy_defaults)["functions"]
    finally:
        sys.path.remove(str(tmp_path))
    assert parity.stub_surface(str(stub))["functions"] == imported == {"query": ["graph", "count=0", "flags=None"]}
