"""Demonstrations whose result paths a model must copy, not recall: run ids stamped at random times.

The mock names a run's files after the time it ran, as the real service names its result export (local
time to the second there; the mock's UTC stamp carries 12 hex more, so two runs in one second never share a
name), so every demonstration recorded in one sitting carries a stamp from the same few hours, and a small
model trained on them writes the stamp's digits from memory. Measured (learning benchmark, 2026-11-29):
the same saved model, greedy, copied 7 of 8 held-out result paths at ~09:40 UTC and 0 of 8 at ~11:15 (it
drops a digit of ``_111502``).
A deployed agent meets every date, so demonstrations are recorded with stamps drawn over sixteen years.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

SPREAD = (datetime(2020, 1, 1, tzinfo=UTC), datetime(2036, 1, 1, tzinfo=UTC))
"""The times :func:`spread_run_ids` stamps runs in."""


@contextmanager
def spread_run_ids(seed: int) -> Iterator[None]:
    """While inside, the in-process mock (``workers=0``) names each run ``<time>_<12 hex>`` with a time
    in :data:`SPREAD` drawn from ``random.Random(seed)`` (the same seed, the same stamps) and the hex from
    uuid4 (an id never repeats, so the results folder is shared safely; the hex is new in every process);
    the clock again after. The source is process-wide: every in-process mock of this process draws from it.
    A mock in another process keeps its clock."""
    from simulator_mock.service.worker import use_run_ids

    rng = random.Random(seed)
    first, last = SPREAD
    seconds = int((last - first).total_seconds())

    def next_id() -> str:
        when = first + timedelta(seconds=rng.randrange(seconds))
        return f"{when:%Y%m%d_%H%M%S}_{uuid.uuid4().hex[:12]}"

    previous = use_run_ids(next_id)
    try:
        yield
    finally:
        use_run_ids(previous)
