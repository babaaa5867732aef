"""The contract of an algorithm the CLI can run: its spec (flags, preflight, build) and what a build gets.

Each algorithm declares one :class:`AlgorithmSpec` in its own package (``algorithms/grpo/spec.py``...);
:mod:`aspen_rl.algorithms.registry` is only the table of them. Nothing here imports Agent Lightning or
torch: a spec's callables import their algorithm when they run.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aspen_rl.errors import UsageError

if TYPE_CHECKING:
    from agentlightning import Algorithm
    from agentlightning.types import ResourceUnion
    from rich.console import Console

    from aspen_rl.reporting import RunReport
    from aspen_rl.settings import Settings
    from aspen_rl.tasks.splits import TaskSplits


@dataclass
class BuildContext:
    """What a preflight check and a builder get.

    Attributes:
        args: Parsed command line of ``python -m aspen_rl.train``.
        settings: The run's settings.
        resources: Resources of every rollout (``main_llm``, optionally ``system_prompt``);
            empty in preflight.
        report: The run's report (``None`` in preflight, or when the run has none).
        splits: The run's tasks (``None`` in preflight).
        repeats: Rollouts per task.
    """

    args: argparse.Namespace
    settings: Settings
    resources: dict[str, ResourceUnion] = field(default_factory=dict)
    report: RunReport | None = None
    splits: TaskSplits | None = None
    repeats: int = 1

    @property
    def run_name(self) -> str | None:
        """The run's folder name (names checkpoint and prompt folders); ``None`` before the report exists."""
        return self.report.output_dir.name if self.report is not None else None


Build = Callable[[BuildContext], "Algorithm"]
Preflight = Callable[[BuildContext], None]


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm the CLI can run.

    Attributes:
        name: The ``--algorithm`` value (and the name of its ``algorithms.<name>`` settings section).
        build: ``BuildContext -> Algorithm`` (an Agent Lightning ``Algorithm``); raises
            :class:`~aspen_rl.errors.UsageError` for bad settings.
        help: One line for ``--help``.
        trains_weights: Runs through ``Trainer.fit`` and serves its own policy (default mode ``train``,
            ``--mode dev`` refused).
        needs_validation: Selects on the validation split (loaded without ``--use-validation``).
        min_repeats: Smallest ``--repeats`` it accepts.
        preflight: ``BuildContext -> None`` without resources, report or tasks, run before any service starts
            (arguments, paths, models, environment); raises :class:`~aspen_rl.errors.UsageError`.
        standalone: Runs on its own, without the store, services or rollouts (``sft``: the CLI hands the
            whole run to ``run``; ``build`` is not used).
        run: ``(args, console) -> exit code`` of a standalone algorithm (raises
            :class:`~aspen_rl.errors.UsageError` for bad settings).
    """

    name: str
    build: Build
    help: str = ""
    trains_weights: bool = False
    needs_validation: bool = False
    min_repeats: int = 1
    preflight: Preflight | None = None
    standalone: bool = False
    run: Callable[[argparse.Namespace, Console], int] | None = None

    @property
    def default_mode(self) -> str:
        """``train`` for weight-training algorithms, else ``dev``."""
        return "train" if self.trains_weights else "dev"


@contextmanager
def usage_errors(
    prefix: str = "", kinds: tuple[type[Exception], ...] = (ValueError, FileNotFoundError)
) -> Iterator[None]:
    """Turn a bad setting found in the block (``kinds``) into a :class:`UsageError` (an ``error:`` line).

    Args:
        prefix: Put before the message, e.g. ``"--algorithm grpo: "``.
        kinds: The exceptions that mean bad settings (config errors are ``ValueError``; a missing file).
    """
    try:
        yield
    except kinds as exc:
        raise UsageError(f"{prefix}{exc}") from exc
