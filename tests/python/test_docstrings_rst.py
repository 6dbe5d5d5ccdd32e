"""Every doc comment of a CTK, rendered as reStructuredText the way the Python docstrings are,
parses with docutils without a warning, and its text (outside literals) keeps no Doxygen
command or raw `::name` reference. The same checker run on the raw Doxygen text finds
problems, which shows it can fail. The docstrings of a generated package (its `.pyx` modules
and `driver.pyi`, read as text: no build) pass the same check, and each cross reference names
something the stubs define."""
import ast
import glob
import inspect
import io
import json
import os
import re
import subprocess
import tempfile

import pytest
from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import roles

from conftest import CTKS, REPO, compatible_modules, described_libraries, emit, ir_json

# Targets of the `:py:obj:` roles parsed so far, for the checks that they exist.
REFERENCES = []


def _py_obj(name, rawtext, text, lineno, inliner, options=None, content=None):
    # Sphinx's Python-domain role; plain docutils only needs it to exist.
    REFERENCES.append(utils.unescape(text).lstrip("~"))
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


# A docstring as the generated modules write one: the `"""` literal (escapes inside, no raw
# prefix) that opens the body of a `def`, `class` or `cdef class` (C blocks are literals too).
DOCSTRING = re.compile(r'^[ \t]*(?:cdef )?(def|class) (\w+)\b[^\n]*:\n[ \t]*("""(?:[^"\\]|\\.|"(?!""))*""")', re.M)


def pyx_docstrings(package, module):
    """{function name: docstring} of the module-level functions, and every docstring of the
    `.pyx` modules of library `module` (`_<module>_*.pyx`), each as `inspect.cleandoc` gives it."""
    functions, every = {}, []
    for path in sorted(glob.glob(os.path.join(package, f"_{module}_*.pyx"))):
        with open(path) as f:
            source = f.read()
        for match in DOCSTRING.finditer(source):
            text = inspect.cleandoc(ast.literal_eval(match.group(3)))
            every.append(text)
            if match.group(1) == "def" and not match.group(0).startswith((" ", "\t")):
                functions[match.group(2)] = text
    return functions, every


def stub_surface(path):
    """The stub's docstrings (functions by name, and all of them), and its names: {name:
    members}, members including those of base classes, None for a function or constant."""
    with open(path) as f:
        tree = ast.parse(f.read())
    functions, every = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            every.append(inspect.cleandoc(node.value.value))
    classes, bases, names = {}, {}, {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = None
            SIGNATURES[(path, node.name)] = [a.arg for a in node.args.args]
            RETURNS[(path, node.name)] = ast.unparse(node.returns) if node.returns else ""
            if ast.get_docstring(node):
                functions[node.name] = ast.get_docstring(node)
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = None
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                names[target.id] = node.value.id

    def members(cls):
        return classes[cls].union(*(members(b) for b in bases[cls] if b in classes))

    for alias, value in list(names.items()):
        if value is not None:
            names[alias] = members(value) if value in classes else None
    names.update({cls: members(cls) for cls in classes})
    return functions, every, names


# {(stub, function): its parameters}, as stub_surface reads them.
SIGNATURES = {}
# {(stub, function): its return annotation's text}.
RETURNS = {}
# The library modules of the package, each with its stub.
MODULES = compatible_modules(with_package_modules=False)


@pytest.fixture(scope="module", params=MODULES)
def generated(request):
    """One library module of one CTK's package generated (not built): its docstrings, each
    distinct one checked once ({text: problems}), the cross-reference targets met, and its
    stub's names."""
    ctk, module = CTKS[-1], request.param
    with tempfile.TemporaryDirectory(prefix="ctkgen-docstrings-") as tmp:
        (stub,) = glob.glob(os.path.join(emit(ctk, tmp), "*", f"{module}.pyi"))
        package = os.path.dirname(stub)
        pyx_functions, pyx_every = pyx_docstrings(package, module)
        stub_functions, stub_every, names = stub_surface(stub)
        signatures = {name: params for (path, name), params in SIGNATURES.items() if path == stub}
        returns = {name: text for (path, name), text in RETURNS.items() if path == stub}
    REFERENCES.clear()
    checked = {text: problems(text) for text in sorted(set(pyx_every) | set(stub_every))}
    return dict(ctk=ctk, module=module, package=os.path.basename(package), pyx_functions=pyx_functions,
                stub_functions=stub_functions, checked=checked, references=set(REFERENCES), names=names,
                signatures=signatures, returns=returns, raises=library_convention(module) == "raise")


def test_generated_docstrings_parse_and_keep_no_doxygen(generated):
    checked = generated["checked"]
    bad = [(text.splitlines()[0][:60], found) for text, found in checked.items() if found]
    print(f"CTK {generated['ctk']}: {len(checked)} distinct docstrings of the {generated['module']} .pyx modules "
          f"and stub, {len(bad)} failing")
    assert len(generated["pyx_functions"]) > {"driver": 400, "nvjitlink": 10, "nvvm": 10, "nvfatbin": 10}.get(generated["module"], 20)
    assert not bad, "\n".join(f"{head}: {msgs[0]}" for head, msgs in bad[:20])
    for text in checked:
        assert "\\brief" not in text and "\\p " not in text and not re.search(r"(?:^|\s)::\w", text), text


def test_stub_docstrings_match_the_modules(generated):
    assert generated["stub_functions"] == {name: doc for name, doc in generated["pyx_functions"].items() if doc}


def test_cross_references_name_what_the_stubs_define(generated):
    prefix = f"{generated['package']}.{generated['module']}."
    names = generated["names"]
    # nvJitLink's, NVVM's and nvFatbin's comments refer to nothing a stub defines (their `\link`
    # names a status as text); the others' must show the references were collected.
    least = {"driver": 500, "nvjitlink": -1, "nvvm": -1, "nvfatbin": -1}.get(generated["module"], 10)
    assert len(generated["references"]) > least
    missing = set()
    for target in generated["references"]:
        assert target.startswith(prefix), target
        name, _, member = target[len(prefix):].partition(".")
        if name not in names or (member and member not in (names[name] or ())):
            missing.add(target)
    assert not missing, sorted(missing)[:20]


def annotation_items(text):
    """`tuple[A, list[B], C]` -> ["A", "list[B]", "C"]; any other annotation alone."""
    if not text.startswith("tuple["):
        return [text]
    items, depth, start = [], 0, len("tuple[")
    for i, c in enumerate(text[start:-1], start):
        depth += {"[": 1, "]": -1}.get(c, 0)
        if c == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:-1].strip())
    return items


