"""SFT learns the agent's first turn as the agent shows it (system prompt, tools block), on held-out tasks,
scored by the real get_schema tool on the mock: a call the tool accepts, which an untrained model never
writes, and the task's own block at least as often as naming one block for every task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from autogen_core.tools import FunctionTool

from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.data import transcript_rows
from aspen_rl.algorithms.sft.evaluate import expected_first_call, first_call_accuracy
from aspen_rl.algorithms.sft.trainer import SFTTrainer
from aspen_rl.datagen import family_of
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.llm.settings import LoRASettings
from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

GENERATED = Path(__file__).resolve().parents[2] / "data" / "generated"
FAMILIES = ("heater", "pump", "compressor", "valve", "flash")
TRAIN_PER_FAMILY = 30  # 12 a family x 6 epochs (half the updates) did not reach the bar below
EPOCHS = 5


def _of_families(path: Path, per_family: int) -> list[AspenTask]:
    tasks = load_tasks(path)
    return [t for name in FAMILIES for t in [t for t in tasks if family_of(t) == name][:per_family]]


async def _scored_by_the_real_tool(text: str, expected: set[str]) -> tuple[bool, bool]:
    """The model's first call, run through the real get_schema tool: (the tool accepted it and served a
    schema, it fetched exactly the task's parts)."""
    parsed = parse_tool_calls(text)
    if not parsed.tool_calls or parsed.tool_calls[0].name != "get_schema":
        return False, False
    try:
        arguments: Any = json.loads(parsed.tool_calls[0].arguments)
        trace = RunTrace()
        async with in_process_client() as client:
            get_schema = build_tools(client, trace)[0]
            await get_schema(**arguments)
    except (json.JSONDecodeError, TypeError):
        return False, False
    (call,) = trace.calls
    return call.ok, call.ok and {"base", *call.arguments["block_types"]} == expected


@pytest.mark.slow  # 150 demonstrations, 95 updates: 5.5 CPU minutes (17 min wall at load 5-7, shared)
async def test_sft_beats_the_untrained_model_on_held_out_first_turns_as_the_agent_shows_them() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        await _learn()
    finally:
        torch.set_num_threads(threads)


async def _learn() -> None:
    train = _of_families(GENERATED / "train.jsonl", TRAIN_PER_FAMILY)
    held_out = _of_families(GENERATED / "eval.jsonl", 4)
    assert not {t.task_id for t in train} & {t.task_id for t in held_out}
    async with in_process_client() as client:
        demos, dropped = await record_demos(train, client)
    assert dropped == []
    model, tokenizer = build_tiny_bpe_model(demos, vocab_size=2000, hidden_size=128, num_layers=2, seed=0)
    async with in_process_client() as client:
        functions = build_tools(client, RunTrace())
    tools = [
        {"type": "function", "function": FunctionTool(f, description=f.__doc__ or "").schema}
        for f in functions
    ]
    assert demos[0]["tools"] == tools  # the demonstrations carry the tools block the agent sends
    prompt = default_system_prompt()
    expected = {t.task_id: expected_first_call(t)[1] for t in held_out}

    async def score(m: Any) -> tuple[int, int]:
        """(first calls the real get_schema tool accepted, first calls with exactly the task's parts)."""
        _, results = first_call_accuracy(
            m, tokenizer, held_out, system_prompt=prompt, tools=tools, max_new_tokens=48
        )
        scored = [await _scored_by_the_real_tool(r.text, expected[r.task_id]) for r in results]
        return sum(accepted for accepted, _ in scored), sum(right for _, right in scored)

    accepted_before, right_before = await score(model)
    config = SFTConfig(
        model="tiny",
        device="cpu",
        dtype="float32",
        lora=LoRASettings(enabled=False),
        max_assistant_turns=1,
        epochs=EPOCHS,
        batch_size=8,
        micro_batch_size=8,
        learning_rate=3e-3,
        warmup_steps=5,
        save_every=0,
    )
    rows = transcript_rows(demos, tokenizer, max_assistant_turns=1)
    assert len(rows) == len(demos) == TRAIN_PER_FAMILY * len(FAMILIES)
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    history = trainer.train(rows)
    accepted, right = await score(trainer.model)
    print(
        f"held-out first calls the real get_schema tool accepted: {accepted_before}/20 -> {accepted}/20;"
        f" with exactly the task's parts: {right_before}/20 -> {right}/20; loss {history[-1]}"
    )
    # An untrained model never writes a get_schema call the tool accepts: 0 of 20 is what no learning gives.
    # After SFT every held-out first call was one (20 of 20 in 6 runs: seeds 0-1, 5-12 epochs, 30-100
    # demonstrations a family, two machines).
    assert (accepted_before, right_before) == (0, 0)
    assert accepted >= 16, accepted
    # Choosing the block from the request is only partly learnt at this scale: 4-12 of 20 right across those
    # runs (a CI machine gave 4 where this one gave 9 for the same seed), where naming one block type for
    # every task gives 4. It must not fall below that.
    assert right >= 4, right
