"""The offline scripted policy: an honest stand-in for an LLM that replays reference solutions.

It is NOT a model and it ignores the system prompt. For a known task it plays the task's reference
solution through the real tool-calling protocol (get_schema -> run_simulation -> get_result ->
answer), and, with a seeded, configurable probability, makes the mistakes real agents make:

- ``skip_schema``: never fetches the schema;
- ``redundant_schema``: fetches the schema twice;
- ``malformed_json``: first sends a truncated config that is not valid JSON;
- ``wrong_unit``: first sends the config with a unit the simulator does not know;
- ``redundant_result``: reads the results twice;
- ``sloppy_answer``: reports one quantity 15 % off the simulator's value (a hallucinated number).

The policy is stateless between calls: the next action follows from the conversation so far and
the rollout's mistake plan, which is drawn once per rollout from ``Random(f"{seed}:{task_id}:{n}")``
where ``n`` counts the rollouts of that task seen by this policy.
"""

from __future__ import annotations

import copy
import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from aspen_rl.tasks import AspenTask

MISTAKES: tuple[str, ...] = (
    "skip_schema",
    "redundant_schema",
    "malformed_json",
    "wrong_unit",
    "redundant_result",
    "sloppy_answer",
)
"""Every mistake the scripted policy can inject, in the order they are drawn."""


@dataclass(frozen=True)
class ToolCallAction:
    """Call one tool with JSON arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class AnswerAction:
    """End the conversation with a final text answer."""

    content: str


Action = ToolCallAction | AnswerAction


@dataclass
class MistakePlan:
    """The mistakes one rollout will make."""

    mistakes: frozenset[str] = field(default_factory=frozenset)

    def has(self, mistake: str) -> bool:
        """Whether this rollout makes ``mistake``."""
        return mistake in self.mistakes


class ScriptedPolicy:
    """Chooses the next action of a rollout from its conversation.

    Args:
        tasks: Every task the policy may be asked about; matched by the user message text.
        error_rate: Probability of each mistake in :data:`MISTAKES`, drawn independently.
        seed: Seed of the per-rollout mistake draws.
    """

    def __init__(self, tasks: list[AspenTask], *, error_rate: float = 0.25, seed: int = 0) -> None:
        if not 0.0 <= error_rate <= 1.0:
            raise ValueError(f"error_rate must be within [0, 1], got {error_rate}")
        self._by_text = {_normalise(t.user_requirement): t for t in tasks}
        self.error_rate = error_rate
        self.seed = seed
        self._plans: dict[str, MistakePlan] = {}
        self._seen_per_task: dict[str, int] = defaultdict(int)

    def find_task(self, messages: list[dict[str, Any]]) -> AspenTask | None:
        """The task whose requirement is the conversation's first user message, if known."""
        for message in messages:
            if message.get("role") == "user":
                return self._by_text.get(_normalise(_text_of(message)))
        return None

    def plan_for(self, rollout_key: str, task: AspenTask) -> MistakePlan:
        """The mistake plan of a rollout, drawn on its first call and then kept."""
        plan = self._plans.get(rollout_key)
        if plan is None:
            n = self._seen_per_task[task.task_id]
            self._seen_per_task[task.task_id] += 1
            rng = random.Random(f"{self.seed}:{task.task_id}:{n}")
            plan = MistakePlan(frozenset(m for m in MISTAKES if rng.random() < self.error_rate))
            self._plans[rollout_key] = plan
        return plan

    def next_action(self, messages: list[dict[str, Any]], rollout_key: str | None = None) -> Action:
        """Decide the next action given the OpenAI-format conversation so far."""
        task = self.find_task(messages)
        if task is None:
            return AnswerAction(
                "The offline scripted policy only knows the tasks it was started with; this request "
                "does not match any of them, so no simulation was run."
            )
        if task.reference_config is None:
            return AnswerAction(f"Task {task.task_id} has no reference solution for the scripted policy.")
        plan = self.plan_for(rollout_key or task.task_id, task)
        script = _script(task, plan)
        history = _tool_history(messages)
        step = len(history)
        # A failed reference simulation or result read ends the script with an honest answer.
        for (name, _args, content), planned in zip(history, script, strict=False):
            if planned.get("must_succeed") and _is_failure(name, content):
                return AnswerAction(f"The simulation could not be completed: {content[:500]}")
        if step < len(script):
            item = script[step]
            arguments = dict(item["arguments"])
            if item["name"] == "get_result":
                run_id = _last_run_id(history)
                if run_id is None:
                    return AnswerAction(
                        "The simulation did not return a run id, so no results could be read."
                    )
                arguments = {"run_id": run_id}
            return ToolCallAction(item["name"], arguments)
        results = _last_results(history)
        if results is None:
            return AnswerAction("The simulation results could not be read.")
        return AnswerAction(_answer(task, results, sloppy=plan.has("sloppy_answer")))


