"""Lazy re-exports for a package's ``__init__``: each public name loads from its module on first use."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``: names in ``table`` load on first use.

    ``table`` maps a public name to the module that defines it, absolute or relative to ``package``
    (``".config"``). A name once loaded is kept in the package, so later lookups are plain attribute reads;
    a name not in the table is an ``AttributeError``, as for any module. Use::

        __getattr__, __dir__ = lazy_exports(__name__, {"Trainer": ".trainer"})
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
