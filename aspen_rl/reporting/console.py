"""Rich console output: the rollout progress bar and the final reward table."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

SHORT_NAMES = {"completion": "compl", "tool_efficiency": "tools", "response_quality": "answer"}


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
    """One row per split and tier: count, success rate, errors, total (mean and range), dimension means.

    Fits an 80-column terminal whole (no cell cut to "succ…"): short headers, explained in the caption, and
    a header rule instead of a full grid.
    """
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, pad_edge=False)
    table.add_column("split", no_wrap=True)
    table.add_column("tier", no_wrap=True)
    for column in ("n", "ok", "err", "total", "min-max", *SHORT_NAMES.values()):
        table.add_column(column, justify="right", no_wrap=True)
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
        "ok: success rate; err: failed rollouts; total: mean (min-max);\n"
        "compl/tools/answer: completion, tool efficiency, response quality"
    )
    return table
