"""Material streams: component flows plus the equilibrium state, built from config specs or flashes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator_mock.errors import OutOfBoundsError, SpecificationError, UnsupportedOptionError
from simulator_mock.properties.phase_state import PhaseState
from simulator_mock.properties.property_package import PropertyPackage
from simulator_mock.properties.units import flow_quantity, from_si, read_pair, to_si, units_of

#: Total flows below this (mol/s) make an empty stream (no flash).
ZERO_FLOW = 1e-14


@dataclass(slots=True)
class Stream:
    """A material stream.

    Attributes:
        name: stream id from the config.
        flows: component molar flows [mol/s], package component order.
        T: temperature [K]. P: pressure [Pa].
        state: flash result, None for an empty stream.
    """

    name: str
    flows: np.ndarray
    T: float
    P: float
    state: PhaseState | None

    @property
    def total(self) -> float:
        """Total molar flow [mol/s]."""
        return float(self.flows.sum())

    @property
    def empty(self) -> bool:
        """True when the stream carries no material."""
        return self.state is None

    @property
    def phase(self) -> PhaseState:
        """The flash state of a stream that carries material (an empty stream has none: ValueError)."""
        if self.state is None:
            raise ValueError(f"stream {self.name} is empty: it has no phase state")
        return self.state

    @property
    def enthalpy_flow(self) -> float:
        """Enthalpy flow on formation basis [W]."""
        return 0.0 if self.state is None else self.total * self.state.H

    @property
    def VF(self) -> float:
        """Vapour mole fraction (0 for an empty stream)."""
        return 0.0 if self.state is None else self.state.VF

    def mass_flow(self, MWs: np.ndarray) -> float:
        """Total mass flow [kg/s]."""
        return float(np.dot(self.flows, MWs)) / 1000.0

    def renamed(self, name: str) -> Stream:
        """The same material under another stream name."""
        return Stream(name, self.flows, self.T, self.P, self.state)


def phase_stream(name: str, phase: PhaseState | None, flow: float, bulk: PhaseState, n: int) -> Stream:
    """An outlet carrying ``flow`` [mol/s] of one equilibrium phase of ``bulk`` (n components); empty at the
    bulk's T and P when the phase is absent or the flow is 0."""
    if phase is None or flow <= 0.0:
        return Stream(name, np.zeros(n), bulk.T, bulk.P, None)
    return Stream(name, flow * phase.zs, phase.T, phase.P, phase)


def flash_stream(
    package: PropertyPackage,
    name: str,
    flows: np.ndarray,
    where: str,
    *,
    T_empty: float | None = None,
    P_empty: float | None = None,
    **spec: float,
) -> Stream:
    """A stream with component flows ``flows`` at the equilibrium state given by two specs.

    Args:
        package: property package of the flowsheet.
        name: stream name.
        flows: component flows [mol/s]; negative noise below 1e-12 of the total is clipped.
        where: context for error messages (e.g. "block F1 vapour outlet").
        T_empty, P_empty: T and P given to an empty stream when ``spec`` lacks them.
        spec: two of T, P, VF, H, S (SI, H on formation basis) passed to the flash.
    """
    flows = np.where(flows < 0.0, 0.0, flows) if (flows < 0.0).any() else flows
    total = float(flows.sum())
    if total <= ZERO_FLOW:
        T = spec.get("T", T_empty if T_empty is not None else 298.15)
        P = spec.get("P", P_empty if P_empty is not None else 101325.0)
        return Stream(name, np.zeros_like(flows), T, P, None)
    state = package.flash(flows / total, where, **spec)
    return Stream(name, flows, state.T, state.P, state)


def feed_stream(
    package: PropertyPackage,
    cids: list[str],
    name: str,
    data: dict[str, Any],
    warnings: list[str] | None = None,
) -> Stream:
    """Build a feed stream from its ``stream_data`` entry (already schema-valid).

    Each field means what the Aspen input it is written to means: MIXED_SPEC picks two of temperature,
    pressure and vfrac; ``flow`` holds FLOWBASE / TOTFLOW (total flow) / BASIS (composition basis) and one
    entry per component id with FLOW_VALUE / FLOW_UNITS / FLOW_BASIS.

    Raises:
        SpecificationError: a missing state value, zero flow, units that do not fit their basis.
        UnsupportedOptionError: a volume flow basis or a concentration basis.
    """
    where = f"stream_data.{name}"
    spec = data["MIXED_SPEC"]
    flows = _feed_flows(package, cids, name, data["flow"], warnings if warnings is not None else [])
    fields: dict[str, float] = {}
    if "T" in spec:
        fields["T"] = _state_value(data, "temperature", "TEMP", "temperature", where)
    if "P" in spec:
        fields["P"] = _state_value(data, "pressure", "PRES", "pressure", where)
    if "V" in spec:
        vfrac = (data.get("vfrac") or {}).get("VFRAC_VALUE")
        if vfrac is None:
            raise SpecificationError(f"{where}.vfrac.VFRAC_VALUE: MIXED_SPEC {spec} needs a vapour fraction")
        fields["VF"] = float(vfrac)
    return flash_stream(package, name, flows, f"stream {name}", **fields)