def _script(task: AspenTask, plan: MistakePlan) -> list[dict[str, Any]]:
    """The planned tool calls of a rollout (get_result's run id is filled in at call time)."""
    config = task.reference_config or {}
    block_types = ["base", *sorted({b["type"] for b in config.get("blocks", [])})]
    good = json.dumps(config)
    steps: list[dict[str, Any]] = []
    if not plan.has("skip_schema"):
        steps.append({"name": "get_schema", "arguments": {"block_types": block_types}})
        if plan.has("redundant_schema"):
            steps.append({"name": "get_schema", "arguments": {"block_types": block_types}})
    if plan.has("malformed_json"):
        steps.append({"name": "run_simulation", "arguments": {"config": good[: len(good) // 2]}})
    if plan.has("wrong_unit"):
        steps.append({"name": "run_simulation", "arguments": {"config": json.dumps(_break_a_unit(config))}})
    steps.append({"name": "run_simulation", "arguments": {"config": good}, "must_succeed": True})
    steps.append({"name": "get_result", "arguments": {}, "must_succeed": True})
    if plan.has("redundant_result"):
        steps.append({"name": "get_result", "arguments": {}})
    return steps


def _break_a_unit(config: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``config`` whose first temperature unit is one no simulator knows."""
    broken = copy.deepcopy(config)
    for data in broken.get("stream_data", {}).values():
        temperature = data.get("temperature")
        if isinstance(temperature, dict) and "TEMP_UNITS" in temperature:
            temperature["TEMP_UNITS"] = "centigrade"
            return broken
    broken.setdefault("stream_data", {})["__unknown__"] = {"temperature": {"TEMP_UNITS": "centigrade"}}
    return broken


def _answer(task: AspenTask, results: dict[str, Any], *, sloppy: bool) -> str:
    """A final answer that reports every requested quantity from the simulator's results."""
    lines = [
        "The simulation converged. Requested results:",
        "",
        "| Quantity | Value | Unit |",
        "|---|---|---|",
    ]
    first = True
    for target in task.expected_output:
        value = target.actual(results)
        if value is not None:
            shown = value * 1.15 if (sloppy and first) else value
            first = False
            lines.append(f"| {target.name} | {_fmt(shown)} | {target.unit} |")
        else:
            lines.append(f"| {target.name} | not available | {target.unit} |")
    return "\n".join(lines)


def _fmt(value: float) -> str:
    """Four significant figures, as an engineer would report them."""
    return f"{value:.4g}"


def _tool_history(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, arguments, result text) for every answered tool call, in order."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    history: list[tuple[str, dict[str, Any], str]] = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError:
                    arguments = {}
                calls[call.get("id", "")] = (function.get("name", ""), arguments)
        elif message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id", ""), ("", {}))
            history.append((name, arguments, _text_of(message)))
    return history


def _parse(content: str) -> Any:
    try:
        return json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return None


def _is_failure(name: str, content: str) -> bool:
    document = _parse(content)
    if not isinstance(document, dict):
        return True
    return document.get("success") is False or ("error" in document and name == "get_result")


def _last_run_id(history: list[tuple[str, dict[str, Any], str]]) -> str | None:
    for name, _args, content in reversed(history):
        document = _parse(content)
        if name == "run_simulation" and isinstance(document, dict) and document.get("success"):
            run_id = document.get("run_id") or document.get("result_file_path")
            return str(run_id) if run_id else None
    return None


def _last_results(history: list[tuple[str, dict[str, Any], str]]) -> dict[str, Any] | None:
    for name, _args, content in reversed(history):
        document = _parse(content)
        if (
            name == "get_result"
            and isinstance(document, dict)
            and ("streams" in document or "blocks" in document)
        ):
            return document
    return None


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def _normalise(text: str) -> str:
    return " ".join(text.split())
