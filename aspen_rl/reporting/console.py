"""Rich console output: the rollout progress bar, the final reward table and the reward's funnel."""

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
    table = _compact_table(title, ("n", "ok", "err", "total", "min-max", *SHORT_NAMES.values()))
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


FUNNEL_STAGES = ("schema", "attempted", "json", "faithful", "accepted", "simulated", "read")
"""The shipped reward's funnel stages (``funnel.<stage>`` in its details), in order."""


FUNNEL_HEADERS = ("schema", "tried", "json", "faith", "acc", "sim", "read")
"""Column headers of FUNNEL_STAGES, short so that the table fits 80 columns (the caption spells them out)."""


def _compact_table(title: str, numeric_columns: tuple[str, ...]) -> Table:
    """A table with split and tier, then right-aligned numbers, that fits an 80-column terminal whole:
    a header rule instead of a full grid, one space between columns, no cell wrapped or cut."""
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, pad_edge=False)
    table.add_column("split", no_wrap=True)
    table.add_column("tier", no_wrap=True)
    for column in numeric_columns:
        table.add_column(column, justify="right", no_wrap=True)
    return table


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
    table = _compact_table("Reward funnel (mean per stage)", (*FUNNEL_HEADERS, "funnel"))
    table.caption = (
        "tried: a run attempted; faith/acc/sim/read: a task-faithful config,\n"
        "accepted, simulated, its results read (weighted by task fidelity)"
    )
    for split, tier, details in rows:
        table.add_row(
            split,
            tier,
            *(f"{details.get(f'funnel.{stage}', 0.0):.2f}" for stage in FUNNEL_STAGES),
            f"{details['funnel']:.3f}",
            style="bold" if tier == "all" else None,
        )
    return table
