"""How the CLI builds the baseline evaluator (``--algorithm baseline``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext

if TYPE_CHECKING:
    from aspen_rl.algorithms.baseline import BaselineAlgorithm


def build_baseline(ctx: BuildContext) -> BaselineAlgorithm:
    """Every task ``repeats`` times; a split is given up on once every rollout could use its cap."""
    from aspen_rl.algorithms.baseline import BaselineAlgorithm

    tasks = ctx.splits.all() if ctx.splits is not None else []
    rollouts = len(tasks) * ctx.repeats
    deadline_s = ctx.settings.rollout_timeout_s * math.ceil(rollouts / ctx.args.n_runners) + 120.0
    test = ctx.splits.test if ctx.splits is not None else None
    return BaselineAlgorithm(
        ctx.resources, ctx.report, repeats=ctx.repeats, test_dataset=test, deadline_s=deadline_s
    )


BASELINE = AlgorithmSpec("baseline", build_baseline, help="evaluate the policy on every task")
