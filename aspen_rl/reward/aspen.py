"""Reward: facts from the run trace and the simulator's results, scored in three dimensions.

Every score is in [0, 1] and is a pure, deterministic function of the task and the run trace
(the recorded tool calls, the simulator's answers and the final answer).

``total = w_c * completion + w_t * tool_efficiency + w_q * response_quality``
with weights from settings (default 0.4 / 0.3 / 0.3; non-negative, summing to 1).

**Completion** ``= 0.1 config + 0.1 accepted + 0.2 simulated + 0.1 read + 0.5 targets``

- ``config``: some ``run_simulation`` call carried a JSON object as config.
- ``accepted``: the simulator accepted a config as valid input: a run succeeded, or failed only
  while solving (the HTTP 422 error types of the contract, ``SOLVE_FAILURE_ERROR_TYPES``: flash
  failed, infeasible specification, not converged, balance not closed, timeout, internal error).
- ``simulated``: a run succeeded.
- ``read``: a successful ``get_result`` read a run started in this same trace.
- ``targets``: fraction of ``task.expected_output`` met, within each target's tolerance, by the
  latest results document read that way (``RunTrace.last_results``); equals ``read`` when the task
  has no targets.

**Tool efficiency** ``= order * max(0, 1 - 0.2 failed - 0.1 redundant - 0.1 excess)``

- ``order = (schema + simulate + result) / 3`` where ``schema`` = a successful ``get_schema`` before
  the first ``run_simulation``; ``simulate`` = a run succeeded; ``result`` = a successful
  ``get_result`` of this trace's run after it succeeded.
- Each call is counted once, in this order: *redundant* (same tool and same arguments as an
  earlier call), else *failed* (``ok`` false: a simulator error, a failed simulation, malformed
  JSON), else *useful*; ``excess = max(0, useful - task.ideal_tool_calls)``.

**Response quality** ``= 0.5 reported + 0.3 grounded + 0.2 form`` (0 for an empty answer)

- Numbers are read from the final answer; identifiers (``H1``, ``R-101``, ``CO2``) and the run ids,
  file paths and UUIDs the simulator returned are not numbers. A number *x* matches a value *y*
  when one of ``x, -x`` under one unit reading (as is; percent or kPa ``x/100``; MW or t/h
  ``x*1000``; K ``x - 273.15``) is within ``max(0.02 |y|, 1e-9)`` of *y*; for the readings in the
  number's own unit (as is, K) also within half a unit of the last digit written, except for bare
  integers below 10 (so "0, 1, 2 ... 9" cannot match values they do not state).
- ``reported``: fraction of targets whose value in ``last_results`` is matched by a number in the
  answer (0 without results). Without targets: 1 if any number matches the results, else 0.
- ``grounded = 1 - hallucinated / considered``: *considered* are the answer's numbers except
  integers below 10 written without a decimal point (list markers, counts); *hallucinated* are those
  matching no value the simulator produced (numbers in successful run answers and results
  documents), no value of a config that ran successfully, and no number in the requirement.
  1 when nothing is considered.
- ``form = 0.5 length + 0.5 structure``: ``length`` is 1 for 40..4000 characters, ``n/40`` below,
  ``max(0, 1 - (n - 4000)/4000)`` above; ``structure`` is 1 when the answer has at least two
  non-empty lines (a list, a table, paragraphs), else 0.5.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aspen_rl.tasks.model import AspenTask
from aspen_rl.trace import GET_RESULT, GET_SCHEMA, RUN_SIMULATION, RunTrace, ToolCall, result_run_id

# -- constants of the formula (documented in the module docstring) ------------------------------

COMPLETION_PARTS = {"config": 0.1, "accepted": 0.1, "simulated": 0.2, "read": 0.1, "targets": 0.5}
FAILED_CALL_PENALTY = 0.2
REDUNDANT_CALL_PENALTY = 0.1
EXCESS_CALL_PENALTY = 0.1
QUALITY_PARTS = {"reported": 0.5, "grounded": 0.3, "form": 0.2}
MATCH_REL_TOL = 0.02
MIN_LENGTH, MAX_LENGTH = 40, 4000
# error_type values of a run that failed solving a valid config (HTTP 422, docs/simulator_contract.md).
SOLVE_FAILURE_ERROR_TYPES = frozenset(
    {"FlashFailed", "InfeasibleSpecification", "NotConverged", "BalanceNotClosed", "Timeout", "InternalError"}
)
# Reported value x is read as y = scale * x + offset (same units, percent/kPa, MW/t/h, K).
_UNIT_READINGS: tuple[tuple[float, float], ...] = ((1.0, 0.0), (0.01, 0.0), (1000.0, 0.0), (1.0, -273.15))


class RewardWeights(BaseModel):
    """Weights of the three reward dimensions: non-negative and summing to 1 (within 1e-6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    completion: float = 0.4
    tool_efficiency: float = 0.3
    response_quality: float = 0.3

    @model_validator(mode="after")
    def _check(self) -> RewardWeights:
        values = self.model_dump()
        for name, value in values.items():
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"reward weight {name} must be a non-negative number, got {value}")
        total = sum(values.values())
        if abs(total - 1.0) > 1e-6:
            terms = " + ".join(f"{k}={v:g}" for k, v in values.items())
            raise ValueError(f"reward weights must sum to 1, got {terms} = {total:g}")
        return self


