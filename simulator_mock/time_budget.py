"""Time budget of one simulation: long loops check it, so a worker never stays busy past the timeout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from simulator_mock.errors import TimeLimitError

_deadline: ContextVar[float | None] = ContextVar("simulation_deadline", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Run the enclosed simulation under a wall-clock budget (None: unlimited)."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def check_time(where: str) -> None:
    """Raise TimeLimitError when the current simulation's budget is spent (cheap; call once per iteration)."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise TimeLimitError(f"{where}: simulation time limit reached; simplify the flowsheet or its specs")
