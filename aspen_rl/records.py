"""One rollout's outcome as it is stored, reported and written to ``rollouts.jsonl``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from aspen_rl.failures import FailureKind, Fault
from aspen_rl.reward.base import RewardBreakdown

RolloutStatus = Literal["ok", "error", "timeout", "lost"]
"""``ok``: the agent answered; ``error``: an exception or an unreachable service ended the rollout;
``timeout``: the wall-time cap ended it; ``lost``: the runner never reported a record."""


class ToolCallSummary(BaseModel):
    """A recorded tool call, trimmed for reports."""

    name: str
    ok: bool
    error: str | None = None
    failure: FailureKind | None = None
    latency_s: float = 0.0
    arguments: str = Field(default="", description="JSON of the arguments, truncated")


class RolloutTiming(BaseModel):
    """Where a rollout's wall time went."""

    wall_s: float = 0.0
    llm_s: float = 0.0
    simulator_s: float = 0.0
    llm_calls: int = 0

    @property
    def overhead_s(self) -> float:
        """Time spent outside the model and the simulator (agent framework, tools, reward)."""
        return max(0.0, self.wall_s - self.llm_s - self.simulator_s)


class RolloutRecord(BaseModel):
    """Everything a report or an algorithm needs to know about one rollout.

    ``failure`` is what ended the rollout abnormally (``None`` when it ended normally), typed where the
    exception was known; its :attr:`fault` decides whether the rollout is scored (the policy's) or left out
    of every reward, mean and group and counted (the infrastructure's).
    """

    rollout_id: str = ""
    task_id: str
    split: str = "train"
    difficulty: str = ""
    status: RolloutStatus = "ok"
    error: str | None = None
    failure: FailureKind | None = None
    reward: RewardBreakdown = Field(default_factory=lambda: RewardBreakdown(total=0.0))
    tool_calls: list[ToolCallSummary] = Field(default_factory=list)
    final_answer: str = ""
    timing: RolloutTiming = Field(default_factory=RolloutTiming)
    resources_id: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def fault(self) -> Fault | None:
        """Whose fault the rollout's failure is; ``None`` when it did not fail.

        A record without a typed failure (written before failures were typed) that did not end ``ok`` is
        classified by its status: ``lost`` is the infrastructure's, anything else the policy's.
        """
        if self.failure is not None:
            return self.failure.fault
        if self.status == "ok":
            return None
        return Fault.INFRASTRUCTURE if self.status == "lost" else Fault.POLICY

    @property
    def infrastructure_failed(self) -> bool:
        """Whether the infrastructure failed this rollout (left out of rewards and means, and counted)."""
        return self.fault is Fault.INFRASTRUCTURE

    @property
    def succeeded(self) -> bool:
        """The rollout finished and its simulation met every expected output (completion == 1)."""
        return self.status == "ok" and self.reward.completion >= 1.0 - 1e-9
