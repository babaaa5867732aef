"""Bounded, cancellable runs: one shared flag per in-flight request, read by the engine's time checks.

The service gives every simulation a *slot* in a small shared array. The worker (a process of the
pool, or the service's own thread) runs the request under :func:`~flowsheet.time_budget.cancel_when`
reading that slot, so flipping the flag stops the run at the engine's next ``check_time`` (once per
block, per recycle iteration, per column iteration). The service flips it when the client disconnects
or when the answer is overdue; a request that waited in the queue past ``queue_wait_s`` is not run at
all. Nothing here imports the HTTP layer.
"""

from __future__ import annotations

import signal
import threading
import time
from datetime import UTC, datetime
from multiprocessing.context import BaseContext
from typing import Any

from simulator_mock.errors import TimeLimitError
from simulator_mock.flowsheet.time_budget import cancel_when
from simulator_mock.service.parent_watch import die_with_parent
from simulator_mock.service.worker import Outcome, answer_json, failure, init_worker, simulate_request

BUSY_STATUS = 503
"""Answer to a run refused before it started (every slot taken, or queued too long): safe to retry."""

_flags: Any = None
"""In a worker process: the shared flag array handed over by :func:`init_cancellable_worker` (a thread
worker gets its service's array with each call instead: several services may share one process)."""


class CancelSlots:
    """A fixed array of cancel flags shared with the workers, handed out one per in-flight request.

    Args:
        size: How many requests may be in flight (running or queued) at once.
        ctx: The multiprocessing context of the pool (the array must be created before its workers).
    """

    def __init__(self, size: int, ctx: BaseContext | None = None) -> None:
        if ctx is None:
            from multiprocessing.sharedctypes import RawArray

            self.flags = RawArray("b", size)
        else:
            self.flags = ctx.RawArray("b", size)
        self._free = list(range(size - 1, -1, -1))
        self._lock = threading.Lock()
        self.cancelled = 0

    @property
    def in_flight(self) -> int:
        """Requests holding a slot (queued or running)."""
        return len(self.flags) - len(self._free)

    def acquire(self) -> int | None:
        """A free slot with its flag cleared, or None when every slot is taken."""
        with self._lock:
            if not self._free:
                return None
            slot = self._free.pop()
        self.flags[slot] = 0
        return slot

    def cancel(self, slot: int) -> None:
        """Ask the run holding ``slot`` to stop at its next time check."""
        self.flags[slot] = 1
        self.cancelled += 1

    def release(self, slot: int) -> None:
        """Give the slot back (only once its run has returned)."""
        with self._lock:
            self._free.append(slot)


def init_cancellable_worker(flags: Any) -> None:
    """Pool initializer: die with the service (a worker without it is an orphan holding memory), keep the
    shared flags, then warm the engine up as a plain worker does."""
    global _flags
    die_with_parent(signal.SIGTERM)
    _flags = flags
    init_worker()


def run_cancellable(
    slot: int,
    start_by: float,
    body: bytes,
    results_dir: str,
    time_limit_s: float | None,
    flags: Any = None,
) -> Outcome:
    """Run one request in a worker unless it was abandoned or queued past ``start_by`` (``time.time()``).

    ``flags`` is the service's flag array for a thread worker; a process worker uses the one it was
    initialised with (a shared array cannot travel with each call).

    Returns:
        The worker's :class:`~simulator_mock.service.worker.Outcome`; a Timeout failure when the flag flips
        mid-run; a 503 Busy answer (nothing was run) when the request started too late.
    """
    flags = flags if flags is not None else _flags
    if flags is not None and flags[slot]:
        error = TimeLimitError("the request was abandoned by its client before it started; not run")
        return Outcome(201, answer_json(failure(error)))
    if time.time() > start_by:
        return busy("the request waited for an engine worker longer than the queue allows; not run")
    if flags is None:
        return simulate_request(body, results_dir, time_limit_s)
    with cancel_when(lambda: bool(flags[slot])):
        return simulate_request(body, results_dir, time_limit_s)


def busy(reason: str) -> Outcome:
    """The answer to a run that was never started: HTTP 503, safe for a client to retry."""
    body = {"error": f"service busy: {reason}", "retry": True, "timestamp": datetime.now(UTC).isoformat()}
    return Outcome(BUSY_STATUS, answer_json(body))
