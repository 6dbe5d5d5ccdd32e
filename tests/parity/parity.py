"""API-surface parity between the official `cuda.bindings` modules (`driver`, `nvrtc`) and the
generated modules of the same names: which public names each has, enum members, and function
parameter names in order.

Run as a script, it prints the surface of an importable module as JSON:
    python parity.py MODULE
The official releases are unpacked wheels put on PYTHONPATH; ours is read from the generated
`<module>.pyi` (see `stub_surface`), so every CTK is covered without compiling; the Python suite
checks on the built packages that the stub and the module have the same surface."""
import ast
import enum
import glob
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import types
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PINS = os.path.join(HERE, "official.txt")
EXCEPTIONS = os.path.join(HERE, "exceptions.toml")


# ---- surfaces -------------------------------------------------------------------------------
# A surface is {"enums": {name: [member, ...]}, "classes": [name], "members": {class: [data
# attribute, ...]}, "functions": {name: [param, or param=default] or None when the module does not
# expose them},
# "constants": [name], "bases": {class: ["module.Class" of a sibling module it derives from]},
# "enum_bases": {enum: "FastEnum" (the package's light enum base, `_internal._fast_enum`),
# "IntEnum" or "other"}}.


def public_module(name):
    """The public module a module name stands for: `pkg.driver` and `pkg._driver_types` (a
    private module of the generated package) are both `driver`."""
    last = name.rsplit(".", 1)[-1]
    private = re.fullmatch(r"_(.+?)_(types|enums|records_\d+|functions_\d+)", last)
    return private.group(1) if private else last


def sibling_bases(cls):
    """The public classes of other modules of the package that `cls` derives from."""
    own = public_module(cls.__module__)
    out = set()
    for base in cls.__mro__[1:]:
        module = public_module(getattr(base, "__module__", "") or "")
        if base is not object and not base.__name__.startswith("_") and module not in (own, "builtins"):
            out.add(f"{module}.{base.__name__}")
    return sorted(out)


def param_text(name, default):
    """A parameter as a signature spells it: `name`, or `name=default` (the default's repr), so
    the comparison sees defaults as well as names and order."""
    return name if default is None else f"{name}={default}"


def enum_base(cls):
    """What an enum class of a module derives from: its package's light enum base
    (`<package>._internal._fast_enum.FastEnum`), `enum.IntEnum`, or something else."""
    if any(b.__name__ == "FastEnum" and (b.__module__ or "").endswith("._internal._fast_enum") for b in cls.__mro__):
        return "FastEnum"
    return "IntEnum" if issubclass(cls, enum.IntEnum) else "other"


def module_surface(module):
    """The public surface of an imported module. Names bound to objects from other packages
    (typing's `Any`, the `enum` module's `IntEnum`, `ctypes`) are not part of it."""
    package = module.__name__.split(".")[0]
    out = {"enums": {}, "classes": [], "members": {}, "functions": {}, "constants": [], "bases": {}, "enum_bases": {}}
    for name in dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType):
            continue
        if isinstance(obj, type) or callable(obj):
            origin = getattr(obj, "__module__", None) or ""
            if origin.split(".")[0] != package:
                continue
        if isinstance(obj, type):
            if hasattr(obj, "__members__"):
                out["enums"][name] = list(obj.__members__)
                out["enum_bases"][name] = enum_base(obj)
            else:
                out["classes"].append(name)
                out["members"][name] = class_members(obj, package)
                out["bases"][name] = sibling_bases(obj)
        elif callable(obj):
            try:
                params = [param_text(p.name, None if p.default is p.empty else repr(p.default))
                          for p in inspect.signature(obj).parameters.values()]
            except (TypeError, ValueError):
                params = None
            out["functions"][name] = params
        else:
            out["constants"].append(name)
    return out


