"""What every enum class of a package is and does, printed as JSON: its base (the package's
light enum base, `enum.IntEnum`, or something else), its metaclass, and how it behaves under the
uses the official enum base supports (iteration, len, `in`, lookup by value and by name, aliases,
name and value, pickling, repr). Run once on a generated package and once on an official release,
each in its own interpreter; test_enum_classes.py compares the two.

    python enum_classes_probe.py ours ROOT PACKAGE MODULES PRIVATE
    python enum_classes_probe.py official - PACKAGE MODULES PRIVATE

ours: ROOT holds the generated package; only its pure-Python enum modules (`_<module>_enums`)
and the private enum module they import are loaded, with the package's folders made bare
packages, so nothing needs compiling. official: `PACKAGE.<module>` is imported from sys.path.
MODULES is a comma-separated list of public module names; PRIVATE is
`internal_package,enum_module,enum_class,enum_metaclass` (headers/package.toml `[private]`)."""
import enum
import importlib
import json
import os
import pickle
import sys
import types

# An int no enum of either package has as a member.
ABSENT = -987654321


def bare_packages(root, package):
    """Makes `package` and its parents importable from `root` without running their __init__."""
    parts = package.split(".")
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(root, *parts[: i + 1])]
        sys.modules[name] = module


def enum_classes(module, package):
    """{public name: class} of the enum classes `module` defines or re-exports from `package`."""
    out = {}
    for name, value in vars(module).items():
        if name.startswith("_") or not isinstance(value, type) or not hasattr(value, "__members__"):
            continue
        if not (getattr(value, "__module__", "") or "").startswith(package + "."):
            continue
        out[name] = value
    return out


def kind(cls, base, meta):
    if base is not None and issubclass(cls, base):
        return "FastEnum"
    if issubclass(cls, enum.IntEnum):
        return "IntEnum"
    return "other"


def attempt(action):
    try:
        return ["value", action()]
    except Exception as error:  # noqa: BLE001 (the exception is the finding)
        return ["error", type(error).__name__, str(error)]


def behaviour(cls):
    """The uses of an enum class, split into what every name shows alone (`members`, for names
    whose value no other name has) and what only values with several names show (`aliases`)."""
    by_value = {}
    for name, member in cls.__members__.items():
        by_value.setdefault(int(member), []).append(name)
    iterated = [m.name for m in cls]
    members = {}
    for name, member in cls.__members__.items():
        if len(by_value[int(member)]) > 1:
            continue
        attribute = getattr(cls, name)
        members[name] = {
            "value": int(member), "is_attribute": attribute is member, "type": type(member) is cls,
            "is_int": isinstance(member, int), "name": member.name, "value_property": [member.value, type(member.value).__name__],
            "repr": repr(member), "by_value": attempt(lambda: cls(int(member)) is member),
            "in": attempt(lambda: int(member) in cls), "member_in": attempt(lambda: member in cls),
            "pickle": attempt(lambda: pickle.loads(pickle.dumps(member)) is member),
            "hash": hash(member) == hash(int(member)),
        }
    aliases = {}
    for value, names in by_value.items():
        if len(names) < 2:
            continue
        found = [cls.__members__[n] for n in names]
        aliases[str(value)] = {
            "names": names, "same_member": all(m is found[0] for m in found),
            "member_names": [m.name for m in found], "by_value": attempt(lambda: cls(value).name),
            "iterated": sum(1 for m in cls if int(m) == value), "in": attempt(lambda: value in cls),
        }
    return {
        "repr": repr(cls), "len_counts_iteration": len(cls) == len(iterated),
        "iteration": [n for n in iterated if len(by_value[int(cls.__members__[n])]) == 1],
        "absent": {"in": attempt(lambda: ABSENT in cls), "call": attempt(lambda: cls(ABSENT))},
        "members": members, "aliases": aliases,
    }


def describe(classes, base, meta):
    out = {}
    for name, cls in classes.items():
        metaclass = type(cls)
        out[name] = {
            "class": cls.__name__,
            "kind": kind(cls, base, meta),
            "metaclass": f"{metaclass.__module__}.{metaclass.__qualname__}",
            "package_metaclass": meta is not None and metaclass is meta,
            "bases": [f"{b.__module__}.{b.__qualname__}" for b in cls.__mro__[1:]],
            "behaviour": behaviour(cls),
        }
    return out


def main(side, root, package, modules, private):
    internal, enum_module, enum_class, enum_metaclass = private.split(",")
    if side == "ours":
        bare_packages(root, package)
    try:
        fast = importlib.import_module(f"{package}.{internal}.{enum_module}")
        base, meta = getattr(fast, enum_class), getattr(fast, enum_metaclass)
    except ImportError:
        base = meta = None  # a release before the enum base
    out = {}
    for public in modules.split(","):
        if side == "ours":
            path = os.path.join(root, *package.split("."), f"_{public}_enums.py")
            if not os.path.exists(path):
                continue
            module = importlib.import_module(f"{package}._{public}_enums")
        else:
            try:
                module = importlib.import_module(f"{package}.{public}")
            except ImportError:
                continue
        out[public] = describe(enum_classes(module, package), base, meta)
    return out


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:6])))
