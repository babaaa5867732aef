"""Pressure changers: liquid Pump (V dP / efficiency), adiabatic Valve, isentropic Compr."""

from __future__ import annotations

import math
from typing import Any

from simulator_mock.blocks.base import Block
from simulator_mock.errors import InfeasibleSpecificationError, UnsupportedOptionError
from simulator_mock.streams import Stream
from simulator_mock.units import from_si, to_si

GRAVITY = 9.80665  # m/s2


def _outlet_pressure(block: Block, spec: dict[str, Any]) -> float:
    """Discharge pressure [Pa]. The real service writes PRES_VALUE into Aspen's discharge pressure PRES
    whatever OPT_SPEC says, so only OPT_SPEC PRES gives Aspen a complete input."""
    option = spec["OPT_SPEC"]
    where = f"{block.where}.SPEC_DATA"
    if option != "PRES":
        raise UnsupportedOptionError(
            f"{where}.OPT_SPEC: {option} is not simulated: the Aspen service writes only the discharge "
            "pressure (PRES_VALUE), so use OPT_SPEC PRES"
        )
    return to_si(float(spec["PRES_VALUE"]), spec["PRES_UNITS"], "pressure", f"{where}.PRES_UNITS")


#: Centrifugal-pump efficiency correlation (Seider, Seader, Lewin & Widagdo, Product and Process Design
#: Principles, chapter on equipment costing): eta = -0.316 + 0.24015 ln Q - 0.01199 (ln Q)^2, Q in US gpm,
#: fitted for 50-5000 gpm (clamped outside). It stands in for Aspen's built-in efficiency curve for water in
#: a standard centrifugal pump, which Aspen applies when no efficiency is given (the real schema has none).
_GPM_PER_M3_HR = 4.402867539
_PUMP_FLOW_RANGE_GPM = (50.0, 5000.0)


def pump_efficiency(volumetric_flow_m3_hr: float) -> float:
    """Default pump efficiency for a liquid volumetric flow [m3/hr] (see the correlation above)."""
    low, high = _PUMP_FLOW_RANGE_GPM
    gpm = min(max(volumetric_flow_m3_hr * _GPM_PER_M3_HR, low), high)
    ln_q = math.log(gpm)
    return -0.316 + 0.24015 * ln_q - 0.01199 * ln_q * ln_q


def _check_direction(block: Block, P_in: float, P_out: float, raises: bool, other: str) -> None:
    if raises and P_out < P_in:
        raise InfeasibleSpecificationError(
            f"block {block.name}: outlet pressure {P_out / 1e5:.6g} bar is below the inlet pressure "
            f"{P_in / 1e5:.6g} bar; a {other} lowers pressure"
        )
    if not raises and P_out > P_in:
        raise InfeasibleSpecificationError(
            f"block {block.name}: outlet pressure {P_out / 1e5:.6g} bar is above the inlet pressure "
            f"{P_in / 1e5:.6g} bar; a {other} raises pressure"
        )


class Pump(Block):
    """Liquid pump or hydraulic turbine (Aspen ``Pump``): work = V dP / efficiency.

    The work comes from the liquid molar volume. With the activity-coefficient methods (IDEAL, NRTL,
    UNIFAC) the model's liquid enthalpy has no pressure term, so the part of the work that really raises
    the liquid's enthalpy through pressure, (V - T dV/dT) dP, is taken out before the PH flash and kept
    as the block's ``pressure_enthalpy`` (reported as ``liquid_pressure_enthalpy_kW`` and in the
    flowsheet balances); only the rest (the losses, W - V dP, plus the small T dV/dT dP) heats the
    liquid. Cubic-EOS liquids carry their own pressure term: there the outlet is the PH flash of inlet
    enthalpy plus the work.
    """

    type_name = "Pump"

    def parse(self, data: dict[str, Any]) -> None:
        self.spec = data["SPEC_DATA"]
        self.turbine = self.spec["PUMP_TYPE"] == "TURBINE"
        self.P_out = _outlet_pressure(self, self.spec)
        self.driver_eff = 1.0  # Aspen's default driver efficiency

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"]).stream()
        name = self.outlet_name("P(OUT)")
        P_out = self.P_out
        _check_direction(
            self,
            feed.P,
            P_out,
            not self.turbine,
            "Pump with PUMP_TYPE TURBINE" if not self.turbine else "PUMP",
        )
        if feed.empty:
            return {name: Stream(name, feed.flows, feed.T, P_out, None)}
        state = feed.state
        if state.VF > 1e-6 or state.V_liquid is None:
            raise InfeasibleSpecificationError(
                f"block {self.name}: the pump feed is {state.VF:.3g} vapour (mole fraction); a pump needs a "
                "liquid feed (cool or flash it first, or use Compr for gas)"
            )
        dP = P_out - feed.P
        fluid = feed.total * state.V_liquid * dP  # W
        self.eff = pump_efficiency(feed.total * state.V_liquid * 3600.0)
        brake = fluid * self.eff if self.turbine else fluid / self.eff
        self.pressure_enthalpy = feed.total * self.package.liquid_dH_dP(state) * dP
        H_out = state.H + (brake - self.pressure_enthalpy) / feed.total
        out = self.flash(name, feed.flows, "outlet", P=P_out, H=H_out)
        self.work = brake
        MW = float(state.zs @ self.package.MWs) / 1000.0  # kg/mol
        self.report = {
            "fluid_power_kW": fluid / 1000.0,
            "brake_power_kW": brake / 1000.0,
            "electricity_kW": (brake * self.driver_eff if self.turbine else brake / self.driver_eff) / 1000.0,
            "pressure_change_bar": dP / 1e5,
            "head_m": dP * state.V_liquid / (MW * GRAVITY),
            "efficiency": self.eff,
            "volumetric_flow_m3_hr": feed.total * state.V_liquid * 3600.0,
            "liquid_pressure_enthalpy_kW": self.pressure_enthalpy / 1000.0,
        }
        return {name: out}


