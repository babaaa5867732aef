"""``/get-aspen-result`` documents for tests, shaped as pandas' ``read_excel`` records of the workbook."""

from __future__ import annotations

from typing import Any

SECTIONS = ("Mole Flows", "Mole Fractions", "Mass Flows", "Mass Fractions")


def table(column_names: list[str], records: list[dict[str, Any]]) -> dict[str, Any]:
    """One sheet as the service serves it."""
    return {
        "row_count": len(records),
        "column_count": len(column_names),
        "column_names": column_names,
        "data": records,
    }


def stream_summary(streams: list[str], rows: list[tuple[str, str | None, list[Any]]]) -> dict[str, Any]:
    """The Stream Summary sheet: ``rows`` are ``(label, unit, one value per stream)``."""
    columns = ["Unnamed: 0", "Units", *streams]
    records = [
        {"Unnamed: 0": label, "Units": unit, **dict(zip(streams, values, strict=True))}
        for label, unit, values in rows
    ]
    return table(columns, records)


def block_sheet(rows: list[tuple[str, Any, str | None]]) -> dict[str, Any]:
    """A ``<BLOCK>_result`` sheet: ``rows`` are ``(parameter, value, unit or None)``."""
    records: list[dict[str, Any]] = []
    for name, value, unit in rows:
        records.append({"Parameter": name, "Value": value})
        if unit is not None:
            records.append({"Parameter": f"{name}_UNITS", "Value": unit})
    return table(["Parameter", "Value"], records)


def document(path: str, sheets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A successful ``/get-aspen-result`` answer."""
    return {
        "status": "success",
        "file_info": {
            "file_name": path.replace("\\", "/").rsplit("/", 1)[-1],
            "file_path": path,
            "sheet_count": len(sheets),
            "sheet_names": list(sheets),
            "read_time": "2026-11-22T20:00:00",
        },
        "data": sheets,
    }


def heater_workbook(
    path: str = "/srv/results/aspen_result_export_r1.xlsx",
    *,
    temperature_c: float = 80.0,
    duty_kw: float = 115.1,
) -> dict[str, Any]:
    """The workbook of 100 kmol/h of water heated from 25 C to ``temperature_c`` in H1 (FEED-1 -> PRO-1)."""
    flow, mass = 100.0, 1801.5
    summary = stream_summary(
        ["FEED-1", "PRO-1"],
        [
            ("From", None, [None, "H1"]),
            ("To", None, ["H1", None]),
            ("Phase", None, ["Liquid", "Liquid"]),
            ("Temperature", "C", [25.0, temperature_c]),
            ("Pressure", "bar", [1.0, 1.0]),
            ("Molar Vapor Fraction", None, [0.0, 0.0]),
            ("Molar Liquid Fraction", None, [1.0, 1.0]),
            ("Mass Vapor Fraction", None, [0.0, 0.0]),
            ("Molar Enthalpy", "kJ/kmol", [-285_830.0, -281_680.0]),
            ("Mass Enthalpy", "kJ/kg", [-15_866.0, -15_636.0]),
            ("Enthalpy Flow", "kW", [-7939.7, -7824.6]),
            ("Average MW", None, [18.015, 18.015]),
            ("Mole Flows", "kmol/hr", [flow, flow]),
            ("WATER", "kmol/hr", [flow, flow]),
            ("Mole Fractions", None, [None, None]),
            ("WATER", None, [1.0, 1.0]),
            ("Mass Flows", "kg/hr", [mass, mass]),
            ("WATER", "kg/hr", [mass, mass]),
            ("Mass Fractions", None, [None, None]),
            ("WATER", None, [1.0, 1.0]),
        ],
    )
    h1 = block_sheet(
        [
            ("QCALC", duty_kw, "kW"),
            ("B_TEMP", temperature_c, "C"),
            ("B_PRES", 1.0, "bar"),
            ("B_VFRAC", 0.0, None),
        ]
    )
    return document(path, {"Stream Summary": summary, "H1_result": h1})
