"""Probes, on CPU with no driver reachable, which values a binding's functions typed by an enum
argument take for each enumerator of the selector: the official `cuda.bindings` converts the
value before it calls the library, and so does ours, so a call that gets as far as the library
(a result, or the RuntimeError of a library that cannot be loaded) took the value; a conversion
error (TypeError, AttributeError, ValueError, OverflowError) refused it.

    python typed_values_probe.py PACKAGE DECISIONS.json [PYX_FOLDER]

PACKAGE is `cuda.bindings` or ours (`ctkgen_cuda`); DECISIONS.json is our generator's
`ctkgen_typed_values.json`, which names each function's selector, value, count and size
parameters (its `modules`; the calls are built from it). With PYX_FOLDER (the official wheel's sources) the
functions that convert a value through an attribute helper class are listed as well. Prints one
JSON line: {"probes": {module: {function.param: {enumerator: [labels taken]}}}, "helpers": ...}."""
import ctypes
import importlib
import json
import os
import re
import sys

# Values tried for a value that goes in; `class` is an instance of the class our generator names
# for the enumerator, `object` an object that has what the official helpers read (`getPtr()`,
# `.value`), which tells whether the official module supports the enumerator at all.
PLAIN = {
    "int": lambda: 1,
    "float": lambda: 1.5,
    "bytes": lambda: b"x",
    "bytearray": lambda: bytearray(64),
    "none": lambda: None,
    "list_int": lambda: [1],
    "list_bytes": lambda: [b"x"],
}

_KEEP = []


class Duck:
    """Any object with a pointer to 64 zeroed bytes and a `.value`."""

    def __init__(self):
        self.buffer = ctypes.create_string_buffer(64)
        _KEEP.append(self.buffer)
        self.value = 1

    def getPtr(self):
        return ctypes.addressof(self.buffer)


def reached(call):
    """Whether `call` got past the value's conversion."""
    try:
        call()
        return True
    except RuntimeError:
        return True  # the library could not be loaded: the conversion was done
    except (TypeError, AttributeError, ValueError, OverflowError):
        return False


def def_params(pyx, function):
    """The official function's parameter names, from its `def` line."""
    match = re.search(rf"^def {function}\((.*?)\):", pyx, re.M | re.S)
    if not match:
        return None
    names = []
    for part in match.group(1).split(","):
        # `attr not None : Enum`, `unsigned int numOptions`, `size=0`: the name is the last word
        # before any annotation or default.
        head, _, annotation = part.split("=")[0].partition(":")
        head = re.sub(r"\bnot None\b", "", head).strip()
        if head:
            names.append((re.findall(r"\w+", head)[-1], annotation.strip() or None))
    return names


def helper_functions(pyx):
    """{function: helper class} of every `def` whose body converts through an attribute helper
    (every `Helper...` class but the generic pointer, list and kernel-parameter ones)."""
    out = {}
    for match in re.finditer(r"^def (\w+)\(.*?(?=^def |\Z)", pyx, re.M | re.S):
        helpers = set(re.findall(r"\b(?:utils\.)?_?Helper(\w+)\(", match.group(0)))
        helpers -= {"InputVoidPtr", "KernelParams"}
        if helpers:
            out[match.group(1)] = sorted(helpers)
    return out


def find_class(package, module, name):
    for candidate in (module, "driver"):
        found = getattr(importlib.import_module(f"{package}.{candidate}"), name, None)
        if found is not None:
            return found
    return None


def instance(cls):
    if hasattr(cls, "__members__"):
        return next(iter(cls.__members__.values()))
    return cls()


def probe(package, decisions, pyx_folder=None):
    out = {}
    for module, values in decisions.items():
        if not values:
            continue
        mod = importlib.import_module(f"{package}.{module}")
        pyx = None
        if pyx_folder:
            path = os.path.join(pyx_folder, f"{module}.pyx")
            pyx = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        for key, d in values.items():
            function, value = key.split(".")
            fn = getattr(mod, function, None)
            if fn is None:
                continue
            selector_class = getattr(mod, d["selector_class"])
            classes = {c["name"]: c.get("class") for c in d["cases"]}
            params = def_params(pyx, function) if pyx is not None else None
            if params is None:
                code = fn.__code__
                params = [(name, None) for name in code.co_varnames[:code.co_argcount]]
            results = {}
            for member in selector_class.__members__.values():
                many = d["layout"] in ("pointers", "slots")
                candidates = {}
                if d["direction"] == "in":
                    candidates = {label: make for label, make in PLAIN.items()}
                    candidates["object"] = Duck
                    cls = classes.get(member.name) and find_class(package, module, classes[member.name])
                    if cls is not None:
                        candidates["class"] = lambda cls=cls: instance(cls)
                else:
                    candidates = {"out": None}
                taken = []
                for label, make in candidates.items():
                    args = {}
                    # The function's other typed values (a second option list) are left empty.
                    others = {o[role] for k, o in values.items() if k != key and k.split(".")[0] == function
                              for role in ("selector", "count") if o.get(role)}
                    others |= {k.split(".")[1] for k in values if k != key and k.split(".")[0] == function}
                    for p, annotation in params:
                        enum = getattr(mod, annotation, None) if annotation else None
                        if p in others:
                            args[p] = 0 if any(o.get("count") == p for o in values.values()) else []
                        elif p == d["selector"]:
                            args[p] = [member] if many else member
                        elif p == d.get("count"):
                            args[p] = 1
                        elif p == d.get("size"):
                            args[p] = [8] if many else 8
                        elif p == value and make is not None:
                            args[p] = [make()] if d["layout"] == "slots" else make()
                        elif enum is not None and hasattr(enum, "__members__"):
                            args[p] = next(iter(enum.__members__.values()))
                        elif re.search(r"name|path|file", p, re.I):
                            args[p] = b"x"
                        else:
                            args[p] = 0
                    if reached(lambda: fn(**args)):
                        taken.append(label)
                results[member.name] = taken
            out.setdefault(module, {})[key] = results
    helpers = {}
    if pyx_folder:
        for module in decisions:
            path = os.path.join(pyx_folder, f"{module}.pyx")
            if os.path.exists(path):
                helpers[module] = helper_functions(open(path, encoding="utf-8").read())
    return {"probes": out, "helpers": helpers}


if __name__ == "__main__":
    decisions = json.load(open(sys.argv[2], encoding="utf-8"))["modules"]
    print(json.dumps(probe(sys.argv[1], decisions, sys.argv[3] if len(sys.argv) > 3 else None)))
