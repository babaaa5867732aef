"""Results workbook (.xlsx) of a run, laid out as the real Aspen service's results export.

The real service writes, after a converged run, one workbook with a ``Stream Summary`` sheet (Aspen's
stream table written by ``pandas.DataFrame.to_excel(index=True)``) and one ``<BLOCK>_result`` sheet per
block (columns ``Parameter`` / ``Value``; rows are Aspen output variable names such as ``QCALC``, each
dimensional one followed by ``<NAME>_UNITS``). Its ``GET /get-aspen-result`` reads that workbook back
with pandas. This module builds the same layout from the mock's results document
(:func:`simulator_mock.results.build_results`), in fixed units (C, bar, kW, kmol/hr, kg/hr).

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from simulator_mock.results import write_file

#: Unit strings written in ``<NAME>_UNITS`` rows and the Stream Summary's ``Units`` column (Aspen's spelling).
TEMPERATURE, PRESSURE, POWER, MOLAR_FLOW, MASS_FLOW = "C", "bar", "kW", "kmol/hr", "kg/hr"
VOLUME_FLOW, LENGTH = "cum/hr", "meter"
MOLAR_ENTHALPY, MASS_ENTHALPY = "kJ/kmol", "kJ/kg"
GRAVITY = 9.80665  # m/s2, for heads

STREAM_SHEET = "Stream Summary"
BLOCK_SHEET_SUFFIX = "_result"

_LIQ_RATIO = "first-liquid / total-liquid ratio: the mock does not report liquid-liquid splits"

#: Outputs the real export reads for a block type that the mock leaves out, with the reason.
NOT_WRITTEN: dict[str, dict[str, str]] = {
    "Mixer": {"LIQ_RATIO": _LIQ_RATIO},
    "FSplit": {},
    "Heater": {
        "LIQ_RATIO": _LIQ_RATIO,
        "COR_PDRP_FAC": "pressure-drop correlation factor: no pressure-drop correlation is modelled",
        "Y_<CID>, B_K_<CID>": "written only when the outlet has a vapour phase (both only when two-phase)",
        "X_<CID>": "written only when the outlet has a liquid phase",
    },
    "Pump": {
        "NPSH-AVAIL, NPSH-AVAIL_UNITS": "net positive suction head available: not computed",
        "NPSH_REQ, NPSH_REQ_UNITS": "net positive suction head required: needs pump curves",
    },
    "Valve": {
        "CHOK_STAT": "choked-flow status: valve rating (Cv, geometry) is not modelled",
        "CHOKE_POUT, CHOKE_POUT_UNITS": "choked outlet pressure: valve rating is not modelled",
        "FLOW_COEF": "flow coefficient: valve rating is not modelled",
        "VALVE_POSN": "valve opening: valve rating is not modelled",
        "CAV_INDX": "cavitation index: valve rating is not modelled",
        "PDROP_FAC2": "pressure-drop ratio factor: valve rating is not modelled",
        "PRREC_FAC2": "pressure-recovery factor: valve rating is not modelled",
        "PIPE_FIT_FAC2": "piping-geometry factor: valve rating is not modelled",
    },
    "Compr": {
        "COMPTYPE": "Aspen's model-type code: its encoding is not known to the mock",
        "KODE": "Aspen's calculation-method code: its encoding is not known to the mock",
        "DIS": "displacement: positive-displacement compressors are not modelled",
        "EV": "volumetric efficiency: positive-displacement compressors are not modelled",
        "IN_CPR": "inlet heat-capacity ratio: not reported by the mock's engine",
        "Z_IN, Z_IN_UNITS": "inlet compressibility factor: not reported by the mock's engine",
        "Z_OUT, Z_OUT_UNITS": "outlet compressibility factor: not reported by the mock's engine",
        "EXP_V_ISEN, EXP_V_ACT, EXP_T_ISEN, EXP_T_ACT": "volume / temperature exponents: not computed",
    },
    "Flash2": {
        "LIQ_RATIO": _LIQ_RATIO,
        "X_<CID>, Y_<CID>, K_<CID>": "X only with liquid, Y only with vapour, K only when both exist",
    },
    "Sep": {
        "COMPFRAC_MIXED_<CID>": "a folder node in Aspen's tree, read as a value: empty in the real export",
        "COMPFRAC_MIXED_<CID>_OVERHEAD, COMPFRAC_MIXED_<CID>_BOT": (
            "read from outlet streams literally named OVERHEAD and BOT, names the stream-name pattern "
            "forbids: empty in the real export"
        ),
    },
    "HeatX": {
        "CALC_MODEL": "Aspen's calculation-model code: its encoding is not known to the mock",
        "HIN_L1FRAC, HOUT_L1FRAC, CIN_L1FRAC, COUT_L1FRAC": (
            "first-liquid fractions: the mock does not report liquid-liquid splits"
        ),
    },
    "RStoic": {
        "LIQ_RATIO": _LIQ_RATIO,
        "X_<CID>, Y_<CID>, K_<CID>": "X only with liquid, Y only with vapour, K only when both exist",
        "REFID_<N>": "Aspen's reference-component code of a reaction: its meaning is not documented",
        "REAC_STOI_<N>": "Aspen's stoichiometry node of a reaction: its encoding is not known",
    },
    "DSTWU": {},
    "RadFrac": {
        "SCTEMP, SCTEMP_UNITS, SCDUTY, SCDUTY_UNITS": "subcooled reflux: no condenser subcooling",
        "MOLE_DW, MOLE_DW_UNITS, RW, RW_UNITS": "free-water distillate and reflux: no free-water calculation",
        "MOLE_DFR_UNITS": "distillate-to-feed ratio is dimensionless; Aspen's unit string for it is unknown",
        "MASS_CONC_<CID>_<STREAM>": "mass concentrations: Aspen's node layout for them is not known",
    },
}


# ---- the layout --------------------------------------------------------------------------------


@dataclass
class _Port:
    stream: str
    port: str
    doc: dict[str, Any]


@dataclass
class _Block:
    """A block's results entry with its inlet and outlet stream entries (in connection order)."""

    name: str
    doc: dict[str, Any]
    inlets: list[_Port] = field(default_factory=list)
    outlets: list[_Port] = field(default_factory=list)
    cids: list[str] = field(default_factory=list)
    MWs: dict[str, float] = field(default_factory=dict)

    def outlet(self, *ports: str) -> _Port | None:
        """The first outlet on one of ``ports`` (any outlet when none given)."""
        for item in self.outlets:
            if not ports or item.port in ports:
                return item
        return None

    def min_inlet_pressure(self) -> float | None:
        flowing = [p.doc for p in self.inlets if p.doc.get("molar_flow_kmol_hr", 0.0) > 0.0]
        pressures = [d["pressure_bar"] for d in flowing or [p.doc for p in self.inlets]]
        return min(pressures) if pressures else None

    def pressure_drop(self, outlet_pressure: float | None) -> float | None:
        inlet = self.min_inlet_pressure()
        return None if inlet is None or outlet_pressure is None else inlet - outlet_pressure


