"""Fuzz: no text a policy can write crashes its reward, on REAL traces from the simulator mock.

Two tasks are played once through the real tools (get_schema -> run_simulation with the reference config
-> get_result) against the mock served in process. Each test swaps in a hostile final answer, or plays
hostile tool-call arguments through the same tools (or records them as the agent records a call no
tool could take), and asserts that :func:`compute_reward` scores it: a total in [0, 1], and no credit
for garbage. Regressions: an exponent past an int-to-float conversion (``1e-`` and 400 nines) and an
integer past a float's range in a config (``1`` and 400 zeros) raised ``OverflowError``.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspen_rl.agent.attempts import refused_call
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.reward import RewardBreakdown, attribution, compute_reward, quantities
from aspen_rl.reward.attribution import read_statements
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

DATA = Path(__file__).resolve().parents[2] / "data"
PLAYED = ("train-easy-01", "test-hard-03")
HUGE_INT = "1" + "0" * 400
"""An integer JSON reads exactly and no float holds."""


def _reference(task: AspenTask) -> dict[str, Any]:
    assert task.reference_config is not None
    return task.reference_config


async def _play(client: SimulatorClient, task: AspenTask, config_text: str | None = None) -> RunTrace:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)
    await get_schema(sorted({b["type"] for b in _reference(task)["blocks"]}))
    run = json.loads(await run_simulation(config_text or json.dumps(_reference(task))))
    if run.get("success"):
        await get_result(run["result_file_path"])
    return trace


def _tasks() -> dict[str, AspenTask]:
    return {t.task_id: t for split in ("train", "test") for t in load_tasks(DATA / f"{split}.jsonl")}


@pytest.fixture(scope="module")
def played() -> dict[str, tuple[AspenTask, RunTrace]]:
    async def play_all() -> dict[str, tuple[AspenTask, RunTrace]]:
        tasks = _tasks()
        async with in_process_client() as client:
            return {tid: (tasks[tid], await _play(client, tasks[tid])) for tid in PLAYED}

    return asyncio.run(play_all())


def _score(task: AspenTask, trace: RunTrace, answer: str) -> RewardBreakdown:
    trace = trace.model_copy(deep=True)
    trace.final_answer = answer
    return compute_reward(task, trace)


def _honest(task: AspenTask, trace: RunTrace) -> str:
    return "Results:\n" + "\n".join(
        f"- {t.name}: {t.actual(trace.last_results):.4g} {t.unit}".rstrip() for t in task.expected_output
    )


def _answer(task: AspenTask, value: str) -> str:
    """Every target named, each with ``value`` in its unit: what a model would write."""
    return "Results:\n" + "\n".join(f"- {t.name}: {value} {t.unit}".rstrip() for t in task.expected_output)


# -- regressions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", PLAYED)
@pytest.mark.parametrize("exponent", ["-" + "9" * 400, "9" * 400, "-" + "9" * 4000, "+" + "9" * 320])
def test_an_exponent_no_float_holds_is_scored(
    played: dict[str, tuple[AspenTask, RunTrace]], task_id: str, exponent: str
) -> None:
    task, trace = played[task_id]
    assert _score(task, trace, _honest(task, trace)).total == pytest.approx(1.0)
    # "1e-999...9" is 0 (it underflows): its half unit was 10.0 ** -(10**400 - 1), an OverflowError
    for mantissa in ("1", "0", "2.5"):
        r = _score(task, trace, _answer(task, f"{mantissa}e{exponent}"))
        assert r.details["values.reported"] == 0  # no target of these tasks is 0
        assert r.details["values.correct"] == 0
        assert 0.0 <= r.total < 0.8
    assert [s.value for s in read_statements("x 1e-" + "9" * 400)] == [0.0]
    assert read_statements("x 0e-" + "9" * 400)[0].precision == 0.0


def _with_literal(config: dict, key: str, literal: str, where: str = "") -> str:
    """The config as JSON text with the first ``key`` (after ``where``) holding ``literal`` as written."""
    text = json.dumps(config)
    start = text.index(where) if where else 0
    match = re.compile(rf'"{key}": [^,}}\]]+').search(text, start)
    assert match is not None
    return text[: match.start()] + f'"{key}": {literal}' + text[match.end() :]


@pytest.mark.parametrize(
    ("key", "where"),
    [
        ("TEMP_VALUE", '"stream_data"'),
        ("FLOW_VALUE", '"stream_data"'),
        ("TEMP_VALUE", '"blocks_Heater_data"'),
    ],
)
def test_an_integer_no_float_holds_in_a_config_is_a_wrong_value(key: str, where: str) -> None:
    """A feed (or block spec) number past a float's range is no number: that feed (spec) is wrong."""
    task = _tasks()["train-easy-01"]

    async def play() -> RunTrace:
        async with in_process_client() as client:
            return await _play(client, task, _with_literal(_reference(task), key, HUGE_INT, where))

    trace = asyncio.run(play())
    assert not trace.calls[1].ok  # the mock refuses it (InvalidNumber)
    r = _score(task, trace, "It failed.")
    aspect = "specs" if "blocks" in where else "feeds"
    assert r.details[f"fidelity.{aspect}"] == 0.0  # it was an OverflowError in fidelity._number
    assert r.details["fidelity"] == pytest.approx(0.3)  # one wrong feed or block spec keeps 30 %
    assert r.details["funnel.simulated"] == 0.0
    assert 0.0 < r.total < 0.2


