"""The modules of the raise convention (the libraries whose description says `convention =
"raise"`: nvJitLink, NVVM, nvFatbin) against the real library of their CTK, from the wheel the catalogue
pins beside the header (linking PTX and compiling NVVM IR need no GPU): where the library is
found, the not-found error at the first call and never at import, the same results as the
official module of that CTK in one process (`<module>_cases.py`), and the `_internal` loader's
addresses against the official one's."""
import importlib
import json
import os
import subprocess
import sys

import pytest

from conftest import (CACHE, CTKS, build, catalogued_library_wheel, described_libraries, ir_json, package_description,
                      wheel_shared_libraries)
import both_modules

HERE = os.path.dirname(os.path.abspath(__file__))
PRIVATE = package_description()["private"]
DESCRIBED = described_libraries()
RAISING = [name for name, d in DESCRIBED.items() if d["python"].get("convention") == "raise"]


class Jit:
    """One raise-convention library of one CTK: its description, the folder laid out as
    site-packages with its wheel's libraries, the library file there, and our built modules."""

    def __init__(self, ctk, name):
        self.ctk, self.name = ctk, name
        self.desc = DESCRIBED[name]
        self.python = self.desc["python"]
        self.module = self.python["module"]
        wheel = catalogued_library_wheel(ctk, self.desc["header"])
        if wheel is None:
            pytest.skip(f"CTK {ctk} ships no {self.desc['header']} (the catalogue lists it for other releases)")
        self.site = wheel_shared_libraries(*wheel)
        major = ctk.split(".")[0]
        folder = os.path.join(self.site, self.desc["search"]["wheel_dirs"][major])
        self.file = os.path.join(folder, self.desc["search"].get("wheel_files", {}).get(major, self.soname))
        assert os.path.isfile(self.file), self.file
        # Only the modules this library needs: the shared runtime, its C level, its functions.
        self.path = build(ctk, modules=["_base", self.python["cython_module"], f"_{self.module}_functions_0"])

    @property
    def soname(self):
        return self.desc["library"].replace("{major}", self.ctk.split(".")[0])


@pytest.fixture(scope="module", params=[(ctk, name) for ctk in CTKS for name in RAISING],
                ids=lambda p: f"{p[1]}-{p[0]}")
def jit(request):
    return Jit(*request.param)


def bare_env(jit, **extra):
    """The environment without anything that points at the library, plus `extra`."""
    drop = ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "PYTHONPATH", jit.python["library_path_env_var"])
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def loaded_from(jit, env):
    """Calls `version()` of our module in a fresh interpreter; returns the version and the
    library files the process mapped whose name starts as the soname does."""
    stem = jit.soname.split(".so")[0]
    code = (f"import json, ctkgen_cuda.{jit.module} as m\nv = list(m.version())\n"
            f"maps = sorted({{l.split()[-1] for l in open('/proc/self/maps') if '/{stem}.so' in l}})\n"
            "print(json.dumps([v, maps]))\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_found_in_site_packages(jit):
    version, maps = loaded_from(jit, bare_env(jit, PYTHONPATH=os.pathsep.join([jit.path, jit.site])))
    assert len(version) == 2 and all(isinstance(v, int) for v in version)
    assert maps == [os.path.realpath(jit.file)], maps


def test_found_under_cuda_home(jit, tmp_path):
    home_dir = jit.desc["search"]["home_dirs"][0]
    (tmp_path / home_dir).mkdir(parents=True)
    os.symlink(jit.file, tmp_path / home_dir / jit.soname)
    version, maps = loaded_from(jit, bare_env(jit, PYTHONPATH=jit.path, CUDA_HOME=str(tmp_path)))
    assert len(version) == 2 and maps == [os.path.realpath(jit.file)], maps


def test_named_file_wins(jit, tmp_path):
    env = bare_env(jit, PYTHONPATH=jit.path, CUDA_HOME=str(tmp_path), **{jit.python["library_path_env_var"]: jit.file})
    version, maps = loaded_from(jit, env)
    assert len(version) == 2 and maps == [os.path.realpath(jit.file)], maps


def test_not_found_at_the_first_call_never_at_import(jit, tmp_path):
    error = jit.python["library_not_found_error"]
    code = (f"import ctkgen_cuda.{jit.module} as m\n"
            f"try:\n    m.version()\nexcept m.{error} as e:\n    print(isinstance(e, RuntimeError)); print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], env=bare_env(jit, PYTHONPATH=jit.path, CUDA_HOME=str(tmp_path)),
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0 and "version" not in result.stderr:
        pytest.fail(result.stderr[-3000:])
    lines = result.stdout.splitlines()
    if not lines:
        pytest.skip(f"this machine has {jit.soname} on the system loader's path, so it is always found")
    assert lines[0] == "True"
    message = lines[1]
    assert message.startswith(f"{jit.desc['library_description']} not found: tried"), message
    assert jit.soname in message and "CUDA_HOME" in message and jit.python["library_path_env_var"] in message, message


def test_a_function_the_library_lacks_raises_what_the_compatible_module_raises(jit, tmp_path):
    """A library file that has none of the entry points loads, and the first call raises the
    module's own not-found error, which is the package's private class the compatible module
    raises for a missing entry point (headers/package.toml), so code catching that class catches
    ours; it is a RuntimeError too."""
    base = PRIVATE["function_not_found_error"]
    # The class named is the one the official loader of this CTK raises for a missing function
    # (its shipped source: `raise <class>("function <name> is not found")`), where the release
    # ships its sources (13.2 on ship compiled modules only).
    official = both_modules.official_path(CACHE, jit.ctk)
    source = official and os.path.join(official[0], "cuda", "bindings", "_internal", f"{jit.module}_linux.pyx")
    if source and os.path.exists(source):
        with open(source) as f:
            assert f'raise {base}("function ' in f.read(), f"the official {jit.module} loader raises no {base}"
    source = tmp_path / "empty.c"
    source.write_text("int ctkgen_no_entry_points;\n")
    fake = tmp_path / jit.soname
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(fake), str(source)], check=True)
    private = f"ctkgen_cuda.{PRIVATE['internal_package']}.{PRIVATE['errors_module']}"
    code = (f"import ctkgen_cuda.{jit.module} as m, {private} as private\n"
            f"try:\n    m.version()\nexcept Exception as e:\n"
            f"    print(type(e).__name__, isinstance(e, private.{base}), isinstance(e, RuntimeError)); print(e)\n")
    env = bare_env(jit, PYTHONPATH=jit.path, **{jit.python["library_path_env_var"]: str(fake)})
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    kind, message = result.stdout.splitlines()[:2]
    assert kind == f"{jit.python['function_not_found_error']} True True", result.stdout
    assert "not found" in message, message


