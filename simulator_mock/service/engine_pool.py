"""The engine workers: one executor per worker, one job each at a time; a crashed worker is replaced alone.

A shared ``ProcessPoolExecutor`` fails *every* job in flight when one worker dies (the pool is broken for
all of them). Here each worker is a one-process executor of its own: a job waits (up to the service's queue
wait) for an idle worker, runs there, and when that worker dies only its own job fails; the worker is
replaced and the others carry on. A job past its time limit can be stopped for good by killing its worker
(its replacement is started at once). In thread mode (``workers=0``, or an app run without lifespan events)
there is one engine thread and nothing to replace.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from typing import Any

log = logging.getLogger(__name__)

START_FAILURES_ALLOWED = 3
"""Replacement workers in a row that die during their warm-up: past it processes are given up (threads)."""


class PoolBusy(Exception):
    """No worker became idle within the wait: nothing was run."""


class WorkerDied(Exception):
    """The worker running the job died (crashed, was killed, or was stopped past its time limit)."""


class EnginePool:
    """``size`` single-job executors made by ``factory``, handed out one job at a time.

    Args:
        size: Number of workers.
        factory: Makes one worker's executor (a one-process ``ProcessPoolExecutor``, or one thread).
        warm: A picklable no-op each new worker runs first (it starts the process and its initializer).
    """

    def __init__(self, size: int, factory: Callable[[], Executor], warm: Callable[[], Any]) -> None:
        self.size = size
        self.factory = factory
        self.warm = warm
        self.workers: list[Executor] = [factory() for _ in range(size)]
        self.warming: list[Future[Any]] = [worker.submit(warm) for worker in self.workers]
        self.restarts = 0
        self.start_failures = 0
        """Replacement workers in a row that died during their warm-up (workers that cannot even start)."""
        self._idle: asyncio.Queue[int] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def is_warm(self) -> bool:
        """Whether every worker has finished its warm-up."""
        return all(f.done() for f in self.warming)

    def processes(self) -> list[BaseProcess]:
        """The live worker processes (none in thread mode)."""
        found: list[BaseProcess] = []
        for worker in self.workers:
            table = getattr(worker, "_processes", None)  # ProcessPoolExecutor: {pid: Process}
            if isinstance(table, dict):
                found += [p for p in table.values() if p.is_alive()]
        return found

    def _queue(self) -> asyncio.Queue[int]:
        loop = asyncio.get_running_loop()
        if self._idle is None or self._loop is not loop:
            self._loop, self._idle = loop, asyncio.Queue()
            for index in range(self.size):
                self._idle.put_nowait(index)
        return self._idle

    async def run(
        self,
        wait_s: float,
        fn: Callable[..., Any],
        *args: Any,
        limit_s: float | None = None,
        on_cancel: Callable[[], None] | None = None,
        on_done: Callable[[], None] | None = None,
    ) -> Any:
        """Run ``fn(*args)`` on the next idle worker; its result.

        Args:
            wait_s: Longest wait for an idle worker.
            fn: A picklable function (it runs in the worker).
            limit_s: Longest time the job may take; past it ``on_cancel`` is called and its worker killed
                and replaced (a process worker; a thread can only be abandoned).
            on_cancel: Asks a started job to stop (the caller was cancelled, or the job is overdue).
            on_done: Called once the job has ended, or at once when none was started.

        Raises:
            PoolBusy: No worker became idle within ``wait_s``.
            WorkerDied: The worker died during the job, or was killed past ``limit_s``.
            asyncio.CancelledError: The caller was cancelled; a started job frees its worker when it ends.
        """
        done_once = _Once(on_done)
        idle = self._queue()
        getter = asyncio.ensure_future(idle.get())
        try:
            finished, _ = await asyncio.wait({getter}, timeout=wait_s)
        except asyncio.CancelledError:
            self._give_back(getter)
            done_once()
            raise
        if not finished:
            self._give_back(getter)
            done_once()
            raise PoolBusy
        index = getter.result()
        worker = self.workers[index]
        try:
            future = worker.submit(fn, *args)
        except (BrokenExecutor, RuntimeError):  # died while idle, or shutting down
            self._replace(index, worker)
            idle.put_nowait(index)
            done_once()
            raise WorkerDied from None
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda f: self._tell_loop(loop, index, worker, f, done_once))
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), limit_s)
        except asyncio.CancelledError:
            if not future.cancel() and on_cancel is not None:  # already running: ask it to stop
                on_cancel()
            raise
        except TimeoutError:
            elapsed = time.monotonic() - started
            log.error("job on worker %d ran past %.1f s; stopping the worker", index, elapsed)
            if on_cancel is not None:
                on_cancel()
            self._kill(worker)
            self._replace(index, worker)
            raise WorkerDied from None
        except BrokenExecutor:
            raise WorkerDied from None

    def _give_back(self, getter: asyncio.Future[int]) -> None:
        """Cancel a wait for a worker; a worker it got just as the wait ended goes back to the queue."""
        getter.cancel()
        if getter.done() and not getter.cancelled() and self._idle is not None:
            self._idle.put_nowait(getter.result())

    def _tell_loop(
        self,
        loop: asyncio.AbstractEventLoop,
        index: int,
        worker: Executor,
        future: Future[Any],
        done: Callable[[], None],
    ) -> None:
        """From the worker's thread: hand :meth:`_job_done` to the service's loop. A job abandoned past its
        limit (a thread cannot be killed) may end after the service and its loop are gone: nothing is left
        to hand back then."""
        try:
            loop.call_soon_threadsafe(self._job_done, index, worker, future, done)
        except RuntimeError:  # the loop is closed
            return

    def _job_done(self, index: int, worker: Executor, future: Future[Any], done: Callable[[], None]) -> None:
        """A job ended: replace its worker if it died, hand the (new) worker out again, tell the caller."""
        if not future.cancelled() and isinstance(future.exception(), BrokenExecutor):
            self._replace(index, worker)
        if self._idle is not None:
            self._idle.put_nowait(index)
        done()

    def _replace(self, index: int, worker: Executor) -> None:
        """Start a new worker in place of ``worker`` (once, however many of its jobs report its death)."""
        if self.workers[index] is not worker:
            return
        self.restarts += 1
        log.error("engine worker %d died; starting a replacement (%d so far)", index, self.restarts)
        worker.shutdown(wait=False, cancel_futures=True)
        self.workers[index] = replacement = self.factory()
        warming = replacement.submit(self.warm)
        self.warming[index] = warming
        loop = self._loop
        if loop is not None:  # the verdict is handled in the loop's thread (workers are started from there)
            warming.add_done_callback(
                lambda f: loop.call_soon_threadsafe(self._warmed, index, replacement, f)
            )

    def _warmed(self, index: int, worker: Executor, future: Future[Any]) -> None:
        """A replacement's warm-up ended: a worker that died in it is replaced again, up to a limit."""
        if future.cancelled() or not isinstance(future.exception(), BrokenExecutor):
            self.start_failures = 0
            return
        self.start_failures += 1
        if not self.failed:
            self._replace(index, worker)

    @property
    def failed(self) -> bool:
        """Whether workers keep dying during their warm-up (processes cannot run here)."""
        return self.start_failures >= START_FAILURES_ALLOWED

    @staticmethod
    def _kill(worker: Executor) -> None:
        table = getattr(worker, "_processes", None)
        for process in list(table.values()) if isinstance(table, dict) else []:
            process.kill()

    def shutdown(self) -> list[BaseProcess]:
        """Stop taking jobs and cancel queued ones; returns the worker processes to wait for."""
        processes = self.processes()
        for worker in self.workers:
            worker.shutdown(wait=False, cancel_futures=True)
        return processes


class _Once:
    """A callback that runs at most once (``None``: nothing)."""

    def __init__(self, callback: Callable[[], None] | None) -> None:
        self._callback = callback

    def __call__(self) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            callback()


def process_worker(context: Any, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> Executor:
    """One worker process (``spawn``), set up by ``initializer(*initargs)``."""
    return ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=initializer, initargs=initargs)
