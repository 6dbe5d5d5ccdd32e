"""`generate --python-package cuda.bindings` makes a package that installs in place of the official
one: built as a wheel, installed into a fresh virtual environment that has no cuda-bindings, the
README's program that uses every module together (`driver`, `runtime`, `nvrtc`, `utils`) runs as
written, against fakes of the libraries (CPU only). What the package does not provide is a
ModuleNotFoundError naming it, as README.md says, and those it does provide are installed.

One more build of a whole package, at -O0: the import name is compiled into every extension
module, so the suite's other builds cannot be reused."""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import CACHE, REPO, fake_library, ir_json, run, tree_digest, xtask
from test_readme import readme_example

PACKAGE = "cuda.bindings"


def descriptions():
    out = {}
    for path in sorted(glob.glob(os.path.join(REPO, "headers", "libraries", "*.toml"))):
        name = os.path.basename(path)[: -len(".toml")]
        if "." not in name:
            with open(path, "rb") as f:
                out[name] = tomllib.load(f)
    return out


def kept_wheel(ctk, folder):
    """Our wheel of `ctk`, generated as cuda.bindings in `folder` and built unoptimised: this is
    a test of the installed package's names and behaviour, and -O0 compiles the whole package in
    a fraction of the time. The wheel is kept by the content it was built from, so an unchanged
    tree installs the one built before."""
    xtask("generate", "--ctk", ctk, "--lang", "cython", "--python-package", PACKAGE, "--out", str(folder / "gen"))
    src = folder / "gen" / "python"
    wheels = folder / "wheels"
    flags = "-O0 -g0"
    key = hashlib.sha256(f"{tree_digest(str(src))}|{flags}|{sys.version}".encode()).hexdigest()[:16]
    kept = os.path.join(CACHE, "as-cuda-bindings-wheels", key)
    if not glob.glob(os.path.join(kept, "*.whl")):
        env = dict(os.environ, CFLAGS=flags)
        env.pop("CUDA_HOME", None)
        env.pop("CTKGEN_STATIC_LIBRARIES", None)
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
             str(src)], env=env)
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        partial = f"{kept}.{os.getpid()}"
        shutil.copytree(wheels, partial)
        try:
            os.rename(partial, kept)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)  # another session kept it first
    (wheel,) = glob.glob(os.path.join(kept, "*.whl"))
    assert os.path.basename(wheel).startswith("cuda_bindings-"), wheel
    return wheel


@pytest.fixture(scope="module")
def venv(ctk13, tmp_path_factory):
    """A fresh virtual environment (no site packages) with the generated package installed from
    its wheel, offline."""
    tmp = tmp_path_factory.mktemp("as-cuda-bindings")
    wheel = kept_wheel(ctk13, tmp)
    home = tmp / "venv"
    run([sys.executable, "-m", "venv", str(home)])
    interpreter = str(home / "bin" / "python")
    run([interpreter, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel])
    return ctk13, interpreter, wheel


def fakes(ctk, folder, fake_libcuda):
    """{library path variable: fake} for every described library."""
    env = {}
    for name, description in descriptions().items():
        variable = description["python"]["library_path_env_var"]
        if name == "cuda-driver":
            env[variable] = fake_libcuda
        else:
            env[variable] = fake_library(str(folder), ir_json(ctk, name), f"lib{name}-fake.so")
    return env


def in_venv(interpreter, code, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    full_env.update(env or {})
    return subprocess.run([interpreter, "-c", code], env=full_env, capture_output=True, text=True, cwd="/",
                          timeout=600)


def test_nothing_official_is_installed_and_ours_resolves(venv):
    ctk, interpreter, _ = venv
    result = in_venv(interpreter, "import importlib.metadata as m, importlib.util as u, cuda\n"
                     "print(m.version('cuda-bindings'))\n"
                     "print(sorted(d.metadata['Name'] for d in m.distributions()))\n"
                     "print(u.find_spec('cuda.bindings.driver').origin)\n"
                     "print(list(cuda.__path__))")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(ctk + "."), lines[0]
    # The one distribution named cuda-bindings is ours (the wheel built here), beside pip's own.
    assert [n for n in eval(lines[1]) if n not in ("pip", "setuptools")] == ["cuda-bindings"], lines[1]
    assert os.path.dirname(interpreter)[: -len("/bin")] in lines[2], lines[2]
    # `cuda` stays a namespace package (no __init__.py of ours), open to cuda.pathfinder and others.
    assert len(eval(lines[3])) == 1 and not lines[3].endswith("__init__.py']"), lines[3]


def test_the_package_says_its_version_and_satisfies_what_clients_require(venv, tmp_path):
    """cuda.core reads `cuda.bindings.__version__` (its major picks the build it loads) and
    requires `cuda-bindings[all]==<major>.*`: the wheel offers that extra, and pip, offline, takes
    it for that requirement (without the extra's own requirements, which need the package index:
    test_installed_with_all.py installs them)."""
    ctk, interpreter, wheel = venv
    result = in_venv(interpreter, "import importlib.metadata as m, cuda.bindings as b\n"
                     "print(b.__version__); print(m.version('cuda-bindings'))\n"
                     "print(','.join(m.metadata('cuda-bindings').get_all('Provides-Extra') or []))")
    assert result.returncode == 0, result.stderr
    version, distribution, extras = result.stdout.split()
    assert version == distribution and version.startswith(ctk + "."), result.stdout
    assert "all" in extras.split(","), extras
    requirement = f"cuda-bindings[all]=={ctk.split('.')[0]}.*"
    resolved = subprocess.run([interpreter, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps",
                               "--find-links", os.path.dirname(wheel), "--force-reinstall", requirement],
                              capture_output=True, text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr
    assert f"Would install cuda-bindings-{version}" in resolved.stdout, resolved.stdout


def test_the_readme_family_program_runs_as_written(venv, tmp_path, fake_libcuda):
    ctk, interpreter, _ = venv
    code = readme_example("python", index=1)
    assert "from cuda.bindings import" in code
    result = in_venv(interpreter, code, fakes(ctk, tmp_path, fake_libcuda))
    assert result.returncode == 0, f"{code}\n{result.stderr[-4000:]}"
    assert result.stdout.strip(), "the program prints what it did"


@pytest.mark.parametrize("module", ["cynvrtc", "nvjitlink", "_internal.nvjitlink", "nvvm", "_internal.nvvm", "cufile",
                                    "nvml"])
def test_official_modules_are_provided_or_say_they_are_not(venv, module):
    """The modules of the official package this one has no counterpart of raise
    ModuleNotFoundError naming them (`cy*` modules exist, with other contents: see README); those
    it has, the installed wheel has too (the private `_internal` loaders among them)."""
    _, interpreter, _ = venv
    result = in_venv(interpreter, f"import cuda.bindings.{module}")
    if module.startswith(("cy", "nvjitlink", "nvvm", "_internal.")):
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 1
        assert f"ModuleNotFoundError: No module named 'cuda.bindings.{module}'" in result.stderr, result.stderr
