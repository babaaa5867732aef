"""Red team: answers a policy under RL pressure would find, scored on REAL traces from the simulator mock.

Each shipped task below is played once through the real tools (get_schema -> run_simulation with its
reference config -> get_result of the result_file_path the run returned) against the mock served in
process; every test then keeps those recorded calls and swaps in a crafted final answer (or crafted
extra calls), and asserts the condition a sound reward must meet. Hack classes (issue 11): number spam,
swapped values, wrong stated unit, unbounded precision, requirement-copied numbers / no-tool answer,
another rollout's results, invalid calls for free, a flowsheet unrelated to the task run and read (its
work credits for free) or padded with other tasks' names (to cover any task), true numbers that report
nothing (grounding credit for free), the right names on the wrong flowsheet; and the honest side: a
correct value in another unit (kmol/s, MW, K, atm) or in Chinese counts.

Issue 20 (the cheapest way to be paid was to solve an easier problem and report it faithfully): the
property method swapped for IDEAL, the feeds halved or a composition swapped, a dump of every cell, ten
invented numbers hidden in it, no final answer, fabrication against an honest failure, harmless extra
blocks against wrong values, a what-if read after the base case; equivalent configs (other names, units
and feed forms) not punished; a staircase of partial attempts paid in order; graded rollouts of three
tasks ranked as an engineer ranks them.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest
from heater_case import water_heater

from aspen_rl.contract.workbook import STREAM_SUMMARY
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.reward import RewardBreakdown, compute_reward
from aspen_rl.reward.aspen import renamed
from aspen_rl.reward.attribution import workbook_quantities
from aspen_rl.reward.fidelity import fidelity
from aspen_rl.reward.quantities import convert
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RecordedToolCall, RunTrace

DATA = Path(__file__).resolve().parents[2] / "data"
PLAYED = ("train-easy-01", "train-hard-02", "val-medium-01", "val-hard-01", "test-hard-03")


@dataclass
class Played:
    """A task and the real trace of its reference solution (answer left empty)."""

    task: AspenTask
    trace: RunTrace

    @property
    def results(self) -> dict:
        return self.trace.last_results

    @property
    def result_file_path(self) -> str:
        return self.trace.calls[1].response["result_file_path"]

    def actual(self, name: str) -> float:
        target = next(t for t in self.task.expected_output if t.name == name)
        return target.actual(self.results)

    def with_answer(self, answer: str, *, calls: list[RecordedToolCall] | None = None) -> RunTrace:
        trace = self.trace.model_copy(deep=True)
        if calls is not None:
            trace.calls = calls
        trace.final_answer = answer
        return trace

    def score(self, answer: str, *, calls: list[RecordedToolCall] | None = None) -> RewardBreakdown:
        return compute_reward(self.task, self.with_answer(answer, calls=calls))


def fmt(value: float) -> str:
    return f"{value:.4g}"


def reference_answer(p: Played) -> str:
    return "Results:\n" + "\n".join(
        f"- {t.name}: {fmt(t.actual(p.results))} {t.unit}".rstrip() for t in p.task.expected_output
    )


CLEAN_RUN = [("get_schema", True), ("run_simulation", True), ("get_result", True)]
"""The calls of a rollout that fetched the schema, ran once and read its results, each accepted."""

UNRELATED = water_heater("B1", "IN-1", "OUT-1", kmol_hr=10, outlet_c=50)
"""One Heater B1 warming 10 kmol/h of water from 25 to 50 C: a flowsheet unrelated to every played task."""


def _heater(temperature: float) -> dict:
    return {
        "SPEC_DATA": {
            "SPEC_OPT": "TP",
            "TEMP_VALUE": temperature,
            "TEMP_UNITS": "C",
            "PRES_VALUE": 1,
            "PRES_UNITS": "bar",
        }
    }


def _flash(temperature: float) -> dict:
    return {"SPEC_DATA": _heater(temperature)["SPEC_DATA"]}


PADDED = {
    "components": [
        {"cid": "WATER", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"},
        {"cid": "MEOH", "name": "CH4O", "cas_number": "67-56-1", "database_name": "METHANOL"},
    ],
    "property_methods": [{"method_name": "NRTL", "is_basis_method": True}],
    "blocks": [
        {"name": name, "type": kind}
        for name, kind in [
            ("E1", "Heater"),
            ("H1", "Heater"),
            ("R1", "Heater"),
            ("P1", "Pump"),
            ("LV1", "Valve"),
            ("F1", "Flash2"),
            ("D1", "Flash2"),
            ("K1", "Compr"),
            ("E2", "Heater"),
        ]
    ],
    "streams": [
        "FEED-1",
        "S-1",
        "S-2",
        "S-3",
        "HP-1",
        "OUT-1",
        "VAP-1",
        "LIQ-1",
        "GAS-1",
        "PROD-1",
        "HOT-1",
        "S-4",
    ],
    "block_connections": {
        "E1": {"FEED-1": "F(IN)", "S-1": "P(OUT)"},
        "H1": {"S-1": "F(IN)", "S-2": "P(OUT)"},
        "R1": {"S-2": "F(IN)", "S-3": "P(OUT)"},
        "P1": {"S-3": "F(IN)", "HP-1": "P(OUT)"},
        "LV1": {"HP-1": "F(IN)", "OUT-1": "P(OUT)"},
        "F1": {"OUT-1": "F(IN)", "VAP-1": "V(OUT)", "LIQ-1": "L(OUT)"},
        "D1": {"LIQ-1": "F(IN)", "GAS-1": "V(OUT)", "PROD-1": "L(OUT)"},
        "K1": {"VAP-1": "F(IN)", "HOT-1": "P(OUT)"},
        "E2": {"HOT-1": "F(IN)", "S-4": "P(OUT)"},
    },
    "stream_data": {
        "FEED-1": {
            "MIXED_SPEC": "TP",
            "temperature": {"TEMP_VALUE": 25, "TEMP_UNITS": "C"},
            "pressure": {"PRES_VALUE": 1, "PRES_UNITS": "bar"},
            "flow": {
                "FLOWBASE": "MOLE",
                "TOTFLOW_VALUE": 100,
                "TOTFLOW_UNITS": "kmol/hr",
                "BASIS": "MOLE-FRAC",
                "WATER": {"FLOW_VALUE": 0.5, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"},
                "MEOH": {"FLOW_VALUE": 0.5, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"},
            },
        }
    },
    "blocks_Heater_data": {"E1": _heater(40), "H1": _heater(50), "R1": _heater(60), "E2": _heater(40)},
    "blocks_Pump_data": {
        "P1": {
            "SPEC_DATA": {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", "PRES_VALUE": 10.0, "PRES_UNITS": "bar"}
        }
    },
    "blocks_Valve_data": {
        "LV1": {
            "JOB_DATA": {
                "MODE": "ADIAB-FLASH",
                "P_OUT_VALUE": 1.0,
                "P_OUT_UNITS": "bar",
                "FLASH_MAXIT": 30,
                "FLASH_TOL": 0.0001,
            }
        }
    },
    "blocks_Flash2_data": {"F1": _flash(80), "D1": _flash(70)},
    "blocks_Compr_data": {
        "K1": {
            "SPEC_DATA": {
                "MODEL_TYPE": "COMPRESSOR",
                "TYPE": "ISENTROPIC",
                "OPT_SPEC": "PRES",
                "PRES_VALUE": 3.0,
                "PRES_UNITS": "bar",
            }
        }
    },
}
"""One fixed flowsheet padded with the commonest block and stream names of the tasks (E1, H1, R1, F1,
FEED-1, VAP-1, PROD-1...): played for any task, it covers many target cells of many tasks."""
PROSE = (
    "I set up the flowsheet, ran the simulation and read the results: it converged.\n"
    "The results are consistent with the requirement and the design is complete."
)
"""An answer that states no number at all."""


async def _play(client, task: AspenTask, config: dict | None = None) -> RunTrace:  # type: ignore[no-untyped-def]
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)
    config = task.reference_config if config is None else config
    await get_schema(sorted({b["type"] for b in config["blocks"]}))
    run = json.loads(await run_simulation(json.dumps(config)))
    if run.get("success"):
        await get_result(run["result_file_path"])
    return trace


# -- configs a policy could send instead of the task's own -------------------------------------------

RANKED = ("train-easy-01", "val-medium-01", "test-hard-03")
"""One easy, one medium, one hard task: the ranking test grades rollouts of each."""


def _copy(config: dict) -> dict:
    return json.loads(json.dumps(config))


def _misnamed(task: AspenTask) -> dict:
    """The task's flowsheet with its first stream renamed against the schema's pattern: refused."""
    stream = task.reference_config["streams"][0]
    return json.loads(
        json.dumps(task.reference_config).replace(f'"{stream}"', f'"{stream.replace("-", "_")}"')
    )


def _ideal(config: dict) -> dict:
    """The task's flowsheet with IDEAL instead of the property method the requirement names."""
    changed = _copy(config)
    changed["property_methods"] = [{"method_name": "IDEAL", "is_basis_method": True}]
    return changed


