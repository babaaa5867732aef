"""``tasks validate`` against the reference config and the contract; un-regenerated tasks refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aspen_rl.datagen.cli import main as datagen_main
from aspen_rl.tasks import load_split
from aspen_rl.tasks.__main__ import main as tasks_main
from aspen_rl.tasks.checks import is_unregenerated, target_errors, unregenerated_message


def _broken_task() -> dict:
    task = load_split("train")[0].model_dump(mode="json")  # a Heater H1, streams FEED-1 and PROD-1
    task["task_id"] = "broken-01"
    task["expected_output"] = [
        {"name": "ghost duty", "sheet": "H9_result", "row": "QCALC", "value": 1.0, "unit": "kW"},
        {"name": "long road", "sheet": "H1_result", "row": "QCALC", "value": 1.0, "unit": "furlongs"},
        {
            "name": "no stream",
            "sheet": "Stream Summary",
            "row": "Temperature",
            "column": "S-9",
            "value": 1.0,
            "unit": "C",
        },
    ]
    return task


def test_every_target_error_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from aspen_rl.tasks import AspenTask

    errors = target_errors(AspenTask.model_validate(_broken_task()))
    assert len(errors) == 3
    assert (
        "sheet 'H9_result' names block 'H9', which the reference config does not have (blocks: H1)"
        in errors[0]
    )
    assert "unit 'furlongs' is not one the results workbook states" in errors[1]
    assert "column 'S-9' is not a stream of the reference config (streams: FEED-1, PROD-1)" in errors[2]

    path = tmp_path / "custom.jsonl"
    path.write_text(json.dumps(_broken_task()) + "\n", encoding="utf-8")
    assert tasks_main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 3 and "H9" in err and "furlongs" in err and "S-9" in err


def test_shipped_tasks_validate_clean() -> None:
    assert tasks_main(["validate"]) == 0


@pytest.mark.parametrize("command", ["generate", "regenerate", "demos", "stats", "baseline"])
def test_a_moved_subcommand_names_its_new_home(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert tasks_main([command, "x.jsonl"]) == 2
    err = capsys.readouterr().err
    moved = f"`python -m aspen_rl.tasks {command}` moved: run `python -m aspen_rl.datagen {command}`"
    assert err == f"error: {moved}\n"


def test_unregenerated_tasks_are_refused_with_the_fixing_command(tmp_path: Path) -> None:
    from aspen_rl.tasks import AspenTask

    good = load_split("train")[0]
    placeholder = good.model_copy(
        update={
            "expected_output": [
                t.model_copy(update={"value": 0.0, "abs_tol": 0.0}) for t in good.expected_output
            ]
        }
    )
    tagged = good.model_copy(update={"tags": [*good.tags, "unregenerated"]})
    assert not is_unregenerated(good) and is_unregenerated(placeholder) and is_unregenerated(tagged)
    message = unregenerated_message([placeholder], ["mine.jsonl"])
    assert message and "python -m aspen_rl.datagen regenerate mine.jsonl" in message

    from aspen_rl.train import main

    path = tmp_path / "mine.jsonl"
    path.write_text(
        tagged.model_copy(update={"task_id": "mine-01"}).model_dump_json() + "\n", encoding="utf-8"
    )
    assert main(["--tasks", str(path), "--limit", "1", "--output-dir", str(tmp_path / "run")]) == 2
    assert isinstance(AspenTask, type)


def test_regenerate_shows_progress_and_drops_the_marker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = load_split("train")[0]
    tagged = task.model_copy(update={"tags": [*task.tags, "unregenerated"]})
    path = tmp_path / "one.jsonl"
    path.write_text(tagged.model_dump_json() + "\n", encoding="utf-8")
    assert datagen_main(["regenerate", str(path)]) == 0
    assert "[1/1] train-easy-01" in capsys.readouterr().err
    assert "unregenerated" not in path.read_text(encoding="utf-8")
