"""Async HTTP client for the simulator contract (mock or real Aspen service)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from aspen_rl.simulator.errors import (
    SimulatorHTTPError,
    SimulatorProtocolError,
    SimulatorUnavailable,
)
from aspen_rl.tls import verify_option

if TYPE_CHECKING:
    from aspen_rl.settings import Settings

logger = logging.getLogger(__name__)

# Statuses the run endpoint uses for "the simulation did not succeed" answers (contract):
# 400 invalid input, 413 body too large, 422 could not be solved.
_RUN_FAILURE_STATUSES = frozenset({400, 413, 422})
# The mock answers 503 to a run it refused before starting it (busy): retried even for a run.
_NOT_STARTED = 503
TOKEN_HEADER = "X-Aspen-Token"


def run_id_from(run_id_or_path: str) -> str:
    """The run id named by a run id or a result file path (Windows or POSIX): its file stem.

    Args:
        run_id_or_path: ``"3f2a..."``, ``"/srv/results/3f2a.json"`` or ``"C:\\\\results\\\\3f2a.json"``.

    Returns:
        The run id (``"3f2a..."``).

    Raises:
        ValueError: The reference is empty.
    """
    text = str(run_id_or_path).strip().strip("\"'")
    name = PureWindowsPath(text).name  # splits on both "/" and "\\"
    if name.lower().endswith(".json"):
        name = name[: -len(".json")]
    if not name:
        raise ValueError(f"run_id is empty (got {run_id_or_path!r})")
    return name


class SimulatorClient:
    """Async client for the simulator service (``/health``, ``/api/schema``, ``/run-aspen-simulation``,
    ``/api/results/{run_id}``).

    Connection errors, timeouts and HTTP 5xx are retried with exponential backoff
    (``backoff_s * 2**attempt``); any other status is answered at once.

    Args:
        base_url: Service root, e.g. ``http://localhost:8002``.
        timeout_s: Timeout of one attempt (connect, read, write, pool), in seconds.
        retries: Extra attempts after the first one.
        backoff_s: Delay before the first retry; doubles on each further retry.
        verify_tls: Verify HTTPS certificates (set false for a self-signed real service).
        transport: Optional httpx transport (``httpx.ASGITransport(app)`` runs the mock in-process).
        token: Shared token sent as ``X-Aspen-Token`` (a mock bound beyond loopback may require it).
    """

    def __init__(
        self,
        base_url: str = "http://localhost:8002",
        *,
        timeout_s: float = 90.0,
        retries: int = 2,
        backoff_s: float = 0.5,
        verify_tls: bool = True,
        transport: httpx.AsyncBaseTransport | None = None,
        token: str | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        if backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {backoff_s}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"simulator base_url must start with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout_s = float(timeout_s)
        self.retries = retries
        self.backoff_s = backoff_s
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(self.timeout_s),
            verify=verify_option(verify_tls),
            transport=transport,
            headers={"Accept": "application/json", **({TOKEN_HEADER: token} if token else {})},
        )

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> SimulatorClient:
        """A client configured from :class:`aspen_rl.settings.Settings` (keyword args override)."""
        options: dict[str, Any] = {
            "timeout_s": settings.simulator_timeout_s,
            "retries": settings.simulator_retries,
            "backoff_s": settings.simulator_backoff_s,
            "verify_tls": settings.simulator_verify_tls,
            "token": settings.simulator_token.get_secret_value() if settings.simulator_token else None,
        }
        options.update(kwargs)
        return cls(settings.aspen_simulator_url, **options)

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
        established): after a read timeout or a 5xx, a retry would start the simulation again on a
        service that may still be running the first one.
        """
        url = f"{self.base_url}{path}"
        attempts = self.retries + 1
        last_cause = ""
        response: httpx.Response | None = None
        for attempt in range(attempts):
            if attempt:
                delay = self.backoff_s * 2 ** (attempt - 1)
                logger.info("retrying %s %s in %.2f s (%s)", method, url, delay, last_cause)
                await asyncio.sleep(delay)
            try:
                response = await self._http.request(method, path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # never reached the service
                last_cause, response = _cause(exc), None
                continue
            except httpx.TransportError as exc:  # read/write timeouts, dropped connections
                last_cause, response = _cause(exc), None
                if not idempotent:
                    raise SimulatorUnavailable(url, self.timeout_s, attempt + 1, last_cause) from exc
                continue
            if response.status_code >= 500 and (idempotent or response.status_code == _NOT_STARTED):
                last_cause = f"HTTP {response.status_code}"
                continue
            return response
        if response is not None:  # the last attempt got a 5xx
            raise SimulatorHTTPError(url, response.status_code, response.text)
        raise SimulatorUnavailable(url, self.timeout_s, attempts, last_cause)

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
        """``GET /health``: ``{"status": "ok", "timestamp", "aspen_available", ...}``."""
        return await self._get_json("/health")

    async def list_schemas(self) -> list[str]:
        """``GET /api/schema/list``: names of the schema parts (``base`` and one per block type)."""
        data = await self._get_json("/api/schema/list")
        names = data.get("schemas")
        if not isinstance(names, list):
            raise SimulatorProtocolError(f"/api/schema/list answered without a 'schemas' list: {data!r:.200}")
        return [str(n) for n in names]

    async def get_schema(self, types: list[str]) -> dict[str, Any]:
        """``GET /api/schema?types=...&format=json``: JSON Schemas of the requested parts.

        Args:
            types: Schema part names, e.g. ``["base", "Heater"]``.

        Returns:
            ``{"schemas": {name: JSON Schema}}``.

        Raises:
            SimulatorHTTPError: e.g. HTTP 400 for an unknown type (``.json`` holds ``valid_types``).
        """
        cleaned = [str(t).strip() for t in types if str(t).strip()]
        if not cleaned:
            raise ValueError("types must name at least one schema part, e.g. ['base', 'Heater']")
        return await self._get_json("/api/schema", params={"types": ",".join(cleaned), "format": "json"})

    async def run_simulation(self, config: dict[str, Any]) -> dict[str, Any]:
        """``POST /run-aspen-simulation``: run a flowsheet config.

        A simulation that fails is an answer, not an exception: the service's JSON is returned
        whether ``success`` is true or false.

        Args:
            config: The flowsheet config (see ``docs/simulator_contract.md``).

        Returns:
            ``{"success": true, "run_id", "result_file_path", ...}`` or
            ``{"success": false, "error_type", "error_message"}``.

        Raises:
            SimulatorUnavailable: The service is down or timed out after all retries.
            SimulatorHTTPError: Any other unexpected status (404, 405, 5xx after retries...).
        """
        if not isinstance(config, dict):
            raise TypeError(f"config must be a dict, got {type(config).__name__}")
        response = await self._request("POST", "/run-aspen-simulation", idempotent=False, json=config)
        if response.status_code == 200 or response.status_code in _RUN_FAILURE_STATUSES:
            try:
                data = self._json_object(response)
            except SimulatorProtocolError:
                if response.status_code == 200:
                    raise
                raise SimulatorHTTPError(
                    str(response.request.url), response.status_code, response.text
                ) from None
            if response.status_code != 200 and data.get("success") is not False:
                data = {"success": False, **data}
            return data
        raise SimulatorHTTPError(str(response.request.url), response.status_code, response.text)

    async def get_results(self, run_id_or_path: str) -> dict[str, Any]:
        """``GET /api/results/{run_id}``: the full results document of a run.

        Args:
            run_id_or_path: A run id, or the ``result_file_path`` the run returned (its stem is the id).

        Raises:
            SimulatorHTTPError: e.g. HTTP 404 for an unknown run id.
        """
        run_id = run_id_from(run_id_or_path)
        return await self._get_json(f"/api/results/{quote(run_id, safe='')}")


def _cause(exc: httpx.TransportError) -> str:
    """A short reason for logs and errors: ``ReadTimeout``, ``ConnectError: [Errno 111] ...``."""
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