def class_members(cls, package):
    """Public data attributes (properties) a class and its bases from `package` define."""
    names = set()
    for klass in cls.__mro__:
        if (getattr(klass, "__module__", None) or "").split(".")[0] != package:
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") and type(value).__name__ in ("getset_descriptor", "property"):
                names.add(name)
    return sorted(names)


def sibling_stub(path, module):
    """The stub of `module` (relative, dotted) beside the stub at `path`: its `.pyi`, or for a
    pure-Python module without one its `.py`."""
    stem = os.path.join(os.path.dirname(path), *module.split("."))
    return stem + ".pyi" if os.path.exists(stem + ".pyi") else stem + ".py"


def stub_surface(path):
    """The public surface a generated `driver.pyi` declares. Names it imports from a sibling
    stub (`from .driver import CUstream as _dep_CUstream`) are that stub's classes."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    out = {"enums": {}, "classes": [], "members": {}, "functions": {}, "constants": [], "bases": {}, "enum_bases": {}}
    imported = {}  # local name -> (sibling module, its name)
    siblings = {}
    # What the stub's enums derive from: `_FastEnum`, the package's enum base when the stub
    # imports it (`from ._internal._fast_enum import FastEnum as _FastEnum`), else its own class.
    fast_base = "other"
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and (node.module or "").endswith("_internal._fast_enum"):
            if any(a.name == "FastEnum" and a.asname == "_FastEnum" for a in node.names):
                fast_base = "FastEnum"
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            if node.module not in siblings:
                siblings[node.module] = stub_surface(sibling_stub(path, node.module))
            theirs = siblings[node.module]
            for alias in node.names:
                local = alias.asname or alias.name
                imported[local] = (node.module, alias.name)
                if local.startswith("_"):
                    continue
                if alias.name in theirs["enums"]:
                    out["enums"][local] = theirs["enums"][alias.name]
                    out["enum_bases"][local] = theirs["enum_bases"][alias.name]
                elif alias.name in theirs["classes"]:
                    out["classes"].append(local)
                    out["members"][local] = theirs["members"][alias.name]
                    # The sibling's own class, as it is there.
                    out["bases"][local] = theirs["bases"][alias.name]
        elif isinstance(node, ast.ClassDef):
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            if node.name.startswith("_"):
                continue
            if "_FastEnum" in bases:
                out["enums"][node.name] = [
                    s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
                out["enum_bases"][node.name] = fast_base
            else:
                out["classes"].append(node.name)
                foreign = set()
                for base in bases:
                    if base in imported:
                        module, name = imported[base]
                        foreign.add(f"{public_module(module)}.{name}")
                        foreign.update(siblings[module]["bases"].get(name, []))
                    else:
                        foreign.update(out["bases"].get(base, []))
                out["bases"][node.name] = sorted(foreign)
                members = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
                for base in bases:
                    members.update(out["members"].get(base, []))
                out["members"][node.name] = sorted(m for m in members if not m.startswith("_"))
        elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            a = node.args
            positional = a.posonlyargs + a.args
            defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
            out["functions"][node.name] = [
                param_text(p.arg, None if d is None else repr(ast.literal_eval(d)))
                for p, d in zip(positional + a.kwonlyargs, defaults)
            ]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if not node.target.id.startswith("_"):
                out["constants"].append(node.target.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            # `Alias = Target`: the alias has the target's kind
            target = node.value.id
            for alias in (t.id for t in node.targets if isinstance(t, ast.Name)):
                if target in out["enums"]:
                    out["enums"][alias] = out["enums"][target]
                    out["enum_bases"][alias] = out["enum_bases"][target]
                elif target in out["classes"]:
                    out["classes"].append(alias)
                    out["members"][alias] = out["members"][target]
                    out["bases"][alias] = out["bases"][target]
                else:
                    out["constants"].append(alias)
    out["classes"].sort()
    out["constants"].sort()
    return out


def surface_in_subprocess(module, pythonpath):
    """The surface of `module` imported by a fresh interpreter with `pythonpath` first."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath))
    result = subprocess.run([sys.executable, os.path.abspath(__file__), module], env=env, capture_output=True,
                            text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"importing {module} from {pythonpath} failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout)


# ---- comparison -----------------------------------------------------------------------------

def kinds(surface):
    out = {}
    for kind in ("enums", "classes", "functions", "constants"):
        for name in surface[kind]:
            out[name] = kind
    return out


SINGULAR = {"enums": "enum", "classes": "class", "functions": "function", "constants": "constant"}


def compare(official, ours):
    """Differences of `ours` from `official`, as {key: what differs}, and the counts.
    Keys: `Name` (a public name missing, or of another kind), `Enum.MEMBER` (an enum member
    missing), `Class.member` (a data attribute of a class missing), `function()` (parameter
    names or their order differ), `Class(module.Base)` (a class does not derive from the sibling
    module's class the official one derives from, so the other module's calls would not take it),
    `Enum(FastEnum)` (the official enum derives from the package's light enum base, which clients
    recognise, and ours does not). An official enum on `enum.IntEnum` (13.0, 13.1) is no
    difference, ours being on the enum base always; `counts["int_enums"]` says how many there are."""
    diffs = {}
    official_kinds, our_kinds = kinds(official), kinds(ours)
    names = present = int_enums = 0
    for name, kind in sorted(official_kinds.items()):
        names += 1
        if name not in our_kinds:
            diffs[name] = f"missing {SINGULAR[kind]}"
            names += len(official["enums"].get(name, [])) + len(official["members"].get(name, []))
            continue
        if our_kinds[name] != kind:
            diffs[name] = f"official {SINGULAR[kind]}, ours {SINGULAR[our_kinds[name]]}"
            names += len(official["enums"].get(name, [])) + len(official["members"].get(name, []))
            continue
        present += 1
        if kind == "classes":
            for base in official.get("bases", {}).get(name, []):
                names += 1
                if base in ours.get("bases", {}).get(name, []):
                    present += 1
                else:
                    diffs[f"{name}({base})"] = "does not derive from it"
        if kind == "enums":
            theirs = official.get("enum_bases", {}).get(name)
            if theirs == "IntEnum":
                int_enums += 1
            elif theirs == "FastEnum" and ours.get("enum_bases", {}).get(name) != "FastEnum":
                diffs[f"{name}(FastEnum)"] = "does not derive from the package's enum base"
        if kind in ("enums", "classes"):
            table = "enums" if kind == "enums" else "members"
            our_members = set(ours[table][name])
            for member in official[table][name]:
                names += 1
                if member in our_members:
                    present += 1
                else:
                    diffs[f"{name}.{member}"] = f"missing {SINGULAR[kind]} member"
    signatures = matching = 0
    for name, params in sorted(official["functions"].items()):
        if params is None or name not in ours["functions"]:
            continue
        signatures += 1
        if ours["functions"][name] == params:
            matching += 1
        else:
            diffs[f"{name}()"] = f"official ({', '.join(params)}), ours ({', '.join(ours['functions'][name] or [])})"
    counts = {"names": names, "present": present, "signatures": signatures, "matching": matching,
              "int_enums": int_enums}
    return diffs, counts


def subject(key):
    """The official name a difference key is about."""
    return key[:-2] if key.endswith("()") else key.split("(")[0]


def official_has(official, key):
    if key.endswith("()"):
        return official["functions"].get(subject(key)) is not None
    if key in kinds(official):
        return True
    if key.endswith(")"):
        owner, _, base = key[:-1].partition("(")
        if base == "FastEnum" and owner in official["enums"]:
            return official.get("enum_bases", {}).get(owner) == "FastEnum"
        return base in official.get("bases", {}).get(owner, [])
    owner, _, member = key.partition(".")
    return member in official["enums"].get(owner, []) or member in official["members"].get(owner, [])


def load_exceptions(path=EXCEPTIONS, module="driver"):
    """{key: (cause, ctk minors it is limited to or None)} of `module`'s groups (a group names its
    module, `driver` when it names none); a key listed twice is an error."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = {}
    for group in data.get("group", []):
        if group.get("module", "driver") != module:
            continue
        for key in group["names"]:
            if key in out:
                raise ValueError(f"{key} is listed twice in {path}")
            out[key] = (group["cause"], group.get("ctks"))
    return out


def judge(results, exceptions, complete):
    """`results`: {ctk: (official surface, diffs)}. Returns (unlisted {ctk: {key: what}},
    stale [key]). A listed difference is stale when no checked CTK shows it any more; when not
    every pinned CTK was checked (`complete` false), only those the checked official modules
    name are judged."""
    unlisted = {}
    seen = set()
    for ctk, (_, diffs) in results.items():
        for key, what in diffs.items():
            listed = exceptions.get(key)
            if listed is not None and (listed[1] is None or ctk in listed[1]):
                seen.add(key)
            else:
                unlisted.setdefault(ctk, {})[key] = what
    stale = []
    for key, (_, limited) in sorted(exceptions.items()):
        if key in seen:
            continue
        checked = [ctk for ctk in results if limited is None or ctk in limited]
        if complete or any(official_has(results[ctk][0], key) for ctk in checked):
            stale.append(key)
    return unlisted, stale


# ---- official releases ----------------------------------------------------------------------

def pins(path=PINS):
    """[(package, version)] from the pinned requirements file."""
    out = []
    for line in open(path, encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            out.append((name.strip(), version.strip()))
    return out


def official_versions():
    """{CTK major.minor: cuda-bindings version}."""
    return {".".join(v.split(".")[:2]): v for name, v in pins() if name == "cuda-bindings"}


def unpacked(cache, package, version):
    """The folder holding the unpacked wheel of `package==version`, downloaded on first use.
    C/C++ sources shipped in the wheels are left out (hundreds of MiB, never imported)."""
    target = os.path.join(cache, "parity", f"{package}-{version}")
    if os.path.exists(os.path.join(target, ".complete")):
        return target
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(target)) as tmp:
        download = os.path.join(tmp, "download")
        result = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                                 "-d", download, f"{package}=={version}"], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"pip download {package}=={version} failed:\n{result.stderr[-4000:]}")
        (wheel,) = os.listdir(download)
        tree = os.path.join(tmp, "tree")
        with zipfile.ZipFile(os.path.join(download, wheel)) as z:
            z.extractall(tree, [n for n in z.namelist() if not re.search(r"\.(c|cpp)$", n)])
        open(os.path.join(tree, ".complete"), "w").close()
        shutil.rmtree(target, ignore_errors=True)
        os.rename(tree, target)
    return target


def official_surface(cache, version, module="driver"):
    """The surface of `cuda.bindings.<module>` of cuda-bindings `version` (no GPU, driver or
    library is needed to import it), or None when that release has no such module."""
    path = [unpacked(cache, name, v) for name, v in pins() if name != "cuda-bindings"]
    root = unpacked(cache, "cuda-bindings", version)
    files = os.path.join(root, "cuda", "bindings", module)
    if not (os.path.isdir(files) or any(glob.glob(f"{files}.*"))):
        return None  # a module this release does not have (utils before 12.9)
    return surface_in_subprocess(f"cuda.bindings.{module}", [root] + path)


def report_line(ctk, counts, listed, module="driver"):
    line = (f"{module} {ctk}: {counts['present']:,} of {counts['names']:,} official names present, "
            f"{counts['matching']:,} of {counts['signatures']:,} signatures match, {listed:,} listed exceptions")
    if counts.get("int_enums"):
        line += f"; {counts['int_enums']:,} official enums derive from enum.IntEnum (ours from the package's FastEnum)"
    return line


if __name__ == "__main__":
    import importlib

    print(json.dumps(module_surface(importlib.import_module(sys.argv[1]))))
