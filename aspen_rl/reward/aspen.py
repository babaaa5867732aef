"""The shipped reward: pays for solving the task *as stated*, read from the run trace, in three dimensions.

Every score is in [0, 1] and is a pure, deterministic function of the task and the run trace (the
recorded tool calls, the simulator's answers and the final answer).

``total = w_c * completion + w_t * tool_efficiency + w_q * response_quality``
with weights from settings (default 0.4 / 0.3 / 0.3; non-negative, summing to 1).

**Fidelity** ``F`` of a config (:mod:`aspen_rl.reward.fidelity`): how much of what the requirement fixes
(components, property method, block types and topology, feeds, block specs) it keeps against the task's
reference config; names, units, convergence settings and equivalent feed forms are free. A wrong
property method halves it, a wrong feed takes 70 %, an unrelated flowsheet keeps next to nothing.

**Funnel** ``P`` (:mod:`aspen_rl.reward.funnel`): ``0.10 schema + 0.05 attempted + 0.05 json + 0.20
faithful + 0.15 accepted + 0.20 simulated + 0.25 read``, each stage from ``faithful`` on the best ``F``
of a config that got that far, so progress before a successful run is paid in order, and only for this
task's flowsheet.

**Completion** ``= 0.2 work + 0.8 targets``. ``work = (P - 0.10 schema) / 0.9``: the funnel without the
schema call (tool use, paid by tool efficiency), so completion is 1 exactly when a faithful run read met
every target. ``targets``: the best, over the workbooks this rollout read of its own runs, of
``F * met / n``, ``met`` the targets of ``task.expected_output`` the workbook meets within tolerance (at
the run's own names of the task's streams and blocks); equals the ``read`` stage for a task without
targets.

**Tool efficiency** ``= P * max(0, 1 - 0.2 failed - 0.1 redundant - 0.1 excess)``: each call counted
once, in this order: *redundant* (same tool and arguments as an earlier call), else *failed* (``ok``
false: a simulator error, a failed run, a ``get_result`` of a run this rollout did not start, every
*invalid* call: unknown tool, arguments not JSON), else *useful*; ``excess = max(0, useful - ideal)``.

**Response quality** (0 for an empty answer: no answer, no pay)
``= clip(0.6 correct + 0.2 faithful * focus + 0.2 form * focus * F_sim - 0.05 invented)``

- The answer is read as statements (:mod:`aspen_rl.reward.attribution`): each number with the unit the
  text states for it and the words that tie it to a quantity of a workbook. File paths and ids the
  simulator returned are not numbers.
- Per target and per workbook read, ``near``: the statements attributed to the target's cell, each read
  in its unit against the workbook's value, within ``max(2 %, abs_tol)`` plus written precision (1),
  falling to 0 at twice that; the worst of them counts (a list of candidates contradicts itself).
- ``correct``: the mean over targets of the best, over workbooks, of ``F * near`` where the workbook
  meets the target: a value earns correctness only when it is right for the task and its run was
  faithful to it; any faithful run of the rollout may be quoted.
- ``faithful``: the mean over targets of the best ``near``, right or not (honest reporting of a wrong
  run); when no workbook read holds a target cell (nothing of the task could be reported), ``1 - F_sim``
  if no number is invented (an honest failure), else 0.
- ``focus = min(1, (n + 5) / extra)``: ``extra`` the statements attributed to no target; a dump of the
  workbook is not an answer.
- ``form = 0.5 length + 0.5 structure`` (``length`` 1 for 40..4000 characters, ``n/40`` below, falling to
  0 at 8000; ``structure`` 1 for two or more lines, else 0.5), paid by ``F_sim``, the best fidelity of a
  successful run: no form credit without a successful simulation of the task.
- ``invented``: numbers (integers below 10 written bare aside) that match no value of this rollout's own
  successful runs (:mod:`aspen_rl.reward.evidence`) and no number of the requirement; each costs 0.05.

Consequences: at least half of the total (0.4 * 0.8 + 0.3 * 0.6) pays only for requested values right
for the task; an honest failure (0.06 and up) beats any fabrication without a run (0 with two or more
invented numbers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from aspen_rl.reward.attribution import (
    Quantity,
    Statement,
    attribute,
    build_namer,
    closeness,
    read_statements,
    workbook_quantities,
)
from aspen_rl.reward.base import INVALID_CALL, RewardBreakdown, RewardWeights
from aspen_rl.reward.evidence import MATCH_REL_TOL, Evidence, evidence, own_configs, strip_references
from aspen_rl.reward.funnel import Reading, Run, funnel_score, funnel_stages, runs_and_readings, work_score
from aspen_rl.tasks.model import AspenTask, Target
from aspen_rl.trace import GET_RESULT, GET_SCHEMA, RUN_SIMULATION, RecordedToolCall, RunTrace

# -- constants of the formula (documented in the module docstring) ------------------------------

COMPLETION_PARTS = {"work": 0.2, "targets": 0.8}
FAILED_CALL_PENALTY = 0.2
REDUNDANT_CALL_PENALTY = 0.1
EXCESS_CALL_PENALTY = 0.1
QUALITY_PARTS = {"correct": 0.6, "faithful": 0.2, "form": 0.2}
INVENTED_NUMBER_COST = 0.05
FOCUS_ALLOWANCE = 5
MIN_LENGTH, MAX_LENGTH = 40, 4000
KNOWN_TOOLS = frozenset({GET_SCHEMA, RUN_SIMULATION, GET_RESULT})


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def renamed(target: Target, names: dict[str, str]) -> Target:
    """The target at the run's own names (``names``: the task's block, stream, component id -> the run's)."""
    sheet = target.sheet
    if sheet.endswith("_result"):
        block = sheet.removesuffix("_result")
        sheet = f"{names.get(block, block)}_result"
    section, slash, cid = target.row.partition("/")
    row = f"{section}/{names.get(cid, cid)}" if slash else target.row
    column = names.get(target.column, target.column) if target.column else None
    if (sheet, row, column) == (target.sheet, target.row, target.column):
        return target
    return target.model_copy(update={"sheet": sheet, "row": row, "column": column})


