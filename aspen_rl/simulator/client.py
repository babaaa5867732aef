"""Async HTTP client for the real Aspen service's routes (served alike by the mock)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import SecretStr

from aspen_rl.simulator.errors import (
    BUSY_STATUS,
    SimulatorHTTPError,
    SimulatorProtocolError,
    SimulatorUnavailable,
)
from aspen_rl.simulator.pool import SimulatorPool
from aspen_rl.tls import verify_option

logger = logging.getLogger(__name__)

SCHEMA_FORMATS = ("json", "list")
# Statuses of a run answer that carries the run's outcome: 200 success, 201 the simulation failed.
_RUN_ANSWER_STATUSES = frozenset({200, 201})
BUSY_BACKOFF_MAX_S = 2.0
"""Longest pause between two tries of a busy (503) service."""
DEFAULT_BUSY_WAIT_S = 25.0
"""How long a busy (503) service is retried by default: the mock's queue wait (20 s) and a margin."""
TOKEN_HEADER = "X-Aspen-Token"


class SimulatorSettings(Protocol):
    """The settings a client reads (``aspen_rl.settings.Settings`` has them); a protocol, so the client does
    not import the settings module (which sits above it: it composes every part's configuration)."""

    aspen_simulator_url: str
    simulator_timeout_s: float
    simulator_retries: int
    simulator_backoff_s: float
    simulator_busy_wait_s: float
    simulator_verify_tls: bool
    simulator_ca_bundle: Path | None
    simulator_token: SecretStr | None
    simulator_max_runs_per_service: int | None
    simulator_dispatch_log: Path | None

    @property
    def simulator_urls(self) -> list[str]: ...


