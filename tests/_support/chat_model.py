"""A test's own OpenAI-compatible chat endpoint: an ASGI app served by uvicorn in a thread on a free port."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from _support.mock import serve_in_thread


class ServedChatModel:
    """Serves ``app`` for the rest of the session (``close`` stops it sooner); ``url`` is its ``/v1`` root."""

    def __init__(self, app: Any) -> None:
        self._stack = ExitStack()
        self.port = self._stack.enter_context(serve_in_thread(app, log_level="error", lifespan="auto"))

    @property
    def url(self) -> str:
        """The OpenAI base URL of the endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        """Stop serving."""
        self._stack.close()
