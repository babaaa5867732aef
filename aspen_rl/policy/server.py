"""A local OpenAI-compatible chat-completions endpoint that serves the offline scripted policy."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy, ToolCallAction

SCRIPTED_MODEL_NAME = "offline-scripted-policy"
"""The model name the scripted stand-in answers as (it is not a language model)."""


def create_policy_app(policy: ScriptedPolicy, *, latency_s: float = 0.0) -> FastAPI:
    """Build the FastAPI app answering ``/v1/chat/completions`` with the scripted policy.

    The rollout-scoped route ``/rollout/{rollout_id}/attempt/{attempt_id}/v1/chat/completions``
    (the URL shape of Agent Lightning's ``ProxyLLM``) keys the policy's per-rollout mistake plan.

    Args:
        policy: The scripted policy.
        latency_s: Added wait per completion, to emulate a hosted model's response time in
            throughput studies (the policy itself answers in well under a millisecond).
    """
    if latency_s < 0:
        raise ValueError(f"latency_s must be >= 0, got {latency_s}")
    app = FastAPI(title="aspen_rl offline scripted policy", docs_url=None, redoc_url=None)

    async def complete(request: Request, rollout_key: str | None) -> JSONResponse:
        try:
            body = await request.json()
            messages = body["messages"]
            if not isinstance(messages, list):
                raise TypeError("messages must be a list")
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            return JSONResponse(
                {
                    "error": {
                        "message": f"invalid chat-completions request: {exc}",
                        "type": "invalid_request_error",
                    }
                },
                status_code=400,
            )
        action = policy.next_action(messages, rollout_key=rollout_key)
        if latency_s:
            await asyncio.sleep(latency_s)
        return JSONResponse(_completion(action, body.get("model") or SCRIPTED_MODEL_NAME))

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        return await complete(request, None)

    @app.post("/rollout/{rollout_id}/attempt/{attempt_id}/v1/chat/completions")
    async def chat_in_rollout(rollout_id: str, attempt_id: str, request: Request) -> JSONResponse:
        return await complete(request, f"{rollout_id}/{attempt_id}")

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": SCRIPTED_MODEL_NAME, "object": "model", "owned_by": "aspen_rl"}],
        }

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "policy": "offline scripted stand-in (not a language model)"}

    return app


def _completion(action: AnswerAction | ToolCallAction, model: str) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object for one action."""
    if isinstance(action, ToolCallAction):
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{uuid.uuid4().hex[:12]}",
                    "type": "function",
                    "function": {"name": action.name, "arguments": json.dumps(action.arguments)},
                }
            ],
        }
        finish_reason = "tool_calls"
    else:
        message = {"role": "assistant", "content": action.content}
        finish_reason = "stop"
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