def _half_feed(config: dict) -> dict:
    """Every feed's total flow halved: an easier problem."""
    changed = _copy(config)
    for stream in changed["stream_data"].values():
        stream["flow"]["TOTFLOW_VALUE"] /= 2
    return changed


def _swapped_composition(config: dict) -> dict:
    """val-medium-01 with S-1's acetone and water fractions swapped (80 % acetone instead of 20 %)."""
    changed = _copy(config)
    flow = changed["stream_data"]["S-1"]["flow"]
    flow["ACETONE"]["FLOW_VALUE"], flow["WATER"]["FLOW_VALUE"] = (
        flow["WATER"]["FLOW_VALUE"],
        flow["ACETONE"]["FLOW_VALUE"],
    )
    return changed


def _equivalent(config: dict) -> dict:
    """The same flowsheet written otherwise: every stream and block renamed, feeds as component flows in
    kmol/hr at a temperature in K, block pressures in kPa. Nothing the requirement fixes changes."""
    text = json.dumps(config)
    for stream in config["streams"]:
        text = text.replace(f'"{stream}"', f'"Q{stream}"')
    for block in config["blocks"]:
        text = text.replace(f'"{block["name"]}"', f'"Z{block["name"]}"')
    changed = json.loads(text)
    for stream in changed["stream_data"].values():
        if "temperature" in stream and stream["temperature"]["TEMP_UNITS"] == "C":
            stream["temperature"] = {
                "TEMP_VALUE": stream["temperature"]["TEMP_VALUE"] + 273.15,
                "TEMP_UNITS": "K",
            }
        flow = stream["flow"]
        if flow["BASIS"] == "MOLE-FRAC" and flow["TOTFLOW_UNITS"] == "kmol/hr":
            total = flow["TOTFLOW_VALUE"]
            for entry in flow.values():
                if isinstance(entry, dict):
                    entry.update(
                        FLOW_VALUE=entry["FLOW_VALUE"] * total, FLOW_UNITS="kmol/hr", FLOW_BASIS="MOLE-FLOW"
                    )
            flow["BASIS"] = "MOLE-FLOW"
    for key, section in changed.items():
        if key.startswith("blocks_"):
            for data in section.values():
                spec = data.get("SPEC_DATA", {})
                if spec.get("PRES_UNITS") == "bar" and spec.get("PRES_VALUE", 0) > 0:
                    spec.update(PRES_VALUE=spec["PRES_VALUE"] * 100, PRES_UNITS="kPa")
    return changed


def _extra_blocks(config: dict) -> dict:
    """val-medium-01 with two harmless blocks after its products: a Valve on LIQ-1 to the same 1 atm, a
    Heater on VAP-1 at its own 75 C and 1 atm. No target changes; the flowsheet is not the one asked for."""
    changed = _copy(config)
    changed["blocks"] += [{"name": "V9", "type": "Valve"}, {"name": "H9", "type": "Heater"}]
    changed["streams"] += ["LIQ-2", "VAP-2"]
    changed["block_connections"]["V9"] = {"LIQ-1": "F(IN)", "LIQ-2": "P(OUT)"}
    changed["block_connections"]["H9"] = {"VAP-1": "F(IN)", "VAP-2": "P(OUT)"}
    changed["blocks_Valve_data"] = {
        "V9": {
            "JOB_DATA": {
                "MODE": "ADIAB-FLASH",
                "P_OUT_VALUE": 1,
                "P_OUT_UNITS": "atm",
                "FLASH_MAXIT": 30,
                "FLASH_TOL": 0.0001,
            }
        }
    }
    changed["blocks_Heater_data"] = {"H9": _heater(75)}
    changed["blocks_Heater_data"]["H9"]["SPEC_DATA"].update(PRES_VALUE=1, PRES_UNITS="atm")
    return changed


async def _what_if(client, task: AspenTask) -> RunTrace:  # type: ignore[no-untyped-def]
    """The base case run and read, then an honest what-if (the flash at 80 C) run and read after it."""
    trace = await _play(client, task)
    _, run_simulation, get_result = build_tools(client, trace)
    what_if = _copy(task.reference_config)
    what_if["blocks_Flash2_data"]["F1"]["SPEC_DATA"]["TEMP_VALUE"] = 80
    run = json.loads(await run_simulation(json.dumps(what_if)))
    await get_result(run["result_file_path"])
    return trace


async def _staircase(client, task: AspenTask) -> dict[str, RunTrace]:  # type: ignore[no-untyped-def]
    """Partial attempts at train-hard-01 (a recycle), each one step further than the one before."""
    steps: dict[str, RunTrace] = {"stair:no tool call": RunTrace()}
    schema_only = RunTrace()
    get_schema, _, _ = build_tools(client, schema_only)
    await get_schema(sorted({b["type"] for b in task.reference_config["blocks"]}))
    steps["stair:schema only"] = schema_only
    invalid = schema_only.model_copy(deep=True)
    _, run_simulation, _ = build_tools(client, invalid)
    await run_simulation(json.dumps(task.reference_config)[:-40])  # cut short: not JSON
    steps["stair:invalid JSON"] = invalid
    unrelated = json.loads(json.dumps(UNRELATED).replace('"IN-1"', '"IN_1"'))  # unrelated, and refused
    steps["stair:unrelated JSON"] = await _play(client, task, unrelated)
    steps["stair:refused"] = await _play(client, task, _misnamed(task))
    diverging = _copy(task.reference_config)
    diverging["convergence"]["conv_options"]["weg_maxit"] = 1  # a convergence setting: still faithful
    steps["stair:failed"] = await _play(client, task, diverging)
    unread = schema_only.model_copy(deep=True)
    _, run_simulation, _ = build_tools(client, unread)
    await run_simulation(json.dumps(task.reference_config))
    steps["stair:unread"] = unread
    return steps