def _state_value(data: dict[str, Any], key: str, prefix: str, quantity: str, where: str) -> float:
    value = read_pair(data.get(key) or {}, f"{prefix}_VALUE", f"{prefix}_UNITS", quantity, f"{where}.{key}")
    if value is None:
        raise SpecificationError(
            f"{where}.{key}.{prefix}_VALUE: MIXED_SPEC {data['MIXED_SPEC']} needs a {key} value"
        )
    return value


#: Largest feed accepted: 1e9 kmol/h, some 10^4 times a world-scale crude unit's feed. Beyond it a flow is a
#: unit or exponent mistake, and numbers such as 1e300 kmol/h overflow the results workbook.
MAX_FEED_KMOL_HR = 1e9

#: Keys of a ``flow`` object that are not component entries.
_FLOW_KEYS = ("FLOWBASE", "TOTFLOW_VALUE", "TOTFLOW_UNITS", "BASIS")


def _feed_flows(
    package: PropertyPackage, cids: list[str], name: str, flow: dict[str, Any], warnings: list[str]
) -> np.ndarray:
    """Component molar flows [mol/s] of a feed from its ``flow`` object."""
    where = f"stream_data.{name}.flow"
    base, basis = flow["FLOWBASE"], flow["BASIS"]
    if base not in ("MOLE", "MASS"):
        raise UnsupportedOptionError(
            f"{where}.FLOWBASE: {base} is not simulated by the mock (a volume basis needs liquid volumes "
            "at standard conditions); use MOLE or MASS"
        )
    if basis not in ("MOLE-FRAC", "MASS-FRAC", "MOLE-FLOW", "MASS-FLOW"):
        raise UnsupportedOptionError(
            f"{where}.BASIS: {basis} is not simulated by the mock; use MOLE-FRAC, MASS-FRAC, MOLE-FLOW or "
            "MASS-FLOW"
        )
    unknown = [key for key in flow if key not in _FLOW_KEYS and key not in cids]
    if unknown:
        raise SpecificationError(
            f"{where}.{unknown[0]}: no component with cid {unknown[0]!r}; components are {', '.join(cids)}",
            error_type="UnknownComponent",
        )
    mass_basis = basis.startswith("MASS")
    amounts = np.zeros(len(cids))
    per_unit = np.ones(len(cids))
    for i, cid in enumerate(cids):
        entry = flow.get(cid)
        if entry is None:
            continue
        at = f"{where}.{cid}"
        entry_basis = entry["FLOW_BASIS"]
        if entry_basis not in (basis, basis.split("-")[0]):
            raise SpecificationError(
                f"{at}.FLOW_BASIS: {entry_basis!r} does not match the stream's BASIS {basis} (give {basis})"
            )
        amounts[i] = float(entry["FLOW_VALUE"])
        if basis.endswith("FLOW"):
            quantity = "mass_flow" if mass_basis else "molar_flow"
            units = entry["FLOW_UNITS"]
            if flow_quantity(units) != quantity:
                raise SpecificationError(
                    f"{at}.FLOW_UNITS: {units!r} is not a {quantity.replace('_', ' ')} unit, as BASIS "
                    f"{basis} needs (use {', '.join(units_of(quantity))})"
                )
            per_unit[i] = to_si(1.0, units, quantity, f"{at}.FLOW_UNITS")
    if (amounts < 0).any():
        raise SpecificationError(f"{where}: negative component amounts are not allowed")
    if amounts.sum() <= 0:
        raise SpecificationError(
            f"{where}: every component amount is zero (give FLOW_VALUE per component id)"
        )
    total_quantity = "mass_flow" if base == "MASS" else "molar_flow"
    total_units = flow["TOTFLOW_UNITS"]
    if flow_quantity(total_units) != total_quantity:
        raise SpecificationError(
            f"{where}.TOTFLOW_UNITS: {total_units!r} is not a {total_quantity.replace('_', ' ')} unit, as "
            f"FLOWBASE {base} needs (use {', '.join(units_of(total_quantity))})"
        )
    total = to_si(float(flow["TOTFLOW_VALUE"]), total_units, total_quantity, f"{where}.TOTFLOW_UNITS")
    if basis.endswith("FRAC"):
        if abs(amounts.sum() - 1.0) > 1e-6:
            warnings.append(f"{where}: fractions sum to {amounts.sum():.6g}; normalised to 1 (as Aspen does)")
        moles = amounts / package.MWs if mass_basis else amounts
        zs = moles / moles.sum()
        if total <= 0:
            raise SpecificationError(f"{where}.TOTFLOW_VALUE: total flow of feed stream {name} must be > 0")
        flows = total * zs if base == "MOLE" else total * 1000.0 / float(np.dot(zs, package.MWs)) * zs
    else:
        flows = amounts * per_unit * (1000.0 / package.MWs if mass_basis else 1.0)
        actual = float(flows.sum()) if base == "MOLE" else float(np.dot(flows, package.MWs)) / 1e3
        if abs(total - actual) > 1e-6 * max(abs(total), abs(actual)):
            warnings.append(
                f"{where}.TOTFLOW_VALUE: ignored with BASIS {basis} (the component flows fix the total, "
                "as in Aspen); it differs from their sum"
            )
    if flows.sum() <= ZERO_FLOW:
        raise SpecificationError(f"{where}: total flow of feed stream {name} is zero")
    if not np.all(np.isfinite(flows)) or flows.sum() * 3.6 > MAX_FEED_KMOL_HR:
        raise OutOfBoundsError(
            f"{where}: feed stream {name} flows {flows.sum() * 3.6:.3g} kmol/hr, beyond any plant's "
            f"(limit {MAX_FEED_KMOL_HR:.0e} kmol/hr): check FLOW_VALUE / TOTFLOW_VALUE and their units"
        )
    return flows


