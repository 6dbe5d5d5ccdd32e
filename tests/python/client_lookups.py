"""Which C-level functions of cuda.bindings cuda-core takes, as it imports: run by the interpreter of a
virtual environment that has cuda-core, with the cuda.bindings to watch first on the path.

Every module of cuda.bindings is imported first (its own modules cimport each other), then every
`cy` module's `__pyx_capi__` is replaced by a copy whose keys note each lookup that finds
them (a Cython cimport and cuda-core's own `__pyx_capi__[name]` both look a name up in that dict;
dict lookup compares a stored key that is a str subclass through its `__eq__`). Then every module
of the `cuda.core` package is imported. Prints one JSON object: {"lookups": {module: [names]},
"failed": {module: error}}."""
import importlib
import json
import pkgutil
import sys

CY_MODULES = sys.argv[1:] or ["cydriver", "cynvrtc", "cynvjitlink", "cynvvm"]
found = {}


class NotedKey(str):
    """A capsule name that notes the module it belongs to when a lookup matches it."""

    module = ""

    def __eq__(self, other):
        equal = str.__eq__(self, other)
        if equal is True:
            found.setdefault(self.module, set()).add(str(self))
        return equal

    __hash__ = str.__hash__


def watch(module_name):
    module = importlib.import_module(f"cuda.bindings.{module_name}")
    noted = {}
    for name, capsule in module.__pyx_capi__.items():
        key = NotedKey(name)
        key.module = f"cuda.bindings.{module_name}"
        noted[key] = capsule
    module.__pyx_capi__ = noted


def import_all(package):
    """Imports every module of `package`; returns {module: error} of those that fail."""
    failed = {}
    root = importlib.import_module(package)
    names = [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    for name in sorted(set(names)):
        # cuda-core's builds per CTK major live in cu12/cu13; the top-level modules are the one chosen.
        if name.startswith(("cuda.core.cu12", "cuda.core.cu13")) or ".tests" in name:
            continue
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 (reported)
            failed[name] = f"{type(error).__name__}: {error}"
    return failed


def main():
    import_all("cuda.bindings")
    for name in CY_MODULES:
        watch(name)
    failed = import_all("cuda.core")
    print(json.dumps({"lookups": {m: sorted(n) for m, n in sorted(found.items())}, "failed": failed}))


if __name__ == "__main__":
    main()
