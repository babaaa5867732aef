"""Task model and JSONL loading: valid files, errors naming file/line/field, splits, registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from heater_case import outlet_temperature
from pydantic import ValidationError

from aspen_rl.tasks import (
    AspenTask,
    Difficulty,
    Target,
    TaskFileError,
    load_split,
    load_tasks,
    save_tasks,
)
from aspen_rl.tasks.__main__ import main as tasks_cli


def task_dict(task_id: str = "t-1", **changes: object) -> dict:
    base = {
        "task_id": task_id,
        "user_requirement": "将 100 kmol/h 水从 25 °C 加热到 80 °C，报告 H1 热负荷。",
        "difficulty": "easy",
        "expected_output": [
            {
                "name": "H1 duty",
                "sheet": "H1_result",
                "row": "QCALC",
                "value": 115.1,
                "unit": "kW",
                "rel_tol": 0.02,
            }
        ],
        "ideal_tool_calls": 3,
    }
    base.update(changes)
    return base


def write_jsonl(path: Path, rows: list[object]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_file_round_trips(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", [task_dict("a"), "", task_dict("b", difficulty="hard")])
    tasks = load_tasks(path)
    assert [t.task_id for t in tasks] == ["a", "b"]
    assert tasks[1].difficulty is Difficulty.HARD
    assert tasks[0].expected_output[0].tolerance() == pytest.approx(0.02 * 115.1)
    save_tasks(tasks, tmp_path / "copy.jsonl")
    assert load_tasks(tmp_path / "copy.jsonl") == tasks
    assert "将 100 kmol/h" in (tmp_path / "copy.jsonl").read_text(encoding="utf-8")  # stays readable


def test_bad_field_is_named_with_file_and_line(tmp_path: Path) -> None:
    bad_target = task_dict(
        "b", expected_output=[{"name": "x", "sheet": "H1_result", "row": "QCALC", "value": "hot"}]
    )
    path = write_jsonl(tmp_path / "tasks.jsonl", [task_dict("a"), bad_target])
    with pytest.raises(TaskFileError) as info:
        load_tasks(path)
    message = str(info.value)
    assert f"{path} line 2 (task_id='b')" in message
    assert "field 'expected_output.0.value'" in message


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ('{"task_id": "a", ', "line 1: malformed JSON"),
        ("[1, 2]", "line 1: expected a JSON object, got list"),
        (task_dict(difficulty="extreme"), "field 'difficulty'"),
        (task_dict(ideal_tool_calls=0), "field 'ideal_tool_calls'"),
        (task_dict(colour="red"), "field 'colour'"),
        (
            task_dict(expected_output=[{"name": "T", "path": "streams.PROD.temperature_C", "value": 1}]),
            "expected_output.0.path",
        ),
        (
            task_dict(
                expected_output=[{"name": "T", "sheet": "Stream Summary", "row": "Temperature", "value": 1}]
            ),
            "a 'Stream Summary' address needs column",
        ),
    ],
)
def test_invalid_lines(tmp_path: Path, row: object, fragment: str) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", [row])
    with pytest.raises(TaskFileError, match=fragment):
        load_tasks(path)


def test_duplicate_ids_and_missing_file(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", [task_dict("a"), task_dict("a")])
    with pytest.raises(TaskFileError, match=r"line 2: field 'task_id': duplicate id 'a' \(first on line 1\)"):
        load_tasks(path)
    with pytest.raises(TaskFileError, match="task file not found"):
        load_tasks(tmp_path / "nope.jsonl")


def test_load_split_sets_split_name(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "val.jsonl", [task_dict("v1"), task_dict("v2", split="custom")])
    assert [t.split for t in load_split("val", data_dir=tmp_path)] == ["val", "custom"]
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        load_split("dev", data_dir=tmp_path)  # type: ignore[arg-type]


def summary_document(temperature: object, unit: object = "C") -> dict:
    """A ``/get-aspen-result`` answer whose Stream Summary holds PRO-1's temperature."""
    records = [
        {"Unnamed: 0": "Phase", "Units": None, "PRO-1": "Liquid"},
        {"Unnamed: 0": "Temperature", "Units": unit, "PRO-1": temperature},
    ]
    table = {
        "row_count": 2,
        "column_count": 3,
        "column_names": ["Unnamed: 0", "Units", "PRO-1"],
        "data": records,
    }
    return {"status": "success", "file_info": {}, "data": {"Stream Summary": table}}


