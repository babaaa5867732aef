"""The funnel: how far a rollout got toward a run of *this task's* flowsheet, stage by stage, in order.

Each ``run_simulation`` call is a :class:`Run` with the fidelity of its config
(:mod:`aspen_rl.reward.fidelity`); each workbook the rollout read of its own successful run is a
:class:`Reading` with its run's fidelity. The stages, with their weights (:data:`FUNNEL`, summing to 1):

- ``schema`` 0.10: a successful ``get_schema`` before the first ``run_simulation`` (or with no run);
- ``attempted`` 0.05: a ``run_simulation`` call, whatever its arguments;
- ``json`` 0.05: a config that is a JSON object;
- ``faithful`` 0.20: the best fidelity of any config;
- ``accepted`` 0.15: the best fidelity of a config the simulator accepted as input (a run that succeeded,
  or was written and failed while running);
- ``simulated`` 0.20: the best fidelity of a run that succeeded;
- ``read`` 0.25: the best fidelity of a run whose workbook a successful ``get_result`` read.

``funnel = sum(weight * stage)``. The stages from ``faithful`` on are paid by fidelity, so an easy
unrelated config earns little beyond valid JSON, and a task-faithful config refused for one wrong field
earns more than any unrelated one. Without a reference config the fidelity of every run is the coverage
of the latest workbook read (:mod:`aspen_rl.reward.coverage`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aspen_rl.contract.run_answer import RUN_ERROR_TYPES, normalise_file_path, result_file_path_of
from aspen_rl.reward.coverage import coverage
from aspen_rl.reward.fidelity import ASPECT_COSTS, Fidelity, fidelity
from aspen_rl.tasks.model import AspenTask
from aspen_rl.trace import GET_SCHEMA, RUN_SIMULATION, RecordedToolCall, RunTrace, result_path_of

FUNNEL = {
    "schema": 0.10,
    "attempted": 0.05,
    "json": 0.05,
    "faithful": 0.20,
    "accepted": 0.15,
    "simulated": 0.20,
    "read": 0.25,
}
# Mock solve failures (``error_code``/``error_type``) of a config the simulator accepted as input.
SOLVE_FAILURE_CODES = frozenset(
    {"FlashFailed", "InfeasibleSpecification", "NotConverged", "BalanceNotClosed", "Timeout", "InternalError"}
)


def is_accepted(call: RecordedToolCall) -> bool:
    """Whether the simulator took a ``run_simulation`` config as input (it ran, or failed while running)."""
    if call.name != RUN_SIMULATION or not isinstance(call.response, dict):
        return False
    answer = call.response
    if answer.get("success") is True:
        return True
    return answer.get("error_type") in RUN_ERROR_TYPES or bool(
        {answer.get("error_type"), answer.get("error_code")} & SOLVE_FAILURE_CODES
    )


@dataclass(frozen=True)
class Run:
    """One ``run_simulation`` call and the fidelity of its config."""

    call: RecordedToolCall
    fidelity: Fidelity

    @property
    def config(self) -> Any:
        return self.call.arguments.get("config")

    @property
    def accepted(self) -> bool:
        return is_accepted(self.call)

    @property
    def succeeded(self) -> bool:
        return self.call.ok

    @property
    def result_path(self) -> str | None:
        path = result_file_path_of(self.call.response) if self.call.ok else None
        return normalise_file_path(path) if path is not None else None


@dataclass(frozen=True)
class Reading:
    """A workbook this rollout read of its own successful run, and that run's fidelity."""

    workbook: dict[str, Any]
    fidelity: Fidelity


def _unchecked(value: float) -> Fidelity:
    return Fidelity(value, dict.fromkeys(ASPECT_COSTS, value), {})


def runs_and_readings(task: AspenTask, trace: RunTrace) -> tuple[list[Run], list[Reading]]:
    """Every ``run_simulation`` call with its fidelity, and every workbook read of an own run (in order)."""
    reference = task.reference_config
    stand_in = None if reference is not None else _unchecked(coverage(task, trace.last_results))
    seen: dict[str, Fidelity] = {}
    runs: list[Run] = []
    for call in trace.calls_named(RUN_SIMULATION):
        config = call.arguments.get("config")
        key = json.dumps(config, sort_keys=True, default=str)
        if key not in seen:
            seen[key] = stand_in or fidelity(reference, config)
        runs.append(Run(call, seen[key]))
    by_path = {r.result_path: r for r in runs if r.result_path is not None}
    readings = [
        Reading(call.response, by_path[result_path_of(call) or ""].fidelity)
        for call in trace.own_result_calls()
        if (result_path_of(call) or "") in by_path
    ]
    return runs, readings


def _best(values: list[float]) -> float:
    return max(values, default=0.0)


def funnel_stages(trace: RunTrace, runs: list[Run], readings: list[Reading]) -> dict[str, float]:
    """Each stage of :data:`FUNNEL` (0..1), in order."""
    calls = trace.calls
    first_run = next((i for i, c in enumerate(calls) if c.name == RUN_SIMULATION), len(calls))
    return {
        "schema": 1.0 if any(c.name == GET_SCHEMA and c.ok for c in calls[:first_run]) else 0.0,
        "attempted": 1.0 if runs else 0.0,
        "json": 1.0 if any(isinstance(r.config, dict) for r in runs) else 0.0,
        "faithful": _best([r.fidelity.value for r in runs if isinstance(r.config, dict)]),
        "accepted": _best([r.fidelity.value for r in runs if r.accepted]),
        "simulated": _best([r.fidelity.value for r in runs if r.succeeded]),
        "read": _best([r.fidelity.value for r in readings]),
    }


def funnel_score(stages: dict[str, float]) -> float:
    """``sum(weight * stage)`` over :data:`FUNNEL`."""
    return sum(FUNNEL[k] * v for k, v in stages.items())


def work_score(stages: dict[str, float]) -> float:
    """The funnel without its ``schema`` stage, rescaled to [0, 1]: the work toward a run of the task
    (completion's part; reading the schema is tool use, paid by tool efficiency)."""
    rest = {k: v for k, v in stages.items() if k != "schema"}
    return funnel_score(rest) / (1.0 - FUNNEL["schema"])