OUTPUT_ENTRY = re.compile(r"(?:^\s*- |:returns: )``(\w+)`` \((:py:obj:`~[\w.]+`|``[^`]+``)\): ", re.M)


def test_documented_outputs_carry_the_types_they_are_returned_as(generated):
    """Each output described under :returns: names its Python type, and that type is one the stub's
    annotation gives the function's outputs (after the status, or alone under the raise
    convention), as often as the annotation has it."""
    checked, wrong = 0, {}
    for name, doc in generated["stub_functions"].items():
        entries = OUTPUT_ENTRY.findall(doc)
        if not entries:
            continue
        outputs = annotation_items(generated["returns"][name])
        if not generated["raises"]:
            outputs = outputs[1:]
        for _, shown in entries:
            ty = shown.strip("`").rpartition(".")[2] if shown.startswith(":py:obj:") else shown.strip("`")
            if ty in outputs:
                outputs.remove(ty)
            else:
                wrong.setdefault(name, []).append(ty)
        checked += 1
    assert checked > {"driver": 200, "runtime": 150, "nvrtc": 10, "nvfatbin": 2}.get(generated["module"], 3), checked
    assert not wrong, dict(list(wrong.items())[:10])


def library_convention(module):
    """The calling convention of the library whose Python module is `module`."""
    (python,) = [c["python"] for c in described_libraries().values() if c["python"]["module"] == module]
    return python.get("convention", "status")


def test_documented_parameters_are_the_functions_arguments(generated):
    """A function takes its inputs and returns its outputs (after the status, or alone under the
    raise convention): its docstring's parameters are its arguments and the outputs are described
    as what it returns, where the header documents every C parameter."""
    wrong = {}
    for name, doc in generated["stub_functions"].items():
        documented = re.findall(r"^:param (\w+):", doc, re.M)
        extra = set(documented) - set(generated["signatures"][name])
        if extra:
            wrong[name] = sorted(extra)
    assert not wrong, dict(list(wrong.items())[:10])
    if generated["raises"]:
        create = generated["stub_functions"]["create_program" if generated["module"] == "nvvm" else "create"]
        assert ":returns:" in create and "Raises ``" in create, create
    elif generated["module"] == "driver":
        create = generated["stub_functions"]["cuCtxCreate"]
        returned = "- ``pctx`` (:py:obj:`~%s.driver.CUcontext`): Returned context handle" % generated["package"]
        assert "- ``status``:" in create and returned in create, create