# -- the facts of one rollout, computed once --------------------------------------------------


@dataclass
class Facts:
    """What the three dimensions read: runs, workbooks, stages, calls, and the answer's statements."""

    task: AspenTask
    trace: RunTrace
    runs: list[Run] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, task: AspenTask, trace: RunTrace) -> Facts:
        runs, readings = runs_and_readings(task, trace)
        return cls(task, trace, runs, readings, funnel_stages(trace, runs, readings))

    @property
    def funnel(self) -> float:
        return funnel_score(self.stages)

    def targets_met(self) -> tuple[float, float]:
        """``(best F * met / n, met count of that workbook)`` over the workbooks read."""
        targets = self.task.expected_output
        if not targets:
            return self.stages["read"], 0.0
        best, count = 0.0, 0.0
        for reading in self.readings:
            met = sum(1 for t in targets if renamed(t, reading.fidelity.names).is_met(reading.workbook))
            if reading.fidelity.value * met / len(targets) >= best:
                best, count = reading.fidelity.value * met / len(targets), float(met)
        return best, count


# -- completion ---------------------------------------------------------------------------------


def completion_parts(task: AspenTask, trace: RunTrace, facts: Facts | None = None) -> dict[str, float]:
    """Sub-scores of completion (each 0..1), keyed as in :data:`COMPLETION_PARTS`."""
    facts = facts or Facts.of(task, trace)
    return {"work": work_score(facts.stages), "targets": facts.targets_met()[0]}


def completion_score(task: AspenTask, trace: RunTrace) -> float:
    """Completion in [0, 1]: ``0.2 work + 0.8 targets`` (see the module docstring)."""
    parts = completion_parts(task, trace)
    return _clip(sum(COMPLETION_PARTS[k] * v for k, v in parts.items()))


# -- tool efficiency ----------------------------------------------------------------------------


