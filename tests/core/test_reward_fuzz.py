"""Fuzz: no text a policy can write crashes its reward, on REAL traces from the simulator mock.

Two tasks are played once through the real tools (get_schema -> run_simulation with the reference config
-> get_result) against the mock served in process. Each test swaps in a hostile final answer and asserts
that :func:`compute_reward` scores it: a total in [0, 1], and no credit for garbage. Regression: an
exponent no float holds (``1e-`` and 400 nines) raised ``OverflowError``.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.reward import RewardBreakdown, compute_reward
from aspen_rl.reward.attribution import read_statements
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

DATA = Path(__file__).resolve().parents[2] / "data"
PLAYED = ("train-easy-01", "test-hard-03")


async def _play(client, task: AspenTask) -> RunTrace:  # type: ignore[no-untyped-def]
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)
    await get_schema(sorted({b["type"] for b in task.reference_config["blocks"]}))
    run = json.loads(await run_simulation(json.dumps(task.reference_config)))
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
