"""``aspen_rl.llm.serve``: a local model behind the OpenAI-compatible endpoint, driven by the real agent."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import torch

from aspen_rl.llm.chat_template import ChatTemplateError
from aspen_rl.llm.serve import main, resolve_model, start_local_model_server
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer, save_tiny_chat_model

ARGUMENTS = {"block_types": ["Heater"]}
CALL = json.dumps({"name": "get_schema", "arguments": ARGUMENTS})
"""The one tool call the stub model writes (one added token of its tokenizer)."""

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_schema",
            "description": "Fetch the config schema.",
            "parameters": {
                "type": "object",
                "properties": {"block_types": {"type": "array", "items": {"type": "string"}}},
                "required": ["block_types"],
            },
        },
    }
]


def save_tool_calling_stub(path: Path) -> Path:
    """A real transformers model whose weights make it answer every turn with ``<tool_call>CALL</tool_call>``.

    One Qwen2 layer whose output projections are zero (the residual stream stays the token embedding),
    and an output head that maps each token to its successor: the newline ending the generation prompt
    -> ``<tool_call>`` -> CALL -> ``</tool_call>`` -> ``<|im_end|>``. A bigram machine in a model's clothes:
    the server, the template, the parser and the agent around it are all real.
    """
    tokenizer = build_tiny_tokenizer()
    tokenizer.add_tokens([CALL])
    model = build_tiny_model(len(tokenizer), hidden_size=64, num_layers=1, tie_word_embeddings=False, seed=1)

    def token(text: str) -> int:
        (token_id,) = tokenizer.encode(text, add_special_tokens=False)
        return token_id

    chain = ["\n", "<tool_call>", CALL, "</tool_call>", "<|im_end|>"]
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        embeddings = model.model.embed_tokens.weight
        head = model.lm_head.weight
        head.zero_()
        for current, following in itertools.pairwise(chain):
            state = embeddings[token(current)]
            head[token(following)] = 10.0 * state / state.norm()
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tool_calling_stub(tmp_path_factory.mktemp("stub") / "model")


@pytest.fixture(scope="module")
def served(stub: Path) -> Iterator[str]:
    url, stop = start_local_model_server(
        stub, device="cpu", threads=1, max_prompt_tokens=16384, model_name="m"
    )
    try:
        yield url
    finally:
        stop()


def test_a_chat_completion_with_tools_answers_a_parsed_tool_call(served: str) -> None:
    client = openai.OpenAI(base_url=served, api_key="-", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Heat water to 80 C."}]
    reply = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls or []
    assert call.function.name == "get_schema" and json.loads(call.function.arguments) == ARGUMENTS
    assert reply.usage is not None and reply.usage.prompt_tokens > len(json.dumps(TOOLS))  # tools rendered
    models = client.models.list()
    assert [m.id for m in models.data] == ["m"]
    client.close()


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
async def test_the_agent_executes_the_served_models_tool_call(served: str, tmp_path: Path) -> None:
    from agentlightning import LLM

    from aspen_rl.agent import AspenLitAgent
    from aspen_rl.settings import Settings
    from aspen_rl.subprocesses import mock_simulator
    from aspen_rl.tasks import load_split

    task = load_split("train")[0]
    with mock_simulator(tmp_path / "results") as simulator:
        settings = Settings(
            _env_file=None, aspen_simulator_url=simulator.url, max_tool_iterations=1, rollout_timeout_s=120
        )
        resources = {"main_llm": LLM(endpoint=served, model="m", sampling_parameters={"temperature": 0.0})}
        record = await AspenLitAgent(settings).run_episode(task, resources, None)
    assert record.tool_calls, record.error
    first = record.tool_calls[0]
    assert first.name == "get_schema" and json.loads(first.arguments) == ARGUMENTS
    assert first.ok, first.error  # executed against the simulator


def test_resolve_model_kinds(tmp_path: Path) -> None:
    model_dir = save_tiny_chat_model(tmp_path / "full")
    assert resolve_model(model_dir).adapter is None
    step = tmp_path / "run" / "step_3"
    (step / "model").mkdir(parents=True)
    (step / "tokenizer").mkdir()
    (step / "trainer_state.json").write_text("{}")
    (step / "model" / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": str(model_dir)})
    )
    for path in (step, tmp_path / "run"):  # a checkpoint, or the run directory (its latest step)
        source = resolve_model(path)
        assert (source.base, source.adapter, source.tokenizer) == (
            str(model_dir),
            step / "model",
            str(step / "tokenizer"),
        )
    with pytest.raises(FileNotFoundError, match="not a model directory"):
        resolve_model(tmp_path)
    assert main(["--model", str(tmp_path / "absent")]) == 2


def test_a_grpo_lora_checkpoint_serves_and_a_template_without_tools_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aspen_rl.algorithms.grpo.config import GRPOConfig
    from aspen_rl.algorithms.grpo.trainer import GRPOTrainer

    base = save_tiny_chat_model(tmp_path / "base")
    config = GRPOConfig(
        model=str(base), device="cpu", lora={"r": 4, "alpha": 8}, checkpoint_dir=str(tmp_path)
    )
    trainer = GRPOTrainer(config)
    trainer.save_checkpoint(config.checkpoint_path(1))
    url, stop = start_local_model_server(config.run_dir(), device="cpu", max_tokens=4)
    try:
        client = openai.OpenAI(base_url=url, api_key="-", max_retries=0)
        reply = client.chat.completions.create(
            model="x", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
        )
        assert reply.choices[0].message.role == "assistant" and reply.usage is not None
        client.close()
    finally:
        stop()
    template = tmp_path / "plain.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}", encoding="utf-8")
    with pytest.raises(ChatTemplateError, match="does not render tool definitions"):
        start_local_model_server(base, device="cpu", chat_template=str(template))
    assert main(["--model", str(base), "--chat-template", str(template), "--port", "0"]) == 2
    assert "--chat-template" in capsys.readouterr().err
