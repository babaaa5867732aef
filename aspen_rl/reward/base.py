"""The reward contract: a ``RewardFn`` turns a task and a run trace into a ``RewardBreakdown`` with a total.

Light on purpose (pydantic only): settings import :class:`RewardWeights` from here without loading the
shipped reward's unit library.
"""

from __future__ import annotations

import math
from importlib import import_module
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

INVALID_CALL = "InvalidToolCall"
"""``error`` prefix of a recorded call the model attempted that no tool could take (unknown tool name,
arguments that are not JSON or do not fit the tool): the agent records it, the reward charges it."""

if TYPE_CHECKING:
    from aspen_rl.tasks.model import AspenTask
    from aspen_rl.trace import RunTrace


class RewardWeights(BaseModel):
    """Weights of the three reward dimensions: non-negative and summing to 1 (within 1e-6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    completion: float = 0.4
    tool_efficiency: float = 0.3
    response_quality: float = 0.3

    @model_validator(mode="after")
    def _check(self) -> RewardWeights:
        values = self.model_dump()
        for name, value in values.items():
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"reward weight {name} must be a non-negative number, got {value}")
        total = sum(values.values())
        if abs(total - 1.0) > 1e-6:
            terms = " + ".join(f"{k}={v:g}" for k, v in values.items())
            raise ValueError(f"reward weights must sum to 1, got {terms} = {total:g}")
        return self


class RewardBreakdown(BaseModel):
    """The reward of one rollout: its total, the three dimensions and the sub-scores behind them.

    A custom reward may leave the dimensions at 0 and report only ``total`` (and any ``details``). It is
    also how a rollout's reward is stored (``RolloutRecord.reward``, :mod:`aspen_rl.records`).

    Attributes:
        total: The reward the algorithm optimises, in [0, 1].
        completion, tool_efficiency, response_quality: The shipped reward's dimensions, in [0, 1].
        details: Named sub-scores and counts (``quality.reported``, ``numbers.hallucinated``...), written
            per rollout to ``rollouts.jsonl`` and averaged in ``summary.json``.
    """

    total: float = Field(ge=0.0, le=1.0)
    completion: float = Field(default=0.0, ge=0.0, le=1.0)
    tool_efficiency: float = Field(default=0.0, ge=0.0, le=1.0)
    response_quality: float = Field(default=0.0, ge=0.0, le=1.0)
    details: dict[str, float] = Field(default_factory=dict)


@runtime_checkable
class RewardFn(Protocol):
    """Anything that scores a rollout: ``reward_fn(task, trace) -> RewardBreakdown``.

    The shipped one is :class:`aspen_rl.reward.AspenReward`; a plain function with this signature works
    too. It must be pure (same task and trace, same breakdown) and must not raise on odd traces.
    """

    def __call__(self, task: AspenTask, trace: RunTrace, /) -> RewardBreakdown:
        """Score one rollout."""
        ...


def load_reward_fn(spec: str) -> RewardFn:
    """The reward function named ``"package.module:attribute"`` (settings' ``reward_fn``).

    Raises:
        ValueError: The spec is not ``module:attribute``, or the attribute is not callable.
        ImportError: The module cannot be imported.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"reward_fn must read 'package.module:function', got {spec!r}")
    target: object = import_module(module_name)
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"reward_fn {spec!r}: {module_name} has no attribute {attribute!r}") from None
    if not callable(target):
        raise ValueError(f"reward_fn {spec!r} is not callable")
    return target
