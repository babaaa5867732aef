"""The scripted policy's OpenAI-compatible endpoint, in-process through httpx's ASGI transport."""

from __future__ import annotations

import json

import httpx
import pytest
from test_scripted_policy import TASK

from aspen_rl.policy.openai_app import SCRIPTED_MODEL_NAME, create_policy_app
from aspen_rl.policy.scripted import ScriptedPolicy


def client(error_rate: float = 0.0) -> httpx.AsyncClient:
    app = create_policy_app(ScriptedPolicy([TASK], error_rate=error_rate, seed=0))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://policy")


async def test_first_turn_is_a_get_schema_tool_call_in_openai_shape() -> None:
    async with client() as http:
        response = await http.post(
            "/rollout/ro-1/attempt/at-1/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": TASK.user_requirement}]},
        )
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "m"
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "get_schema"
    assert json.loads(call["function"]["arguments"]) == {"block_types": ["base", "Heater"]}


async def test_unknown_conversation_gets_a_text_answer_and_bad_bodies_a_400() -> None:
    async with client() as http:
        text = await http.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]})
        bad = await http.post("/v1/chat/completions", content=b"{not json")
        models = await http.get("/v1/models")
    assert text.json()["choices"][0]["finish_reason"] == "stop"
    assert text.json()["model"] == SCRIPTED_MODEL_NAME
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
    assert models.json()["data"][0]["id"] == SCRIPTED_MODEL_NAME


def test_negative_latency_is_refused() -> None:
    with pytest.raises(ValueError, match="latency_s"):
        create_policy_app(ScriptedPolicy([TASK]), latency_s=-1.0)
