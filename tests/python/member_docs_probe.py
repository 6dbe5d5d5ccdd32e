"""Every enum member's `__doc__` of a package, printed as JSON {module: {enum: {"class": the
class docstring, "members": {name: the member's __doc__}, "aliases": {alias: the name of its member}}}}: run once on a generated package
(its pure-Python enum modules alone, nothing compiled) and once on an official release, each in
its own interpreter; test_member_docs.py compares the two.

    python member_docs_probe.py ours ROOT PACKAGE MODULES
    python member_docs_probe.py official - PACKAGE MODULES"""
import importlib
import json
import os
import sys

from enum_classes_probe import bare_packages, enum_classes


def main(side, root, package, modules):
    if side == "ours":
        bare_packages(root, package)
    out = {}
    for public in modules.split(","):
        if side == "ours":
            if not os.path.exists(os.path.join(root, *package.split("."), f"_{public}_enums.py")):
                continue
            module = importlib.import_module(f"{package}._{public}_enums")
        else:
            try:
                module = importlib.import_module(f"{package}.{public}")
            except ImportError:
                continue
        out[public] = {name: {"class": cls.__doc__,
                              "members": {m: getattr(cls, m).__doc__ for m in cls.__members__},
                              # Names that are another name's member (aliases of a value).
                              "aliases": {m: getattr(cls, m).name for m in cls.__members__
                                          if getattr(cls, m).name != m}}
                       for name, cls in enum_classes(module, package).items()}
    return out


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
