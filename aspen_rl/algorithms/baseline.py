"""The baseline evaluator: run every task, collect rewards, report per split, tier and dimension."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

from agentlightning.algorithm import FastAlgorithm

from aspen_rl.algorithms.rollouts import publish, run_tasks
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport
from aspen_rl.tasks import AspenTask

logger = logging.getLogger(__name__)


class BaselineAlgorithm(FastAlgorithm):
    """Publishes the resources, runs train (then val and test when given) ``repeats`` times, reports.

    A ``FastAlgorithm``, so it serves both ``Trainer.dev`` and ``Trainer.fit``.

    Args:
        resources: Resources every rollout gets (the ``LLM`` and optionally a ``PromptTemplate``).
        report: Where records, summary and plot go; an optional observer (``None``: records are only
            returned through the store).
        repeats: Rollouts per task.
        test_dataset: Optional test tasks, run after validation.
        deadline_s: Give-up time per split.
    """

    def __init__(
        self,
        resources: dict[str, Any],
        report: RunReport | None = None,
        *,
        repeats: int = 1,
        test_dataset: Sequence[AspenTask] | None = None,
        deadline_s: float = 3600.0,
    ) -> None:
        super().__init__()
        if repeats < 1:
            raise ValueError(f"repeats must be >= 1, got {repeats}")
        self.resources = resources
        self.report = report
        self.repeats = repeats
        self.test_dataset = list(test_dataset or [])
        self.deadline_s = deadline_s
        self.records: list[RolloutRecord] = []
        """Every record of the last :meth:`run`, in task order (kept with or without a report)."""

    async def run(
        self,
        train_dataset: Sequence[AspenTask] | None = None,
        val_dataset: Sequence[AspenTask] | None = None,
    ) -> None:
        """Evaluate every split that has tasks."""
        self.records = []
        store = self.get_store()
        resources_id = await publish(store, self.resources)
        for mode, tasks in (("train", train_dataset), ("val", val_dataset), ("test", self.test_dataset)):
            tasks = list(tasks or [])
            if not tasks:
                continue
            total = len(tasks) * self.repeats
            logger.info("baseline: %d rollouts on %s", total, mode)
            progress = (
                self.report.progress(f"baseline {mode}", total)
                if self.report is not None
                else nullcontext(None)
            )
            with progress as on_record:
                self.records += await run_tasks(
                    store,
                    tasks,
                    resources_id=resources_id,
                    mode=mode,
                    repeats=self.repeats,
                    deadline_s=self.deadline_s,
                    on_record=on_record,
                )
