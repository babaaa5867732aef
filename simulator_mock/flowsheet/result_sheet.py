"""A block's ``<BLOCK>_result`` sheet: the view of its results (entry, inlet and outlet streams) that a block
class's ``result_rows`` reads, the Parameter / Value rows it writes, and the units those rows use."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: Unit strings written in ``<NAME>_UNITS`` rows and the Stream Summary's ``Units`` column (Aspen's spelling).
TEMPERATURE, PRESSURE, POWER, MOLAR_FLOW, MASS_FLOW = "C", "bar", "kW", "kmol/hr", "kg/hr"


VOLUME_FLOW, LENGTH = "cum/hr", "meter"


MOLAR_ENTHALPY, MASS_ENTHALPY = "kJ/kmol", "kJ/kg"


GRAVITY = 9.80665  # m/s2, for heads


LIQ_RATIO_NOTE = (
    "first-liquid / total-liquid ratio: written by Flash3 and Decanter only; a split outlet of this block "
    "reports both liquids in its stream entry and on the Stream Summary"
)


@dataclass
class PortView:
    stream: str
    port: str
    doc: dict[str, Any]


@dataclass
class BlockView:
    """A block's results entry with its inlet and outlet stream entries (in connection order)."""

    name: str
    doc: dict[str, Any]
    inlets: list[PortView] = field(default_factory=list)
    outlets: list[PortView] = field(default_factory=list)
    cids: list[str] = field(default_factory=list)
    MWs: dict[str, float] = field(default_factory=dict)

    def outlet(self, *ports: str) -> PortView | None:
        """The first outlet on one of ``ports`` (any outlet when none given)."""
        for item in self.outlets:
            if not ports or item.port in ports:
                return item
        return None

    def overall(self) -> dict[str, float] | None:
        """Mole fractions of all outlet material together (Aspen's F_<CID> rows)."""
        return _overall((p.doc for p in self.outlets), self.cids)

    def min_inlet_pressure(self) -> float | None:
        flowing = [p.doc for p in self.inlets if p.doc.get("molar_flow_kmol_hr", 0.0) > 0.0]
        pressures = [d["pressure_bar"] for d in flowing or [p.doc for p in self.inlets]]
        return min(pressures) if pressures else None

    def pressure_drop(self, outlet_pressure: float | None) -> float | None:
        inlet = self.min_inlet_pressure()
        return None if inlet is None or outlet_pressure is None else inlet - outlet_pressure


#: A row of a ``<BLOCK>_result`` sheet read straight from the block's results entry: (Aspen's output name,
#: the entry's key, units or None).
ResultRow = tuple[str, str, str | None]


class Rows:
    """Parameter / Value rows of a block sheet; a value that is None is left out with its units row."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, Any]] = []

    def add(self, name: str, value: Any, units: str | None = None) -> None:
        if value is None:
            return
        self.rows.append((name, value))
        if units is not None:
            self.rows.append((f"{name}_UNITS", units))

    def add_entries(self, doc: dict[str, Any], table: Iterable[ResultRow]) -> None:
        """One row per ``table`` entry, its value read from the results entry ``doc`` (absent: left out)."""
        for name, key, units in table:
            self.add(name, doc.get(key), units)


def phase_compositions(docs: Iterable[dict[str, Any]]) -> tuple[dict | None, dict | None]:
    """(liquid, vapour) mole fractions of the outlet material, None for a phase that is absent."""
    liquid = vapor = None
    for doc in docs:
        if doc.get("molar_flow_kmol_hr", 0.0) <= 0.0:
            continue
        phase = doc.get("phase")
        if phase == "mixed":
            liquid = doc.get("liquid_mole_fractions") or liquid
            vapor = doc.get("vapor_mole_fractions") or vapor
        elif phase == "liquid":
            liquid = doc.get("mole_fractions")
        elif phase == "vapor":
            vapor = doc.get("mole_fractions")
    return liquid, vapor


def _overall(docs: Iterable[dict[str, Any]], cids: list[str]) -> dict[str, float] | None:
    flows = dict.fromkeys(cids, 0.0)
    for doc in docs:
        for cid, f in doc.get("component_flows_kmol_hr", {}).items():
            flows[cid] = flows.get(cid, 0.0) + f
    total = sum(flows.values())
    return {c: f / total for c, f in flows.items()} if total > 0 else None


def outlet_state_rows(rows: Rows, block: BlockView) -> None:
    """B_TEMP, B_PRES and B_VFRAC: the outlet's temperature, pressure and (first outlet's) vapour fraction."""
    out = block.outlet()
    rows.add("B_TEMP", block.doc.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", block.doc.get("outlet_pressure_bar"), PRESSURE)
    rows.add("B_VFRAC", out.doc.get("vapor_fraction") if out else None)


def flash_drum_rows(rows: Rows, block: BlockView) -> None:
    """A flash drum's (Flash2, Flash3) outlet state and duty rows: B_TEMP, B_PRES, B_VFRAC, MVFRAC (the vapour
    outlet's share of the outlet mass), QCALC and QNET, in that order."""
    d = block.doc
    vapor_out = block.outlet("V(OUT)")
    total_mass = sum(p.doc.get("mass_flow_kg_hr", 0.0) for p in block.outlets)
    mvfrac = vapor_out.doc.get("mass_flow_kg_hr", 0.0) / total_mass if vapor_out and total_mass > 0 else None
    rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("B_VFRAC", d.get("vapor_fraction"))
    rows.add("MVFRAC", mvfrac)
    rows.add("QCALC", d.get("duty_kW"), POWER)
    rows.add("QNET", d.get("duty_kW"), POWER)


def equilibrium_rows(
    rows: Rows, block: BlockView, names: tuple[str, str, str, str], liquid: Any, vapor: Any
) -> None:
    """F / X / Y / K rows (Aspen's per-component phase-equilibrium outputs), in that order."""
    F, X, Y, K = names
    overall = _overall((p.doc for p in block.outlets), block.cids)
    for prefix, values in ((F, overall), (X, liquid), (Y, vapor)):
        for cid in block.cids:
            rows.add(f"{prefix}_{cid}", values.get(cid) if values else None)
    if liquid and vapor:
        for cid in block.cids:
            x, y = liquid.get(cid, 0.0), vapor.get(cid, 0.0)
            rows.add(f"{K}_{cid}", y / x if x > 0 else None)
