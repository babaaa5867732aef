"""Finding processes: a process's live descendants, which of some are still running, who names a path."""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import suppress

import psutil


def descendants(pid: int) -> list[psutil.Process]:
    """Every live descendant of ``pid`` (empty when it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def is_live(process: psutil.Process) -> bool:
    """Running and not a zombie."""
    with suppress(psutil.Error):
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    return False


def alive(processes: Sequence[psutil.Process], within_s: float = 0.0) -> list[psutil.Process]:
    """Those of ``processes`` still running (zombies count as gone) after waiting up to ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        left = [p for p in processes if is_live(p)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def processes_mentioning(text: str) -> list[psutil.Process]:
    """Live processes whose command line contains ``text`` (e.g. a run's scratch folder)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        with suppress(psutil.Error):
            if any(text in part for part in process.info["cmdline"] or []) and is_live(process):
                found.append(process)
    return found
