"""Workbook access and its rendering for the model, on documents shaped as /get-aspen-result serves them."""

from __future__ import annotations

import pytest
from workbooks import block_sheet, document, heater_workbook, stream_summary

from aspen_rl.contract.rendering import MAX_CHARS, WORKBOOK_HEADING, read_rendering, render_workbook
from aspen_rl.contract.run_answer import normalise_file_path, result_file_path_of
from aspen_rl.contract.workbook import STREAM_SUMMARY, lookup, numeric_cells


def test_lookup_by_label_component_address_and_units_row() -> None:
    doc = heater_workbook(temperature_c=80.0, duty_kw=115.1)
    temperature = lookup(doc, STREAM_SUMMARY, "Temperature", "PRO-1")
    assert (temperature.number, temperature.unit) == (80.0, "C")
    # Component rows are named by the nearest section row above them.
    assert lookup(doc, STREAM_SUMMARY, "Mole Flows/WATER", "PRO-1").unit == "kmol/hr"
    assert lookup(doc, STREAM_SUMMARY, "Mass Flows/WATER", "FEED-1").number == 1801.5
    fraction = lookup(doc, STREAM_SUMMARY, "Mole Fractions/WATER", "PRO-1")
    assert (fraction.number, fraction.unit) == (1.0, None)
    assert lookup(doc, STREAM_SUMMARY, "WATER", "PRO-1") is None  # a bare CID is ambiguous: not an address
    assert lookup(doc, STREAM_SUMMARY, "Phase", "PRO-1").number is None  # text, not a number
    duty = lookup(doc, "H1_result", "QCALC")
    assert (duty.number, duty.unit) == (115.1, "kW")  # unit from the QCALC_UNITS row
    assert lookup(doc, "H1_result", "B_VFRAC").unit is None
    assert lookup(doc, "H1_result", "QCALC", "Value") == duty
    # Absent sheet, row, column; not a workbook at all.
    assert lookup(doc, "H2_result", "QCALC") is None
    assert lookup(doc, STREAM_SUMMARY, "Temperature", "S-9") is None
    assert lookup(doc, STREAM_SUMMARY, "Viscosity", "PRO-1") is None
    assert lookup({"error": "文件不存在"}, STREAM_SUMMARY, "Temperature", "PRO-1") is None


def test_numeric_cells_skip_labels_units_and_bookkeeping() -> None:
    doc = heater_workbook()
    cells = list(numeric_cells(doc))
    assert ("H1_result", "QCALC", "Value", 115.1) in cells
    assert (STREAM_SUMMARY, "Mass Fractions/WATER", "PRO-1", 1.0) in cells
    values = {v for *_, v in cells}
    assert 2.0 not in values  # sheet_count / column_count are not results
    assert all(column != "Units" for _, _, column, _ in cells)


def test_rendering_is_compact_and_reads_back_to_the_same_cells() -> None:
    doc = heater_workbook(temperature_c=80.123456, duty_kw=115.123456)
    text = render_workbook(doc)
    assert text.startswith(WORKBOOK_HEADING + "aspen_result_export_r1.xlsx")
    lines = text.splitlines()
    assert "Row | Units | FEED-1 | PRO-1" in lines
    assert "Temperature | C | 25 | 80.123" in lines
    assert "Mole Fractions/WATER |  | 1 | 1" in lines
    assert "QCALC = 115.12 kW" in lines
    assert "B_VFRAC = 0" in lines
    assert not any(line.startswith(("QCALC_UNITS", "Mole Fractions |")) for line in lines)
    cells = read_rendering(text)
    assert cells[(STREAM_SUMMARY, "Temperature", "PRO-1")] == (80.123, "C")
    assert cells[(STREAM_SUMMARY, "To", "FEED-1")] == ("H1", None)
    assert cells[(STREAM_SUMMARY, "Mass Flows/WATER", "PRO-1")] == (1801.5, "kg/hr")
    assert cells[("H1_result", "QCALC", None)] == (115.12, "kW")
    assert len(text) < 1500


