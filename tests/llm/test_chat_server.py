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

from aspen_rl.llm.chat_server import ChatCompletionServer
from aspen_rl.llm.engine import RolloutEngine, TransformersEngine
from aspen_rl.llm.engine.base import WeightsSource
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.llm.trajectory import build_rows
from aspen_rl.llm.types import Generation, SamplingParams
from aspen_rl.rollout_seed import prompt_seed

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
    """Plays fixed replies (encoded with the real tokenizer, ending in eos) and logs batch sizes and seeds."""

    def __init__(self, tokenizer: Any, replies: list[str]) -> None:
        super().__init__()
        self._tokenizer = tokenizer
        self.replies = list(replies)
        self.batch_sizes: list[int] = []
        self.seeds: list[list[int | None]] = []

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def _generate(
        self, prompts: list[list[int]], sampling: SamplingParams, seeds: list[int | None]
    ) -> list[Generation]:
        self.batch_sizes.append(len(prompts))
        self.seeds.append(seeds)
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


async def test_each_request_seed_reaches_the_engine_with_its_prompt(
    scripted_server: ChatCompletionServer,
) -> None:
    """Each call's seed reaches the engine with its own row (batched or not); a bad seed is a 400."""
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=scripted_server.base_url, timeout=30) as client:
        responses = await asyncio.gather(
            *(
                client.post(f"/rollout/r{i}/attempt/a/v1/chat/completions", json={**body, "seed": 100 + i})
                for i in range(4)
            ),
            client.post("/rollout/r9/attempt/a/v1/chat/completions", json=body),
        )
        refused = [
            await client.post("/v1/chat/completions", json={**body, "seed": bad})
            for bad in ("7", -1, 2**63, True, 1.5)
        ]
    assert all(r.status_code == 200 for r in responses)
    engine = scripted_server.engine
    assert isinstance(engine, ScriptedEngine)
    prompt = scripted_server.render(body)  # each call draws from the stream of its seed and prompt
    expected = sorted(prompt_seed(100 + i, prompt) for i in range(4))
    assert sorted(s for batch in engine.seeds for s in batch if s is not None) == expected
    assert [s for batch in engine.seeds for s in batch].count(None) == 1
    assert [r.status_code for r in refused] == [400] * 5
    assert all("seed" in r.json()["error"]["message"] for r in refused)


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


# ---- real chat templates: tool-call history rendered back exactly ---------------------------------------

QWEN25_TOOL_TEMPLATE = """
{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] }}
    {%- else %}{{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}{%- endif %}
    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n" }}
    {{- "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}{{- "\\n" }}{{- tool | tojson }}{%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, "
        "\\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- elif messages[0]['role'] == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first)
        or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}{{- '\\n' + message.content }}{%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}{{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}{{- '<|im_end|>\\n' }}{%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""
"""The tool-call parts of Qwen2.5-Instruct's chat template, as written there (arguments via ``tojson``)."""

ARGUMENTS = '{"types": "base,Heater", "T": 80.5, "unit": "°C"}'


@pytest.mark.parametrize(
    "reply",
    [
        f'<tool_call>\n{{"name": "get_schema", "arguments": {ARGUMENTS}}}\n</tool_call>',
        f'Let me look.\n<tool_call>\n{{"name": "get_schema", "arguments": {ARGUMENTS}}}\n</tool_call>',
        f'  Two blank lines.\n\n<tool_call>\n{{"name": "get_schema", "arguments": {ARGUMENTS}}}\n</tool_call>'
        f'\n<tool_call>\n{{"name": "get_schema", "arguments": {{}}}}\n</tool_call>',
    ],
)
@pytest.mark.parametrize("template", ["qwen2.5", "tiny"])
def test_tool_history_renders_once_encoded_and_merges_into_one_row(reply: str, template: str) -> None:
    from aspen_rl.llm.tiny_bytes import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    if template == "qwen2.5":
        tokenizer.chat_template = QWEN25_TOOL_TEMPLATE
    engine = ScriptedEngine(tokenizer, [reply, "The outlet is at 80 C."])
    with ChatCompletionServer(engine, batch_wait_s=0.0) as server:
        client = openai.OpenAI(base_url=f"{server.base_url}/rollout/q/attempt/a/v1", api_key="none")
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Heat water to 80 C."}]
        first = client.chat.completions.create(model="m", messages=messages, tools=TOOLS).choices[0]
        assert first.finish_reason == "tool_calls"
        calls = first.message.tool_calls or []
        assert isinstance(calls[0].function.arguments, str)  # OpenAI shape: a JSON string
        messages.append(first.message.model_dump(exclude_none=True))
        messages.extend({"role": "tool", "tool_call_id": c.id, "content": "{}"} for c in calls)
        client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        records = server.pop_records("q")
    second_prompt = tokenizer.decode(records[1].prompt_ids)
    assert f'"arguments": {ARGUMENTS}' in second_prompt  # once-encoded, as the model wrote it
    assert '\\"types\\"' not in second_prompt and '"arguments": "' not in second_prompt
    assert reply in second_prompt  # the sampled text, verbatim, content included
    built = build_rows(records)
    assert built.prefix_breaks == 0 and len(built.rows) == 1
    assert built.rows[0].num_loss_tokens == len(records[0].completion_ids) + len(records[1].completion_ids)


def test_parse_keeps_content_as_written_but_the_separator() -> None:
    call = '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>'
    assert parse_tool_calls(f"Plan:\n\n{call}").content == "Plan:\n"
    assert parse_tool_calls(f"  Plan:\n{call}\n{call}\n").content == "  Plan:"
    assert parse_tool_calls(f"{call}\nDone.").content == "Done."


def test_tool_call_arguments_are_parsed_for_the_template() -> None:
    from aspen_rl.llm.chat_server import RequestError, normalize_messages

    call = {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x": [1, "é"]}'}}
    request = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    (message,) = normalize_messages(request)
    assert message["content"] == "" and message["tool_calls"][0]["function"]["arguments"] == {"x": [1, "é"]}
    assert call["function"]["arguments"] == '{"x": [1, "é"]}'  # the request is not modified
    bad = {"id": "c2", "type": "function", "function": {"name": "a", "arguments": "{oops"}}
    with pytest.raises(RequestError, match=r"messages\[0\]\.tool_calls\[0\]\.function\.arguments"):
        normalize_messages([{"role": "assistant", "tool_calls": [bad]}])
