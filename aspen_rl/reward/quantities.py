"""Units of measure: read the unit strings answers and Aspen write, and convert values between them (pint).

Only units a reader of the text would recognise are read: a whitelist of engineering unit words (``C``,
``K``, ``F``, ``°C``, ``bar``, ``atm``, ``kPa``, ``MPa``, ``psi``, ``kW``, ``MW``, ``Gcal/hr``,
``cal/sec``, ``kmol/hr``, ``kmol/s``, ``kg/hr``, ``t/h``, ``%`` ...), joined by ``/``, ``·`` or ``*``,
plus a few Chinese unit words (``千瓦``, ``摄氏度``, ``兆帕`` ...). Anything else after a number (``12
stages``, ``80 at 1 bar``) is *no unit*: pint alone would read ``at`` as a technical atmosphere and
``in`` as an inch. Conversion is pint's, offsets included (``353.15 K`` is ``80 C``).
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

import pint

# Unit words, as written -> pint expression. Case matters for one-letter and prefixed symbols
# (``C`` is Celsius, ``mW`` would be milliwatt); :data:`_CASELESS` adds spellings any case may take.
_WORDS: dict[str, str] = {
    # temperature
    "C": "degC",
    "°C": "degC",
    "℃": "degC",
    "degC": "degC",
    "Celsius": "degC",
    "F": "degF",
    "°F": "degF",
    "℉": "degF",
    "degF": "degF",
    "Fahrenheit": "degF",
    "K": "kelvin",
    "Kelvin": "kelvin",
    # pressure
    "Pa": "Pa",
    "kPa": "kPa",
    "MPa": "MPa",
    "GPa": "GPa",
    "bar": "bar",
    "mbar": "mbar",
    "bara": "bar",
    "atm": "atm",
    "psi": "psi",
    "psia": "psi",
    "mmHg": "mmHg",
    "torr": "torr",
    "Torr": "torr",
    # energy, power
    "W": "W",
    "kW": "kW",
    "MW": "MW",
    "GW": "GW",
    "J": "J",
    "kJ": "kJ",
    "MJ": "MJ",
    "GJ": "GJ",
    "cal": "cal",
    "kcal": "kcal",
    "Mcal": "Mcal",
    "Gcal": "Gcal",
    "MMkcal": "Gcal",
    "Btu": "Btu",
    "kBtu": "kBtu",
    "MMBtu": "MMBtu",
    "hp": "hp",
    "Watt": "W",  # Aspen's unit-set spellings (SI and MET sets)
    "Watts": "W",
    # amount, mass, volume
    "mol": "mol",
    "kmol": "kmol",
    "mmol": "mmol",
    "kgmol": "kmol",
    "lbmol": "lbmol",
    "g": "g",
    "kg": "kg",
    "t": "tonne",
    "tonne": "tonne",
    "tonnes": "tonne",
    "lb": "lb",
    "L": "L",
    "l": "L",
    "m3": "m**3",
    "m³": "m**3",
    "cum": "m**3",
    "cuft": "ft**3",
    "sqm": "m**2",
    "sqcm": "cm**2",
    "sqft": "ft**2",
    "m": "m",
    "cm": "cm",
    "ft": "ft",
    "meter": "m",
    "meters": "m",
    "metre": "m",
    # time
    "s": "s",
    "sec": "s",
    "min": "min",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "day": "day",
    # dimensionless
    "%": "percent",
    "mol%": "percent",
    "mole%": "percent",
    "wt%": "percent",
    "ppm": "ppm",
    # Chinese
    "千瓦": "kW",
    "兆瓦": "MW",
    "摄氏度": "degC",
    "华氏度": "degF",
    "开尔文": "kelvin",
    "帕": "Pa",
    "千帕": "kPa",
    "兆帕": "MPa",
    "巴": "bar",
    "大气压": "atm",
    "千摩尔": "kmol",
    "摩尔": "mol",
    "千克": "kg",
    "公斤": "kg",
    "吨": "tonne",
    "小时": "hour",
    "秒": "s",
    "分钟": "min",
}
# Whole unit strings whose words alone would mean something else: Aspen's kg/sqcm is kilogram-force.
_EXPRESSIONS: dict[str, str] = {"kg/sqcm": "(kgf)/((cm)**2)", "N/sqm": "(N)/((m)**2)"}
_CASELESS: dict[str, str] = {
    w.lower(): e
    for w, e in _WORDS.items()
    if len(w) > 2 and w.lower() not in ("mbar", "mmol") and not w.startswith(("M", "°"))
} | {
    "kw": "kW",
    "mw": "MW",
    "gw": "GW",
    "kj": "kJ",
    "mj": "MJ",
    "mpa": "MPa",
    "kpa": "kPa",
    "kg": "kg",
    "hr": "hour",
    "sec": "s",
}

UNIT_WORD = (
    r"(?:°\s?[CF]|℃|℉|mol\s?%|mole\s?%|wt\s?%|%"
    r"|[A-Za-z][A-Za-z]*(?:\^?[23²³])?|[\u4e00-\u9fff]{1,3})"
)
"""One unit word (letters, an optional power, or a degree sign and letter, or a percent form)."""
MAX_UNIT_WORDS = 5
"""Most words one unit joins (``kJ/kmol*K`` has three): a longer chain is no unit a reader writes, and
reading one of a 200 kB answer's length would cost seconds per try."""
MAX_UNIT_CHARS = 40
UNIT_EXPRESSION = re.compile(rf"{UNIT_WORD}(?:\s?[/·*]\s?{UNIT_WORD}){{0,{MAX_UNIT_WORDS - 1}}}")
"""Unit words joined by ``/``, ``·`` or ``*`` (``kmol/hr``, ``Gcal/hr``, ``kJ/kmol``), at most
:data:`MAX_UNIT_WORDS` of them."""
_SPLIT = re.compile(r"\s?([/·*])\s?")
_TEMPERATURE = "[temperature]"


