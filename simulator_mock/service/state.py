"""State of a running service: settings, served schemas, engine workers, in-memory results, cancel slots and
the retention of the results folder; the routes reach it through :func:`current_service`."""

from __future__ import annotations

import asyncio
import heapq
import logging
import multiprocessing
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from operator import itemgetter
from pathlib import Path
from typing import Annotated, Any

import orjson
from fastapi import Depends, Request
from fastapi.responses import Response

from simulator_mock.flowsheet.schema_registry import SchemaCatalog
from simulator_mock.service.answers import error_response, run_failure
from simulator_mock.service.cancellation import CancelSlots, busy, init_cancellable_worker, run_cancellable
from simulator_mock.service.engine_pool import EnginePool, PoolBusy, WorkerDied, process_worker
from simulator_mock.service.retention import Retention, cap_stored_file
from simulator_mock.service.settings import Settings
from simulator_mock.service.worker import (
    RUN_FILES,
    Outcome,
    init_worker,
    read_result_file,
    warm,
    well_formed,
)

log = logging.getLogger(__name__)

ENGINE_MARGIN_S = 10.0
"""How long past its run budget a worker may stay busy before it is killed and replaced."""


def _engine_thread() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, initializer=init_worker, thread_name_prefix="engine")


class Service:
    """State of a running service: settings, served schemas, engine workers, in-memory results,
    cancel slots of the runs in flight, retention of the results folder."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.results_root = settings.results_dir.resolve()
        self.schemas = (
            SchemaCatalog.from_dir(settings.schema_dir)
            if settings.schema_dir is not None
            else SchemaCatalog.packaged()
        )
        self.results: OrderedDict[str, bytes] = OrderedDict()
        self.kept: deque[str] = deque()  # run ids with files in the results folder, oldest first
        self.pool: EnginePool | None = None
        self.threads_only = settings.workers == 0
        self.restarts_before = 0  # worker restarts of pools replaced earlier (thread fallback)
        self.slots: CancelSlots | None = None
        # The run count is bounded by prune() (max_runs_kept); the sweep adds the age limit and the
        # folder's size for /health.
        self.retention = Retention(self.results_root, max_runs=0, max_age_s=settings.retention_max_age_s)

    @property
    def warm(self) -> bool:
        """Whether every engine worker has loaded the engine."""
        return self.pool is not None and self.pool.is_warm

    def start(self) -> None:
        """Start the engine workers; they warm up in the background."""
        self.settings.results_dir.mkdir(parents=True, exist_ok=True)
        if not self.kept:  # runs left by an earlier service on this folder count against the bound
            self.adopt_unknown_runs()
        self.retention.sweep(force=True)
        self.pool = self._new_pool()

    def _new_pool(self) -> EnginePool:
        size = self.settings.max_in_flight
        if self.threads_only:
            self.slots = CancelSlots(size)
            return EnginePool(1, _engine_thread, warm)
        context = multiprocessing.get_context("spawn")
        slots = self.slots = CancelSlots(size, context)
        return EnginePool(
            self.settings.workers,
            lambda: process_worker(context, init_cancellable_worker, (slots.flags,)),
            warm,
        )

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the workers: cancel queued and running runs, wait for the workers, terminate stragglers.

        Safe to call twice and from every exit path (lifespan end, signal, start-up failure).
        """
        pool, self.pool = self.pool, None
        if pool is None:
            return
        self.restarts_before += pool.restarts
        if self.slots is not None:
            for slot in range(len(self.slots.flags)):
                self.slots.flags[slot] = 1  # running runs stop at their next time check
        processes = pool.shutdown()
        deadline = time.monotonic() + timeout_s
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                log.warning("engine worker %s did not stop; terminating it", process.pid)
                process.terminate()
                process.join(2.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)

    def _ensure_started(self) -> EnginePool:
        """The engine workers; started here, in thread mode, for an app used without lifespan events."""
        if self.pool is None:
            self.threads_only = True
            self.start()
        assert self.pool is not None
        return self.pool

    def _worker_died(self) -> None:
        """After a worker's death: its run's files are counted; if replacements keep dying in their warm-up,
        the service computes in a thread from then on."""
        self.adopt_unknown_runs()
        if self.pool is not None and self.pool.failed and not self.threads_only:
            log.error("engine workers keep dying while they start; serving from a thread from now on")
            self.stop()
            self.threads_only = True
            self.start()

    async def simulate(self, body: bytes) -> Outcome | Response:
        """Run one simulation on an engine worker; a worker that dies fails only the run it was computing.

        Bounded: the engine stops itself at ``request_timeout_s`` (a Timeout failure: the config's
        fault); a run that finds no idle worker within ``queue_wait_s``, or comes beyond ``max_in_flight``,
        is answered 503 (never started, safe to retry); a worker still busy 10 s past the budget is killed
        and replaced (an InternalError: the engine's fault). If the caller is cancelled (the client
        disconnected: see :mod:`simulator_mock.service.disconnect`) the run's cancel flag stops it at its next
        time check.

        The workers normally start with the app's lifespan. An app used without one (embedded behind
        ``httpx.ASGITransport``, which sends no lifespan events) simulates in a thread of its own process
        instead of starting child processes.
        """
        pool = self._ensure_started()
        assert self.slots is not None
        slots = self.slots
        slot = slots.acquire()
        if slot is None:
            return busy(f"{self.settings.max_in_flight} runs already in flight")
        limit = self.settings.request_timeout_s
        wait = self.settings.queue_wait_s
        flags = slots.flags if self.threads_only else None
        args = (slot, time.time() + wait, body, str(self.results_root), limit, flags)
        try:
            outcome: Outcome = await pool.run(
                wait,
                run_cancellable,
                *args,
                limit_s=limit + ENGINE_MARGIN_S,
                on_cancel=lambda: slots.cancel(slot),
                on_done=lambda: slots.release(slot),
            )
        except PoolBusy:
            return busy("no engine worker became free within the queue wait; not run")
        except WorkerDied:
            self._worker_died()
            return run_failure("InternalError", "the engine worker computing this run died; only it failed")
        except asyncio.CancelledError:
            log.info("client went away; run in slot %d cancelled", slot)
            raise
        if outcome.run_id is not None and outcome.run_id not in self.kept:  # adopted meanwhile: counted
            self.kept.append(outcome.run_id)
            self.prune()
        if outcome.run_id is not None and outcome.results is not None and self.settings.results_cache_size:
            self.results[outcome.run_id] = outcome.results
            while len(self.results) > self.settings.results_cache_size:
                self.results.popitem(last=False)
        await asyncio.to_thread(self._after_run, outcome)
        return outcome

    def adopt_unknown_runs(self) -> None:
        """Count the runs on disk the service was never told of (left by an earlier service, or by a worker
        that died mid-run) against ``max_runs_kept``, and prune.

        Runs are placed by age, the time their config file was written (then by id), not by id alone: a
        run's id carries the time an id source stamped, which need not be when it ran (ids drawn from a
        seed, spread over years). The runs already known keep the order they ran in, and come first among
        runs of the same time. A run adopted while in flight is not counted again when it ends.
        """
        known = set(self.kept)
        unknown: list[tuple[float, str]] = []
        for path in self.results_root.glob("config_*.json"):
            stem = path.name[len("config_") : -len(".json")]
            if well_formed(stem) and stem not in known:
                with suppress(OSError):  # deleted meanwhile: nothing to count
                    unknown.append((path.stat().st_mtime, stem))
        if unknown:
            merged = heapq.merge(self._aged_known(), sorted(unknown), key=itemgetter(0))
            self.kept = deque(run_id for _, run_id in merged)
            self.prune()

    def _aged_known(self) -> list[tuple[float, str]]:
        """The known runs in the order they ran, each with its config file's age (or that of the run before
        it, when its files are gone), so that :func:`heapq.merge` places the adopted ones among them."""
        aged: list[tuple[float, str]] = []
        last = float("-inf")
        for run_id in self.kept:
            with suppress(OSError):
                last = max(last, (self.results_root / f"config_{run_id}.json").stat().st_mtime)
            aged.append((last, run_id))
        return aged

    def prune(self) -> None:
        """Delete the files of the oldest runs beyond ``max_runs_kept``."""
        while len(self.kept) > self.settings.max_runs_kept:
            run_id = self.kept.popleft()
            self.results.pop(run_id, None)
            for pattern in RUN_FILES:
                try:
                    (self.results_root / pattern.format(run_id)).unlink(missing_ok=True)
                except OSError as exc:
                    log.warning("could not delete %s of run %s: %s", pattern, run_id, exc)

    def _after_run(self, outcome: Outcome) -> None:
        """Cap the stored copy of the request body and apply the retention policy."""
        cap = self.settings.max_stored_input_bytes
        if cap:
            with suppress(orjson.JSONDecodeError, TypeError, AttributeError):
                answer = orjson.loads(outcome.body)
                for key in ("config_file_path", "aspen_file_path"):
                    path = answer.get(key)
                    if isinstance(path, str) and path.endswith(".json"):
                        cap_stored_file(Path(path), cap)
        self.retention.sweep()

    def health_extras(self) -> dict[str, Any]:
        """What /health adds to the contract's keys: the engine workers as they are, load, the results folder.

        ``workers`` counts the engine worker processes alive now (0 when the service computes in a thread);
        ``worker_restarts`` how many died and were replaced.
        """
        stats = self.retention.stats
        pool = self.pool
        return {
            "workers": 0 if pool is None or self.threads_only else len(pool.processes()),
            "worker_restarts": self.restarts_before + (pool.restarts if pool is not None else 0),
            "warm": self.warm,
            "in_flight": self.slots.in_flight if self.slots is not None else 0,
            "cancelled_runs": self.slots.cancelled if self.slots is not None else 0,
            "run_budget_s": self.settings.request_timeout_s,
            "queue_wait_s": self.settings.queue_wait_s,
            "results_dir_bytes": stats.bytes,
            "results_dir_runs": stats.runs,
            "retention_deleted_runs": stats.deleted_runs,
        }

    async def read_results(self, run_id: str) -> bytes | None:
        """Results document of a run (its ``output_<run_id>.json``) from memory or disk; None if unknown."""
        cached = self.results.get(run_id)
        if cached is not None:
            return cached
        path = self.results_root / f"output_{run_id}.json"
        try:
            return await asyncio.to_thread(path.read_bytes)
        except OSError:
            return None

    def confine(self, file_path: str) -> Path | None:
        """``file_path`` resolved; None if it leaves the results folder.

        A relative path resolves against the service's working directory, as the real service's
        ``os.path.exists(file_path)`` does (a bare file name is not looked up in the results folder).
        Symbolic links are followed before the check, so a link inside the folder cannot lead out of it.
        """
        try:
            path = Path(file_path)
            resolved = (path if path.is_absolute() else Path.cwd() / path).resolve()
        except (OSError, RuntimeError, ValueError):  # e.g. a NUL byte, a symlink loop
            return None
        return resolved if resolved.is_relative_to(self.results_root) else None

    async def read_workbook(self, path: Path, shown_path: str) -> bytes | Response:
        """/get-aspen-result's answer for ``path``, read on an engine worker (pandas is slow to import).

        Bounded by ``workbook_read_timeout_s``: a worker still reading past it is killed and replaced, and
        the answer is the real service's 422 for a workbook it cannot read; no free worker: 503.
        """
        pool = self._ensure_started()
        limit = self.settings.workbook_read_timeout_s
        try:
            content: bytes = await pool.run(
                self.settings.queue_wait_s, read_result_file, str(path), shown_path, limit_s=limit
            )
        except PoolBusy:
            outcome = busy("no engine worker became free within the queue wait")
            return Response(outcome.body, status_code=outcome.status, media_type="application/json")
        except WorkerDied:
            self._worker_died()
            message = f"读取Excel文件失败: the workbook could not be read within {limit:g} s"
            return error_response(422, message, file_path=shown_path)
        return content


def current_service(request: Request) -> Service:
    """The :class:`Service` of the app serving ``request`` (a route dependency)."""
    service: Service = request.app.state.service
    return service


#: A route parameter that receives the running service.
ServiceDep = Annotated[Service, Depends(current_service)]
