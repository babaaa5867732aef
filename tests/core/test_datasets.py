"""Shipped datasets: tiers and languages, every reference config runs on the mock, expected values fresh."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from aspen_rl.datagen.cli import main as datagen_cli
from aspen_rl.datagen.regenerate import in_process_client, regenerate_task
from aspen_rl.reward import compute_reward
from aspen_rl.simulator import SimulatorClient
from aspen_rl.tasks import SPLITS, Difficulty, load_split, load_tasks, save_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

# every split plus the curated extra tasks; the test split and the extras (the slowest configs) are run
# by .ci/run, left out of -m "not slow"
SPLITS_FAST_FIRST = [
    pytest.param(s, marks=pytest.mark.slow) if s in ("test", "extra") else s for s in (*SPLITS, "extra")
]

DATA = Path(__file__).resolve().parents[2] / "data"
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def all_tasks() -> dict[str, list]:
    return {name: load_split(name, data_dir=DATA) for name in SPLITS}


def test_tiers_sizes_and_languages(all_tasks: dict[str, list]) -> None:
    tiers = {name: [t.difficulty for t in tasks] for name, tasks in all_tasks.items()}
    assert (tiers["train"].count(Difficulty.EASY), tiers["train"].count(Difficulty.MEDIUM)) == (3, 4)
    assert tiers["train"].count(Difficulty.HARD) == 3
    assert len(tiers["val"]) == 5
    assert tiers["test"] == [Difficulty.HARD] * 3
    every = [t for tasks in all_tasks.values() for t in tasks]
    assert len({t.task_id for t in every}) == 18
    # the curated tasks moved out of the tiers stay maintained, in data/extra.jsonl (split "extra")
    extra = load_tasks(DATA / "extra.jsonl")
    assert extra and all(t.split == "extra" for t in extra)
    assert not {t.task_id for t in extra} & {t.task_id for t in every}
    chinese = [t for t in every if CJK.search(t.user_requirement)]
    assert len(chinese) * 3 >= len(every)
    for name, tasks in all_tasks.items():
        assert all(t.split == name and t.reference_config and t.expected_output for t in tasks)


def test_requirements_name_the_blocks_and_streams_of_their_targets(all_tasks: dict[str, list]) -> None:
    for task in (t for tasks in all_tasks.values() for t in tasks):
        for target in task.expected_output:
            owner = target.column if target.column else target.sheet.removesuffix("_result")
            assert re.search(rf"(?<![A-Za-z0-9]){re.escape(owner)}(?![A-Za-z0-9])", task.user_requirement), (
                f"{task.task_id}: {owner} (target {target.name!r}) is not named in the requirement"
            )


@pytest.fixture
async def mock_client() -> SimulatorClient:
    async with in_process_client() as client:
        yield client


@pytest.mark.parametrize("split", SPLITS_FAST_FIRST)
async def test_reference_configs_run_and_expected_outputs_are_fresh(
    split: str, mock_client: SimulatorClient
) -> None:
    for task in load_tasks(DATA / f"{split}.jsonl"):
        fresh, changes = await regenerate_task(task, mock_client)  # raises if the run fails
        assert changes == [], (
            f"{task.task_id}: stale expected values, run `python -m aspen_rl.datagen regenerate`"
        )
        assert fresh == task


def test_regenerate_command_rewrites_stale_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "val.jsonl"
    shutil.copy(DATA / "val.jsonl", path)
    original = path.read_text(encoding="utf-8")
    tasks = load_tasks(path)
    first = tasks[0].expected_output[0]
    stale_value = round(first.value * 1.5 + 1.0, 3)
    targets = [first.model_copy(update={"value": stale_value}), *tasks[0].expected_output[1:]]
    save_tasks([tasks[0].model_copy(update={"expected_output": targets}), *tasks[1:]], path)
    stale = path.read_text(encoding="utf-8")
    assert stale != original

    assert datagen_cli(["regenerate", "--check", str(path)]) == 1
    line = f"{tasks[0].task_id} / {first.name}: {stale_value:g} -> {first.value:g}"
    assert line in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == stale  # --check writes nothing
    assert datagen_cli(["regenerate", str(path)]) == 0
    assert load_tasks(path) == load_tasks(DATA / "val.jsonl")


@pytest.mark.parametrize("split", SPLITS_FAST_FIRST)
async def test_reference_solution_through_the_tools_scores_one(
    split: str, mock_client: SimulatorClient
) -> None:
    """An expert run (schema, run, result; answer giving each target to 4 digits with its unit) scores 1."""
    for task in load_tasks(DATA / f"{split}.jsonl"):
        trace = RunTrace()
        get_schema, run_simulation, get_result = build_tools(mock_client, trace)
        await get_schema(sorted({b["type"] for b in task.reference_config["blocks"]}))
        run = json.loads(await run_simulation(json.dumps(task.reference_config)))
        assert run["success"] is True, (task.task_id, run)
        await get_result(run["result_file_path"])
        # Each target by name, value to 4 digits and unit (the reward assumes no unit it is not told).
        lines = [
            f"- {t.name}: {t.actual(trace.last_results):.4g} {t.unit}".rstrip() for t in task.expected_output
        ]
        trace.final_answer = "Results:\n" + "\n".join(lines)
        reward = compute_reward(task, trace)
        assert reward.total == 1.0, (task.task_id, reward.details)


async def test_a_reference_solution_scores_one_over_windows_paths(tmp_path: Path) -> None:
    """The real service answers Windows paths; the tools echo them with their backslashes and score 1."""
    from _support import in_process_transport

    task = load_split("train")[0]
    async with SimulatorClient(
        "http://simulator-mock.local", transport=in_process_transport(tmp_path, windows_paths=True)
    ) as client:
        trace = RunTrace()
        get_schema, run_simulation, get_result = build_tools(client, trace)
        await get_schema(sorted({b["type"] for b in task.reference_config["blocks"]}))
        run = json.loads(await run_simulation(json.dumps(task.reference_config)))
        assert run["result_file_path"].startswith("D:\\aspen\\resultfile\\"), run
        await get_result(run["result_file_path"])
    lines = [
        f"- {t.name}: {t.actual(trace.last_results):.4g} {t.unit}".rstrip() for t in task.expected_output
    ]
    trace.final_answer = "Results:\n" + "\n".join(lines)
    assert compute_reward(task, trace).total == 1.0


async def test_the_in_process_mock_removes_its_own_results_folder_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a results folder given, the in-process mock writes into a temporary one and removes it when
    the client closes (it left one folder per call in /tmp: thousands after a day of tests and runs);
    a folder the caller names is the caller's and stays."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    task = load_split("train")[0]
    async with in_process_client() as client:
        run = await client.run_simulation(task.reference_config)
        assert run["success"] is True, run
        [folder] = (tmp_path / "tmp").iterdir()
        assert any(folder.iterdir()), "the run wrote its files there"
    assert not any((tmp_path / "tmp").iterdir())

    kept = tmp_path / "kept"
    async with in_process_client(kept) as client:
        assert (await client.run_simulation(task.reference_config))["success"] is True
    assert any(kept.iterdir())
