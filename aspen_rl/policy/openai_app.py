"""A local OpenAI-compatible chat-completions endpoint that serves the offline scripted policy."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import FastAPI

from aspen_rl.llm.openai_wire import RequestError, chat_completions_app, completion_body, tool_call_entry
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

    async def complete(
        body: dict[str, Any], rollout_id: str | None, attempt_id: str | None
    ) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise RequestError("invalid chat-completions request: 'messages' must be a list")
        rollout_key = f"{rollout_id}/{attempt_id}" if rollout_id is not None else None
        action = policy.next_action(messages, rollout_key=rollout_key)
        if latency_s:
            await asyncio.sleep(latency_s)
        return _completion(action, body.get("model") or SCRIPTED_MODEL_NAME)

    return chat_completions_app(
        "aspen_rl offline scripted policy",
        complete,
        model_name=lambda: SCRIPTED_MODEL_NAME,
        health=lambda: {"status": "ok", "policy": "offline scripted stand-in (not a language model)"},
    )


def _completion(action: AnswerAction | ToolCallAction, model: str) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object for one action."""
    if isinstance(action, ToolCallAction):
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [tool_call_entry(action.name, json.dumps(action.arguments))],
        }
        return completion_body(model, message, "tool_calls")
    return completion_body(model, {"role": "assistant", "content": action.content}, "stop")
