"""Shared builders for the prompt-optimization tests: real rollout records and tasks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from aspen_rl.records import RolloutRecord, ToolCallSummary
from aspen_rl.reward.base import RewardBreakdown


def build_record(
    task_id: str = "t1",
    total: float = 0.5,
    *,
    split: str = "train",
    difficulty: str = "easy",
    calls: list[tuple[str, bool, str | None]] | None = None,
    arguments: str = "{}",
    response_quality: float = 1.0,
    status: str = "ok",
    error: str | None = None,
    answer: str = "",
) -> RolloutRecord:
    """A rollout record; ``calls`` are ``(tool name, ok, error)``."""
    calls = calls if calls is not None else [("get_schema", True, None), ("run_simulation", True, None)]
    return RolloutRecord(
        rollout_id=f"ro-{task_id}",
        task_id=task_id,
        split=split,
        difficulty=difficulty,
        status=status,  # type: ignore[arg-type]
        error=error,
        reward=RewardBreakdown(
            total=total, completion=total, tool_efficiency=total, response_quality=response_quality
        ),
        tool_calls=[
            ToolCallSummary(name=name, ok=ok, error=err, arguments=arguments) for name, ok, err in calls
        ],
        final_answer=answer,
    )


@pytest.fixture
def make_record() -> Callable[..., RolloutRecord]:
    """The :func:`build_record` factory."""
    return build_record


class FakeTask:
    """A stand-in task: only what the search reads (an id and a tier)."""

    def __init__(self, task_id: str, difficulty: str = "easy") -> None:
        self.task_id = task_id
        self.difficulty = difficulty

    def __repr__(self) -> str:
        return f"FakeTask({self.task_id!r})"


@pytest.fixture
def tasks() -> Callable[[str, int], list[Any]]:
    """``tasks(prefix, n)``: ``n`` tasks with ids ``prefix0..`` cycling through the tiers."""

    def _tasks(prefix: str, n: int) -> list[Any]:
        tiers = ("easy", "medium", "hard")
        return [FakeTask(f"{prefix}{i}", tiers[i % 3]) for i in range(n)]

    return _tasks