class SimulatorClient:
    """Async client for the real Aspen service's routes (the mock serves the same ones).

    Routes: ``GET /health``, ``GET /api/schema``, ``GET /api/schema/list``, ``POST /run-aspen-simulation``,
    ``GET /get-aspen-result?file_path=``, ``GET /download?file_path=``. Reads are retried on connection
    errors, timeouts and HTTP 5xx with exponential backoff (``backoff_s * 2**attempt``); a simulation run
    is never sent twice (it is retried only when the connection was never established). A busy service
    (HTTP 503: no free engine worker, nothing started) is retried, runs included, with backoff for up to
    ``busy_wait_s``, as long as the service itself lets a run wait in its queue. Any other status is
    answered at once. Every error raised carries its typed failure (``exc.kind``).

    Args:
        base_url: Service root, e.g. ``http://localhost:8002``.
        timeout_s: Timeout of one attempt (connect, read, write, pool), in seconds; 300 by default, the
            real service's own test client's value (a real Aspen run can take minutes).
        retries: Extra attempts after the first one.
        backoff_s: Delay before the first retry; doubles on each further retry.
        busy_wait_s: How long to keep retrying a busy (503) service before giving up (``BUSY``).
        verify_tls: Verify HTTPS certificates (false skips verification).
        ca_bundle: PEM file of the certificates to trust instead of the default CA bundle (a self-signed
            real service: its own certificate).
        transport: Optional httpx transport (``httpx.ASGITransport(app)`` runs the mock in-process).
        token: Shared token sent as ``X-Aspen-Token`` (a mock bound beyond loopback may require it).
    """

    def __init__(
        self,
        base_url: str = "http://localhost:8002",
        *,
        timeout_s: float = 300.0,
        retries: int = 2,
        backoff_s: float = 0.5,
        busy_wait_s: float = DEFAULT_BUSY_WAIT_S,
        verify_tls: bool = True,
        ca_bundle: str | Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        token: str | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        if backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {backoff_s}")
        if busy_wait_s < 0:
            raise ValueError(f"busy_wait_s must be >= 0, got {busy_wait_s}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"simulator base_url must start with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout_s = float(timeout_s)
        self.retries = retries
        self.backoff_s = backoff_s
        self.busy_wait_s = float(busy_wait_s)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(self.timeout_s),
            verify=verify_option(verify_tls, ca_bundle),
            transport=transport,
            headers={"Accept": "application/json", **({TOKEN_HEADER: token} if token else {})},
        )

    @classmethod
    def from_settings(cls, settings: SimulatorSettings, **kwargs: Any) -> SimulatorClient:
        """A client configured from :class:`aspen_rl.settings.Settings` (keyword args override).

        Its requests go through a :class:`~aspen_rl.simulator.pool.SimulatorPool` over the settings'
        simulator URLs (per-service run limits, dead services taken out) unless a ``transport`` is given.
        """
        options: dict[str, Any] = {
            "timeout_s": settings.simulator_timeout_s,
            "retries": settings.simulator_retries,
            "backoff_s": settings.simulator_backoff_s,
            "busy_wait_s": settings.simulator_busy_wait_s,
            "verify_tls": settings.simulator_verify_tls,
            "ca_bundle": settings.simulator_ca_bundle,
            "token": settings.simulator_token.get_secret_value() if settings.simulator_token else None,
        }
        options.update(kwargs)
        urls = settings.simulator_urls
        if options.get("transport") is None:
            options["transport"] = SimulatorPool(
                urls,
                max_runs=settings.simulator_max_runs_per_service,
                verify=verify_option(options["verify_tls"], options["ca_bundle"]),
                dispatch_log=settings.simulator_dispatch_log,
            )
        return cls(urls[0], **options)

    async def __aenter__(self) -> SimulatorClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        await self._http.aclose()

    # -- transport with retries ---------------------------------------------------------------

    async def _request(
        self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any
    ) -> httpx.Response:
        """Send with retries and exponential backoff.

        Idempotent requests are retried on connection errors, timeouts and 5xx. A non-idempotent one
        (starting a simulation) is retried only when it was never sent (connection refused or not
        established) or the service said it never started it (503 busy): after a read timeout or another
        5xx, a retry would start the simulation again on a service that may still be running the first.
        Busy answers have their own budget (``busy_wait_s``), so a queue that drains in 20 s is waited for.
        """
        url = f"{self.base_url}{path}"
        loop = asyncio.get_running_loop()
        busy_until = loop.time() + self.busy_wait_s
        failures = busy = 0
        last_cause = ""
        response: httpx.Response | None = None
        while True:
            try:
                response = await self._http.request(method, path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # never reached the service
                last_cause, response = _cause(exc), None
            except httpx.TransportError as exc:  # read/write timeouts, dropped connections
                last_cause, response = _cause(exc), None
                if not idempotent:
                    raise SimulatorUnavailable(url, self.timeout_s, failures + busy + 1, last_cause) from exc
            else:
                if response.status_code == BUSY_STATUS:
                    busy += 1
                    delay = min(BUSY_BACKOFF_MAX_S, max(self.backoff_s, 0.05) * 2 ** (busy - 1))
                    if loop.time() + delay > busy_until:
                        raise SimulatorHTTPError(url, response.status_code, response.text)
                    logger.info("%s %s: service busy; retrying in %.2f s", method, url, delay)
                    await asyncio.sleep(delay)
                    continue
                if response.status_code < 500 or not idempotent:
                    return response
                last_cause = f"HTTP {response.status_code}"
            failures += 1
            if failures > self.retries:
                break
            delay = self.backoff_s * 2 ** (failures - 1)
            logger.info("retrying %s %s in %.2f s (%s)", method, url, delay, last_cause)
            await asyncio.sleep(delay)
        if response is not None:  # the last attempt got a 5xx
            raise SimulatorHTTPError(url, response.status_code, response.text)
        raise SimulatorUnavailable(url, self.timeout_s, failures + busy, last_cause)

    @staticmethod
    def _json_object(response: httpx.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise SimulatorProtocolError(
                f"{response.request.url} answered HTTP {response.status_code} with non-JSON body: "
                f"{response.text[:200]!r}"
            ) from exc
        if not isinstance(data, dict):
            raise SimulatorProtocolError(
                f"{response.request.url} answered a JSON {type(data).__name__}, expected an object"
            )
        return data

    async def _get_json(self, path: str, **kwargs: Any) -> dict[str, Any]:
        response = await self._request("GET", path, **kwargs)
        if response.status_code != 200:
            raise SimulatorHTTPError(str(response.request.url), response.status_code, response.text)
        return self._json_object(response)

    # -- contract -----------------------------------------------------------------------------

    async def health(self) -> dict[str, Any]:
        """``GET /health``: ``{"status": "ok", "timestamp", "aspen_available"}``."""
        return await self._get_json("/health")

    async def list_schemas(self) -> list[str]:
        """``GET /api/schema/list``: the schema part names (``base`` and one per block type).

        The service lists ``{"type", "file", "category", "description", "size"}`` entries; their
        ``type`` is the name ``get_schema`` accepts.
        """
        data = await self._get_json("/api/schema/list")
        entries = data.get("schemas")
        if not isinstance(entries, list):
            raise SimulatorProtocolError(f"/api/schema/list answered without a 'schemas' list: {data!r:.200}")
        return [str(e.get("type")) if isinstance(e, dict) else str(e) for e in entries]

    async def get_schema(
        self,
        types: list[str] | str = "base",
        format: str = "json",
    ) -> dict[str, Any]:
        """``GET /api/schema?types=...&format=...``: the config schema parts.

        Args:
            types: Part names (``["base", "Heater"]``, ``"Mixer,Heater"``), or ``"all"``.
            format: ``"json"`` (the schemas themselves) or ``"list"`` (what parts exist).

        Returns:
            The service's answer: ``{"success", "requested", "found", "schemas": {name: JSON Schema}}``
            and, when some parts are unknown, ``success: false`` with ``not_found`` and ``message``
            (still HTTP 200, as the real service answers).

        Raises:
            ValueError: No part named, or an unknown ``format``.
            SimulatorHTTPError: Any status other than 200.
        """
        if format not in SCHEMA_FORMATS:
            raise ValueError(f"format must be one of {list(SCHEMA_FORMATS)}, got {format!r}")
        parts = types.split(",") if isinstance(types, str) else list(types)
        cleaned = list(dict.fromkeys(str(t).strip() for t in parts if str(t).strip()))
        if not cleaned:
            raise ValueError("types must name at least one schema part, e.g. ['base', 'Heater']")
        return await self._get_json("/api/schema", params={"types": ",".join(cleaned), "format": format})

    async def run_simulation(self, config: dict[str, Any]) -> dict[str, Any]:
        """``POST /run-aspen-simulation``: run a flowsheet config.

        A simulation that fails is an answer, not an exception: HTTP 200 carries
        ``{"success": true, "aspen_file_path", "config_file_path", "result_file_path", "message"}``,
        HTTP 201 ``{"success": false, "error_type", "error_message", ...}`` (the mock adds
        ``error_code``); both are returned as they are. The request is never sent twice.

        Args:
            config: The flowsheet config in the real schema's dialect.

        Raises:
            SimulatorUnavailable: The service is down, or the request timed out once sent.
            SimulatorHTTPError: HTTP 400 (``{"error": ...}``: empty body), 413 (body too large),
                5xx, or any other status; ``.error_message`` holds the service's ``error`` text.
            SimulatorProtocolError: A 200/201 whose body is not a JSON object.
        """
        if not isinstance(config, dict):
            raise TypeError(f"config must be a dict, got {type(config).__name__}")
        response = await self._request("POST", "/run-aspen-simulation", idempotent=False, json=config)
        if response.status_code not in _RUN_ANSWER_STATUSES:
            raise SimulatorHTTPError(str(response.request.url), response.status_code, response.text)
        data = self._json_object(response)
        if response.status_code == 201 and data.get("success") is not False:
            data = {**data, "success": False}  # 201 is the failure status of this route
        return data

    async def get_result(self, result_file_path: str) -> dict[str, Any]:
        """``GET /get-aspen-result?file_path=``: the results workbook of a run, as JSON.

        Args:
            result_file_path: The ``result_file_path`` a successful run returned, as it was returned.

        Returns:
            ``{"status": "success", "file_info": {...}, "data": {sheet: {"row_count", "column_count",
            "column_names", "data": [records]}}}`` (read it with :mod:`aspen_rl.contract.workbook`).

        Raises:
            ValueError: The path is empty.
            SimulatorHTTPError: HTTP 400 (no file_path), 403 (outside the results folder), 404 (no such
                file), each ``{"error", "timestamp"}``; or a 5xx after all retries.
        """
        path = _file_path_argument(result_file_path, "result_file_path")
        return await self._get_json("/get-aspen-result", params={"file_path": path})

    async def download(self, file_path: str) -> bytes:
        """``GET /download?file_path=``: the bytes of a file the service wrote (workbook, .bkp, config).

        Raises:
            ValueError: The path is empty.
            SimulatorHTTPError: HTTP 400/403/404 ``{"error", "timestamp"}``, or a 5xx after all retries.
        """
        path = _file_path_argument(file_path, "file_path")
        response = await self._request("GET", "/download", params={"file_path": path})
        if response.status_code != 200:
            raise SimulatorHTTPError(str(response.request.url), response.status_code, response.text)
        return response.content


MAX_FILE_PATH = 4096
"""Longest file path sent to the service (Linux's PATH_MAX; Windows' long paths stop at 32,767)."""


def _file_path_argument(path: str, name: str) -> str:
    """A file path as sent to the service: blanks and surrounding quotes dropped, never empty."""
    if not isinstance(path, str):
        raise TypeError(f"{name} must be a string, got {type(path).__name__}")
    cleaned = path.strip().strip("\"'").strip()
    if not cleaned:
        raise ValueError(f"{name} is empty: pass the result_file_path a successful run returned")
    if len(cleaned) > MAX_FILE_PATH:  # no service path is this long; httpx would refuse the URL (a crash)
        raise ValueError(f"{name} has {len(cleaned)} characters, over {MAX_FILE_PATH}: not a returned path")
    return cleaned


def _cause(exc: httpx.TransportError) -> str:
    """A short reason for logs and errors: ``ReadTimeout``, ``ConnectError: [Errno 111] ...``."""
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
