"""The results workbook as the model reads it: compact text tables, and reading them back.

``render_workbook`` turns a ``/get-aspen-result`` document into a few thousand characters at most:

```
Results workbook aspen_result_export_1.xlsx
[Stream Summary]
Row | Units | FEED-1 | PRO-1
Temperature | C | 25 | 80
Mole Fractions/WATER |  | 1 | 1
[H1_result]
QCALC = 115.12 kW
```

The Stream Summary is one line per row (component rows by their ``<section>/<CID>`` address, the
section rows without values left out), one column per stream; a block sheet is one
``Parameter = Value unit`` line per output, its ``_UNITS`` row folded into the unit. Numbers keep 5
significant digits. When the text is longer than the limit, whole groups of Stream Summary rows are
left out in the order of :data:`DROP_ORDER` and the text says which. ``read_rendering`` parses the text
back into cells (the offline scripted policy reads what a model reads).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aspen_rl.contract.workbook import (
    COMPONENT_SECTIONS,
    STREAM_SUMMARY,
    UNITS_COLUMN,
    UNITS_SUFFIX,
    VALUE_COLUMN,
    as_number,
    is_workbook,
    row_addresses,
    sheet_table,
)

WORKBOOK_HEADING = "Results workbook "
"""How every rendering starts."""
SIGNIFICANT_DIGITS = 5
MAX_CHARS = 3000
_ENTHALPY_ROWS = frozenset({"Molar Enthalpy", "Mass Enthalpy", "Enthalpy Flow"})
_MINOR_ROWS = frozenset({"Molar Liquid Fraction", "Mass Vapor Fraction", "Average MW"})
DROP_ORDER: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("Mass Fractions/*", lambda a: a.startswith("Mass Fractions/")),
    ("Mass Flows/*", lambda a: a.startswith("Mass Flows/")),
    ("enthalpies", lambda a: a in _ENTHALPY_ROWS),
    ("Molar Liquid Fraction, Mass Vapor Fraction, Average MW", lambda a: a in _MINOR_ROWS),
    ("Mole Flows/*", lambda a: a.startswith("Mole Flows/")),
)
"""Groups of Stream Summary rows left out, in this order, while the text is too long."""
_SEPARATOR = " | "

Cells = dict[tuple[str, str, str | None], tuple[float | str | None, str | None]]
"""Cells read back from a rendering: ``(sheet, row, column) -> (value, unit)``."""


def format_value(value: Any, digits: int = SIGNIFICANT_DIGITS) -> str:
    """A cell as text: numbers to ``digits`` significant digits, empty cells as ``""``."""
    number = as_number(value)
    if number is not None:
        return f"{number:.{digits}g}"
    if value is None or isinstance(value, float):  # NaN/inf read as empty
        return ""
    return " ".join(str(value).split())


def _is_block_sheet(columns: list[str]) -> bool:
    return len(columns) >= 2 and columns[1] == VALUE_COLUMN


def _block_lines(sheet: str, columns: list[str], records: list[dict[str, Any]]) -> list[str]:
    addresses = row_addresses(sheet, columns[0], records)
    units = {
        a[: -len(UNITS_SUFFIX)]: format_value(r.get(VALUE_COLUMN))
        for a, r in zip(addresses, records, strict=True)
        if a and a.endswith(UNITS_SUFFIX)
    }
    lines = []
    for address, record in zip(addresses, records, strict=True):
        if not address or (address.endswith(UNITS_SUFFIX) and address[: -len(UNITS_SUFFIX)] in units):
            continue
        value = format_value(record.get(VALUE_COLUMN)) or "-"
        unit = units.get(address, "")
        lines.append(f"{address} = {value} {unit}".rstrip())
    return lines


def _table_rows(sheet: str, columns: list[str], records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(address, line)`` per row of a table-shaped sheet; section rows without values left out."""
    rows = []
    for address, record in zip(row_addresses(sheet, columns[0], records), records, strict=True):
        if not address:
            continue
        cells = [format_value(record.get(c)) for c in columns[1:]]
        values = [c for name, c in zip(columns[1:], cells, strict=True) if name != UNITS_COLUMN]
        if address in COMPONENT_SECTIONS and not any(values):
            continue
        rows.append((address, _SEPARATOR.join([address, *cells]).rstrip()))
    return rows


