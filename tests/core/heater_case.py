"""The water-heater case several core tests score: its outlet temperature target and a run that reads it."""

from __future__ import annotations

from typing import Any

from aspen_rl.tasks import Target
from aspen_rl.trace import RecordedToolCall


def outlet_temperature(
    name: str = "PRO-1 temperature", *, stream: str = "PRO-1", value: float = 80.0, **tolerances: float
) -> Target:
    """The heater outlet's temperature in the Stream Summary, in C (``abs_tol``/``rel_tol`` as given)."""
    return Target(
        name=name,
        sheet="Stream Summary",
        row="Temperature",
        column=stream,
        unit="C",
        value=value,
        **tolerances,
    )


def run_and_read(config: Any, result_path: str, workbook: dict[str, Any]) -> list[RecordedToolCall]:
    """A successful ``run_simulation`` of ``config`` and the ``get_result`` that reads its workbook."""
    return [
        RecordedToolCall(
            name="run_simulation",
            arguments={"config": config},
            ok=True,
            response={"success": True, "result_file_path": result_path},
        ),
        RecordedToolCall(
            name="get_result", arguments={"result_file_path": result_path}, ok=True, response=workbook
        ),
    ]


def water_heater(block: str, inlet: str, outlet: str, *, kmol_hr: float, outlet_c: float) -> dict[str, Any]:
    """A config of one Heater taking pure water (NRTL) from 25 C, 1 bar to ``outlet_c`` at 1 bar."""
    water = {"FLOW_VALUE": 1.0, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"}
    flow = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": kmol_hr,
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FRAC",
        "WATER": water,
    }
    spec = {"SPEC_OPT": "TP", "TEMP_VALUE": outlet_c, "TEMP_UNITS": "C", "PRES_VALUE": 1, "PRES_UNITS": "bar"}
    return {
        "components": [{"cid": "WATER", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"}],
        "property_methods": [{"method_name": "NRTL", "is_basis_method": True}],
        "blocks": [{"name": block, "type": "Heater"}],
        "streams": [inlet, outlet],
        "block_connections": {block: {inlet: "F(IN)", outlet: "P(OUT)"}},
        "stream_data": {
            inlet: {
                "MIXED_SPEC": "TP",
                "temperature": {"TEMP_VALUE": 25, "TEMP_UNITS": "C"},
                "pressure": {"PRES_VALUE": 1, "PRES_UNITS": "bar"},
                "flow": flow,
            }
        },
        "blocks_Heater_data": {block: {"SPEC_DATA": spec}},
    }