# -- fuzz: hostile answers ----------------------------------------------------------------------------

HOSTILE = [
    "0e400",
    "1e-99999",
    "9" * 5000,
    "-" + "9" * 5000,
    "0x1F",
    "1,2,3,,,",
    "--5",
    "5e",
    "5e+",
    "½",
    "１２３",
    "١٢٣",
    "۱۲۳.۴",
    "NaN",
    "nan kW",
    "inf",
    "-inf °C",
    "Infinity",
    "1e308",
    "1.8e308",
    "4.9e-324",
    "1e-400 kW",
    "0." + "0" * 5000 + "1",
    "1" + ",000" * 2000,
    "." * 1000,
    "e" * 1000,
    "0e" + "9" * 5000,
    "1e-" + "9" * 5000,
    "| a | b |\n|---|---|\n| 1 |",
    "|||||\n|||\n||",
    "| |\n|-|\n| 5 |",
    "|\n|",
    "| " * 5000,
    "| x | kW |\n" + "| 1 | 2 | 3 | 4 |\n" * 10000,
    "| Unit | v |\n| kW | 1 |\n| | |\n| °°C | 2 |",
    "```\n```json\n{\n```\n```",
    "`" * 5000,
    "[[[[(((( 5 kW",
    ")))]]] 5 (kW",
    "(" * 10000 + "5" + ")" * 10000,
    "x" * 200_000,
    "5 kW " * 20000,
    "1 °°C",
    "5 kW/kW/kW",
    "5 " + "/".join(["kW"] * 500),
    "5 " + "·".join(["m"] * 500),
    "温度为800摄氏度，压力1兆帕，热负荷3.5千瓦",
    "温度" + "八十" * 1000,
    "\u2212" * 5000 + "5",
    "-\u22125",
    "5 m^3",
    "5 m²³",
    "5 %%%",
    "5 ° C",
    "5 ℃℃",
    "\x00\x01\x02 5 kW \udcff",
    "\r\n\r\n5\r5\r\r",
    "\u2028\u2029 5 kW \x85 6",
]
"""Garbled and hostile answers: odd numbers, ragged tables, fences, brackets, long lines, odd units."""

