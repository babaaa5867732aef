"""Run trace: every tool call of one rollout (arguments, outcome, latency, the simulator's answer)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from aspen_rl.contract.run_answer import normalise_file_path, result_file_path_of
from aspen_rl.contract.workbook import is_workbook
from aspen_rl.failures import FailureKind

GET_SCHEMA = "get_schema"
RUN_SIMULATION = "run_simulation"
GET_RESULT = "get_result"
RESULT_FILE_PATH = "result_file_path"
"""Argument name of ``get_result``: the ``result_file_path`` a successful run returned."""


class RecordedToolCall(BaseModel):
    """One tool call as the agent made it and the trace recorded it (the reward's input).

    Not to be confused with ``llm.tool_calls.ParsedToolCall`` (a call parsed out of sampled text).

    Attributes:
        name: Tool name (``get_schema``, ``run_simulation``, ``get_result``).
        arguments: Arguments as the tool understood them (``run_simulation`` stores the parsed
            config as a dict, or the raw text when it was not valid JSON; ``get_result`` stores
            ``{"result_file_path": ...}``).
        ok: The call achieved its purpose (for ``run_simulation``: the simulation succeeded).
        error: Readable reason when ``ok`` is false.
        failure: What failed when ``ok`` is false, typed where the exception was known (its ``fault``
            says whose: the policy's or the infrastructure's); ``None`` for a call that succeeded.
        latency_s: Wall time of the call.
        response: The simulator's answer (for ``get_result`` the full ``/get-aspen-result`` JSON),
            ``None`` when there was none.
        started_at: UTC start time.
    """

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    error: str | None = None
    failure: FailureKind | None = None
    latency_s: float = Field(default=0.0, ge=0.0)
    response: Any = None
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


ToolCall = RecordedToolCall
"""Former name of :class:`RecordedToolCall` (kept for existing imports; new code names the recorded call)."""


def result_path_of(call: RecordedToolCall) -> str | None:
    """The result file a ``get_result`` call asked for (normalised for comparison), or ``None``."""
    ref = call.arguments.get(RESULT_FILE_PATH)
    if not isinstance(ref, str) or not ref.strip():
        return None
    return normalise_file_path(ref)


class RunTrace(BaseModel):
    """Everything reward reads about a rollout besides the task: the calls and the final answer.

    Attributes:
        calls: Tool calls in order.
        final_answer: The agent's final text answer.
        error: Why the rollout ended abnormally (LLM error, timeout...), ``None`` when it did not.
    """

    calls: list[RecordedToolCall] = Field(default_factory=list)
    final_answer: str = ""
    error: str | None = None

    def record(self, call: RecordedToolCall) -> RecordedToolCall:
        """Append a call and return it."""
        self.calls.append(call)
        return call

    @property
    def infrastructure_failure(self) -> RecordedToolCall | None:
        """The first call the infrastructure failed (the rollout then says nothing about the policy)."""
        return next((c for c in self.calls if c.failure is not None and c.failure.is_infrastructure), None)

    def calls_named(self, name: str) -> list[RecordedToolCall]:
        """Calls of one tool, in order."""
        return [c for c in self.calls if c.name == name]

    @property
    def result_paths(self) -> set[str]:
        """Result files (normalised ``result_file_path``) of the runs that succeeded in this trace."""
        paths: set[str] = set()
        for call in self.calls:
            if call.name == RUN_SIMULATION and call.ok:
                path = result_file_path_of(call.response)
                if path is not None:
                    paths.add(normalise_file_path(path))
        return paths

    @property
    def last_run(self) -> dict[str, Any] | None:
        """The latest ``run_simulation`` answer (success or failure), or ``None``."""
        for call in reversed(self.calls):
            if call.name == RUN_SIMULATION and isinstance(call.response, dict):
                return call.response
        return None

    def is_own_result(self, call: RecordedToolCall, own: set[str] | None = None) -> bool:
        """Whether ``call`` is a successful ``get_result`` that read a workbook of a run of this trace."""
        if call.name != GET_RESULT or not call.ok or not is_workbook(call.response):
            return False
        paths = self.result_paths if own is None else own
        return result_path_of(call) in paths

    def own_result_calls(self) -> list[RecordedToolCall]:
        """Successful ``get_result`` calls that read a run started in this same trace, in order."""
        own = self.result_paths
        return [c for c in self.calls if self.is_own_result(c, own)]

    @property
    def last_results(self) -> dict[str, Any] | None:
        """The latest results workbook (``/get-aspen-result`` JSON) read of a run of this trace.

        Results of runs this trace did not start are ignored (matched by ``result_file_path``), so an
        agent cannot score by reading someone else's run.
        """
        own = self.own_result_calls()
        return own[-1].response if own else None
