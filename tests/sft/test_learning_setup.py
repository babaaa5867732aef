"""The learning benchmark's set-up file (``--setup-cache``): read back as written, refused by name when it
was made with other settings or is not a whole set-up."""

from __future__ import annotations

import argparse
import json
import lzma
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _support.benchmarks import load_benchmark

from aspen_rl.tasks.datasets import load_split


@pytest.fixture(scope="module")
def setup_module_() -> ModuleType:
    return load_benchmark("learning_setup")


def _args(**changes: Any) -> argparse.Namespace:
    values = {
        "families": "heater",
        "generate_train": 400,
        "n_train": 10,
        "data_seed": 1,
        "drills": 1000,
        "split": "draw",
        "n_eval": 8,
        "stated_units": False,
        "rename": 0.0,
    }
    return argparse.Namespace(**{**values, **changes})


def _write(path: Path, payload: object) -> None:
    path.write_bytes(lzma.compress(json.dumps(payload).encode()))


def test_a_set_up_is_read_back_as_written_and_leaves_no_part_file(
    setup_module_: ModuleType, tmp_path: Path
) -> None:
    tasks = load_split("train")[:2]
    demos = [{"task_id": tasks[0].task_id, "messages": [{"role": "user", "content": "heat to 90 °C"}]}]
    drill_demos = [{"task_id": tasks[1].task_id, "messages": []}]
    path = tmp_path / "setups" / "s.json.xz"
    settings = setup_module_.setup_settings(_args())
    setup_module_.save_setup(path, settings, tasks, demos, drill_demos)
    read_tasks, read_demos, read_drills = setup_module_.load_setup(path, settings)
    assert [t.model_dump() for t in read_tasks] == [t.model_dump() for t in tasks]
    assert (read_demos, read_drills) == (demos, drill_demos)
    assert [p.name for p in path.parent.iterdir()] == ["s.json.xz"]


def test_other_settings_are_refused_naming_each_flag_and_both_values(
    setup_module_: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "s.json.xz"
    setup_module_.save_setup(path, setup_module_.setup_settings(_args()), [], [], [])
    with pytest.raises(setup_module_.SetupFileError) as refused:
        setup_module_.load_setup(path, setup_module_.setup_settings(_args(drills=500, split="combination")))
    message = str(refused.value)
    assert "--drills 500 (the file's: 1000)" in message and "--split combination" in message
    assert "--families" not in message


def test_the_shipped_train_count_does_not_matter_to_a_generated_train_set(setup_module_: ModuleType) -> None:
    assert "n_train" not in setup_module_.setup_settings(_args(generate_train=400))
    assert setup_module_.setup_settings(_args(generate_train=0))["n_train"] == 10


@pytest.mark.parametrize(
    "payload",
    [
        {"format": 99, "settings": {}},
        {"format": 1},
        {"format": 1, "settings": {"families": "heater"}},  # no tasks or demonstrations
        {"format": 1, "settings": {"families": "heater"}, "train_tasks": [{"no": "task"}], "demos": []},
        {"format": 1, "settings": {"families": "heater"}, "train_tasks": [], "demos": {}, "drill_demos": []},
        ["not", "a", "set-up"],
    ],
)
def test_a_file_that_is_not_a_whole_set_up_is_refused(
    setup_module_: ModuleType, tmp_path: Path, payload: object
) -> None:
    path = tmp_path / "s.json.xz"
    _write(path, payload)
    with pytest.raises(setup_module_.SetupFileError) as refused:
        setup_module_.load_setup(path, {"families": "heater"})
    assert str(path) in str(refused.value)


def test_a_folder_named_as_the_file_is_refused_before_any_work(
    setup_module_: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "s.json.xz").mkdir()
    with pytest.raises(setup_module_.SetupFileError):
        setup_module_.check_writable(tmp_path / "s.json.xz")
    setup_module_.check_writable(tmp_path / "new" / "s.json.xz")  # its folder is made
    assert (tmp_path / "new").is_dir()