_FRAGMENTS = st.sampled_from(
    [
        "1e-" + "9" * 400,
        "0e" + "9" * 330,
        "9" * 400,
        "1.7976931348623157e308",
        "-",
        "−",
        ",",
        ".",
        "e",
        "E+",
        "|",
        "||",
        "---",
        "\n",
        " ",
        "(",
        "[kW]",
        "（℃）",
        "kW",
        "°C",
        "K",
        "%",
        "mol%",
        "kmol/hr",
        "/",
        "·",
        "温度",
        "千瓦",
        "１２",
        "٣",
        "½",
        "nan",
        "inf",
        "Unit",
        "duty",
        "temperature",
        "PROD-1",
        "H1",
        "MEOH-1",
        "```",
        "#",
        "**",
        ":",
        "=",
        "0",
        "00",
        "1",
        "80",
        "115.2",
        "3,000",
        "1e3",
    ]
)
ANSWERS = st.one_of(
    st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=60).map("".join),
    st.text(max_size=300),
)
"""Answers hypothesis writes: hostile fragments (numbers, units, table pipes, names) in any order."""


@pytest.mark.parametrize("task_id", PLAYED)
def test_hostile_answers_are_scored(played: dict[str, tuple[AspenTask, RunTrace]], task_id: str) -> None:
    task, trace = played[task_id]
    rng = random.Random(task_id)
    soup = ["".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(300)) for _ in range(10)]
    for answer in [*HOSTILE, *soup, *(_answer(task, value) for value in HOSTILE[:30])]:
        r = _score(task, trace, answer)
        assert 0.0 <= r.total <= 1.0, answer[:80]
        assert r.details["values.correct"] == 0, answer[:80]  # none of it is a right value


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(answer=ANSWERS)
def test_generated_answers_are_scored(played: dict[str, tuple[AspenTask, RunTrace]], answer: str) -> None:
    task, trace = played["train-easy-01"]
    r = _score(task, trace, answer)
    assert 0.0 <= r.total <= 1.0


# -- fuzz: hostile tool-call arguments ----------------------------------------------------------------


def _configs(task: AspenTask) -> dict[str, str]:
    """Config texts a policy could send: odd numbers where numbers go, odd types, odd shapes."""
    config = _reference(task)
    text = json.dumps(config)
    out = {
        f"{key}={literal[:12]}": _with_literal(config, key, literal)
        for key in ("TEMP_VALUE", "PRES_VALUE", "FLOW_VALUE")
        for literal in (
            HUGE_INT,
            "-" + HUGE_INT,
            "NaN",
            "Infinity",
            "-Infinity",
            "1e999",
            '"80"',
            "null",
            "[]",
            "{}",
            "true",
            json.dumps("x" * 5000),
            "[" * 200 + "1" + "]" * 200,
        )
    }
    odd: dict[str, object] = {
        "blocks": [1, None, "x", {"name": ["B"], "type": {"t": 1}}, {"name": "B9", "type": None}],
        "block_connections": {"B1": [1, 2], "X": {"S": None, "T": {"u": 1}}},
        "components": [{"cid": "WATER", "database_name": "x" * 5000}, {"cid": 5}, None, {"cid": "Z"}],
        "stream_data": {s: {"flow": {"BASIS": None, "X": {"FLOW_VALUE": "a"}}} for s in config["streams"]},
        "property_methods": [{"method_name": None, "is_basis_method": "yes"}, 5],
        "note": {"a": [float("nan"), {"": [None] * 50}]},
    }
    out.update({f"odd {key}": json.dumps({**config, key: value}) for key, value in odd.items()})
    out["deep extra"] = json.dumps({**config, "note": "NEST"}).replace('"NEST"', "[" * 300 + "]" * 300)
    out.update(
        {"cut short": text[:-40], "array": f"[{text}]", "string": json.dumps(text), "number": "5", "": ""}
    )
    out["fenced twice"] = "```json\n```json\n" + text + "\n```\n```"
    return out


