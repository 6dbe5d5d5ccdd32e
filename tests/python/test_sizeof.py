"""`sizeof` of every library module against the official cuda.bindings module of the same CTK
minor (pinned in tests/parity/official.txt), both imported in one process on CPU: each public
name the official `sizeof` answers for gets the same number of bytes from ours, and every public
name it refuses (enums, nested records, functions, constants) ours refuses too, with the same
TypeError. A class the official answers for that ours lacks fails the test unless
tests/parity/exceptions.toml lists that name as a difference of the module."""
import os
import sys

import pytest

import both_modules
from conftest import CACHE, REPO, compatible_modules, probe

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

MODULES = compatible_modules(with_package_modules=False)

PROBE = r'''
import importlib, json
out = {}
for name in %(modules)r:
    try:
        official = importlib.import_module("cuda.bindings." + name)
    except ImportError:
        continue  # the release has no such module: nothing to follow
    if not hasattr(official, "sizeof"):
        continue  # a module without the helper (the raise convention's): nothing to follow
    ours = importlib.import_module("ctkgen_cuda." + name)

    def answer(module, obj):
        try:
            return module.sizeof(obj)
        except TypeError as e:
            return ["TypeError", str(e)]

    names = {}
    for attr in dir(official):
        obj = getattr(official, attr)
        if attr.startswith("_") or type(obj).__name__ == "module":
            continue
        theirs = answer(official, obj)
        mine = answer(ours, getattr(ours, attr)) if hasattr(ours, attr) else "missing"
        # A refusal names the object, whose repr names its module: only the kind is compared.
        names[attr] = [t if isinstance(t, int) or t == "missing" else t[0] for t in (theirs, mine)]
    # Objects that are no class: the same message, word for word.
    plain = [[repr(v), answer(official, v), answer(ours, v)] for v in (3, "CUstream", None, [], 8.0)]
    out[name] = {"names": names, "plain": plain}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def answers(package):
    """{module: {"names": {public name: [official answer, ours]}, "plain": [...]}} for the
    package's CTK; an answer is a size, "TypeError", or "missing" (ours has no such name)."""
    ctk, path = package
    official = both_modules.official_path(CACHE, ctk)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for CTK {ctk}")
    return ctk, probe(path, PROBE % {"modules": MODULES}, env={"PYTHONPATH": os.pathsep.join([path, *official])})


@pytest.mark.parametrize("module", MODULES)
def test_sizeof_answers_as_the_official_module(answers, module, capsys):
    ctk, found = answers
    if module not in found:
        pytest.skip(f"the official release for CTK {ctk} has no {module} module, or it has no sizeof")
    names = found[module]["names"]
    listed = parity.load_exceptions(module=module)
    answered = {n: pair for n, pair in names.items() if isinstance(pair[0], int)}
    equal = sorted(n for n, (theirs, mine) in answered.items() if mine == theirs)
    # Lacking the class altogether is a surface difference, judged (and explained) by parity.
    unlisted_missing = sorted(n for n, (_, mine) in answered.items() if mine == "missing" and n not in listed)
    wrong = {n: pair for n, pair in answered.items() if pair[1] not in (pair[0], "missing")}
    refused = {n: pair for n, pair in names.items() if pair[0] == "TypeError" and pair[1] != "missing"}
    refused_wrong = {n: pair for n, pair in refused.items() if pair[1] != "TypeError"}
    with capsys.disabled():
        print(f"\n{module} (CTK {ctk}): {len(equal)} of {len(answered)} official answers equal"
              f" ({len(answered) - len(equal) - len(wrong)} classes ours lacks, listed in exceptions.toml),"
              f" {len(refused) - len(refused_wrong)} of {len(refused)} refusals agree")
    assert answered, "the official sizeof answered for nothing: the probe is broken"
    assert not wrong, f"sizes that differ (official, ours): {wrong}"
    assert not unlisted_missing, f"classes ours lacks, not listed in tests/parity/exceptions.toml: {unlisted_missing}"
    assert not refused_wrong, f"names the official sizeof refuses (official, ours): {refused_wrong}"
    for value, theirs, mine in found[module]["plain"]:
        assert mine == theirs, f"sizeof({value}): official {theirs}, ours {mine}"
