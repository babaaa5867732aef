"""Compare task sets as data: structure exactly, stored numbers within the stated tolerance.

A regenerated value can differ from the stored one in its last digit when a library's floating-point
arithmetic changes (numpy, LAPACK, thermo): the stored files hold 6 significant digits
(:data:`aspen_rl.datagen.regenerate.SIGNIFICANT_DIGITS`), so two runs that agree to 1e-6 can still round to
neighbouring last digits. Numbers therefore match within :data:`SAME_VALUE_REL_TOL` relative (one unit in
the sixth significant digit); every other field must be equal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from aspen_rl.tasks.model import AspenTask

SAME_VALUE_REL_TOL = 1e-5
"""Two stored numbers within this relative distance are the same value (one unit in the 6th digit)."""


def same_number(a: float, b: float, rel_tol: float = SAME_VALUE_REL_TOL) -> bool:
    """Whether ``a`` and ``b`` are the same stored value within ``rel_tol`` (and 1e-12 absolute)."""
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _differences(a: Any, b: Any, path: str, out: list[str], rel_tol: float) -> None:
    if _is_number(a) and _is_number(b):
        if not same_number(float(a), float(b), rel_tol):
            out.append(f"{path}: {a!r} != {b!r} (beyond rel {rel_tol:g})")
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{path}.{key}: only in {'the first' if key in a else 'the second'}")
            else:
                _differences(a[key], b[key], f"{path}.{key}", out, rel_tol)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _differences(x, y, f"{path}[{i}]", out, rel_tol)
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")


def task_differences(
    first: Sequence[AspenTask], second: Sequence[AspenTask], rel_tol: float = SAME_VALUE_REL_TOL
) -> list[str]:
    """Every difference between two task lists, numbers compared within ``rel_tol``; [] when they match.

    Each entry names the task id and the field path, e.g.
    ``gen-train-1-heater-0003.expected_output[0].value: 1.5 != 1.6 (beyond rel 1e-05)``.
    """
    out: list[str] = []
    if len(first) != len(second):
        out.append(f"{len(first)} tasks != {len(second)}")
    for a, b in zip(first, second, strict=False):
        _differences(a.model_dump(), b.model_dump(), a.task_id, out, rel_tol)
    return out
