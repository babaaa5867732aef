"""Results workbook (.xlsx) of a run, laid out as the real Aspen service's results export.

The real service writes, after a converged run, one workbook with a ``Stream Summary`` sheet (Aspen's
stream table written by ``pandas.DataFrame.to_excel(index=True)``) and one ``<BLOCK>_result`` sheet per
block (columns ``Parameter`` / ``Value``; rows are Aspen output variable names such as ``QCALC``, each
dimensional one followed by ``<NAME>_UNITS``). Its ``GET /get-aspen-result`` reads that workbook back
with pandas. This module builds the same layout from the mock's results document
(:func:`simulator_mock.flowsheet.results.build_results`), in fixed units (C, bar, kW, kmol/hr, kg/hr).

Where the real export reads an Aspen output the mock does not compute, the row is written when its
meaning can be derived from the results document (e.g. ``PDROP`` from the inlet and outlet pressures)
and left out otherwise; :data:`NOT_WRITTEN` lists every row left out, with the reason.

The file itself is written by a small SpreadsheetML writer (zip + XML) rather than openpyxl: openpyxl
needs 13-25 ms for a two-sheet workbook on the reference machine, more than the service's whole
single-unit budget (20 ms p50). Cells are encoded as openpyxl encodes them (inline strings, numbers as
``"%.16g"``, empty cells omitted), so openpyxl and pandas read the file exactly as they would read the
real service's export of the same values; the tests check that.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from simulator_mock.flowsheet.blocks import BLOCK_CLASSES
from simulator_mock.flowsheet.result_sheet import (
    MASS_ENTHALPY,
    MASS_FLOW,
    MOLAR_ENTHALPY,
    MOLAR_FLOW,
    POWER,
    PRESSURE,
    TEMPERATURE,
    BlockView,
    PortView,
    Rows,
)
from simulator_mock.flowsheet.results import write_file

#: Outputs the real export reads for a block type that the mock leaves out, with the reason (from each class).
NOT_WRITTEN: dict[str, dict[str, str]] = {name: dict(cls.not_written) for name, cls in BLOCK_CLASSES.items()}


STREAM_SHEET = "Stream Summary"
BLOCK_SHEET_SUFFIX = "_result"


# ---- the layout --------------------------------------------------------------------------------


def _mass_vapor_fraction(doc: dict[str, Any], MWs: dict[str, float]) -> float | None:
    VF = doc.get("vapor_fraction")
    if VF is None or doc.get("molar_flow_kmol_hr", 0.0) <= 0.0:
        return None
    if VF <= 0.0 or VF >= 1.0:
        return float(min(max(VF, 0.0), 1.0))
    ys = doc.get("vapor_mole_fractions")
    zs = doc.get("mole_fractions", {})
    if not ys:
        return None
    MW_vapor = sum(y * MWs[c] for c, y in ys.items())
    MW_mix = sum(z * MWs[c] for c, z in zs.items())
    return VF * MW_vapor / MW_mix if MW_mix > 0 else None


#: Stream Summary rows: (label, unit, results-document getter); component rows are added per section.
_PHASES = {"liquid": "Liquid", "vapor": "Vapor", "mixed": "Mixed"}


#: Stream Summary rows written when a stream of the run carries two liquid phases (after Molar Liquid
#: Fraction): the mole fraction of the stream in each liquid, and Aspen's 1st-liquid-to-total-liquid ratio.
LIQUID_LIQUID_ROWS = ("Molar 1st Liquid Fraction", "Molar 2nd Liquid Fraction", "1st Liquid / Total Liquid")


def _liquid_liquid_rows(
    docs: list[dict[str, Any]], per_stream: Callable[[Callable[[dict[str, Any]], Any]], list[Any]]
) -> list[tuple[str, str | None, list[Any]]]:
    """The liquid-liquid rows, only when a stream has two liquids (a vapour-liquid run keeps its layout)."""
    if not any("liquid2_fraction" in d for d in docs):
        return []

    def first(d: dict[str, Any]) -> float:
        return float(d.get("liquid1_fraction", 1.0 - d["vapor_fraction"]))

    def second(d: dict[str, Any]) -> float:
        return float(d.get("liquid2_fraction", 0.0))

    def ratio(d: dict[str, Any]) -> float | None:
        liquid = first(d) + second(d)
        return first(d) / liquid if liquid > 0 else None

    getters = (first, second, ratio)
    return [(label, None, per_stream(get)) for label, get in zip(LIQUID_LIQUID_ROWS, getters, strict=True)]


def _stream_summary(results: dict[str, Any]) -> list[list[Any]]:
    """Rows of the Stream Summary sheet (header first), as ``DataFrame.to_excel(index=True)`` lays it out."""
    streams: dict[str, dict[str, Any]] = results.get("streams", {})
    components: dict[str, dict[str, Any]] = results.get("components", {})
    cids = list(components)
    MWs = {c: float(components[c].get("molecular_weight", 0.0)) for c in cids}
    names = list(streams)
    docs = [streams[n] for n in names]

    def flowing(doc: dict[str, Any]) -> bool:
        return doc.get("molar_flow_kmol_hr", 0.0) > 0.0

    def per_stream(get: Callable[[dict[str, Any]], Any], only_flowing: bool = True) -> list[Any]:
        return [get(d) if (flowing(d) or not only_flowing) else None for d in docs]

    def mass_enthalpy(d: dict[str, Any]) -> float | None:
        mass = d.get("mass_flow_kg_hr", 0.0)
        return d["enthalpy_flow_kW"] * 3600.0 / mass if mass > 0 else None

    rows: list[list[Any]] = [[None, "Units", *names]]
    table: list[tuple[str, str | None, list[Any]]] = [
        ("From", None, per_stream(lambda d: d.get("source"), False)),
        ("To", None, per_stream(lambda d: d.get("destination"), False)),
        ("Phase", None, per_stream(lambda d: _PHASES.get(d.get("phase", "")))),
        ("Temperature", TEMPERATURE, per_stream(lambda d: d.get("temperature_C"), False)),
        ("Pressure", PRESSURE, per_stream(lambda d: d.get("pressure_bar"), False)),
        ("Molar Vapor Fraction", None, per_stream(lambda d: d.get("vapor_fraction"))),
        ("Molar Liquid Fraction", None, per_stream(lambda d: 1.0 - d["vapor_fraction"])),
        *_liquid_liquid_rows(docs, per_stream),
        ("Mass Vapor Fraction", None, per_stream(lambda d: _mass_vapor_fraction(d, MWs))),
        ("Molar Enthalpy", MOLAR_ENTHALPY, per_stream(lambda d: d["molar_enthalpy_kJ_mol"] * 1000.0)),
        ("Mass Enthalpy", MASS_ENTHALPY, per_stream(mass_enthalpy)),
        ("Enthalpy Flow", POWER, per_stream(lambda d: d.get("enthalpy_flow_kW"))),
        ("Average MW", None, per_stream(lambda d: d["mass_flow_kg_hr"] / d["molar_flow_kmol_hr"])),
    ]

    def component(key: str, cid: str, scale: float = 1.0) -> Callable[[dict[str, Any]], Any]:
        return lambda d: d[key].get(cid, 0.0) * scale

    def section(title: str, unit: str | None, total: str | None, key: str, weighted: bool = False) -> None:
        values = per_stream(lambda d: d.get(total), False) if total else [None] * len(docs)
        table.append((title, unit, values))
        for cid in cids:
            get = component(key, cid, MWs[cid] if weighted else 1.0)
            table.append((cid, unit, per_stream(get, only_flowing=key.endswith("fractions"))))

    section("Mole Flows", MOLAR_FLOW, "molar_flow_kmol_hr", "component_flows_kmol_hr")
    section("Mole Fractions", None, None, "mole_fractions")
    section("Mass Flows", MASS_FLOW, "mass_flow_kg_hr", "component_flows_kmol_hr", weighted=True)
    section("Mass Fractions", None, None, "mass_fractions")
    rows.extend([label, unit, *values] for label, unit, values in table)
    return rows


def _blocks(results: dict[str, Any], config: dict[str, Any]) -> list[tuple[str, str, BlockView]]:
    """(name, type, block) in the config's block order, with inlets/outlets in connection order."""
    docs: dict[str, dict[str, Any]] = results.get("blocks", {})
    streams: dict[str, dict[str, Any]] = results.get("streams", {})
    components = results.get("components", {})
    cids = list(components)
    MWs = {c: float(components[c].get("molecular_weight", 0.0)) for c in cids}
    order = [b.get("name") for b in config.get("blocks", []) if isinstance(b, dict)]
    names = [n for n in order if n in docs] + [n for n in docs if n not in order]
    connections = config.get("block_connections") or {}
    out = []
    for name in names:
        block = BlockView(name, docs[name], cids=cids, MWs=MWs)
        found = connections.get(name)
        ports: dict[str, Any] = found if isinstance(found, dict) else {}
        for stream, port in ports.items():
            if stream not in streams or not isinstance(port, str):
                continue
            target = block.inlets if port.upper().endswith("(IN)") else block.outlets
            target.append(PortView(stream, port.upper(), streams[stream]))
        if not ports:  # no connection data: the stream entries know their ends
            block.inlets = [PortView(s, "", d) for s, d in streams.items() if d.get("destination") == name]
            block.outlets = [PortView(s, "", d) for s, d in streams.items() if d.get("source") == name]
        out.append((name, docs[name].get("type", ""), block))
    return out


