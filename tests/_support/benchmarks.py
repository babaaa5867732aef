"""Load a script of ``benchmarks/`` as a module (the folder is not a package; its scripts import siblings)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from _support.env import REPO

BENCHMARKS = REPO / "benchmarks"


def load_benchmark(name: str, *, register: bool = True) -> ModuleType:
    """``benchmarks/<name>.py`` executed as module ``name``, with its siblings importable.

    Args:
        register: Put it in ``sys.modules`` (so a sibling importing it gets this copy); without it a fresh,
            unshared copy is returned (to patch it freely).
    """
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
