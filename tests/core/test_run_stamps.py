"""Demonstrations are recorded with run ids stamped over sixteen years, not the morning they were made: a
model trained on them must copy a result path, not write a stamp it learnt by heart."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aspen_rl.datagen.cli import main as datagen_cli
from aspen_rl.datagen.demos import load_demos, record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.datagen.run_stamps import SPREAD, spread_run_ids
from aspen_rl.tasks import load_tasks
from aspen_rl.tasks.datasets import save_tasks
from simulator_mock.errors import InternalError
from simulator_mock.service import worker

ROOT = Path(__file__).resolve().parents[2]


def _paths(demo: dict) -> list[str]:
    """The result paths a demonstration's get_result calls read."""
    return [
        json.loads(call["function"]["arguments"])["result_file_path"]
        for m in demo["messages"]
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == "get_result"
    ]


def _stamp(path: str) -> datetime:
    name = path.replace("\\", "/").rsplit("/", 1)[1]
    return datetime.strptime(name.split("_export_", 1)[1][:15], "%Y%m%d_%H%M%S").replace(tzinfo=UTC)


async def test_the_same_seed_stamps_the_same_times_in_new_runs_read_back() -> None:
    task = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0]

    async def path(seed: int) -> str:
        with spread_run_ids(seed):
            async with in_process_client() as client:
                (demo,), dropped = await record_demos([task], client)  # kept: it read its run back
        assert dropped == []
        (only,) = _paths(demo)
        return only

    first, again, other = await path(3), await path(3), await path(4)
    assert _stamp(first) == _stamp(again) != _stamp(other)
    assert first != again  # the same stamp, a new run id
    assert all(SPREAD[0] <= _stamp(p) < SPREAD[1] for p in (first, other))
    assert worker.use_run_ids(None) is None  # nothing left installed: the clock is back


def test_recorded_demonstrations_carry_stamps_of_different_years(tmp_path: Path) -> None:
    """``python -m aspen_rl.datagen demos``: four transcripts, four stamps, not one morning's."""
    tasks = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[:4]
    save_tasks(tasks, tmp_path / "tasks.jsonl")

    def stamps(seed: int) -> list[datetime]:
        out = tmp_path / f"demos{seed}.jsonl"
        assert (
            datagen_cli(["demos", str(tmp_path / "tasks.jsonl"), "--out", str(out), "--seed", str(seed)]) == 0
        )
        return [_stamp(p) for demo in load_demos(out) for p in _paths(demo)]

    first = stamps(1)
    assert len(first) == 4
    assert len({s.year for s in first}) >= 3  # four draws over 16 years: all in two years is 1 in ~400
    assert all(SPREAD[0] <= s < SPREAD[1] for s in first)
    assert stamps(1) == first != stamps(2)  # --seed is the stream: the same again, another for another


@pytest.mark.parametrize(
    "bad",
    [
        "../evil",
        "20200101_000000_abcdef012345\n",
        "20201399_996099_abcdef012345",
        "20230229_120000_abcdef012345",
        "20200101_000000_ABCDEF012345",
    ],
)
def test_a_run_id_source_that_breaks_the_file_name_format_is_refused(bad: str) -> None:
    """The mock finds and deletes a run's files by the id in their names: an id of another shape (a path, a
    trailing newline, a time that never was, upper-case hex) is an error, not a file name."""
    assert worker.well_formed("20200101_000000_abcdef012345")
    assert worker.well_formed("20240229_235959_abcdef012345")  # a leap day was
    previous = worker.use_run_ids(lambda: bad)
    try:
        with pytest.raises(ValueError, match="run id source"):
            worker.new_run_id()
    finally:
        worker.use_run_ids(previous)


async def test_a_run_under_a_bad_id_source_fails_as_the_services_fault_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Through the service: the run answers HTTP 201 with the mock's internal error (a broken run, not the
    config's fault) and no file is written under a name the mock could later delete. The id has the file
    names' shape but a time that never was (month 13): only the time check stops it."""
    config = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0].reference_config
    assert config is not None
    previous = worker.use_run_ids(lambda: "20201301_000000_abcdef012345")
    try:
        async with in_process_client(tmp_path) as client:
            answer = await client.run_simulation(config)
    finally:
        worker.use_run_ids(previous)
    assert answer["success"] is False
    assert answer["error_type"] == worker.RUN_FAILED
    assert answer["error_code"] == InternalError("x").error_type
    assert "run id source" in answer["error_message"]
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
