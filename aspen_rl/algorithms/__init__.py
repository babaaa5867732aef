"""Training and evaluation algorithms, and what a user's own algorithm needs.

A custom algorithm is an Agent Lightning ``Algorithm`` whose ``run`` publishes resources and runs
tasks through the store (:func:`publish`, :func:`run_tasks`), registered under a name the CLI finds
(:func:`register_algorithm`). The names load on first use: importing this package (or the registry)
does not import Agent Lightning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports

if TYPE_CHECKING:
    from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext
    from aspen_rl.algorithms.baseline import BaselineAlgorithm
    from aspen_rl.algorithms.registry import (
        algorithm_names,
        get_algorithm,
        register_algorithm,
    )
    from aspen_rl.algorithms.rollouts import publish, read_record, run_tasks
    from aspen_rl.records import RolloutRecord

_LAZY = {
    "AlgorithmSpec": "aspen_rl.algorithms.base",
    "BuildContext": "aspen_rl.algorithms.base",
    "algorithm_names": "aspen_rl.algorithms.registry",
    "get_algorithm": "aspen_rl.algorithms.registry",
    "register_algorithm": "aspen_rl.algorithms.registry",
    "publish": "aspen_rl.algorithms.rollouts",
    "run_tasks": "aspen_rl.algorithms.rollouts",
    "read_record": "aspen_rl.algorithms.rollouts",
    "BaselineAlgorithm": "aspen_rl.algorithms.baseline",
    "RolloutRecord": "aspen_rl.records",
}

__all__ = [
    "AlgorithmSpec",
    "BaselineAlgorithm",
    "BuildContext",
    "RolloutRecord",
    "algorithm_names",
    "get_algorithm",
    "publish",
    "read_record",
    "register_algorithm",
    "run_tasks",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