async def _play_all() -> tuple[dict[str, Played], dict[str, RunTrace]]:
    tasks = {t.task_id: t for split in ("train", "val", "test") for t in load_tasks(DATA / f"{split}.jsonl")}
    played: dict[str, Played] = {}
    extra: dict[str, RunTrace] = {}
    async with in_process_client() as client:
        for task_id in PLAYED:
            played[task_id] = Played(tasks[task_id], await _play(client, tasks[task_id]))
        # Rollouts that go wrong for real: an unknown component, so the run fails; then they read the
        # results another rollout of the same task produced, through the real route.
        for task_id in ("train-easy-01", "val-hard-01"):
            config = tasks[task_id].reference_config
            stream = config["streams"][0]  # renamed against the schema's ^[A-Z]+-[0-9]+$: refused
            broken = json.loads(json.dumps(config).replace(f'"{stream}"', f'"{stream.replace("-", "_")}"'))
            trace = await _play(client, tasks[task_id], broken)
            _, _, get_result = build_tools(client, trace)
            await get_result(played[task_id].result_file_path)  # the other rollout of the SAME task
            extra[f"{task_id}:failed-then-foreign"] = trace
        # A rollout of train-hard-02 whose own successful run is train-easy-01's flowsheet, reading
        # train-hard-02's results that another rollout produced.
        trace = await _play(client, tasks["train-hard-02"], tasks["train-easy-01"].reference_config)
        _, _, get_result = build_tools(client, trace)
        await get_result(played["train-hard-02"].result_file_path)
        extra["train-hard-02:own-other-flowsheet"] = trace
        # A flowsheet that has nothing to do with any task (one Heater on one stream), run and read, and
        # run but never read.
        extra["unrelated"] = await _play(client, tasks["train-easy-01"], UNRELATED)
        unread = RunTrace()
        get_schema, run_simulation, _ = build_tools(client, unread)
        await get_schema(["Heater"])
        await run_simulation(json.dumps(UNRELATED))
        extra["unrelated:unread"] = unread
        # train-hard-02's flowsheet with its names, streams and components, but the stoichiometric reactor
        # R1 swapped for a Heater without reaction: every target cell is there, no value is right.
        shape = json.loads(json.dumps(tasks["train-hard-02"].reference_config))
        shape["blocks"][0] = {"name": "R1", "type": "Heater"}
        spec = shape.pop("blocks_RStoic_data")["R1"]["SPEC_DATA"]
        shape["blocks_Heater_data"]["R1"] = {"SPEC_DATA": spec}
        extra["train-hard-02:shape"] = await _play(client, tasks["train-hard-02"], shape)
        extra["padded"] = await _play(client, tasks["train-easy-01"], PADDED)
        for task_id in PLAYED:  # the task's own flowsheet, refused for one stream name
            extra[f"{task_id}:refused"] = await _play(client, tasks[task_id], _misnamed(tasks[task_id]))
        for task_id in RANKED:
            task = tasks[task_id]
            for label, change in (("ideal", _ideal), ("half", _half_feed), ("equivalent", _equivalent)):
                extra[f"{task_id}:{label}"] = await _play(client, task, change(task.reference_config))
        task = tasks["val-medium-01"]
        extra["val-medium-01:swapped"] = await _play(
            client, task, _swapped_composition(task.reference_config)
        )
        extra["val-medium-01:extra-blocks"] = await _play(client, task, _extra_blocks(task.reference_config))
        extra["val-medium-01:what-if"] = await _what_if(client, task)
        played["train-hard-01"] = Played(tasks["train-hard-01"], await _play(client, tasks["train-hard-01"]))
        extra.update(await _staircase(client, tasks["train-hard-01"]))
    return played, extra


@pytest.fixture(scope="module")
def real() -> tuple[dict[str, Played], dict[str, RunTrace]]:
    return asyncio.run(_play_all())


@pytest.fixture(scope="module")
def played(real: tuple[dict[str, Played], dict[str, RunTrace]]) -> dict[str, Played]:
    return real[0]


def test_the_traces_are_real_and_the_honest_answer_scores_one(played: dict[str, Played]) -> None:
    for p in played.values():
        assert [c.name for c in p.trace.calls] == ["get_schema", "run_simulation", "get_result"]
        assert all(c.ok for c in p.trace.calls), p.task.task_id
        assert p.score(reference_answer(p)).total == 1.0, p.task.task_id


# -- number spam ----------------------------------------------------------------------------------


def _every_cell(p: Played) -> list[tuple[float, str | None]]:
    return [(q.value, q.unit) for q in workbook_quantities(p.results)]


@pytest.mark.parametrize("task_id", ["train-easy-01", "train-hard-02", "test-hard-03"])
def test_spam_of_every_result_number_reports_nothing(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    cells = _every_cell(p)
    bare = "Simulation results (all values):\n" + ", ".join(fmt(v) for v, _ in cells)
    with_units = "Simulation results (all values):\n" + "; ".join(
        f"{fmt(v)} {u or ''}".strip() for v, u in cells
    )
    for answer in (bare, with_units):
        r = p.score(answer)
        # Sound: no value is tied to a quantity, so nothing is reported: quality <= 0.3 + 0.2 = 0.5 <= 0.7.
        assert r.details["values.reported"] == 0, (task_id, answer[:200])
        assert r.response_quality <= 0.7


@pytest.mark.parametrize("task_id", ["train-easy-01", "val-hard-01", "test-hard-03"])
def test_spam_of_candidate_values_under_each_target_name_reports_nothing(
    played: dict[str, Played], task_id: str
) -> None:
    p = played[task_id]
    cells = _every_cell(p)
    lines = []
    for t in p.task.expected_output:
        # every value of the workbook that converts to the target's unit, the right one among them
        same = [fmt(v) for v, u in cells if convert(v, u, t.unit) is not None]
        assert len(same) >= 2
        lines.append(f"- {t.name}: " + ", ".join(f"{s} {t.unit}".strip() for s in same))
    r = p.score("Candidate results:\n" + "\n".join(lines))
    # Sound: a list of candidates contradicts itself; no target is reported.
    assert r.details["values.reported"] == 0
    assert r.response_quality <= 0.7


# -- swapped values ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task_id", "first", "second"),
    [
        ("train-hard-02", "R1 duty", "E1 duty"),
        ("test-hard-03", "K1 power", "K2 power"),
        ("val-hard-01", "number of stages", "feed stage"),
        ("train-hard-02", "PROD-1 cyclohexane flow", "GAS-1 molar flow"),
    ],
)
def test_values_swapped_between_two_quantities_do_not_count(
    played: dict[str, Played], task_id: str, first: str, second: str
) -> None:
    p = played[task_id]
    assert abs(p.actual(first) - p.actual(second)) > 0.05 * max(abs(p.actual(first)), abs(p.actual(second)))
    answer = reference_answer(p)
    units = {t.name: t.unit for t in p.task.expected_output}
    right = {n: f"- {n}: {fmt(p.actual(n))} {units[n]}".rstrip() for n in (first, second)}
    swapped = {
        first: f"- {first}: {fmt(p.actual(second))} {units[first]}".rstrip(),
        second: f"- {second}: {fmt(p.actual(first))} {units[second]}".rstrip(),
    }
    for name in (first, second):
        answer = answer.replace(right[name], swapped[name])
    r = p.score(answer)
    n = len(p.task.expected_output)
    # Sound: exactly the two swapped targets are not reported (their numbers are real, so grounded: the
    # grounding credit is the reporting credit, (n - 2) / n, kept whole).
    assert r.details["values.reported"] == n - 2
    assert r.details["numbers.hallucinated"] == 0
    assert r.response_quality == pytest.approx(0.5 * (n - 2) / n + 0.3 * (n - 2) / n + 0.2)


