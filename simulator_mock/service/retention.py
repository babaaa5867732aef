"""Results retention: keep at most N runs and/or runs younger than a max age; cap stored request bodies.

A *run* in the results folder is the group of files whose names carry the same run id (the
service's ids: ``<yyyymmdd>_<HHMMSS>_<12 hex>`` or 32 hex, e.g. ``config_<id>.json``,
``aspen_result_export_<id>.xlsx``). Only such files are ever deleted; anything else in the folder is
counted in its size and left alone. The oldest runs (by their newest file) are deleted first. The
sweep (one ``scandir``) runs after simulations, at most once per ``min_interval_s``, off the event
loop.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

log = logging.getLogger(__name__)


@dataclass
class FolderStats:
    """What the last sweep found (reported in ``/health``)."""

    bytes: int = 0
    runs: int = 0
    deleted_runs: int = 0
    swept_at: float = 0.0


RUN_ID_IN_NAME = re.compile(r"(?<![0-9a-f])([0-9]{8}_[0-9]{6}_[0-9a-f]{12}|[0-9a-f]{32})(?![0-9a-f])")
"""A run id inside a file name (the routes' time-stamped ids, or the older uuid4 hex ids)."""


def run_id_of(name: str) -> str | None:
    """The run id a results file is named after, or None for a file that is not a run's."""
    match = RUN_ID_IN_NAME.search(name)
    return match.group(1) if match else None


@dataclass
class Retention:
    """Retention policy of one results folder.

    Args:
        folder: The results folder.
        max_runs: Runs kept (0 = no count limit).
        max_age_s: Runs older than this are deleted (0 = no age limit).
        min_interval_s: Sweeps closer together than this are skipped (except forced ones).
    """

    folder: Path
    max_runs: int = 1000
    max_age_s: float = 0.0
    min_interval_s: float = 5.0
    stats: FolderStats = field(default_factory=FolderStats)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def sweep(self, *, force: bool = False) -> FolderStats:
        """Delete what the policy does not keep and refresh :attr:`stats`; never raises."""
        now = time.time()
        if not force and now - self.stats.swept_at < self.min_interval_s:
            return self.stats
        if not self._lock.acquire(blocking=False):
            return self.stats  # a sweep is running
        try:
            runs = self._scan()
            others = runs.pop("", None)
            doomed: list[str] = []
            if self.max_age_s > 0:
                doomed += [key for key, (newest, _, _) in runs.items() if now - newest > self.max_age_s]
            kept = sorted((k for k in runs if k not in doomed), key=lambda k: runs[k][0])
            if self.max_runs > 0 and len(kept) > self.max_runs:
                doomed += kept[: len(kept) - self.max_runs]
            for key in doomed:
                for path in runs[key][2]:
                    _remove(path)
            size = sum(size for k, (_, size, _) in runs.items() if k not in doomed)
            self.stats = FolderStats(
                bytes=size + (others[1] if others else 0),
                runs=len(runs) - len(doomed),
                deleted_runs=self.stats.deleted_runs + len(doomed),
                swept_at=now,
            )
            if doomed:
                log.info("retention: deleted %d run(s) from %s", len(doomed), self.folder)
        except OSError as exc:  # the folder vanished or is unreadable: report, do not crash
            log.warning("retention sweep of %s failed: %s", self.folder, exc)
        finally:
            self._lock.release()
        return self.stats

    def _scan(self) -> dict[str, tuple[float, int, list[Path]]]:
        """``{run id: (newest mtime, bytes, paths)}``; files of no run under ``""`` (never deleted)."""
        runs: dict[str, tuple[float, int, list[Path]]] = {}
        if not self.folder.is_dir():
            return runs
        for entry in list(self.folder.iterdir()):
            try:
                st = entry.lstat()
            except OSError:
                continue  # deleted meanwhile
            key = run_id_of(entry.name) if entry.is_file() else None
            newest, total, paths = runs.get(key or "", (0.0, 0, []))
            runs[key or ""] = (max(newest, st.st_mtime), total + st.st_size, [*paths, entry])
        return runs


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("retention: could not delete %s: %s", path, exc)


def cap_stored_file(path: Path, max_bytes: int) -> bool:
    """Replace a stored request body larger than ``max_bytes`` by a short note (size, sha256, head).

    The run was simulated from the full body; only the copy kept on disk is capped, so free-form
    sections cannot fill the disk. Returns whether the file was capped.
    """
    try:
        if max_bytes <= 0 or path.stat().st_size <= max_bytes:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    note = {
        "truncated": True,
        "original_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "head": data[: max(0, max_bytes - 512)].decode("utf-8", errors="replace"),
    }
    path.write_bytes(orjson.dumps(note))
    return True
