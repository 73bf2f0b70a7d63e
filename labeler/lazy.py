"""Lazy exports for a package's ``__init__``: names loaded from their modules on first use.

A package whose modules are heavy (numpy, the store) lists what it exports and where each name
lives, so ``import labeler.metrics`` (for the CLI's ``--help``, say) loads none of them::

    __getattr__, __all__ = lazy_exports(__name__, {"evaluation": ("evaluate", "RunResult")})

``from package import *`` and ``package.name`` then load the module holding the name, once.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], list[str]]:
    """``(__getattr__, __all__)`` for ``package``. ``homes`` maps a module of the package (its
    name relative to it, ``"evaluation"``) to the names it exports. A name may not be that of
    a module of the package: importing the module would put the module in its place."""
    where: dict[str, str] = {}
    for module, names in homes.items():
        for name in names:
            if name in where:
                msg = f"{package}: {name!r} is exported from two modules"
                raise ValueError(msg)
            where[name] = f"{package}.{module}"
    namespace = sys.modules[package].__dict__  # the package, while its __init__ runs

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            msg = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # the next lookup is an ordinary one
        return value

    return __getattr__, sorted(where)


__all__ = ["lazy_exports"]
