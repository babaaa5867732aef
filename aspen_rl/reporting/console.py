"""Rich console output: the rollout progress bar and the final reward table."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from aspen_rl.reporting.summary import DIMENSIONS


def rollout_progress(console: Console) -> Progress:
    """A progress bar over rollouts showing the running mean reward."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("mean reward {task.fields[mean]:.3f}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def summary_table(summary: dict[str, dict[str, Any]], title: str = "Reward by split and tier") -> Table:
    """One row per split and tier: count, success rate, errors and mean [min-max] per dimension."""
    table = Table(title=title)
    for column in ("split", "tier", "n", "success", "errors"):
        table.add_column(column, justify="right" if column in {"n", "success", "errors"} else "left")
    for dimension in DIMENSIONS:
        table.add_column(dimension, justify="right")
    for split, tiers in summary.items():
        for tier, s in tiers.items():
            table.add_row(
                split,
                tier,
                str(s["count"]),
                f"{s['success_rate']:.0%}",
                str(s["errors"]),
                *(f"{s[d]['mean']:.3f} [{s[d]['min']:.2f}-{s[d]['max']:.2f}]" for d in DIMENSIONS),
                style="bold" if tier == "all" else None,
            )
    return table
