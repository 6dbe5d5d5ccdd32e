"""`utils` and `_internal.utils` against the official modules of every pinned cuda.bindings release
(tests/parity/official.txt), on CPU.

Completeness: every name either official module has (private ones and the Cython-level functions
of `__pyx_capi__` included; `utils_names_probe.py` reads both sides alike, ours from the built
package) is ours, of the same kind and with the same parameters, or listed in
tests/parity/exceptions.toml: `[[utils_private]]` names a private name ours has and who uses it,
`[[utils_left_out]]` one ours does not have and why; a listed name ours no longer matches, or no
pinned release has, fails. Ours is made from headers/package.toml alone (the same for every CTK),
and is compared with every release for each CTK the suite builds.

Behaviour: `utils_cases.py` on ours and on the official release of the same CTK, and on the
newest pinned one, in one process (both_modules.py): the native-handle registry (the official
registry's classes are all in ours, the same values, the same errors), the environment switch,
the NVVM option check against the real libNVVM of the CTK (its wheel, as test_jit_libraries.py
finds it), and `_internal.utils`' compiler name. Where releases differ, ours follows the newest;
where ours differs from it on purpose (`[[behaviour]]` in exceptions.toml) both sides are asserted."""
import json
import os
import subprocess
import sys
import sysconfig
import tomllib

import pytest

import both_modules
from conftest import CACHE, REPO, catalogued_library_wheel, described_libraries, package_description, \
    wheel_shared_libraries

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXCEPTIONS = os.path.join(REPO, "tests", "parity", "exceptions.toml")
OFFICIAL = "cuda.bindings"
OURS = "ctkgen_cuda"
UTILS = package_description()["utils"]
OPTIONS = UTILS["option_check"]


def release_key(version):
    return [int(p) for p in version.split(".")]


RELEASES = sorted(parity.official_versions().values(), key=release_key)
NEWEST = RELEASES[-1]


def names_of(paths, package):
    """{module: {name: what it is}} of `package`'s utils modules, imported with `paths` first."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")}
    env["PYTHONPATH"] = os.pathsep.join([*paths, HERE])
    result = subprocess.run([sys.executable, os.path.join(HERE, "utils_names_probe.py"), package], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


def listings(path=EXCEPTIONS):
    """({(module, name): users} of `[[utils_private]]`, {(module, name): cause} of `[[utils_left_out]]`)."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    private, left_out = {}, {}
    for table, key, out in (("utils_private", "users", private), ("utils_left_out", "cause", left_out)):
        for entry in data.get(table, []):
            assert entry[key].strip(), entry
            for name in entry["names"]:
                assert (entry["module"], name) not in private and (entry["module"], name) not in left_out, name
                out[(entry["module"], name)] = entry[key]
    return private, left_out


def judge(official, ours, private, left_out):
    """`official`: {release: names}; `ours`: names (as `names_of` gives them). Returns (problems,
    stale, counts): a problem is an official name ours lacks unlisted, has otherwise (another kind,
    other parameters, other bases), or has private and unlisted; a stale listing names what ours
    has (left out) or lacks (private), or what no release has."""
    problems, seen, counts = {}, set(), {}
    for release, modules in official.items():
        matched = 0
        for module, names in modules.items():
            for name, what in names.items():
                key = (module, name)
                seen.add(key)
                mine = ours.get(module, {}).get(name)
                if mine is None:
                    if key not in left_out:
                        problems[f"{module}.{name}"] = f"missing ({release}: {what})"
                elif mine != what:
                    problems[f"{module}.{name}"] = f"differs ({release}: {what}, ours: {mine})"
                elif name.startswith("_") and key not in private:
                    problems[f"{module}.{name}"] = "private and ours: say who uses it in [[utils_private]]"
                else:
                    matched += 1
        counts[release] = (matched, sum(len(n) for n in modules.values()))
    stale = sorted(f"{m}.{n}" for (m, n) in left_out if (m, n) not in seen or n in ours.get(m, {}))
    stale += sorted(f"{m}.{n}" for (m, n) in private if (m, n) not in seen or n not in ours.get(m, {}))
    return problems, stale, counts


@pytest.fixture(scope="module")
def official_names():
    return {version: names_of(both_modules.release_path(CACHE, version), OFFICIAL) for version in RELEASES}


@pytest.fixture(scope="module")
def our_names(package):
    ctk, path = package
    return ctk, names_of([path], OURS)


def test_every_official_name_is_ours_or_listed(our_names, official_names):
    ctk, ours = our_names
    private, left_out = listings()
    problems, stale, counts = judge(official_names, ours, private, left_out)
    for release, (matched, total) in counts.items():
        print(f"utils {ctk} against {release}: {matched} of {total} names ours, {total - matched} listed left out")
    assert not problems, "\n".join(f"{k}: {v}" for k, v in sorted(problems.items()))
    assert not stale, f"listed in tests/parity/exceptions.toml but no longer so: {stale}"
    # What the official tests and clients need is there.
    assert {OPTIONS["function"], UTILS["handle_getters"], UTILS["add_handle_getter"],
            UTILS["env_flag_function"]} <= set(ours["utils"])
    assert package_description()["private"]["compiler_function"] in ours["_internal.utils"]


