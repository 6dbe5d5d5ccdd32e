"""Every name of a package's `utils` and `_internal.utils`, private ones included, as JSON: run as
`python utils_names_probe.py PACKAGE` with the package importable (the official cuda.bindings of
a release, or ours). The same reading serves both sides (tests/python/test_utils_official.py).

A name is whatever the imported module binds, but dunder names and objects of other packages
(the `typing` names a module imports for its annotations, `os`, `re`); its kind is `module` (a
submodule of the package), `class`, `function` (with its parameters as `inspect.signature`
gives them: `name` or `name=default`) or `data`. A Cython module's `__pyx_capi__` (the `cdef`
functions a compiled importer cimports) gives names of the kind `cython`, a fused function's
specialisations (`__pyx_fuse_<n><name>`) as the one name."""
import importlib
import inspect
import json
import re
import sys
import types

MODULES = ("utils", "_internal.utils")


def parameters(function):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return [p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in signature.parameters.values()]


def names(module, package):
    out = {}
    for name, value in vars(module).items():
        if name.startswith("__") and name.endswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(package + "."):
                out[name] = {"kind": "module"}
            continue
        origin = getattr(value, "__module__", None) if isinstance(value, type) or callable(value) else None
        if origin is not None and not origin.startswith(package):
            continue
        if isinstance(value, type):
            out[name] = {"kind": "class", "bases": [b.__name__ for b in value.__mro__[1:]]}
        elif callable(value):
            out[name] = {"kind": "function", "params": parameters(value)}
        else:
            out[name] = {"kind": "data", "type": type(value).__name__}
    for exported in getattr(module, "__pyx_capi__", {}):
        out[re.sub(r"^__pyx_fuse_\d+", "", exported)] = {"kind": "cython"}
    return out


def main(package):
    out = {}
    for module in MODULES:
        try:
            imported = importlib.import_module(f"{package}.{module}")
        except ModuleNotFoundError as missing:
            if missing.name != f"{package}.{module}":
                raise
            continue  # a release without the module (`utils` before 12.9)
        out[module] = names(imported, package)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
