"""Run trace: every tool call of one rollout (arguments, outcome, latency, the simulator's answer)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from aspen_rl.simulator.client import run_id_from

GET_SCHEMA = "get_schema"
RUN_SIMULATION = "run_simulation"
GET_RESULT = "get_result"


class ToolCall(BaseModel):
    """One recorded tool call.

    Attributes:
        name: Tool name (``get_schema``, ``run_simulation``, ``get_result``).
        arguments: Arguments as the tool understood them (``run_simulation`` stores the parsed
            config as a dict, or the raw text when it was not valid JSON).
        ok: The call achieved its purpose (for ``run_simulation``: the simulation succeeded).
        error: Readable reason when ``ok`` is false.
        latency_s: Wall time of the call.
        response: The simulator's answer (full JSON document), ``None`` when there was none.
        started_at: UTC start time.
    """

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    error: str | None = None
    latency_s: float = Field(default=0.0, ge=0.0)
    response: Any = None
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


def _successful_run_ids(calls: list[ToolCall]) -> set[str]:
    ids: set[str] = set()
    for call in calls:
        if call.name == RUN_SIMULATION and call.ok and isinstance(call.response, dict):
            for key in ("run_id", "result_file_path"):
                ref = call.response.get(key)
                if isinstance(ref, str) and ref.strip():
                    ids.add(run_id_from(ref))
    return ids


def result_run_id(call: ToolCall) -> str | None:
    """The run id a ``get_result`` call asked for (normalised), or ``None``."""
    ref = call.arguments.get("run_id")
    if not isinstance(ref, str):
        return None
    try:
        return run_id_from(ref)
    except ValueError:
        return None


class RunTrace(BaseModel):
    """Everything reward reads about a rollout besides the task: the calls and the final answer.

    Attributes:
        calls: Tool calls in order.
        final_answer: The agent's final text answer.
        error: Why the rollout ended abnormally (LLM error, timeout...), ``None`` when it did not.
    """

    calls: list[ToolCall] = Field(default_factory=list)
    final_answer: str = ""
    error: str | None = None

    def record(self, call: ToolCall) -> ToolCall:
        """Append a call and return it."""
        self.calls.append(call)
        return call

    def calls_named(self, name: str) -> list[ToolCall]:
        """Calls of one tool, in order."""
        return [c for c in self.calls if c.name == name]

    @property
    def run_ids(self) -> set[str]:
        """Ids of the runs that succeeded in this trace."""
        return _successful_run_ids(self.calls)

    @property
    def last_run(self) -> dict[str, Any] | None:
        """The latest ``run_simulation`` answer (success or failure), or ``None``."""
        for call in reversed(self.calls):
            if call.name == RUN_SIMULATION and isinstance(call.response, dict):
                return call.response
        return None

    def own_result_calls(self) -> list[ToolCall]:
        """Successful ``get_result`` calls that read a run started in this same trace."""
        own = self.run_ids
        return [
            c
            for c in self.calls
            if c.name == GET_RESULT and c.ok and isinstance(c.response, dict) and result_run_id(c) in own
        ]

    @property
    def last_results(self) -> dict[str, Any] | None:
        """The latest results document read by a successful ``get_result`` of a run of this trace.

        Results of runs that this trace did not start are ignored, so an agent cannot score by
        reading someone else's run.
        """
        own = self.own_result_calls()
        return own[-1].response if own else None
