"""The generated package compiles without a single C compiler warning under -Wall -Wextra (the
flags of the suite's `package` builds, beside the sanitizers). Before the result helpers were
made `static inline` and the unsigned conversion's error value made signed-representable, a
13.1 build printed 813 warnings."""
import os


def test_the_package_builds_without_compiler_warnings(package):
    ctk, path = package
    with open(os.path.join(path, "build.log")) as f:
        warnings = [line for line in f.read().splitlines() if ": warning: " in line]
    assert not warnings, f"CTK {ctk}: {len(warnings)} compiler warnings, first: " + "\n".join(warnings[:5])