def official_or_skip(jit):
    official = both_modules.official_path(CACHE, jit.ctk)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for {jit.ctk}")
    if not any(n.startswith(f"{jit.module}.") for n in os.listdir(os.path.join(official[0], "cuda", "bindings"))):
        pytest.skip(f"the official release of {jit.ctk} has no {jit.module} module")
    return official


def enums_as_the_header_says(jit, sides):
    """The enums of an official module made from a newer header than the CTK's (12.x's made
    from 13.x headers): ours keep this header's values, where the newer header numbers its
    aliases (`#define FOO_ERROR_NULL_INPUT FOO_ERROR_INVALID_INPUT` in 12.x) as members of
    their own. Every member both have whose values differ is such an alias here, with its value."""
    with open(ir_json(jit.ctk, jit.name)) as f:
        aliases = {c["name"]: c["value"]["value"] for c in json.load(f)["constants"] if c["ty"].get("kind") == "enum"}
    prefix = jit.python["raise"]["constant_prefix"]
    ours, theirs = sides["ours"]["value"], sides["official"]["value"]
    differing = []
    for cls in theirs:
        mine = dict(ours[cls])
        for name, value in theirs[cls]:
            if name in mine and mine[name] != value:
                assert aliases.get(prefix + name) == mine[name], (cls, name, mine[name], value)
                differing.append(name)
    return differing


# Differences on purpose, by (library, CTK major, case): the check each side must pass instead.
DELIBERATE = {("nvjitlink", "12", "enums"): enums_as_the_header_says}


def test_same_results_as_the_official_module(jit):
    official = official_or_skip(jit)
    outcomes = both_modules.run(f"{jit.module}_cases", jit.path, official, None, site=jit.site)
    assert len(outcomes) >= 10
    differ = {}
    for case, sides in outcomes.items():
        deliberate = DELIBERATE.get((jit.name, jit.ctk.split(".")[0], case))
        if deliberate is not None:
            assert deliberate(jit, sides), f"{case}: listed as a deliberate difference, but none is left"
        elif (sides["ours"].get("value"), sides["ours"].get("error")) != \
                (sides["official"].get("value"), sides["official"].get("error")):
            differ[case] = sides
    assert not differ, json.dumps(differ, indent=1)[:6000]
    # The calls reached the library and did their work: each cases module says what is real.
    importlib.import_module(f"{jit.module}_cases").assert_real({case: sides["ours"] for case, sides in outcomes.items()})

INTERNAL_PROBE = r'''
import json, sys
import ctkgen_cuda._internal.{module} as ours
import cuda.bindings._internal.{module} as official
a, b = ours._inspect_function_pointers(), official._inspect_function_pointers()
one = sorted(a)[0]
print(json.dumps([a, b, ours._inspect_function_pointer(one), official._inspect_function_pointer(one), one]))
'''


def test_internal_loader_gives_the_official_addresses(jit):
    """`_internal.<module>` as the official one: the same keys for the functions both bind, and the
    same address for each (one library file, loaded once by both), 0 where the library lacks one."""
    if "internal" not in jit.python:
        pytest.skip(f"{jit.name} asks for no _internal module")
    official = official_or_skip(jit)
    env = bare_env(jit, PYTHONPATH=os.pathsep.join([jit.path, *official, jit.site]))
    result = subprocess.run([sys.executable, "-c", INTERNAL_PROBE.format(module=jit.python["internal"]["module"])],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    ours, theirs, one_ours, one_theirs, key = json.loads(result.stdout.splitlines()[-1])
    assert one_ours == one_theirs == theirs[key] != 0
    # The official module lists the functions of every release it was made for; ours, those of
    # this release's header.
    both = set(ours) & set(theirs)
    assert len(both) >= 10, sorted(both)
    assert {k: ours[k] for k in both} == {k: theirs[k] for k in both}
    assert all(v != 0 for v in ours.values())
