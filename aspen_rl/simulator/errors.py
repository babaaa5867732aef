"""Exceptions raised by the simulator client, each carrying its typed failure (:mod:`aspen_rl.failures`)."""

from __future__ import annotations

import json
from typing import Any

from aspen_rl.failures import FailureKind

BUSY_STATUS = 503
"""The status of a run the service refused before starting it (no free engine worker): safe to retry."""
AUTH_STATUS = 401
"""The status of a request without the service's token (``X-Aspen-Token``)."""


class SimulatorError(Exception):
    """Base class of every simulator-client error.

    Attributes:
        kind: What failed (the failure's fault follows from it).
    """

    kind: FailureKind = FailureKind.SERVER_ERROR


class SimulatorUnavailable(SimulatorError):
    """The service could not be reached or did not answer in time, after all retries."""

    kind = FailureKind.UNREACHABLE

    def __init__(self, url: str, timeout_s: float, attempts: int, cause: str) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.cause = cause
        super().__init__(
            f"simulator unavailable at {url} after {attempts} attempt(s) "
            f"(timeout {timeout_s:g} s per attempt): {cause}"
        )


class SimulatorHTTPError(SimulatorError):
    """The service answered with an unexpected HTTP status."""

    def __init__(self, url: str, status_code: int, body: str) -> None:
        self.url = url
        self.status_code = status_code
        self.body = body
        super().__init__(f"simulator answered HTTP {status_code} for {url}: {self.body_excerpt}")

    @property
    def kind(self) -> FailureKind:  # type: ignore[override]
        """Busy (503), another 5xx, a refused token (401): the infrastructure's; any other 4xx (no such
        file, outside the results folder, an empty or oversized body): the caller's bad call."""
        if self.status_code == BUSY_STATUS:
            return FailureKind.BUSY
        if self.status_code >= 500:
            return FailureKind.SERVER_ERROR
        if self.status_code == AUTH_STATUS:
            return FailureKind.AUTH
        return FailureKind.BAD_CALL

    @property
    def body_excerpt(self) -> str:
        """The first 300 characters of the response body."""
        text = self.body.strip().replace("\n", " ")
        return text if len(text) <= 300 else text[:300] + "..."

    @property
    def json(self) -> Any:
        """The body parsed as JSON, or ``None`` when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def error_message(self) -> str:
        """The service's reason: ``error`` of a ``{"error", "timestamp"}`` body, else
        ``error_type: error_message``, else the body excerpt."""
        data = self.json
        if isinstance(data, dict):
            if isinstance(data.get("error"), str) and data["error"].strip():
                return data["error"].strip()
            if data.get("error_message"):
                kind = data.get("error_type")
                return f"{kind}: {data['error_message']}" if kind else str(data["error_message"])
        return self.body_excerpt or f"HTTP {self.status_code}"


class SimulatorProtocolError(SimulatorError):
    """The service answered 2xx but not with the JSON object the contract promises (e.g. an HTML page)."""

    kind = FailureKind.SERVER_ERROR


RUN_CRASHED_CODES = frozenset({"InternalError"})
"""``error_code`` (the mock's) of a run that broke inside the simulator: a crashed or hung engine worker."""
RUN_TIMEOUT_CODES = frozenset({"Timeout"})
"""``error_code`` of a run the simulator stopped at its time budget: the config was too slow to solve."""


def run_failure_kind(answer: dict[str, Any]) -> FailureKind | None:
    """What failed in a ``POST /run-aspen-simulation`` answer: ``None`` for a success.

    The mock adds ``error_code``: ``InternalError`` is a crashed engine (the infrastructure's), ``Timeout``
    the run's own budget (the policy's), anything else a config the simulator refused or could not
    solve (the policy's). The real service sends no code; its failures are configs it could not write or
    run, the policy's (an Aspen COM breakdown cannot be told apart from a bad config there).
    """
    if answer.get("success") is True:
        return None
    code = str(answer.get("error_code") or "")
    if code in RUN_CRASHED_CODES:
        return FailureKind.CRASHED
    if code in RUN_TIMEOUT_CODES:
        return FailureKind.RUN_TIMEOUT
    return FailureKind.BAD_CONFIG
