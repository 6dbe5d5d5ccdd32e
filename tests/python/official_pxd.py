"""The names a cuda.bindings Cython-level module declares, read from its `.pxd` (and the `.pxi`
files it includes): what Cython code written against it may name through a cimport."""

import os
import re

_BLOCK = re.compile(r"^(?:cdef|ctypedef)\s+(?:packed\s+)?(struct|union|enum)\s+(\w+)\s*:")
_FORWARD = re.compile(r"^cdef\s+(struct|union|enum)\s+(\w+)\s*$")
_ANON_ENUM = re.compile(r"^cdef\s+enum\s*:\s*(\w+)")
_FUNCTION = re.compile(r"^cdef\s+[^=(]*?[\s*](\w+)\s*\(")
_FUNCTION_POINTER = re.compile(r"^ctypedef\s+[^(]*\(\s*\*\s*(\w+)\s*\)")
_TYPEDEF = re.compile(r"^ctypedef\s+.*?(\w+)\s*(?:\[[^\]]*\])*\s*$")
_MEMBER = re.compile(r"(\w+)\s*(?:\[[^\]]*\])*\s*$")
_ENUM_MEMBER = re.compile(r"^(\w+)\s*(?:=.*)?$")


def _lines(path):
    """The file's logical lines, its `include`d files' lines in place."""
    folder = os.path.dirname(path)
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        include = re.match(r'^\s*include\s+"([^"]+)"', line)
        if include:
            yield from _lines(os.path.join(folder, include.group(1)))
        else:
            yield line


def declared_names(pxd_path):
    """{'types': set, 'constants': set, 'members': {record: set}, 'functions': set}."""
    types, constants, functions = set(), set(), set()
    members = {}
    block = None  # (kind, name, indent)
    for line in _lines(pxd_path):
        # C names in quotes (`NAME "cname"`) are the C side's; the Cython name is the one before.
        code = re.sub(r"\"[^\"]*\"|'[^']*'", "", line.split("#", 1)[0]).rstrip()
        if not code.strip():
            continue
        indent = len(code) - len(code.lstrip())
        text = code.strip()
        if block and indent > block[2]:
            kind, name, _ = block
            if text == "pass":
                continue
            if kind == "enum":
                m = _ENUM_MEMBER.match(text)
                if m:
                    constants.add(m.group(1))
            else:
                # A member: `type name`, `type name[N]`, `type (*name)(...)`.
                fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", text)
                m = fp or _MEMBER.search(text)
                if m:
                    members.setdefault(name, set()).add(m.group(1))
            continue
        block = None
        if text.startswith("cdef extern from") or text.startswith(("from ", "cimport ", "include ")):
            continue
        m = _BLOCK.match(text)
        if m:
            kind, name = m.groups()
            if name != "void":
                types.add(name)
                block = (kind, name, indent)
                if kind != "enum":
                    members.setdefault(name, set())
            continue
        m = _FORWARD.match(text)
        if m:
            if m.group(2) != "void":
                types.add(m.group(2))
            continue
        m = _ANON_ENUM.match(text)
        if m:
            constants.add(m.group(1))
            continue
        if text.startswith("ctypedef"):
            m = _FUNCTION_POINTER.match(text) or _TYPEDEF.match(text)
            if m:
                types.add(m.group(1))
            continue
        m = _FUNCTION.match(text)
        if m:
            functions.add(m.group(1))
    return {"types": types, "constants": constants, "members": members, "functions": functions}


def probe_source(package, module, names):
    """A Cython module naming every declaration in `names` through `package.module`: it compiles
    only where that module declares them all (a name it lacks is a compile error)."""
    lines = [f"from {package} cimport {module} as M", "", "def probe():"]
    for i, name in enumerate(sorted(names["types"])):
        lines.append(f"    cdef M.{name}* t{i} = NULL")
    for i, name in enumerate(sorted(names["constants"])):
        lines.append(f"    c{i} = M.{name}")
    for i, (record, members) in enumerate(sorted(names["members"].items())):
        if members:
            lines.append(f"    cdef M.{record}* r{i} = NULL")
        for j, member in enumerate(sorted(members)):
            lines.append(f"    m{i}_{j} = sizeof(r{i}[0].{member})")
    for i, name in enumerate(sorted(names["functions"])):
        lines.append(f"    cdef void* f{i} = <void*>M.{name}")
    lines.append("    return None")
    return "\n".join(lines) + "\n"
