"""Every doc comment of a CTK, rendered as reStructuredText the way the Python docstrings are,
parses with docutils without a warning, and its text (outside literals) keeps no Doxygen
command or raw `::name` reference. The same checker run on the raw Doxygen text finds
problems, which shows it can fail."""
import io
import json
import re
import subprocess

import pytest
from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import roles

from conftest import CTKS, REPO, ir_json


def _py_obj(name, rawtext, text, lineno, inliner, options=None, content=None):
    # Sphinx's Python-domain role; plain docutils only needs it to exist.
    return [nodes.literal(rawtext, utils.unescape(text))], []


roles.register_local_role("py:obj", _py_obj)


def rendered(ctk, form):
    ir = ir_json(ctk)
    result = subprocess.run(
        ["cargo", "run", "-q", "-p", "ctkgen-ir", "--example", "render_docs", "--", ir, form],
        capture_output=True, text=True, cwd=REPO, check=True)
    print(result.stderr.strip())
    return json.loads(result.stdout)


LEFTOVER = re.compile(r"\\[A-Za-z]|(?:^|\s)::[A-Za-z_]")


def problems(text):
    """docutils messages of level WARNING or above for one docstring, and Doxygen left in
    its prose."""
    stream = io.StringIO()
    settings = {"report_level": 2, "halt_level": 5, "warning_stream": stream}
    tree = publish_doctree(text, settings_overrides=settings)
    found = [m.astext() for m in tree.findall(nodes.system_message) if m["level"] >= 2]
    log = stream.getvalue().strip()
    if log and not found:
        found.append(log)
    for node in tree.findall(nodes.Text):
        if isinstance(node.parent, (nodes.literal, nodes.literal_block, nodes.system_message)):
            continue
        match = LEFTOVER.search(node.astext())
        if match:
            found.append(f"Doxygen left in text: {node.astext()[max(0, match.start() - 20):match.end() + 20]!r}")
    return found


def failing(docs):
    return [(doc["item"], problems(doc["text"])) for doc in docs if problems(doc["text"])]


@pytest.mark.parametrize("ctk", CTKS)
def test_every_docstring_parses_with_docutils(ctk):
    docs = rendered(ctk, "rst")
    bad = failing(docs)
    print(f"CTK {ctk}: {len(docs)} docstrings checked, {len(bad)} with docutils warnings or errors")
    assert len(docs) > 1000
    assert not bad, "\n".join(f"{item}: {msgs[0]}" for item, msgs in bad[:20])


@pytest.mark.parametrize("ctk", CTKS[:1])
def test_raw_doxygen_fails_the_same_check(ctk):
    docs = rendered(ctk, "raw")
    bad = failing(docs)
    print(f"CTK {ctk}: raw Doxygen text, {len(bad)} of {len(docs)} comments fail")
    assert len(bad) > 50
