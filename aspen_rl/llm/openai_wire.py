"""The OpenAI-compatible chat-completions surface every local policy endpoint serves, written once.

Routes (``/v1/chat/completions``, the rollout-scoped route of Agent Lightning's ``ProxyLLM``, ``/v1/models``,
``/health``), the error and completion bodies, and the rendering of a tool call. The scripted stand-in
(``aspen_rl.policy.openai_app``) and the local model's endpoint (``aspen_rl.llm.chat_server``) differ only in
how they answer one request: each passes that as ``complete`` to :func:`chat_completions_app`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

CHAT_ROUTE = "/v1/chat/completions"
"""The plain chat-completions route."""
ROLLOUT_CHAT_ROUTE = "/rollout/{rollout_id}/attempt/{attempt_id}/v1/chat/completions"
"""The rollout-scoped route (the URL shape of ``ProxyLLM.get_base_url(rollout_id, attempt_id)``)."""

Complete = Callable[[dict[str, Any], str | None, str | None], Awaitable[dict[str, Any]]]
"""Answers one request body given its rollout and attempt ids (None on the plain route); returns the
completion body or raises :class:`RequestError`."""


class RequestError(ValueError):
    """A chat-completions request the endpoint refuses (answered with HTTP 400)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def error_response(message: str, status: int = 400, code: str | None = None) -> JSONResponse:
    """An OpenAI-shaped error body (``invalid_request_error``)."""
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return JSONResponse(body, status_code=status)


def tool_call_entry(name: str, arguments: str, call_id: str | None = None) -> dict[str, Any]:
    """One entry of a message's ``tool_calls``: a function call with its arguments as a JSON string."""
    return {
        "id": call_id or f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def completion_body(
    model: str,
    message: dict[str, Any],
    finish_reason: str,
    *,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object with one choice."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def chat_completions_app(
    title: str,
    complete: Complete,
    *,
    model_name: Callable[[], str],
    health: Callable[[], dict[str, Any]],
    rollout_header: str | None = None,
) -> FastAPI:
    """A FastAPI app serving the chat-completions routes with ``complete``.

    Args:
        title: The app's title.
        complete: Answers one request (see :data:`Complete`).
        model_name: The model id ``/v1/models`` lists.
        health: The ``/health`` body.
        rollout_header: A header that, on the plain route, names the rollout (None: not read).

    A body that is not a JSON object, or a :class:`RequestError`, is answered 400; any other exception 500
    (``engine_error``), and the endpoint keeps serving.
    """
    app = FastAPI(title=title, docs_url=None, redoc_url=None)

    async def handle(request: Request, rollout_id: str | None, attempt_id: str | None) -> JSONResponse:
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise RequestError("the request body must be a JSON object")
            return JSONResponse(await complete(body, rollout_id, attempt_id))
        except json.JSONDecodeError as exc:
            return error_response(f"invalid JSON body: {exc}")
        except RequestError as exc:
            return error_response(str(exc), code=exc.code)
        except Exception as exc:  # a policy or engine failure: answer it, keep serving
            return error_response(
                f"generation failed: {type(exc).__name__}: {exc}", status=500, code="engine_error"
            )

    @app.post(CHAT_ROUTE)
    async def chat(request: Request) -> JSONResponse:
        rollout_id = request.headers.get(rollout_header) if rollout_header else None
        return await handle(request, rollout_id, None)

    @app.post(ROLLOUT_CHAT_ROUTE)
    async def chat_in_rollout(rollout_id: str, attempt_id: str, request: Request) -> JSONResponse:
        return await handle(request, rollout_id, attempt_id)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model_name(), "object": "model", "owned_by": "aspen_rl"}]}

    @app.get("/health")
    async def health_route() -> dict[str, Any]:
        return health()

    return app
