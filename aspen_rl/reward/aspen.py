"""The shipped reward: facts from the run trace and the simulator's results, scored in three dimensions.

Every score is in [0, 1] and is a pure, deterministic function of the task and the run trace
(the recorded tool calls, the simulator's answers and the final answer).

``total = w_c * completion + w_t * tool_efficiency + w_q * response_quality``
with weights from settings (default 0.4 / 0.3 / 0.3; non-negative, summing to 1), **capped at 0.1
when no simulation of the rollout succeeded** (an answer without evidence of work is worth little,
however well written).

**Coverage** ``c = covered * focus`` (:mod:`aspen_rl.reward.coverage`), from the latest workbook this
trace read of its own runs (``RunTrace.last_results``): how much of the task the simulated flowsheet is.
``covered`` is the fraction of ``task.expected_output`` whose cell (sheet, row, column) holds a number,
whatever the number; ``focus`` the fraction of the flowsheet's blocks (``<BLOCK>_result`` sheets) and
streams (Stream Summary columns) that the task names (its reference config's blocks and streams, its
targets' owners; 1 without a reference config). ``c`` is 1 for a task without targets, 0 for a task
with targets when no such workbook was read. The work credits below are scaled by it, so running and
reading a flowsheet unrelated to the task, or one padded with other tasks' names to cover any task,
earns (next to) no work credit (``details``: ``coverage``, ``targets.covered``, ``flowsheet.names``,
``flowsheet.foreign``).

**Completion** ``= c * (0.1 config + 0.1 accepted + 0.2 simulated + 0.1 read) + 0.5 targets``

- ``config``: some ``run_simulation`` call carried a JSON object as config.
- ``accepted``: the simulator accepted a config as input: a run succeeded, or was written and failed
  while running (``error_type`` one of the real service's run categories, or a mock solve failure).
- ``simulated``: a run succeeded.
- ``read``: a successful ``get_result`` read the workbook of a run of this same trace.
- ``targets``: fraction of ``task.expected_output`` met, within each target's tolerance, by the latest
  workbook read that way (``RunTrace.last_results``); equals ``read`` when the task has no targets.

**Tool efficiency** ``= c * order * max(0, 1 - 0.2 failed - 0.1 redundant - 0.1 excess)``

- ``order = (schema + simulate + result) / 3``: a successful ``get_schema`` before the first
  ``run_simulation``; a run succeeded; a successful ``get_result`` of this trace's run after it.
- Each call is counted once, in this order: *redundant* (same tool and arguments as an earlier call),
  else *failed* (``ok`` false: a simulator error, a failed run, and every *invalid* call the model
  attempted: an unknown tool name, arguments that are not JSON), else *useful*;
  ``excess = max(0, useful - task.ideal_tool_calls)``.

**Response quality** ``= 0.5 reported + 0.3 grounded + 0.2 form`` (0 for an empty answer)

- The answer is read as statements (:mod:`aspen_rl.reward.attribution`): each number with the unit
  the text states for it and the words that tie it to a quantity. File paths and ids the simulator
  returned are not numbers.
- ``reported``: fraction of targets reported: some statement attributed to the target's cell matches
  its value in ``last_results`` and no statement attributed to it contradicts it. A statement matches
  when its number, converted from its stated unit to the target's unit (pint; a bare number converts
  only to a dimensionless quantity), is within ``max(2 % of the value, the target's abs_tol)`` plus its
  written precision (half a unit of the last digit, credited only with two or more significant
  digits). Without targets: 1 if any statement is attributed to a cell it matches.
- ``grounded = reported * (1 - hallucinated / considered)`` for a task with targets: the reporting
  credit again, kept in the share of the answer's numbers that are grounded, so numbers that report
  no target (none at all, the requirement's, a pasted table) earn no grounding credit however true.
  Without targets ``1 - hallucinated / considered`` (1 when nothing is considered). *considered* are
  the statements except integers below 10 written without a decimal point; *hallucinated* are those
  matching no value this rollout's own successful runs produced (cells of the workbooks it read, in
  their units) and no value of a config that ran successfully. The requirement is not evidence.
- ``form = 0.5 length + 0.5 structure``: ``length`` is 1 for 40..4000 characters, ``n/40`` below,
  ``max(0, 1 - (n - 4000)/4000)`` above; ``structure`` is 1 for two or more non-empty lines, else 0.5.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any

from aspen_rl.contract.run_answer import RUN_ERROR_TYPES
from aspen_rl.reward.attribution import (
    Quantity,
    Statement,
    attribute,
    build_namer,
    converts,
    matches,
    read_statements,
    workbook_quantities,
)
from aspen_rl.reward.base import INVALID_CALL, RewardBreakdown, RewardWeights
from aspen_rl.reward.coverage import coverage
from aspen_rl.reward.quantities import convert_step
from aspen_rl.tasks.model import AspenTask, Target
from aspen_rl.trace import GET_RESULT, GET_SCHEMA, RUN_SIMULATION, RecordedToolCall, RunTrace

# -- constants of the formula (documented in the module docstring) ------------------------------

COMPLETION_PARTS = {"config": 0.1, "accepted": 0.1, "simulated": 0.2, "read": 0.1, "targets": 0.5}
FAILED_CALL_PENALTY = 0.2
REDUNDANT_CALL_PENALTY = 0.1
EXCESS_CALL_PENALTY = 0.1
QUALITY_PARTS = {"reported": 0.5, "grounded": 0.3, "form": 0.2}
MATCH_REL_TOL = 0.02
NO_SIMULATION_CAP = 0.1
MIN_LENGTH, MAX_LENGTH = 40, 4000
KNOWN_TOOLS = frozenset({GET_SCHEMA, RUN_SIMULATION, GET_RESULT})
# Mock solve failures (``error_code``/``error_type``) of a config the simulator accepted as input.
SOLVE_FAILURE_CODES = frozenset(
    {"FlashFailed", "InfeasibleSpecification", "NotConverged", "BalanceNotClosed", "Timeout", "InternalError"}
)


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


# -- completion ---------------------------------------------------------------------------------


def _is_accepted(call: RecordedToolCall) -> bool:
    if call.name != RUN_SIMULATION or not isinstance(call.response, dict):
        return False
    answer = call.response
    if answer.get("success") is True:
        return True
    return answer.get("error_type") in RUN_ERROR_TYPES or bool(
        {answer.get("error_type"), answer.get("error_code")} & SOLVE_FAILURE_CODES
    )


def completion_parts(task: AspenTask, trace: RunTrace) -> dict[str, float]:
    """Sub-scores of completion (each 0..1, before coverage), keyed as in :data:`COMPLETION_PARTS`."""
    runs = trace.calls_named(RUN_SIMULATION)
    results = trace.last_results
    read = 1.0 if results is not None else 0.0
    if task.expected_output:
        met = sum(1 for target in task.expected_output if target.is_met(results))
        targets = met / len(task.expected_output)
    else:
        targets = read
    return {
        "config": 1.0 if any(isinstance(c.arguments.get("config"), dict) for c in runs) else 0.0,
        "accepted": 1.0 if any(_is_accepted(c) for c in runs) else 0.0,
        "simulated": 1.0 if any(c.ok for c in runs) else 0.0,
        "read": read,
        "targets": targets,
    }


def _completion(parts: dict[str, float], scale: float) -> float:
    """``scale * (work credits) + targets credit`` (the work credits: every part but ``targets``)."""
    work = sum(COMPLETION_PARTS[k] * v for k, v in parts.items() if k != "targets")
    return _clip(scale * work + COMPLETION_PARTS["targets"] * parts["targets"])


def completion_score(task: AspenTask, trace: RunTrace) -> float:
    """Completion in [0, 1]: config produced, accepted, run, read (scaled by coverage); targets met."""
    return _completion(completion_parts(task, trace), coverage(task, trace).value)


# -- tool efficiency ----------------------------------------------------------------------------


def _call_key(call: RecordedToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


def is_invalid(call: RecordedToolCall) -> bool:
    """Whether a recorded call is one no tool could take (unknown tool name, arguments not JSON)."""
    return call.name not in KNOWN_TOOLS or (call.error or "").startswith(INVALID_CALL)


def classify_calls(trace: RunTrace) -> dict[str, int]:
    """Count calls as ``redundant`` (repeat of an earlier call), else ``failed``, else ``useful``.

    ``invalid`` counts the failed calls that no tool could take (they are among ``failed`` too).
    """
    counts = {"useful": 0, "failed": 0, "redundant": 0}
    seen: set[str] = set()
    for call in trace.calls:
        key = _call_key(call)
        if key in seen:
            counts["redundant"] += 1
        elif not call.ok or is_invalid(call):
            counts["failed"] += 1
        else:
            counts["useful"] += 1
        seen.add(key)
    return counts


def order_parts(trace: RunTrace) -> dict[str, float]:
    """The three order checks (schema before simulate, a successful simulate, result after it)."""
    calls = trace.calls
    first_run = next((i for i, c in enumerate(calls) if c.name == RUN_SIMULATION), len(calls))
    schema = any(c.name == GET_SCHEMA and c.ok for c in calls[:first_run])
    first_ok_run = next((i for i, c in enumerate(calls) if c.name == RUN_SIMULATION and c.ok), None)
    result = False
    if first_ok_run is not None:
        own = {id(c) for c in trace.own_result_calls()}
        result = any(id(c) in own for c in calls[first_ok_run + 1 :])
    return {
        "schema": 1.0 if schema else 0.0,
        "simulate": 1.0 if first_ok_run is not None else 0.0,
        "result": 1.0 if result else 0.0,
    }


def tool_efficiency_score(task: AspenTask, trace: RunTrace, scale: float | None = None) -> float:
    """Tool efficiency in [0, 1]: sensible order (scaled by coverage), minus failed/redundant/excess calls."""
    scale = coverage(task, trace).value if scale is None else scale
    order = sum(order_parts(trace).values()) / 3.0
    counts = classify_calls(trace)
    excess = max(0, counts["useful"] - task.ideal_tool_calls)
    penalty = (
        FAILED_CALL_PENALTY * counts["failed"]
        + REDUNDANT_CALL_PENALTY * counts["redundant"]
        + EXCESS_CALL_PENALTY * excess
    )
    return _clip(scale * order * max(0.0, 1.0 - penalty))


# -- response quality ---------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _strings(value)


def strip_references(answer: str, trace: RunTrace) -> str:
    """The answer without the run ids, file paths and UUIDs the simulator returned (they are not numbers)."""
    references: set[str] = set()
    for call in trace.calls:
        if call.name == RUN_SIMULATION and isinstance(call.response, dict):
            for key, value in call.response.items():
                if (key == "run_id" or key.endswith("_path")) and isinstance(value, str):
                    references.add(value.strip())
        if call.name == GET_RESULT:
            references.update(s.strip() for s in _strings(call.arguments))
            if isinstance(call.response, dict):
                references.update(s.strip() for s in _strings(call.response.get("file_info")))
    for ref in sorted(references, key=len, reverse=True):
        if len(ref) >= 3:
            answer = answer.replace(ref, " ")
            answer = answer.replace(ref.replace("\\", "/"), " ")
    return _UUID.sub(" ", answer)


def _config_values(node: Any) -> Iterator[tuple[float, str | None]]:
    """Numbers of a config with their unit when a sibling ``<X>_UNITS`` states it (``TEMP_VALUE``)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                if math.isfinite(value):
                    stem = str(key).removesuffix("_VALUE")
                    unit = node.get(f"{stem}_UNITS")
                    yield float(value), unit if isinstance(unit, str) else None
            else:
                yield from _config_values(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _config_values(value)


def own_configs(trace: RunTrace) -> list[dict[str, Any]]:
    """Configs of the runs of this trace that succeeded."""
    return [
        c.arguments["config"]
        for c in trace.calls
        if c.name == RUN_SIMULATION and c.ok and isinstance(c.arguments.get("config"), dict)
    ]


def evidence(trace: RunTrace) -> list[tuple[float, str | None]]:
    """``(value, unit)`` an answer may quote: cells of this trace's own workbooks, its successful configs."""
    values: list[tuple[float, str | None]] = []
    for call in trace.own_result_calls():
        values.extend((q.value, q.unit) for q in workbook_quantities(call.response))
    for config in own_configs(trace):
        values.extend(_config_values(config))
    return values


class Evidence:
    """Values an answer may quote, grouped by unit and sorted, so each number is checked in log time.

    A number matches a value when, read in its stated unit and converted to the value's unit, it is
    within 2 % of the value plus its written precision (either sign, except temperatures). A bare
    number, or a value of unknown unit (a config number without a ``_UNITS`` sibling), is compared as
    written.
    """

    def __init__(self, values: list[tuple[float, str | None]]) -> None:
        groups: dict[str | None, list[float]] = {}
        for value, unit in values:
            groups.setdefault(unit or None, []).append(value)
        self.groups = {unit: sorted(found) for unit, found in groups.items()}

    def grounds(self, statement: Statement) -> bool:
        """Whether some value matches ``statement``."""
        bare = Statement(statement.value, statement.half_unit, statement.significant, statement.is_small_int)
        for unit, found in self.groups.items():
            # in the value's unit; a percent against a unit-less value as a fraction; else as written
            readings = [(statement, unit)] if statement.unit and unit else [(statement, None), (bare, None)]
            if any(self._near(read, in_unit, found) for read, in_unit in readings):
                return True
        return False

    @staticmethod
    def _near(read: Statement, unit: str | None, found: list[float]) -> bool:
        value = converts(read, unit)
        if value is None:
            return False
        window = 0.05 * abs(value) + convert_step(read.value, read.precision, read.unit, unit) + 1e-9
        for center in (value, -value):
            near = found[bisect_left(found, center - window) : bisect_right(found, center + window)]
            if any(matches(read, v, unit, max(MATCH_REL_TOL * abs(v), 1e-9)) for v in near):
                return True
        return False


def _component_names(trace: RunTrace) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for config in own_configs(trace):
        for component in config.get("components") or []:
            if isinstance(component, dict) and isinstance(component.get("cid"), str):
                names.setdefault(component["cid"], set()).update(
                    component[k] for k in ("name", "database_name") if isinstance(component.get(k), str)
                )
    return names


def target_tolerance(target: Target, actual: float) -> float:
    """How far a reported value may be from the simulator's value and still report the target."""
    return max(MATCH_REL_TOL * abs(actual), target.abs_tol, 1e-9)


def quality_facts(task: AspenTask, trace: RunTrace) -> dict[str, float]:
    """Counts behind response quality: targets reported, numbers considered / grounded / hallucinated."""
    answer = trace.final_answer.strip()
    facts = {"targets": float(len(task.expected_output)), "reported": 0.0, "considered": 0.0, "grounded": 0.0}
    if not answer:
        return facts
    statements = read_statements(strip_references(answer, trace))
    results = trace.last_results
    found: list[Quantity] = workbook_quantities(results) if results is not None else []
    namer = build_namer(
        found,
        [(t.name, (t.sheet, t.row, t.column)) for t in task.expected_output],
        _component_names(trace),
    )
    attributed = attribute(statements, found, namer)

    if results is not None and task.expected_output:
        for target in task.expected_output:
            actual = target.actual(results)
            if actual is None:
                continue
            tolerance = target_tolerance(target, actual)
            mine = [
                s
                for s, quantities in zip(statements, attributed, strict=True)
                if any(q.address == (target.sheet, target.row, target.column) for q in quantities)
            ]
            if mine and all(matches(s, actual, target.unit, tolerance) for s in mine):
                facts["reported"] += 1
    elif results is not None:
        facts["reported"] = float(
            any(
                matches(s, q.value, q.unit, max(MATCH_REL_TOL * abs(q.value), 1e-9))
                for s, quantities in zip(statements, attributed, strict=True)
                for q in quantities
            )
        )

    considered = [s for s in statements if not s.is_small_int]
    known = Evidence(evidence(trace))
    facts["considered"] = float(len(considered))
    facts["grounded"] = float(sum(1 for s in considered if known.grounds(s)))
    return facts


def quality_parts(
    task: AspenTask, trace: RunTrace, facts: dict[str, float] | None = None
) -> dict[str, float]:
    """Sub-scores of response quality (each 0..1), keyed as in :data:`QUALITY_PARTS`."""
    answer = trace.final_answer.strip()
    if not answer:
        return {"reported": 0.0, "grounded": 0.0, "form": 0.0}
    facts = facts if facts is not None else quality_facts(task, trace)
    if task.expected_output:
        reported = facts["reported"] / facts["targets"]
        # The reporting credit again, kept in the share of the answer's numbers that are grounded (a
        # reported value is a considered statement, so ``considered`` is not 0 when ``reported`` is not).
        grounded = reported * facts["grounded"] / facts["considered"] if reported else 0.0
    else:
        reported = facts["reported"]
        grounded = facts["grounded"] / facts["considered"] if facts["considered"] else 1.0

    length = len(answer)
    if length < MIN_LENGTH:
        length_score = length / MIN_LENGTH
    elif length > MAX_LENGTH:
        length_score = max(0.0, 1.0 - (length - MAX_LENGTH) / MAX_LENGTH)
    else:
        length_score = 1.0
    lines = [line for line in answer.splitlines() if line.strip()]
    structure = 1.0 if len(lines) >= 2 else 0.5
    return {"reported": reported, "grounded": grounded, "form": 0.5 * length_score + 0.5 * structure}


def response_quality_score(task: AspenTask, trace: RunTrace) -> float:
    """Response quality in [0, 1]: requested values reported correctly, no invented numbers, readable."""
    parts = quality_parts(task, trace)
    return _clip(sum(QUALITY_PARTS[k] * v for k, v in parts.items()))


# -- total --------------------------------------------------------------------------------------


def compute_reward(task: AspenTask, trace: RunTrace, weights: RewardWeights | None = None) -> RewardBreakdown:
    """Score one rollout.

    Args:
        task: The task the agent worked on.
        trace: The rollout's recorded tool calls and final answer.
        weights: Dimension weights (default 0.4 / 0.3 / 0.3).

    Returns:
        The three dimensions, the weighted total and every sub-score and count (``details``).
    """
    weights = weights or RewardWeights()
    covers = coverage(task, trace)
    c_parts = completion_parts(task, trace)
    o_parts = order_parts(trace)
    counts = classify_calls(trace)
    facts = quality_facts(task, trace)
    q_parts = quality_parts(task, trace, facts)
    completion = _completion(c_parts, covers.value)
    efficiency = tool_efficiency_score(task, trace, covers.value)
    quality = _clip(sum(QUALITY_PARTS[k] * v for k, v in q_parts.items()))
    total = (
        weights.completion * completion
        + weights.tool_efficiency * efficiency
        + weights.response_quality * quality
    )
    capped = c_parts["simulated"] == 0.0 and total > NO_SIMULATION_CAP
    if c_parts["simulated"] == 0.0:
        total = min(total, NO_SIMULATION_CAP)
    results = trace.last_results
    details: dict[str, float] = {f"completion.{k}": v for k, v in c_parts.items()}
    details.update({f"order.{k}": v for k, v in o_parts.items()})
    details.update({f"calls.{k}": float(v) for k, v in counts.items()})
    details["calls.invalid"] = float(sum(1 for c in trace.calls if is_invalid(c)))
    for name in sorted(KNOWN_TOOLS):
        details[f"calls.{name}"] = float(sum(1 for c in trace.calls if c.name == name))
    details.update({f"quality.{k}": v for k, v in q_parts.items()})
    details["targets.total"] = float(len(task.expected_output))
    details["targets.met"] = float(sum(1 for t in task.expected_output if t.is_met(results)))
    details["targets.covered"] = float(covers.covered)
    details["flowsheet.names"] = float(covers.names)
    details["flowsheet.foreign"] = float(covers.foreign)
    details["coverage"] = covers.value
    details["values.reported"] = facts["reported"]
    details["numbers.considered"] = facts["considered"]
    details["numbers.grounded"] = facts["grounded"]
    details["numbers.hallucinated"] = facts["considered"] - facts["grounded"]
    details["capped.no_simulation"] = 1.0 if capped else 0.0
    return RewardBreakdown(
        completion=completion,
        tool_efficiency=efficiency,
        response_quality=quality,
        total=_clip(total),
        details=details,
    )


class AspenReward:
    """The shipped reward as a :class:`~aspen_rl.reward.base.RewardFn`, with its weights.

    Args:
        weights: Dimension weights (default 0.4 / 0.3 / 0.3; settings' ``reward`` section).
    """

    def __init__(self, weights: RewardWeights | None = None) -> None:
        self.weights = weights or RewardWeights()

    def __call__(self, task: AspenTask, trace: RunTrace, /) -> RewardBreakdown:
        """Score one rollout (see :func:`compute_reward`)."""
        return compute_reward(task, trace, self.weights)

    def __repr__(self) -> str:
        return f"AspenReward({self.weights!r})"
