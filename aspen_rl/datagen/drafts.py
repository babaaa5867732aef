"""What a task family draws (a :class:`Draft`), the family registry, and the phrasing helpers they share.

A family is one registry entry: a name, a difficulty, a one-line description and a ``draw(rng, language)``
function returning a reference config in the real dialect, the targets to read off its results workbook
and the requirement text. Values of targets come from the simulator later (``build.py``), never from here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aspen_rl.datagen.components import COMPONENTS, method_for, names
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block, flowsheet

LANGUAGES: tuple[str, ...] = ("en", "zh")


@dataclass(frozen=True)
class TargetSpec:
    """A target before the simulator fills in its value."""

    name: str
    sheet: str
    row: str
    column: str | None
    unit: str
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    en: str = ""
    zh: str = ""


@dataclass
class Draft:
    """One draw of a family: config, targets, requirement and the numbers that make it distinct."""

    config: dict[str, Any]
    targets: list[TargetSpec]
    requirement: str
    variant: str
    params: dict[str, Any] = field(default_factory=dict)
    bounds: list[tuple[str, str, str | None, float, float]] = field(default_factory=list)
    """(sheet, row, column, low, high): a draw whose result falls outside is redrawn (degenerate case)."""

    @property
    def block_types(self) -> list[str]:
        """Sorted block types of the config."""
        return sorted({b["type"] for b in self.config["blocks"]})

    @property
    def cids(self) -> list[str]:
        """Sorted component ids of the config."""
        return sorted(c["cid"] for c in self.config["components"])


DrawFn = Callable[[random.Random, str], Draft]


@dataclass(frozen=True)
class Family:
    """A documented family of tasks."""

    name: str
    difficulty: Difficulty
    description: str
    draw: DrawFn


FAMILIES: dict[str, Family] = {}
"""Every registered family by name, in registration order."""


def family(name: str, difficulty: Difficulty, description: str) -> Callable[[DrawFn], DrawFn]:
    """Register ``draw`` as the family ``name``."""

    def register(draw: DrawFn) -> DrawFn:
        if name in FAMILIES:
            raise ValueError(f"family {name!r} registered twice")
        FAMILIES[name] = Family(name, difficulty, description, draw)
        return draw

    return register


# ---- phrasing -----------------------------------------------------------------------------------------


def tr(language: str, en: str, zh: str) -> str:
    """The text in ``language``."""
    return zh if language == "zh" else en


def sig(value: float, digits: int = 6) -> float:
    """``value`` rounded to ``digits`` significant digits, as a plain float."""
    return float(f"{value:.{digits}g}")


def num(value: float) -> str:
    """A number as an engineer writes it (no trailing zeros)."""
    return f"{sig(value, 6):g}"


@dataclass(frozen=True)
class UnitStyle:
    """The units a requirement is written in; the config states the same or converts to a unit Aspen takes."""

    temperature: str = "C"  # C, K or F
    pressure: str = "bar"  # bar, atm, kPa, MPa or psia
    flow: str = "kmol/h"  # kmol/h or mol/s

    @staticmethod
    def draw(rng: random.Random) -> UnitStyle:
        """Mostly the usual units (°C, bar, kmol/h), sometimes K / °F, atm / kPa / MPa / psia, mol/s."""
        temperature = rng.choices(["C", "K", "F"], weights=[6, 2, 2])[0]
        pressure = rng.choices(["bar", "atm", "kPa", "MPa", "psia"], weights=[5, 2, 2, 1, 1])[0]
        flow = rng.choices(["kmol/h", "mol/s"], weights=[4, 1])[0]
        return UnitStyle(temperature, pressure, flow)

    def temperature_of(self, t_c: float) -> tuple[str, dict[str, Any]]:
        """(text, {TEMP_VALUE, TEMP_UNITS}) for ``t_c`` °C written in this style."""
        if self.temperature == "K":
            shown = round(t_c + 273.15, 2)
            return f"{num(shown)} K", {"TEMP_VALUE": shown, "TEMP_UNITS": "K"}
        if self.temperature == "F":
            shown = round(t_c * 9 / 5 + 32, 1)
            return f"{num(shown)} °F", {"TEMP_VALUE": sig((shown - 32) * 5 / 9), "TEMP_UNITS": "C"}
        return f"{num(t_c)} °C", {"TEMP_VALUE": t_c, "TEMP_UNITS": "C"}

    def pressure_of(self, p_bar: float, prefix: str = "PRES") -> tuple[str, dict[str, Any]]:
        """(text, {<prefix>_VALUE, <prefix>_UNITS}) for ``p_bar`` bar written in this style."""
        unit = self.pressure
        if unit == "atm":
            shown = sig(p_bar / 1.01325, 3)
            return f"{num(shown)} atm", {f"{prefix}_VALUE": shown, f"{prefix}_UNITS": "atm"}
        if unit == "kPa":
            shown = sig(p_bar * 100, 4)
            return f"{num(shown)} kPa", {f"{prefix}_VALUE": shown, f"{prefix}_UNITS": "kPa"}
        if unit == "MPa":
            shown = sig(p_bar / 10, 4)
            return f"{num(shown)} MPa", {f"{prefix}_VALUE": shown, f"{prefix}_UNITS": "MPa"}
        if unit == "psia":
            shown = sig(p_bar * 14.5037738, 3)
            return f"{num(shown)} psia", {
                f"{prefix}_VALUE": sig(shown * 0.0689475729),
                f"{prefix}_UNITS": "bar",
            }
        return f"{num(p_bar)} bar", {f"{prefix}_VALUE": p_bar, f"{prefix}_UNITS": "bar"}

    def flow_of(self, kmol_h: float) -> tuple[str, float]:
        """(text, kmol/hr for the config) for a molar flow written in this style."""
        if self.flow == "mol/s":
            shown = sig(kmol_h / 3.6, 3)
            return f"{num(shown)} mol/s", sig(shown * 3.6)
        return f"{num(kmol_h)} kmol/h", kmol_h


def components_section(cids: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """``components[]`` for ``cids``."""
    return [COMPONENTS[c].config_entry() for c in cids]


def property_section(cids: list[str] | tuple[str, ...], method: str | None = None) -> list[dict[str, Any]]:
    """``property_methods[]``: the one basis method, ``method`` or else the one the mixture calls for."""
    return [{"method_name": method or method_for(cids), "is_basis_method": True}]


def base_config(
    description: str, cids: tuple[str, ...] | list[str], method: str | None = None
) -> dict[str, Any]:
    """Metadata, components and property method (``method`` or the mixture's) of a config."""
    return {
        "metadata": {"description": description},
        "components": components_section(cids),
        "property_methods": property_section(cids, method),
    }


def method_text(cids: list[str] | tuple[str, ...], language: str, method: str | None = None) -> str:
    """'Use the NRTL property method.' in ``language`` (``method``, or the one the mixture calls for)."""
    method = method or method_for(cids)
    return tr(language, f"Use the {method} property method.", f"物性方法用 {method}。")


def feed_stream(
    cids: list[str] | tuple[str, ...],
    fractions: list[float],
    kmol_h: float,
    t_c: float,
    p_bar: float,
    style: UnitStyle,
    language: str,
    *,
    vfrac: float | None = None,
) -> tuple[str, dict[str, Any]]:
    """(description, stream_data entry) of a feed given by total molar flow and mole fractions.

    With ``vfrac`` the feed is specified by pressure and vapor fraction (PV) instead of TP.
    """
    flow_text, flow_value = style.flow_of(kmol_h)
    p_text, pressure = style.pressure_of(p_bar)
    flow: dict[str, Any] = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": flow_value,
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FRAC",
    }
    for cid, x in zip(cids, fractions, strict=True):
        flow[cid] = {"FLOW_VALUE": x, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"}
    people = names(cids, language)
    if len(cids) == 1:
        what = tr(language, f"pure {people[0]}", f"纯{people[0]}")
    else:
        parts = [f"{num(100 * x)} mol% {n}" for n, x in zip(people, fractions, strict=True)]
        what = tr(language, " and ".join(parts), "、".join(parts))
    if vfrac is not None:
        data = {"MIXED_SPEC": "PV", "pressure": pressure, "vfrac": {"VFRAC_VALUE": vfrac}, "flow": flow}
        state = tr(
            language,
            f"{'saturated liquid' if vfrac == 0 else 'saturated vapour'} at {p_text} (vapor fraction "
            f"{num(vfrac)})",
            f"{'饱和液体' if vfrac == 0 else '饱和蒸汽'}，{p_text}（汽相分率 {num(vfrac)}）",
        )
    else:
        t_text, temperature = style.temperature_of(t_c)
        data = {"MIXED_SPEC": "TP", "temperature": temperature, "pressure": pressure, "flow": flow}
        state = tr(language, f"at {t_text} and {p_text}", f"{t_text}、{p_text}")
    text = tr(language, f"{flow_text} of {what}, {state}", f"{flow_text}，{what}，{state}")
    return text, data


def component_flow_feed(
    flows: dict[str, float], t_c: float, p_bar: float, style: UnitStyle, language: str
) -> tuple[str, dict[str, Any]]:
    """(description, TP stream_data entry) of a feed given by component molar flows (kmol/h), each written
    in ``style``'s flow unit."""
    flow: dict[str, Any] = {"FLOWBASE": "MOLE", "TOTFLOW_UNITS": "kmol/hr", "BASIS": "MOLE-FLOW"}
    parts = []
    for cid, kmol_h in flows.items():
        text, value = style.flow_of(kmol_h)
        flow[cid] = {"FLOW_VALUE": value, "FLOW_UNITS": "kmol/hr", "FLOW_BASIS": "MOLE-FLOW"}
        parts.append(tr(language, f"{text} {COMPONENTS[cid].en}", f"{COMPONENTS[cid].zh} {text}"))
    flow["TOTFLOW_VALUE"] = sig(sum(flow[cid]["FLOW_VALUE"] for cid in flows))
    t_text, temperature = style.temperature_of(t_c)
    p_text, pressure = style.pressure_of(p_bar)
    listed = f"{', '.join(parts[:-1])} and {parts[-1]}" if len(parts) > 1 else parts[0]
    text = tr(language, f"{listed}, at {t_text} and {p_text}", f"{'、'.join(parts)}，{t_text}、{p_text}")
    data = {"MIXED_SPEC": "TP", "temperature": temperature, "pressure": pressure, "flow": flow}
    return text, data


def mole_fractions(rng: random.Random, n: int) -> list[float]:
    """``n`` mole fractions on a 0.05 grid, each at least 0.1, summing to 1."""
    if n == 1:
        return [1.0]
    while True:
        xs = [round(rng.uniform(0.1, 0.9) / 0.05) * 0.05 for _ in range(n - 1)]
        last = round(1.0 - sum(xs), 2)
        if last >= 0.1 and all(x >= 0.1 for x in xs):
            return [round(x, 2) for x in xs] + [last]


def compose(language: str, *sentences: str) -> str:
    """Sentences joined as the language writes them (a blank in English, nothing in Chinese)."""
    return ("" if language == "zh" else " ").join(sentences)


def report_text(targets: list[TargetSpec], language: str) -> str:
    """'Report the A, the B and the C.' in ``language``."""
    parts = [getattr(t, language) or t.name for t in targets]
    if language == "zh":
        return "请报告：" + "、".join(parts) + "。"
    head = "; ".join(parts[:-1])
    return f"Report: {head}; and {parts[-1]}." if head else f"Report: {parts[-1]}."


def draft(
    description: str,
    cids: list[str] | tuple[str, ...],
    blocks: list[Block],
    feeds: dict[str, Any],
    text: str,
    targets: list[TargetSpec],
    language: str,
    variant: str,
    params: dict[str, Any],
    *,
    method: str | None = None,
    method_line: str | None = None,
    sections: dict[str, Any] | None = None,
) -> Draft:
    """The draft of a flowsheet of ``blocks`` fed by ``feeds``, whose requirement is ``text``, the property
    method to use and what to report.

    Args:
        method: the property method (default: the one the mixture calls for).
        method_line: the requirement's sentence naming it (default: "Use the <method> property method.").
        sections: further top-level config sections after the flowsheet (reactions, convergence).
    """
    config = base_config(description, cids, method) | flowsheet(blocks, feeds) | (sections or {})
    method_line = method_line or method_text(cids, language, method)
    requirement = compose(language, text, method_line, report_text(targets, language))
    return Draft(config, targets, requirement, variant, params)


def block_ref(block_type: str, name: str, language: str, role_en: str, role_zh: str) -> str:
    """'heater H1 (Aspen Heater block)' / '加热器 H1（Heater 模块）'."""
    return tr(
        language, f"{role_en} {name} (Aspen {block_type} block)", f"{role_zh} {name}（{block_type} 模块）"
    )


def duty_target(block: str, tol: float = 0.02) -> TargetSpec:
    """The heat duty (QCALC) of ``block``."""
    return TargetSpec(
        f"{block} duty",
        f"{block}_result",
        "QCALC",
        None,
        "kW",
        rel_tol=tol,
        abs_tol=0.5,
        en=f"{block} heat duty (kW)",
        zh=f"{block} 的热负荷 (kW)",
    )


def _stream_target(
    stream: str, row: str, label: str, label_zh: str, unit: str, shown: str = "", **tolerance: float
) -> TargetSpec:
    """A value of ``stream`` on the Stream Summary (row ``row``), named "<stream> <label>" and described with
    its unit as ``shown`` to the reader."""
    suffix = f" ({shown})" if shown else ""
    return TargetSpec(
        f"{stream} {label}",
        "Stream Summary",
        row,
        stream,
        unit,
        **tolerance,
        en=f"{stream} {label}{suffix}",
        zh=f"{stream} 的{label_zh}{suffix}",
    )


def temperature_target(stream: str, tol: float = 0.5) -> TargetSpec:
    """The temperature of ``stream`` (°C on the Stream Summary)."""
    return _stream_target(stream, "Temperature", "temperature", "温度", "C", "°C", abs_tol=tol)


def vapor_fraction_target(stream: str) -> TargetSpec:
    """The molar vapor fraction of ``stream``."""
    return _stream_target(stream, "Molar Vapor Fraction", "vapor fraction", "汽相分率", "", abs_tol=0.01)


def enthalpy_target(stream: str) -> TargetSpec:
    """The molar enthalpy of ``stream`` (kJ/kmol; formation basis, so never near zero)."""
    return _stream_target(
        stream, "Molar Enthalpy", "molar enthalpy", "摩尔焓", "kJ/kmol", "kJ/kmol", abs_tol=50.0, rel_tol=0.02
    )


def flow_target(stream: str, tol: float = 0.03) -> TargetSpec:
    """The total molar flow of ``stream``."""
    return _stream_target(
        stream, "Mole Flows", "molar flow", "摩尔流量", "kmol/hr", "kmol/h", rel_tol=tol, abs_tol=0.05
    )


def mole_fraction_target(stream: str, cid: str) -> TargetSpec:
    """The mole fraction of ``cid`` in ``stream``."""
    c = COMPONENTS[cid]
    return TargetSpec(
        f"{stream} {c.en} mole fraction",
        "Stream Summary",
        f"Mole Fractions/{cid}",
        stream,
        "",
        abs_tol=0.01,
        en=f"{c.en} mole fraction in {stream}",
        zh=f"{stream} 中{c.zh}的摩尔分率",
    )


def component_flow_target(stream: str, cid: str, *, rel: float = 0.03, abs_tol: float = 0.05) -> TargetSpec:
    """The molar flow of ``cid`` in ``stream`` (kmol/hr)."""
    c = COMPONENTS[cid]
    return TargetSpec(
        f"{stream} {c.en} flow",
        "Stream Summary",
        f"Mole Flows/{cid}",
        stream,
        "kmol/hr",
        abs_tol=abs_tol,
        rel_tol=rel,
        en=f"{c.en} molar flow in {stream} (kmol/h)",
        zh=f"{stream} 中{c.zh}的摩尔流量 (kmol/h)",
    )


def block_target(
    block: str, row: str, unit: str, en: str, zh: str, *, rel: float = 0.03, abs_tol: float | None = None
) -> TargetSpec:
    """A value on the ``<block>_result`` sheet."""
    if abs_tol is None:
        abs_tol = 0.05 if unit else 0.01
    return TargetSpec(f"{block} {row}", f"{block}_result", row, None, unit, abs_tol, rel, en=en, zh=zh)
