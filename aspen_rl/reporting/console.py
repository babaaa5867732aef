"""Rich console output: the rollout progress bar and the final reward table."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

SHORT_NAMES = {"completion": "completion", "tool_efficiency": "tools", "response_quality": "answer"}


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
    """One row per split and tier: count, success rate, errors, total (mean and range), dimension means."""
    table = Table(title=title)
    table.add_column("split")
    table.add_column("tier")
    for column in ("n", "success", "errors", "total", "range", *SHORT_NAMES.values()):
        table.add_column(column, justify="right")
    for split, tiers in summary.items():
        for tier, s in tiers.items():
            table.add_row(
                split,
                tier,
                str(s["count"]),
                f"{s['success_rate']:.0%}",
                str(s["errors"]),
                f"{s['total']['mean']:.3f}",
                f"{s['total']['min']:.2f}-{s['total']['max']:.2f}",
                *(f"{s[d]['mean']:.3f}" for d in SHORT_NAMES),
                style="bold" if tier == "all" else None,
            )
    table.caption = (
        "completion / tools (tool efficiency) / answer (response quality): means; range: total min-max"
    )
    return table