class _Rows:
    """Parameter / Value rows of a block sheet; a value that is None is left out with its units row."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, Any]] = []

    def add(self, name: str, value: Any, units: str | None = None) -> None:
        if value is None:
            return
        self.rows.append((name, value))
        if units is not None:
            self.rows.append((f"{name}_UNITS", units))


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


def _phase_compositions(docs: Iterable[dict[str, Any]]) -> tuple[dict | None, dict | None]:
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


def _equilibrium(
    rows: _Rows, block: _Block, names: tuple[str, str, str, str], liquid: Any, vapor: Any
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


def _mixer(b: _Block, rows: _Rows) -> None:
    out = b.outlet()
    d = b.doc
    rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("B_VFRAC", out.doc.get("vapor_fraction") if out else None)
    rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)


def _fsplit(b: _Block, rows: _Rows) -> None:
    fractions = b.doc.get("split_fractions", {})
    for order, item in enumerate(b.outlets, start=1):
        rows.add(f"STREAMFRAC_{item.stream}", fractions.get(item.stream))
        rows.add(f"STREAM_ORDER_{item.stream}", order)


def _heater(b: _Block, rows: _Rows) -> None:
    d = b.doc
    out = b.outlet()
    rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("B_VFRAC", out.doc.get("vapor_fraction") if out else None)
    rows.add("QCALC", d.get("duty_kW"), POWER)
    rows.add("QNET", d.get("duty_kW"), POWER)
    rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)
    liquid, vapor = _phase_compositions(p.doc for p in b.outlets)
    _equilibrium(rows, b, ("F", "X", "Y", "B_K"), liquid, vapor)


def _pump(b: _Block, rows: _Rows) -> None:
    d = b.doc
    rows.add("FLUID_POWER", d.get("fluid_power_kW"), POWER)
    rows.add("BRAKE_POWER", d.get("brake_power_kW"), POWER)
    rows.add("ELEC_POWER", d.get("electricity_kW"), POWER)
    rows.add("VFLOW", d.get("volumetric_flow_m3_hr"), VOLUME_FLOW)
    rows.add("PDRP", d.get("pressure_change_bar"), PRESSURE)
    rows.add("HEAD_CAL", d.get("head_m"), LENGTH)
    rows.add("CEFF", d.get("efficiency"))
    rows.add("WNET", d.get("electricity_kW"), POWER)
    rows.add("POC", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("TOC", d.get("outlet_temperature_C"), TEMPERATURE)


def _valve(b: _Block, rows: _Rows) -> None:
    d = b.doc
    rows.add("P_OUT_OUT", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("VALVE_DP", d.get("pressure_drop_bar"), PRESSURE)
    rows.add("TCALC", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("VCALC", d.get("outlet_vapor_fraction"))


def _compr(b: _Block, rows: _Rows) -> None:
    d = b.doc
    indicated, brake = d.get("power_kW"), d.get("brake_power_kW")
    isentropic = d.get("isentropic_power_kW")
    mech = None
    if indicated and brake:
        mech = indicated / brake if abs(brake) >= abs(indicated) else brake / indicated
    inlet = b.inlets[0].doc if b.inlets else {}
    out = b.outlet()
    mass_kg_s = inlet.get("mass_flow_kg_hr", 0.0) / 3600.0
    head = isentropic * 1000.0 / (mass_kg_s * GRAVITY) if isentropic is not None and mass_kg_s > 0 else None
    rows.add("IND_POWER", indicated, POWER)
    rows.add("BRAKE_POWER", brake, POWER)
    rows.add("WNET", brake, POWER)
    rows.add("POWER_LOSS", brake - indicated if brake is not None and indicated is not None else None, POWER)
    rows.add("EPC", d.get("efficiency"))
    rows.add("EFF_MECH", mech)
    rows.add("POC", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("TOC", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("TOS", d.get("isentropic_outlet_temperature_C"), TEMPERATURE)
    rows.add("B_VFRAC", d.get("outlet_vapor_fraction"))
    rows.add("HEAD_CAL", head, LENGTH)
    rows.add("POWER_ISEN", isentropic, POWER)
    rows.add("FEED_VFLOW", inlet.get("volumetric_flow_m3_hr"), VOLUME_FLOW)
    rows.add("VFLOW", out.doc.get("volumetric_flow_m3_hr") if out else None, VOLUME_FLOW)


def _flash2(b: _Block, rows: _Rows) -> None:
    d = b.doc
    vapor_out, liquid_out = b.outlet("V(OUT)"), b.outlet("L(OUT)")
    total_mass = sum(p.doc.get("mass_flow_kg_hr", 0.0) for p in b.outlets)
    mvfrac = vapor_out.doc.get("mass_flow_kg_hr", 0.0) / total_mass if vapor_out and total_mass > 0 else None
    rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("B_VFRAC", d.get("vapor_fraction"))
    rows.add("MVFRAC", mvfrac)
    rows.add("QCALC", d.get("duty_kW"), POWER)
    rows.add("QNET", d.get("duty_kW"), POWER)
    rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)

    def flowing(item: _Port | None) -> dict | None:
        if item is None or item.doc.get("molar_flow_kmol_hr", 0.0) <= 0.0:
            return None
        return item.doc.get("mole_fractions")

    _equilibrium(rows, b, ("F", "X", "Y", "K"), flowing(liquid_out), flowing(vapor_out))


def _sep(b: _Block, rows: _Rows) -> None:
    rows.add("QCALC", b.doc.get("duty_kW"), POWER)


def _heatx(b: _Block, rows: _Rows) -> None:
    def side(*ports: str) -> _Port | None:
        for item in (*b.inlets, *b.outlets):
            if item.port in ports:
                return item
        return None

    for prefix, inlet, outlet in (
        ("HOT", side("H(IN)", "HI(IN)"), side("H(OUT)", "HO(OUT)")),
        ("COLD", side("C(IN)", "CI(IN)"), side("C(OUT)", "CO(OUT)")),
    ):
        i = inlet.doc if inlet else {}
        o = outlet.doc if outlet else {}
        rows.add(f"{prefix}IN", inlet.stream if inlet else None)
        rows.add(f"{prefix}OUT", outlet.stream if outlet else None)
        rows.add(f"{prefix}INT", i.get("temperature_C"), TEMPERATURE)
        rows.add(f"{prefix}_TEMP", o.get("temperature_C"), TEMPERATURE)
        rows.add(f"{prefix}INP", i.get("pressure_bar"), PRESSURE)
        rows.add(f"{prefix}_PRES", o.get("pressure_bar"), PRESSURE)
        rows.add(f"{prefix}INVF", i.get("vapor_fraction"))
        rows.add("HOT_VFRAC" if prefix == "HOT" else "COLD_FRAC", o.get("vapor_fraction"))
    rows.add("HX_DUTY", b.doc.get("duty_kW"), POWER)


def _rstoic(b: _Block, rows: _Rows) -> None:
    d = b.doc
    out = b.outlet()
    rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
    rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
    rows.add("QCALC", d.get("duty_kW"), POWER)
    rows.add("QNET", d.get("duty_kW"), POWER)
    rows.add("B_VFRAC", d.get("outlet_vapor_fraction", out.doc.get("vapor_fraction") if out else None))
    liquid, vapor = _phase_compositions(p.doc for p in b.outlets)
    _equilibrium(rows, b, ("F", "X", "Y", "K"), liquid, vapor)
    reactions = list(d.get("reactions") or [])
    reactions.sort(key=lambda r: int(r["id"]) if str(r.get("id", "")).isdigit() else 0)
    for number, reaction in enumerate(reactions, start=1):
        rid = reaction.get("id", number)
        label = str(rid)
        rows.add(f"RXNID_{label}", int(rid) if label.isdigit() else rid)
        rows.add(f"EXTENT_OUT_{label}", reaction.get("extent_kmol_hr"), MOLAR_FLOW)


def _dstwu(b: _Block, rows: _Rows) -> None:
    d = b.doc
    feed = d.get("feed_stage")
    rows.add("MIN_REFLUX", d.get("minimum_reflux_ratio"))
    rows.add("ACT_REFLUX", d.get("reflux_ratio"))
    rows.add("MIN_STAGES", d.get("minimum_stages"))
    rows.add("ACT_STAGES", d.get("number_of_stages"))
    rows.add("FEED_LOCATN", feed)
    rows.add("RECT_STAGES", feed - 1.0 if feed is not None else None)
    rows.add("COND_DUTY", d.get("condenser_duty_kW"), POWER)
    rows.add("REB_DUTY", d.get("reboiler_duty_kW"), POWER)
    rows.add("DISTIL_TEMP", d.get("distillate_temperature_C"), TEMPERATURE)
    rows.add("BOTTOM_TEMP", d.get("bottoms_temperature_C"), TEMPERATURE)
    rows.add("DIST_VS_FEED", d.get("distillate_to_feed_ratio"))


def _radfrac(b: _Block, rows: _Rows) -> None:
    d = b.doc
    profile = d.get("stage_profile") or []
    top = profile[0]["temperature_C"] if profile else d.get("distillate_temperature_C")
    bottom = profile[-1]["temperature_C"] if profile else d.get("bottoms_temperature_C")
    D, B = d.get("distillate_rate_kmol_hr"), d.get("bottoms_rate_kmol_hr")
    RR, BR = d.get("reflux_ratio"), d.get("boilup_ratio")
    F = sum(p.doc.get("molar_flow_kmol_hr", 0.0) for p in b.inlets)
    rows.add("TOP_TEMP", top, TEMPERATURE)
    rows.add("COND_DUTY", d.get("condenser_duty_kW"), POWER)
    rows.add("MOLE_D", D, MOLAR_FLOW)
    rows.add("MOLE_L1", RR * D if RR is not None and D is not None else None, MOLAR_FLOW)
    rows.add("MOLE_RR", RR)
    rows.add("MOLE_DFR", D / F if D is not None and F > 0 else None)
    rows.add("BOTTOM_TEMP", bottom, TEMPERATURE)
    rows.add("REB_DUTY", d.get("reboiler_duty_kW"), POWER)
    rows.add("MOLE_B", B, MOLAR_FLOW)
    rows.add("MOLE_VN", BR * B if BR is not None and B is not None else None, MOLAR_FLOW)
    rows.add("MOLE_BR", BR)
    rows.add("MOLE_BFR", B / F if B is not None and F > 0 else None)


#: Block type -> writer of its ``<BLOCK>_result`` rows (the block types the mock simulates).
BLOCK_WRITERS: dict[str, Callable[[_Block, _Rows], None]] = {
    "Mixer": _mixer,
    "FSplit": _fsplit,
    "Heater": _heater,
    "Pump": _pump,
    "Valve": _valve,
    "Compr": _compr,
    "Flash2": _flash2,
    "Sep": _sep,
    "HeatX": _heatx,
    "RStoic": _rstoic,
    "DSTWU": _dstwu,
    "RadFrac": _radfrac,
}

#: Stream Summary rows: (label, unit, results-document getter); component rows are added per section.
_PHASES = {"liquid": "Liquid", "vapor": "Vapor", "mixed": "Mixed"}


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


def _blocks(results: dict[str, Any], config: dict[str, Any]) -> list[tuple[str, str, _Block]]:
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
        block = _Block(name, docs[name], cids=cids, MWs=MWs)
        found = connections.get(name)
        ports: dict[str, Any] = found if isinstance(found, dict) else {}
        for stream, port in ports.items():
            if stream not in streams or not isinstance(port, str):
                continue
            target = block.inlets if port.upper().endswith("(IN)") else block.outlets
            target.append(_Port(stream, port.upper(), streams[stream]))
        if not ports:  # no connection data: the stream entries know their ends
            block.inlets = [_Port(s, "", d) for s, d in streams.items() if d.get("destination") == name]
            block.outlets = [_Port(s, "", d) for s, d in streams.items() if d.get("source") == name]
        out.append((name, docs[name].get("type", ""), block))
    return out


def sheets(results: dict[str, Any], config: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """The workbook's sheets, in order: sheet name -> rows (first row is the header).

    Args:
        results: the run's results document (:func:`simulator_mock.results.build_results`).
        config: the run's config (block order and the ports of each stream).
    """
    out = {STREAM_SHEET: _stream_summary(results)}
    for name, block_type, block in _blocks(results, config):
        writer = BLOCK_WRITERS.get(block_type)
        if writer is None:
            continue
        rows = _Rows()
        writer(block, rows)
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