def render_workbook(document: dict[str, Any], max_chars: int = MAX_CHARS) -> str:
    """The workbook as compact text for the model (see the module docstring).

    Args:
        document: A successful ``/get-aspen-result`` answer.
        max_chars: Length the text should not exceed; Stream Summary row groups are left out to get
            there (a workbook of many blocks can still be longer: block sheets are never cut).
    """
    if not is_workbook(document):
        return "The answer is not a results workbook."
    info = document.get("file_info") if isinstance(document.get("file_info"), dict) else {}
    name = info.get("file_name") or os.path.basename(str(info.get("file_path") or "")) or "(unnamed)"
    head = [f"{WORKBOOK_HEADING}{name}"]
    summary: list[tuple[str, str]] = []
    summary_header = ""
    blocks: list[str] = []
    for sheet, table in document["data"].items():
        parsed = sheet_table(document, sheet)
        if parsed is None or not parsed[0]:
            reason = table.get("error") if isinstance(table, dict) else None
            blocks.append(f"[{sheet}]\n(unreadable: {reason or 'no table'})")
            continue
        columns, records = parsed
        if _is_block_sheet(columns) and sheet != STREAM_SUMMARY:
            blocks.append("\n".join([f"[{sheet}]", *_block_lines(sheet, columns, records)]))
        elif sheet == STREAM_SUMMARY:
            summary_header = _SEPARATOR.join(["Row", *columns[1:]])
            summary = _table_rows(sheet, columns, records)
        else:
            rows = _table_rows(sheet, columns, records)
            blocks.append(
                "\n".join([f"[{sheet}]", _SEPARATOR.join(["Row", *columns[1:]])] + [r for _, r in rows])
            )

    def assemble(kept: list[tuple[str, str]], omitted: list[str]) -> str:
        parts = list(head)
        if summary_header:
            parts += [f"[{STREAM_SUMMARY}]", summary_header, *(line for _, line in kept)]
            if omitted:
                parts.append(f"(rows left out for length: {'; '.join(omitted)})")
        return "\n".join(parts + blocks)

    kept, omitted = summary, []
    text = assemble(kept, omitted)
    for label, drop in DROP_ORDER:
        if len(text) <= max_chars:
            break
        remaining = [(a, line) for a, line in kept if not drop(a)]
        if len(remaining) != len(kept):
            kept, omitted = remaining, [*omitted, label]
            text = assemble(kept, omitted)
    return text


def _parse_cell(text: str) -> float | str | None:
    text = text.strip()
    if not text or text == "-":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def read_rendering(text: str) -> Cells:
    """Cells of a :func:`render_workbook` text: ``(sheet, row, column) -> (value, unit)``.

    ``column`` is the stream name on table sheets and ``None`` on block sheets (their ``Value``).
    """
    cells: Cells = {}
    sheet: str | None = None
    header: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            sheet, header = line[1:-1], None
            continue
        if sheet is None or not line or line.startswith("("):
            continue
        if "|" in line:
            parts = [p.strip() for p in line.split("|")]
            if header is None:
                header = parts
                continue
            unit_index = header.index(UNITS_COLUMN) if UNITS_COLUMN in header else None
            unit = parts[unit_index] or None if unit_index is not None and unit_index < len(parts) else None
            for i, column in enumerate(header[1:], start=1):
                if i != unit_index and i < len(parts):
                    cells[(sheet, parts[0], column)] = (_parse_cell(parts[i]), unit)
        elif " = " in line:
            name, _, rest = line.partition(" = ")
            value, _, unit = rest.partition(" ")
            cells[(sheet, name.strip(), None)] = (_parse_cell(value), unit.strip() or None)
    return cells
