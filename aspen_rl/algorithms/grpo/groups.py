"""Turn finished rollouts (task, rollout id, reward) plus the endpoint's records into GRPO groups."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from aspen_rl.llm.call_recorder import CallRecorder
from aspen_rl.llm.trajectory import sample_from_records
from aspen_rl.llm.types import RolloutSample


@dataclass(frozen=True)
class FinishedRollout:
    """What the outer loop knows of one finished rollout."""

    task_id: str
    rollout_id: str
    reward: float
    attempt_id: str | None = None


def group_samples(
    recorder: CallRecorder, rollouts: Iterable[FinishedRollout], *, max_tokens: int | None = None
) -> list[list[RolloutSample]]:
    """Pop each rollout's records, build its rows, and group the samples by task (first-seen order).

    A rollout that never reached the model (no records) still joins its group with its reward and no
    rows: it shapes the group's mean and std but trains no token.

    Args:
        recorder: The endpoint's recorder (``ChatCompletionServer.recorder``).
        rollouts: Finished rollouts of this step.
        max_tokens: Longest training row (``GRPOConfig.max_trajectory_tokens``).
    """
    groups: dict[str, list[RolloutSample]] = {}
    for rollout in rollouts:
        records = recorder.pop(rollout.rollout_id, rollout.attempt_id)
        sample = sample_from_records(records, rollout.reward, max_tokens=max_tokens)
        sample.meta.update(task_id=rollout.task_id, rollout_id=rollout.rollout_id, calls=len(records))
        groups.setdefault(rollout.task_id, []).append(sample)
    return list(groups.values())