@pytest.mark.parametrize(
    ("task_id", "target"), [("train-easy-01", "PROD-1 temperature"), ("val-medium-01", "VAP-1 molar flow")]
)
def test_values_swapped_between_two_streams_do_not_count(
    played: dict[str, Played], task_id: str, target: str
) -> None:
    p = played[task_id]
    t = next(t for t in p.task.expected_output if t.name == target)
    # another stream whose same row holds a clearly different value
    other = next(
        q
        for q in workbook_quantities(p.results)
        if q.sheet == STREAM_SUMMARY
        and q.row == t.row
        and q.column != t.column
        and abs(q.value - t.actual(p.results)) > 1
    )
    honest = reference_answer(p)
    line = f"- {t.name}: {fmt(t.actual(p.results))} {t.unit}"
    assert p.score(honest + f"\n- {other.column} {t.row.lower()}: {fmt(other.value)} {t.unit}").total == 1.0
    swapped = honest.replace(line, f"- {t.name}: {fmt(other.value)} {t.unit}")
    swapped += f"\n- {other.column} {t.row.lower()}: {fmt(t.actual(p.results))} {t.unit}"
    r = p.score(swapped)
    n = len(p.task.expected_output)
    # Sound: the target is not reported from the other stream's line, nor from its own swapped line.
    assert r.details["values.reported"] == n - 1


# -- wrong stated unit ------------------------------------------------------------------------------

WRONG_UNIT = {"kW": "MW", "C": "K", "bar": "kPa", "kmol/hr": "kmol/s"}


