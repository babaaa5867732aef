"""Coverage: how much of the task the flowsheet a rollout simulated is, read from the workbook it read.

``coverage = covered * focus`` (1 for a task without targets; 0 when no workbook of the rollout's own runs
was read), from the latest such workbook (``RunTrace.last_results``):

- ``covered``: the fraction of ``task.expected_output`` whose cell (sheet, row, column) holds a number,
  whatever the number: the task's quantities exist in the flowsheet (its streams, its blocks of the
  right type, its components).
- ``focus``: the fraction of the flowsheet's names (its blocks, one ``<BLOCK>_result`` sheet each, and
  its streams, the Stream Summary's columns) that the task names: the blocks and streams of its
  reference config and the owners of its targets. A flowsheet padded with the names of other tasks, to
  cover whatever task comes, is mostly foreign. 1 for a task without a reference config (nothing to
  compare with) or a workbook that names nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aspen_rl.contract.workbook import BLOCK_SHEET_SUFFIX, STREAM_SUMMARY, UNITS_COLUMN, sheet_table
from aspen_rl.tasks.model import AspenTask
from aspen_rl.trace import RunTrace


@dataclass(frozen=True)
class Coverage:
    """Coverage of one rollout and the counts behind it.

    Attributes:
        covered: Targets whose cell holds a number in the workbook read.
        names: Blocks and streams of the flowsheet in the workbook read.
        foreign: Of them, those the task does not name (0 when the task has no reference config).
        value: ``covered / targets * (names - foreign) / names`` (see the module docstring).
    """

    covered: int
    names: int
    foreign: int
    value: float


def flowsheet_names(results: Any) -> set[str]:
    """Blocks (``<BLOCK>_result`` sheets) and streams (Stream Summary columns) of a results workbook."""
    sheets = results.get("data") if isinstance(results, dict) else None
    if not isinstance(sheets, dict):
        return set()
    names = {str(s).removesuffix(BLOCK_SHEET_SUFFIX) for s in sheets if str(s).endswith(BLOCK_SHEET_SUFFIX)}
    table = sheet_table(results, STREAM_SUMMARY)
    if table is not None and table[0]:
        names.update(c for c in table[0][1:] if c != UNITS_COLUMN)
    return names


def task_names(task: AspenTask) -> set[str] | None:
    """Blocks and streams the task names: its reference config's and its targets' owners (``None``
    without a reference config)."""
    config = task.reference_config
    if config is None:
        return None
    names = {t.column or t.sheet.removesuffix(BLOCK_SHEET_SUFFIX) for t in task.expected_output}
    blocks, streams = config.get("blocks"), config.get("streams")
    if isinstance(blocks, list):
        names.update(b["name"] for b in blocks if isinstance(b, dict) and isinstance(b.get("name"), str))
    if isinstance(streams, list):
        names.update(s for s in streams if isinstance(s, str))
    return names


def coverage(task: AspenTask, trace: RunTrace) -> Coverage:
    """The rollout's coverage of the task (see the module docstring)."""
    if not task.expected_output:
        return Coverage(0, 0, 0, 1.0)
    results = trace.last_results
    if results is None:
        return Coverage(0, 0, 0, 0.0)
    covered = 0
    for target in task.expected_output:
        cell = target.cell(results)
        if cell is not None and cell.number is not None:
            covered += 1
    names = flowsheet_names(results)
    expected = task_names(task)
    foreign = len(names - expected) if expected is not None else 0
    focus = (len(names) - foreign) / len(names) if names else 1.0
    return Coverage(covered, len(names), foreign, covered / len(task.expected_output) * focus)
