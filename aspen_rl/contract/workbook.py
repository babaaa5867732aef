"""Reading the results workbook as ``GET /get-aspen-result`` serves it (pandas ``read_excel`` records).

The document is ``{"status": "success", "file_info": {...}, "data": {sheet: {"row_count", "column_count",
"column_names", "data": [record, ...]}}}``. Two kinds of sheet:

- ``Stream Summary``: first column (``"Unnamed: 0"``) holds the row label, ``Units`` the unit, then one
  column per stream. Component rows sit below a section row (``Mole Flows``, ``Mole Fractions``,
  ``Mass Flows``, ``Mass Fractions``) and are addressed ``"<section>/<CID>"``, e.g.
  ``"Mole Fractions/WATER"``; any other row by its label, e.g. ``"Temperature"``.
- ``<BLOCK>_result``: columns ``Parameter`` and ``Value``; a dimensional row ``QCALC`` is followed by a
  ``QCALC_UNITS`` row whose value is its unit.

A cell is addressed by (sheet, row, column); the column is a stream name on the Stream Summary and
``Value`` (the default) on a block sheet.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

STREAM_SUMMARY = "Stream Summary"
VALUE_COLUMN = "Value"
UNITS_COLUMN = "Units"
UNITS_SUFFIX = "_UNITS"
BLOCK_SHEET_SUFFIX = "_result"
COMPONENT_SECTIONS = ("Mole Flows", "Mole Fractions", "Mass Flows", "Mass Fractions")
"""Stream Summary rows that open a block of one-row-per-component rows."""
NON_NUMERIC_ROWS = frozenset({"From", "To", "Phase", "Mole Fractions", "Mass Fractions", UNITS_COLUMN})
"""Stream Summary rows that never hold a number (text, or a section row without values)."""

WORKBOOK_UNITS = frozenset(
    {"", "C", "bar", "kW", "kmol/hr", "kg/hr", "cum/hr", "cum", "hr", "meter", "kJ/kmol", "kJ/kg"}
)
"""Every unit the results workbook states (Aspen's spelling; ``""`` for a dimensionless value)."""
STREAM_NAME = re.compile(r"^[A-Z]+-[0-9]+$")
BLOCK_SHEET = re.compile(r"^[A-Z][0-9A-Z]*_result$")
BLOCK_PARAMETER = re.compile(r"^[A-Z][A-Z0-9_]*$")


class WorkbookAddressError(ValueError):
    """A (sheet, row, column) address that no results workbook of the contract can hold."""


@dataclass(frozen=True)
class Cell:
    """One cell of the workbook and the unit the workbook states for it.

    Attributes:
        value: The cell as served (a number, a text, or ``None`` for an empty cell).
        unit: The unit from the ``Units`` column or the ``<NAME>_UNITS`` row; ``None`` when none is stated.
    """

    value: Any
    unit: str | None

    @property
    def number(self) -> float | None:
        """The value as a finite float, or ``None`` when it is not a number."""
        return as_number(self.value)


def as_number(value: Any) -> float | None:
    """``value`` as a finite float when it is an int or float (not a bool), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def check_address(sheet: str, row: str, column: str | None = None) -> tuple[str, str, str | None]:
    """Validate a cell address; returns it with a block sheet's column defaulted to ``None``.

    Raises:
        WorkbookAddressError: The sheet is neither ``Stream Summary`` nor ``<BLOCK>_result``; a Stream
            Summary address lacks a stream column or names a text/section row; a component row's
            section is not one of :data:`COMPONENT_SECTIONS`; a block sheet's row is not an Aspen
            output name, is a ``_UNITS`` row, or its column is not ``Value``.
    """
    if not isinstance(row, str) or not row or row != row.strip():
        raise WorkbookAddressError(f"row must be a non-empty label without surrounding blanks, got {row!r}")
    if sheet == STREAM_SUMMARY:
        if column is None or not STREAM_NAME.match(column) or len(column) >= 8:
            raise WorkbookAddressError(
                f"a {STREAM_SUMMARY!r} address needs column = a stream name like 'S-1' or 'FEED-15' "
                f"(pattern ^[A-Z]+-[0-9]+$, under 8 characters), got {column!r}"
            )
        if row in NON_NUMERIC_ROWS:
            raise WorkbookAddressError(f"row {row!r} of {STREAM_SUMMARY!r} holds no number")
        if "/" in row:
            section, _, cid = row.partition("/")
            if section not in COMPONENT_SECTIONS or not cid or "/" in cid or cid != cid.strip():
                raise WorkbookAddressError(
                    f"component row {row!r} must read '<section>/<CID>' with section one of "
                    f"{list(COMPONENT_SECTIONS)}"
                )
        return sheet, row, column
    if not isinstance(sheet, str) or not BLOCK_SHEET.match(sheet):
        raise WorkbookAddressError(
            f"sheet must be {STREAM_SUMMARY!r} or '<BLOCK>_result' (e.g. 'H1_result'), got {sheet!r}"
        )
    if column not in (None, VALUE_COLUMN):
        raise WorkbookAddressError(f"a block sheet's column is {VALUE_COLUMN!r} (or omitted), got {column!r}")
    if not BLOCK_PARAMETER.match(row) or row.endswith(UNITS_SUFFIX):
        raise WorkbookAddressError(
            f"a block sheet's row is an Aspen output name such as 'QCALC' (not a '_UNITS' row), got {row!r}"
        )
    return sheet, row, None


def is_workbook(document: Any) -> bool:
    """Whether ``document`` has the shape of a successful ``/get-aspen-result`` answer."""
    return (
        isinstance(document, dict)
        and document.get("status") == "success"
        and isinstance(document.get("data"), dict)
    )


def sheet_table(document: Any, sheet: str) -> tuple[list[str], list[dict[str, Any]]] | None:
    """``(column_names, records)`` of one sheet, or ``None`` when the sheet is absent or unreadable."""
    if not is_workbook(document):
        return None
    table = document["data"].get(sheet)
    if not isinstance(table, dict) or not isinstance(table.get("data"), list):
        return None
    records = [r for r in table["data"] if isinstance(r, dict)]
    names = table.get("column_names")
    if isinstance(names, list) and names:
        columns = [str(n) for n in names]
    else:
        columns = list(records[0]) if records else []
    return columns, records


def row_addresses(sheet: str, label_column: str, records: list[dict[str, Any]]) -> list[str | None]:
    """The address of every record of a sheet (``None`` for a record without a label).

    On the Stream Summary a record below a section row is addressed ``"<section>/<label>"``.
    """
    addresses: list[str | None] = []
    section: str | None = None
    for record in records:
        label = record.get(label_column)
        if label is None or (isinstance(label, str) and not label.strip()):
            addresses.append(None)
            continue
        text = str(label).strip()
        if sheet == STREAM_SUMMARY and text in COMPONENT_SECTIONS:
            section = text
            addresses.append(text)
        elif sheet == STREAM_SUMMARY and section is not None:
            addresses.append(f"{section}/{text}")
        else:
            addresses.append(text)
    return addresses


def _unit_text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def lookup(document: Any, sheet: str, row: str, column: str | None = None) -> Cell | None:
    """The cell at (sheet, row, column) of a ``/get-aspen-result`` document, or ``None`` if absent.

    Args:
        document: The JSON answer of ``GET /get-aspen-result``.
        sheet: ``"Stream Summary"`` or ``"<BLOCK>_result"``.
        row: A row label (``"Temperature"``, ``"QCALC"``) or ``"<section>/<CID>"``.
        column: A stream name on the Stream Summary; ``None`` means ``"Value"``.

    Returns:
        The cell and its unit (from the ``Units`` column, else the ``<row>_UNITS`` row).
    """
    table = sheet_table(document, sheet)
    if table is None:
        return None
    columns, records = table
    if not columns:
        return None
    label_column = columns[0]
    wanted = column or VALUE_COLUMN
    if wanted not in columns or wanted == label_column:
        return None
    addresses = row_addresses(sheet, label_column, records)
    for address, record in zip(addresses, records, strict=True):
        if address != row:
            continue
        if UNITS_COLUMN in columns and wanted != UNITS_COLUMN:
            unit = _unit_text(record.get(UNITS_COLUMN))
        else:
            unit = None
            units_row = row + UNITS_SUFFIX
            for other_address, other in zip(addresses, records, strict=True):
                if other_address == units_row:
                    unit = _unit_text(other.get(wanted))
                    break
        return Cell(value=record.get(wanted), unit=unit)
    return None


def numeric_cells(document: Any) -> Iterator[tuple[str, str, str, float]]:
    """Every numeric cell of the workbook as ``(sheet, row address, column, value)``.

    Label and ``Units`` columns are skipped; so is the document's bookkeeping (row counts, file info).
    """
    if not is_workbook(document):
        return
    for sheet in document["data"]:
        table = sheet_table(document, sheet)
        if table is None or not table[0]:
            continue
        columns, records = table
        label_column = columns[0]
        for address, record in zip(row_addresses(sheet, label_column, records), records, strict=True):
            for column in columns[1:]:
                if column == UNITS_COLUMN:
                    continue
                number = as_number(record.get(column))
                if number is not None:
                    yield sheet, address or "", column, number
