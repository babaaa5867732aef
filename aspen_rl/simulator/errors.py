"""Exceptions raised by the simulator client."""

from __future__ import annotations

import json
from typing import Any


class SimulatorError(Exception):
    """Base class of every simulator-client error."""


class SimulatorUnavailable(SimulatorError):
    """The service could not be reached or did not answer in time, after all retries."""

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
    """The service answered 2xx but not with the JSON object the contract promises."""
