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
significant digits. When the text is longer than the limit, whole groups of rows are left out in
the order of :data:`DROP_ORDER` (the rows that repeat what other rows or the config say go first)
and the text says which. ``read_rendering`` parses the text
back into cells (the offline scripted policy reads what a model reads).

A model that names streams and blocks (``only``) reads only those columns of the Stream Summary and
those blocks' sheets (a 17-stream recycle loop's results shrink from ~3,100 to a few hundred tokens); a name
the workbook does not hold is listed with the names it does hold, so the next read can be put right.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
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
MAX_CHARS = 4500
_ENTHALPY_ROWS = frozenset({"Molar Enthalpy", "Mass Enthalpy", "Enthalpy Flow"})
_MINOR_ROWS = frozenset({"Molar Liquid Fraction", "Mass Vapor Fraction", "Average MW"})
_TOPOLOGY_ROWS = frozenset({"From", "To", "Phase"})


def _summary_row(test: Callable[[str], bool]) -> Callable[[str, str, frozenset[str]], bool]:
    return lambda sheet, address, _cids: sheet == STREAM_SUMMARY and test(address)


def _block_component_row(sheet: str, address: str, cids: frozenset[str]) -> bool:
    """A block sheet's per-component row (``Y_MEOH``, ``B_K_H2``): the streams' compositions again."""
    if sheet == STREAM_SUMMARY:
        return False
    return any(address.endswith("_" + cid) and len(address) > len(cid) + 1 for cid in cids)


DROP_ORDER: tuple[tuple[str, Callable[[str, str, frozenset[str]], bool]], ...] = (
    ("Mass Fractions/*", _summary_row(lambda a: a.startswith("Mass Fractions/"))),
    ("per-component rows of block sheets", _block_component_row),
    ("Mass Flows/*", _summary_row(lambda a: a.startswith("Mass Flows/"))),
    ("enthalpies", _summary_row(lambda a: a in _ENTHALPY_ROWS)),
    ("Molar Liquid Fraction, Mass Vapor Fraction, Average MW", _summary_row(lambda a: a in _MINOR_ROWS)),
    ("From, To, Phase", _summary_row(lambda a: a in _TOPOLOGY_ROWS)),
    ("Mole Flows/*", _summary_row(lambda a: a.startswith("Mole Flows/"))),
)
"""Groups of rows left out, in this order, while the text is longer than the limit."""
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


def _block_lines(sheet: str, columns: list[str], records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(address, line)`` per output of a block sheet, its ``_UNITS`` row folded into the unit."""
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
        lines.append((address, f"{address} = {value} {unit}".rstrip()))
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


# One line of the rendering: (sheet, row address or None for a heading, text).
_Line = tuple[str, str | None, str]


def _block_of(sheet: str) -> str:
    """The block a block sheet belongs to: ``R1_result`` -> ``R1``."""
    return sheet.rsplit("_", 1)[0] if "_" in sheet else sheet


def _held_names(document: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The streams (Stream Summary columns) and blocks (block sheets) a workbook holds."""
    parsed = sheet_table(document, STREAM_SUMMARY)
    streams = [c for c in parsed[0][1:] if c != UNITS_COLUMN] if parsed else []
    return streams, [_block_of(s) for s in document["data"] if s != STREAM_SUMMARY]


def _selection_note(document: dict[str, Any], only: Sequence[str]) -> list[str]:
    """A line naming the asked-for names the workbook does not hold, with those it does."""
    streams, blocks = _held_names(document)
    missing = [name for name in only if name not in streams and name not in blocks]
    if not missing:
        return []
    held = f"streams: {', '.join(streams)}; blocks: {', '.join(blocks)}"
    return [f"(not in this workbook: {', '.join(missing)}; {held})"]


def _sheet_lines(document: dict[str, Any], only: Sequence[str] | None = None) -> list[_Line]:
    """Every line of the rendering, the Stream Summary first, then the sheets in workbook order.

    ``only`` (``None``: all) keeps the Stream Summary columns and the block sheets of those names.
    """
    summary: list[_Line] = []
    others: list[_Line] = []
    for sheet, table in document["data"].items():
        if sheet != STREAM_SUMMARY and only is not None and _block_of(sheet) not in only:
            continue
        parsed = sheet_table(document, sheet)
        if parsed is None or not parsed[0]:
            reason = table.get("error") if isinstance(table, dict) else None
            others += [(sheet, None, f"[{sheet}]"), (sheet, None, f"(unreadable: {reason or 'no table'})")]
            continue
        columns, records = parsed
        if sheet != STREAM_SUMMARY and _is_block_sheet(columns):
            rows = _block_lines(sheet, columns, records)
            heading: list[_Line] = [(sheet, None, f"[{sheet}]")]
        else:
            if sheet == STREAM_SUMMARY and only is not None:
                columns = [columns[0], *(c for c in columns[1:] if c == UNITS_COLUMN or c in only)]
            rows = _table_rows(sheet, columns, records)
            heading = [(sheet, None, f"[{sheet}]"), (sheet, None, _SEPARATOR.join(["Row", *columns[1:]]))]
        lines: list[_Line] = heading + [(sheet, address, line) for address, line in rows]
        if sheet == STREAM_SUMMARY:
            if only is not None and len(columns) <= 2:
                continue  # no stream asked for: no table
            summary = lines
        else:
            others += lines
    return summary + others


def render_workbook(
    document: dict[str, Any],
    max_chars: int = MAX_CHARS,
    *,
    only: Sequence[str] | None = None,
) -> str:
    """The workbook as compact text for the model (see the module docstring).

    Args:
        document: A successful ``/get-aspen-result`` answer.
        max_chars: Length the text should not exceed; the row groups of :data:`DROP_ORDER` are left
            out to get there (a flowsheet so large that it is still longer is shown as it then is).
        only: Stream and block names: only their Stream Summary columns and block sheets are shown
            (``None``: everything); a name the workbook does not hold is listed with those it holds.
    """
    if not is_workbook(document):
        return "The answer is not a results workbook."
    file_info = document.get("file_info")
    info: dict[str, Any] = file_info if isinstance(file_info, dict) else {}
    name = info.get("file_name") or os.path.basename(str(info.get("file_path") or "")) or "(unnamed)"
    lines = _sheet_lines(document, only)
    notes = [] if only is None else _selection_note(document, only)
    cids = frozenset(
        address.split("/", 1)[1]
        for sheet, address, _ in lines
        if sheet == STREAM_SUMMARY and address and "/" in address
    )

    def assemble(kept: list[_Line], omitted: list[str]) -> str:
        parts = [f"{WORKBOOK_HEADING}{name}", *(text for _, _, text in kept), *notes]
        if omitted:
            parts.append(f"(rows left out for length: {'; '.join(omitted)})")
        return "\n".join(parts)

    kept = lines
    omitted: list[str] = []
    text = assemble(kept, omitted)
    for label, drop in DROP_ORDER:
        if len(text) <= max_chars:
            break
        remaining = [line for line in kept if line[1] is None or not drop(line[0], line[1], cids)]
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