class RewardBreakdown(BaseModel):
    """The reward of one rollout: three dimensions, their weighted total and the sub-scores."""

    completion: float = Field(ge=0.0, le=1.0)
    tool_efficiency: float = Field(ge=0.0, le=1.0)
    response_quality: float = Field(ge=0.0, le=1.0)
    total: float = Field(ge=0.0, le=1.0)
    details: dict[str, float] = Field(default_factory=dict)


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


# -- completion ---------------------------------------------------------------------------------


def _is_accepted(call: ToolCall) -> bool:
    if call.name != RUN_SIMULATION or not isinstance(call.response, dict):
        return False
    if call.response.get("success") is True:
        return True
    return call.response.get("error_type") in SOLVE_FAILURE_ERROR_TYPES


def completion_parts(task: AspenTask, trace: RunTrace) -> dict[str, float]:
    """Sub-scores of completion (each 0..1), keyed as in :data:`COMPLETION_PARTS`."""
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


def completion_score(task: AspenTask, trace: RunTrace) -> float:
    """Completion in [0, 1]: config produced and accepted, run succeeded, results read, targets met."""
    parts = completion_parts(task, trace)
    return _clip(sum(COMPLETION_PARTS[k] * v for k, v in parts.items()))


# -- tool efficiency ----------------------------------------------------------------------------


def _call_key(call: ToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


def classify_calls(trace: RunTrace) -> dict[str, int]:
    """Count calls as ``redundant`` (repeat of an earlier call), else ``failed``, else ``useful``."""
    counts = {"useful": 0, "failed": 0, "redundant": 0}
    seen: set[str] = set()
    for call in trace.calls:
        key = _call_key(call)
        if key in seen:
            counts["redundant"] += 1
        elif not call.ok:
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
        own = trace.run_ids
        result = any(
            c.name == GET_RESULT and c.ok and result_run_id(c) in own for c in calls[first_ok_run + 1 :]
        )
    return {
        "schema": 1.0 if schema else 0.0,
        "simulate": 1.0 if first_ok_run is not None else 0.0,
        "result": 1.0 if result else 0.0,
    }


def tool_efficiency_score(task: AspenTask, trace: RunTrace) -> float:
    """Tool efficiency in [0, 1]: sensible order, minus penalties for failed/redundant/excess calls."""
    order = sum(order_parts(trace).values()) / 3.0
    counts = classify_calls(trace)
    excess = max(0, counts["useful"] - task.ideal_tool_calls)
    penalty = (
        FAILED_CALL_PENALTY * counts["failed"]
        + REDUNDANT_CALL_PENALTY * counts["redundant"]
        + EXCESS_CALL_PENALTY * excess
    )
    return _clip(order * max(0.0, 1.0 - penalty))


# -- response quality ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)"
    r"|(?P<num>(?:(?<![^\s=:：(（\[,，/])-)?"
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE][-+]?\d+)?)"
)


class ReportedNumber(BaseModel):
    """A number written in an answer, with the resolution it was written at."""

    value: float
    half_unit: float
    is_small_int: bool


