"""The final GRPO metrics table printed at the end of a run (one row per step)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

TABLE_COLUMNS = (
    ("step", "step", "{:.0f}"),
    ("reward", "reward_mean", "{:.3f}"),
    ("std", "reward_std", "{:.3f}"),
    ("loss", "loss", "{:+.4f}"),
    ("grad", "grad_norm", "{:.3f}"),
    ("tokens", "tokens", "{:.0f}"),
    ("0-var", "zero_variance_groups", "{:.0f}"),
    ("failed", "failed_rollouts", "{:.0f}"),
    ("p-fail", "policy_failures", "{:.0f}"),
    ("eval", "eval/reward_mean", "{:.3f}"),
    ("s", "step_seconds", "{:.1f}"),
)
"""Columns of the final metrics table: (header, metrics key, format)."""
TABLE_CAPTION = (
    "reward: mean ± std of the trained groups; grad: gradient norm; 0-var: groups without signal; "
    "failed: infrastructure failures left out; p-fail: policy failures scored 0 and kept; "
    "eval: validation reward; s: step time"
)


def metrics_table(rows: Sequence[dict[str, Any]], title: str = "GRPO metrics per step") -> Table:
    """One row per step (training and evaluation lines of a step merged)."""
    by_step: dict[int, dict[str, Any]] = {}
    for row in rows:
        by_step.setdefault(int(row["step"]), {}).update(row)
    table = Table(
        title=title, box=box.SIMPLE_HEAD, caption=TABLE_CAPTION, collapse_padding=True, pad_edge=False
    )
    for header, _, _ in TABLE_COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for step in sorted(by_step):
        row = by_step[step]
        cells = []
        for _, key, fmt in TABLE_COLUMNS:
            value = row.get(key)
            cells.append(fmt.format(value) if isinstance(value, int | float) else "-")
        table.add_row(*cells)
    return table
