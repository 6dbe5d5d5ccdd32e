"""The package built where it was generated, as `pip install <out>/python` builds it: with
exactly the Cython and setuptools the suite tests with; every product of the build under
`python/build/`, so `generate --check` afterwards finds the output fresh and lists no other file;
and after generating under another package name into the same folder, nothing of the old name
is left and the next wheel ships the new package alone. (One extension module, `_base`, is
compiled, through the package's CTKGEN_BUILD_MODULES switch: a few seconds; the setup is what is
judged here.)"""
import glob
import importlib.metadata
import os
import shutil
import sys
import tomllib
import zipfile

from conftest import CACHE, run, xtask


def generate(ctk, out, package=None):
    args = ["generate", "--ctk", ctk, "--lang", "cython", "--out", str(out)]
    if package:
        args += ["--python-package", package]
    xtask(*args)
    return out / "python"


def check(ctk, out, package=None):
    """`generate --check`'s report (it fails the test when the output is stale)."""
    args = ["generate", "--ctk", ctk, "--lang", "cython", "--out", str(out), "--check"]
    if package:
        args += ["--python-package", package]
    return xtask(*args).stdout


def wheel(src, dest):
    """Builds a wheel of `src` in place (pip builds in the source folder); returns its entries."""
    env = dict(os.environ, CTKGEN_BUILD_MODULES="_base")
    env.pop("CUDA_HOME", None)
    shutil.rmtree(dest, ignore_errors=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dest), str(src)],
        env=env)
    (path,) = glob.glob(os.path.join(dest, "*.whl"))
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def generated(out):
    """The files generation wrote under `python/`, from the output's manifest."""
    with open(out / ".ctkgen-manifest") as f:
        paths = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return {p[len("python/"):] for p in paths if p.startswith("python/")}


def test_the_suite_builds_with_what_the_package_requires(ctk13, tmp_path):
    src = generate(ctk13, tmp_path / "out")
    with open(src / "pyproject.toml", "rb") as f:
        requires = tomllib.load(f)["build-system"]["requires"]
    assert {r.split("==")[0].lower() for r in requires} >= {"cython", "setuptools"}, requires
    for requirement in requires:
        name, _, version = requirement.partition("==")
        assert version and "," not in version, f"{requirement}: users may build with another version than the suite"
        # run.sh refills the venv when tests/python/requirements.txt changes, not when only the
        # file it includes does.
        assert importlib.metadata.version(name) == version, (
            f"the package requires {requirement}, the suite has {importlib.metadata.version(name)}: "
            f"remove {CACHE}/venv/.ctkgen-requirements so that run.sh installs the pins again")


def test_a_build_in_place_leaves_the_output_fresh(ctk13, tmp_path):
    out = tmp_path / "out"
    src = generate(ctk13, out)
    wheel(src, tmp_path / "wheels")
    assert os.path.isdir(src / "build"), "the build wrote under python/build/"
    report = check(ctk13, out)
    assert "is fresh" in report, report
    assert "other files" not in report, f"the build left files outside python/build/:\n{report}"


def test_another_package_name_leaves_nothing_of_the_old_one(ctk13, tmp_path):
    out = tmp_path / "out"
    src = generate(ctk13, out)
    assert any(n.startswith("ctkgen_cuda/") for n in wheel(src, tmp_path / "first"))
    generate(ctk13, out, "cuda.bindings")
    assert not os.path.exists(src / "ctkgen_cuda"), sorted(os.listdir(src / "ctkgen_cuda"))
    entries = wheel(src, tmp_path / "second")
    files = generated(out)
    package = [n for n in entries if ".dist-info/" not in n]
    assert package and all(n.startswith("cuda/bindings/") for n in package), sorted(package)
    # The generated files and the compiled module, nothing a build made besides.
    extra = [n for n in package if n not in files and not n.endswith(".so")]
    assert not extra, f"the wheel ships files generation did not write: {extra}"
    assert any(n.startswith("cuda/bindings/_base.") and n.endswith(".so") for n in package), package
    report = check(ctk13, out, "cuda.bindings")
    assert "is fresh" in report and "other files" not in report, report