class Valve(Block):
    """Valve (Aspen ``Valve``, MODE ADIAB-FLASH): isenthalpic expansion to a lower pressure.

    Same treatment as :class:`Pump`: with a pressure-less model liquid enthalpy, the liquid part of the
    feed loses (V - T dV/dT) dP of real enthalpy by the pressure drop, so the outlet is flashed at the
    model enthalpy plus that amount (``pressure_enthalpy`` < 0): a throttled liquid warms slightly (water,
    10 bar: about +0.02 K, as IAPWS-95 gives). The term is evaluated for the feed's liquid at inlet
    conditions (outlet pressure as reference), which is exact for a liquid outlet and, when the liquid
    flashes, small next to the latent heat.
    """

    type_name = "Valve"

    def parse(self, data: dict[str, Any]) -> None:
        job = data["JOB_DATA"]
        where = f"{self.where}.JOB_DATA"
        if job["MODE"] != "ADIAB-FLASH":
            raise UnsupportedOptionError(
                f"{where}.MODE: {job['MODE']} is not simulated: the Aspen service writes the inputs of "
                "ADIAB-FLASH only (adiabatic flash to P_OUT_VALUE)"
            )
        # FLASH_MAXIT / FLASH_TOL tune Aspen's flash iterations; the mock's flashes converge on their own.
        self.P_out = to_si(float(job["P_OUT_VALUE"]), job["P_OUT_UNITS"], "pressure", f"{where}.P_OUT_UNITS")

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        name = self.outlet_name("P(OUT)")
        P_out = self.P_out
        _check_direction(self, feed.P, P_out, False, "Pump or Compr")
        if feed.empty:
            out = Stream(name, feed.flows, feed.T_hint, P_out, None)
        else:
            inlet = feed.stream().state
            liquid = feed.total * (1.0 - inlet.VF)
            self.pressure_enthalpy = liquid * self.package.liquid_dH_dP(inlet) * (P_out - feed.P)
            H_out = (feed.H_total - self.pressure_enthalpy) / feed.total
            out = self.flash(name, feed.flows, "outlet", P=P_out, H=H_out)
        self.report = {
            "pressure_drop_bar": (feed.P - P_out) / 1e5,
            "outlet_vapor_fraction": out.VF,
            "liquid_pressure_enthalpy_kW": self.pressure_enthalpy / 1000.0,
        }
        return {name: out}


class Compr(Block):
    """Compressor or gas turbine (Aspen ``Compr``), isentropic efficiency model."""

    type_name = "Compr"

    def parse(self, data: dict[str, Any]) -> None:
        self.spec = data["SPEC_DATA"]
        if self.spec["TYPE"] != "ISENTROPIC":
            raise UnsupportedOptionError(
                f"{self.where}.SPEC_DATA.TYPE: {self.spec['TYPE']} is not simulated; use ISENTROPIC"
            )
        self.turbine = self.spec["MODEL_TYPE"] == "TURBINE"
        self.P_out = _outlet_pressure(self, self.spec)
        # The real schema has no efficiency field: Aspen's defaults apply (isentropic 0.72, mechanical 1).
        self.eff = 0.72
        self.mech_eff = 1.0

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"]).stream()
        name = self.outlet_name("P(OUT)")
        P_out = self.P_out
        _check_direction(
            self, feed.P, P_out, not self.turbine, "TURBINE" if not self.turbine else "COMPRESSOR"
        )
        if feed.empty:
            return {name: Stream(name, feed.flows, feed.T, P_out, None)}
        state = feed.state
        ideal = self.flash("isentropic", feed.flows, "isentropic outlet", P=P_out, S=state.S)
        W_s = feed.total * (ideal.state.H - state.H)
        W = W_s * self.eff if self.turbine else W_s / self.eff
        out = self.flash(name, feed.flows, "outlet", P=P_out, H=state.H + W / feed.total)
        self.work = W
        if state.VF < 1.0 - 1e-6:
            self.ctx.warnings.append(
                f"block {self.name}: compressor feed contains liquid (vapor fraction {state.VF:.3g})"
            )
        self.report = {
            "isentropic_power_kW": W_s / 1000.0,
            "brake_power_kW": (W * self.mech_eff if self.turbine else W / self.mech_eff) / 1000.0,
            "isentropic_outlet_temperature_C": from_si(ideal.T, "temperature"),
            "pressure_ratio": P_out / feed.P,
            "efficiency": self.eff,
            "outlet_vapor_fraction": out.VF,
        }
        return {name: out}
