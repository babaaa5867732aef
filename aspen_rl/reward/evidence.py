"""Evidence: the numbers a rollout may quote (its own workbooks and successful configs); what is no number.

A number of the answer is *grounded* when some value of this rollout's own successful runs (a cell of a
workbook it read of its own run, in its unit, or a number of a config that ran successfully) matches
it: read in its stated unit and converted to the value's unit, within 2 % of the value plus its written
precision (either sign, except temperatures). Run ids, file paths and UUIDs the simulator returned are
not numbers.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any

from aspen_rl.reward.attribution import Statement, converts, matches, workbook_quantities
from aspen_rl.reward.quantities import convert_step, finite_number
from aspen_rl.trace import GET_RESULT, RESULT_FILE_PATH, RUN_SIMULATION, RunTrace

MATCH_REL_TOL = 0.02

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _strings(value)


def strip_references(answer: str, trace: RunTrace) -> str:
    """The answer without the run ids, file paths and UUIDs the simulator returned (they are not numbers)."""
    references: set[str] = set()
    for call in trace.calls:
        if call.name == RUN_SIMULATION and isinstance(call.response, dict):
            for key, value in call.response.items():
                if (key == "run_id" or key.endswith("_path")) and isinstance(value, str):
                    references.add(value.strip())
        if call.name == GET_RESULT:
            # the path it read, not the stream and block names it selected (the answer names those)
            references.update(s.strip() for s in _strings(call.arguments.get(RESULT_FILE_PATH)))
            if isinstance(call.response, dict):
                references.update(s.strip() for s in _strings(call.response.get("file_info")))
    for ref in sorted(references, key=len, reverse=True):
        if len(ref) >= 3:
            answer = answer.replace(ref, " ")
            answer = answer.replace(ref.replace("\\", "/"), " ")
    return _UUID.sub(" ", answer)


def _config_values(node: Any) -> Iterator[tuple[float, str | None]]:
    """Numbers of a config with their unit when a sibling ``<X>_UNITS`` states it (``TEMP_VALUE``)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                number = finite_number(value)  # an int past a float's range is no number
                if number is not None:
                    stem = str(key).removesuffix("_VALUE")
                    unit = node.get(f"{stem}_UNITS")
                    yield number, unit if isinstance(unit, str) else None
            else:
                yield from _config_values(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _config_values(value)


def own_configs(trace: RunTrace) -> list[dict[str, Any]]:
    """Configs of the runs of this trace that succeeded."""
    return [
        c.arguments["config"]
        for c in trace.calls
        if c.name == RUN_SIMULATION and c.ok and isinstance(c.arguments.get("config"), dict)
    ]


def evidence(trace: RunTrace) -> list[tuple[float, str | None]]:
    """``(value, unit)`` an answer may quote: cells of this trace's own workbooks, its successful configs."""
    values: list[tuple[float, str | None]] = []
    for call in trace.own_result_calls():
        values.extend((q.value, q.unit) for q in workbook_quantities(call.response))
    for config in own_configs(trace):
        values.extend(_config_values(config))
    return values


class Evidence:
    """Values an answer may quote, grouped by unit and sorted, so each number is checked in log time.

    A number matches a value when, read in its stated unit and converted to the value's unit, it is
    within 2 % of the value plus its written precision (either sign, except temperatures). A bare
    number, or a value of unknown unit (a config number without a ``_UNITS`` sibling), is compared as
    written.
    """

    def __init__(self, values: list[tuple[float, str | None]]) -> None:
        groups: dict[str | None, list[float]] = {}
        for value, unit in values:
            groups.setdefault(unit or None, []).append(value)
        self.groups = {unit: sorted(found) for unit, found in groups.items()}

    def grounds(self, statement: Statement) -> bool:
        """Whether some value matches ``statement``."""
        bare = Statement(statement.value, statement.half_unit, statement.significant, statement.is_small_int)
        for unit, found in self.groups.items():
            # in the value's unit; a percent against a unit-less value as a fraction; else as written
            readings = [(statement, unit)] if statement.unit and unit else [(statement, None), (bare, None)]
            if any(self._near(read, in_unit, found) for read, in_unit in readings):
                return True
        return False

    @staticmethod
    def _near(read: Statement, unit: str | None, found: list[float]) -> bool:
        value = converts(read, unit)
        if value is None:
            return False
        window = 0.05 * abs(value) + convert_step(read.value, read.precision, read.unit, unit) + 1e-9
        for center in (value, -value):
            near = found[bisect_left(found, center - window) : bisect_right(found, center + window)]
            if any(matches(read, v, unit, max(MATCH_REL_TOL * abs(v), 1e-9)) for v in near):
                return True
        return False
