"""HTTP service: the real Aspen service's routes, key for key, plus /api/results; runs in a worker pool.

Routes (as the real service answers them; see docs/simulator_contract.md):

* ``GET /health``: ``status``, ``timestamp``, ``aspen_available`` (false: no Aspen here) + mock extras.
* ``GET /api/schema?types=&format=``: ``success``, ``requested``, ``found``, ``schemas`` (+ ``not_found``,
  ``message`` when a type is unknown: still HTTP 200); ``format=list`` answers a listing instead.
* ``GET /api/schema/list``: ``success``, ``count``, ``schemas[{type, file, category, description, size}]``.
* ``POST /run-aspen-simulation``: 200 ``{success: true, aspen_file_path, config_file_path,
  result_file_path, message}`` (+ ``run_id``, ``warnings``); a config that fails: HTTP 201
  ``{success: false, aspen_file_path, config_file_path, error_type, error_message}`` (+ ``error_code``);
  empty body 400 ``{error}``; too large 413 ``{error}``.
* ``GET /get-aspen-result?file_path=``: the workbook as pandas reads it; 400 / 403 / 404
  ``{error, timestamp}``.
* ``GET /download?file_path=``: the file, only from the results folder and of the real allowed types.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import re
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from simulator_mock import __version__
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES, SchemaCatalog
from simulator_mock.service.auth import TokenAuth
from simulator_mock.service.cancellation import CancelSlots, busy, init_cancellable_worker, run_cancellable
from simulator_mock.service.disconnect import CancelOnDisconnect
from simulator_mock.service.engine_pool import EnginePool, PoolBusy, WorkerDied, process_worker
from simulator_mock.service.openapi import install_openapi
from simulator_mock.service.retention import Retention, cap_stored_file
from simulator_mock.service.settings import Settings
from simulator_mock.service.worker import (
    EMPTY_BODY,
    RUN_FAILED,
    RUN_FILES,
    RUN_ID_FORMAT,
    Outcome,
    answer_json,
    init_worker,
    read_result_file,
    warm,
)

log = logging.getLogger(__name__)
RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ENGINE = f"thermo {version('thermo')} + chemicals {version('chemicals')}"


#: The real service's folders (``BASE_DIR = D:/aspen`` on its Windows box) by the answer key they fill.
WINDOWS_FOLDERS = {
    "config_file_path": "configfile",
    "aspen_file_path": "bkpfile",
    "result_file_path": "resultfile",
}
WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]aspen[\\/](?:configfile|bkpfile|resultfile)[\\/]([^\\/]+)$", re.I)
WINDOWS_ROOT = "D:\\aspen"


def windows_answer(body: bytes) -> bytes:
    """A run answer with its file paths as the real service on Windows writes them
    (``D:\\aspen\\resultfile\\aspen_result_export_<id>.xlsx``)."""
    answer = orjson.loads(body)
    for key, folder in WINDOWS_FOLDERS.items():
        if isinstance(answer.get(key), str):
            answer[key] = f"{WINDOWS_ROOT}\\{folder}\\{Path(answer[key]).name}"
    return answer_json(answer)


def json_response(content: Any, status: int = 200) -> Response:
    """A JSON response, keys sorted as the real service's Flask sorts them."""
    return Response(answer_json(content), status_code=status, media_type="application/json")


def now() -> str:
    """The ``timestamp`` of an answer (ISO 8601, UTC)."""
    return datetime.now(UTC).isoformat()


def error_response(status: int, message: str, **extra: Any) -> Response:
    """The real service's error body outside the run route: ``{error, timestamp}`` (+ extra keys)."""
    return json_response({"error": message, **extra, "timestamp": now()}, status)


def run_failure(error_code: str, message: str) -> Response:
    """A run that broke down before the engine answered (timeout, crashed worker): HTTP 201, real shape."""
    body = {
        "success": False,
        "error_type": RUN_FAILED,
        "error_code": error_code,
        "error_message": f"{error_code}: {message}",
    }
    return json_response(body, 201)


#: The real /download route's allowed file types and their content types.
DOWNLOAD_TYPES: dict[str, str] = {
    ".bkp": "application/octet-stream",
    ".apw": "application/octet-stream",
    ".json": "application/json",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xls": "application/vnd.ms-excel",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".out": "text/plain",
    ".csv": "text/csv",
}


class NeverFail:
    """ASGI middleware: an exception escaping the app becomes a 422 ``{error, timestamp}``, never a 5xx."""

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
            response = error_response(422, f"InternalError: unexpected {type(exc).__name__}: {exc}")
            await response(scope, receive, send)


ENGINE_MARGIN_S = 10.0
"""How long past its run budget a worker may stay busy before it is killed and replaced."""


def _engine_thread() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, initializer=init_worker, thread_name_prefix="engine")


