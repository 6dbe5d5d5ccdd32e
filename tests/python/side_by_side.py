"""Both driver modules in one interpreter: the generated package and the official
`cuda.bindings.driver` of the same CTK minor (its pinned wheel, unpacked under
$CTKGEN_CACHE/parity by tests/parity/parity.py), on the fake driver. Ours loads the fake through
$CTKGEN_LIBCUDA; the official module finds `libcuda.so.1` through the normal library search,
so the fake's folder goes on LD_LIBRARY_PATH (the fixture builds it under that name). Both then
share one copy of the fake, and its recorders (opened with ctypes) see what either passed."""
import os
import sys

from both_modules import release_path
from conftest import CACHE, REPO, probe

sys.path.insert(0, os.path.join(REPO, "tests", "parity"))
import parity  # noqa: E402


def official_version(ctk):
    """The pinned cuda-bindings release for CTK `ctk` (major.minor), or None."""
    return parity.official_versions().get(".".join(ctk.split(".")[:2]))


def run_both(ours, version, fake, code):
    """Runs a probe script (see conftest.probe) that can import `ctkgen_cuda.driver` and
    `cuda.bindings.driver`, both on the fake driver at `fake` (a file named libcuda.so.1)."""
    assert os.path.basename(fake) == "libcuda.so.1", fake
    path = os.pathsep.join([ours, *release_path(CACHE, version)])
    library_path = os.pathsep.join(p for p in [os.path.dirname(fake), os.environ.get("LD_LIBRARY_PATH")] if p)
    return probe(path, code, {"CTKGEN_LIBCUDA": fake, "LD_LIBRARY_PATH": library_path})
