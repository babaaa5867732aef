"""Pressure changers: liquid Pump (V dP / efficiency), adiabatic Valve, isentropic Compr."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from simulator_mock.errors import InfeasibleSpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block
from simulator_mock.flowsheet.result_sheet import (
    LENGTH,
    POWER,
    PRESSURE,
    TEMPERATURE,
    VOLUME_FLOW,
    BlockView,
    Rows,
)
from simulator_mock.flowsheet.schema_fields import (
    PRES_UNITS,
    block_entry,
    num,
    section,
    spec_object,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si, to_si

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
    listing_order = 4
    description = "Liquid pump or hydraulic turbine. Ports: F(IN) one or more, P(OUT) one."
    not_written: ClassVar[dict[str, str]] = {
        "NPSH-AVAIL, NPSH-AVAIL_UNITS": "net positive suction head available: not computed",
        "NPSH_REQ, NPSH_REQ_UNITS": "net positive suction head required: needs pump curves",
    }

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
        state = feed.phase
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

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Pump specification. No efficiency field exists: Aspen then takes the efficiency from its curve for "  # noqa: E501
            "water in a standard centrifugal pump, a function of the volumetric flow. The mock uses a published "  # noqa: E501
            "centrifugal-pump correlation (Seider et al.): about 0.44 up to 11 m3/hr, rising to 0.86 at 1100 m3/hr "  # noqa: E501
            "and above; the results report it as efficiency. Driver efficiency is 1.",
            {
                "PUMP_TYPE": string(
                    "PUMP (raise the pressure) or TURBINE (hydraulic turbine, lower it).", ["PUMP", "TURBINE"]
                ),
                "PRES_VALUE": num("Discharge pressure (absolute, > 0), in PRES_UNITS.", exclusiveMinimum=0),
                "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
                "OPT_SPEC": string(
                    "What PRES_VALUE specifies. Only PRES (discharge pressure) is written by the Aspen service together with its value; DELP, PRATIO, POWER and USE-CURVE are refused (UnsupportedOption).",  # noqa: E501
                    ["PRES", "DELP", "PRATIO", "POWER", "USE-CURVE"],
                ),
            },
            required=["PUMP_TYPE", "PRES_VALUE", "PRES_UNITS", "OPT_SPEC"],
        )
        return section(
            "Pump",
            cls.description + " The feed must be liquid.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
        )

    result_table = (
        ("FLUID_POWER", "fluid_power_kW", POWER),
        ("BRAKE_POWER", "brake_power_kW", POWER),
        ("ELEC_POWER", "electricity_kW", POWER),
        ("VFLOW", "volumetric_flow_m3_hr", VOLUME_FLOW),
        ("PDRP", "pressure_change_bar", PRESSURE),
        ("HEAD_CAL", "head_m", LENGTH),
        ("CEFF", "efficiency", None),
        ("WNET", "electricity_kW", POWER),
        ("POC", "outlet_pressure_bar", PRESSURE),
        ("TOC", "outlet_temperature_C", TEMPERATURE),
    )


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
    listing_order = 5
    description = (
        "Valve: adiabatic flash to a specified outlet pressure. Ports: F(IN) one or more, P(OUT) one."
    )
    not_written: ClassVar[dict[str, str]] = {
        "CHOK_STAT": "choked-flow status: valve rating (Cv, geometry) is not modelled",
        "CHOKE_POUT, CHOKE_POUT_UNITS": "choked outlet pressure: valve rating is not modelled",
        "FLOW_COEF": "flow coefficient: valve rating is not modelled",
        "VALVE_POSN": "valve opening: valve rating is not modelled",
        "CAV_INDX": "cavitation index: valve rating is not modelled",
        "PDROP_FAC2": "pressure-drop ratio factor: valve rating is not modelled",
        "PRREC_FAC2": "pressure-recovery factor: valve rating is not modelled",
        "PIPE_FIT_FAC2": "piping-geometry factor: valve rating is not modelled",
    }

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
            inlet = feed.stream().phase
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

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        job = {
            "type": "object",
            "description": "Valve operation.",
            "properties": {
                "MODE": string(
                    "Calculation type. ADIAB-FLASH: adiabatic flash to the outlet pressure P_OUT_VALUE (the only mode the Aspen service writes inputs for; others are refused: UnsupportedOption).",  # noqa: E501
                    default="ADIAB-FLASH",
                ),
                "P_OUT_VALUE": num(
                    "Outlet pressure (absolute, > 0), in P_OUT_UNITS; not above the inlet pressure.",
                    exclusiveMinimum=0,
                ),
                "P_OUT_UNITS": units("P_OUT_VALUE", PRES_UNITS),
                "FLASH_MAXIT": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1000,
                    "description": "Maximum flash iterations (Aspen default 30); the mock's flashes use their own limit and ignore it.",  # noqa: E501
                },
                "FLASH_TOL": num(
                    "Flash tolerance (Aspen default 0.0001); ignored by the mock.", minimum=1e-10, maximum=0.1
                ),
            },
            "required": ["MODE", "P_OUT_VALUE", "P_OUT_UNITS", "FLASH_MAXIT", "FLASH_TOL"],
        }
        return section("Valve", cls.description, block_entry({"JOB_DATA": job}, ["JOB_DATA"], closed=False))

    result_table = (
        ("P_OUT_OUT", "outlet_pressure_bar", PRESSURE),
        ("VALVE_DP", "pressure_drop_bar", PRESSURE),
        ("TCALC", "outlet_temperature_C", TEMPERATURE),
        ("VCALC", "outlet_vapor_fraction", None),
    )


class Compr(Block):
    """Compressor or gas turbine (Aspen ``Compr``), isentropic efficiency model."""

    type_name = "Compr"
    listing_order = 6
    description = "Compressor or gas turbine (isentropic model). Ports: F(IN) one or more, P(OUT) one."
    not_written: ClassVar[dict[str, str]] = {
        "COMPTYPE": "Aspen's model-type code: its encoding is not known to the mock",
        "KODE": "Aspen's calculation-method code: its encoding is not known to the mock",
        "DIS": "displacement: positive-displacement compressors are not modelled",
        "EV": "volumetric efficiency: positive-displacement compressors are not modelled",
        "IN_CPR": "inlet heat-capacity ratio: not reported by the mock's engine",
        "Z_IN, Z_IN_UNITS": "inlet compressibility factor: not reported by the mock's engine",
        "Z_OUT, Z_OUT_UNITS": "outlet compressibility factor: not reported by the mock's engine",
        "EXP_V_ISEN, EXP_V_ACT, EXP_T_ISEN, EXP_T_ACT": "volume / temperature exponents: not computed",
    }

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
        state = feed.phase
        ideal = self.flash("isentropic", feed.flows, "isentropic outlet", P=P_out, S=state.S)
        W_s = feed.total * (ideal.phase.H - state.H)
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

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Compressor specification. No efficiency field exists: Aspen's defaults apply, isentropic efficiency 0.72 and mechanical efficiency 1.",  # noqa: E501
            {
                "MODEL_TYPE": string(
                    "COMPRESSOR (raise the pressure) or TURBINE (expand the gas).",
                    ["COMPRESSOR", "TURBINE"],
                    default="COMPRESSOR",
                ),
                "TYPE": string(
                    "Thermodynamic model. ISENTROPIC (rigorous isentropic path from the property method) is simulated; the ASME and GPSA variants are refused (UnsupportedOption).",  # noqa: E501
                    ["ISENTROPIC", "ASME-ISENTROP", "GPSA-ISENTROP", "ASME-POLYTROP", "GPSA-POLYTROP"],
                ),
                "PRES_VALUE": num("Discharge pressure (absolute, > 0), in PRES_UNITS.", exclusiveMinimum=0),
                "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
                "OPT_SPEC": string(
                    "What PRES_VALUE specifies. Only PRES (discharge pressure) is simulated; DELP, PRATIO, POWER and USE-CURVE are refused (UnsupportedOption).",  # noqa: E501
                    ["PRES", "DELP", "PRATIO", "POWER", "USE-CURVE"],
                    default="PRES",
                ),
            },
            required=["MODEL_TYPE", "TYPE", "PRES_VALUE", "PRES_UNITS", "OPT_SPEC"],
        )
        return section(
            "Compr", cls.description, block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        indicated, brake = d.get("power_kW"), d.get("brake_power_kW")
        isentropic = d.get("isentropic_power_kW")
        mech = None
        if indicated and brake:
            mech = indicated / brake if abs(brake) >= abs(indicated) else brake / indicated
        inlet = b.inlets[0].doc if b.inlets else {}
        out = b.outlet()
        mass_kg_s = inlet.get("mass_flow_kg_hr", 0.0) / 3600.0
        head = (
            isentropic * 1000.0 / (mass_kg_s * GRAVITY) if isentropic is not None and mass_kg_s > 0 else None
        )
        rows.add("IND_POWER", indicated, POWER)
        rows.add("BRAKE_POWER", brake, POWER)
        rows.add("WNET", brake, POWER)
        rows.add(
            "POWER_LOSS", brake - indicated if brake is not None and indicated is not None else None, POWER
        )
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