def test_the_completeness_check_sees_a_missing_name_and_a_stale_listing(our_names, official_names):
    """Negative controls of the judgement on the same names: one public and one private name taken
    from ours, a parameter changed, a private listing dropped, and a left-out listing of a name
    ours has or no release has each fail it, naming exactly those."""
    _, ours = our_names
    private, left_out = listings()
    broken = {m: dict(n) for m, n in ours.items()}
    del broken["utils"][OPTIONS["function"]], broken["utils"][UTILS["handle_getters"]]
    broken["utils"][UTILS["env_flag_function"]] = {"kind": "function", "params": ["name"]}
    problems, stale, _ = judge(official_names, broken, private, left_out)
    expected = sorted(f"utils.{n}" for n in (OPTIONS["function"], UTILS["handle_getters"], UTILS["env_flag_function"]))
    assert sorted(problems) == expected, problems
    assert stale == [f"utils.{UTILS['handle_getters']}"], stale  # listed as ours, no longer ours
    problems, stale, _ = judge(official_names, ours, private,
                               {**left_out, ("utils", "get_ptx_ver"): "x", ("utils", "no_such_name"): "x"})
    assert not problems and stale == ["utils.get_ptx_ver", "utils.no_such_name"], stale
    unlisted = {k: v for k, v in private.items() if k != ("utils", UTILS["handle_getters"])}
    problems, stale, _ = judge(official_names, ours, unlisted, left_out)
    assert list(problems) == [f"utils.{UTILS['handle_getters']}"] and not stale, problems


# ---- behaviour -----------------------------------------------------------------------------

def options_site(ctk):
    """A folder laid out as site-packages with the libNVVM of `ctk` (the wheel the catalogue pins)."""
    (library,) = [d for d in described_libraries().values() if d["python"]["module"] == OPTIONS["module"]]
    wheel = catalogued_library_wheel(ctk, library["header"])
    if wheel is None:
        pytest.skip(f"CTK {ctk} ships no {library['header']}")
    return wheel_shared_libraries(*wheel)


@pytest.fixture(scope="module")
def outcomes(package):
    """{"same": the outcomes against the release of the package's CTK (None when none is pinned),
    "newest": against the newest pinned release}, each {case: {"ours": ..., "official": ...}}."""
    ctk, path = package
    site = options_site(ctk)
    same = both_modules.official_path(CACHE, ctk)
    out = {"newest": both_modules.run("utils_cases", path, both_modules.release_path(CACHE, NEWEST), None, site=site)}
    out["same"] = None if same is None else both_modules.run("utils_cases", path, same, None, site=site)
    return out


def value(side):
    assert "value" in side, side
    return side["value"]


def behaviour_listed(words):
    with open(EXCEPTIONS, "rb") as f:
        cases = [entry["case"] for entry in tomllib.load(f).get("behaviour", [])]
    assert any(words in case for case in cases), f"no [[behaviour]] entry in exceptions.toml says {words!r}"


def test_the_official_handle_classes_are_registered_in_ours(outcomes):
    """Every class the official modules of the same CTK register is registered in ours and gives
    the same value; ours registers every handle class of its modules (listed: the official modules
    leave some out)."""
    same = outcomes["same"]
    if same is None:
        pytest.skip("no official release of this CTK is pinned")
    ours, theirs = (value(same["registered_handle_classes"][side]) for side in ("ours", "official"))
    assert len(theirs) >= 40 and not set(theirs) - set(ours), sorted(set(theirs) - set(ours))
    if set(ours) - set(theirs):
        behaviour_listed("a handle class the official modules do not register")
    values = {side: value(same["handle_values"][side]) for side in ("ours", "official")}
    assert all(v == [0x5A5A, 0x5A5A] for v in values["ours"].values()), values["ours"]
    assert {k: values["ours"][k] for k in theirs} == values["official"]
    print(f"registered: {len(theirs)} official classes, ours {len(ours)}; ours alone: {sorted(set(ours) - set(theirs))}")


@pytest.mark.parametrize("case", ["unknown_objects", "a_record_is_no_handle", "a_subclass_of_a_handle_class_is_unknown",
                                  "a_class_added_with_its_getter", "any_class_may_be_added", "the_registry_is_a_dict"])
def test_native_handles_as_the_official_function(outcomes, case):
    """The same outcome on ours and on both official releases (the same CTK's and the newest)."""
    for label in ("same", "newest"):
        if outcomes[label] is not None:
            sides = outcomes[label][case]
            assert value(sides["ours"]) == value(sides["official"]), (label, sides)
    ours = value(outcomes["newest"][case]["ours"])
    if case == "unknown_objects":
        assert [o[0] for o in ours] == ["TypeError"] * 8 and ours[0][1] == "Unknown type: <class 'tuple'>", ours
    if case == "a_subclass_of_a_handle_class_is_unknown":
        assert ours == [7, "TypeError", "Mine'>"], ours


