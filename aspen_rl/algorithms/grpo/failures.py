"""Whose fault a failed rollout is: the policy's (scored 0, trained on) or the infrastructure's (left out).

GRPO must not throw away the rollouts the policy ruined: a prompt grown over the endpoint's limit (HTTP 400
``context_length_exceeded``), a rollout over its wall-time cap, tool calls the endpoint cannot read back, a
tool loop that never ends. Those score 0 and stay in their group, so the group's other rollouts are
pushed up relative to them. Only failures that say nothing about the policy are left out of the update
(and counted): the simulator unreachable, a rollout the store/runner lost, the policy endpoint itself
unreachable or failing, the reward computation crashing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from aspen_rl.records import RolloutRecord

FailureKind = Literal["policy", "infrastructure"]

INFRASTRUCTURE_MARKERS: tuple[str, ...] = (
    "SimulatorUnavailable",  # a tool call found the simulator down (``aspen_rl.simulator.errors``)
    "reward computation failed",  # the agent's own scoring crashed on the simulator's answer
    "APIConnectionError",  # the policy endpoint could not be reached
    "InternalServerError",  # the policy endpoint answered 5xx (engine failure)
)
"""Substrings of ``RolloutRecord.error`` that mark an error status as an infrastructure failure."""


def failure_kind(record: RolloutRecord) -> FailureKind | None:
    """Classify a finished rollout: None when it ended normally, else whose fault its failure is.

    Rules, in order: status ``ok`` is no failure (its reward stands, whatever it is); ``lost`` (the
    store/runner never delivered a record) is infrastructure; ``timeout`` is the policy's; an ``error``
    whose message names an infrastructure failure (``INFRASTRUCTURE_MARKERS``) is infrastructure; every
    other error (the endpoint refusing an over-long prompt or unreadable tool-call arguments, the agent
    framework failing on what the model wrote) is the policy's.
    """
    if record.status == "ok":
        return None
    if record.status == "lost":
        return "infrastructure"
    if record.status == "timeout":
        return "policy"
    message = record.error or ""
    if any(marker in message for marker in INFRASTRUCTURE_MARKERS):
        return "infrastructure"
    return "policy"


def training_reward(record: RolloutRecord) -> float | None:
    """The reward GRPO trains this rollout with: its total, 0 for a policy failure, None to leave it out."""
    kind = failure_kind(record)
    if kind == "infrastructure":
        return None
    return 0.0 if kind == "policy" else record.reward.total


def split_for_update(
    records: Sequence[RolloutRecord],
) -> tuple[list[tuple[RolloutRecord, float]], list[RolloutRecord]]:
    """The rollouts GRPO trains on, each with its training reward, and those it leaves out.

    Returns:
        ``(kept, left_out)``: kept pairs ``(record, reward)`` in input order (policy failures with reward
        0), and the infrastructure failures.
    """
    kept: list[tuple[RolloutRecord, float]] = []
    left_out: list[RolloutRecord] = []
    for record in records:
        reward = training_reward(record)
        if reward is None:
            left_out.append(record)
        else:
            kept.append((record, reward))
    return kept, left_out
