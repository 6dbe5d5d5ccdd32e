"""Imports PACKAGE and every module under it (compiled or not) from where it is installed, never
from the current folder; prints how many imported. A module that fails to import fails the run,
naming it.
Usage: import_all.py PACKAGE"""
import importlib
import os
import pkgutil
import sys

sys.path = [p for p in sys.path if p not in ("", os.getcwd())]
name = sys.argv[1]
package = importlib.import_module(name)
imported = [name]
for module in pkgutil.walk_packages(package.__path__, name + "."):
    try:
        importlib.import_module(module.name)
    except Exception as error:  # noqa: BLE001 (any failure is the report)
        raise SystemExit(f"import {module.name} failed: {type(error).__name__}: {error}")
    imported.append(module.name)
print(f"{len(imported)} modules imported from {os.path.dirname(package.__file__)}")
