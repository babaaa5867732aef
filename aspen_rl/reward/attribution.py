"""Which numbers of an answer report which quantity: each number, its stated unit, what the text ties it to.

An answer is read as *statements*: a number, the unit written right after it (or in a bracket before
it, a table's column header, or a table's ``Unit`` column), and the text around it in three layers,
nearest first: the *segment* (the text since the previous number on the same line or clause, or, in
a Markdown table, the cell's text before the number and its column header), the *label* (the line's
text before its first number, or a table row's text cells) and the *heading* (the last line above
without numbers). A table's text is read at most :data:`MAX_CONTEXT_CHARS` at a time, so an answer is
read in work linear in its length: past that many characters into a cell, a number's segment is, as
on a line, the cell's text since the previous number (after the cell's text before its first number),
each the nearest :data:`MAX_CONTEXT_CHARS` of it, and a longer header is read to that length.

Every numeric cell of the rollout's results workbook is a *quantity* with facets: its owner (the
stream or block), its kind (the row: ``Temperature``, ``QCALC``, ``Mole Fractions``...) and, for a
component row, its component. A layer *names* a facet when it contains one of the facet's aliases
(the stream or block name; the kind's English and Chinese words; the component id, its config name or
Chinese name; a target's own name names all its facets), longest match first (``minimum reflux
ratio`` is not also ``reflux ratio``). A statement is attributed to the quantities, among those its
unit converts to, that the text names best: score = sum over the quantity's facets of the weight of
the nearest layer naming it (segment 3, label 2, heading 1) minus 0.5 per facet not named; the top
score wins (ties share the statement), and a score of 0 or less attributes nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aspen_rl.contract.workbook import (
    STREAM_SUMMARY,
    UNITS_COLUMN,
    UNITS_SUFFIX,
    VALUE_COLUMN,
    as_number,
    is_workbook,
    row_addresses,
    sheet_table,
)
from aspen_rl.reward import quantities

LAYER_WEIGHTS = (3.0, 2.0, 1.0)
"""Weight of a facet named in the segment, the label, the heading."""
UNNAMED_FACET_PENALTY = 0.5
BLOCK_SHEET_SUFFIX = "_result"
MAX_CONTEXT_CHARS = 100
"""Most characters of a table cell (before a number) or column header read into a number's segment: a
cell holding 50,000 numbers was read whole before each, quadratic (7 GB of text, hours, for 300 kB)."""

_NUMBER = re.compile(
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)"
    r"|(?P<num>(?:(?<![^\s=:：(（\[,，/|])-)?"
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE][-+]?\d+)?)"
)
_CHINESE_UNITS = sorted(
    (w for w in quantities._WORDS if re.match(r"[\u4e00-\u9fff]", w)), key=len, reverse=True
)
_UNIT_AFTER = re.compile(
    r"[ \u00a0\u2009\u202f]?(?P<unit>(?:"
    + "|".join(map(re.escape, _CHINESE_UNITS))
    + r")(?:/(?:"
    + "|".join(map(re.escape, _CHINESE_UNITS))
    + r"))?|"
    + quantities.UNIT_EXPRESSION.pattern
    + r")"
)
_BRACKET_UNIT = re.compile(r"[(\[（【]\s*([^()\[\]（）【】]{1,20}?)\s*[)\]）】]")
_CLAUSE_END = re.compile(r"(?<=[。；;！!？?])|(?<=[.])\s+(?=[A-Z\u4e00-\u9fff])")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_UNIT_HEADERS = frozenset({"unit", "units", "单位"})
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
_WORD_HEAD = re.compile(r"^[A-Za-z0-9_]+")
_WORD_TAIL = re.compile(r"[A-Za-z0-9_]+$")


# -- numbers and statements ---------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """A number of the answer, its stated unit and the text that ties it to a quantity.

    Attributes:
        value: The number as written (``1,234.5`` is 1234.5).
        half_unit: Half a unit of the last digit written (``80.0`` -> 0.05; ``1e3`` -> 500).
        significant: Significant digits written (``0.0012`` -> 2, ``0e9`` -> 0).
        is_small_int: An integer below 10 written without a decimal point or exponent (list markers,
            counts): never evidence of anything.
        unit: The unit the text states for it, ``None`` when it states none.
        layers: Segment, label and heading text (nearest first).
    """

    value: float
    half_unit: float
    significant: int
    is_small_int: bool
    unit: str | None = None
    layers: tuple[str, str, str] = ("", "", "")

    @property
    def precision(self) -> float:
        """Written precision credited (in the stated unit): half a unit of the last digit, only when at
        least two significant digits are written, so it never exceeds 5 % of the number (``0e9`` and
        ``1e3`` get none)."""
        return self.half_unit if self.significant >= 2 and not self.is_small_int else 0.0


def _parse_number(raw: str) -> tuple[float, float, int, bool] | None:
    cleaned = raw.replace(",", "")
    mantissa, _, exponent = cleaned.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    try:
        value = float(cleaned)
        exp = int(exponent) if exponent else 0
    except ValueError:  # pragma: no cover - the pattern only admits numbers
        return None
    if not math.isfinite(value):
        return None
    digits = mantissa.lstrip("-").replace(".", "").lstrip("0")
    small = "." not in mantissa and not exponent and abs(value) < 10
    # an exponent past a float's range keeps the value finite ("0e400" is 0, "1e-400" underflows to 0): the
    # half unit's power is clamped to the float range (an int that large cannot even become a float)
    return value, 0.5 * 10.0 ** max(min(exp - decimals, 308), -400), len(digits), small


def _numbers(text: str) -> Iterator[tuple[int, int, float, float, int, bool]]:
    """``(start, end, value, half_unit, significant, is_small_int)`` of each number of a text."""
    for match in _NUMBER.finditer(text):
        if match.group("num") is None:
            continue
        parsed = _parse_number(match.group("num"))
        if parsed is not None:
            yield (match.start(), match.end(), *parsed)


def _unit_after(text: str, end: int) -> tuple[str | None, int]:
    """The unit written right after position ``end`` (and where it ends), or ``(None, end)``."""
    match = _UNIT_AFTER.match(text, end)
    if not match:
        return None, end
    unit = match.group("unit")
    # "1 bar/2 stages": keep the longest leading part that is a unit this module reads.
    while not quantities.is_unit(unit):
        parts = re.split(r"(\s?[/·*]\s?)", unit)
        if len(parts) < 3:
            return None, end
        unit = "".join(parts[:-2])
    after = match.start("unit") + len(unit)
    if unit.isascii() and re.match(r"[A-Za-z0-9_]|-\d", text[after:]):
        return None, end
    return unit, after


def _bracket_unit(text: str) -> str | None:
    """The last unit written in brackets in ``text`` (``Duty (kW):``, ``Temperature [°C]``)."""
    found = None
    for match in _BRACKET_UNIT.finditer(text):
        if quantities.is_unit(match.group(1)):
            found = match.group(1)
    return found


def _clip(text: str, *, keep_end: bool) -> str:
    """At most :data:`MAX_CONTEXT_CHARS` of ``text``: its end (or its start), with no word cut in two (the
    part of a word could name what the whole does not: ``temp`` of ``temperatureX``)."""
    if len(text) <= MAX_CONTEXT_CHARS:
        return text
    cut = len(text) - MAX_CONTEXT_CHARS if keep_end else MAX_CONTEXT_CHARS
    kept = text[cut:] if keep_end else text[:cut]
    if not (_WORD_CHAR.match(text, cut - 1) and _WORD_CHAR.match(text, cut)):
        return kept
    return _WORD_HEAD.sub("", kept, count=1) if keep_end else _WORD_TAIL.sub("", kept, count=1)


def _cells(line: str) -> list[str]:
    cells = [c.strip() for c in line.strip().split("|")]
    if cells and not cells[0]:
        cells = cells[1:]
    if cells and not cells[-1]:
        cells = cells[:-1]
    return cells


def _is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|") and line.count("|") >= 2


def read_statements(answer: str) -> list[Statement]:
    """Every number of an answer as a :class:`Statement` (see the module docstring for the layers)."""
    statements: list[Statement] = []
    heading = ""
    header: list[str] | None = None
    columns: list[tuple[str, str | None]] = []  # each header's layer text and bracket unit, once per table
    for raw in answer.replace("\u2212", "-").splitlines():  # a typeset minus sign is a minus
        line = raw.strip()
        if not line:
            header = None
            continue
        if _is_table_row(line):
            if _TABLE_SEPARATOR.match(line):
                continue
            cells = _cells(line)
            if header is None and not any(True for cell in cells for _ in _numbers(cell)):
                header = cells
                columns = [(f" {_clip(h, keep_end=False)}", _bracket_unit(h)) for h in header]
                continue
            statements.extend(_table_row(cells, header or [], columns if header else [], heading))
            continue
        header = None
        found = False
        for clause in _CLAUSE_END.split(line):
            numbers = list(_numbers(clause))
            if not numbers:
                continue
            found = True
            label = clause[: numbers[0][0]]
            label_unit = _bracket_unit(label)  # once per clause: a long label read per number is quadratic
            previous = 0
            for start, end, value, half, significant, small in numbers:
                if start < previous:
                    continue
                segment = clause[previous:start]
                unit, previous = _unit_after(clause, end)
                if unit is None:
                    unit = _bracket_unit(segment) or label_unit
                statements.append(Statement(value, half, significant, small, unit, (segment, label, heading)))
        if not found:
            heading = line.strip("#*: ：")
    return statements


def _table_row(
    cells: list[str], header: list[str], columns: list[tuple[str, str | None]], heading: str
) -> Iterator[Statement]:
    """Statements of a table row; ``columns``: each header's layer text and bracket unit (one string per
    table, so a long header is named and hashed once, not once per row)."""
    unit_column = next((j for j, h in enumerate(header) if h.strip().lower() in _UNIT_HEADERS), None)
    row_unit = cells[unit_column] if unit_column is not None and unit_column < len(cells) else ""
    label = " ".join(
        c for j, c in enumerate(cells) if j != unit_column and not any(True for _ in _numbers(c))
    )
    # read once per row (and column), not once per number: a long row would be quadratic
    fallback = (row_unit if quantities.is_unit(row_unit) else None) or _bracket_unit(label)
    for j, cell in enumerate(cells):
        bare, header_unit = columns[j] if j < len(columns) else (" ", None)
        lead, previous = "", 0
        for start, end, value, half, significant, small in _numbers(cell):
            if not previous:  # the cell's first number
                lead = _clip(cell[:start], keep_end=True)
            if start <= MAX_CONTEXT_CHARS:  # an ordinary cell: all of its text before the number
                before = cell[:start]
            elif not previous:
                before = lead
            else:  # deep in a long cell: as on a line (the whole cell before each would be quadratic)
                before = f"{lead} {_clip(cell[previous:start], keep_end=True)}"
            unit, previous = _unit_after(cell, end)
            if unit is None:
                unit = _bracket_unit(before) or header_unit or fallback
            yield Statement(
                value, half, significant, small, unit, (f"{before}{bare}" if before else bare, label, heading)
            )


# -- quantities of the workbook and their aliases -----------------------------------------------


def _table(entries: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """``{key: "a|b|c"}`` -> ``{key: ("a", "b", "c")}`` (keeps the word tables below compact)."""
    return {key: tuple(words.split("|")) for key, words in entries.items()}


KIND_ALIASES: dict[str, tuple[str, ...]] = _table(
    {
        "Temperature": "temperature|temp|温度",
        "Pressure": "pressure|压力|压强",
        "Molar Vapor Fraction": (
            "vapor fraction|vapour fraction|molar vapor fraction|vapor frac|汽化分率|"
            "气相分率|汽相分率|汽化率|气化率|汽相分数|气相分数"
        ),
        "Molar Liquid Fraction": "liquid fraction|molar liquid fraction|液相分率|液相分数",
        "Mass Vapor Fraction": "mass vapor fraction|mass vapour fraction|质量汽化分率",
        "Molar Enthalpy": "molar enthalpy|摩尔焓",
        "Mass Enthalpy": "mass enthalpy|specific enthalpy|质量焓",
        "Enthalpy Flow": "enthalpy flow|焓流",
        "Average MW": "average mw|molecular weight|molar mass|平均分子量|分子量",
        "Mole Flows": (
            "mole flow|molar flow|mole flows|molar flow rate|flow rate|flowrate|flow|total flow|摩尔流量|流量"
        ),
        "Mole Fractions": (
            "mole fraction|molar fraction|mol fraction|mole frac|composition|purity|"
            "摩尔分数|摩尔分率|摩尔组成|组成|纯度|含量"
        ),
        "Mass Flows": "mass flow|mass flows|mass flow rate|flow rate|flowrate|flow|质量流量|流量",
        "Mass Fractions": (
            "mass fraction|weight fraction|wt fraction|composition|purity|质量分数|质量分率|组成|纯度|含量"
        ),
        "QCALC": "duty|heat duty|heat load|calculated duty|热负荷|热量|负荷",
        "QCALC2": "second duty|duty 2",
        "QNET": "net duty|net heat duty|净热负荷",
        "HX_DUTY": "duty|heat duty|exchanger duty|热负荷|换热量",
        "B_TEMP": "temperature|outlet temperature|温度|出口温度",
        "B_PRES": "pressure|outlet pressure|压力|出口压力",
        "B_VFRAC": "vapor fraction|vapour fraction|汽化分率|气相分率",
        "PDROP": "pressure drop|压降",
        "WNET": "net work|work|power|功率|净功",
        "BRAKE_POWER": "brake power|shaft power|power|轴功率|功率",
        "IND_POWER": "indicated power|功率",
        "ELEC_POWER": "electricity|electric power|electrical power|power|电功率|功率",
        "FLUID_POWER": "fluid power|水力功率",
        "COND_DUTY": "condenser duty|condenser heat duty|condenser|冷凝器热负荷|冷凝器负荷|冷凝器",
        "REB_DUTY": "reboiler duty|reboiler heat duty|reboiler|再沸器热负荷|再沸器负荷|再沸器",
        "MIN_REFLUX": "minimum reflux ratio|min reflux ratio|minimum reflux|最小回流比",
        "ACT_REFLUX": "reflux ratio|actual reflux ratio|reflux|回流比|实际回流比",
        "MOLE_RR": "reflux ratio|molar reflux ratio|回流比",
        "MIN_STAGES": (
            "minimum stages|minimum number of stages|min stages|"
            "minimum theoretical stages|最小理论板数|最少理论板数|最小塔板数"
        ),
        "ACT_STAGES": (
            "number of stages|stages|theoretical stages|actual stages|理论板数|实际理论板数|塔板数|板数"
        ),
        "FEED_LOCATN": "feed stage|feed location|feed tray|进料位置|进料板",
        "RECT_STAGES": "rectifying stages|rectification stages|精馏段板数|精馏段",
        "DIST_VS_FEED": "distillate to feed ratio|distillate/feed|d/f|馏出比|采出比",
        "DISTIL_TEMP": "distillate temperature|top temperature|塔顶温度",
        "TOP_TEMP": "top temperature|condenser temperature|塔顶温度",
        "BOTTOM_TEMP": "bottom temperature|bottoms temperature|reboiler temperature|塔底温度",
        "FEED_TRAY_T": "feed tray temperature|feed stage temperature|进料板温度",
        "MOLE_D": "distillate flow|distillate rate|馏出物流量|塔顶流量",
        "MOLE_B": "bottoms flow|bottoms rate|塔底流量|釜液流量",
        "MOLE_DFR": "distillate to feed ratio|d/f|馏出比",
        "MOLE_BFR": "bottoms to feed ratio|b/f",
        "MOLE_BR": "boilup ratio|boil-up ratio|再沸比",
        "TCALC": "temperature|calculated temperature|温度",
        "VFLOW": "volumetric flow|volume flow|体积流量",
        "HEAD_CAL": "head|扬程",
        "COLD_TEMP": "cold outlet temperature|cold side outlet temperature|冷侧出口温度",
        "HOT_TEMP": "hot outlet temperature|hot side outlet temperature|热侧出口温度",
    }
)
"""English and Chinese words for each row kind (matched case-insensitively, longest first)."""

COMPONENT_NAMES_ZH: dict[str, tuple[str, ...]] = _table(
    {
        "WATER": "水",
        "MEOH": "甲醇",
        "ETOH": "乙醇",
        "C6H12": "环己烷",
        "C6H6": "苯",
        "C7H8": "甲苯",
        "NBUTANE": "正丁烷|丁烷",
        "H2O": "水",
        "METHANOL": "甲醇",
        "ETHANOL": "乙醇",
        "BENZENE": "苯",
        "TOLUENE": "甲苯",
        "ACETONE": "丙酮",
        "METHANE": "甲烷",
        "ETHANE": "乙烷",
        "PROPANE": "丙烷",
        "BUTANE": "丁烷",
        "N-BUTANE": "正丁烷|丁烷",
        "ISOBUTANE": "异丁烷",
        "PENTANE": "戊烷",
        "N-PENTANE": "正戊烷",
        "HEXANE": "己烷",
        "N-HEXANE": "正己烷|己烷",
        "HEPTANE": "庚烷",
        "N-HEPTANE": "正庚烷|庚烷",
        "OCTANE": "辛烷",
        "N-OCTANE": "正辛烷|辛烷",
        "CYCLOHEXANE": "环己烷",
        "ETHYLENE": "乙烯",
        "PROPYLENE": "丙烯",
        "STYRENE": "苯乙烯",
        "NITROGEN": "氮气|氮",
        "N2": "氮气",
        "OXYGEN": "氧气|氧",
        "O2": "氧气",
        "HYDROGEN": "氢气|氢",
        "H2": "氢气",
        "CO2": "二氧化碳",
        "CO": "一氧化碳",
        "AMMONIA": "氨|氨气",
        "NH3": "氨",
        "ACETIC-ACID": "乙酸|醋酸",
        "ACETIC": "乙酸|醋酸",
        "ETHYL-ACETATE": "乙酸乙酯",
        "P-XYLENE": "对二甲苯",
        "O-XYLENE": "邻二甲苯",
        "M-XYLENE": "间二甲苯",
        "CHLOROFORM": "氯仿|三氯甲烷",
        "ISOPROPANOL": "异丙醇",
        "1-PROPANOL": "正丙醇",
        "N-PROPANOL": "正丙醇",
        "1-BUTANOL": "正丁醇",
        "N-BUTANOL": "正丁醇",
        "DIETHYL-ETHER": "乙醚",
        "FORMALDEHYDE": "甲醛",
        "ACETALDEHYDE": "乙醛",
        "PHENOL": "苯酚",
    }
)
"""Chinese names of common components, by component id (the id, its config name and these all name it)."""


@dataclass(frozen=True)
class Quantity:
    """A numeric cell of the results workbook and the facets a text can name it by.

    Attributes:
        sheet, row, column: The cell's address (``column`` ``None`` on a block sheet).
        value: The number in the cell.
        unit: The unit the workbook states for it (``None`` for none).
        owner: The stream (Stream Summary) or block (``<BLOCK>_result``) it belongs to.
        kind: The row (``Temperature``; for component rows their section, ``Mole Fractions``).
        component: The component id of a component row, else ``None``.
    """

    sheet: str
    row: str
    column: str | None
    value: float
    unit: str | None
    owner: str
    kind: str
    component: str | None = None

    @property
    def address(self) -> tuple[str, str, str | None]:
        """``(sheet, row, column)`` as a target addresses it."""
        return (self.sheet, self.row, self.column)

    def facets(self) -> tuple[tuple[str, str], ...]:
        """The facets a text must name to tie a number to this quantity."""
        facets = [("owner", self.owner), ("kind", self.kind)]
        if self.component:
            facets.append(("component", self.component))
        return tuple(facets)


def _base_kind(row: str) -> str:
    """``B_TEMP_2`` -> ``B_TEMP`` (indexed rows of multi-stage blocks share their kind's words)."""
    if row in KIND_ALIASES:
        return row
    stripped = re.sub(r"_\d+$", "", row)
    return stripped if stripped in KIND_ALIASES else row


def workbook_quantities(document: Any) -> list[Quantity]:
    """Every numeric cell of a ``/get-aspen-result`` document as a :class:`Quantity` (with its unit).

    Units as :func:`aspen_rl.contract.workbook.lookup` reads them: the ``Units`` column, else the
    ``<ROW>_UNITS`` row of the same column.
    """
    found: list[Quantity] = []
    if not is_workbook(document):
        return found
    for sheet in document["data"]:
        table = sheet_table(document, sheet)
        if table is None or not table[0]:
            continue
        columns, records = table
        addresses = row_addresses(sheet, columns[0], records)
        units_rows = {a: r for a, r in zip(addresses, records, strict=True) if a and a.endswith(UNITS_SUFFIX)}
        for address, record in zip(addresses, records, strict=True):
            if not address or address.endswith(UNITS_SUFFIX):
                continue
            for column in columns[1:]:
                value = as_number(record.get(column))
                if column == UNITS_COLUMN or value is None:
                    continue
                if UNITS_COLUMN in columns:
                    unit = record.get(UNITS_COLUMN)
                else:
                    unit = (units_rows.get(address + UNITS_SUFFIX) or {}).get(column)
                unit = str(unit).strip() or None if unit is not None else None
                if sheet == STREAM_SUMMARY:
                    kind, _, component = address.partition("/")
                    found.append(
                        Quantity(sheet, address, column, value, unit, column, kind, component or None)
                    )
                elif column == VALUE_COLUMN:
                    block = sheet.removesuffix(BLOCK_SHEET_SUFFIX)
                    found.append(Quantity(sheet, address, None, value, unit, block, _base_kind(address)))
    return found


# -- naming: which facets a layer of text names --------------------------------------------------


def _normalise(text: str) -> str:
    return re.sub(r"[\s_]+", " ", text.lower()).strip()


def _alias_pattern(alias: str) -> str:
    escaped = re.escape(_normalise(alias)).replace(r"\ ", r"[\s_\-]*")
    if re.match(r"[a-z0-9]", _normalise(alias)[:1]):
        escaped = r"(?<![a-z0-9])" + escaped
    if re.search(r"[a-z]$", _normalise(alias)):
        escaped = escaped + r"(?:s|es)?(?![a-z0-9])"  # plurals: "temperatures", "duties" aside
    elif re.search(r"[0-9]$", _normalise(alias)):
        escaped = escaped + r"(?![a-z0-9])"
    return escaped


@dataclass
class Namer:
    """Finds the facets a text names (see the module docstring), with each rollout's own names."""

    aliases: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _patterns: list[tuple[re.Pattern[str], frozenset[tuple[str, str]]]] = field(default_factory=list)
    _seen: dict[str, set[tuple[str, str]]] = field(default_factory=dict)

    def add(self, alias: str, facet: tuple[str, str]) -> None:
        """Let ``alias`` name ``facet`` (``("owner", "PROD")``, ``("kind", "Temperature")``...)."""
        key = _normalise(alias)
        if key:
            self.aliases.setdefault(key, set()).add(facet)
            self._patterns, self._seen = [], {}

    def names(self, text: str) -> set[tuple[str, str]]:
        """Facets named in ``text``; an alias inside a longer alias found in the text does not count."""
        if text not in self._seen:
            self._seen[text] = self._names(text)
        return self._seen[text]

    def _names(self, text: str) -> set[tuple[str, str]]:
        if not self._patterns:
            self._patterns = [
                (re.compile(_alias_pattern(a)), frozenset(f))
                for a, f in sorted(self.aliases.items(), key=lambda kv: -len(kv[0]))
            ]
        text = _normalise(text)
        spans: list[tuple[int, int, frozenset[tuple[str, str]]]] = []
        for pattern, facets in self._patterns:
            for match in pattern.finditer(text):
                start, end = match.span()
                if any(s <= start and end <= e and (s, e) != (start, end) for s, e, _ in spans):
                    continue
                spans.append((start, end, facets))
        return {facet for _, _, facets in spans for facet in facets}


def build_namer(
    found: Iterable[Quantity],
    targets: Iterable[tuple[str, tuple[str, str, str | None]]] = (),
    component_names: dict[str, set[str]] | None = None,
) -> Namer:
    """The namer for one rollout: owners, kinds, components of its quantities; targets' own names.

    Args:
        found: The quantities of the rollout's results.
        targets: ``(name, address)`` of each target; a target's name names all its facets.
        component_names: Extra names of each component id (``name`` and ``database_name`` of the
            configs the rollout ran); Chinese names of any of them (:data:`COMPONENT_NAMES_ZH`) too.
    """
    namer = Namer()
    for q in found:
        namer.add(q.owner, ("owner", q.owner))
        namer.add(q.kind, ("kind", q.kind))
        for alias in KIND_ALIASES.get(q.kind, ()):
            namer.add(alias, ("kind", q.kind))
        if q.component:
            for name in {q.component, *(component_names or {}).get(q.component, ())}:
                namer.add(name, ("component", q.component))
                for alias in COMPONENT_NAMES_ZH.get(name.upper(), ()):
                    namer.add(alias, ("component", q.component))
    for name, address in targets:
        namer.add(name, ("name", "\x00".join(str(a) for a in address)))
    return namer


def _name_key(address: tuple[str, str, str | None]) -> tuple[str, str]:
    return ("name", "\x00".join(str(a) for a in address))


def facet_weights(named: list[set[tuple[str, str]]]) -> dict[tuple[str, str], float]:
    """The weight of the nearest layer naming each facet (layers: segment, label, heading)."""
    weights: dict[tuple[str, str], float] = {}
    for layer, facets in zip(LAYER_WEIGHTS, named, strict=False):
        for facet in facets:
            weights[facet] = max(weights.get(facet, 0.0), layer)
    return weights


def score(quantity: Quantity, weights: dict[tuple[str, str], float]) -> float:
    """How well the text (:func:`facet_weights`) names ``quantity``; a target's own name names all facets."""
    by_name = weights.get(_name_key(quantity.address), 0.0)
    return sum(max(weights.get(f, 0.0), by_name) or -UNNAMED_FACET_PENALTY for f in quantity.facets())


def converts(statement: Statement, unit: str | None) -> float | None:
    """The statement's number in ``unit``, or ``None`` when its stated unit does not convert to it."""
    return quantities.convert(statement.value, statement.unit, unit)


def attribute(statements: list[Statement], found: list[Quantity], namer: Namer) -> list[list[Quantity]]:
    """For each statement, the quantities it is attributed to (empty when the text ties it to none)."""
    out: list[list[Quantity]] = []
    by_unit: dict[str | None, list[Quantity]] = {}
    for statement in statements:
        if statement.unit not in by_unit:
            by_unit[statement.unit] = [q for q in found if quantities.converts(statement.unit, q.unit)]
        compatible = by_unit[statement.unit]
        weights = facet_weights([namer.names(layer) for layer in statement.layers])
        if statement.is_small_int or not compatible or not weights:  # nothing named: a score <= 0
            out.append([])
            continue
        scored = [(score(q, weights), q) for q in compatible]
        best = max(s for s, _ in scored)
        out.append([q for s, q in scored if s == best] if best > 0 else [])
    return out


def matches(statement: Statement, actual: float, unit: str | None, tolerance: float) -> bool:
    """Whether the statement, read in its stated unit, equals ``actual`` (in ``unit``) within tolerance.

    The tolerance grows by the written precision (:attr:`Statement.precision`, converted). Signs may
    differ except for temperatures (a duty written as removed heat, ``110 kW`` for ``-110 kW``).
    """
    value = converts(statement, unit)
    if value is None:
        return False
    allowed = max(
        tolerance, quantities.convert_step(statement.value, statement.precision, statement.unit, unit)
    )
    if abs(value - actual) <= allowed:
        return True
    return not quantities.is_temperature(unit) and abs(-value - actual) <= allowed


def closeness(statement: Statement, actual: float, unit: str | None, tolerance: float) -> float:
    """How near the statement is to ``actual``: 1 when it :func:`matches`, falling linearly to 0 at twice
    the allowed deviation (a value 3 % off a 2 % tolerance earns half; a wrong unit earns nothing)."""
    value = converts(statement, unit)
    if value is None:
        return 0.0
    allowed = max(
        tolerance, quantities.convert_step(statement.value, statement.precision, statement.unit, unit)
    )
    deviations = [abs(value - actual)]
    if not quantities.is_temperature(unit):
        deviations.append(abs(-value - actual))
    deviation = min(deviations)
    if deviation <= allowed:
        return 1.0
    return max(0.0, 2.0 - deviation / allowed) if allowed > 0 else 0.0