def test_target_tolerance_rules() -> None:
    t = outlet_temperature("T", abs_tol=0.5, rel_tol=0.0)
    assert t.is_met(summary_document(80.4))
    assert not t.is_met(summary_document(80.6))
    assert not t.is_met(summary_document("80"))  # a text is not a number
    assert not t.is_met(summary_document(80.0, unit="K"))  # stated in another unit
    assert not t.is_met({"status": "success", "file_info": {}, "data": {}})
    assert t.address == "Stream Summary[Temperature, PRO-1]"
    with pytest.raises(ValidationError, match="abs_tol / rel_tol"):
        Target(name="T", sheet="H1_result", row="QCALC", value=1.0, rel_tol=0.0)


@pytest.mark.parametrize(
    ("address", "fragment"),
    [
        ({"sheet": "Results", "row": "QCALC"}, "sheet must be 'Stream Summary' or '<BLOCK>_result'"),
        ({"sheet": "H1_result", "row": "QCALC_UNITS"}, "not a '_UNITS' row"),
        ({"sheet": "H1_result", "row": "QCALC", "column": "PRO-1"}, "block sheet's column is 'Value'"),
        ({"sheet": "Stream Summary", "row": "Temperature", "column": "prod"}, "stream name like 'S-1'"),
        ({"sheet": "Stream Summary", "row": "Moles/WATER", "column": "S-1"}, "'<section>/<CID>'"),
        ({"sheet": "Stream Summary", "row": "Phase", "column": "S-1"}, "holds no number"),
        ({"sheet": "Stream Summary", "row": " Temperature", "column": "S-1"}, "without surrounding blanks"),
    ],
)
def test_malformed_target_addresses_are_refused(address: dict, fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        Target(name="x", value=1.0, **address)


def test_block_sheet_target_reads_the_value_and_its_units_row() -> None:
    records = [
        {"Parameter": "QCALC", "Value": 115.1},
        {"Parameter": "QCALC_UNITS", "Value": "kW"},
        {"Parameter": "B_TEMP", "Value": 80.0},
        {"Parameter": "B_TEMP_UNITS", "Value": "C"},
    ]
    table = {"row_count": 4, "column_count": 2, "column_names": ["Parameter", "Value"], "data": records}
    document = {"status": "success", "file_info": {}, "data": {"H1_result": table}}
    duty = Target(name="duty", sheet="H1_result", row="QCALC", column="Value", unit="kW", value=115.0)
    assert duty.column is None  # "Value" is the default column of a block sheet
    assert duty.actual(document) == 115.1
    assert Target(name="t", sheet="H1_result", row="B_TEMP", unit="C", value=80.0).is_met(document)
    assert Target(name="t", sheet="H1_result", row="B_TEMP", unit="K", value=80.0).actual(document) is None
    assert Target(name="p", sheet="H1_result", row="B_PRES", unit="bar", value=1.0).actual(document) is None


def test_python_built_tasks_round_trip_through_a_task_file(tmp_path: Path) -> None:
    tasks = [AspenTask(**task_dict("py-1")), AspenTask(**task_dict("py-2"))]
    path = tmp_path / "mine.jsonl"
    save_tasks(tasks, path)
    assert load_tasks(path) == tasks


def test_validate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", [task_dict("a")])
    bad = write_jsonl(tmp_path / "bad.jsonl", [task_dict("a", difficulty="x")])
    assert tasks_cli(["validate", str(good)]) == 0
    assert "1 task(s), 0 with a reference config" in capsys.readouterr().out
    assert tasks_cli(["validate", str(bad)]) == 2
    assert "line 1 (task_id='a'): field 'difficulty'" in capsys.readouterr().err


def test_task_files_with_a_bom_load_and_non_utf8_files_are_named(tmp_path) -> None:
    from aspen_rl.tasks import TaskFileError, load_split, load_tasks

    line = load_split("train")[0].model_dump_json()
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes("\ufeff".encode() + line.encode() + b"\r\n")
    assert [t.task_id for t in load_tasks(bom)] == [load_split("train")[0].task_id]
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"task_id": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(TaskFileError, match=r"latin\.jsonl: not UTF-8 text"):
        load_tasks(latin)
