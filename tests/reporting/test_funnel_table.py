"""The run's summary prints the reward's funnel: the mean of each stage per split and tier."""

from __future__ import annotations

from rich.console import Console

from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import summarize
from aspen_rl.reporting.console import FUNNEL_STAGES, funnel_table
from aspen_rl.reward.base import RewardBreakdown


def record(task_id: str, stages: dict[str, float], funnel: float) -> RolloutRecord:
    details = {f"funnel.{k}": v for k, v in stages.items()} | {"funnel": funnel}
    return RolloutRecord(
        task_id=task_id,
        split="train",
        difficulty="easy",
        status="ok",
        reward=RewardBreakdown(total=0.1, details=details),
    )


def test_the_funnel_is_printed_per_split_and_tier() -> None:
    schema_only = dict.fromkeys(FUNNEL_STAGES, 0.0) | {"schema": 1.0}
    refused = schema_only | {"attempted": 1.0, "json": 1.0, "faithful": 0.5}
    table = funnel_table(summarize([record("a", schema_only, 0.1), record("b", refused, 0.3)]))
    assert table is not None
    console = Console(width=80, record=True)
    console.print(table)
    text = console.export_text()
    # schema 1.00, attempted and json 0.50, faithful 0.25, the rest 0; funnel 0.2 on average; 80 columns whole
    assert "train  easy    1.00   0.50  0.50   0.25  0.00  0.00  0.00   0.200" in text and "…" not in text


def test_no_funnel_table_for_a_reward_without_one() -> None:
    plain = RolloutRecord(task_id="a", split="train", status="ok", reward=RewardBreakdown(total=0.5))
    assert funnel_table(summarize([plain])) is None