class PayloadTooLarge(Exception):
    """The request body exceeds the configured limit."""


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
        if outcome.run_id is not None:
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
        that died mid-run) against ``max_runs_kept``, oldest first, and prune."""
        known = set(self.kept)
        stems = (p.name[len("config_") : -len(".json")] for p in self.results_root.glob("config_*.json"))
        unknown = sorted(s for s in stems if RUN_ID_FORMAT.match(s) and s not in known)
        if unknown:
            self.kept = deque(sorted([*self.kept, *unknown]))
            self.prune()

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
        status = exc.status_code if exc.status_code < 500 else 422
        response = error_response(status, f"{request.method} {request.url.path}: {exc.detail}")
        response.headers.update(exc.headers or {})  # 405 names the allowed methods (Allow)
        return response

    @app.exception_handler(RequestValidationError)
    async def request_error(request: Request, exc: RequestValidationError) -> Response:
        return error_response(400, f"{request.url.path}: invalid request: {exc.errors()}")

    @app.get("/health")
    async def health() -> Response:
        """Liveness: answers as soon as the server is up (engine warm-up runs in the background)."""
        return json_response(
            {
                "status": "ok",
                "timestamp": now(),
                "aspen_available": False,
                "simulator": "simulator_mock",
                "engine": ENGINE,
                "version": __version__,
                **service.health_extras(),
            }
        )

    @app.get("/api/schema/list")
    async def schema_list() -> Response:
        """Every served schema file: type, file, category (base / block / other), description, size."""
        entries = sorted(service.schemas.entries(), key=lambda e: (e["category"], e["type"]))
        return json_response({"success": True, "count": len(entries), "schemas": entries})

    @app.get("/api/schema")
    async def schema_parts(request: Request) -> Response:
        """Schema documents: ``types`` one, several (comma-separated), ``base`` or ``all`` (default base);
        ``format=list`` answers the listing instead of the documents."""
        types = request.query_params.get("types", "base")
        if request.query_params.get("format", "json") == "list":
            entries = [
                {"type": e["type"], "file": e["file"], "description": e["description"]}
                for e in service.schemas.entries()
            ]
            entries.sort(key=lambda e: e["type"])
            return json_response({"success": True, "count": len(entries), "schemas": entries})
        if types.lower() == "all":
            requested = service.schemas.stems()
        else:
            requested = [t.strip() for t in types.split(",") if t.strip()]
        found: dict[str, Any] = {}
        not_found: list[str] = []
        for kind in requested:
            match = service.schemas.lookup(kind)
            if match is None:
                not_found.append(kind)
            else:
                found[match[0]] = match[1].content
        answer: dict[str, Any] = {
            "success": not not_found,
            "requested": requested,
            "found": len(found),
            "schemas": found,
        }
        if not_found:
            answer["not_found"] = not_found
            answer["message"] = f"部分 Schema 未找到: {', '.join(not_found)}"
        return json_response(answer)

    @app.post("/run-aspen-simulation")
    async def run_simulation(request: Request) -> Response:
        """Simulate the flowsheet config in the body (see GET /api/schema)."""
        try:
            async with asyncio.timeout(settings.body_timeout_s):
                body = await read_body(request, settings.max_body_bytes)
        except PayloadTooLarge:
            message = f"request body exceeds {settings.max_body_bytes} bytes; a flowsheet config is small"
            return json_response({"error": message}, 413)
        except TimeoutError:
            message = f"request body not received within {settings.body_timeout_s:g} s"
            return json_response({"error": message}, 408)
        if not body.strip():
            return json_response({"error": EMPTY_BODY}, 400)
        outcome = await service.simulate(body)
        if settings.run_delay_s:  # a real Aspen's pace, without holding an engine worker
            await asyncio.sleep(settings.run_delay_s)
        if isinstance(outcome, Response):
            return outcome
        body = windows_answer(outcome.body) if settings.windows_paths else outcome.body
        return Response(body, status_code=outcome.status, media_type="application/json")

    async def located(file_path: str | None) -> Path | Response:
        """The file a ``file_path`` query names, or the real service's 400 / 404 answer (403 outside)."""
        if not file_path:
            return error_response(400, "缺少必需参数: file_path")
        windows = WINDOWS_PATH.match(file_path) if settings.windows_paths else None
        path = service.confine(str(service.results_root / windows.group(1)) if windows else file_path)
        if path is None and not Path(file_path).is_absolute():
            # The real service looks a relative path up in its working directory and finds nothing there.
            return error_response(404, f"文件不存在: {file_path}")
        if path is None:
            return error_response(403, f"file_path is outside the simulator's results folder: {file_path}")
        try:
            exists = await asyncio.to_thread(path.exists)
        except OSError:
            exists = False
        if not exists:
            return error_response(404, f"文件不存在: {file_path}")
        return path

    @app.get("/get-aspen-result")
    async def get_aspen_result(file_path: str | None = None) -> Response:
        """A results workbook (a run's ``result_file_path``) as JSON: every sheet, as pandas reads it."""
        path = await located(file_path)
        if isinstance(path, Response):
            return path
        assert file_path is not None
        try:
            content = await service.read_workbook(path, file_path)
        except Exception as exc:
            return error_response(422, f"读取Excel文件失败: {exc}", file_path=file_path)
        if isinstance(content, Response):
            return content
        return Response(content, media_type="application/json")

    @app.get("/download")
    async def download(file_path: str | None = None) -> Response:
        """A file of the results folder (config, output or workbook of a run), as an attachment."""
        path = await located(file_path)
        if isinstance(path, Response):
            return path
        if not path.is_file():
            return error_response(400, f"路径不是文件: {file_path}")
        suffix = path.suffix.lower()
        if suffix not in DOWNLOAD_TYPES:
            return error_response(
                403, f"不允许下载此类型文件: {path.suffix}", allowed_types=sorted(DOWNLOAD_TYPES)
            )
        return FileResponse(path, media_type=DOWNLOAD_TYPES[suffix], filename=path.name)

    @app.get("/api/results/{run_id}")
    async def results(run_id: str) -> Response:
        """Extension: a run's full results document (its ``aspen_file_path``); no shipped client uses it."""
        content = await service.read_results(run_id) if RUN_ID.match(run_id) else None
        if content is None:
            return error_response(404, f"no results for run_id {run_id!r}")
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
                    "GET /get-aspen-result?file_path=<result_file_path>",
                    "GET /download?file_path=<a path the run returned>",
                    "GET /api/results/{run_id} (extension)",
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