def test_hostile_tool_arguments_are_scored(played: dict[str, tuple[AspenTask, RunTrace]]) -> None:
    """Configs, get_result arguments and refused calls a policy could write: each rollout is scored."""
    task, base = played["train-easy-01"]
    path = base.calls[1].response["result_file_path"]
    honest = _honest(task, base)
    deep = "[" * 300 + json.dumps(path) + "]" * 300

    async def play_all() -> dict[str, RunTrace]:
        traces: dict[str, RunTrace] = {}
        async with in_process_client() as client:
            for name, text in _configs(task).items():
                traces[f"config {name}"] = await _play(client, task, text)
            for only in ([1, None], [{"a": 1}], [""], ["x" * 5000], [["n"]], [], ["H1"] * 500):
                trace = base.model_copy(deep=True)
                await build_tools(client, trace)[2](path, only)
                traces[f"only {only!r:.30}"] = trace
            for odd_path in (
                5,
                None,
                [path],
                {"p": path},
                path + "\x00",
                f" {path.replace('/', chr(92))} ",
                "",
            ):
                trace = base.model_copy(deep=True)
                await build_tools(client, trace)[2](odd_path)
                traces[f"path {odd_path!r:.30}"] = trace
        for tool in ("get_result", "run_simulation", "get_schema", "no_such_tool", ""):
            for arguments in (
                f'{{"result_file_path": {deep}}}',
                f'{{"config": {deep}, "only": [NaN]}}',
                "not json",
                "[1, 2]",
                '{"config": {"a": NaN, "b": -Infinity}}',
                '{"result_file_path": 1e999}',
                f'{{"config": {HUGE_INT}}}',
                f'{{"result_file_path": {{"x": {json.dumps(path)}}}}}',
            ):
                trace = base.model_copy(deep=True)
                trace.calls.insert(2, refused_call(tool, arguments, "refused"))
                traces[f"refused {tool} {arguments[:20]}"] = trace
        return traces

    traces = asyncio.run(play_all())
    assert len(traces) > 80
    for name, trace in traces.items():
        for answer in (honest, "nan 1e-" + "9" * 400 + " kW", ""):
            trace.final_answer = answer
            r = compute_reward(task, trace)
            assert 0.0 <= r.total <= 1.0, name
            if not any(c.ok for c in trace.calls if c.name == "run_simulation"):
                # no run succeeded: the honest answer reports nothing, the garbled one invents nothing
                assert r.details["values.reported"] == 0, name
                assert r.total < 0.5, name


# -- work: a long hostile answer is read in work linear in its length ---------------------------------


class _Counting:
    """A compiled pattern's stand-in that counts the characters each ``finditer``/``match`` is given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.chars = pattern, 0

    def finditer(self, text: str, *args: int) -> Iterator[re.Match[str]]:
        self.chars += len(text)
        return self.pattern.finditer(text, *args)


def test_a_long_label_is_read_for_bracket_units_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``(kW) `` 2000 times, then 1000 numbers: the label was scanned once per number (92 s at 200 kB)."""
    counting = _Counting(attribution._BRACKET_UNIT)
    monkeypatch.setattr(attribution, "_BRACKET_UNIT", counting)
    answer = "(kW) " * 2000 + "1.5 " * 1000
    statements = read_statements(answer)
    assert len(statements) == 1000
    assert {s.unit for s in statements} == {"kW"}  # the label's bracket unit still applies to each
    assert counting.chars <= 2 * len(answer)  # was 1000 * 10 kB
    # a table's column header: once per table, not once per row
    counting.chars = 0
    table = "| " + "(kW) " * 2000 + " | b |\n" + "| 1.5 | 2.5 |\n" * 1000
    statements = read_statements(table)
    assert len(statements) == 2000
    assert [s.unit for s in statements[:2]] == ["kW", None]
    assert counting.chars <= 2 * len(table)  # was 1000 rows * 10 kB


def test_a_long_unit_chain_is_no_unit_and_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """``5 kW/kW/.../kW`` (66,666 words in 200 kB): each shorter try was parsed by pint (minutes)."""
    seen: list[str] = []
    is_unit = quantities.is_unit

    def counting(text: str) -> bool:
        seen.append(text)
        return is_unit(text)

    monkeypatch.setattr(quantities, "is_unit", counting)
    statements = read_statements("x 5.5 " + "/".join(["kW"] * 1000))
    assert [s.value for s in statements] == [5.5]
    assert statements[0].unit == "kW/kW/kW/kW/kW"  # the longest chain a unit may be (kW^-3, no target's unit)
    assert max(map(len, seen)) <= quantities.MAX_UNIT_CHARS
    assert not quantities.is_unit("/".join(["kW"] * 7)) and quantities.is_unit("kJ/kmol*K")


