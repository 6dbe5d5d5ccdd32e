"""Runs the same uses of a package's private helper modules (loaded by path, no build) as the
clients make them, and prints what each gives: run once on ours, once on the official package."""
import importlib.util
import pickle
import sys
import types


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def enum_uses(module, enum_class, metaclass):
    base, meta = getattr(module, enum_class), getattr(module, metaclass)
    # A module-level class, as clients define theirs, so its members pickle by reference.
    holder = types.ModuleType("enum_holder")
    sys.modules["enum_holder"] = holder
    exec("class Color(base):\n    RED = 1\n    GREEN = (2, 'green doc')\n    ALIAS = 1\n    BLUE = 4\n",
         {"base": base, "__name__": "enum_holder"}, holder.__dict__)
    Color = holder.Color
    out = [("int", isinstance(Color.RED, int), Color.RED == 1, Color.RED + 1, hash(Color.RED) == hash(1))]
    out.append(("call", Color(2) is Color.GREEN, Color(1) is Color.ALIAS))
    try:
        Color(9)
        out.append(("bad value", None))
    except ValueError as e:
        out.append(("bad value", str(e)))
    out.append(("doc", Color.GREEN.__doc__, Color.RED.__doc__))
    out.append(("iteration", len(Color), [int(c) for c in Color], [c.name for c in Color]))
    out.append(("membership", 1 in Color, 3 in Color, Color.RED in Color))
    out.append(("repr", repr(Color.RED), str(Color.RED), repr(Color)))
    out.append(("members", sorted(Color.__members__), Color.__members__["ALIAS"] is Color.RED))
    out.append(("pickle", pickle.loads(pickle.dumps(Color.BLUE)) is Color.BLUE))
    out.append(("types", type(Color) is meta, isinstance(Color.RED, base), Color.RED.value, type(Color.RED.value)))
    return out


if __name__ == "__main__":
    module = load("enum_under_test", sys.argv[1])
    for line in enum_uses(module, sys.argv[2], sys.argv[3]):
        print(repr(line))
