"""The compatible package's private modules that libraries built on it import (cuda.core,
numba-cuda), named in headers/package.toml `[private]`: generated as `cuda.bindings` (pure
Python, nothing compiled) and compared with the official release in use by the same calls."""
import os
import subprocess
import sys

import pytest

from both_modules import release_path
from conftest import CACHE, REPO, catalogue_newest, package_description, xtask

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PRIVATE = package_description()["private"]
PACKAGE = "cuda.bindings"
CTK = "13.1"


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("private"))
    xtask("generate", "--ctk", CTK, "--lang", "cython", "--python-package", PACKAGE, "--out", out)
    return os.path.join(out, "python", *PACKAGE.split("."))


def official_folder(version):
    return os.path.join(release_path(CACHE, version)[0], *PACKAGE.split("."))


def probe(*args, paths=()):
    code = "import sys; sys.path[:0] = sys.argv[1].split(':') if sys.argv[1] else []; exec(sys.argv[2])"
    result = subprocess.run([sys.executable, "-c", code, ":".join(paths), *args], cwd=HERE,
                            capture_output=True, text=True, check=True)
    return result.stdout


def test_the_version_module_says_the_release(ours):
    out = probe(f"import private_modules_probe as p; m = p.load('v', {os.path.join(ours, PRIVATE['version_module'] + '.py')!r}); "
                "print(m.__version__, m.__version_tuple__)")
    release = catalogue_newest()[CTK]
    assert out.split(" ", 1) == [release, f"{tuple(int(p) for p in release.split('.'))}\n"]


def test_the_error_classes_are_the_official_ones(ours):
    errors = sorted(PRIVATE["errors"])
    module = f"{PRIVATE['internal_package']}.{PRIVATE['errors_module']}"
    path = os.path.join(ours, *module.split(".")) + ".py"
    show = "print([(n, [c.__name__ for c in getattr(m, n).__mro__]) for n in {errors!r}])"
    mine = probe(f"import private_modules_probe as p; m = p.load('e', {path!r}); " + show.format(errors=errors))
    version = parity.official_versions()[CTK]
    official = probe(f"import importlib; m = importlib.import_module({PACKAGE + '.' + module!r}); "
                     + show.format(errors=errors), paths=release_path(CACHE, version))
    assert mine == official
    assert "RuntimeError" in mine


def test_the_enum_base_behaves_as_the_official_one(ours):
    """The official module has it from 13.2 on: the newest pinned release's is the reference."""
    module = os.path.join(PRIVATE["internal_package"], PRIVATE["enum_module"] + ".py")
    having = [v for v in sorted(parity.official_versions().values(), key=lambda v: [int(p) for p in v.split(".")])
              if os.path.exists(os.path.join(official_folder(v), module))]
    assert having, "no pinned official release has the enum module"
    args = (PRIVATE["enum_class"], PRIVATE["enum_metaclass"])
    run = "import private_modules_probe as p, sys; print(p.enum_uses(p.load('m', sys.argv[3]), sys.argv[4], sys.argv[5]))"
    mine = probe(run, os.path.join(ours, module), *args)
    official = probe(run, os.path.join(official_folder(having[-1]), module), *args)
    assert mine == official
    assert "'9 is not a valid Color'" in mine
