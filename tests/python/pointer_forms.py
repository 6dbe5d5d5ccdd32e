"""What each record member and each list-taking function parameter of the driver and runtime
modules accepts and gives back, probed the same way on ours and on the official module of the same
CTK in one process (both_modules.py; members need no driver, functions talk to the fake driver).
Each case returns, per `Class.member` or `function.parameter`, a short description: the kind of
value read from a fresh record (None, int, enum, bytes, one record, a list of records or handles
with its length), whether an element read from it or a value assigned to it is a copy or a view,
and which assignment or argument forms are taken (or the exception class that refuses them)."""
import ctypes
import importlib
import inspect
import re
import os
import sys
import types

# Members whose reads follow a pointer the probe has set: never read back after None is assigned.
SCALARS = (int, float, bytes, str, bool)


def sibling(d, name):
    return importlib.import_module(d.__name__.rsplit(".", 1)[0] + "." + name)


def members_of(cls):
    """The members of a record class, its bases' included (an alias class adds none of its own)."""
    return sorted({n for c in cls.__mro__ for n, v in vars(c).items()
                   if isinstance(v, types.GetSetDescriptorType) and not n.startswith("_")})


def is_record(value):
    return hasattr(value, "getPtr") and bool(members_of(type(value)))


def kind(value):
    """A value's kind, named so that both modules name it alike."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if type(value) is int else "enum"
    for t in (float, bytes, str):
        if isinstance(value, t):
            return t.__name__
    if isinstance(value, (list, tuple)):
        inner = sorted({kind(v) for v in value})
        return f"list[{len(value)}] of {'|'.join(inner) or 'nothing'}"
    if is_record(value):
        return "record"
    if hasattr(value, "getPtr"):
        return "handle" if not isinstance(value, SCALARS) else "int"
    return type(value).__name__


def attempt(action):
    try:
        action()
        return "ok"
    except Exception as error:  # noqa: BLE001 (the refusal is what is compared)
        return type(error).__name__


MARK = b"\xa5\x5a\xc3\x3c"


def storage_shows(read_again, element):
    """'view' when bytes written into `element`'s storage show in what `read_again()` gives,
    else 'copy' (the first 4 bytes, put back afterwards: no member is read through them)."""
    address = element.getPtr()
    before = ctypes.string_at(address, len(MARK))
    ctypes.memmove(address, MARK, len(MARK))
    try:
        seen = ctypes.string_at(read_again().getPtr(), len(MARK))
    finally:
        ctypes.memmove(address, before, len(MARK))
    return "view" if seen == MARK else "copy"


def reader(root, path):
    """A function reading the member at `path` (names, outermost first) of `root` afresh."""
    def read():
        value = root
        for name in path:
            value = getattr(value, name)
        return value
    return read


def setter(root, path):
    def assign(value):
        setattr(reader(root, path[:-1])(), path[-1], value)
    return assign


def describe_member(root, path):
    read, assign = reader(root, path), setter(root, path)
    try:
        value = read()
    except Exception as error:  # noqa: BLE001 (a member the module cannot read: how it refuses)
        return {"read": type(error).__name__}
    out = {"read": kind(value)}
    if isinstance(value, (list, tuple)) and value and is_record(value[0]):
        out["element read"] = storage_shows(lambda: read()[0], value[0])
        element = type(value[0])()
        out["assign list"] = attempt(lambda: assign([element] * len(value)))
        if out["assign list"] == "ok":
            out["element assigned"] = storage_shows(lambda: read()[0], element)
    elif is_record(value):
        out["member read"] = storage_shows(read, value)
    elif isinstance(value, (list, tuple)) and value and kind(value[0]) == "handle":
        out["assign list"] = attempt(lambda: assign([type(value[0])(0)] * len(value)))
    out["assign back"] = attempt(lambda: assign(read()))
    return out


def describe_record(root, path, out, depth=0):
    """Every member of the record at `path` of `root`, and of the records nested in it."""
    for name in members_of(type(reader(root, path)())):
        key = ".".join((type(root).__name__, *path, name))
        try:
            out[key] = describe_member(root, (*path, name))
            if out[key]["read"] == "record" and depth < 4:
                describe_record(root, (*path, name), out, depth + 1)
        except Exception as error:  # noqa: BLE001
            out[key] = {"error": type(error).__name__}


def record_classes(module):
    return sorted(n for n in dir(module) if not n.startswith("_") and isinstance(getattr(module, n), type)
                  and is_record_class(getattr(module, n)))


def is_record_class(cls):
    return hasattr(cls, "getPtr") and bool(members_of(cls))


def members(module):
    """Every member reached from a record class the module lets a program construct."""
    out = {}
    for class_name in record_classes(module):
        try:
            root = getattr(module, class_name)()
        except Exception:  # noqa: BLE001 (the official nested classes take only `_ptr`)
            continue
        describe_record(root, (), out)
    return out


def case_driver_members(d):
    return members(d)


def case_runtime_members(d):
    return members(sibling(d, "runtime"))


# ---- function parameters ----------------------------------------------------------------------

TRACE = os.environ.get("CTKGEN_TRACE_FORMS") == "1"
ELEMENT = re.compile(r"(?:[lL]ist|[tT]uple)\[(\w+)\]|Optional\[(\w+)\]")


def reference(module):
    """The official module of the same name: its signatures say which parameters take records,
    handles or lists of them (ours' compiled functions carry no annotations)."""
    return importlib.import_module("cuda.bindings." + module.__name__.rsplit(".", 1)[1])


def element_class(module, annotation):
    """The binding class an annotation names (`Optional[tuple[CUgraphEdgeData] | list[...]]`)."""
    for match in ELEMENT.finditer(str(annotation)):
        cls = getattr(module, match[1] or match[2], None)
        if isinstance(cls, type) and hasattr(cls, "getPtr"):
            return cls
    return None


def forms(cls):
    """The Python forms a record or handle parameter may be given."""
    make = cls if is_record_class(cls) else (lambda: cls(0))
    return {"None": lambda: None, "empty list": lambda: [], "one object": make,
            "list of one": lambda: [make()], "tuple of two": lambda: (make(), make())}


def baseline_value(module, annotation):
    """What the other parameters are given: None where the official module takes None, an empty
    list for a list it requires, an enum's first member for an enum, else 0."""
    text = "" if annotation is inspect.Parameter.empty else str(annotation)
    if text.startswith("Optional["):
        return None
    if "list[" in text.lower():
        return []
    enum = getattr(module, text, None)
    if isinstance(enum, type) and issubclass(enum, int):
        return next(iter(enum))
    return 0


def parameter_forms(module, skip=()):
    out = {}
    ref = reference(module)
    for name in sorted(n for n in dir(ref) if n.startswith("cu") and n not in skip):
        function, theirs = getattr(module, name, None), getattr(ref, name)
        if function is None or isinstance(theirs, type) or not callable(theirs):
            continue
        try:
            params = list(inspect.signature(theirs).parameters.values())
        except (TypeError, ValueError):
            continue
        baseline = [baseline_value(module, p.annotation) for p in params]
        for i, param in enumerate(params):
            cls = element_class(module, param.annotation)
            if cls is None:
                continue
            results = {}
            if TRACE:
                print(module.__name__, name, param.name, file=sys.stderr, flush=True)
            for label, make in forms(cls).items():
                args = list(baseline)
                args[i] = make()
                results[label] = attempt(lambda: function(*args))
            out[f"{name}.{param.name}"] = results
    return out


def case_driver_functions(d):
    return parameter_forms(d)
