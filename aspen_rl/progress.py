"""Progress of a long step for a person watching: count, rate and time left, on a terminal or in a log."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

Advance = Callable[[str], None]
"""Called once per finished item, with a short note (e.g. the task id) shown beside the bar."""


class _Rate(ProgressColumn):
    """Items per second (per minute when slower than one a second)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("  -/s")
        return Text(f"{speed:.1f}/s" if speed >= 1 else f"{speed * 60:.1f}/min")


def _log_line(description: str, done: int, total: int, started: float, note: str) -> str:
    elapsed = time.monotonic() - started
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else float("nan")
    left_text = f"about {left:.0f} s left" if left == left else "time left unknown"
    return f"{description}: {done}/{total} ({rate:.2f}/s, {elapsed:.0f} s, {left_text}) {note}".rstrip()


@contextmanager
def progress(
    description: str, total: int, *, console: Console | None = None, every_s: float = 5.0
) -> Iterator[Advance]:
    """A progress display over ``total`` items; yields the callback to call once per finished item.

    On a terminal: a rich bar with the count, the rate and the time left. In a log or a pipe (no
    terminal): a line at the start, then at most one line every ``every_s`` seconds and one at the end, so
    that a CI log shows the step moving without a line per item.
    """
    console = console or Console(file=sys.stderr)
    if console.is_terminal:
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
        ) as bar:
            task = bar.add_task(description, total=total, note="")

            def step(note: str = "") -> None:
                bar.update(task, advance=1, note=note)

            yield step
        return
    started = last = time.monotonic()
    done = 0
    console.print(f"{description}: 0/{total}", soft_wrap=True)

    def advance(note: str = "") -> None:
        nonlocal done, last
        done += 1
        now = time.monotonic()
        if done == total or now - last >= every_s:
            last = now
            console.print(_log_line(description, done, total, started, note), soft_wrap=True)

    yield advance
