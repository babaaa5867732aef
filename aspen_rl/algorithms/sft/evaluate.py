"""Does a model open a task with the right tool call? Greedy first call, parsed and checked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from aspen_rl.contract.schema_view import schema_parts
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.tasks.model import AspenTask


@dataclass(frozen=True)
class FirstCallResult:
    """What the model wrote first for one task and whether it is right."""

    task_id: str
    text: str
    parsed: bool
    correct: bool


def expected_first_call(task: AspenTask) -> tuple[str, set[str]]:
    """``get_schema`` with the parts the reference config needs: 'base', its block types and its sections
    (reactions, design_specs, convergence), as the scripted policy and the demonstrations ask."""
    return "get_schema", set(schema_parts(task.reference_config or {}))


def is_correct_first_call(task: AspenTask, text: str) -> tuple[bool, bool]:
    """(parseable, correct): one tool call, the right tool, exactly the task's schema parts."""
    parsed = parse_tool_calls(text)
    if not parsed.tool_calls:
        return False, False
    import json

    call = parsed.tool_calls[0]
    name, parts = expected_first_call(task)
    try:
        arguments = json.loads(call.arguments)
    except json.JSONDecodeError:
        return True, False
    types = arguments.get("block_types") if isinstance(arguments, dict) else None
    given = {str(t) for t in types} | {"base"} if isinstance(types, list) else set()
    return True, call.name == name and given == parts


@torch.no_grad()
def first_call_accuracy(
    model: torch.nn.Module,
    tokenizer: Any,
    tasks: Sequence[AspenTask],
    *,
    system_prompt: str,
    tools: list[dict[str, Any]] | None = None,
    max_new_tokens: int = 96,
    batch_size: int = 16,
) -> tuple[float, list[FirstCallResult]]:
    """Share of ``tasks`` whose greedy first assistant turn is a parseable, correct first tool call."""
    device = next(model.parameters()).device
    results: list[FirstCallResult] = []
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    for start in range(0, len(tasks), batch_size):
        chunk = tasks[start : start + batch_size]
        prompts = [
            tokenizer.encode(
                tokenizer.apply_chat_template(
                    [
                        {"role": "system", "content": system_prompt},
                        {"role": "user", "content": t.user_requirement},
                    ],
                    tools=tools,
                    add_generation_prompt=True,
                    tokenize=False,
                ),
                add_special_tokens=False,
            )
            for t in chunk
        ]
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        for i, p in enumerate(prompts):  # left padding for generation
            ids[i, width - len(p) :] = torch.tensor(p)
            attention[i, width - len(p) :] = 1
        out = model.generate(  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
            input_ids=ids.to(device),
            attention_mask=attention.to(device),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=pad,
        )
        for task, row in zip(chunk, out[:, width:], strict=True):
            text = tokenizer.decode(row, skip_special_tokens=False)
            text = text.split(tokenizer.eos_token)[0] if tokenizer.eos_token else text
            parsed, correct = is_correct_first_call(task, text)
            results.append(FirstCallResult(task.task_id, text, parsed, correct))
    return sum(r.correct for r in results) / max(len(results), 1), results