def stream_result(stream: Stream, package: PropertyPackage, cids: list[str]) -> dict[str, Any]:
    """The results-document entry of a stream, in result units (C, bar, kmol/hr, kg/hr, kW)."""
    flows_kmol_hr = stream.flows * 3.6
    total = float(flows_kmol_hr.sum())
    mass = stream.flows * package.MWs * 3.6  # kg/hr per component
    mass_total = float(mass.sum())
    zs = flows_kmol_hr / total if total > 0 else np.zeros_like(flows_kmol_hr)
    ws = mass / mass_total if mass_total > 0 else np.zeros_like(mass)
    state = stream.state
    result: dict[str, Any] = {
        "temperature_C": from_si(stream.T, "temperature"),
        "pressure_bar": from_si(stream.P, "pressure"),
        "vapor_fraction": stream.VF,
        "molar_flow_kmol_hr": total,
        "mass_flow_kg_hr": mass_total,
        "mole_fractions": dict(zip(cids, zs.tolist(), strict=True)),
        "mass_fractions": dict(zip(cids, ws.tolist(), strict=True)),
        "component_flows_kmol_hr": dict(zip(cids, flows_kmol_hr.tolist(), strict=True)),
        "enthalpy_flow_kW": stream.enthalpy_flow / 1000.0,
        "molar_enthalpy_kJ_mol": state.H / 1000.0 if state else 0.0,
        "volumetric_flow_m3_hr": stream.total * state.V * 3600.0 if state else 0.0,
        "phase": _phase(stream),
    }
    if state is not None and 0.0 < state.VF < 1.0:
        result["liquid_mole_fractions"] = dict(zip(cids, state.xs.tolist(), strict=True))
        result["vapor_mole_fractions"] = dict(zip(cids, state.ys.tolist(), strict=True))
    if state is not None and state.x1s is not None and state.x2s is not None:
        # two liquid phases: the 2nd is the denser; liquid_mole_fractions (above) is both together
        result["liquid1_fraction"] = state.LF1
        result["liquid2_fraction"] = state.LF2
        result["liquid1_mole_fractions"] = dict(zip(cids, state.x1s.tolist(), strict=True))
        result["liquid2_mole_fractions"] = dict(zip(cids, state.x2s.tolist(), strict=True))
    return result


def _phase(stream: Stream) -> str:
    if stream.state is None:
        return "empty"
    if stream.VF <= 0.0:
        return "liquid"
    if stream.VF >= 1.0:
        return "vapor"
    return "mixed"
