"""HeatX: two-stream shortcut heat exchanger with a temperature-cross check along the duty and LMTD / UA."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality, given
from simulator_mock.flowsheet.result_sheet import POWER, PRESSURE, TEMPERATURE, BlockView, PortView, Rows
from simulator_mock.flowsheet.schema_fields import (
    DELT_UNITS,
    PRES_MEANING,
    PRES_UNITS,
    block_entry,
    num,
    section,
    spec_object,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si, read_pair, to_si

#: SPEC values simulated (Aspen's HeatX specification keywords) -> quantity of VALUE_VALUE.
SPECS = {
    "T-HOT": "temperature",
    "T-COLD": "temperature",
    "DELT-HOT": "delta_temperature",
    "DELT-COLD": "delta_temperature",
    "DUTY": "power",
}
#: VALUE_VALUE's only unit. The real service writes VALUE_VALUE into Aspen without a unit (``VALUE`` node,
#: aspenagent.py ``write_blocks_HeatX_data_to_aspen``), so Aspen reads it in its template's unit set, taken
#: here as METCBAR (C, kW). Another VALUE_UNITS is refused: it would be right on the mock and silently wrong
#: on the real service (see docs/dialect_decisions.md).
DEFAULT_UNITS = {"temperature": "C", "delta_temperature": "C", "power": "kW"}
#: Units of U_VALUE -> factor to W/m2/K.
U_UNITS = {"Watt/sqm-K": 1.0, "kcal/hr-sqm-K": 4184.0 / 3600.0, "cal/sec-sqcm-K": 4.184e4}
#: SPEC_DATA fields the shortcut model reads; others are accepted (as by the service) and ignored.
READ_FIELDS = {
    "MODE",
    "PROGRAM_MODE",
    "TYPE",
    "HSHELL_TUBE",
    "SPEC",
    "VALUE_VALUE",
    "VALUE_UNITS",
    "MIN_TAPP_VALUE",
    "MIN_TAPP_UNITS",
    "PRES_HOT_VALUE",
    "PRES_HOT_UNITS",
    "PRES_COLD_VALUE",
    "PRES_COLD_UNITS",
    "U_VALUE",
    "U_UNITS",
    "U_OPTION",
}

#: Duty intervals of the temperature profile checked for a cross (PH flashes per side, minus the ends).
PROFILE_STEPS = 20


class HeatX(Block):
    """Hot stream H(IN) -> H(OUT) gives heat to cold stream C(IN) -> C(OUT) (Aspen ``HeatX``,
    shortcut).

    The minimum approach is checked along the whole exchanger, not only at its ends: both sides are
    flashed at ``PROFILE_STEPS`` equal duty steps (pressure linear in duty) and the smallest hot-minus-cold
    temperature difference is refined around its grid minimum, so a cold side that starts boiling (or a
    hot side that condenses) inside the exchanger shows its internal pinch.
    """

    type_name = "HeatX"
    listing_order = 9
    description = "Two-stream heat exchanger (shortcut). Ports: H(IN), H(OUT), C(IN), C(OUT), one each."
    not_written: ClassVar[dict[str, str]] = {
        "CALC_MODEL": "Aspen's calculation-model code: its encoding is not known to the mock",
        "HIN_L1FRAC, HOUT_L1FRAC, CIN_L1FRAC, COUT_L1FRAC": (
            "first-liquid fractions: not written; a split side reports both liquids in its stream entries"
        ),
    }
    inlet_ports: ClassVar[dict[str, Cardinality]] = {"H(IN)": (1, 1), "C(IN)": (1, 1)}
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"H(OUT)": (1, 1), "C(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        for key, allowed in (
            ("MODE", ("DESIGN",)),
            ("PROGRAM_MODE", ("SHORTCUT",)),
            ("TYPE", ("COUNTERCURRENT", "COCURRENT")),
        ):
            if key in spec and spec[key] not in allowed:
                raise UnsupportedOptionError(
                    f"{where}.{key}: {spec[key]} is not simulated; use {' or '.join(allowed)}"
                )
        ignored = sorted(k for k in spec if k not in READ_FIELDS)
        if ignored:
            self.ctx.warnings.append(
                f"{where}: {', '.join(ignored)} ignored (the shortcut model does not use them)"
            )
        if "SPEC" not in spec or spec.get("VALUE_VALUE") is None:
            raise SpecificationError(f"{where}.SPEC: give SPEC and its VALUE_VALUE ({', '.join(SPECS)})")
        self.option = spec["SPEC"]
        if self.option not in SPECS:
            raise UnsupportedOptionError(
                f"{where}.SPEC: {self.option} is not simulated; use one of {', '.join(SPECS)}"
            )
        quantity = SPECS[self.option]
        unit = DEFAULT_UNITS[quantity]
        given_unit = spec.get("VALUE_UNITS")
        if given_unit not in (None, "", unit):
            raise UnsupportedOptionError(
                f"{where}.VALUE_UNITS: {given_unit} is never sent to Aspen (the Aspen service writes "
                f"VALUE_VALUE without a unit, read as {unit}); give VALUE_VALUE in {unit} and leave "
                "VALUE_UNITS out"
            )
        value = to_si(float(spec["VALUE_VALUE"]), unit, quantity, f"{where}.VALUE_UNITS")
        self.T = self.dT = self.Q = None
        if quantity == "power":
            self.Q = value
        elif quantity == "temperature":
            self.T = value
        else:
            self.dT = value
        self.countercurrent = spec.get("TYPE", "COUNTERCURRENT") == "COUNTERCURRENT"
        self.min_approach = (
            read_pair(spec, "MIN_TAPP_VALUE", "MIN_TAPP_UNITS", "delta_temperature", where) or 0.0
        )
        self.P_hot = (spec.get("PRES_HOT_VALUE"), spec.get("PRES_HOT_UNITS"))
        self.P_cold = (spec.get("PRES_COLD_VALUE"), spec.get("PRES_COLD_UNITS"))
        read_pair(spec, "PRES_HOT_VALUE", "PRES_HOT_UNITS", "pressure", where)
        read_pair(spec, "PRES_COLD_VALUE", "PRES_COLD_UNITS", "pressure", where)
        self.U = None
        if spec.get("U_VALUE") is not None:
            u_units = spec.get("U_UNITS")
            if u_units not in U_UNITS:
                raise SpecificationError(
                    f"{where}.U_UNITS: give the unit of U_VALUE, one of {', '.join(U_UNITS)}",
                    error_type="UnknownUnit",
                )
            self.U = float(spec["U_VALUE"]) * U_UNITS[u_units]

    def _outlet_pressures(self, hot: Stream, cold: Stream) -> tuple[float, float]:
        """Outlet pressures [Pa]: each side's value > 0 is absolute, <= 0 a drop (Aspen; default 0)."""
        out = []
        for (value, unit), inlet, key in (
            (self.P_hot, hot, "PRES_HOT_VALUE"),
            (self.P_cold, cold, "PRES_COLD_VALUE"),
        ):
            out.append(
                inlet.P if value is None else self.pressure(float(value), unit, f"SPEC_DATA.{key}", inlet.P)
            )
        return out[0], out[1]

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        return outlets[self.outlet_name("C(OUT)")]

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        hot = self.mixed(feeds["H(IN)"]).stream()
        cold = self.mixed(feeds["C(IN)"]).stream()
        ho, co = self.outlet_name("H(OUT)"), self.outlet_name("C(OUT)")
        P_hot, P_cold = self._outlet_pressures(hot, cold)
        for side, P in (("hot", P_hot), ("cold", P_cold)):
            if P <= 0:
                raise InfeasibleSpecificationError(
                    f"{self.where}: {side}-side pressure drop exceeds its inlet pressure"
                )
        if hot.empty or cold.empty:
            self.ctx.warnings.append(f"block {self.name}: one side has no flow; no heat is exchanged")
            Q = 0.0
            hot_out = (
                self.flash(ho, hot.flows, "hot outlet", P=P_hot, H=hot.phase.H)
                if not hot.empty
                else Stream(ho, hot.flows, hot.T, P_hot, None)
            )
            cold_out = (
                self.flash(co, cold.flows, "cold outlet", P=P_cold, H=cold.phase.H)
                if not cold.empty
                else Stream(co, cold.flows, cold.T, P_cold, None)
            )
        else:
            if hot.T <= cold.T:
                raise InfeasibleSpecificationError(
                    f"block {self.name}: hot inlet ({from_si(hot.T, 'temperature'):.4g} C) is not hotter "
                    "than the "
                    f"cold inlet ({from_si(cold.T, 'temperature'):.4g} C); check H(IN)/C(IN)"
                )
            if self.option in ("T-HOT", "DELT-HOT"):
                T_hot = given(self.T, "TEMP") if self.option == "T-HOT" else hot.T - given(self.dT, "DELT")
                hot_out = self.flash(ho, hot.flows, "hot outlet", T=T_hot, P=P_hot)
                Q = hot.enthalpy_flow - hot_out.enthalpy_flow
                cold_out = self._side(co, cold, P_cold, Q, "cold outlet")
            elif self.option in ("T-COLD", "DELT-COLD"):
                T_cold = given(self.T, "TEMP") if self.option == "T-COLD" else cold.T + given(self.dT, "DELT")
                cold_out = self.flash(co, cold.flows, "cold outlet", T=T_cold, P=P_cold)
                Q = cold_out.enthalpy_flow - cold.enthalpy_flow
                hot_out = self._side(ho, hot, P_hot, -Q, "hot outlet")
            else:
                Q = float(given(self.Q, "DUTY"))
                hot_out = self._side(ho, hot, P_hot, -Q, "hot outlet")
                cold_out = self._side(co, cold, P_cold, Q, "cold outlet")
            if Q < 0:
                raise InfeasibleSpecificationError(
                    f"{self.where}.SPEC_DATA: the spec makes heat flow from the cold to the hot side "
                    f"({Q / 1000:.6g} kW)"
                )
        self._solved = (hot, cold, hot_out, cold_out, Q)
        self.report = {"duty_kW": Q / 1000.0, **self._thermal(hot, cold, hot_out, cold_out, Q, profile=False)}
        return {ho: hot_out, co: cold_out}

    def finalize(self) -> None:
        """The temperature profile along the exchanger (minimum approach, temperature-cross check) of the
        solved state: it takes about 60 flashes, so recycle iterations leave it to this final pass."""
        solved = getattr(self, "_solved", None)
        if solved is not None:
            hot, cold, hot_out, cold_out, Q = solved
            self.report.update(self._thermal(hot, cold, hot_out, cold_out, Q, profile=True))

    def _side(self, name: str, inlet: Stream, P: float, Q: float, what: str) -> Stream:
        return self.flash(name, inlet.flows, what, P=P, H=(inlet.enthalpy_flow + Q) / inlet.total)

    def _thermal(
        self, hot: Stream, cold: Stream, hot_out: Stream, cold_out: Stream, Q: float, profile: bool = True
    ) -> dict[str, Any]:
        if self.countercurrent:
            dT1, dT2 = hot.T - cold_out.T, hot_out.T - cold.T
        else:
            dT1, dT2 = hot.T - cold.T, hot_out.T - cold_out.T
        result: dict[str, Any] = {
            "hot_outlet_temperature_C": from_si(hot_out.T, "temperature"),
            "cold_outlet_temperature_C": from_si(cold_out.T, "temperature"),
            "hot_outlet_pressure_bar": from_si(hot_out.P, "pressure"),
            "cold_outlet_pressure_bar": from_si(cold_out.P, "pressure"),
            "min_approach_C": min(dT1, dT2),
            "terminal_approach_C": min(dT1, dT2),
            "pinch_duty_fraction": 0.0 if dT1 <= dT2 else 1.0,
        }
        if Q == 0.0:
            return {**result, "lmtd_C": None, "ua_kW_K": 0.0}
        if not profile:
            return result
        approach, where, T_hot, T_cold = self._pinch(hot, cold, hot_out, cold_out, Q)
        result.update({"min_approach_C": approach, "pinch_duty_fraction": where})
        if approach <= self.min_approach:
            terminal = min(dT1, dT2)
            inside = 1e-9 < where < 1.0 - 1e-9 and approach < terminal - 1e-6
            at = (
                f"inside the exchanger, after {where:.1%} of the duty has left the hot side (hot "
                f"{from_si(T_hot, 'temperature'):.4g} C, cold {from_si(T_cold, 'temperature'):.4g} C; the "
                f"terminal approach is {terminal:.4g} K)"
                if inside
                else "at the terminal"
            )
            raise InfeasibleSpecificationError(
                f"block {self.name}: temperature cross — minimum approach {approach:.4g} K {at} "
                f"(hot {from_si(hot.T, 'temperature'):.4g}->{from_si(hot_out.T, 'temperature'):.4g} C, cold "
                f"{from_si(cold.T, 'temperature'):.4g}->{from_si(cold_out.T, 'temperature'):.4g} C) is not "
                f"above the minimum {self.min_approach:g} K"
            )
        lmtd = dT1 if abs(dT1 - dT2) < 1e-9 * dT1 else (dT1 - dT2) / math.log(dT1 / dT2)
        result.update({"lmtd_C": lmtd, "ua_kW_K": Q / lmtd / 1000.0})
        if self.U is not None:
            result["area_m2"] = Q / lmtd / float(self.U)
        return result

    def _pinch(
        self, hot: Stream, cold: Stream, hot_out: Stream, cold_out: Stream, Q: float
    ) -> tuple[float, float, float, float]:
        """(minimum hot - cold temperature difference [K], fraction of Q released by the hot side from its
        inlet where it occurs, hot T [K], cold T [K] there)."""
        cache: dict[tuple[str, float], float] = {}

        def side_T(inlet: Stream, outlet: Stream, sign: float, frac: float, label: str) -> float:
            if frac <= 0.0:
                return inlet.T
            if frac >= 1.0:
                return outlet.T
            key = (label, frac)
            if key not in cache:
                P = inlet.P + frac * (outlet.P - inlet.P)
                H = (inlet.enthalpy_flow + sign * frac * Q) / inlet.total
                cache[key] = self.flash(label, inlet.flows, f"{label} side profile", P=P, H=H).T
            return cache[key]

        def temperatures(f: float) -> tuple[float, float]:
            cold_frac = 1.0 - f if self.countercurrent else f
            return side_T(hot, hot_out, -1.0, f, "hot"), side_T(cold, cold_out, 1.0, cold_frac, "cold")

        def difference(f: float) -> float:
            T_hot, T_cold = temperatures(f)
            return T_hot - T_cold

        grid = np.linspace(0.0, 1.0, PROFILE_STEPS + 1)
        values = [difference(float(f)) for f in grid]
        k = int(np.argmin(values))
        best_f, best = float(grid[k]), values[k]
        if 0 < k < PROFILE_STEPS:
            from scipy.optimize import minimize_scalar

            found = minimize_scalar(
                difference,
                bounds=(float(grid[k - 1]), float(grid[k + 1])),
                method="bounded",
                options={"xatol": 1e-4, "maxiter": 20},
            )
            if found.fun < best:
                best_f, best = float(found.x), float(found.fun)
        return (best, best_f, *temperatures(best_f))

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Shortcut exchanger specification. The mock reads the fields listed; any other Aspen HeatX input "
            "(geometry, fouling, film coefficients) is accepted, as by the Aspen service, and ignored with a warning.",  # noqa: E501
            {
                "MODE": string(
                    "Calculation mode: DESIGN (the only one the mock simulates; RATING and SIMULATION are refused).",  # noqa: E501
                    default="DESIGN",
                ),
                "PROGRAM_MODE": string("SHORTCUT (simulated); DETAILED is refused.", default="SHORTCUT"),
                "TYPE": string(
                    "Flow arrangement: COUNTERCURRENT (default) or COCURRENT.", default="COUNTERCURRENT"
                ),
                "HSHELL_TUBE": string(
                    "Side of the hot stream (SHELL or TUBE); no effect in the shortcut model."
                ),
                "SPEC": string(
                    "Exchanger specification, value in VALUE_VALUE: T-HOT hot outlet temperature, T-COLD cold outlet temperature, DELT-HOT hot-side temperature decrease, DELT-COLD cold-side temperature increase, DUTY heat transferred from hot to cold (> 0). Other Aspen specifications are refused (UnsupportedOption)."  # noqa: E501
                ),
                "VALUE_VALUE": num(
                    "Value of SPEC, written to Aspen without a unit: a temperature or temperature change in C, or a duty in kW."  # noqa: E501
                ),
                "VALUE_UNITS": string(
                    "Not sent to Aspen by the service (VALUE_VALUE is read in C, or kW for DUTY): leave it out; any other unit is refused."  # noqa: E501
                ),
                "MIN_TAPP_VALUE": num(
                    "Minimum temperature approach (hot minus cold, anywhere along the exchanger), in MIN_TAPP_UNITS; when omitted the mock only refuses a temperature cross (approach <= 0)."  # noqa: E501
                ),
                "MIN_TAPP_UNITS": units("MIN_TAPP_VALUE", DELT_UNITS),
                "PRES_HOT_VALUE": num(f"Hot-side outlet pressure in PRES_HOT_UNITS: {PRES_MEANING}."),
                "PRES_HOT_UNITS": units("PRES_HOT_VALUE", PRES_UNITS),
                "PRES_COLD_VALUE": num(f"Cold-side outlet pressure in PRES_COLD_UNITS: {PRES_MEANING}."),
                "PRES_COLD_UNITS": units("PRES_COLD_VALUE", PRES_UNITS),
                "U_VALUE": num("Overall heat-transfer coefficient for the area estimate, in U_UNITS."),
                "U_UNITS": string(
                    "Unit of U_VALUE: Watt/sqm-K, kcal/hr-sqm-K or cal/sec-sqcm-K.",
                    ["Watt/sqm-K", "kcal/hr-sqm-K", "cal/sec-sqcm-K"],
                ),
            },
            additionalProperties=True,
        )
        return section(
            "HeatX", cls.description, block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""

        def side(*ports: str) -> PortView | None:
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