def sheets(results: dict[str, Any], config: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """The workbook's sheets, in order: sheet name -> rows (first row is the header).

    Args:
        results: the run's results document (:func:`simulator_mock.flowsheet.results.build_results`).
        config: the run's config (block order and the ports of each stream).
    """
    out = {STREAM_SHEET: _stream_summary(results)}
    for name, block_type, block in _blocks(results, config):
        cls = BLOCK_CLASSES.get(block_type)
        if cls is None or not cls.result_sheet:
            continue
        rows = Rows()
        cls.result_rows(block, rows)
        out[name + BLOCK_SHEET_SUFFIX] = [["Parameter", "Value"], *map(list, rows.rows)]
    return out


# ---- the file ----------------------------------------------------------------------------------

_CONTENT_TYPES_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/styles.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
)
_SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<styleSheet xmlns="{_MAIN}">'
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    "</styleSheet>"
)
#: Characters XML 1.0 forbids (openpyxl refuses them too); removed from strings.
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _cell(ref: str, value: Any) -> str:
    """One ``<c>`` element, encoded as openpyxl encodes it; empty for None / NaN / empty strings."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, int | float) or type(value).__module__ == "numpy":
        number = float(value) if not isinstance(value, int) else value
        if isinstance(number, float) and not math.isfinite(number):
            return ""
        return f'<c r="{ref}" t="n"><v>{format(number, ".16g")}</v></c>'
    text = _ILLEGAL.sub("", str(value))
    if not text:
        return ""
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c r="{ref}" t="inlineStr"><is><t{space}>{escape(text)}</t></is></c>'


def _sheet_xml(rows: list[list[Any]]) -> str:
    width = max((len(row) for row in rows), default=0)
    extent = f"A1:{_column(max(width, 1) - 1)}{max(len(rows), 1)}"
    parts = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
        f'<worksheet xmlns="{_MAIN}"><dimension ref="{extent}"/><sheetData>',
    ]
    for r, row in enumerate(rows, start=1):
        cells = "".join(_cell(f"{_column(c)}{r}", v) for c, v in enumerate(row))
        parts.append(f'<row r="{r}">{cells}</row>' if cells else f'<row r="{r}"/>')
    parts.append("</sheetData></worksheet>")
    return "".join(parts)


def xlsx_bytes(book: dict[str, list[list[Any]]]) -> bytes:
    """An .xlsx file holding ``book`` (sheet name -> rows), one worksheet per entry, in order."""
    titles = list(book)  # as openpyxl keeps them: block names are [A-Z][0-9A-Z]*, Aspen IDs are short
    content_types = _CONTENT_TYPES_HEAD + "".join(
        f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{_SHEET_TYPE}"/>'
        for i in range(1, len(book) + 1)
    )
    workbook = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>'
        + "".join(
            f'<sheet name="{escape(t, {chr(34): "&quot;"})}" sheetId="{i}" r:id="rId{i}"/>'
            for i, t in enumerate(titles, start=1)
        )
        + "</sheets></workbook>"
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(
            f'<Relationship Id="rId{i}" Type="{_REL}/worksheet" Target="worksheets/sheet{i}.xml"/>'
            for i in range(1, len(book) + 1)
        )
        + f'<Relationship Id="rId{len(book) + 1}" Type="{_REL}/styles" Target="styles.xml"/>'
        + "</Relationships>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", content_types + "</Types>")
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.xml", workbook)
        archive.writestr("xl/_rels/workbook.xml.rels", rels)
        archive.writestr("xl/styles.xml", _STYLES)
        for i, rows in enumerate(book.values(), start=1):
            archive.writestr(f"xl/worksheets/sheet{i}.xml", _sheet_xml(rows))
    return buffer.getvalue()


def write_workbook(results: dict[str, Any], config: dict[str, Any], path: Path) -> Path:
    """Write the results workbook of a run to ``path`` atomically; return its absolute path."""
    return write_file(xlsx_bytes(sheets(results, config)), path)
