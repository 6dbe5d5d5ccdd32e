"""The README's Python example runs as written on the built package, against the fake driver
(tests/python/fake_driver), so the first code a newcomer copies cannot go stale."""
import os
import re
import subprocess

from conftest import REPO, python

HERE = os.path.dirname(os.path.abspath(__file__))


def readme_example(language):
    """The first `language` code block of the README's "Using the output" section."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    section = text.split("## Using the output", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    assert blocks, f"no {language} example in the README's usage section"
    return blocks[0]


def test_readme_python_example_runs(package, tmp_path):
    ctk, path = package
    fake = str(tmp_path / "libcuda.so.1")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", fake, os.path.join(HERE, "fake_driver", "fake_libcuda.c")],
                   check=True)
    code = readme_example("python") + "\nprint('tensor map at', hex(tensor_map.getPtr()))\n"
    result = python(path, code, {"CTKGEN_LIBCUDA": fake})
    assert result.returncode == 0, f"CTK {ctk}:\n{code}\n{result.stderr[-4000:]}"
    assert "tensor map at 0x" in result.stdout
