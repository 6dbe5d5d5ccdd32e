"""Values typed by an enum argument, against the official cuda.bindings of every pinned CTK
(tests/parity/official.txt): for every function whose value's type depends on an enum argument
(mem pool, pointer, memory-range, graph memory, coredump attributes, JIT and library options,
shareable handle types, driver and runtime), and every enumerator of its selector, ours takes a
value exactly where the official module does, and a value of the same kind.

Ours is read from the generator's decisions (`ctkgen_typed_values.json`, generation only, no
build); the official module is probed on CPU with no driver reachable (typed_values_probe.py: it
converts the value before it calls the library). Which functions count comes from the official
sources too: every function whose body converts through an attribute helper class must be typed
by us, and every one we type must be such a function or be listed, with the reason, in
tests/parity/typed_values_exceptions.toml, as must every enumerator we take that the official
module refuses."""
import json
import os
import subprocess
import sys
import tempfile
import tomllib

import pytest

from conftest import CACHE, REPO, catalogue_newest, emit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402
from both_modules import release_path  # noqa: E402

EXCEPTIONS = os.path.join(REPO, "tests", "parity", "typed_values_exceptions.toml")
SELECTED = os.environ.get("CTKGEN_PARITY_CTKS")

# The probe values each of our conversions takes (typed_values_probe.PLAIN, and `class`: an
# instance of the class the conversion names).
TAKES = {
    "int": {"int"}, "bool": {"int"}, "float": {"int", "float"}, "address": {"int"},
    "enum": {"int", "class"}, "scalar": {"int", "class"}, "handle": {"class"}, "record": {"class"},
    "text": {"bytes"}, "buffer": {"bytearray"}, "str_list": {"list_bytes"}, "address_list": {"list_int"},
    "nothing": {"none"},
}


def compare(decisions, official, exceptions):
    """The differences between our decisions and the official probe of one CTK, the listed
    differences seen, and the number of enumerators compared."""
    problems, seen, compared = [], set(), 0
    ours_only = exceptions.get("ours_only_functions", {})
    extra = exceptions.get("extra", {})
    for module, values in decisions.items():
        helpers = set(official["helpers"].get(module, {}))
        ours = {key.split(".")[0] for key in values}
        for function in sorted(helpers - ours):
            problems.append(f"{module}.{function}: the official module converts its value by an attribute helper, ours does not type it")
        for function in sorted(ours - helpers):
            if function in ours_only:
                seen.add(function)
            else:
                problems.append(f"{module}.{function}: typed by us, converted by no official attribute helper (unlisted)")
        for key, probes in official["probes"].get(module, {}).items():
            if key.split(".")[0] not in helpers:
                continue
            cases = {c["name"]: c for c in values[key]["cases"]}
            for enumerator, taken in probes.items():
                compared += 1
                case = cases.get(enumerator)
                if taken and case is None:
                    problems.append(f"{module}.{key}: {enumerator}: the official module takes {taken}, ours refuses it")
                elif case is not None and not taken:
                    if enumerator in extra:
                        seen.add(enumerator)
                    else:
                        problems.append(f"{module}.{key}: {enumerator}: ours takes a {case['conv']}, the official module refuses it (unlisted)")
                elif case is not None and "out" not in taken and not (TAKES.get(case["conv"], set()) & set(taken)):
                    if enumerator in exceptions.get("kind", {}):
                        seen.add(enumerator)
                        continue
                    problems.append(f"{module}.{key}: {enumerator}: ours takes a {case['conv']}, the official module {taken}")
    return problems, seen, compared


def with_sources(official_versions, minor):
    """The official sources (`driver.pyx`, `runtime.pyx`) of `minor`'s release, or of the newest
    earlier release that ships them (from 13.2 on the wheels carry no .pyx): they say which
    functions convert through an attribute helper, and their parameters."""
    key = lambda m: tuple(int(p) for p in m.split("."))
    for earlier in sorted((m for m in official_versions if key(m) <= key(minor)), key=key, reverse=True):
        folder = os.path.join(parity.unpacked(CACHE, "cuda-bindings", official_versions[earlier]), "cuda", "bindings")
        if os.path.exists(os.path.join(folder, "driver.pyx")):
            return folder
    raise AssertionError(f"no official release up to {minor} ships its sources")


@pytest.fixture(scope="module")
def results():
    newest = catalogue_newest()
    official_versions = parity.official_versions()
    minors = SELECTED.split(",") if SELECTED else sorted(official_versions)
    out = {}
    for minor in minors:
        version = official_versions[minor]
        with tempfile.TemporaryDirectory(prefix="ctkgen-typed-") as tmp:
            decisions_path = os.path.join(emit(newest[minor], tmp), "ctkgen_typed_values.json")
            with open(decisions_path, encoding="utf-8") as f:
                decisions = json.load(f)["modules"]
            path = release_path(CACHE, version)
            env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")}
            env["PYTHONPATH"] = os.pathsep.join(path)
            sources = with_sources(official_versions, minor)
            run = subprocess.run([sys.executable, os.path.join(HERE, "typed_values_probe.py"), "cuda.bindings",
                                  decisions_path, sources], env=env, capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, run.stderr[-4000:]
            out[minor] = (decisions, json.loads(run.stdout.strip().splitlines()[-1]))
    return out


def test_typed_values_match_the_official_module(results, capsys):
    with open(EXCEPTIONS, "rb") as f:
        exceptions = tomllib.load(f)
    problems, seen = [], set()
    for minor, (decisions, official) in results.items():
        found, listed, compared = compare(decisions, official, exceptions)
        problems += [f"{minor}: {p}" for p in found]
        seen |= listed
        with capsys.disabled():
            print(f"\n-- typed values {minor}: {compared} enumerators compared, {len(found)} differences, "
                  f"{len(listed)} listed differences seen")
    if not SELECTED:
        listed = {name for section in exceptions.values() for name in section}
        problems += [f"listed but seen in no pinned release: {name}" for name in sorted(listed - seen)]
    assert not problems, "\n".join(problems)


def test_compare_finds_a_missing_entry():
    """A case removed from our decisions, and one added that the official module refuses."""
    decisions = {"driver": {"f.value": {"cases": [{"name": "A", "conv": "int"}, {"name": "B", "conv": "scalar"}]}}}
    official = {"helpers": {"driver": {"f": ["X"]}}, "probes": {"driver": {"f.value": {"A": ["int"], "B": ["object", "class"], "C": []}}}}
    assert compare(decisions, official, {}) == ([], set(), 3)
    decisions["driver"]["f.value"]["cases"].pop()
    problems, _, _ = compare(decisions, official, {})
    assert problems == ["driver.f.value: B: the official module takes ['object', 'class'], ours refuses it"]
    decisions["driver"]["f.value"]["cases"].append({"name": "C", "conv": "int"})
    problems, _, _ = compare(decisions, official, {})
    assert len(problems) == 2 and "C: ours takes a int, the official module refuses it (unlisted)" in problems[1]
    assert compare(decisions, official, {"extra": {"C": "why"}})[1] == {"C"}
