"""Which train tasks a GRPO step draws: seeded per-epoch shuffles, so a resumed run draws the same."""

from __future__ import annotations

import random
from collections.abc import Sequence

from aspen_rl.tasks import AspenTask


def tasks_for_step(tasks: Sequence[AspenTask], step: int, k: int, seed: int) -> list[AspenTask]:
    """The ``k`` distinct tasks of a 1-based step, walking seeded per-epoch shuffles of the task list.

    Every task is seen about equally often, and the draw depends only on (tasks, step, k, seed): a
    resumed run draws what the uninterrupted run would have.
    """
    n = len(tasks)
    k = min(k, n)
    chosen: list[int] = []
    position = (step - 1) * k
    while len(chosen) < k:
        epoch, offset = divmod(position, n)
        order = list(range(n))
        random.Random(f"{seed}:{epoch}").shuffle(order)
        if order[offset] not in chosen:  # an epoch boundary inside the step
            chosen.append(order[offset])
        position += 1
    return [tasks[i] for i in chosen]
