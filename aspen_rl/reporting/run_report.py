"""The files and console output of one run: rollouts.jsonl, summary.json, the reward plot and table."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import fmean
from typing import Any

from rich.console import Console

from aspen_rl.records import RolloutRecord
from aspen_rl.reporting.console import funnel_table, rollout_progress, summary_table
from aspen_rl.reporting.plots import plot_reward_distribution
from aspen_rl.reporting.summary import completion, summarize

ROLLOUTS_FILE = "rollouts.jsonl"
SUMMARY_FILE = "summary.json"
PLOT_FILE = "reward_distribution.png"


class RunReport:
    """Collects the records of a run and writes its report files into ``output_dir``.

    Every record is appended to ``rollouts.jsonl`` as soon as it arrives, so an interrupted run
    keeps what it measured.
    """

    def __init__(self, output_dir: Path, console: Console | None = None) -> None:
        self.output_dir = output_dir
        self.console = console or Console(stderr=True)
        self.records: list[RolloutRecord] = []
        self.phases_s: dict[str, float] = {}
        self.table_title = "Reward by split and tier"
        """Title of the final table; an algorithm whose splits pool several policies says so here."""
        output_dir.mkdir(parents=True, exist_ok=True)
        self.rollouts_path = output_dir / ROLLOUTS_FILE
        self.rollouts_path.write_text("", encoding="utf-8")

    def add(self, record: RolloutRecord) -> None:
        """Keep a record and append it to ``rollouts.jsonl``."""
        self.records.append(record)
        with self.rollouts_path.open("a", encoding="utf-8") as handle:
            handle.write(record.model_dump_json() + "\n")

    @contextmanager
    def progress(self, description: str, total: int) -> Iterator[Callable[[RolloutRecord], None]]:
        """A rich progress bar over ``total`` rollouts; yields the per-record callback."""
        seen: list[float] = []
        start = time.perf_counter()
        with rollout_progress(self.console) as bar:
            task_id = bar.add_task(description, total=total, mean=0.0)

            def on_record(record: RolloutRecord) -> None:
                self.add(record)
                if not record.infrastructure_failed:  # left out of every mean
                    seen.append(record.reward.total)
                bar.update(task_id, advance=1, mean=fmean(seen) if seen else 0.0)

            yield on_record
        self.phases_s[description] = self.phases_s.get(description, 0.0) + time.perf_counter() - start

    def finish(
        self,
        *,
        requested: dict[str, int | None] | None = None,
        interrupted_by: str | None = None,
        failure: str | None = None,
        **run_info: Any,
    ) -> dict[str, Any]:
        """Write ``summary.json`` and the reward plot, print the table; returns the summary.

        Args:
            requested: ``{split: expected rollouts or None}`` the run was asked for; the summary
                then says which splits completed, are incomplete or missing.
            interrupted_by: The signal name that stopped the run (``"SIGINT"``, ``"SIGTERM"``); the
                summary is then marked ``status: interrupted``.
            failure: Why a run that went to its end still failed (too many infrastructure failures); the
                summary is then marked ``status: failed`` with this reason under ``failure``.
            **run_info: Anything else to record (algorithm, policy, seed...).
        """
        status = "interrupted" if interrupted_by else "failed" if failure else "complete"
        summary: dict[str, Any] = {
            "status": status,
            "interrupted": interrupted_by is not None,
            "rollouts": len(self.records),
            "infrastructure_failures": sum(1 for r in self.records if r.infrastructure_failed),
            **run_info,
            "phases_s": self.phases_s,
        }
        if interrupted_by:
            summary["signal"] = interrupted_by
        if failure:
            summary["failure"] = failure
        if requested is not None:
            summary.update(completion(self.records, requested, interrupted=interrupted_by is not None))
        summary["splits"] = summarize(self.records)
        summary = rounded(summary)  # what the file holds is what the caller gets
        write_summary(self.output_dir, summary)
        if self.records:
            plot_reward_distribution(self.records, self.output_dir / PLOT_FILE)
        self.console.print(summary_table(summary["splits"], title=self.table_title))
        funnel = funnel_table(summary["splits"])
        if funnel is not None:
            self.console.print(funnel)
        return summary


SUMMARY_DIGITS = 6
"""Significant digits of the floats in ``summary.json`` (0.88, not 0.8800000000000001)."""


def rounded(value: Any, digits: int = SUMMARY_DIGITS) -> Any:
    """``value`` with every finite float, however deeply nested, rounded to ``digits`` significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v, digits) for v in value]
    return value


def write_summary(output_dir: Path, summary: dict[str, Any]) -> Path:
    """Write ``summary.json`` atomically (a reader never sees half a file, even if the run is killed)."""
    path = output_dir / SUMMARY_FILE
    partial = path.with_suffix(".json.tmp")
    partial.write_text(json.dumps(rounded(summary), indent=2, ensure_ascii=False), "utf-8")
    partial.replace(path)
    return path


def load_records(path: Path) -> list[RolloutRecord]:
    """Read back a ``rollouts.jsonl`` file."""
    # "\n" only: JSON escapes it, but not U+0085, U+2028 or U+2029, where str.splitlines() also breaks
    # (an untrained model writes them)
    lines = path.read_text(encoding="utf-8").split("\n")
    return [RolloutRecord.model_validate_json(line) for line in lines if line.strip()]
