"""Time budget of one simulation: long loops check it, so a worker never stays busy past the timeout."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from simulator_mock.errors import TimeLimitError

_deadline: ContextVar[float | None] = ContextVar("simulation_deadline", default=None)
_cancelled: ContextVar[Callable[[], bool] | None] = ContextVar("simulation_cancelled", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Run the enclosed simulation under a wall-clock budget (None: unlimited)."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def cancel_when(cancelled: Callable[[], bool]) -> Iterator[None]:
    """Stop the enclosed simulation at its next :func:`check_time` once ``cancelled()`` is true.

    The service sets this for each request: when the client disconnects, the flag flips and the
    worker returns within one iteration instead of finishing a run nobody waits for.
    """
    token = _cancelled.set(cancelled)
    try:
        yield
    finally:
        _cancelled.reset(token)


def check_time(where: str) -> None:
    """Raise TimeLimitError when the current simulation's budget is spent or its request was abandoned.

    Cheap; call it once per iteration of every loop whose length the config controls.
    """
    cancelled = _cancelled.get()
    if cancelled is not None and cancelled():
        raise TimeLimitError(f"{where}: the request was abandoned by its client; run cancelled")
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise TimeLimitError(f"{where}: simulation time limit reached; simplify the flowsheet or its specs")
