"""A pool of simulator services behind one client: per-service run limits, dead services taken out.

A real Aspen service runs one simulation at a time and takes seconds, and it names each run's files by the
second (``%Y%m%d_%H%M%S``): two runs started within one second share their config, ``.bkp`` and ``.xlsx``
paths, so one rollout could read another's numbers. :class:`SimulatorPool` is an httpx transport that

* sends each ``POST /run-aspen-simulation`` to a live service with a free run slot (``max_runs`` per
  service, held across every process of this machine by file locks, so forked runners share them) and
  starts runs on one service at least :data:`START_SPACING_S` apart (never two in one second);
* reads results back (``/get-aspen-result``, ``/download``) from the service that wrote them;
* takes a service that cannot be connected to out for :data:`RETRY_DEAD_AFTER_S` and tries the next one
  (a request that never reached a service is safe to send elsewhere, a run included);
* appends one JSON line per dispatched run to an optional log, from which a run's report counts each
  service's share.

Connections are direct (httpx uses no ``HTTP(S)_PROXY`` once a transport is given).

``max_runs=None`` decides per service on first use: no limit for this project's mock (its ``/health``
says ``simulator: simulator_mock``; it names files uniquely and bounds its own load), 1 for any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import ssl
import tempfile
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

logger = logging.getLogger(__name__)

RUN_PATH = "/run-aspen-simulation"
FILE_ROUTES = frozenset({"/get-aspen-result", "/download"})
START_SPACING_S = 1.05
"""Least time between two run starts on one limited service: the real service names files by the second."""
RETRY_DEAD_AFTER_S = 30.0
"""How long a service that refused a connection stays out of the pool before it is tried again."""
_POLL_S = 0.05
_OWNERS_KEPT = 10_000
_PATH_KEYS = ("result_file_path", "aspen_file_path", "config_file_path")


def default_lock_dir() -> Path:
    """Machine-wide folder of the run-slot locks (every process and run on this machine shares them)."""
    return Path(tempfile.gettempdir()) / "aspen_rl-simulator-slots"


class RunSlots:
    """At most ``limit`` runs in flight on one service across processes (``fcntl`` locks on slot files),
    and starts at least :data:`START_SPACING_S` apart (a gate file holding the last start time).

    Args:
        url: The service (its hash names the lock folder).
        limit: Runs in flight at once; 0 = no limit and no spacing.
        lock_dir: Parent folder of the lock files.
    """

    def __init__(self, url: str, limit: int, lock_dir: Path) -> None:
        self.url = url
        self.limit = limit
        self.folder = lock_dir / hashlib.sha256(url.encode()).hexdigest()[:16]
        if limit:
            self.folder.mkdir(parents=True, exist_ok=True)

    def try_acquire(self) -> int | None:
        """A held slot (an open, locked file descriptor), or None when all ``limit`` are taken."""
        if not self.limit:
            return -1
        for index in range(self.limit):
            fd = os.open(self.folder / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        return None

    @staticmethod
    def release(fd: int) -> None:
        """Give a slot back (closing the descriptor drops its lock)."""
        if fd >= 0:
            os.close(fd)

    async def spaced_start(self) -> None:
        """Wait until :data:`START_SPACING_S` has passed since the last start on this service; record now."""
        if not self.limit:
            return
        fd = os.open(self.folder / "last-start", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(_POLL_S)
            raw = os.pread(fd, 64, 0)
            try:
                last = float(raw.decode() or 0.0)
            except ValueError:
                last = 0.0
            wait = last + START_SPACING_S - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
            stamp = f"{time.time():.6f}".encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, stamp, 0)
        finally:
            os.close(fd)  # drops the gate lock


@dataclass
class _Shared:
    """State of one service shared by every pool of this process (rollouts build a client each)."""

    dead_until: float = 0.0
    limit: int | None = None


_SHARED: dict[str, _Shared] = {}
_OWNERS: OrderedDict[str, str] = OrderedDict()  # a file path a run answered -> the service that wrote it
_NEXT = [0]  # round-robin start index, process-wide


def _shared(url: str) -> _Shared:
    return _SHARED.setdefault(url, _Shared())


class SimulatorPool(httpx.AsyncBaseTransport):
    """An httpx transport spreading requests over simulator services (see the module docstring).

    Args:
        urls: Service roots; requests are addressed to the first (the client's ``base_url``).
        max_runs: Runs in flight per service; ``None`` decides per service (mock: no limit; else 1).
        verify: httpx ``verify=`` of the services' connections.
        lock_dir: Folder of the cross-process slot locks (default :func:`default_lock_dir`).
        dispatch_log: File receiving one JSON line per dispatched run (``url``, ``event``, ``t``).
    """

    def __init__(
        self,
        urls: Sequence[str],
        *,
        max_runs: int | None = None,
        verify: ssl.SSLContext | bool = True,
        lock_dir: Path | None = None,
        dispatch_log: Path | None = None,
    ) -> None:
        if not urls:
            raise ValueError("a simulator pool needs at least one service URL")
        if max_runs is not None and max_runs < 0:
            raise ValueError(f"max_runs must be >= 0 or None, got {max_runs}")
        self.urls = [u.rstrip("/") for u in urls]
        self.max_runs = max_runs
        self.lock_dir = lock_dir or default_lock_dir()
        self.dispatch_log = dispatch_log
        self._inner = {url: httpx.AsyncHTTPTransport(verify=verify) for url in self.urls}
        self._slots: dict[str, RunSlots] = {}

    async def aclose(self) -> None:
        for transport in self._inner.values():
            await transport.aclose()

    # -- routing ------------------------------------------------------------------------------------

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = self._route(request.url)
        if request.method == "POST" and path == RUN_PATH:
            return await self._run(request)
        if path in FILE_ROUTES:
            owner = _OWNERS.get(request.url.params.get("file_path", ""))
            if owner in self._inner:
                return await self._send(owner, request)
        return await self._first_alive(request)

    def _route(self, url: httpx.URL) -> str:
        """The route of a request addressed to the first service (its path prefix removed)."""
        prefix = httpx.URL(self.urls[0]).path.rstrip("/")
        return url.path[len(prefix) :] if prefix and url.path.startswith(prefix) else url.path

    def _order(self, skip: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """The live services, rotated so that successive requests start at different ones; when none is
        live, every service not in ``skip`` (a service out of the pool is retried only as a last resort)."""
        start = _NEXT[0] % len(self.urls)
        _NEXT[0] += 1
        rotated = [u for u in self.urls[start:] + self.urls[:start] if u not in skip]
        now = time.monotonic()
        live = [u for u in rotated if _shared(u).dead_until <= now]
        return live or rotated

    async def _first_alive(self, request: httpx.Request) -> httpx.Response:
        """Any request but a run: the first live service that accepts the connection."""
        error: httpx.TransportError | None = None
        for url in self._order():
            try:
                return await self._send(url, request)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                self._mark_dead(url, exc)
                error = exc
        assert error is not None
        raise error

    async def _run(self, request: httpx.Request) -> httpx.Response:
        """A simulation: on a live service with a free slot, started apart from the last start there."""
        body = await request.aread()
        timeout = request.extensions.get("timeout", {})
        deadline = time.monotonic() + float(timeout.get("pool") or 300.0)
        tried_dead: set[str] = set()
        while True:
            for url in self._order(skip=tried_dead):
                slots = await self._slots_of(url)
                fd = slots.try_acquire()
                if fd is None:
                    continue
                try:
                    await slots.spaced_start()
                    response = await self._send(url, request, body)
                    await response.aread()  # the run is over once its answer is in
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # never reached it: try another
                    self._mark_dead(url, exc)
                    tried_dead.add(url)
                    self._log(url, "unreachable", error=type(exc).__name__)
                    continue
                finally:
                    slots.release(fd)
                self._log(url, "run", status=response.status_code)
                self._remember_files(url, response)
                return response
            if len(tried_dead) == len(self.urls):
                raise httpx.ConnectError(f"no simulator service of the pool answers: {', '.join(self.urls)}")
            if time.monotonic() > deadline:
                raise httpx.PoolTimeout(f"no free run slot on {', '.join(self.urls)} in time")
            await asyncio.sleep(_POLL_S)

    async def _slots_of(self, url: str) -> RunSlots:
        slots = self._slots.get(url)
        if slots is None:
            limit = self.max_runs if self.max_runs is not None else await self._auto_limit(url)
            slots = self._slots[url] = RunSlots(url, limit, self.lock_dir)
        return slots

    async def _auto_limit(self, url: str) -> int:
        """0 (no limit) for this project's mock, 1 for any other service (asked once per process)."""
        shared = _shared(url)
        if shared.limit is None:
            probe = httpx.Request(
                "GET", url + "/health", extensions={"timeout": httpx.Timeout(5.0).as_dict()}
            )
            try:
                response = await self._inner[url].handle_async_request(probe)
                await response.aread()
                health = json.loads(response.content) if response.status_code == 200 else {}
            except (httpx.HTTPError, ValueError):
                return 1  # not known yet: the safe limit, asked again next time
            mock = isinstance(health, dict) and health.get("simulator") == "simulator_mock"
            shared.limit = 0 if mock else 1
        return shared.limit

    async def _send(self, url: str, request: httpx.Request, body: bytes | None = None) -> httpx.Response:
        """``request`` sent to ``url`` instead of the first service."""
        target = httpx.URL(url)
        path = target.path.rstrip("/") + self._route(request.url)
        moved = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port, path=path)
        headers = httpx.Headers(request.headers)
        headers["host"] = moved.netloc.decode("ascii")
        content = body if body is not None else await request.aread()
        forwarded = httpx.Request(
            request.method, moved, headers=headers, content=content, extensions=request.extensions
        )
        response = await self._inner[url].handle_async_request(forwarded)
        if response.status_code < 500 and _shared(url).dead_until:
            _shared(url).dead_until = 0.0  # answering again: back in the pool
        return response

    def _mark_dead(self, url: str, exc: Exception) -> None:
        shared = _shared(url)
        if shared.dead_until <= time.monotonic():
            logger.warning(
                "simulator %s unreachable (%s); out of the pool for %g s",
                url,
                type(exc).__name__,
                RETRY_DEAD_AFTER_S,
            )
        shared.dead_until = time.monotonic() + RETRY_DEAD_AFTER_S

    def _remember_files(self, url: str, response: httpx.Response) -> None:
        try:
            answer = json.loads(response.content)
        except ValueError:
            return
        if not isinstance(answer, dict):
            return
        for key in _PATH_KEYS:
            path = answer.get(key)
            if isinstance(path, str) and path:
                _OWNERS[path] = url
                _OWNERS.move_to_end(path)
        while len(_OWNERS) > _OWNERS_KEPT:
            _OWNERS.popitem(last=False)

    def _log(self, url: str, event: str, **extra: Any) -> None:
        if self.dispatch_log is None:
            return
        line = json.dumps(
            {"url": url, "event": event, "t": round(time.time(), 3), "pid": os.getpid(), **extra}
        )
        fd = os.open(self.dispatch_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())  # one write on O_APPEND: lines of processes never interleave
        finally:
            os.close(fd)


def pool_report(dispatch_log: Path, urls: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each service's share of a run's simulations, from the pool's dispatch log.

    Returns:
        ``{url: {"runs": n, "share": n / total, "unreachable": times it was taken out}}``.
    """
    counts = {url: {"runs": 0, "unreachable": 0} for url in urls}
    with contextlib.suppress(FileNotFoundError):
        for line in dispatch_log.read_text(encoding="utf-8").split("\n"):  # JSONL lines
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                slot = counts.setdefault(entry["url"], {"runs": 0, "unreachable": 0})
                slot["runs" if entry.get("event") == "run" else "unreachable"] += 1
    total = sum(c["runs"] for c in counts.values())
    return {url: {**c, "share": round(c["runs"] / total, 4) if total else 0.0} for url, c in counts.items()}
