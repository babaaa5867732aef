"""The tasks of one run, by split (what the CLI loaded and every algorithm is built with)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aspen_rl.tasks.model import AspenTask


@dataclass
class TaskSplits:
    """The tasks of one run, by split (custom tasks join train)."""

    train: list[AspenTask]
    val: list[AspenTask] = field(default_factory=list)
    test: list[AspenTask] = field(default_factory=list)

    def all(self) -> list[AspenTask]:
        """Every task of the run."""
        return [*self.train, *self.val, *self.test]