def extract_numbers(text: str) -> list[ReportedNumber]:
    """Numbers written in a text (``1,234.5``, ``-3.2e-4``, ``80°C``); identifiers are skipped."""
    found: list[ReportedNumber] = []
    for match in _TOKEN.finditer(text):
        raw = match.group("num")
        if raw is None:
            continue
        cleaned = raw.replace(",", "")
        mantissa, _, exponent = cleaned.lower().partition("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exp = int(exponent) if exponent else 0
        try:
            value = float(cleaned)
        except ValueError:  # pragma: no cover - the pattern only admits numbers
            continue
        if not math.isfinite(value):
            continue
        found.append(
            ReportedNumber(
                value=value,
                half_unit=0.5 * 10.0 ** (exp - decimals),
                is_small_int="." not in mantissa and not exponent and abs(value) < 10,
            )
        )
    return found


def number_matches(number: ReportedNumber, target: float) -> bool:
    """Whether a reported number matches a value, under the unit readings of the module docstring."""
    tol_rel = max(MATCH_REL_TOL * abs(target), 1e-9)
    # The written precision only counts in the number's own unit, and not for bare small integers:
    # scaled (a "0" read as MW is +-500 kW) or granted to digits, it would let "0, 1, 2 ... 9" match
    # almost any value.
    precision = 0.0 if number.is_small_int else number.half_unit
    for x in (number.value, -number.value):
        for scale, offset in _UNIT_READINGS:
            tolerance = max(tol_rel, precision) if scale == 1.0 else tol_rel
            if abs(scale * x + offset - target) <= tolerance:
                return True
    return False


def _numeric_leaves(node: Any) -> Iterator[float]:
    if isinstance(node, bool):
        return
    if isinstance(node, int | float):
        if math.isfinite(node):
            yield float(node)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _numeric_leaves(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _numeric_leaves(value)


def grounded_values(task: AspenTask, trace: RunTrace) -> list[float]:
    """Values an answer may legitimately quote: simulator outputs, successful configs, the requirement."""
    values: set[float] = set()
    for call in trace.calls:
        if call.name in (RUN_SIMULATION, GET_RESULT) and call.ok:
            values.update(_numeric_leaves(call.response))
        if call.name == RUN_SIMULATION and call.ok:
            values.update(_numeric_leaves(call.arguments.get("config")))
    values.update(n.value for n in extract_numbers(task.user_requirement))
    return sorted(values)


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def strip_references(answer: str, trace: RunTrace) -> str:
    """The answer without run ids, file paths and UUIDs the simulator returned (they are not numbers)."""
    references: set[str] = set()
    for call in trace.calls:
        if call.name == RUN_SIMULATION and isinstance(call.response, dict):
            for key in ("run_id", "result_file_path", "aspen_file_path"):
                value = call.response.get(key)
                if isinstance(value, str) and value.strip():
                    references.add(value.strip())
        if call.name == GET_RESULT and isinstance(call.arguments.get("run_id"), str):
            references.add(call.arguments["run_id"].strip())
    for ref in sorted(references, key=len, reverse=True):
        if ref:
            answer = answer.replace(ref, " ")
    return _UUID.sub(" ", answer)


def quality_parts(task: AspenTask, trace: RunTrace) -> dict[str, float]:
    """Sub-scores of response quality (each 0..1), keyed as in :data:`QUALITY_PARTS`."""
    answer = trace.final_answer.strip()
    if not answer:
        return {"reported": 0.0, "grounded": 0.0, "form": 0.0}
    numbers = extract_numbers(strip_references(answer, trace))
    results = trace.last_results

    if results is None:
        reported = 0.0
    elif task.expected_output:
        hits = 0
        for target in task.expected_output:
            actual = target.actual(results)
            if actual is not None and any(number_matches(n, actual) for n in numbers):
                hits += 1
        reported = hits / len(task.expected_output)
    else:
        result_values = list(_numeric_leaves(results))
        reported = 1.0 if any(number_matches(n, v) for n in numbers for v in result_values) else 0.0

    considered = [n for n in numbers if not n.is_small_int]
    if considered:
        allowed = grounded_values(task, trace)
        hallucinated = sum(1 for n in considered if not any(number_matches(n, v) for v in allowed))
        grounded = 1.0 - hallucinated / len(considered)
    else:
        grounded = 1.0

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
        The three dimensions, the weighted total and every sub-score (``details``).
    """
    weights = weights or RewardWeights()
    c_parts = completion_parts(task, trace)
    o_parts = order_parts(trace)
    counts = classify_calls(trace)
    q_parts = quality_parts(task, trace)
    completion = completion_score(task, trace)
    efficiency = tool_efficiency_score(task, trace)
    quality = response_quality_score(task, trace)
    total = (
        weights.completion * completion
        + weights.tool_efficiency * efficiency
        + weights.response_quality * quality
    )
    details: dict[str, float] = {f"completion.{k}": v for k, v in c_parts.items()}
    details.update({f"order.{k}": v for k, v in o_parts.items()})
    details.update({f"calls.{k}": float(v) for k, v in counts.items()})
    details.update({f"quality.{k}": v for k, v in q_parts.items()})
    return RewardBreakdown(
        completion=completion,
        tool_efficiency=efficiency,
        response_quality=quality,
        total=_clip(total),
        details=details,
    )
