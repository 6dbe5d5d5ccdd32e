"""The README's Python example runs as written on the built package, against the fake driver
(tests/python/fake_driver), so the first code a newcomer copies cannot go stale."""
import os
import re

from conftest import REPO, python


def readme_example(language, index=0):
    """The `language` code block number `index` (from 0) of the README's "Using the output" section."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    section = text.split("## Using the output", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    assert len(blocks) > index, f"no {language} example {index} in the README's usage section"
    return blocks[index]


def test_readme_python_example_runs(package, fake_libcuda):
    ctk, path = package
    code = readme_example("python") + "\nprint('tensor map at', hex(tensor_map.getPtr()))\n"
    result = python(path, code, {"CTKGEN_LIBCUDA": fake_libcuda})
    assert result.returncode == 0, f"CTK {ctk}:\n{code}\n{result.stderr[-4000:]}"
    assert "tensor map at 0x" in result.stdout
