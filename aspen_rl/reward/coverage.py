"""Coverage: the share of a task's target cells a workbook holds (fidelity's stand-in without a reference).

A task without a reference config has nothing to compare a config with, so the fidelity of its runs is the
coverage of the latest workbook the rollout read of its own runs: the fraction of ``task.expected_output``
whose cell (sheet, row, column) holds a number, whatever the number (1 for a task without targets, 0 when
no such workbook was read).
"""

from __future__ import annotations

from typing import Any

from aspen_rl.tasks.model import AspenTask


def covered(task: AspenTask, results: Any) -> int:
    """How many of the task's target cells hold a number in ``results``."""
    count = 0
    for target in task.expected_output:
        cell = target.cell(results) if isinstance(results, dict) else None
        if cell is not None and cell.number is not None:
            count += 1
    return count


def coverage(task: AspenTask, results: Any) -> float:
    """``covered / targets`` of a workbook (1 for a task without targets, 0 for no workbook)."""
    if not task.expected_output:
        return 1.0
    if results is None:
        return 0.0
    return covered(task, results) / len(task.expected_output)
