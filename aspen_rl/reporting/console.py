"""Rich console output: the rollout progress bar, the final reward table and the reward's funnel."""

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


FUNNEL_STAGES = ("schema", "attempted", "json", "faithful", "accepted", "simulated", "read")
"""The shipped reward's funnel stages (``funnel.<stage>`` in its details), in order."""


def funnel_table(summary: dict[str, dict[str, Any]]) -> Table | None:
    """Mean of each funnel stage per split and tier (how far rollouts got toward a faithful run read),
    or ``None`` when the reward reports no funnel (a custom reward)."""
    rows = [
        (split, tier, s["details"])
        for split, tiers in summary.items()
        for tier, s in tiers.items()
        if "funnel" in s.get("details", {})
    ]
    if not rows:
        return None
    table = Table(title="Reward funnel (mean per stage; stages from faithful on weighted by task fidelity)")
    table.add_column("split")
    table.add_column("tier")
    for stage in (*FUNNEL_STAGES, "funnel"):
        table.add_column(stage, justify="right")
    for split, tier, details in rows:
        table.add_row(
            split,
            tier,
            *(f"{details.get(f'funnel.{stage}', 0.0):.2f}" for stage in FUNNEL_STAGES),
            f"{details['funnel']:.3f}",
            style="bold" if tier == "all" else None,
        )
    return table
