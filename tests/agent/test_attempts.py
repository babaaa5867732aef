"""Refused tool calls (unknown name, arguments not JSON or not fitting) enter the trace in place."""

from __future__ import annotations

from autogen_agentchat.messages import TextMessage, ToolCallExecutionEvent, ToolCallRequestEvent
from autogen_core import FunctionCall
from autogen_core.models import FunctionExecutionResult

from aspen_rl.agent.attempts import INVALID_CALL, record_attempts
from aspen_rl.trace import RunTrace, ToolCall


def ran(name: str) -> ToolCall:
    return ToolCall(name=name, arguments={}, ok=True, response={})


def batch(*calls: tuple[str, str, bool]) -> list:
    """One model turn: its tool calls and AutoGen's results (``True`` = refused before any tool ran)."""
    request = [FunctionCall(f"id{i}", arguments, name) for i, (name, arguments, _) in enumerate(calls)]
    results = [
        FunctionExecutionResult(
            content="Error: x" if bad else "{}", name=name, call_id=f"id{i}", is_error=bad
        )
        for i, (name, _, bad) in enumerate(calls)
    ]
    return [
        ToolCallRequestEvent(source="a", content=request),
        ToolCallExecutionEvent(source="a", content=results),
    ]


def test_refused_calls_are_inserted_in_order_and_marked() -> None:
    trace = RunTrace(calls=[ran("get_schema"), ran("run_simulation"), ran("get_result")])
    messages = [
        TextMessage(source="user", content="task"),
        *batch(("get_schema", '{"block_types": ["Heater"]}', False)),
        *batch(("run_simulaton", '{"config": "{}"}', True), ("run_simulation", '{"config": "{}"}', False)),
        *batch(("get_result", "{not json", True)),
        *batch(("get_result", '{"result_file_path": "r.xlsx"}', False)),
    ]
    assert record_attempts(messages, trace) == 2
    assert [(c.name, c.ok) for c in trace.calls] == [
        ("get_schema", True),
        ("run_simulaton", False),
        ("run_simulation", True),
        ("get_result", False),
        ("get_result", True),
    ]
    assert trace.calls[1].arguments == {"config": "{}"}
    assert trace.calls[3].arguments == {"raw": "{not json"}
    assert trace.calls[3].error.startswith(f"{INVALID_CALL}: Error: x")


def test_a_conversation_without_refusals_leaves_the_trace_alone() -> None:
    trace = RunTrace(calls=[ran("get_schema")])
    assert record_attempts(batch(("get_schema", "{}", False)), trace) == 0
    assert [c.name for c in trace.calls] == ["get_schema"]
