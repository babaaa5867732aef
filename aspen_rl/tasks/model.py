"""Task data model: a process requirement, the quantities it asks for and how to check them."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from aspen_rl.contract.workbook import Cell, WorkbookAddressError, check_address, lookup


class Difficulty(StrEnum):
    """Difficulty tier of a task."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Target(BaseModel):
    """One quantity a task asks for, located in the simulator's results workbook.

    The address is the one ``GET /get-aspen-result`` serves: ``sheet`` (``"Stream Summary"`` or
    ``"<BLOCK>_result"``), ``row`` (a label such as ``"Temperature"`` or ``"QCALC"``, or
    ``"<section>/<CID>"`` for a component row such as ``"Mole Fractions/WATER"``) and ``column`` (the
    stream name on the Stream Summary; omitted on a block sheet, meaning ``"Value"``). ``unit`` is the
    unit the workbook states for that cell (``Units`` column or ``<NAME>_UNITS`` row; empty for a
    dimensionless value); a cell stated in another unit does not count as the target.

    A value ``actual`` meets the target when ``|actual - value| <= max(abs_tol, rel_tol * |value|)``.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="Human name, e.g. 'product temperature'.")
    sheet: str = Field(min_length=1, description="Workbook sheet: 'Stream Summary' or '<BLOCK>_result'.")
    row: str = Field(
        min_length=1,
        description="Row label ('Temperature', 'QCALC') or '<section>/<CID>' ('Mole Flows/WATER').",
    )
    column: str | None = Field(
        default=None, description="Stream name on the Stream Summary; omitted ('Value') on a block sheet."
    )
    value: float = Field(description="Expected value (regenerated from the reference config).")
    unit: str = Field(
        default="", description="Unit the workbook states for the cell (C, bar, kW...); '' if none."
    )
    abs_tol: float = Field(default=0.0, ge=0.0, description="Absolute tolerance.")
    rel_tol: float = Field(default=0.02, ge=0.0, description="Relative tolerance (fraction of |value|).")

    @field_validator("value")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("value must be a finite number")
        return v

    @field_validator("unit")
    @classmethod
    def _unit_trimmed(cls, v: str) -> str:
        if v != v.strip():
            raise ValueError(f"unit must have no surrounding blanks, got {v!r}")
        return v

    @model_validator(mode="after")
    def _valid_address_and_tolerance(self) -> Target:
        try:
            _, _, column = check_address(self.sheet, self.row, self.column)
        except WorkbookAddressError as exc:
            raise ValueError(str(exc)) from None
        self.column = column
        if self.abs_tol == 0.0 and self.rel_tol == 0.0:
            raise ValueError("at least one of abs_tol / rel_tol must be > 0")
        return self

    @property
    def address(self) -> str:
        """The address as people read it: ``Stream Summary[Temperature, PRO-1]``, ``H1_result[QCALC]``."""
        return f"{self.sheet}[{self.row}, {self.column}]" if self.column else f"{self.sheet}[{self.row}]"

    def tolerance(self) -> float:
        """Allowed absolute deviation from ``value``."""
        return max(self.abs_tol, self.rel_tol * abs(self.value))

    def cell(self, results: dict[str, Any] | None) -> Cell | None:
        """The workbook cell this target addresses in a ``/get-aspen-result`` document, if present."""
        if results is None:
            return None
        return lookup(results, self.sheet, self.row, self.column)

    def actual(self, results: dict[str, Any] | None) -> float | None:
        """The number at this target's address, or ``None`` if absent, not a number, or in another unit."""
        cell = self.cell(results)
        if cell is None or cell.number is None:
            return None
        if (cell.unit or "") != self.unit:
            return None
        return cell.number

    def is_met(self, results: dict[str, Any] | None) -> bool:
        """Whether the results workbook meets this target within tolerance."""
        actual = self.actual(results)
        return actual is not None and abs(actual - self.value) <= self.tolerance()


class AspenTask(BaseModel):
    """A process-simulation task for the agent.

    Attributes:
        task_id: Unique id, e.g. ``train-easy-01``.
        user_requirement: The requirement as a process engineer writes it (any language).
        difficulty: Tier (easy / medium / hard).
        expected_output: Quantities the answer must report, checked against the simulator's results
            workbook.
        ideal_tool_calls: Number of tool calls an expert needs (schema, run, result = 3).
        reference_config: A flowsheet config that solves the task; expected values are regenerated
            from it (``python -m aspen_rl.datagen regenerate``).
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
