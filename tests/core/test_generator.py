"""Task generator: reproducible by seed, every reference solution scores 1.0 through the real tools, no
overlap with the shipped val/test tasks, families and languages balanced as the README documents."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from aspen_rl.datagen import (
    FAMILIES,
    SHIPPED_FAMILIES,
    family_of,
    generate_tasks,
    holdout_key,
    language_of,
)
from aspen_rl.datagen.build import task_key
from aspen_rl.datagen.cli import main as datagen_cli
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.simulator import SimulatorClient
from aspen_rl.tasks import load_split, load_tasks
from aspen_rl.tasks.compare import task_differences

DATA = Path(__file__).resolve().parents[2] / "data"
GENERATED = DATA / "generated"


@pytest.fixture(scope="module")
def shipped() -> dict[str, list]:
    return {name: load_tasks(GENERATED / f"{name}.jsonl") for name in ("train", "eval")}


@pytest.fixture(scope="module")
def held_out() -> list:
    return load_split("val", DATA) + load_split("test", DATA)


@pytest.fixture
async def mock_client() -> SimulatorClient:
    async with in_process_client() as client:
        yield client


async def test_same_seed_same_tasks_other_seed_other_tasks(
    mock_client: SimulatorClient, held_out: list
) -> None:
    """Within one process, on quick families (every shipped family's determinism across processes and days is
    the next test's: it regenerates their first round and compares it with the stored files)."""
    families = ("heater", "pump", "valve")
    first = await generate_tasks(6, mock_client, families=families, seed=7, held_out=held_out)
    again = await generate_tasks(6, mock_client, families=families, seed=7, held_out=held_out)
    other = await generate_tasks(6, mock_client, families=families, seed=8, held_out=held_out)
    assert [t.model_dump() for t in first] == [t.model_dump() for t in again]  # same process: bit for bit
    assert [family_of(t) for t in first] == [*families, *families]
    assert [t.user_requirement for t in first] != [t.user_requirement for t in other]


async def test_shipped_sets_are_what_the_documented_commands_generate(
    mock_client: SimulatorClient, shipped: dict[str, list], held_out: list
) -> None:
    """The first round of families of each shipped set, regenerated with the README's seeds and families."""
    readme = (GENERATED / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"generate --n \d+ --families (\S+) ", readme)
    assert named == [",".join(SHIPPED_FAMILIES)] * 2  # the documented commands name exactly these
    n = len(SHIPPED_FAMILIES)
    train = await generate_tasks(
        n, mock_client, families=SHIPPED_FAMILIES, seed=1, held_out=held_out, prefix="gen-train"
    )
    assert task_differences(shipped["train"][:n], train) == []  # numbers within SAME_VALUE_REL_TOL
    evals = await generate_tasks(
        n,
        mock_client,
        families=SHIPPED_FAMILIES,
        seed=2,
        held_out=held_out,
        exclude=shipped["train"],
        prefix="gen-eval",
    )
    assert task_differences(shipped["eval"][:n], evals) == []


def _nudged(value: Any, rel: float) -> Any:
    """Every number in a results document moved by ``rel`` (what a numpy/LAPACK update did to RadFrac)."""
    if isinstance(value, dict):
        return {k: _nudged(v, rel) for k, v in value.items()}
    if isinstance(value, list):
        return [_nudged(v, rel) for v in value]
    if isinstance(value, float):
        return value * (1.0 + rel)
    return value


@pytest.mark.parametrize("rel", [1e-6, -1e-6])
async def test_results_moved_in_their_last_digits_draw_the_same_tasks(
    rel: float, mock_client: SimulatorClient, shipped: dict[str, list], held_out: list
) -> None:
    """Accept/redraw decisions (bounds, targets, small integers) do not flip, and the stored values match
    within SAME_VALUE_REL_TOL, when every number of every workbook moves by 1e-6 relative, the size of the
    drift a library update caused (compared exactly, 12-16 stored values differ in their last digit)."""
    read = mock_client.get_result

    async def nudged_read(file_path: str) -> dict[str, Any]:
        return _nudged(await read(file_path), rel)

    mock_client.get_result = nudged_read  # type: ignore[method-assign]
    n = len(SHIPPED_FAMILIES)
    train = await generate_tasks(
        n, mock_client, families=SHIPPED_FAMILIES, seed=1, held_out=held_out, prefix="gen-train"
    )
    assert task_differences(shipped["train"][:n], train) == []


def test_sizes_families_difficulty_and_languages_are_balanced(shipped: dict[str, list]) -> None:
    assert (len(shipped["train"]), len(shipped["eval"])) == (300, 500)
    for tasks in shipped.values():
        per_family = Counter(family_of(t) for t in tasks)
        assert list(per_family) == list(SHIPPED_FAMILIES)
        assert max(per_family.values()) - min(per_family.values()) <= 1
        for name in SHIPPED_FAMILIES:
            langs = Counter(language_of(t) for t in tasks if family_of(t) == name)
            assert abs(langs["en"] - langs["zh"]) <= 1, (name, langs)
            assert {t.difficulty for t in tasks if family_of(t) == name} == {FAMILIES[name].difficulty}
        for task in tasks:  # the tag says the language the text is written in
            has_cjk = bool(re.search(r"[\u4e00-\u9fff]", task.user_requirement))
            assert has_cjk == (language_of(task) == "zh"), task.task_id


def test_no_overlap_with_val_test_and_no_near_duplicates(shipped: dict[str, list], held_out: list) -> None:
    blocked = {holdout_key(t.reference_config) for t in held_out}
    texts = {t.user_requirement for t in held_out}
    every = shipped["train"] + shipped["eval"]
    for task in every:
        assert holdout_key(task.reference_config) not in blocked, task.task_id
        assert task.user_requirement not in texts
    keys = [task_key(t) for t in every]
    assert None not in keys and len(set(keys)) == len(keys)  # train and eval disjoint, no near-duplicates
    assert len({t.task_id for t in every}) == len(every)


def test_requirements_name_blocks_streams_and_block_types(shipped: dict[str, list]) -> None:
    for task in shipped["train"][:60] + shipped["eval"][:60]:
        for target in task.expected_output:
            owner = target.column if target.column else target.sheet.removesuffix("_result")
            assert re.search(rf"(?<![A-Za-z0-9-]){re.escape(owner)}(?![A-Za-z0-9])", task.user_requirement), (
                task.task_id,
                owner,
            )
        for block in task.reference_config["blocks"]:
            assert block["type"] in task.user_requirement and block["name"] in task.user_requirement


async def test_a_sample_of_reference_solutions_scores_one(
    mock_client: SimulatorClient, shipped: dict[str, list]
) -> None:
    sample = [t for tasks in shipped.values() for t in tasks[: 2 * len(SHIPPED_FAMILIES)]]
    kept, dropped = await record_demos(sample, mock_client)
    assert dropped == [] and len(kept) == len(sample)
    first = kept[0]
    assert first["messages"][2]["tool_calls"][0]["function"]["name"] == "get_schema"
    assert [m["role"] for m in first["messages"]][-2:] == ["tool", "assistant"]


@pytest.mark.slow
async def test_shipped_sets_regenerate_whole_with_the_documented_commands(
    mock_client: SimulatorClient, shipped: dict[str, list], held_out: list
) -> None:
    """All 800 tasks, not only the first round: a change to the tiers' val/test tasks (the hold-out) or to a
    family's draws shows up here, and the sets are then regenerated with data/generated/README.md's
    commands."""
    train = await generate_tasks(
        300, mock_client, families=SHIPPED_FAMILIES, seed=1, held_out=held_out, prefix="gen-train"
    )
    assert task_differences(shipped["train"], train) == []  # numbers within SAME_VALUE_REL_TOL
    evals = await generate_tasks(
        500,
        mock_client,
        families=SHIPPED_FAMILIES,
        seed=2,
        held_out=held_out,
        exclude=shipped["train"],
        prefix="gen-eval",
    )
    assert task_differences(shipped["eval"], evals) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["train", "eval"])