def _call_key(call: RecordedToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


def is_invalid(call: RecordedToolCall) -> bool:
    """Whether a recorded call is one no tool could take (unknown tool name, arguments not JSON)."""
    return call.name not in KNOWN_TOOLS or (call.error or "").startswith(INVALID_CALL)


def classify_calls(trace: RunTrace) -> dict[str, int]:
    """Count calls as ``redundant`` (repeat of an earlier call), else ``failed``, else ``useful``.

    A ``get_result`` of a run this trace did not start is failed: it is no step of this rollout's work.
    """
    counts = {"useful": 0, "failed": 0, "redundant": 0}
    seen: set[str] = set()
    own = trace.result_paths
    for call in trace.calls:
        key = _call_key(call)
        foreign = call.name == GET_RESULT and call.ok and not trace.is_own_result(call, own)
        if key in seen:
            counts["redundant"] += 1
        elif not call.ok or is_invalid(call) or foreign:
            counts["failed"] += 1
        else:
            counts["useful"] += 1
        seen.add(key)
    return counts


def call_penalty(task: AspenTask, trace: RunTrace) -> float:
    """``0.2 failed + 0.1 redundant + 0.1 excess`` (see :func:`classify_calls`)."""
    counts = classify_calls(trace)
    excess = max(0, counts["useful"] - task.ideal_tool_calls)
    return (
        FAILED_CALL_PENALTY * counts["failed"]
        + REDUNDANT_CALL_PENALTY * counts["redundant"]
        + EXCESS_CALL_PENALTY * excess
    )


def tool_efficiency_score(task: AspenTask, trace: RunTrace, funnel: float | None = None) -> float:
    """Tool efficiency in [0, 1]: the funnel, less failed, redundant and excess calls."""
    funnel = Facts.of(task, trace).funnel if funnel is None else funnel
    return _clip(funnel * max(0.0, 1.0 - call_penalty(task, trace)))


# -- response quality ---------------------------------------------------------------------------


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


def _requirement_numbers(task: AspenTask) -> Evidence:
    return Evidence([(s.value, s.unit) for s in read_statements(task.user_requirement)])


@dataclass
class _Judgement:
    """What one workbook read says of the answer: per target the best ``near`` and ``F * near`` where
    met, which statements are tied to something asked, whether a target cell was there to report."""

    near: list[float]
    correct: list[float]
    asked: list[bool]
    reportable: bool = False

    def merge(self, other: _Judgement) -> None:
        self.near = [max(a, b) for a, b in zip(self.near, other.near, strict=True)]
        self.correct = [max(a, b) for a, b in zip(self.correct, other.correct, strict=True)]
        self.asked = [a or b for a, b in zip(self.asked, other.asked, strict=True)]
        self.reportable = self.reportable or other.reportable


def _judge(
    task: AspenTask, reading: Reading, statements: list[Statement], components: dict[str, set[str]]
) -> _Judgement:
    """The answer's statements against one workbook read (targets at the run's own names)."""
    found: list[Quantity] = workbook_quantities(reading.workbook)
    targets = [renamed(t, reading.fidelity.names) for t in task.expected_output]
    namer = build_namer(found, [(t.name, (t.sheet, t.row, t.column)) for t in targets], components)
    attributed = attribute(statements, found, namer)
    size = max(1, len(targets))
    out = _Judgement([0.0] * size, [0.0] * size, [bool(q) and not targets for q in attributed])
    if not targets:  # without targets, any statement matching the cell it is tied to reports
        out.near[0] = max(
            (
                closeness(s, q.value, q.unit, max(MATCH_REL_TOL * abs(q.value), 1e-9))
                for s, quantities in zip(statements, attributed, strict=True)
                for q in quantities
            ),
            default=0.0,
        )
        out.correct[0] = reading.fidelity.value * out.near[0]
        out.reportable = bool(found)
        return out
    for i, target in enumerate(targets):
        address = (target.sheet, target.row, target.column)
        mine = [j for j, quantities in enumerate(attributed) if any(q.address == address for q in quantities)]
        for j in mine:
            out.asked[j] = True
        actual = target.actual(reading.workbook)
        out.reportable = out.reportable or actual is not None
        if actual is None or not mine:
            continue
        tolerance = target_tolerance(target, actual)
        out.near[i] = min(closeness(statements[j], actual, target.unit, tolerance) for j in mine)
        if target.is_met(reading.workbook):
            out.correct[i] = reading.fidelity.value * out.near[i]
    return out


def quality_facts(task: AspenTask, trace: RunTrace, facts: Facts | None = None) -> dict[str, float]:
    """Counts behind response quality (see the module docstring).

    Keys: ``targets``; ``correct`` and ``reported`` (sums over targets of the best ``F * near`` where
    met, and of the best ``near``); ``considered``, ``grounded``, ``invented`` numbers; ``extra``
    statements attributed to no target; ``reportable`` 1 when some workbook read holds a target cell.
    """
    answer = trace.final_answer.strip()
    out = {
        "targets": float(len(task.expected_output)),
        "correct": 0.0,
        "reported": 0.0,
        "considered": 0.0,
        "grounded": 0.0,
        "invented": 0.0,
        "extra": 0.0,
        "reportable": 0.0,
    }
    if not answer:
        return out
    facts = facts or Facts.of(task, trace)
    statements = read_statements(strip_references(answer, trace))
    components = _component_names(trace)
    size = max(1, len(task.expected_output))
    judged = _Judgement([0.0] * size, [0.0] * size, [False] * len(statements))
    for reading in facts.readings:
        judged.merge(_judge(task, reading, statements, components))
    out["correct"], out["reported"] = sum(judged.correct), sum(judged.near)
    out["reportable"] = float(judged.reportable)
    asked = judged.asked

    considered = [(s, a) for s, a in zip(statements, asked, strict=True) if not s.is_small_int]
    known, given = Evidence(evidence(trace)), _requirement_numbers(task)
    grounded = [known.grounds(s) for s, _ in considered]
    out["considered"] = float(len(considered))
    out["grounded"] = float(sum(grounded))
    out["invented"] = float(
        sum(1 for (s, _), g in zip(considered, grounded, strict=True) if not g and not given.grounds(s))
    )
    out["extra"] = float(sum(1 for _, a in considered if not a))
    return out


def _form(answer: str) -> float:
    length = len(answer)
    if length < MIN_LENGTH:
        length_score = length / MIN_LENGTH
    elif length > MAX_LENGTH:
        length_score = max(0.0, 1.0 - (length - MAX_LENGTH) / MAX_LENGTH)
    else:
        length_score = 1.0
    lines = [line for line in answer.splitlines() if line.strip()]
    return 0.5 * length_score + 0.5 * (1.0 if len(lines) >= 2 else 0.5)


def quality_parts(
    task: AspenTask, trace: RunTrace, facts: Facts | None = None, counts: dict[str, float] | None = None
) -> dict[str, float]:
    """Sub-scores of response quality: ``correct``, ``faithful``, ``form``, ``focus`` (0..1), ``invented``."""
    answer = trace.final_answer.strip()
    if not answer:
        return {"correct": 0.0, "faithful": 0.0, "form": 0.0, "focus": 0.0, "invented": 0.0}
    facts = facts or Facts.of(task, trace)
    counts = counts if counts is not None else quality_facts(task, trace, facts)
    n = max(1, len(task.expected_output))
    # with no target cell read there is nothing to report: an answer that invents nothing is honest, as far
    # as no run of the task succeeded (a faithful run left unread had values to report)
    honest_failure = 1.0 - facts.stages["simulated"] if counts["invented"] == 0 else 0.0
    faithful = counts["reported"] / n if counts["reportable"] else honest_failure
    allowance = len(task.expected_output) + FOCUS_ALLOWANCE
    focus = min(1.0, allowance / counts["extra"]) if counts["extra"] else 1.0
    return {
        "correct": counts["correct"] / n,
        "faithful": faithful,
        "form": _form(answer) * facts.stages["simulated"],
        "focus": focus,
        "invented": counts["invented"],
    }


def _quality(parts: dict[str, float]) -> float:
    return _clip(
        QUALITY_PARTS["correct"] * parts["correct"]
        + QUALITY_PARTS["faithful"] * parts["faithful"] * parts["focus"]
        + QUALITY_PARTS["form"] * parts["form"] * parts["focus"]
        - INVENTED_NUMBER_COST * parts["invented"]
    )


def response_quality_score(task: AspenTask, trace: RunTrace) -> float:
    """Response quality in [0, 1]: requested values right for the task, honest, focused, readable."""
    return _quality(quality_parts(task, trace))


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
    facts = Facts.of(task, trace)
    targets, met = facts.targets_met()
    funnel = facts.funnel
    work = work_score(facts.stages)
    completion = _clip(COMPLETION_PARTS["work"] * work + COMPLETION_PARTS["targets"] * targets)
    efficiency = _clip(funnel * max(0.0, 1.0 - call_penalty(task, trace)))
    counts = quality_facts(task, trace, facts)
    q_parts = quality_parts(task, trace, facts, counts)
    quality = _quality(q_parts)
    total = (
        weights.completion * completion
        + weights.tool_efficiency * efficiency
        + weights.response_quality * quality
    )
    details: dict[str, float] = {f"funnel.{k}": v for k, v in facts.stages.items()}
    details["funnel"] = funnel
    details["completion.work"] = work
    details["completion.targets"] = targets
    best = max(facts.runs, key=lambda r: r.fidelity.value, default=None)
    details["fidelity"] = best.fidelity.value if best is not None else 0.0
    for aspect, share in (best.fidelity.parts if best is not None else {}).items():
        details[f"fidelity.{aspect}"] = share
    calls = classify_calls(trace)
    details.update({f"calls.{k}": float(v) for k, v in calls.items()})
    details["calls.invalid"] = float(sum(1 for c in trace.calls if is_invalid(c)))
    for name in sorted(KNOWN_TOOLS):
        details[f"calls.{name}"] = float(sum(1 for c in trace.calls if c.name == name))
    details.update({f"quality.{k}": v for k, v in q_parts.items() if k != "invented"})
    details["targets.total"] = float(len(task.expected_output))
    details["targets.met"] = met
    details["values.correct"] = counts["correct"]
    details["values.reported"] = counts["reported"]
    details["numbers.considered"] = counts["considered"]
    details["numbers.grounded"] = counts["grounded"]
    details["numbers.hallucinated"] = counts["invented"]
    details["numbers.extra"] = counts["extra"]
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
