"""Every tool call the model attempted, in the trace: also those no tool could take (bad name, bad arguments).

The tools record the calls they run. A call AutoGen refuses before any tool runs leaves no record of its
own: an unknown tool name, arguments that are not JSON, arguments that do not fit the tool's signature.
AutoGen answers those with an error result (``is_error``), and our tools never answer with one (they
catch every failure and return it as JSON text), so an error result is exactly a call no tool ran.
:func:`record_attempts` walks the conversation's tool-call requests and their results in order and puts
each refused call into the trace where it happened, as a failed call whose error starts with
``InvalidToolCall`` (the reward counts it as failed and as ``calls.invalid``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from aspen_rl.failures import FailureKind
from aspen_rl.reward.base import INVALID_CALL
from aspen_rl.trace import RecordedToolCall, RunTrace

ARGUMENTS_KEPT = 2000
"""Characters of refused arguments that are not a JSON object kept in the trace."""


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError, RecursionError):  # RecursionError: nesting deeper than the stack
        return {"raw": str(text)[:ARGUMENTS_KEPT]}
    return parsed if isinstance(parsed, dict) else {"raw": str(text)[:ARGUMENTS_KEPT]}


def refused_call(name: str, arguments: str, reason: str) -> RecordedToolCall:
    """The trace entry of a call no tool could take."""
    return RecordedToolCall(
        name=name,
        arguments=_arguments(arguments),
        ok=False,
        error=f"{INVALID_CALL}: {reason}",
        failure=FailureKind.BAD_CALL,
    )


__all__ = ["INVALID_CALL", "record_attempts", "refused_call"]


def record_attempts(messages: Iterable[Any], trace: RunTrace) -> int:
    """Insert the tool calls AutoGen refused into ``trace``, in conversation order.

    Args:
        messages: The conversation's messages and events (``TaskResult.messages``): each
            ``ToolCallRequestEvent`` is followed by the ``ToolCallExecutionEvent`` answering it, result
            for result in request order.
        trace: The rollout's trace, holding the calls the tools ran (in the order they ran).

    Returns:
        How many refused calls were inserted.
    """
    ran = list(trace.calls)
    merged: list[RecordedToolCall] = []
    taken = inserted = 0
    pending: list[Any] = []
    for message in messages:
        kind = getattr(message, "type", None)
        if kind == "ToolCallRequestEvent":
            pending = list(getattr(message, "content", []) or [])
        elif kind == "ToolCallExecutionEvent" and pending:
            results = list(getattr(message, "content", []) or [])
            for call, result in zip(pending, results, strict=False):
                if getattr(result, "is_error", False):
                    reason = str(getattr(result, "content", ""))[:500]
                    merged.append(refused_call(str(call.name), str(call.arguments), reason))
                    inserted += 1
                elif taken < len(ran):
                    merged.append(ran[taken])
                    taken += 1
            pending = []
    merged.extend(ran[taken:])
    trace.calls[:] = merged
    return inserted
