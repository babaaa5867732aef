"""RCSTR: continuous stirred-tank reactor with POWERLAW kinetic and equilibrium reactions."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block
from simulator_mock.flowsheet.blocks.rplug import TIME, valid_phase
from simulator_mock.flowsheet.kinetics import GibbsData, check_balanced
from simulator_mock.flowsheet.reactor_models import (
    Contents,
    TankResult,
    named_reactions,
    solve_tank,
    solve_tank_energy,
)
from simulator_mock.flowsheet.result_sheet import (
    POWER,
    BlockView,
    Rows,
    outlet_state_rows,
)
from simulator_mock.flowsheet.schema_fields import (
    DUTY_UNITS,
    PRES_MEANING,
    PRES_UNITS,
    TEMP_UNITS,
    block_entry,
    num,
    section,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si, read_pair

#: Unit of volumes on result sheets (the METCBAR set's volume unit).
VOLUME = "cum"

#: SPEC_OPT -> what it fixes besides the pressure.
SPEC_OPTS = {"TEMP": "temperature", "DUTY": "duty"}

#: SPEC_DATA fields of solids, crystallisation and agitation that change nothing for a fluid reactor.
_IGNORED = (
    "HTRANMODE",
    "CHK_MASSTR",
    "SUBBYPASS_VALUE",
    "LOWER_VALUE",
    "SUB_RRSBN_VALUE",
    "SUB_STDDEV_VALUE",
    "S_OPT_VALUE",
    "USER_SLOWER_VALUE",
    "USER_SVALUE_VALUE",
    "AGITATOR",
    "AGITRATE_VALUE",
    "IMPELLR_DIAM_VALUE",
    "POWERNUMBER",
    "OPT_PSD",
    "CONST_METHOD",
    "OPT_SUBPSD",
    "OPT_OVERALL",
)


class RCSTR(Block):
    """Stirred-tank reactor (Aspen ``RCSTR``).

    SPEC_DATA: PRES_VALUE (> 0 absolute, <= 0 a drop below the feed); SPEC_OPT TEMP (TEMP_VALUE) or DUTY
    (DUTY_VALUE; 0 = adiabatic); SPEC_TYPE VOLUME with VOL_VALUE / VOL_UNITS (cum, l); NPHASE 1 with PHASE
    V or L (the contents are that phase), or 2 (vapour-liquid; each phase's share of the volume follows its
    volumetric flow); REACSYS / RXN_ID name the reaction sets.
    """

    type_name = "RCSTR"
    listing_order = 14
    description = (
        "Continuous stirred-tank reactor with POWERLAW kinetic and equilibrium reactions. Ports: F(IN) one "
        "or more, P(OUT) one."
    )
    not_written: ClassVar[dict[str, str]] = {
        "LIQ1_VOL, LIQ1_VOL_UNITS": "first-liquid volume: the mock does not report liquid-liquid splits",
        "SALT_VOL, SALT_VOL_UNITS": "salt volume: electrolytes are not simulated",
        "COND_VOL, COND_VOL_UNITS, COND_RES_TIM, COND_RES_TIM_UNITS": "condensed (solid) phase: no solids",
    }

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.spec_opt = spec.get("SPEC_OPT") or "TEMP"
        if self.spec_opt not in SPEC_OPTS:
            raise UnsupportedOptionError(
                f"{where}.SPEC_OPT: {self.spec_opt} is not simulated; use TEMP (with TEMP_VALUE) or DUTY "
                "(with DUTY_VALUE)"
            )
        self.T = read_pair(spec, "TEMP_VALUE", "TEMP_UNITS", "temperature", where)
        self.Q = read_pair(spec, "DUTY_VALUE", "DUTY_UNITS", "power", where)
        if self.spec_opt == "TEMP" and self.T is None:
            raise SpecificationError(f"{where}.TEMP_VALUE: SPEC_OPT TEMP needs it")
        if self.spec_opt == "DUTY" and self.Q is None:
            raise SpecificationError(f"{where}.DUTY_VALUE: SPEC_OPT DUTY needs it")
        if spec.get("PRES_VALUE") is None:
            raise SpecificationError(f"{where}.PRES_VALUE: the reactor pressure is required (<= 0: a drop)")
        read_pair(spec, "PRES_VALUE", "PRES_UNITS", "pressure", where)
        self.P_value, self.P_units = float(spec["PRES_VALUE"]), spec["PRES_UNITS"]
        spec_type = spec.get("SPEC_TYPE") or "VOLUME"
        if spec_type != "VOLUME":
            raise UnsupportedOptionError(
                f"{where}.SPEC_TYPE: {spec_type} is not simulated (a residence time needs a time unit, "
                "which the service cannot write); use VOLUME with VOL_VALUE and VOL_UNITS"
            )
        volume = read_pair(spec, "VOL_VALUE", "VOL_UNITS", "volume", where)
        if volume is None or volume <= 0:
            raise SpecificationError(f"{where}.VOL_VALUE: SPEC_TYPE VOLUME needs a reactor volume > 0")
        self.volume = volume
        nphase = str(spec.get("NPHASE") or "1")
        if nphase == "1":
            self.valid = valid_phase(spec.get("PHASE") or "L", f"{where}.PHASE")
        elif nphase == "2":
            self.valid = "VL"
        else:
            raise UnsupportedOptionError(f"{where}.NPHASE: {nphase} is not simulated; use 1 or 2")
        if spec.get("CRYSTSYS"):
            raise UnsupportedOptionError(f"{where}.CRYSTSYS: crystallisation is not simulated")
        for key in _IGNORED:
            if spec.get(key) not in (None, ""):
                self.ctx.warnings.append(
                    f"{where}.{key}: no effect on a fluid-phase reactor in the mock; ignored"
                )
        self.reactions = named_reactions(self.ctx.reactions, spec.get("RXN_ID"), where, True)
        if not self.reactions:
            self.ctx.warnings.append(f"{where}.RXN_ID: no reaction set named; nothing reacts")
        self.gibbs = GibbsData(self.package, self.ctx.cids)
        for reaction in self.reactions:
            check_balanced(reaction, self.package, self.ctx.cids, f"reactions.{reaction.set_name}")
            if reaction.kind != "KINETIC":
                self.gibbs.check(reaction, f"reactions.{reaction.set_name}")

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        name = self.outlet_name("P(OUT)")
        flows: np.ndarray = feed.flows  # None only without feed streams
        P = self.pressure(self.P_value, self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        if feed.empty:
            self.report = {"reactions": []}
            return {name: Stream(name, flows, self.T or feed.T_hint, P, None)}
        contents = Contents(self.package, self.valid, f"block {self.name} contents")
        where = f"block {self.name}"
        last: dict[str, Any] = {}

        def tank(T: float) -> TankResult:
            result = (
                solve_tank(
                    contents, self.reactions, self.gibbs, flows, T, P, self.volume, where, last.get("xi")
                )
                if self.reactions
                else TankResult(flows, np.zeros(0), contents.evaluate(flows, T, P))
            )
            last["xi"] = result.extents
            return result

        if self.spec_opt == "TEMP":
            T = float(self.T)  # type: ignore[arg-type]
        else:
            target = feed.H_total + float(self.Q)  # type: ignore[arg-type]

            def energy(T: float) -> float:
                result = tank(T)
                return self.flash(name, result.flows, "outlet", T=T, P=P).enthalpy_flow - target

            T = solve_tank_energy(energy, feed.T, where)
        result = tank(T)
        out = self.flash(name, result.flows, "outlet", T=T, P=P)
        # a specified duty is the duty (the temperature was solved to it); else what the energy balance needs
        self.heat = float(self.Q) if self.spec_opt == "DUTY" else out.enthalpy_flow - feed.H_total  # type: ignore[arg-type]
        state = result.state
        vap = state.phases.get("V")
        liq = state.phases.get("L")
        V_vap = self.volume * state.volume_fraction("V")
        V_liq = self.volume * state.volume_fraction("L")
        self.report = {
            "reactor_volume_m3": self.volume,
            "vapor_volume_m3": V_vap,
            "liquid_volume_m3": V_liq,
            "residence_time_hr": self.volume / state.Q / 3600.0 if state.Q > 0 else None,
            "vapor_residence_time_hr": V_vap / vap[1] / 3600.0 if vap and vap[1] > 0 else None,
            "outlet_vapor_fraction": out.VF,
            "reactor_temperature_C": from_si(T, "temperature"),
            "reactions": [
                {"id": r.label, "extent_kmol_hr": float(x) * 3.6}
                for r, x in zip(self.reactions, result.extents, strict=True)
            ],
        }
        if liq is None:
            self.report["liquid_volume_m3"] = 0.0
        return {name: out}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        """The ``blocks_RCSTR_data`` part of the schema."""
        props: dict[str, Any] = {
            "PRES_VALUE": num(f"Reactor pressure, in PRES_UNITS: {PRES_MEANING}."),
            "PRES_UNITS": units("pressure", PRES_UNITS),
            "SPEC_OPT": string(
                "TEMP: temperature (TEMP_VALUE); DUTY: heat duty (DUTY_VALUE, 0 = adiabatic); "
                "VFRAC is refused."
            ),
            "NPHASE": string("Valid phases: 1 (one phase, PHASE) or 2 (vapour-liquid); 3 is refused."),
            "PHASE": string("With NPHASE 1: V or L (default L)."),
            "TEMP_VALUE": num("Reactor temperature, in TEMP_UNITS (SPEC_OPT TEMP)."),
            "TEMP_UNITS": units("temperature", TEMP_UNITS),
            "DUTY_VALUE": num("Heat duty, in DUTY_UNITS (SPEC_OPT DUTY)."),
            "DUTY_UNITS": units("duty", DUTY_UNITS),
            "VFRAC": num("Vapour fraction (SPEC_OPT VFRAC, refused)."),
            "SPEC_TYPE": string(
                "VOLUME (reactor volume, VOL_VALUE); residence-time and phase-volume types are refused."
            ),
            "SPEC_PHASE": string("Phase of a phase-volume specification (not simulated)."),
            "REACT_VOL_VALUE": num("Phase volume (not simulated)."),
            "REACT_VOL_UNITS": string("Unit of the phase volume."),
            "REACT_VOL_FR": num("Phase volume fraction (not simulated)."),
            "PH_RES_TIME_VALUE": num("Phase residence time (not simulated)."),
            "PH_RES_TIME_UNITS": string("Unit of the phase residence time."),
            "VOL_VALUE": num("Reactor volume, in VOL_UNITS (SPEC_TYPE VOLUME).", exclusiveMinimum=0),
            "VOL_UNITS": units("volume", ["cum", "l"]),
            "RES_TIME_VALUE": num(
                "Residence time (SPEC_TYPE RES-TIME, refused: no time unit can be written)."
            ),
            "RES_TIME_UNITS": string("Unit of the residence time."),
            "CHK_MASSTR": string("Mass-transfer option (ignored)."),
            "REACSYS": string("Reaction system (informative)."),
            "RXN_ID": {
                "type": "object",
                "description": "Reaction sets used: {index: set id of the reactions section}.",
                "additionalProperties": {"type": "string"},
            },
        }
        for key in (
            "SUBBYPASS",
            "LOWER",
            "SUB_RRSBN",
            "SUB_STDDEV",
            "S_OPT",
            "USER_SLOWER",
            "USER_SVALUE",
            "AGITRATE",
            "IMPELLR_DIAM",
        ):
            props[f"{key}_VALUE"] = num("Solids / agitation input (ignored by the mock).")
            props[f"{key}_UNITS"] = string("Its unit.")
        for key in ("CRYSTSYS", "AGITATOR", "OPT_PSD", "CONST_METHOD", "OPT_SUBPSD", "OPT_OVERALL"):
            props[key] = string(
                "Solids / crystallisation / agitation option (CRYSTSYS refused, the others ignored)."
            )
        props["POWERNUMBER"] = num("Agitator power number (ignored).")
        spec = {
            "type": "object",
            "properties": props,
            "dependencies": {
                "TEMP_VALUE": ["TEMP_UNITS"],
                "DUTY_VALUE": ["DUTY_UNITS"],
                "VOL_VALUE": ["VOL_UNITS"],
                "PRES_VALUE": ["PRES_UNITS"],
            },
        }
        entry = block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True)
        return section("RCSTR", cls.description, entry)

    #: The result rows after the outlet state: duty, volumes and residence times.
    result_table = (
        ("QCALC", "duty_kW", POWER),
        ("QNET", "duty_kW", POWER),
        ("OT_VOL", "reactor_volume_m3", VOLUME),
        ("VAP_VOL", "vapor_volume_m3", VOLUME),
        ("LIQ_VOL", "liquid_volume_m3", VOLUME),
        ("TOT_RES_TIME", "residence_time_hr", TIME),
        ("VAP_RES_TIME", "vapor_residence_time_hr", TIME),
    )

    @classmethod
    def result_rows(cls, b: BlockView, rows: Rows) -> None:
        """Rows of the ``<BLOCK>_result`` sheet: the outlet state, then :attr:`result_table`."""
        outlet_state_rows(rows, b)
        rows.add_entries(b.doc, cls.result_table)