def _dump(task: AspenTask, trace: RunTrace, count: int) -> str:
    """A table whose one cell holds the right value of each target and ``count`` numbers the results do not
    hold (``1000.5 C``, ``1001.5 kW`` and up: no cell of train-easy-01's results is that hot or large)."""
    right = [f"{t.actual(trace.last_results):.4g} {t.unit}".rstrip() for t in task.expected_output]
    wrong = [f"{1000.5 + i} {('C', 'kW')[i % 2]}" for i in range(count)]
    names = ", ".join(t.name for t in task.expected_output)
    return f"Results:\n\n| Quantity | Values |\n|---|---|\n| {names} | {' '.join(right + wrong)} |\n"


def test_a_cell_of_many_numbers_is_read_in_linear_work(
    played: dict[str, tuple[AspenTask, RunTrace]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One cell holding every number a policy can dump: each number's segment was the whole cell before it,
    so the namer read n^2/2 characters (a 50,000-number cell: 7 GB of layer text, MemoryError)."""
    task, trace = played["train-easy-01"]
    named: list[int] = []
    names = attribution.Namer._names

    def counting(self: attribution.Namer, text: str) -> set[tuple[str, str]]:
        named.append(len(text))
        return names(self, text)

    monkeypatch.setattr(attribution.Namer, "_names", counting)
    answer = _dump(task, trace, 2000)
    r = _score(task, trace, answer)
    assert 0.0 <= r.total <= 1.0
    # the dump earns nothing: its wrong numbers are tied to the targets too and contradict the right ones
    assert r.details["values.reported"] == 0 and r.details["values.correct"] == 0
    assert r.details["numbers.hallucinated"] == 2000
    assert r.details["targets.met"] == 2.0  # the run itself was right: completion and efficiency stay
    assert sum(named) <= 2 * len(answer)  # was 2000 numbers * 8 kB on average
    # the right values alone, in the same table, are a perfect answer
    assert _score(task, trace, _dump(task, trace, 0)).total == pytest.approx(1.0)


def test_a_long_cell_reads_each_number_with_its_nearest_text() -> None:
    """A short cell's segments are all of its text before each number (as before); past
    :data:`attribution.MAX_CONTEXT_CHARS`, a segment is the cell's text before its first number and since
    the previous one, and a long header is read to that length: bounded, whatever the cell's length."""
    short = read_statements(
        "| Stream | Conditions |\n|---|---|\n| PROD-1 | 80.0 C, pressure 1.5 bar, duty 3 kW |"
    )
    assert [s.layers[0] for s in short] == [
        " Conditions",
        "80.0 C, pressure  Conditions",
        "80.0 C, pressure 1.5 bar, duty  Conditions",
    ]
    limit = attribution.MAX_CONTEXT_CHARS
    header = "Heater duty " * 20 + "(kW)"
    cell = "H1 duty " + " ".join(f"{1000 + i}.5 w{i}" for i in range(3000))
    statements = read_statements(f"| Block | {header} |\n|---|---|\n| H1 | {cell} |")
    assert len(statements) == 3000
    assert {s.unit for s in statements} == {"kW"}  # the long header's bracket unit still applies
    segments = [s.layers[0] for s in statements]
    assert max(map(len, segments)) <= 3 * limit + 2
    last = " ".join(segments[-1].split())
    assert last.startswith("H1 duty w2998 Heater duty")  # the cell's lead, its text since the previous number
    assert "w2997" not in last and "(kW)" not in last  # nothing farther
    assert last.endswith("Heater duty")  # the header cut at a word's end ("... Heat" is not read)
