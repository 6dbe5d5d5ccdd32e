"""Which Python forms each pointer member and parameter takes and gives back, on ours and on the
official module of the same CTK (issue 45: arrays counted by a sibling, read as one value).

- Behaviour, on the packages the suite builds (`pointer_forms.py`, both modules in one process):
  every member reached from a record class (the kind of value read, copy or view of an element
  read and of a value assigned, the assignment forms taken) and every function parameter the
  official signature types as a binding class or a list of one (None, an empty list, one object,
  a list of one, a tuple of two), driver functions against the fake driver, runtime functions with
  no driver and the release's libcudart.
- Declarations, for every CTK with a pinned official release (nothing built): each parameter the
  official signature takes as a list is one ours' classification pass makes a list
  (`ctkgen_params_report.txt`), and the other way round.

A difference fails unless `[[pointer_forms]]` in tests/parity/exceptions.toml lists it with its
reason; an entry that matches no difference fails too."""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

import both_modules
from conftest import CACHE, CTKS, REPO, build, catalogue_newest, emit, wheel_library

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

EXCEPTIONS = os.path.join(REPO, "tests", "parity", "exceptions.toml")


def listed():
    with open(EXCEPTIONS, "rb") as f:
        return tomllib.load(f).get("pointer_forms", [])


def covering(entry, found):
    """Whether exceptions.toml's `entry` explains the difference `found`."""
    return (fnmatch.fnmatchcase(found["check"], entry["check"])
            and any(fnmatch.fnmatchcase(found["name"], pattern) for pattern in entry["names"])
            and entry.get("aspect", found.get("aspect")) == found.get("aspect")
            and entry.get("ours", found.get("ours")) == found.get("ours")
            and entry.get("official", found.get("official")) == found.get("official")
            and found["ctk"] in entry.get("ctks", [found["ctk"]]))


def differences(ctk, case, outcome):
    """Each aspect in which ours and the official module disagree, of the names both have."""
    ours, official = outcome["ours"], outcome["official"]
    assert "value" in ours, (case, ours)
    assert "value" in official, (case, official)
    ours, official = ours["value"], official["value"]
    found = []
    for name in sorted(set(ours) & set(official)):
        for aspect in sorted(set(ours[name]) | set(official[name])):
            mine, theirs = ours[name].get(aspect, "absent"), official[name].get(aspect, "absent")
            if mine != theirs:
                found.append({"check": case, "ctk": ctk, "name": name, "aspect": aspect, "ours": mine,
                              "official": theirs})
    return found, len(set(ours) & set(official))


@pytest.fixture(scope="module")
def behaviour(fake_libcuda):
    """{ctk: {case: outcome}} for every CTK the suite builds that has an official release."""
    from test_runtime_library import catalogued_wheel

    out = {}
    for ctk in CTKS:
        official = both_modules.official_path(CACHE, ctk)
        if official is None:
            continue
        path = build(ctk)
        out[ctk] = both_modules.run("pointer_forms", path, official, fake_libcuda)
        site, _ = wheel_library(*catalogued_wheel(ctk), "libcudart")
        out[ctk].update(both_modules.run("pointer_forms_runtime", path, official, None, site=site))
    if not out:
        pytest.skip("no CTK the suite builds has a pinned official release")
    return out


def official_list_parameters(version):
    """{module: {function.parameter: True when the official signature takes a list}}, read from
    the official release `version` in its own interpreter."""
    code = ("import inspect, json, importlib, sys\n"
            "out = {}\n"
            "for name in ('driver', 'runtime'):\n"
            "    m = importlib.import_module('cuda.bindings.' + name)\n"
            "    found = out[name] = {}\n"
            "    for f in dir(m):\n"
            "        obj = getattr(m, f)\n"
            "        if not f.startswith('cu') or isinstance(obj, type) or not callable(obj):\n"
            "            continue\n"
            "        try:\n"
            "            params = inspect.signature(obj).parameters.values()\n"
            "        except (TypeError, ValueError):\n"
            "            continue\n"
            "        for p in params:\n"
            "            found[f + '.' + p.name.rstrip('_')] = 'list[' in str(p.annotation).lower()\n"
            "print(json.dumps(out))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(both_modules.release_path(CACHE, version)))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


REPORT_LINE = re.compile(r"(\w+)\.(\w+): (.*)")


def our_list_parameters(report):
    """{module: {function.parameter: classification}} from the params report of a package."""
    out, module = {}, None
    for line in open(report, encoding="utf-8"):
        if line.startswith("## "):
            module = line.split()[1]
            out[module] = {}
        elif module and (m := REPORT_LINE.match(line.strip())):
            out[module].setdefault(f"{m[1]}.{m[2]}", m[3])
    return out


def is_input_list(classification):
    return classification.startswith("input list")


@pytest.fixture(scope="module")
def declarations(tmp_path_factory):
    """{ctk: [difference]} of the declared list parameters, for every CTK with an official release."""
    out = {}
    releases = catalogue_newest()
    for minor, version in sorted(parity.official_versions().items()):
        if minor not in releases:
            continue
        folder = emit(minor, str(tmp_path_factory.mktemp(f"forms-{minor}")))
        ours = our_list_parameters(os.path.join(folder, "ctkgen_params_report.txt"))
        official = official_list_parameters(version)
        found = []
        for module, params in official.items():
            for name, takes_list in sorted(params.items()):
                mine = ours.get(module, {}).get(name)
                if mine is None or mine.startswith(("output", "in/out", "driver-owned")):
                    continue  # what the call returns is compared by the behaviour check
                if takes_list != is_input_list(mine):
                    found.append({"check": "declared_lists", "ctk": minor, "name": f"{module}.{name}",
                                  "ours": mine.split(" (")[0], "official": "list" if takes_list else "not a list"})
        out[minor] = found
    return out


def unexplained(found):
    entries = listed()
    return [f for f in found if not any(covering(e, f) for e in entries)]


def test_members_and_parameters_take_and_give_the_official_forms(behaviour):
    report, missing = [], []
    for ctk, cases in sorted(behaviour.items()):
        for case, outcome in sorted(cases.items()):
            found, compared = differences(ctk, case, outcome)
            left = unexplained(found)
            report.append(f"{ctk} {case}: {compared} compared, {len(found)} differ, {len(left)} not listed")
            missing += left
    print("\n".join(report))
    for m in missing:
        print("unlisted", m)
    assert not missing, "differences not listed in exceptions.toml [[pointer_forms]]:\n" + "\n".join(
        f"  {m}" for m in missing[:40])


def test_declared_list_parameters_are_the_official_ones(declarations):
    missing = [f for found in declarations.values() for f in unexplained(found)]
    for m in missing:
        print("unlisted", m)
    assert not missing, "parameters taken as a list by one module only, not listed:\n" + "\n".join(
        f"  {m}" for m in missing[:40])


def test_every_listed_form_difference_still_occurs(behaviour, declarations):
    found = [f for ctk, cases in behaviour.items() for case, outcome in cases.items()
             for f in differences(ctk, case, outcome)[0]]
    found += [f for items in declarations.values() for f in items]
    stale = [e for e in listed() if not any(covering(e, f) for f in found)]
    assert not stale, f"exceptions.toml [[pointer_forms]] entries that match no difference: {stale}"
