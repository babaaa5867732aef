"""HTTP service: the real Aspen service's endpoints plus /api/results, simulations in a worker pool."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from simulator_mock import __version__
from simulator_mock.auth import TokenAuth
from simulator_mock.cancellation import CancelSlots, busy, init_cancellable_worker, run_cancellable
from simulator_mock.disconnect import CancelOnDisconnect
from simulator_mock.errors import TimeLimitError
from simulator_mock.openapi import install_openapi
from simulator_mock.retention import Retention, cap_stored_file
from simulator_mock.schema_registry import BLOCK_TYPES, SCHEMA_PARTS, schema
from simulator_mock.settings import Settings
from simulator_mock.worker import Outcome, init_worker, warm

log = logging.getLogger(__name__)
RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ENGINE = f"thermo {version('thermo')} + chemicals {version('chemicals')}"


def json_response(content: Any, status: int = 200) -> Response:
    """A JSON response serialised with orjson."""
    return Response(orjson.dumps(content), status_code=status, media_type="application/json")


def error_response(status: int, error_type: str, message: str, **extra: Any) -> Response:
    """The contract's failure body: success false, error_type, error_message."""
    return json_response(
        {"success": False, "error_type": error_type, "error_message": message, **extra}, status
    )


class NeverFail:
    """ASGI middleware: an exception escaping the app becomes a JSON 422 InternalError, never a 5xx."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            log.exception("unhandled error on %s", scope.get("path"))
            if started:
                raise
            response = error_response(422, "InternalError", f"unexpected {type(exc).__name__}: {exc}")
            await response(scope, receive, send)


class PayloadTooLarge(Exception):
    """The request body exceeds the configured limit."""


class Service:
    """State of a running service: settings, engine executor, in-memory results, cancel slots, retention."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.results: OrderedDict[str, bytes] = OrderedDict()
        self.executor: Executor | None = None
        self.warm = False
        self.threads_only = settings.workers == 0
        self.crashes = 0
        self.slots: CancelSlots | None = None
        self.retention = Retention(
            Path(settings.results_dir), settings.retention_max_runs, settings.retention_max_age_s
        )

    def start(self) -> None:
        """Start the engine pool and warm its workers up in the background."""
        self.settings.results_dir.mkdir(parents=True, exist_ok=True)
        self.retention.sweep(force=True)
        self.executor = self._new_executor()
        self.warm = False
        count = 1 if self.threads_only else self.settings.workers
        futures = [self.executor.submit(warm) for _ in range(count)]

        def done(_: Any) -> None:
            self.warm = all(f.done() for f in futures)

        for future in futures:
            future.add_done_callback(done)

    def _new_executor(self) -> Executor:
        size = self.settings.max_in_flight
        if self.threads_only:
            self.slots = CancelSlots(size)
            return ThreadPoolExecutor(max_workers=1, initializer=init_worker, thread_name_prefix="engine")
        context = multiprocessing.get_context("spawn")
        self.slots = CancelSlots(size, context)
        return ProcessPoolExecutor(
            max_workers=self.settings.workers,
            mp_context=context,
            initializer=init_cancellable_worker,
            initargs=(self.slots.flags,),
        )

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the pool: cancel queued and running runs, wait for the workers, terminate stragglers.

        Safe to call twice and from every exit path (lifespan end, signal, start-up failure).
        """
        executor, self.executor = self.executor, None
        if executor is None:
            return
        if self.slots is not None:
            for slot in range(len(self.slots.flags)):
                self.slots.flags[slot] = 1  # running runs stop at their next time check
        workers = getattr(executor, "_processes", None)  # ProcessPoolExecutor: {pid: Process}
        processes = list(workers.values()) if isinstance(workers, dict) else []
        executor.shutdown(wait=False, cancel_futures=True)
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

    async def simulate(self, body: bytes) -> Outcome:
        """Run one simulation in the pool; a crashed pool is replaced and reported as InternalError.

        Bounded: the engine stops itself at ``request_timeout_s`` (a Timeout failure: the config's
        fault); a run not started within ``queue_wait_s``, or beyond ``max_in_flight``, is answered
        503 (never started, safe to retry). If the caller is cancelled (the client disconnected:
        see :mod:`simulator_mock.disconnect`) the run's cancel flag stops it at its next time check.

        The pool normally starts with the app's lifespan. An app used without one (embedded behind
        ``httpx.ASGITransport``, which sends no lifespan events) simulates in a thread of its own process
        instead of starting child processes.
        """
        if self.executor is None:
            self.threads_only = True
            self.start()
        assert self.slots is not None
        slots = self.slots
        slot = slots.acquire()
        if slot is None:
            return busy(f"{self.settings.max_in_flight} runs already in flight")
        loop = asyncio.get_running_loop()
        limit = self.settings.request_timeout_s
        wait = self.settings.queue_wait_s
        try:
            concurrent = self.executor.submit(  # type: ignore[union-attr]
                run_cancellable,
                slot,
                time.time() + wait,
                body,
                str(self.settings.results_dir),
                limit,
                slots.flags if self.threads_only else None,
            )
        except RuntimeError:  # the pool is shutting down
            slots.release(slot)
            return busy("the service is stopping")
        concurrent.add_done_callback(lambda _: slots.release(slot))
        future = asyncio.wrap_future(concurrent, loop=loop)
        try:  # the engine stops itself at the limit; the extra seconds cover a queue wait
            outcome = await asyncio.wait_for(asyncio.shield(future), limit + wait + 10.0)
        except TimeoutError:
            slots.cancel(slot)
            message = f"no answer from the engine after {limit + wait + 10:g} s; run cancelled"
            return Outcome(422, orjson.dumps(TimeLimitError(message).to_response()))
        except asyncio.CancelledError:
            if not concurrent.cancel():  # already queued to or running in a worker
                slots.cancel(slot)
            log.info("client went away; run in slot %d cancelled", slot)
            raise
        except BrokenProcessPool:
            self.crashes += 1
            self.threads_only = self.crashes >= 2  # workers that cannot even start: serve from a thread
            log.error("engine pool broke; restarting it%s", " in thread mode" if self.threads_only else "")
            self.stop()
            self.start()
            body = {"success": False, "error_type": "InternalError", "error_message": "engine worker crashed"}
            return Outcome(422, orjson.dumps(body))
        if outcome.run_id is not None and outcome.results is not None and self.settings.results_cache_size:
            self.results[outcome.run_id] = outcome.results
            while len(self.results) > self.settings.results_cache_size:
                self.results.popitem(last=False)
        await asyncio.to_thread(self._after_run, outcome)
        return outcome

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
        """What /health adds to the contract's keys: load and the results folder's size."""
        stats = self.retention.stats
        return {
            "in_flight": self.slots.in_flight if self.slots is not None else 0,
            "cancelled_runs": self.slots.cancelled if self.slots is not None else 0,
            "run_budget_s": self.settings.request_timeout_s,
            "queue_wait_s": self.settings.queue_wait_s,
            "results_dir_bytes": stats.bytes,
            "results_dir_runs": stats.runs,
            "retention_deleted_runs": stats.deleted_runs,
        }

    async def read_results(self, run_id: str) -> bytes | None:
        """Results document of a run from memory or from its file; None if unknown."""
        cached = self.results.get(run_id)
        if cached is not None:
            return cached
        path = Path(self.settings.results_dir) / f"{run_id}.json"
        try:
            return await asyncio.to_thread(path.read_bytes)
        except OSError:
            return None


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes without reading it all."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise PayloadTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the FastAPI app (the pool starts with the app's lifespan).

    Args:
        settings: service settings; defaults from the environment.
    """
    settings = settings or Settings()
    service = Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        try:
            yield
        finally:
            service.stop()

    app = FastAPI(
        title="aspen_rl simulator mock",
        version=__version__,
        description="Aspen-Plus-compatible flowsheet simulation, real thermodynamics (thermo + chemicals).",
        lifespan=lifespan,
    )
    app.state.service = service

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        kinds = {404: "NotFound", 405: "MethodNotAllowed"}
        status = exc.status_code if exc.status_code < 500 else 422
        response = error_response(
            status, kinds.get(exc.status_code, "HTTPError"), f"{request.url.path}: {exc.detail}"
        )
        response.headers.update(exc.headers or {})  # 405 names the allowed methods (Allow)
        return response

    @app.exception_handler(RequestValidationError)
    async def request_error(request: Request, exc: RequestValidationError) -> Response:
        return error_response(400, "InvalidRequest", f"{request.url.path}: {exc.errors()}")

    @app.get("/health")
    async def health() -> Response:
        """Liveness: answers as soon as the server is up (engine warm-up runs in the background)."""
        return json_response(
            {
                "status": "ok",
                "timestamp": datetime.now(UTC).isoformat(),
                "aspen_available": False,
                "engine": ENGINE,
                "version": __version__,
                "workers": settings.workers,
                "warm": service.warm,
                **service.health_extras(),
            }
        )

    @app.get("/api/schema/list")
    async def schema_list() -> Response:
        """Names of the schema parts: base and one per supported block type."""
        return json_response({"schemas": list(SCHEMA_PARTS)})

    @app.get("/api/schema")
    async def schema_parts(types: str | None = None, format: str = "json") -> Response:
        """JSON Schemas of the requested parts (comma-separated; all parts when omitted)."""
        if format.lower() != "json":
            return error_response(400, "UnsupportedFormat", f"format {format!r} is not supported; use json")
        wanted = [t.strip() for t in types.split(",") if t.strip()] if types else list(SCHEMA_PARTS)
        by_lower = {p.lower(): p for p in SCHEMA_PARTS}
        unknown = [t for t in wanted if t.lower() not in by_lower]
        if unknown or not wanted:
            return error_response(
                400,
                "UnknownSchemaType",
                f"unknown schema type(s): {', '.join(unknown) or '(none given)'}; valid: "
                f"{', '.join(SCHEMA_PARTS)}",
                valid_types=list(SCHEMA_PARTS),
            )
        return json_response({"schemas": {by_lower[t.lower()]: schema(by_lower[t.lower()]) for t in wanted}})

    @app.post("/run-aspen-simulation")
    async def run_simulation(request: Request) -> Response:
        """Simulate the flowsheet config in the body (see GET /api/schema)."""
        try:
            body = await read_body(request, settings.max_body_bytes)
        except PayloadTooLarge:
            return error_response(
                413,
                "PayloadTooLarge",
                f"request body exceeds {settings.max_body_bytes} bytes; configs are small",
            )
        outcome = await service.simulate(body)
        return Response(outcome.body, status_code=outcome.status, media_type="application/json")

    @app.get("/api/results/{run_id}")
    async def results(run_id: str) -> Response:
        """Full results document of a run (the same document as its result_file_path)."""
        content = await service.read_results(run_id) if RUN_ID.match(run_id) else None
        if content is None:
            return error_response(404, "UnknownRun", f"no results for run_id {run_id!r}")
        return Response(content, media_type="application/json")

    @app.get("/")
    async def index() -> Response:
        """Endpoint overview."""
        return json_response(
            {
                "service": "aspen_rl simulator mock",
                "endpoints": [
                    "GET /health",
                    "GET /api/schema/list",
                    "GET /api/schema?types=base,Heater&format=json",
                    "POST /run-aspen-simulation",
                    "GET /api/results/{run_id}",
                ],
                "block_types": list(BLOCK_TYPES),
            }
        )

    app.add_middleware(CancelOnDisconnect, paths=frozenset({"/run-aspen-simulation"}))
    app.add_middleware(NeverFail)
    token = settings.token.get_secret_value() if settings.token is not None else ""
    if token:
        app.add_middleware(TokenAuth, token=token)
    install_openapi(app, token=bool(token))
    return app
