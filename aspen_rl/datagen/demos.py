"""Demonstrations: reference solutions played through the real tools, recorded as OpenAI chat transcripts.

A transcript is the conversation an agent would have had: system prompt, the requirement, one assistant turn
per tool call (OpenAI ``tool_calls`` with JSON-string arguments), the tool's answer as the model sees it, and
the final answer. The scripted policy chooses the actions (with ``error_rate=0``: an expert run); the reward
is computed from the run's own trace, and only transcripts scoring 1.0 are kept as demonstrations.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.datagen.build import family_of, language_of
from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy
from aspen_rl.reward import compute_reward
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.tasks.model import AspenTask
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

MAX_TURNS = 12


def tool_specs() -> list[dict[str, Any]]:
    """The three tools as an OpenAI ``tools`` list, as the agent (AutoGen's ``FunctionTool``) sends them."""
    from autogen_core.tools import FunctionTool

    specs = []
    for fn in build_tools(None, RunTrace()):  # type: ignore[arg-type]  # schemas only, nothing is called
        schema = FunctionTool(fn, description=fn.__doc__ or "").schema
        specs.append({"type": "function", "function": dict(schema)})
    return specs


async def play(
    task: AspenTask,
    client: SimulatorClient,
    policy: ScriptedPolicy,
    *,
    system_prompt: str | None = None,
    rollout_key: str | None = None,
) -> tuple[list[dict[str, Any]], float, dict[str, float]]:
    """Play one rollout of ``policy`` on ``task`` through the real tools.

    Returns:
        (OpenAI messages, total reward, reward details).
    """
    trace = RunTrace()
    tools = {fn.__name__: fn for fn in build_tools(client, trace)}
    messages: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": system_prompt if system_prompt is not None else default_system_prompt(),
        },
        {"role": "user", "content": task.user_requirement},
    ]
    for step in range(MAX_TURNS):
        action = policy.next_action(messages, rollout_key=rollout_key or task.task_id)
        if isinstance(action, AnswerAction):
            messages.append({"role": "assistant", "content": action.content})
            trace.final_answer = action.content
            break
        call_id = f"call_{step}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": action.name,
                            "arguments": json.dumps(action.arguments, ensure_ascii=False),
                        },
                    }
                ],
            }
        )
        answer = await tools[action.name](**action.arguments)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": answer})
    reward = compute_reward(task, trace)
    return messages, reward.total, dict(reward.details)


async def record_demos(
    tasks: Iterable[AspenTask],
    client: SimulatorClient,
    *,
    system_prompt: str | None = None,
    on_task: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Expert transcripts of ``tasks``; those not scoring 1.0 are dropped (their ids returned).

    ``on_task(task_id)`` is called after each task is played (for progress).
    """
    policy_tasks = list(tasks)
    policy = ScriptedPolicy(policy_tasks, error_rate=0.0, seed=0)
    tools = tool_specs()
    kept: list[dict[str, Any]] = []
    dropped: list[str] = []
    for task in policy_tasks:
        messages, total, _details = await play(task, client, policy, system_prompt=system_prompt)
        if on_task is not None:
            on_task(task.task_id)
        if total < 1.0:
            dropped.append(task.task_id)
            continue
        kept.append(
            {
                "task_id": task.task_id,
                "family": family_of(task),
                "language": language_of(task),
                "block_types": sorted({b["type"] for b in (task.reference_config or {}).get("blocks", [])}),
                "reward": total,
                "messages": messages,
                "tools": tools,
            }
        )
    return kept, dropped


def save_demos(demos: Iterable[dict[str, Any]], path: str | Path) -> None:
    """Write transcripts as JSONL (one per line)."""
    lines = [json.dumps(d, ensure_ascii=False) for d in demos]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")


def load_demos(path: str | Path) -> list[dict[str, Any]]:
    """Read transcripts written by :func:`save_demos`."""
    text = Path(path).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]  # U+2028 is not a line end
