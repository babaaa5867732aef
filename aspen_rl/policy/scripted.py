"""The offline scripted policy: an honest stand-in for an LLM that replays reference solutions.

It is NOT a model and it ignores the system prompt. For a known task it plays the task's reference
solution through the real tool-calling protocol (get_schema -> run_simulation -> get_result with the
``result_file_path`` the run returned -> answer read off the rendered results workbook), and, with a
seeded, configurable probability, makes the mistakes real agents make in the real config dialect:

- ``skip_schema``: never fetches the schema;
- ``redundant_schema``: fetches the schema twice;
- ``malformed_json``: first sends a truncated config that is not valid JSON;
- ``wrong_unit``: first sends the config with a unit string no simulator knows (``TEMP_UNITS``
  ``"centigrade"``);
- ``redundant_result``: reads the results twice;
- ``sloppy_answer``: reports one quantity 15 % off the simulator's value (a hallucinated number);
- ``bad_stream_name``: first sends the config with a stream renamed against the schema's
  ``^[A-Z]+-[0-9]+$`` pattern (``FEED-1`` -> ``FEED_1``, everywhere it appears).

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

from aspen_rl.contract.rendering import WORKBOOK_HEADING, Cells, read_rendering
from aspen_rl.contract.schema_view import schema_parts
from aspen_rl.contract.workbook import STREAM_SUMMARY
from aspen_rl.tasks import AspenTask

MISTAKES: tuple[str, ...] = (
    "skip_schema",
    "redundant_schema",
    "malformed_json",
    "wrong_unit",
    "redundant_result",
    "sloppy_answer",
    "bad_stream_name",
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
                result_file_path = _last_result_file_path(history)
                if result_file_path is None:
                    return AnswerAction(
                        "The simulation did not return a result_file_path, so no results could be read."
                    )
                arguments = {"result_file_path": result_file_path, **_result_selection(task)}
            return ToolCallAction(item["name"], arguments)
        results = _last_results(history)
        if results is None:
            return AnswerAction("The simulation results could not be read.")
        return AnswerAction(_answer(task, results, sloppy=plan.has("sloppy_answer")))


def _script(task: AspenTask, plan: MistakePlan) -> list[dict[str, Any]]:
    """The planned tool calls of a rollout (get_result's result_file_path is filled in at call time)."""
    config = task.reference_config or {}
    block_types = schema_parts(config)
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
    if plan.has("bad_stream_name"):
        renamed = _break_a_stream_name(config)
        if renamed is not None:
            steps.append({"name": "run_simulation", "arguments": {"config": json.dumps(renamed)}})
    steps.append({"name": "run_simulation", "arguments": {"config": good}, "must_succeed": True})
    steps.append({"name": "get_result", "arguments": {}, "must_succeed": True})
    if plan.has("redundant_result"):
        steps.append({"name": "get_result", "arguments": {}})
    return steps


def _result_selection(task: AspenTask) -> dict[str, list[str]]:
    """``get_result``'s ``only``: the streams and blocks where the task's requested values stand.

    A task without requested values reads the whole workbook (no selection).
    """
    streams = {e.column for e in task.expected_output if e.sheet == STREAM_SUMMARY and e.column}
    blocks = {e.sheet.rsplit("_", 1)[0] for e in task.expected_output if e.sheet != STREAM_SUMMARY}
    return {"only": sorted(streams) + sorted(blocks)} if streams or blocks else {}


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


def _break_a_stream_name(config: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of ``config`` whose first stream is renamed ``FEED-1`` -> ``FEED_1`` wherever it appears
    (``streams``, ``block_connections``, ``stream_data``), or ``None`` when it has no such stream."""
    streams = config.get("streams")
    names = [s for s in streams if isinstance(s, str) and "-" in s] if isinstance(streams, list) else []
    if not names:
        return None
    old = names[0]
    new = old.replace("-", "_")
    broken = copy.deepcopy(config)
    broken["streams"] = [new if s == old else s for s in broken["streams"]]
    connections = broken.get("block_connections")
    if isinstance(connections, dict):
        for block, ports in connections.items():
            if isinstance(ports, dict):
                connections[block] = {new if k == old else k: v for k, v in ports.items()}
    data = broken.get("stream_data")
    if isinstance(data, dict) and old in data:
        broken["stream_data"] = {new if k == old else k: v for k, v in data.items()}
    return broken


def _answer(task: AspenTask, results: Cells, *, sloppy: bool) -> str:
    """A final answer that reports every requested quantity from the results the tool showed."""
    lines = [
        "The simulation converged. Requested results:",
        "",
        "| Quantity | Value | Unit |",
        "|---|---|---|",
    ]
    first = True
    for target in task.expected_output:
        value, _unit = results.get((target.sheet, target.row, target.column), (None, None))
        if isinstance(value, float):
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
    if name == "get_result":
        return not content.startswith(WORKBOOK_HEADING)
    document = _parse(content)
    return not isinstance(document, dict) or document.get("success") is not True


def _last_result_file_path(history: list[tuple[str, dict[str, Any], str]]) -> str | None:
    for name, _args, content in reversed(history):
        document = _parse(content)
        if name == "run_simulation" and isinstance(document, dict) and document.get("success") is True:
            path = document.get("result_file_path")
            return str(path) if path else None
    return None


def _last_results(history: list[tuple[str, dict[str, Any], str]]) -> Cells | None:
    """The cells of the latest results workbook the get_result tool showed, as a model would read them."""
    for name, _args, content in reversed(history):
        if name == "get_result" and content.startswith(WORKBOOK_HEADING):
            return read_rendering(content)
    return None


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def _normalise(text: str) -> str:
    return " ".join(text.split())