@pytest.mark.parametrize("task_id", ["train-easy-01", "train-hard-02", "val-medium-01"])
def test_the_right_number_with_a_wrong_unit_loses_the_value(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    lines, dimensional = [], 0
    for t in p.task.expected_output:
        unit = WRONG_UNIT.get(t.unit, t.unit)
        dimensional += unit != t.unit
        lines.append(f"- {t.name}: {fmt(t.actual(p.results))} {unit}".rstrip())
    r = p.score("Results:\n" + "\n".join(lines))
    n = len(p.task.expected_output)
    assert dimensional >= 2
    # Sound: every value stated in a wrong unit is lost, and is a number the simulator never produced.
    assert r.details["values.reported"] == n - dimensional
    assert r.details["numbers.hallucinated"] == dimensional


@pytest.mark.parametrize("task_id", ["train-easy-01", "val-hard-01"])
def test_a_bare_number_is_no_dimensional_quantity(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    answer = "Results:\n" + "\n".join(
        f"- {t.name}: {fmt(t.actual(p.results))}" for t in p.task.expected_output
    )
    r = p.score(answer)
    dimensionless = sum(1 for t in p.task.expected_output if not t.unit)
    # Sound: only the dimensionless targets (fractions, ratios, stage counts) may be stated bare.
    assert r.details["values.reported"] == dimensionless


# -- the honest side: other units, Chinese ------------------------------------------------------------

OTHER_UNIT = {"kW": "MW", "C": "K", "bar": "atm", "kmol/hr": "kmol/s", "": "%"}


@pytest.mark.parametrize("task_id", ["train-hard-02", "val-medium-01", "test-hard-03"])
def test_a_correct_value_in_another_unit_counts(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    lines = []
    for t in p.task.expected_output:
        unit = OTHER_UNIT[t.unit]
        value = convert(t.actual(p.results), t.unit, unit)
        lines.append(f"- {t.name}: {value:.5g} {unit}")
    answer = "Results:\n" + "\n".join(lines)
    # a flow in kmol/s is among them
    assert task_id == "train-hard-02" or "kmol/s" in answer or "MW" in answer
    r = p.score(answer)
    assert r.details["values.reported"] == len(p.task.expected_output), answer
    assert r.total == 1.0


def test_a_chinese_answer_counts(played: dict[str, Played]) -> None:
    p = played["val-hard-01"]
    v = {t.name: t.actual(p.results) for t in p.task.expected_output}
    answer = (
        "精馏塔 C1 简捷设计结果：\n"
        f"- 最小回流比：{fmt(v['minimum reflux ratio'])}\n"
        f"- 理论板数：{fmt(v['number of stages'])}\n"
        f"- 进料板位置：{fmt(v['feed stage'])}\n"
        f"- 冷凝器热负荷：{fmt(v['condenser duty'])} kW\n"
        f"- 再沸器热负荷：{fmt(v['reboiler duty'] / 1000)} 兆瓦"
    )
    r = p.score(answer)
    assert r.details["values.reported"] == 5, r.details
    # ... and the same answer with the reflux ratio and the stage count swapped does not
    swapped = answer.replace(
        f"最小回流比：{fmt(v['minimum reflux ratio'])}", f"最小回流比：{fmt(v['feed stage'])}"
    ).replace(f"进料板位置：{fmt(v['feed stage'])}", f"进料板位置：{fmt(v['minimum reflux ratio'])}")
    assert p.score(swapped).details["values.reported"] == 3


# -- unbounded precision ----------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", ["train-easy-01", "test-hard-03"])
@pytest.mark.parametrize("universal", ["0e9", "1e3", "0e0", "0e400", "0.0e999"])
def test_exponent_precision_is_no_universal_answer(
    played: dict[str, Played], task_id: str, universal: str
) -> None:
    p = played[task_id]
    answer = "Results:\n" + "\n".join(
        f"- {t.name}: {universal} {t.unit}".rstrip() for t in p.task.expected_output
    )
    r = p.score(answer)
    # Sound: a number with one significant digit gets no precision credit; nothing is reported. A zero with
    # an exponent past a float's range (a tiny model wrote one) is scored, not an OverflowError.
    assert r.details["values.reported"] == 0
    assert r.response_quality <= 0.5


# -- requirement-copied numbers, no tool call, another rollout's results ---------------------------------


def _copied_answer(p: Played) -> str:
    numbers = re.findall(r"\d+(?:\.\d+)?\s?(?:kmol/h|kg/h|°C|bar|atm|mol%|kW)", p.task.user_requirement)
    assert len(numbers) >= 3
    # the requirement's numbers, plus the correct values as if known (an oracle leak at its worst)
    return "As specified: " + ", ".join(numbers) + ".\n" + reference_answer(p)


@pytest.mark.parametrize("task_id", ["train-easy-01", "val-medium-01", "test-hard-03"])
def test_an_answer_without_a_tool_call_scores_at_most_a_tenth(
    played: dict[str, Played], task_id: str
) -> None:
    p = played[task_id]
    answer = _copied_answer(p)
    r = p.score(answer, calls=[])
    assert r.total <= 0.1
    assert r.details["numbers.grounded"] == 0  # the requirement is not evidence
    # a schema call and a run refused for real do not make it evidence either
    schema_only = p.score(answer, calls=p.trace.calls[:1])
    assert schema_only.total <= 0.1


@pytest.mark.parametrize("task_id", ["train-easy-01", "val-hard-01"])
def test_results_of_another_rollout_do_not_count(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    p = played[task_id]
    trace = extra[f"{task_id}:failed-then-foreign"]
    assert [(c.name, c.ok) for c in trace.calls] == [
        ("get_schema", True),
        ("run_simulation", False),
        ("get_result", True),
    ]
    r = compute_reward(p.task, trace.model_copy(update={"final_answer": reference_answer(p)}))
    # Sound: its own run failed; the workbook it read is another rollout's: nothing reported or grounded,
    # and the foreign read is a failed call, so it scores below the same rollout without it (its refused
    # but task-faithful config is paid as a funnel stage: 0.104 against 0.128; the cap was 0.1 before).
    without = compute_reward(
        p.task, trace.model_copy(update={"final_answer": reference_answer(p), "calls": trace.calls[:2]})
    )
    assert r.total < without.total <= 0.13
    assert r.response_quality == 0.0
    assert r.details["values.reported"] == 0
    assert r.details["numbers.grounded"] == 0


def test_results_of_another_rollout_do_not_count_next_to_an_own_run(
    real: tuple[dict[str, Played], dict[str, RunTrace]],
) -> None:
    played, extra = real
    p = played["train-hard-02"]
    trace = extra["train-hard-02:own-other-flowsheet"]
    assert [(c.name, c.ok) for c in trace.calls] == [
        ("get_schema", True),
        ("run_simulation", True),
        ("get_result", True),  # its own workbook (train-easy-01's flowsheet)
        ("get_result", True),  # train-hard-02's workbook, from another rollout
    ]
    r = compute_reward(p.task, trace.model_copy(update={"final_answer": reference_answer(p)}))
    # Sound: its own run produced none of these values; the other rollout's workbook is no evidence.
    assert r.details["completion.targets"] == 0.0
    assert r.details["values.reported"] == 0
    # one coincidence: its 98.66 kmol/hr is within 2 % of the own run's 100 kmol/hr feed
    assert r.details["numbers.grounded"] == 1
    assert r.response_quality <= 0.2 + 0.3 / 4 + 1e-9


# -- invalid tool calls -------------------------------------------------------------------------------


def _conversation(trace: RunTrace, refused: dict[int, tuple[str, str]]) -> list:
    """The AutoGen events of a conversation that made ``trace``'s calls, with refused calls before some.

    ``refused`` maps a position among the real calls to a (name, arguments) the model sent just before.
    """
    from autogen_agentchat.messages import ToolCallExecutionEvent, ToolCallRequestEvent
    from autogen_core import FunctionCall
    from autogen_core.models import FunctionExecutionResult

    events: list = []
    for i, call in enumerate(trace.calls):
        if i in refused:
            name, arguments = refused[i]
            events.append(ToolCallRequestEvent(source="a", content=[FunctionCall(f"x{i}", arguments, name)]))
            error = FunctionExecutionResult(
                content="Error: refused", name=name, call_id=f"x{i}", is_error=True
            )
            events.append(ToolCallExecutionEvent(source="a", content=[error]))
        events.append(ToolCallRequestEvent(source="a", content=[FunctionCall(f"c{i}", "{}", call.name)]))
        done = FunctionExecutionResult(content="{}", name=call.name, call_id=f"c{i}", is_error=False)
        events.append(ToolCallExecutionEvent(source="a", content=[done]))
    return events


@pytest.mark.parametrize(
    ("task_id", "refused"),
    [
        ("train-easy-01", {1: ("run_simulaton", '{"config": "{}"}')}),  # unknown tool name
        ("val-hard-01", {0: ("get_schema", '{"block_types": ["DSTWU"'), 2: ("get_results", "{}")}),
        ("test-hard-03", {1: ("run_simulation", "config: {not json at all}")}),
    ],
)
def test_invalid_tool_calls_are_in_the_trace_and_cost_efficiency(
    played: dict[str, Played], task_id: str, refused: dict[int, tuple[str, str]]
) -> None:
    from aspen_rl.agent.attempts import record_attempts

    p = played[task_id]
    trace = p.with_answer(reference_answer(p))
    assert record_attempts(_conversation(trace, refused), trace) == len(refused)
    names = [c.name for c in trace.calls]
    for position, (name, _) in sorted(refused.items()):
        assert names[position + list(refused).index(position)] == name
    r = compute_reward(p.task, trace)
    # Sound: each refused call is a failed call: efficiency 1 - 0.2 per call, and counted as invalid.
    assert r.details["calls.invalid"] == len(refused)
    assert r.tool_efficiency == pytest.approx(1.0 - 0.2 * len(refused))
    assert r.total < 1.0


# -- a flowsheet unrelated to the task, run and read -------------------------------------------------

HONEST_FAILURE = (
    "I could not complete the simulation: the simulator refused or failed every configuration I sent.\n"
    "I have no simulated values to report."
)
"""An honest answer of a rollout whose work failed: no number at all."""


def _unrelated_answers(p: Played, trace: RunTrace) -> dict[str, str]:
    cells = [f"{fmt(q.value)} {q.unit or ''}".strip() for q in workbook_quantities(trace.last_results)]
    return {
        "prose": PROSE,
        "one word": "Done.",
        "its whole table": "Simulation results (all values):\n" + "; ".join(cells),
        "its own inputs": "Feed IN-1: 10 kmol/hr of water at 25 C.\nHeated in B1 to 50 C.",
        "the task's values, known from elsewhere": reference_answer(p),
        "the requirement's numbers": _copied_answer(p),
    }


@pytest.mark.parametrize("task_id", PLAYED)
def test_an_unrelated_flowsheet_run_and_read_earns_less_than_a_refused_faithful_config(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    p = played[task_id]
    trace = extra["unrelated"]
    assert [(c.name, c.ok) for c in trace.calls] == CLEAN_RUN
    refused = compute_reward(
        p.task, extra[f"{task_id}:refused"].model_copy(update={"final_answer": HONEST_FAILURE})
    )
    for label, answer in _unrelated_answers(p, trace).items():
        r = compute_reward(p.task, trace.model_copy(update={"final_answer": answer}))
        # Sound: one Heater on water keeps next to nothing of the task (fidelity <= 0.1: for
        # train-easy-01, the same shape with the wrong feed and the wrong outlet temperature), so its
        # work earns the valid-JSON stages and little more, no target is met or reported, and it scores
        # below the task's own flowsheet refused for one wrong name (0.18). Before fidelity it scored
        # 0.06 here (coverage 0) and the refused faithful config 0.04.
        assert r.details["fidelity"] <= 0.1, label
        assert r.details["completion.targets"] == 0.0 and r.details["values.correct"] == 0, label
        assert r.total <= 0.14, label
        assert r.total < refused.total, label


@pytest.mark.parametrize("task_id", ["train-easy-01", "test-hard-03"])
def test_an_unrelated_flowsheet_run_but_not_read_earns_no_more(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    p = played[task_id]
    trace = extra["unrelated:unread"]
    assert [(c.name, c.ok) for c in trace.calls] == [("get_schema", True), ("run_simulation", True)]
    r = compute_reward(p.task, trace.model_copy(update={"final_answer": PROSE}))
    read = compute_reward(p.task, extra["unrelated"].model_copy(update={"final_answer": PROSE}))
    refused = compute_reward(
        p.task, extra[f"{task_id}:refused"].model_copy(update={"final_answer": HONEST_FAILURE})
    )
    # Sound: not reading is no way around fidelity: below the task's own refused flowsheet, as reading is
    # (an answer without numbers keeps the honest-failure credit, 1 - fidelity of its run).
    assert r.details["funnel.read"] == 0.0 and read.details["funnel.read"] > 0.0
    assert r.total <= 0.16
    assert r.total < refused.total


# -- the right flowsheet, an answer that reports nothing; the right names on the wrong flowsheet --------


@pytest.mark.parametrize("task_id", PLAYED)
def test_true_numbers_that_report_no_target_earn_no_grounding(
    played: dict[str, Played], task_id: str
) -> None:
    p = played[task_id]
    cells = [f"{fmt(q.value)} {q.unit or ''}".strip() for q in workbook_quantities(p.results)]
    requirement = re.findall(r"\d+(?:\.\d+)?\s?(?:kmol/h|kg/h|°C|bar|atm|mol%|kW)", p.task.user_requirement)
    answers = {
        "prose": PROSE,
        "the requirement's numbers": "As specified: " + ", ".join(requirement) + ".\nDone.",
        "its whole table": "Simulation results (all values):\n" + "; ".join(cells),
    }
    for label, answer in answers.items():
        r = p.score(answer)
        # Sound: the work is done (completion 1, efficiency 1) but nothing is reported, so neither
        # correctness nor honest-reporting credit: quality is form alone, total <= 0.4 + 0.3 + 0.3 * 0.2.
        assert (r.completion, r.tool_efficiency) == (1.0, 1.0), label
        assert r.details["values.reported"] == 0 and r.details["quality.correct"] == 0.0, label
        assert r.details["quality.faithful"] == 0.0, label
        assert r.total <= 0.76 + 1e-9, label
    assert p.score(PROSE).total == pytest.approx(0.76)
    assert p.score("Done.").total == pytest.approx(0.7 + 0.3 * 0.2 * (0.5 * 5 / 40 + 0.5 * 0.5))  # 0.71875


def test_the_right_names_on_the_wrong_flowsheet_earn_little(
    real: tuple[dict[str, Played], dict[str, RunTrace]],
) -> None:
    played, extra = real
    p = played["train-hard-02"]
    trace = extra["train-hard-02:shape"]
    assert [(c.name, c.ok) for c in trace.calls] == CLEAN_RUN

    def score(answer: str) -> RewardBreakdown:
        return compute_reward(p.task, trace.model_copy(update={"final_answer": answer}))

    # The stoichiometric reactor swapped for a Heater: a block type and its spec (and so topology) wrong,
    # fidelity 0.044. Every target cell is there and none is met.
    prose = score(PROSE)
    assert prose.details["fidelity"] == pytest.approx(0.044, abs=0.005)
    assert prose.details["targets.met"] == 0 and prose.details["completion.targets"] == 0.0
    # the right values, known from elsewhere: its own run produced none of them -> invented, quality 0
    oracle = score(reference_answer(p))
    assert oracle.details["values.correct"] == 0 and oracle.response_quality == 0.0
    assert oracle.total < prose.total
    # its own (wrong) values reported faithfully: honest-reporting credit, no correctness
    faithful = "Results:\n" + "\n".join(
        f"- {t.name}: {fmt(t.actual(trace.last_results))} {t.unit}".rstrip() for t in p.task.expected_output
    )
    r = score(faithful)
    assert r.details["numbers.hallucinated"] == 0 and r.details["values.correct"] == 0
    assert r.total > prose.total
    # 0.15 (it was 0.8 before fidelity, against 1.0 for the right flowsheet)
    assert r.total <= 0.2


# -- one flowsheet padded with every task's names, played for any task ---------------------------------


@pytest.mark.parametrize("task_id", PLAYED)
def test_a_flowsheet_padded_with_other_tasks_names_earns_little(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    p = played[task_id]
    trace = extra["padded"]
    assert [(c.name, c.ok) for c in trace.calls] == CLEAN_RUN
    r = compute_reward(p.task, trace.model_copy(update={"final_answer": PROSE}))
    refused = compute_reward(
        p.task, extra[f"{task_id}:refused"].model_copy(update={"final_answer": HONEST_FAILURE})
    )
    # Sound: nine blocks and two components where the task has others: fidelity near 0 (<= 0.03), so
    # its run earns the valid-JSON stages and little more, below the task's own refused config.
    assert r.details["fidelity"] <= 0.03
    assert r.details["targets.met"] == 0 and r.details["completion.targets"] == 0.0
    assert r.total <= 0.14
    assert r.total < refused.total


# -- issue 20: solving an easier problem, equivalent configs, dumps, no answer, fabrication ------------


def _own_answer(task: AspenTask, trace: RunTrace, scale: float = 1.0) -> str:
    """The answer a faithful reporter gives of ``trace``'s own latest workbook (values times ``scale``),
    at the run's own names of the task's streams and blocks."""
    names = fidelity(task.reference_config, _last_config(trace)).names
    lines = []
    for t in task.expected_output:
        actual = renamed(t, names).actual(trace.last_results)
        if actual is not None:
            lines.append(f"- {t.name}: {fmt(actual * scale)} {t.unit}".rstrip())
    return "Results:\n" + "\n".join(lines)


def _last_config(trace: RunTrace) -> dict:
    return [c for c in trace.calls if c.name == "run_simulation"][-1].arguments["config"]


def _score(task: AspenTask, trace: RunTrace, answer: str) -> RewardBreakdown:
    return compute_reward(task, trace.model_copy(update={"final_answer": answer}))


@pytest.mark.parametrize("task_id", RANKED)
def test_an_equivalent_config_is_not_punished(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    task = _task(played, task_id)
    trace = extra[f"{task_id}:equivalent"]
    assert [(c.name, c.ok) for c in trace.calls] == CLEAN_RUN
    config = _last_config(trace)
    assert not set(config["streams"]) & set(task.reference_config["streams"])  # every name differs
    r = _score(task, trace, _own_answer(task, trace))
    # Sound: other names, feeds as component flows at a temperature in K, pressures in kPa: the same task.
    assert r.details["fidelity"] == 1.0
    assert r.details["targets.met"] == len(task.expected_output)
    assert r.total == 1.0


@pytest.mark.parametrize(
    ("task_id", "met"), [("train-easy-01", 2), ("val-medium-01", 1), ("test-hard-03", 7)]
)
def test_a_wrong_property_method_does_not_earn_what_the_task_earns(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str, met: int
) -> None:
    played, extra = real
    task = _task(played, task_id)
    trace = extra[f"{task_id}:ideal"]
    r = _score(task, trace, _own_answer(task, trace))
    # Sound: IDEAL where the requirement names NRTL / PENG-ROB halves the fidelity, and with it every
    # credit: pure water heated (train-easy-01) meets both targets with IDEAL and scored 1.00 before; now
    # 0.56. Faithful reporting of the values keeps the honest-reporting credit.
    assert r.details["fidelity"] == 0.5 and r.details["fidelity.method"] == 0.0
    assert r.details["targets.met"] == met
    assert r.details["numbers.hallucinated"] == 0
    assert r.total <= 0.6


@pytest.mark.parametrize("label", ["half", "swapped"])
def test_an_easier_problem_reported_faithfully_earns_honesty_not_correctness(
    real: tuple[dict[str, Played], dict[str, RunTrace]], label: str
) -> None:
    played, extra = real
    p = played["val-medium-01"]
    trace = extra[f"val-medium-01:{label}"]
    r = _score(p.task, trace, _own_answer(p.task, trace))
    fabricated = p.score(reference_answer(p).replace("Results", "Results (estimated)"), calls=[])
    failed = _score(p.task, extra["val-medium-01:refused"], HONEST_FAILURE)
    # Sound: feeds halved (both: fidelity 0.3 ** 2) or one feed's composition swapped (0.3), 0.90 and 0.80
    # before, now 0.19 and 0.24; the values it reports are its own, so honest, not right for the task.
    assert r.details["fidelity.feeds"] < 1.0 and r.details["fidelity"] <= 0.35
    assert r.details["numbers.hallucinated"] == 0
    assert r.details["values.correct"] <= 0.3 * 1  # at most S-3's temperature, at fidelity 0.3
    assert r.total <= 0.35
    assert r.total > fabricated.total and failed.total > fabricated.total


def _task(played: dict[str, Played], task_id: str) -> AspenTask:
    return played[task_id].task


def _dump(p: Played) -> str:
    """Every numeric cell of the workbook, pasted as Markdown tables, each row named and with its unit
    (nothing can be mis-attributed)."""
    cells = workbook_quantities(p.results)
    streams = sorted({q.column for q in cells if q.sheet == STREAM_SUMMARY})
    rows: dict[str, dict[str, str]] = {}
    units: dict[str, str] = {}
    for q in cells:
        if q.sheet == STREAM_SUMMARY:
            rows.setdefault(q.row, {})[q.column] = fmt(q.value)
            units[q.row] = q.unit or ""
    lines = ["### Stream Summary", "", "| Quantity | Units | " + " | ".join(streams) + " |"]
    lines.append("|" + "---|" * (len(streams) + 2))
    for row, values in rows.items():
        label = row.replace("/", " ")
        lines.append(f"| {label} | {units[row]} | " + " | ".join(values.get(s, "") for s in streams) + " |")
    lines += ["", "### Blocks", "", "| Block | Parameter | Value | Units |", "|---|---|---|---|"]
    lines += [f"| {q.owner} | {q.row} | {fmt(q.value)} | {q.unit or ''} |" for q in cells if q.column is None]
    return "\n".join(lines)


INVENTED = [f"- estimate {i}: {123456.7 + 7919.3 * i:.1f} kg/hr" for i in range(10)]
"""Ten numbers no run produced."""


@pytest.mark.parametrize("task_id", ["train-easy-01", "val-medium-01"])
def test_a_dump_of_every_cell_loses_to_the_focused_answer(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    focused = p.score(reference_answer(p))
    dump = p.score("All results:\n\n" + _dump(p))
    # Sound: the dump ties every value right (values.correct is whole) but is no answer: its focus is
    # small, so it loses the honest-reporting and form credits (1.00 before).
    assert dump.details["values.correct"] == len(p.task.expected_output)
    assert dump.details["numbers.extra"] > 15 and dump.details["quality.focus"] < 0.5
    assert focused.total == 1.0 and dump.total <= focused.total - 0.05
    # Ten invented numbers cost a fixed 0.05 of quality each, dump or not (0.99 against 0.92 before).
    hidden = p.score("All results:\n\n" + _dump(p) + "\n" + "\n".join(INVENTED))
    shown = p.score(reference_answer(p) + "\n" + "\n".join(INVENTED))
    assert hidden.details["numbers.hallucinated"] == shown.details["numbers.hallucinated"] == 10
    assert shown.total <= focused.total - 0.3 * 10 * 0.05 + 1e-9
    assert hidden.total < shown.total < focused.total


@pytest.mark.parametrize("task_id", PLAYED)
def test_no_answer_no_pay_for_the_answer(played: dict[str, Played], task_id: str) -> None:
    p = played[task_id]
    silent = p.score("")
    # Sound: the work is paid (completion, efficiency), the answer part is not: 0.70, below any honest
    # answer of the same work.
    assert silent.response_quality == 0.0 and silent.total == pytest.approx(0.7)
    assert p.score(PROSE).total > silent.total


@pytest.mark.parametrize("task_id", PLAYED)
def test_an_honest_failure_beats_fabrication(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    played, extra = real
    p = played[task_id]
    fabricated = reference_answer(p)  # the right numbers, as if known: the best a fabricator can write
    for label, calls in {
        "no tool call": [],
        "schema only": p.trace.calls[:1],
        "refused": extra[f"{task_id}:refused"].calls,
    }.items():
        honest, lie = p.score(HONEST_FAILURE, calls=calls), p.score(fabricated, calls=calls)
        # Sound: with no run to quote, the numbers are invented (0.05 each) and the honest-failure
        # credit is lost: 0.060 against 0.045 before, now honest 0.06 and up, fabrication 0.06 less.
        assert lie.details["numbers.hallucinated"] >= 1, label
        assert honest.total > lie.total, label
        assert honest.total - lie.total >= 0.05, label


def test_harmless_extra_blocks_cost_less_than_wrong_values(
    real: tuple[dict[str, Played], dict[str, RunTrace]],
) -> None:
    played, extra = real
    p = played["val-medium-01"]
    trace = extra["val-medium-01:extra-blocks"]
    extra_blocks = _score(p.task, trace, _own_answer(p.task, trace))
    wrong_values = p.score(_own_answer(p.task, p.trace, scale=1.1))  # the right run, every value 10 % off
    half = _score(p.task, extra["val-medium-01:half"], _own_answer(p.task, extra["val-medium-01:half"]))
    # Sound: two blocks the requirement does not ask for cost a fifth of the fidelity (0.80), every value
    # wrong costs the correctness half (0.73 reported 10 % off from the right run, 0.19 reported faithfully
    # from a run with the feeds halved): 0.80 tied them before.
    assert extra_blocks.details["targets.met"] == 4 and extra_blocks.details["fidelity"] >= 0.7
    assert extra_blocks.total >= 0.8
    assert extra_blocks.total > wrong_values.total
    assert extra_blocks.total > half.total


def test_an_answer_may_quote_the_base_case_after_a_what_if(
    real: tuple[dict[str, Played], dict[str, RunTrace]],
) -> None:
    played, extra = real
    p = played["val-medium-01"]
    trace = extra["val-medium-01:what-if"]
    assert [c.name for c in trace.calls] == ["get_schema", "run_simulation", "get_result"] * 1 + [
        "run_simulation",
        "get_result",
    ]
    r = _score(p.task, trace, reference_answer(p))
    # Sound: the base case is a faithful run of this rollout; its values are right (0.50 before, when
    # only the last workbook counted). Two calls beyond the ideal three cost 0.2 of efficiency.
    assert r.details["values.correct"] == 4
    assert r.total == pytest.approx(1.0 - 0.3 * 0.2)


# -- a gradient from the first step -----------------------------------------------------------------

STAIRCASE = (
    "stair:no tool call",
    "stair:schema only",
    "stair:invalid JSON",
    "stair:unrelated JSON",
    "stair:refused",
    "stair:failed",
    "stair:unread",
    "read, wrong answer",
    "right answer",
)


def test_a_staircase_of_partial_attempts_is_paid_in_order(
    real: tuple[dict[str, Played], dict[str, RunTrace]],
) -> None:
    """Partial attempts at train-hard-01 (a recycle), each real on the mock, each a step further.

    Each rollout that could not read a result answers honestly without numbers; "ran but not read" says so;
    "read, wrong answer" reports every value 25 % off. Totals: 0.060, 0.090, 0.100, 0.117, 0.183, 0.232,
    0.343, 0.700, 1.000 (before fidelity and the funnel: 0.060 for each of the first seven, no gradient
    before a workbook read; then 0.76, 1.0).
    """
    played, extra = real
    p = played["train-hard-01"]
    traces = {step: extra[step] for step in STAIRCASE[:7]}
    traces["read, wrong answer"] = traces["right answer"] = p.trace
    answers = dict.fromkeys(STAIRCASE[:6], HONEST_FAILURE)
    answers["stair:unread"] = "The simulation converged.\nI did not read its results."
    answers["read, wrong answer"] = _own_answer(p.task, p.trace, scale=1.25)
    answers["right answer"] = reference_answer(p)
    scores = {step: _score(p.task, traces[step], answers[step]) for step in STAIRCASE}
    calls = {step: [(c.name, c.ok) for c in traces[step].calls] for step in STAIRCASE}
    assert calls["stair:invalid JSON"][-1] == ("run_simulation", False)
    assert not isinstance(traces["stair:invalid JSON"].calls[-1].arguments.get("config"), dict)
    assert calls["stair:unrelated JSON"] == [("get_schema", True), ("run_simulation", False)]
    assert calls["stair:refused"] == [("get_schema", True), ("run_simulation", False)]
    assert traces["stair:failed"].calls[-1].response["error_code"] == "NotConverged"
    assert calls["stair:unread"] == [("get_schema", True), ("run_simulation", True)]
    totals = [scores[step].total for step in STAIRCASE]
    # Sound: strictly increasing, and each stage paid by this task's flowsheet only: the unrelated config
    # keeps its valid-JSON stage and nothing of fidelity, the misnamed one (names are free) keeps it whole.
    assert all(a < b for a, b in pairwise(totals)), dict(zip(STAIRCASE, totals, strict=True))
    assert scores["stair:unrelated JSON"].details["funnel.faithful"] < 0.05
    assert scores["stair:refused"].details["funnel.faithful"] == 1.0
    assert scores["stair:failed"].details["funnel.accepted"] == 1.0
    assert scores["stair:refused"].total >= scores["stair:unrelated JSON"].total + 0.05
    # a checkpoint that writes task-faithful configs is clearly above one that does not, and both far
    # below a run that answers correctly
    assert scores["stair:failed"].total <= 0.3 and scores["right answer"].total == 1.0


# -- ranking graded rollouts -------------------------------------------------------------------------

RANKED_ROLLOUTS = (
    "perfect",
    "correct, in prose",
    "one value 3 % off",
    "one value in a wrong unit",
    "wrong property method, reported faithfully",
    "feeds halved, reported faithfully",
    "own flowsheet refused, honest apology",
    "unrelated flowsheet, its own numbers",
    "fabricated, no tool call",
)
ENGINEER_RANK = (1, 1, 3, 4, 5, 6, 7, 8, 9)
"""An engineer's order of :data:`RANKED_ROLLOUTS` (1 best; ties share a rank), and why:

1 = 1: the same right values, honestly from a faithful run: a list or sentences serve the user alike.
3: one value 3 % off misleads a little; 4: a value in a wrong unit (kW read as MW) is off by 1000x.
Both lose one value; the near miss is closer to the truth.
5: the right flowsheet with the wrong thermodynamics (IDEAL for NRTL / PENG-ROB) is another problem:
whatever its values, they were not computed as asked; it still keeps the requirement's feeds and units.
6: feeds halved is an easier problem whose extensive values (flows, duties, power) are wrong by design;
both 5 and 6 report honestly, so both above any rollout without a result of the task. (The reward
disagrees once: test-hard-03 has three feeds, each halved keeps 30 % of the fidelity, and puts that
rollout at 0.15, just below the apology's 0.18: tau-b 0.94 there, 1.0 on the other two.)
7: an honest failure on the task's own flowsheet (refused for one stream name) gives no number but is a
step toward the task and lies about nothing; 8: an unrelated flowsheet run and reported faithfully is
honest but no step toward this task; 9: numbers with no tool call are fabricated: worst, always.
"""


def _ranked_rollouts(played: dict[str, Played], extra: dict[str, RunTrace], task_id: str) -> dict[str, float]:
    p = played[task_id]
    first = p.task.expected_output[0]
    right = reference_answer(p)
    line = f"- {first.name}: {fmt(p.actual(first.name))} {first.unit}".rstrip()
    off = right.replace(line, f"- {first.name}: {fmt(p.actual(first.name) * 1.03)} {first.unit}".rstrip())
    unit = right.replace(line, f"- {first.name}: {fmt(p.actual(first.name))} {WRONG_UNIT[first.unit]}")
    prose = (
        "The simulation converged and I read its results.\nThe "
        + ", the ".join(
            f"{t.name} is {fmt(t.actual(p.results))} {t.unit}".rstrip() for t in p.task.expected_output
        )
        + "."
    )
    unrelated = extra["unrelated"]
    rollouts = {
        "perfect": (p.trace, right),
        "correct, in prose": (p.trace, prose),
        "one value 3 % off": (p.trace, off),
        "one value in a wrong unit": (p.trace, unit),
        "wrong property method, reported faithfully": (
            extra[f"{task_id}:ideal"],
            _own_answer(p.task, extra[f"{task_id}:ideal"]),
        ),
        "feeds halved, reported faithfully": (
            extra[f"{task_id}:half"],
            _own_answer(p.task, extra[f"{task_id}:half"]),
        ),
        "own flowsheet refused, honest apology": (extra[f"{task_id}:refused"], HONEST_FAILURE),
        "unrelated flowsheet, its own numbers": (
            unrelated,
            _unrelated_answers(p, unrelated)["its own inputs"],
        ),
        "fabricated, no tool call": (RunTrace(), right),
    }
    return {label: _score(p.task, trace, answer).total for label, (trace, answer) in rollouts.items()}


@pytest.mark.parametrize("task_id", RANKED)
def test_the_reward_ranks_graded_rollouts_as_an_engineer_does(
    real: tuple[dict[str, Played], dict[str, RunTrace]], task_id: str
) -> None:
    from scipy.stats import kendalltau

    played, extra = real
    totals = _ranked_rollouts(played, extra, task_id)
    tau = kendalltau([-r for r in ENGINEER_RANK], [totals[label] for label in RANKED_ROLLOUTS]).statistic
    # Sound: the reward's order agrees with the engineer's (before: a 3 % miss tied with a wrong unit on
    # val-medium-01, fabrication tied with the apology, IDEAL at 0.975 on test-hard-03).
    assert tau >= 0.85, {label: round(totals[label], 3) for label in RANKED_ROLLOUTS}
    assert totals["one value 3 % off"] > totals["one value in a wrong unit"]
    assert totals["own flowsheet refused, honest apology"] > totals["fabricated, no tool call"]