@cache
def registry() -> pint.UnitRegistry:
    """The one pint registry (built once; about 0.15 s)."""
    ureg: pint.UnitRegistry = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    ureg.define("lbmol = 453.59237 * mol")
    ureg.define("MMBtu = 1e6 * Btu")
    return ureg


def _word(word: str) -> str | None:
    word = word.replace(" ", "")
    if word in _WORDS:
        return _WORDS[word]
    if word.lower() in _CASELESS:
        return _CASELESS[word.lower()]
    power = re.fullmatch(r"(.+?)\^?([23²³])", word)
    if power and power.group(1) in ("m", "cm", "ft"):
        return f"{power.group(1)}**{ {'2': 2, '3': 3, '²': 2, '³': 3}[power.group(2)] }"
    return None


@cache
def pint_expression(text: str) -> str | None:
    """The pint expression of a unit string, or ``None`` when it is not a unit this module reads.

    ``""`` (no unit) is ``None`` too; use :func:`is_dimensionless` for unit-less quantities.
    """
    text = text.strip()
    if text in _EXPRESSIONS:
        return _EXPRESSIONS[text]
    if not text or len(text) > MAX_UNIT_CHARS or not UNIT_EXPRESSION.fullmatch(text):
        return None
    parts = _SPLIT.split(text)
    out: list[str] = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append("/" if part == "/" else "*")
            continue
        expression = _word(part)
        if expression is None:
            return None
        out.append(f"({expression})")
    joined = "".join(out)
    # A division binds the next word only: "kJ/kmol*K" is read as kJ / (kmol K), as engineers mean it.
    joined = re.sub(r"/(\([^()]*\))((?:\*\([^()]*\))+)", lambda m: f"/({m.group(1)}{m.group(2)})", joined)
    try:
        registry().parse_units(joined)
    except Exception:  # pint raises several types for odd strings; any of them means "not a unit"
        return None
    return joined


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float when it is an int or float (not a bool), else ``None``.

    A policy's JSON may hold an integer past a float's range (``1`` and 400 zeros): that is no number
    here, not an ``OverflowError``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def is_unit(text: str) -> bool:
    """Whether ``text`` is a unit string this module reads (``"kW"``, ``"kmol/s"``, ``"°C"``, ``"%"``)."""
    return pint_expression(text) is not None


def is_dimensionless(text: str | None) -> bool:
    """Whether a target or cell with this unit is a pure number: no unit, ``%``, ``ppm``, a ratio."""
    if text is None or not text.strip():
        return True
    expression = pint_expression(text)
    if expression is None:
        return False
    return bool(registry().parse_units(expression).dimensionless)


def is_temperature(text: str | None) -> bool:
    """Whether a unit string is a temperature (``C``, ``K``, ``F``, ``°C``...)."""
    expression = pint_expression(text or "")
    if expression is None:
        return False
    return registry().parse_units(expression).dimensionality == registry().get_dimensionality(_TEMPERATURE)


@cache
def _affine(from_unit: str | None, to_unit: str | None) -> tuple[float, float] | None:
    """``(a, b)`` with ``to = a * from + b`` (every pint conversion here is affine), or ``None``."""
    ureg = registry()
    source = pint_expression(from_unit) if from_unit else None
    target = pint_expression(to_unit) if to_unit else None
    if (from_unit and source is None) or (to_unit and target is None):
        return None
    if source is None and target is None:
        return (1.0, 0.0)
    try:
        points = []
        for x in (0.0, 1.0):
            if source is None:
                quantity: Any = ureg.Quantity(x, "dimensionless")
            else:
                quantity = ureg.Quantity(x, ureg.parse_units(source))
            points.append(
                float(quantity.to(ureg.parse_units(target) if target else "dimensionless").magnitude)
            )
    except Exception:  # DimensionalityError and friends: the units do not convert
        return None
    return (points[1] - points[0], points[0])


def converts(from_unit: str | None, to_unit: str | None) -> bool:
    """Whether a value stated in ``from_unit`` converts to ``to_unit`` (see :func:`convert`)."""
    return _affine(from_unit or None, to_unit or None) is not None


def convert(value: float, from_unit: str | None, to_unit: str | None) -> float | None:
    """``value`` stated in ``from_unit`` expressed in ``to_unit``, or ``None`` when it does not convert.

    ``None`` or ``""`` means no unit: a bare number converts only to a dimensionless unit (as itself,
    ``0.95`` to ``%`` is 95), a dimensionless stated unit (``95 %``) converts to no unit (0.95).
    """
    affine = _affine(from_unit or None, to_unit or None)
    if affine is None:
        return None
    number = affine[0] * value + affine[1]
    return number if math.isfinite(number) else None


def convert_step(value: float, step: float, from_unit: str | None, to_unit: str | None) -> float:
    """How far ``step`` (a difference in ``from_unit`` at ``value``) reaches in ``to_unit`` (>= 0)."""
    low = convert(value, from_unit, to_unit)
    high = convert(value + step, from_unit, to_unit)
    if low is None or high is None:
        return 0.0
    return abs(high - low)
