"""Publishing resources, enqueueing task rollouts and collecting their records through the store."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from agentlightning.emitter.object import get_object_value
from agentlightning.emitter.reward import find_final_reward
from agentlightning.store.base import LightningStore

from aspen_rl.failures import FailureKind
from aspen_rl.records import RolloutRecord
from aspen_rl.reward.base import RewardBreakdown
from aspen_rl.rollout_seed import SEED_METADATA_KEY, derive_seed
from aspen_rl.tasks import AspenTask

logger = logging.getLogger(__name__)

OBJECT_SPAN = "agentlightning.object"
MODES = {"train", "val", "test"}


async def publish(store: LightningStore, resources: dict[str, Any]) -> str:
    """Publish a resource snapshot and return its id (runners skip rollouts until one exists)."""
    update = await store.add_resources(resources)
    return update.resources_id


async def run_tasks(
    store: LightningStore,
    tasks: Sequence[AspenTask],
    *,
    resources_id: str,
    mode: str = "train",
    repeats: int = 1,
    poll_s: float = 0.05,
    deadline_s: float = 3600.0,
    on_record: Callable[[RolloutRecord], None] | None = None,
    seed: int | None = None,
) -> list[RolloutRecord]:
    """Enqueue every task ``repeats`` times, wait for all, and return their records in task order.

    The HTTP store client refuses long waits, so completion is polled with ``timeout=0``. A rollout
    that has not finished ``deadline_s`` after the enqueue is reported with status ``lost``.

    Args:
        store: The trainer's store.
        tasks: Tasks to run.
        resources_id: Resource snapshot the rollouts use.
        mode: Agent Lightning rollout mode (``train``, ``val`` or ``test``).
        repeats: Rollouts per task.
        poll_s: Seconds between completion polls.
        deadline_s: Give-up time for the whole batch.
        on_record: Called with each record as soon as its rollout finishes.
        seed: Seed of the batch: the i-th rollout gets ``derive_seed(seed, i)`` in its metadata, which
            its agent sends as the request ``seed``, so what it samples does not depend on which runner
            took it or what the endpoint batched it with. None: unseeded.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}")
    inputs = [task for task in tasks for _ in range(repeats)]
    rollout_ids: list[str] = []
    by_id: dict[str, AspenTask] = {}
    for i, task in enumerate(inputs):
        metadata = {SEED_METADATA_KEY: derive_seed(seed, i)} if seed is not None else None
        rollout = await store.enqueue_rollout(
            input=task.model_dump(mode="json"), mode=mode, resources_id=resources_id, metadata=metadata
        )
        rollout_ids.append(rollout.rollout_id)
        by_id[rollout.rollout_id] = task
    records: dict[str, RolloutRecord] = {}
    give_up = time.monotonic() + deadline_s
    while len(records) < len(rollout_ids):
        pending = [rid for rid in rollout_ids if rid not in records]
        finished = await store.wait_for_rollouts(rollout_ids=pending, timeout=0)
        for rollout in finished:
            record = await read_record(
                store, rollout.rollout_id, by_id[rollout.rollout_id], str(rollout.status)
            )
            records[rollout.rollout_id] = record
            if on_record is not None:
                on_record(record)
        if time.monotonic() > give_up:
            for rid in rollout_ids:
                if rid not in records:
                    record = _lost(rid, by_id[rid], f"no result within {deadline_s:g} s")
                    records[rid] = record
                    if on_record is not None:
                        on_record(record)
            break
        if len(records) < len(rollout_ids):
            await asyncio.sleep(poll_s)
    return [records[rid] for rid in rollout_ids]


async def read_record(store: LightningStore, rollout_id: str, task: AspenTask, status: str) -> RolloutRecord:
    """The record the agent emitted for a finished rollout, or a ``lost`` record saying why not."""
    spans = await store.query_spans(rollout_id, "latest")
    for span in reversed(spans):
        if span.name == OBJECT_SPAN:
            try:
                return RolloutRecord.model_validate(get_object_value(span))
            except Exception as exc:  # a foreign object span: keep looking
                logger.debug("span %s of %s is not a rollout record: %s", span.span_id, rollout_id, exc)
    reward = find_final_reward(spans)
    record = _lost(rollout_id, task, f"rollout ended with status {status} without a record")
    if reward is not None:
        record.reward = RewardBreakdown(total=reward)
    return record


def _lost(rollout_id: str, task: AspenTask, why: str) -> RolloutRecord:
    return RolloutRecord(
        rollout_id=rollout_id,
        task_id=task.task_id,
        split=task.split or "train",
        difficulty=str(task.difficulty),
        status="lost",
        error=why,
        failure=FailureKind.LOST,
    )
