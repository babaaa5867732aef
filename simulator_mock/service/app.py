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

One router per concern under ``routes/``; the service's state (workers, results, retention) in ``state.py``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from simulator_mock import __version__
from simulator_mock.service.answers import error_response
from simulator_mock.service.auth import TokenAuth
from simulator_mock.service.disconnect import CancelOnDisconnect
from simulator_mock.service.openapi import install_openapi
from simulator_mock.service.routes import files, health, runs, schemas
from simulator_mock.service.settings import Settings
from simulator_mock.service.state import Service

log = logging.getLogger(__name__)


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


async def http_error(request: Request, exc: Exception) -> Response:
    """An HTTP error of the framework (404, 405, ...) in the real service's ``{error, timestamp}`` shape."""
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code if exc.status_code < 500 else 422
    response = error_response(status, f"{request.method} {request.url.path}: {exc.detail}")
    response.headers.update(exc.headers or {})  # 405 names the allowed methods (Allow)
    return response


async def request_error(request: Request, exc: Exception) -> Response:
    """A request FastAPI cannot validate: the real service's 400."""
    assert isinstance(exc, RequestValidationError)
    return error_response(400, f"{request.url.path}: invalid request: {exc.errors()}")


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
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, request_error)
    for routes in (health, schemas, runs, files):
        app.include_router(routes.router)
    app.add_middleware(CancelOnDisconnect, paths=frozenset({"/run-aspen-simulation"}))
    app.add_middleware(NeverFail)
    token = settings.token.get_secret_value() if settings.token is not None else ""
    if token:
        app.add_middleware(TokenAuth, token=token)
    install_openapi(app, token=bool(token))
    return app