def test_a_getters_own_error_is_not_an_unknown_class(outcomes):
    """As the newest release (13.4 and later); earlier ones answered TypeError."""
    newest = outcomes["newest"]["a_getter_raising_key_error"]
    assert value(newest["ours"]) == value(newest["official"]) == ["KeyError", "'inside the getter'"], newest
    if outcomes["same"] is not None:
        theirs = value(outcomes["same"]["a_getter_raising_key_error"]["official"])
        assert theirs == ["KeyError", "'inside the getter'"] or theirs[0] == "TypeError", theirs


def test_the_environment_switch_reads_as_the_official_one(outcomes):
    newest = outcomes["newest"]["env_flag"]
    ours, theirs = value(newest["ours"]), value(newest["official"])
    assert ours == theirs
    by_text = {text: plain[1] for text, plain, _, _ in ours}
    assert by_text[None] is False and by_text["0x0"] is False and by_text["0x10"] is True and by_text["abc"] is True
    assert [o for o in ours if o[0] is None][0][2] == ["ok", True]


def test_the_option_check_answers_as_the_official_one_on_the_ctks_libnvvm(outcomes):
    """Against the real libNVVM of the package's CTK: valid, invalid, unknown architectures, an
    empty list, several options, a tuple, bytes, a str (its characters as options), wrong types;
    and twice in a row."""
    for case in ("option_check", "option_check_twice_in_a_row", "option_check_with_a_dependency_missing"):
        sides = outcomes["newest"][case]
        assert value(sides["ours"]) == value(sides["official"]), (case, sides)
    answers = dict(value(outcomes["newest"]["option_check"]["ours"]))
    assert answers["['-arch=compute_90']"] == ["ok", True] and answers["[]"] == ["ok", True]
    assert answers["['-arch=compute_90', '-opt=3', '-g']"] == ["ok", True]
    assert answers["['--this-is-not-a-valid-option']"] == ["ok", False]
    assert answers["['-arch=compute_99999']"] == ["ok", False]
    assert value(outcomes["newest"]["option_check_twice_in_a_row"]["ours"]) == [False, True, False, True]
    assert value(outcomes["newest"]["option_check_with_a_dependency_missing"]["ours"])[0] == "ModuleNotFoundError"


def test_the_option_check_without_the_module_says_no(outcomes):
    """A package without the nvvm module: ours says False (listed: the newest release fails the
    import instead)."""
    sides = outcomes["newest"]["option_check_without_the_module"]
    assert value(sides["ours"]) == ["ok", False], sides
    behaviour_listed("check_nvvm_compiler_options when the package has no nvvm module")
    assert value(sides["official"])[0] == "ImportError", sides


def test_the_option_check_without_libnvvm_says_no(package):
    """No libNVVM reachable: ours says False, the newest release raises pathfinder's not-found
    error (listed); both are RuntimeErrors from the loader."""
    ctk, path = package
    out = both_modules.run("utils_cases_no_library", path, both_modules.release_path(CACHE, NEWEST), None)
    loader = value(out["the_loader_cannot_load_it"]["ours"])
    if loader[0] == "ok":
        pytest.skip("this machine has libNVVM on the system loader's path, so it is always found")
    assert "RuntimeError" in loader[1], loader
    assert value(out["option_check_without_the_library"]["ours"]) == ["ok", False]
    behaviour_listed("check_nvvm_compiler_options with no libNVVM to load")
    theirs = value(out["option_check_without_the_library"]["official"])
    assert theirs[0] == "DynamicLibNotFoundError" and "RuntimeError" in theirs[1], theirs


def test_the_compiler_name_is_the_one_that_built_the_package(outcomes):
    """`_internal.utils.get_c_compiler()`: the compiler setuptools built ours with, by its
    preprocessor's own name for itself, in the form the official one has (`GCC <version>`)."""
    sides = outcomes["newest"]["c_compiler"]
    (ours, ours_prefixes), (theirs, their_prefixes) = value(sides["ours"]), value(sides["official"])
    assert ours_prefixes == their_prefixes == 1
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC")).split()
    macros = subprocess.run([*cc, "-E", "-P", "-x", "c", "-"], input="__clang__ __GNUC__ __VERSION__\n",
                            capture_output=True, text=True, check=True).stdout.split(None, 2)
    clang, gnu, version = macros[0] != "__clang__", macros[1] != "__GNUC__", macros[2].strip().strip('"')
    assert gnu and not clang, f"the suite builds with GCC here: {macros}"
    assert ours == f"GCC {version}" and theirs.startswith("GCC "), (ours, theirs)
