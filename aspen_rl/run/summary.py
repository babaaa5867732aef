"""A run's ``summary.json`` pieces: the rollouts requested, and the summary of an interrupted run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from aspen_rl.tasks.splits import TaskSplits

if TYPE_CHECKING:
    from aspen_rl.lifecycle import Lifecycle
    from aspen_rl.reporting import RunReport


def requested_rollouts(algorithm: str, splits: TaskSplits, repeats: int) -> dict[str, int | None]:
    """``{split: expected rollouts}`` of the run; the count is known for the baseline only."""
    counts: dict[str, int] = {}
    for default, tasks in (("train", splits.train), ("val", splits.val), ("test", splits.test)):
        for task in tasks:
            key = task.split or default
            counts[key] = counts.get(key, 0) + 1
    if algorithm == "baseline":
        return {split: n * repeats for split, n in counts.items()}
    return dict.fromkeys(counts)


def write_interrupted(
    report: RunReport | None,
    output_dir: Path,
    run_info: dict[str, Any],
    requested: dict[str, int | None],
    lifecycle: Lifecycle,
) -> None:
    """``summary.json`` of an interrupted run: what completed, what is missing, the signal."""
    from aspen_rl.reporting import completion, write_summary

    if report is not None:
        report.finish(requested=requested, interrupted_by=lifecycle.signal_name, **run_info)
        return
    summary = {  # stopped before any rollout could run
        "status": "interrupted",
        "interrupted": True,
        "signal": lifecycle.signal_name,
        "rollouts": 0,
        **run_info,
        **completion([], requested),
        "splits": {},
    }
    write_summary(output_dir, summary)
