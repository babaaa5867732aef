"""Thread-safe store of per-call token records, keyed by rollout id, filled by the local endpoint."""

from __future__ import annotations

import threading
from collections import defaultdict

from aspen_rl.llm.types import CallRecord


class CallRecorder:
    """Collects ``CallRecord``s per rollout until the training loop pops them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, list[CallRecord]] = defaultdict(list)
        self._counters: dict[str, int] = defaultdict(int)

    def next_index(self, rollout_id: str) -> int:
        """Reserve the call index of the next call of a rollout (call order, not finish order)."""
        with self._lock:
            index = self._counters[rollout_id]
            self._counters[rollout_id] += 1
            return index

    def add(self, record: CallRecord) -> None:
        """Store one call."""
        with self._lock:
            self._records[record.rollout_id].append(record)

    def pop(self, rollout_id: str, attempt_id: str | None = None) -> list[CallRecord]:
        """Remove and return a rollout's calls in call order (only ``attempt_id``'s when given)."""
        with self._lock:
            records = self._records.pop(rollout_id, [])
            self._counters.pop(rollout_id, None)
        if attempt_id is not None:
            records = [r for r in records if r.attempt_id == attempt_id]
        return sorted(records, key=lambda r: r.index)

    def peek(self, rollout_id: str) -> list[CallRecord]:
        """A rollout's calls so far, without removing them."""
        with self._lock:
            return sorted(self._records.get(rollout_id, []), key=lambda r: r.index)

    def rollout_ids(self) -> list[str]:
        """Rollouts that have records."""
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        """Drop everything (e.g. records of evaluation rollouts)."""
        with self._lock:
            self._records.clear()
            self._counters.clear()
