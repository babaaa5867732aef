"""The agent's model context: the schema answer is cleared from view once a simulation has succeeded.

The schema is what the model needs to *write* a config; once a run has succeeded, the config the model
wrote (still in the context) carries everything it took from the schema, and the schema text is the
largest part of every later prompt. Clearing old tool results is how long-running agents keep their
prompts short; here it is the one result that stops mattering at a known point. The full answer stays in
the run trace (the reward and the logs see it); only the model's view changes, and it can call
``get_schema`` again if it needs to rewrite the config.
"""

from __future__ import annotations

import json
from typing import Any

from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import FunctionExecutionResult, FunctionExecutionResultMessage, LLMMessage

from aspen_rl.trace import GET_SCHEMA, RUN_SIMULATION

SCHEMA_CLEARED = (
    "[schema shown earlier, cleared from view after the simulation succeeded; "
    "call get_schema again if you need to change the config]"
)


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


class SchemaClearingContext(UnboundedChatCompletionContext):
    """Keeps every message, and shows the model :func:`clear_schema_after_success` of them."""

    async def get_messages(self) -> list[LLMMessage]:
        return clear_schema_after_success(await super().get_messages())


