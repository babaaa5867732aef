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