async def test_every_reference_solution_scores_one(
    name: str, mock_client: SimulatorClient, shipped: dict[str, list]
) -> None:
    kept, dropped = await record_demos(shipped[name], mock_client)
    assert dropped == [] and len(kept) == len(shipped[name])


def test_cli_generate_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.jsonl"
    assert (
        datagen_cli(["generate", "--n", "4", "--families", "heater,flash", "--seed", "3", "--out", str(out)])
        == 0
    )
    progress = capsys.readouterr().err  # not a terminal: a first line at once, then count, rate, time left
    assert progress.startswith(f"generating {out} (each task run on the mock): 0/4\n")
    assert f"generating {out} (each task run on the mock): 4/4 (" in progress and "s left)" in progress
    tasks = load_tasks(out)
    assert [family_of(t) for t in tasks] == ["heater", "flash", "heater", "flash"]
    assert [language_of(t) for t in tasks] == ["en", "en", "zh", "zh"]
    assert datagen_cli(["stats", str(out)]) == 0
    assert "| heater | 2 | 2 | 0 | 0 | 1 | 1 |" in capsys.readouterr().out
    assert datagen_cli(["generate", "--n", "1", "--families", "nope", "--out", str(out)]) == 2


NEW_FAMILIES = ("h2_separator", "cstr", "decanter")


async def test_opt_in_families_draw_verified_tasks_whose_reference_solutions_score_one(
    mock_client: SimulatorClient, held_out: list
) -> None:
    """The families added after the shipped sets: registered after them, not in SHIPPED_FAMILIES, and each
    draw runs, stays off the val/test combinations and is solved (1.0) by its reference solution."""
    assert list(FAMILIES)[: len(SHIPPED_FAMILIES)] == list(SHIPPED_FAMILIES)
    assert set(NEW_FAMILIES) <= set(FAMILIES) and not set(NEW_FAMILIES) & set(SHIPPED_FAMILIES)
    tasks = await generate_tasks(
        2 * len(NEW_FAMILIES), mock_client, families=NEW_FAMILIES, seed=5, held_out=held_out
    )
    assert [family_of(t) for t in tasks] == list(NEW_FAMILIES) * 2
    assert [language_of(t) for t in tasks] == ["en"] * 3 + ["zh"] * 3
    blocked = {holdout_key(t.reference_config) for t in held_out}
    types = {
        "h2_separator": ["Flash2", "Heater"],
        "cstr": ["RCSTR"],
        "decanter": ["Decanter"],
    }
    for task in tasks:
        config = task.reference_config
        assert holdout_key(config) not in blocked
        assert sorted({b["type"] for b in config["blocks"]}) == types[family_of(task)]
        for block in config["blocks"]:
            assert block["type"] in task.user_requirement and block["name"] in task.user_requirement
        for target in task.expected_output:
            owner = target.column if target.column else target.sheet.removesuffix("_result")
            assert owner in task.user_requirement, (task.task_id, owner)
        method = config["property_methods"][0]["method_name"]
        assert method in task.user_requirement
        if family_of(task) == "h2_separator":
            assert method == "CHAO-SEA" and "H2" in {c["cid"] for c in config["components"]}
    kept, dropped = await record_demos(tasks, mock_client)
    assert dropped == [] and len(kept) == len(tasks)
