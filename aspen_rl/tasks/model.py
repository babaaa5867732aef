"""Task data model: a process requirement, the quantities it asks for and how to check them."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Difficulty(StrEnum):
    """Difficulty tier of a task."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


def resolve_path(document: Any, path: str) -> Any:
    """Follow a dotted path (``streams.PROD.temperature_C``) into a nested dict.

    Args:
        document: A results document (nested dicts).
        path: Dot-separated keys.

    Returns:
        The value found, or ``None`` when any key along the path is missing.
    """
    node = document
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


class Target(BaseModel):
    """One quantity a task asks for, located in the simulator's results document.

    A value ``actual`` meets the target when
    ``|actual - value| <= max(abs_tol, rel_tol * |value|)``.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="Human name, e.g. 'product temperature'.")
    path: str = Field(
        min_length=1,
        pattern=r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)+$",
        description="Dotted path into the results document, e.g. 'streams.PROD.temperature_C'.",
    )
    value: float = Field(description="Expected value (regenerated from the reference config).")
    unit: str = Field(default="", description="Unit of the value as in the results document (C, bar, kW...).")
    abs_tol: float = Field(default=0.0, ge=0.0, description="Absolute tolerance.")
    rel_tol: float = Field(default=0.02, ge=0.0, description="Relative tolerance (fraction of |value|).")

    @field_validator("value")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("value must be a finite number")
        return v

    @model_validator(mode="after")
    def _some_tolerance(self) -> Target:
        if self.abs_tol == 0.0 and self.rel_tol == 0.0:
            raise ValueError("at least one of abs_tol / rel_tol must be > 0")
        return self

    def tolerance(self) -> float:
        """Allowed absolute deviation from ``value``."""
        return max(self.abs_tol, self.rel_tol * abs(self.value))

    def actual(self, results: dict[str, Any] | None) -> float | None:
        """The numeric value at ``path`` in a results document, or ``None`` if absent/non-numeric."""
        if results is None:
            return None
        found = resolve_path(results, self.path)
        if isinstance(found, bool) or not isinstance(found, int | float) or not math.isfinite(found):
            return None
        return float(found)

    def is_met(self, results: dict[str, Any] | None) -> bool:
        """Whether the results document meets this target within tolerance."""
        actual = self.actual(results)
        return actual is not None and abs(actual - self.value) <= self.tolerance()


class AspenTask(BaseModel):
    """A process-simulation task for the agent.

    Attributes:
        task_id: Unique id, e.g. ``train-easy-01``.
        user_requirement: The requirement as a process engineer writes it (any language).
        difficulty: Tier (easy / medium / hard).
        expected_output: Quantities the answer must report, checked against the simulator's results.
        ideal_tool_calls: Number of tool calls an expert needs (schema, run, result = 3).
        reference_config: A flowsheet config that solves the task; expected values are regenerated
            from it (``python -m aspen_rl.tasks regenerate``).
        split: Optional dataset split name (train / val / test / anything).
        tags: Free-form labels (unit operations, language...).
    """

    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    user_requirement: str = Field(min_length=1)
    difficulty: Difficulty
    expected_output: list[Target] = Field(default_factory=list)
    ideal_tool_calls: int = Field(default=3, ge=1)
    reference_config: dict[str, Any] | None = None
    split: str | None = None
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_target_names(self) -> AspenTask:
        names = [t.name for t in self.expected_output]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"expected_output has duplicate target names: {duplicates}")
        return self