def test_long_workbooks_leave_out_row_groups_in_order_and_say_so() -> None:
    streams = [f"S-{i}" for i in range(1, 17)]
    cids = ["WATER", "METHANOL", "ETHANOL", "ACETONE", "BENZENE", "TOLUENE", "HEXANE", "PROPANE"]
    rows: list[tuple[str, str | None, list]] = [("Temperature", "C", [25.123456] * 16)]
    for section, unit in (("Mole Flows", "kmol/hr"), ("Mole Fractions", None), ("Mass Flows", "kg/hr")):
        rows.append((section, unit, [None if unit is None else 100.0] * 16))
        rows += [(cid, unit, [12.345678] * 16) for cid in cids]
    rows.append(("Mass Fractions", None, [None] * 16))
    rows += [(cid, None, [0.125] * 16) for cid in cids]
    block = block_sheet([("QCALC", 1.5, "kW"), *((f"Y_{cid}", 0.125, None) for cid in cids)])
    blocks = {f"B{i}_result": block for i in range(1, 4)}
    doc = document("C:\\results\\big.xlsx", {STREAM_SUMMARY: stream_summary(streams, rows), **blocks})
    full = render_workbook(doc, max_chars=100_000)
    text = render_workbook(doc)
    assert len(full) > MAX_CHARS >= len(text)
    note = "(rows left out for length: Mass Fractions/*; per-component rows of block sheets; Mass Flows/*)"
    assert text.endswith("[B3_result]\nQCALC = 1.5 kW\n" + note)
    assert "Mole Fractions/PROPANE |" in text and "Mole Flows/WATER |" in text
    assert "Mass Flows/WATER" not in text and "Y_WATER" not in text
    assert "Y_WATER = 0.125" in full
    assert read_rendering(text)[(STREAM_SUMMARY, "Temperature", "S-16")] == (25.123, "C")


def test_unreadable_sheet_is_named() -> None:
    doc = heater_workbook()
    doc["data"]["H2_result"] = {"error": "读取工作表失败: bad zip", "row_count": 0, "column_count": 0}
    assert "[H2_result]\n(unreadable: 读取工作表失败: bad zip)" in render_workbook(doc)


def test_result_file_references() -> None:
    assert normalise_file_path(' "C:\\results\\r.xlsx" ') == "C:/results/r.xlsx"
    assert result_file_path_of({"success": True, "result_file_path": "/r/a.xlsx"}) == "/r/a.xlsx"
    assert result_file_path_of({"success": False, "result_file_path": "/r/a.xlsx"}) is None
    assert result_file_path_of({"success": True, "result_file_path": "  "}) is None
    with pytest.raises(AssertionError):
        assert result_file_path_of(None)


def test_only_named_streams_and_blocks_are_shown_and_unknown_names_are_listed() -> None:
    streams = ["FEED-1", "S-1", "PRO-1"]
    rows: list[tuple[str, str | None, list]] = [("Temperature", "C", [25.0, 60.5, 80.25])]
    rows += [("Mole Flows", "kmol/hr", [100.0, 100.0, 100.0])]
    blocks = {f"{b}_result": block_sheet([("QCALC", d, "kW")]) for b, d in (("H1", 11.5), ("H2", 22.5))}
    doc = document("C:\\results\\r.xlsx", {STREAM_SUMMARY: stream_summary(streams, rows), **blocks})
    text = render_workbook(doc, only=["PRO-1", "H2"])
    assert "Row | Units | PRO-1" in text.splitlines()
    assert "Temperature | C | 80.25" in text.splitlines()
    assert "[H2_result]" in text and "H1_result" not in text and "FEED-1" not in text
    cells = read_rendering(text)
    assert cells[(STREAM_SUMMARY, "Mole Flows", "PRO-1")] == (100.0, "kmol/hr")
    assert cells[("H2_result", "QCALC", None)] == (22.5, "kW")
    assert (STREAM_SUMMARY, "Temperature", "S-1") not in cells
    # blocks only: no stream table; a name the workbook lacks is listed with the names it has
    text = render_workbook(doc, only=["H1", "PRO-9"])
    assert STREAM_SUMMARY not in text and "QCALC = 11.5 kW" in text
    assert text.endswith("(not in this workbook: PRO-9; streams: FEED-1, S-1, PRO-1; blocks: H1, H2)")
    assert render_workbook(doc, only=None) == render_workbook(doc)
