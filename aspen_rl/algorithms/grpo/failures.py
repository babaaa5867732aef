"""Whose fault a failed rollout is: the policy's (scored 0, trained on) or the infrastructure's (left out).

GRPO must not throw away the rollouts the policy ruined: a prompt grown over the endpoint's limit (HTTP 400
``context_length_exceeded``), a rollout over its wall-time cap, tool calls the endpoint cannot read back, a
tool loop that never ends. Those score 0 and stay in their group, so the group's other rollouts are
pushed up relative to them. Only failures that say nothing about the policy are left out of the update
(and counted): the simulator unreachable, busy or crashed, a rollout the store/runner lost, the policy
endpoint itself unreachable or failing, the reward computation crashing.

The decision is the record's typed failure (:attr:`~aspen_rl.records.RolloutRecord.fault`), made where the
exception was known (the simulator client, the tools, the agent); nothing here reads message text.
"""

from __future__ import annotations

from collections.abc import Sequence

from aspen_rl.failures import Fault
from aspen_rl.records import RolloutRecord


def failure_kind(record: RolloutRecord) -> Fault | None:
    """Whose fault a finished rollout's failure is: ``None`` when it ended normally (its reward stands)."""
    return record.fault


def training_reward(record: RolloutRecord) -> float | None:
    """The reward GRPO trains this rollout with: its total, 0 for a policy failure, None to leave it out."""
    fault = record.fault
    if fault is Fault.INFRASTRUCTURE:
        return None
    return 0.0 if fault is Fault.POLICY else record.reward.total


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
