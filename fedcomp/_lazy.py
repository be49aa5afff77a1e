"""Names of a package imported on first use (PEP 562 ``__getattr__``).

A package that re-exports names from heavy submodules (scipy.stats, pandas) would pay for them
in every command that imports it, ``fedcomp --help`` among them. :func:`lazy_exports` gives such
a package a ``__getattr__`` that imports the submodule holding a name when the name is first
read, and caches it in the package; its submodules are reachable as attributes without an import
statement, as they were when the package imported them eagerly.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys


def lazy_exports(package: str, names: dict[str, str]):
    """A module ``__getattr__`` for `package`: ``names`` maps each re-exported name to the
    submodule (relative to `package`) that defines it; any other public name that is a submodule
    of `package` is imported and returned; anything else raises AttributeError."""
    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(f"{package}.{names[name]}"), name)
            setattr(sys.modules[package], name, value)
            return value
        if not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}"):
            return importlib.import_module(f"{package}.{name}")   # a submodule
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return __getattr__
