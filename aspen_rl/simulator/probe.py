"""Is a simulator URL usable? Checked before any rollout: reachable, certificate trusted, speaks the contract.

A run never replaces a simulator the user named: it uses it or stops with the reason this check gives
(certificate not trusted, nothing listening, no answer, or something that answers ``/health`` but not
``/api/schema/list`` as the Aspen service does).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from aspen_rl.simulator.client import TOKEN_HEADER
from aspen_rl.tls import CERTIFICATE_FIXES, verify_option


@dataclass(frozen=True)
class SimulatorCheck:
    """What one probe of a simulator URL found.

    Attributes:
        url: The service root probed.
        problem: Why it cannot be used (one sentence naming the fix), or None when it can.
        health: Its ``/health`` answer (the mock adds ``simulator: simulator_mock`` and its bounds).
    """

    url: str
    problem: str | None = None
    health: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def is_mock(self) -> bool:
        """Whether the service says it is this project's mock (the real service says nothing of the kind)."""
        return self.health.get("simulator") == "simulator_mock"


def check_simulator(
    url: str,
    *,
    verify_tls: bool = True,
    ca_bundle: str | Path | None = None,
    token: str | None = None,
    timeout_s: float = 5.0,
) -> SimulatorCheck:
    """Probe ``GET /health`` and ``GET /api/schema/list`` at ``url`` with the client's TLS settings.

    Args:
        url: Service root (``https://aspen-host:8002``).
        verify_tls: Verify the certificate (the setting ``simulator_verify_tls``).
        ca_bundle: Certificates to trust instead of the default bundle (``simulator_ca_bundle``).
        token: ``X-Aspen-Token`` for a mock started with a token.
        timeout_s: Timeout of each of the two requests.

    Returns:
        The check; ``problem`` is None when both routes answered as the contract says.
    """
    headers = {TOKEN_HEADER: token} if token else {}
    try:
        verify = verify_option(verify_tls, ca_bundle)
    except (OSError, ssl.SSLError) as exc:
        return SimulatorCheck(
            url, f"simulator_ca_bundle {ca_bundle} cannot be loaded as PEM certificates: {exc}"
        )
    try:
        with httpx.Client(base_url=url, timeout=timeout_s, verify=verify, headers=headers) as http:
            health = http.get("/health")
            if health.status_code != 200:
                return SimulatorCheck(
                    url,
                    f"{url} answered HTTP {health.status_code} to GET /health: not an Aspen simulator",
                )
            listing = http.get("/api/schema/list")
    except httpx.ConnectError as exc:
        return SimulatorCheck(url, _connect_problem(url, exc))
    except httpx.TimeoutException:
        return SimulatorCheck(url, f"no answer from {url} within {timeout_s:g} s")
    except httpx.HTTPError as exc:
        return SimulatorCheck(
            url, f"{url} did not answer HTTP as a simulator service does ({type(exc).__name__})"
        )
    body = _json(health)
    if not _lists_schemas(listing):
        return SimulatorCheck(
            url,
            f"{url} answers GET /health but GET /api/schema/list answered HTTP {listing.status_code} without "
            "the schema listing of the Aspen service: it is not a simulator (is it the model server's URL?)",
            body,
        )
    return SimulatorCheck(url, None, body)


def _connect_problem(url: str, exc: httpx.ConnectError) -> str:
    certificate = _certificate_error(exc)
    if certificate is not None:
        reason = certificate.verify_message or certificate.reason or "verification failed"
        return f"the TLS certificate of {url} is not trusted ({reason}): {CERTIFICATE_FIXES}"
    if isinstance(_root(exc), ConnectionRefusedError):
        return f"nothing listens at {url} (connection refused): start the service or fix the URL"
    return f"cannot connect to {url}: {exc or type(exc).__name__}"


def _certificate_error(exc: BaseException) -> ssl.SSLCertVerificationError | None:
    """The certificate verification failure behind a connection error, if that is what it was."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _root(exc: BaseException) -> BaseException:
    seen: set[int] = set()
    while (exc.__cause__ or exc.__context__) is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return exc


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _lists_schemas(response: httpx.Response) -> bool:
    """Whether ``/api/schema/list`` answered the contract's listing: ``schemas`` with a ``base`` entry."""
    if response.status_code != 200:
        return False
    entries = _json(response).get("schemas")
    return isinstance(entries, list) and any(isinstance(e, dict) and e.get("type") == "base" for e in entries)
