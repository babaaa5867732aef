"""Material streams: component flows plus the equilibrium state, built from config specs or flashes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator_mock.errors import SpecificationError, UnknownUnitError
from simulator_mock.property_package import PhaseState, PropertyPackage
from simulator_mock.units import flow_quantity, from_si, to_si, units_of

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


def feed_stream(package: PropertyPackage, cids: list[str], name: str, data: dict[str, Any]) -> Stream:
    """Build a feed stream from its ``stream_data`` entry (already schema-valid).

    Raises:
        SpecificationError: missing spec fields, zero flow, fractions that do not sum to one.
    """
    where = f"stream_data.{name}"
    spec = data.get("MIXED_SPEC", "TP")
    flows = _feed_flows(package, cids, name, data.get("flow") or {})
    fields: dict[str, float] = {}
    if "T" in spec:
        temperature = _need(data, "temperature", where, spec)
        fields["T"] = to_si(
            temperature["TEMP_VALUE"], temperature.get("TEMP_UNITS"), "temperature", f"{where}.temperature"
        )
    if "P" in spec:
        pressure = _need(data, "pressure", where, spec)
        fields["P"] = to_si(
            pressure["PRES_VALUE"], pressure.get("PRES_UNITS"), "pressure", f"{where}.pressure"
        )
    if "V" in spec:
        fields["VF"] = float(_need(data, "vapor_fraction", where, spec)["VFRAC_VALUE"])
    return flash_stream(package, name, flows, f"stream {name}", **fields)


def _need(data: dict[str, Any], key: str, where: str, spec: str) -> dict[str, Any]:
    if key not in data:
        raise SpecificationError(f"{where}: MIXED_SPEC {spec} needs '{key}'")
    return data[key]


def _feed_flows(package: PropertyPackage, cids: list[str], name: str, flow: dict[str, Any]) -> np.ndarray:
    """Component molar flows [mol/s] of a feed from its ``flow`` spec."""
    where = f"stream_data.{name}.flow"
    basis = flow.get("BASIS", "MOLE-FRAC")
    values: dict[str, float] = flow.get("FLOW_VALUE") or {}
    unknown = [cid for cid in values if cid not in cids]
    if unknown:
        raise SpecificationError(
            f"{where}.FLOW_VALUE: unknown component id(s) {', '.join(unknown)}; components are "
            f"{', '.join(cids)}"
        )
    amounts = np.array([float(values.get(cid, 0.0)) for cid in cids])
    if (amounts < 0).any():
        raise SpecificationError(f"{where}.FLOW_VALUE: negative component amounts are not allowed")
    if amounts.sum() <= 0:
        raise SpecificationError(f"{where}.FLOW_VALUE: all component amounts are zero")
    mass_basis = basis.startswith("MASS")
    if basis.endswith("FRAC"):
        moles = amounts / package.MWs if mass_basis else amounts
        zs = moles / moles.sum()
        if "TOTFLOW_VALUE" not in flow:
            raise SpecificationError(f"{where}: BASIS {basis} needs TOTFLOW_VALUE")
        total, quantity = _total_flow(flow, where)
        flows = (
            total * zs if quantity == "molar_flow" else total * 1000.0 / float(np.dot(zs, package.MWs)) * zs
        )
    else:
        quantity = "mass_flow" if mass_basis else "molar_flow"
        units = flow.get("TOTFLOW_UNITS", "kg/hr" if mass_basis else "kmol/hr")
        if flow_quantity(units) != quantity:
            raise SpecificationError(
                f"{where}.TOTFLOW_UNITS: {units!r} is not a {quantity.replace('_', ' ')} unit, as BASIS "
                f"{basis} needs"
            )
        per_unit = to_si(1.0, units, quantity, f"{where}.TOTFLOW_UNITS")
        flows = amounts * per_unit * (1000.0 / package.MWs if mass_basis else 1.0)
        if "TOTFLOW_VALUE" in flow:
            stated, stated_quantity = _total_flow(flow, where)
            actual = (
                float(flows.sum())
                if stated_quantity == "molar_flow"
                else float(np.dot(flows, package.MWs)) / 1e3
            )
            if abs(stated - actual) > 1e-6 * max(abs(stated), abs(actual)):
                raise SpecificationError(
                    f"{where}: TOTFLOW_VALUE does not equal the sum of the component flows in FLOW_VALUE"
                )
    if flows.sum() <= ZERO_FLOW:
        raise SpecificationError(f"{where}: total flow of feed stream {name} is zero")
    return flows


def _total_flow(flow: dict[str, Any], where: str) -> tuple[float, str]:
    """(TOTFLOW in SI, quantity): mol/s for a molar unit, kg/s for a mass unit."""
    base = flow.get("FLOWBASE")
    units = flow.get("TOTFLOW_UNITS") or ("kg/hr" if base == "MASS" else "kmol/hr")
    quantity = flow_quantity(units)
    if quantity is None:
        raise UnknownUnitError(
            f"{where}.TOTFLOW_UNITS", units, units_of("molar_flow") + units_of("mass_flow")
        )
    if base is not None and (base == "MASS") != (quantity == "mass_flow"):
        raise SpecificationError(f"{where}: FLOWBASE {base} does not match TOTFLOW_UNITS {units!r}")
    return to_si(float(flow["TOTFLOW_VALUE"]), units, quantity, f"{where}.TOTFLOW_UNITS"), quantity


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
    return result


def _phase(stream: Stream) -> str:
    if stream.state is None:
        return "empty"
    if stream.VF <= 0.0:
        return "liquid"
    if stream.VF >= 1.0:
        return "vapor"
    return "mixed"
