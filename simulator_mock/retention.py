"""Results retention: keep at most N runs and/or runs younger than a max age; cap stored request bodies.

A *run* in the results folder is either a sub-folder, or the group of files whose names share the
run id before the first ``_`` or ``.`` (``<run_id>.xlsx``, ``<run_id>_config.json``...). The oldest
runs (by their newest file) are deleted first. The sweep is cheap (one ``scandir``) and runs after
every simulation, throttled, off the event loop.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
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


def _run_key(name: str) -> str:
    return name.split("_", 1)[0].split(".", 1)[0] or name


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
    min_interval_s: float = 1.0
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
                bytes=size,
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
        """``{run key: (newest mtime, bytes, paths)}`` of the folder's entries."""
        runs: dict[str, tuple[float, int, list[Path]]] = {}
        if not self.folder.is_dir():
            return runs
        for entry in list(self.folder.iterdir()):
            try:
                if entry.is_dir() and not entry.is_symlink():
                    files = [p for p in entry.rglob("*") if p.is_file()]
                    stats = [p.stat() for p in files]
                    mtime = max((s.st_mtime for s in stats), default=entry.stat().st_mtime)
                    size = sum(s.st_size for s in stats)
                    key = "/" + entry.name
                else:
                    st = entry.lstat()
                    mtime, size, key = st.st_mtime, st.st_size, _run_key(entry.name)
            except OSError:
                continue  # deleted meanwhile
            newest, total, paths = runs.get(key, (0.0, 0, []))
            runs[key] = (max(newest, mtime), total + size, [*paths, entry])
        return runs


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
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
