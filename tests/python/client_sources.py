"""The names of cuda.bindings a client's Python sources use, read from its wheel: each module of the
package it imports (under whatever alias), the names it imports from one, the attributes it reads
of one (`driver.CUresult.CUDA_SUCCESS` as `CUresult` and `CUresult.CUDA_SUCCESS`) and
`getattr(module, "literal")`. What a program reaches through an object of its own (numba-cuda's
`Driver.__getattr__`) is not followed: the names found are a floor, not the whole."""
import ast
import re
import zipfile

PACKAGE = "cuda.bindings"


def dotted(node):
    """`a.b.c` of a chain of attributes on a name, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


class Uses(ast.NodeVisitor):
    def __init__(self, modules):
        # `modules`: the package's module names ("cuda.bindings.driver", ...).
        self.modules = modules
        self.aliases = {}
        self.found = set()

    def note(self, module, rest):
        """A use of `rest` ("CUresult.CUDA_SUCCESS") of `module`; the first two parts count."""
        parts = rest.split(".")
        self.found.add((module, parts[0]))
        if len(parts) > 1:
            self.found.add((module, f"{parts[0]}.{parts[1]}"))

    def resolve(self, path):
        """(module, rest) of a dotted path through an alias or the package's full name."""
        head, _, rest = path.partition(".")
        if head in self.aliases:
            path = self.aliases[head] + ("." + rest if rest else "")
        elif not path.startswith(PACKAGE + "."):
            return None
        module, rest = path, ""
        while module not in self.modules:
            if "." not in module:
                return None
            module, _, last = module.rpartition(".")
            rest = f"{last}.{rest}" if rest else last
        return module, rest

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name in self.modules:
                self.found.add((alias.name, "<module>"))
                if alias.asname:
                    self.aliases[alias.asname] = alias.name

    def visit_ImportFrom(self, node):
        if node.level or not node.module or node.module not in self.modules:
            return
        for alias in node.names:
            submodule = f"{node.module}.{alias.name}"
            if submodule in self.modules:
                self.found.add((submodule, "<module>"))
                self.aliases[alias.asname or alias.name] = submodule
            else:
                self.found.add((node.module, alias.name))

    def visit_Attribute(self, node):
        path = dotted(node)
        resolved = path and self.resolve(path)
        if resolved and resolved[1]:
            self.note(*resolved)
            return  # the chain's inner attributes are this one's prefixes
        self.generic_visit(node)

    def visit_Call(self, node):
        function = node.func
        if isinstance(function, ast.Name) and function.id in ("getattr", "hasattr") and len(node.args) >= 2:
            target, name = node.args[0], node.args[1]
            path = dotted(target)
            resolved = path and self.resolve(path)
            if resolved and isinstance(name, ast.Constant) and isinstance(name.value, str):
                module, rest = resolved
                self.note(module, f"{rest}.{name.value}" if rest else name.value)
        self.generic_visit(node)


def wheel_uses(wheel, modules, skip=("/tests/",)):
    """{(module, name)} the Python files of `wheel` use (files under `skip` left out)."""
    found = set()
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not name.endswith(".py") or any(part in f"/{name}" for part in skip):
                continue
            uses = Uses(modules)
            uses.visit(ast.parse(archive.read(name), filename=name))
            found |= uses.found
    return found


def forwarded_uses(wheel, owner, module, pattern, skip=("/tests/",)):
    """{(module, name)} of the attributes matching `pattern` that the Python files of `wheel` read
    of an object named `owner` (`owner.cuInit`, `self.owner.cuInit`) which forwards every
    attribute to `module` (numba-cuda's `driver`, whose `__getattr__` returns the binding's)."""
    wanted = re.compile(pattern)
    found = set()
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not name.endswith(".py") or any(part in f"/{name}" for part in skip):
                continue
            for node in ast.walk(ast.parse(archive.read(name), filename=name)):
                if not isinstance(node, ast.Attribute) or not wanted.fullmatch(node.attr):
                    continue
                value = node.value
                named = (isinstance(value, ast.Name) and value.id == owner) or (
                    isinstance(value, ast.Attribute) and value.attr == owner)
                if named:
                    found.add((module, node.attr))
    return found
