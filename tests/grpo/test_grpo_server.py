"""The local OpenAI-compatible endpoint: round trips, tool-call parsing, per-rollout token records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
import torch

from aspen_rl.algorithms.grpo.engine import RolloutEngine, TransformersEngine
from aspen_rl.algorithms.grpo.engine.base import WeightsSource
from aspen_rl.algorithms.grpo.server import ChatCompletionServer
from aspen_rl.algorithms.grpo.tool_calls import parse_tool_calls
from aspen_rl.algorithms.grpo.trajectory import build_rows
from aspen_rl.algorithms.grpo.types import Generation, SamplingParams

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_schema",
            "description": "Fetch the simulator's JSON schema.",
            "parameters": {
                "type": "object",
                "properties": {"types": {"type": "string"}},
                "required": ["types"],
            },
        },
    }
]
TOOL_CALL_TEXT = '<tool_call>\n{"name": "get_schema", "arguments": {"types": "base,Heater"}}\n</tool_call>'


class ScriptedEngine(RolloutEngine):
    """Plays fixed replies (encoded with the real tokenizer, ending in eos) and logs batch sizes."""

    def __init__(self, tokenizer: Any, replies: list[str]) -> None:
        super().__init__()
        self._tokenizer = tokenizer
        self.replies = list(replies)
        self.batch_sizes: list[int] = []

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def _generate(self, prompts: list[list[int]], sampling: SamplingParams) -> list[Generation]:
        self.batch_sizes.append(len(prompts))
        out = []
        for prompt in prompts:
            text = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
            ids = [*self._tokenizer.encode(text, add_special_tokens=False), self._tokenizer.eos_token_id]
            ids = ids[: sampling.max_tokens]
            finish = "stop" if ids[-1] == self._tokenizer.eos_token_id else "length"
            out.append(Generation(prompt, ids, [-0.5] * len(ids), finish))
        return out

    def _update_weights(self, source: WeightsSource) -> None:
        pass


@pytest.fixture
def scripted_server(tokenizer: Any, request: pytest.FixtureRequest) -> Iterator[ChatCompletionServer]:
    replies = getattr(request, "param", [TOOL_CALL_TEXT, "The outlet is at 80 C."])
    with ChatCompletionServer(ScriptedEngine(tokenizer, replies), batch_wait_s=0.05) as server:
        yield server


# ---- parsing -------------------------------------------------------------------------------------------


def test_parse_hermes_tool_calls() -> None:
    parsed = parse_tool_calls(
        'Let me look.\n<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n'
        '<tool_call>{"name": "b", "arguments": "{\\"y\\": [2]}"}</tool_call>'
    )
    assert parsed.content == "Let me look."
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
        ("a", {"x": 1}),
        ("b", {"y": [2]}),
    ]
    assert parsed.tool_calls[0].to_openai()["type"] == "function"
    assert parse_tool_calls(TOOL_CALL_TEXT).content is None


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n{not json}\n</tool_call>",
        '<tool_call>\n{"name": "a", "arguments": {"x": 1}}',  # unclosed (cut by max_tokens)
        '<tool_call>{"arguments": {}}</tool_call>',  # no name
        '<tool_call>{"name": "a", "arguments": [1]}</tool_call>',  # arguments not an object
        '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>oops</tool_call>',
    ],
)
def test_unparseable_tool_calls_become_plain_content(text: str) -> None:
    parsed = parse_tool_calls(text)
    assert parsed.tool_calls == [] and parsed.content == text


# ---- round trips ---------------------------------------------------------------------------------------


def test_round_trip_with_a_tiny_model_records_tokens(tokenizer: Any, chat_model: torch.nn.Module) -> None:
    engine = TransformersEngine(chat_model, tokenizer)
    messages = [
        {"role": "system", "content": "You are a chemist."},
        {"role": "user", "content": "Heat water."},
    ]
    with ChatCompletionServer(engine, sampling=SamplingParams(max_tokens=24)) as server:
        client = openai.OpenAI(base_url=f"{server.base_url}/rollout/ro-1/attempt/at-1/v1", api_key="none")
        response = client.chat.completions.create(
            model="aspen-policy", messages=messages, tools=TOOLS, max_tokens=8
        )
        plain = openai.OpenAI(base_url=server.endpoint, api_key="none")
        plain.chat.completions.create(model="aspen-policy", messages=messages)
        assert server.recorder.rollout_ids() == ["ro-1"]  # the plain /v1 call is not recorded
        (record,) = server.pop_records("ro-1")
    choice = response.choices[0]
    assert choice.message.role == "assistant" and choice.finish_reason in {"stop", "length"}
    assert response.usage is not None and response.usage.completion_tokens == len(record.completion_ids) <= 8
    rendered = tokenizer.apply_chat_template(
        messages, tools=TOOLS, add_generation_prompt=True, tokenize=False
    )
    assert record.prompt_ids == tokenizer.encode(rendered, add_special_tokens=False)
    assert response.usage.prompt_tokens == len(record.prompt_ids)
    assert len(record.logprobs) == len(record.completion_ids) and all(lp <= 0 for lp in record.logprobs)
    assert (record.rollout_id, record.attempt_id, record.index) == ("ro-1", "at-1", 0)
    assert record.started_at <= record.finished_at


def test_tool_call_round_trip_and_multi_turn_merge(scripted_server: ChatCompletionServer) -> None:
    client = openai.OpenAI(base_url=f"{scripted_server.base_url}/rollout/r7/attempt/a1/v1", api_key="none")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Heat 100 kmol/hr of water to 80 C."}]
    first = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert call.function.name == "get_schema" and json.loads(call.function.arguments) == {
        "types": "base,Heater"
    }
    # what an OpenAI client sends back: the assistant turn with its tool call, then the tool's answer
    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"schemas": {}}'})
    second = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    assert second.choices[0].message.content == "The outlet is at 80 C."
    assert second.choices[0].finish_reason == "stop"
    records = scripted_server.pop_records("r7")
    assert [r.index for r in records] == [0, 1]
    built = build_rows(records)
    assert built.prefix_breaks == 0
    (row,) = built.rows
    assert row.num_loss_tokens == len(records[0].completion_ids) + len(records[1].completion_ids)
    assert row.input_ids[: len(records[1].prompt_ids)] == records[1].prompt_ids
    assert scripted_server.pop_records("r7") == []


@pytest.mark.parametrize("scripted_server", [["<tool_call>{broken</tool_call> I give up."]], indirect=True)
def test_unparseable_output_reaches_the_client_as_text(scripted_server: ChatCompletionServer) -> None:
    client = openai.OpenAI(base_url=scripted_server.endpoint, api_key="none")
    response = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
    )
    assert response.choices[0].message.tool_calls is None
    assert response.choices[0].message.content == "<tool_call>{broken</tool_call> I give up."
    assert response.choices[0].finish_reason == "stop"


async def test_concurrent_calls_are_batched_and_recorded_per_rollout(
    scripted_server: ChatCompletionServer,
) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "return_token_ids": True}
    async with httpx.AsyncClient(base_url=scripted_server.base_url, timeout=30) as client:
        responses = await asyncio.gather(
            *(client.post(f"/rollout/r{i}/attempt/a/v1/chat/completions", json=body) for i in range(6))
        )
    assert all(r.status_code == 200 for r in responses)
    assert "token_ids" in responses[0].json()["choices"][0] and "prompt_token_ids" in responses[0].json()
    engine = scripted_server.engine
    assert isinstance(engine, ScriptedEngine) and max(engine.batch_sizes) > 1
    assert sorted(scripted_server.recorder.rollout_ids()) == [f"r{i}" for i in range(6)]
    assert all(len(scripted_server.pop_records(f"r{i}")) == 1 for i in range(6))


async def test_header_recording_and_request_errors(scripted_server: ChatCompletionServer) -> None:
    async with httpx.AsyncClient(base_url=scripted_server.base_url, timeout=30) as client:
        ok = await client.post(
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}]},
            headers={"x-rollout-id": "hdr"},
        )
        missing = await client.post("/v1/chat/completions", json={"model": "m"})
        not_json = await client.post(
            "/v1/chat/completions", content=b"{", headers={"content-type": "application/json"}
        )
        scripted_server.max_prompt_tokens = 5
        too_long = await client.post(
            "/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}
        )
        health = await client.get("/health")
    assert ok.status_code == 200 and len(scripted_server.pop_records("hdr")) == 1
    assert missing.status_code == 400 and "messages" in missing.json()["error"]["message"]
    assert not_json.status_code == 400
    assert too_long.status_code == 400 and too_long.json()["error"]["code"] == "context_length_exceeded"
    assert health.json()["status"] == "ok"


async def test_autogen_client_drives_the_endpoint(scripted_server: ChatCompletionServer) -> None:
    from autogen_core.models import ModelInfo, UserMessage
    from autogen_core.tools import FunctionTool
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    async def get_schema(types: str) -> str:
        return "{}"

    client = OpenAIChatCompletionClient(
        model="aspen-policy",
        base_url=f"{scripted_server.base_url}/rollout/ag/attempt/a1/v1",
        api_key="none",
        model_info=ModelInfo(
            vision=False, function_calling=True, json_output=False, family="unknown", structured_output=False
        ),
    )
    result = await client.create(
        [UserMessage(content="Heat water.", source="user")],
        tools=[FunctionTool(get_schema, description="Fetch the schema.")],
    )
    await client.close()
    assert result.finish_reason == "function_calls"
    assert isinstance(result.content, list) and result.content[0].name == "get_schema"
    assert len(scripted_server.pop_records("ag")) == 1
