"""The agent's model context: the schema and the config cleared from view once a run succeeded.

The schema is what the model needs to *write* a config; once a run has succeeded, the config the model
wrote (still in the context) carries everything it took from the schema, and the schema text is the
largest part of every later prompt. Clearing old tool results is how long-running agents keep their
prompts short; here it is the one result that stops mattering at a known point. The full answer stays in
the run trace (the reward and the logs see it); only the model's view changes, and it can call
``get_schema`` again if it needs to rewrite the config.

The same holds for the config itself: once a run succeeded, the model's next turns read its results and
answer, which need the result path, the results and the task, not the config (the largest remaining part:
~2,600 SmolLM2 tokens for a 17-stream recycle loop); the run's config is then acknowledged
(:data:`CONFIG_ACKNOWLEDGED`) rather than echoed back every turn. A failed run's config stays in view: the
model fixes it from the error.
"""

from __future__ import annotations

import json
from typing import Any

from autogen_core import FunctionCall
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
)

from aspen_rl.contract.rendering import WORKBOOK_HEADING
from aspen_rl.trace import GET_SCHEMA, RUN_SIMULATION

SCHEMA_CLEARED = (
    "[schema shown earlier, cleared from view after the simulation succeeded; "
    "call get_schema again if you need to change the config]"
)

CONFIG_ACKNOWLEDGED = "[config shown earlier; it ran]"
"""What the model sees of a ``run_simulation`` config once that run succeeded."""


def acknowledged_arguments() -> str:
    """The ``run_simulation`` arguments (JSON text) shown in place of a config that ran."""
    return json.dumps({"config": CONFIG_ACKNOWLEDGED})


def run_succeeded(content: str) -> bool:
    """Whether a ``run_simulation`` answer text reports a successful run."""
    try:
        answer: Any = json.loads(content)
    except (TypeError, ValueError):
        return False
    return isinstance(answer, dict) and answer.get("success") is True


def clear_schema_after_success(messages: list[LLMMessage]) -> list[LLMMessage]:
    """``messages`` with every ``get_schema`` result that precedes a successful run replaced by a stub.

    Args:
        messages: The conversation as AutoGen keeps it.

    Returns:
        A new list; the input is not changed. Without a successful ``run_simulation`` it equals the input.
    """
    last_success = -1
    for index, message in enumerate(messages):
        if isinstance(message, FunctionExecutionResultMessage) and any(
            r.name == RUN_SIMULATION and run_succeeded(r.content) for r in message.content
        ):
            last_success = index
    if last_success < 0:
        return list(messages)
    out: list[LLMMessage] = []
    for index, message in enumerate(messages):
        if index < last_success and isinstance(message, FunctionExecutionResultMessage):
            results = [
                FunctionExecutionResult(
                    content=SCHEMA_CLEARED, name=r.name, call_id=r.call_id, is_error=r.is_error
                )
                if r.name == GET_SCHEMA and not r.is_error
                else r
                for r in message.content
            ]
            message = FunctionExecutionResultMessage(content=results)
        out.append(message)
    return out


def results_read(content: str) -> bool:
    """Whether a ``get_result`` answer text is a results workbook (not an error)."""
    return content.startswith(WORKBOOK_HEADING)


def acknowledge_config_after_success(messages: list[LLMMessage]) -> list[LLMMessage]:
    """``messages`` with the config of every successful run acknowledged.

    Args:
        messages: The conversation as AutoGen keeps it.

    Returns:
        A new list; the input is not changed. Without a successful ``run_simulation`` it equals the input.
    """
    succeeded = {
        r.call_id
        for message in messages
        if isinstance(message, FunctionExecutionResultMessage)
        for r in message.content
        if r.name == RUN_SIMULATION and not r.is_error and run_succeeded(r.content)
    }
    if not succeeded:
        return list(messages)
    out: list[LLMMessage] = []
    for message in messages:
        if isinstance(message, AssistantMessage) and isinstance(message.content, list):
            calls = [
                FunctionCall(id=c.id, name=c.name, arguments=acknowledged_arguments())
                if c.name == RUN_SIMULATION and c.id in succeeded
                else c
                for c in message.content
            ]
            message = message.model_copy(update={"content": calls})
        out.append(message)
    return out


def model_view(messages: list[LLMMessage]) -> list[LLMMessage]:
    """What the model is shown of the conversation: schema and config cleared once they stopped mattering."""
    return acknowledge_config_after_success(clear_schema_after_success(messages))


def openai_view(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`model_view` of an OpenAI-format conversation (``role``/``tool_calls``/``tool_call_id`` dicts),
    as recorded in demonstrations: what the agent would send the model after these messages."""
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}

    def answered(name: str, ok: Any) -> list[int]:
        return [
            i
            for i, m in enumerate(messages)
            if m.get("role") == "tool" and names.get(m.get("tool_call_id", "")) == name and ok(m["content"])
        ]

    succeeded = answered(RUN_SIMULATION, run_succeeded)
    if not succeeded:
        return list(messages)
    ran_ok = {messages[i]["tool_call_id"] for i in succeeded}
    out = []
    for i, m in enumerate(messages):
        if i < succeeded[-1] and m.get("role") == "tool" and names.get(m["tool_call_id"]) == GET_SCHEMA:
            m = {**m, "content": SCHEMA_CLEARED}
        if m.get("tool_calls"):
            calls = [
                {**c, "function": {**c["function"], "arguments": acknowledged_arguments()}}
                if c["id"] in ran_ok
                else c
                for c in m["tool_calls"]
            ]
            m = {**m, "tool_calls": calls}
        out.append(m)
    return out


class SchemaClearingContext(UnboundedChatCompletionContext):
    """Keeps every message, and shows the model :func:`model_view` of them."""

    async def get_messages(self) -> list[LLMMessage]:
        return model_view(await super().get_messages())
