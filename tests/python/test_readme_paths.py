"""The README against what its first command writes: every `target/ctkgen/<release>/...` path it
names exists after `cargo xtask generate --ctk 13.1`, the package tree it draws names only files
the package has and every module a user imports or cimports, and the module list it gives is the
package's."""
import fnmatch
import os
import re

import pytest

from conftest import REPO, catalogue_newest, xtask

MINOR = "13.1"
OUTPUT_PATH = re.compile(r"target/ctkgen/(\d+\.\d+\.\d+)/([A-Za-z0-9_./-]+)")


def readme():
    with open(os.path.join(REPO, "README.md")) as f:
        return f.read()


def usage_section(text):
    return text.split("## Using the output", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("readme") / "out")
    xtask("generate", "--ctk", MINOR, "--out", out)
    return out


def package_files(generated):
    folder = os.path.join(generated, "python", "ctkgen_cuda")
    return folder, sorted(os.listdir(folder))


def paths_named(text, release):
    """Every output path the README names for `release`, relative to the output folder."""
    named = []
    for found_release, rest in OUTPUT_PATH.findall(text):
        assert found_release == release, f"the README names target/ctkgen/{found_release}/, the newest {MINOR} is {release}"
        named.append(rest.rstrip(".,/"))
    return sorted(set(named))


def test_every_output_path_the_readme_names_exists(generated):
    release = catalogue_newest()[MINOR]
    named = paths_named(readme(), release)
    assert named, "the README names no output path of generate --ctk 13.1"
    missing = [p for p in named if not os.path.exists(os.path.join(generated, p))]
    assert not missing, f"the README names paths generate --ctk {MINOR} does not write: {missing}"


def tree_block(text):
    """The entries of the README's drawing of the package (`python/ctkgen_cuda/`): the words before
    each line's description, file names or patterns relative to the package folder."""
    block = re.search(r"```text\npython/ctkgen_cuda/\n(.*?)```", usage_section(text), re.S)
    assert block, "no drawing of python/ctkgen_cuda/ in the README's usage section"
    entries = []
    for line in block.group(1).splitlines():
        names = re.split(r"\s{4,}", line.strip(), maxsplit=1)[0]
        entries += [name.rstrip("/") for name in names.split()]
    return entries


def test_the_package_tree_names_what_the_package_has(generated):
    folder, files = package_files(generated)
    entries = tree_block(readme())
    unmatched = [e for e in entries if not fnmatch.filter(files, e)]
    assert not unmatched, f"the README's package tree names what the package lacks: {unmatched}"
    # What users import or cimport, and the private folder clients import from.
    wanted = [f for f in files if (f.endswith((".py", ".pyi")) or f.startswith("cy")) and not f.startswith("__")]
    wanted += [f for f in files if os.path.isdir(os.path.join(folder, f)) and not f.startswith("__")]
    unnamed = [f for f in wanted if not any(fnmatch.fnmatch(f, e) for e in entries)]
    assert not unnamed, f"the README's package tree leaves out: {unnamed}"


def test_the_module_list_is_the_packages(generated):
    _, files = package_files(generated)
    sentence = re.search(r"a Cython package with the modules\s(.*?)\)", usage_section(readme()), re.S)
    assert sentence, "the README's usage section no longer lists the package's modules"
    listed = set(re.findall(r"`(\w+)`", sentence.group(1)))
    public = {f[:-3] for f in files if f.endswith(".py") and not f.startswith("_")}
    assert listed == public, f"README lists {sorted(listed)}, the package has {sorted(public)}"


def test_a_stale_path_or_module_is_caught(generated):
    """The checks above fail on a README naming what is not there."""
    release = catalogue_newest()[MINOR]
    stale = f"see target/ctkgen/{release}/rust/cuda-nowhere-sys and target/ctkgen/{release}/python/setup.py"
    named = paths_named(stale, release)
    assert [p for p in named if not os.path.exists(os.path.join(generated, p))] == ["rust/cuda-nowhere-sys"]
    _, files = package_files(generated)
    assert not fnmatch.filter(files, "_nowhere_*.pyx")
