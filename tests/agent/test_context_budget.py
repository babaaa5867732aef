"""Every shipped task's largest request, as the agent's model context shows it, fits the context budget:
12,000 characters on the wire and 4,096 tokens of SmolLM2-135M-Instruct (its tokenizer is in tests/data)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from _support.benchmarks import load_benchmark


def _benchmark() -> ModuleType:
    return load_benchmark("context_budget")


@pytest.mark.slow
async def test_every_shipped_task_largest_request_fits_12000_characters_and_scores_one() -> None:
    budget = _benchmark()
    tasks = budget.shipped_tasks()
    assert len(tasks) == 25
    largest: dict[str, int] = {}
    for task in tasks:
        counts, reward = await budget.play(task, None, budget.SCHEMA_MAX_CHARS, True)
        assert reward == 1.0, task.task_id
        largest[task.task_id] = max(counts)
    over = {k: v for k, v in largest.items() if v > budget.TARGET_CHARS}
    assert not over, over
    # the measure sees the schema: without the compact rendering the same requests are far over budget
    counts, _ = await budget.play(tasks[0], None, None, False)
    assert max(counts) > budget.TARGET_CHARS


@pytest.mark.slow
async def test_every_shipped_task_largest_request_fits_4096_smollm2_tokens(tmp_path: Path) -> None:
    budget = _benchmark()
    tokenizer = budget.load_smollm2_tokenizer(tmp_path)
    assert budget.template_renders_tools(tokenizer) is False  # tools and calls get written into the text
    largest = {}
    for task in budget.shipped_tasks():
        counts, reward = await budget.play(task, tokenizer, budget.SCHEMA_MAX_CHARS, True)
        assert reward == 1.0, task.task_id
        largest[task.task_id] = max(counts)
    over = {k: v for k, v in largest.items() if v > budget.TARGET_TOKENS}
    assert not over, over
    # the tools block is counted: the first request holds the system prompt, the tools and the task
    first, _ = await budget.play(budget.shipped_tasks()[0], tokenizer, budget.SCHEMA_MAX_CHARS, True)
    assert first[0] > len(tokenizer(budget.default_system_prompt())["input_ids"]) + 300
