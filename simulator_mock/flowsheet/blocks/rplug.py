"""RPlug: plug-flow reactor integrating the POWERLAW reactions it names (isothermal or adiabatic)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block
from simulator_mock.flowsheet.kinetics import GibbsData, check_balanced
from simulator_mock.flowsheet.reactor_models import Contents, integrate_plug, named_reactions
from simulator_mock.flowsheet.result_sheet import POWER, TEMPERATURE
from simulator_mock.flowsheet.schema_fields import (
    PRES_MEANING,
    PRES_UNITS,
    block_entry,
    num,
    section,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si, read_pair, to_si

#: Unit of residence times on result sheets (the METCBAR set's time unit).
TIME = "hr"

#: CONFIG_DATA.PHASE -> the contents model (one forced phase, or vapour-liquid equilibrium).
PHASES = {None: "VL", "": "VL", "V-L": "VL", "VL": "VL", "V": "V", "L": "L"}


def valid_phase(value: Any, where: str) -> str:
    """Contents model of a valid-phase field; UnsupportedOptionError for other values."""
    if value not in PHASES:
        raise UnsupportedOptionError(
            f"{where}: valid phase {value!r} is not simulated; use V (vapour only), L (liquid only) or leave "
            "it empty (vapour-liquid)"
        )
    return PHASES[value]


class RPlug(Block):
    """Plug-flow reactor (Aspen ``RPlug``).

    SPEC_DATA.TYPE T-SPEC with OPT_TSPEC CONST-TEMP (REAC_TEMP, written without a unit, read in C as in the
    METCBAR set) or ADIABATIC. CONFIG_DATA: LENGTH and DIAM in m (no unit written: METCBAR), NTUBE tubes when
    CHK_NTUBE is YES; PHASE the valid phase. PRES_DATA.PRES_VALUE: inlet pressure (> 0 absolute, <= 0 a drop
    below the feed), PDROP_VALUE a pressure drop across the reactor (linear in volume). CAT_DATA: with a
    catalyst present (and its volume not ignored) the fluid occupies BED_VOIDAGE of the volume.
    """

    type_name = "RPlug"
    listing_order = 13
    description = (
        "Plug-flow reactor integrating the POWERLAW reactions of the sets it names (isothermal or "
        "adiabatic). Ports: F(IN) one or more, P(OUT) one."
    )
    not_written: ClassVar[dict[str, str]] = {
        "COOLANT_TIN, COOLANT_TIN_UNITS, COOLANT_VIN": "coolant inlet state: reactors with a coolant are not "
        "simulated (TYPE T-SPEC or ADIABATIC only)",
    }

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.kind = spec["TYPE"]
        if self.kind not in ("T-SPEC", "ADIABATIC"):
            raise UnsupportedOptionError(
                f"{where}.TYPE: {self.kind} is not simulated (coolant and heat-flux models need coolant data "
                "the schema lacks); use T-SPEC or ADIABATIC"
            )
        self.T_spec: float | None = None
        if self.kind == "T-SPEC":
            if spec["OPT_TSPEC"] != "CONST-TEMP":
                raise UnsupportedOptionError(
                    f"{where}.OPT_TSPEC: {spec['OPT_TSPEC']} is not simulated; use CONST-TEMP with REAC_TEMP"
                )
            self.T_spec = to_si(float(spec["REAC_TEMP"]), "C", "temperature", f"{where}.REAC_TEMP")
        config = data["CONFIG_DATA"]
        cwhere = f"{self.where}.CONFIG_DATA"
        self.valid = valid_phase(config.get("PHASE"), f"{cwhere}.PHASE")
        length, diameter = float(config["LENGTH"]), float(config["DIAM"])
        if length <= 0 or diameter <= 0:
            raise SpecificationError(f"{cwhere}: LENGTH and DIAM must be > 0 (m)")
        tubes = 1
        if config.get("CHK_NTUBE") == "YES":
            tubes = int(config.get("NTUBE") or 0)
            if tubes < 1:
                raise SpecificationError(f"{cwhere}.NTUBE: CHK_NTUBE YES needs a number of tubes >= 1")
        self.volume = tubes * length * math.pi * diameter**2 / 4.0
        pres = data["PRES_DATA"]
        self.P_value = float(pres["PRES_VALUE"])
        self.P_units = pres["PRES_UNITS"]
        read_pair(pres, "PRES_VALUE", "PRES_UNITS", "pressure", f"{self.where}.PRES_DATA")
        drop = read_pair(pres, "PDROP_VALUE", "PDROP_UNITS", "pressure", f"{self.where}.PRES_DATA")
        self.drop = float(drop or 0.0)
        if self.drop < 0:
            raise SpecificationError(f"{self.where}.PRES_DATA.PDROP_VALUE: a pressure drop must be >= 0")
        cat = data["CAT_DATA"]
        self.fluid_fraction = 1.0
        if cat.get("CAT_PRESENT") == "YES" and cat.get("IGN_CAT_VOL") != "YES":
            voidage = float(cat["BED_VOIDAGE"])
            if not 0.0 < voidage <= 1.0:
                raise SpecificationError(f"{self.where}.CAT_DATA.BED_VOIDAGE: must be in (0, 1]")
            self.fluid_fraction = voidage
        self.reactions = named_reactions(
            self.ctx.reactions, data["REAC_DATA"].get("RXN_ID"), f"{self.where}.REAC_DATA", False
        )
        if not self.reactions:
            self.ctx.warnings.append(f"{self.where}.REAC_DATA.RXN_ID: no reaction set named; nothing reacts")
        self.gibbs = GibbsData(self.package, self.ctx.cids)
        for reaction in self.reactions:
            check_balanced(reaction, self.package, self.ctx.cids, f"reactions.{reaction.set_name}")
            if reaction.kind == "REVERSIBLE":
                self.gibbs.check(reaction, f"reactions.{reaction.set_name}")

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        name = self.outlet_name("P(OUT)")
        flows: np.ndarray = feed.flows  # None only without feed streams
        P_in = self.pressure(self.P_value, self.P_units, "PRES_DATA.PRES_VALUE", feed.P)
        P_out = P_in - self.drop
        if P_out <= 0:
            raise SpecificationError(
                f"{self.where}.PRES_DATA.PDROP_VALUE: the drop exceeds the inlet pressure"
            )
        if feed.empty:
            self.report = {"residence_time_hr": 0.0, "reactions": []}
            return {name: Stream(name, flows, self.T_spec or feed.T_hint, P_out, None)}
        if self.T_spec is not None:
            T_in = self.T_spec
        elif abs(P_in - feed.P) > 1e-9 * feed.P:
            T_in = self.flash("inlet", flows, "inlet", P=P_in, H=feed.H_total / feed.total).T
        else:
            T_in = feed.T
        contents = Contents(self.package, self.valid, f"block {self.name} contents")
        result = integrate_plug(
            contents,
            self.reactions,
            self.gibbs,
            flows,
            T_in,
            P_in,
            P_out,
            self.volume * self.fluid_fraction,
            self.T_spec is None,
            f"block {self.name}",
        )
        out_flows = self._balanced(flows, result.extents)
        if self.T_spec is not None:
            out = self.flash(name, out_flows, "outlet", T=self.T_spec, P=P_out)
            self.heat = out.enthalpy_flow - feed.H_total
        else:
            out = self.flash(name, out_flows, "outlet", P=P_out, H=feed.H_total / float(out_flows.sum()))
            self.heat = 0.0
        self.report = {
            "residence_time_hr": result.residence_time / 3600.0,
            "minimum_temperature_C": from_si(min(result.T_min, out.T), "temperature"),
            "maximum_temperature_C": from_si(max(result.T_max, out.T), "temperature"),
            "reactor_volume_m3": self.volume,
            "outlet_vapor_fraction": out.VF,
            "reactions": [
                {"id": r.label, "extent_kmol_hr": float(x) * 3.6}
                for r, x in zip(self.reactions, result.extents, strict=True)
            ],
        }
        return {name: out}

    def _balanced(self, flows: np.ndarray, extents: np.ndarray) -> np.ndarray:
        """Outlet flows from the integrated extents (exact stoichiometry, so mass balances to rounding)."""
        out = flows + (extents @ np.array([r.nu for r in self.reactions]) if self.reactions else 0.0)
        total = float(flows.sum())
        if (out < -1e-8 * total).any():
            i = int(np.argmin(out))
            raise SpecificationError(
                f"{self.where}: the integration consumed more {self.ctx.cids[i]} than the feed holds"
            )
        return np.maximum(out, 0.0)

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        """The ``blocks_RPlug_data`` part of the schema."""
        spec = {
            "type": "object",
            "properties": {
                "TYPE": string(
                    "T-SPEC: reactor at a specified temperature; ADIABATIC: no heat exchanged. Coolant and "
                    "heat-flux types are refused.",
                    ["T-SPEC", "ADIABATIC", "TCOOL-SPEC", "CO-COOL", "COUNTER-COOL"],
                ),
                "OPT_TSPEC": string(
                    "With T-SPEC: CONST-TEMP (REAC_TEMP); TEMP-PROF is refused.", ["CONST-TEMP", "TEMP-PROF"]
                ),
                "REAC_TEMP": num(
                    "Reactor temperature in C (written without a unit: the METCBAR set's C); "
                    "read with T-SPEC.",
                    minimum=-273.15,
                ),
            },
            "required": ["TYPE", "OPT_TSPEC", "REAC_TEMP"],
        }
        config = {
            "type": "object",
            "properties": {
                "PHASE": {
                    "type": ["string", "null"],
                    "description": (
                        "Valid phase of the contents: V (vapour only), L (liquid only), "
                        "null / '' / V-L (vapour-liquid)."
                    ),
                },
                "CHK_NTUBE": string("YES: NTUBE tubes of LENGTH and DIAM; NO: one tube.", ["YES", "NO"]),
                "NTUBE": {"type": "integer", "minimum": 1, "description": "Number of tubes (CHK_NTUBE YES)."},
                "LENGTH": num(
                    "Reactor (tube) length in m (written without a unit: METCBAR).", exclusiveMinimum=0
                ),
                "DIAM": num(
                    "Reactor (tube) diameter in m (written without a unit: METCBAR).", exclusiveMinimum=0
                ),
            },
            "required": ["PHASE", "CHK_NTUBE", "LENGTH", "DIAM"],
        }
        reac = {
            "type": "object",
            "properties": {
                "REACSYS": string("Reaction system (informative)."),
                "RXN_ID": {
                    "type": "object",
                    "description": "Reaction sets used: {index: set id of the reactions section}.",
                    "additionalProperties": {"type": "string"},
                },
            },
            "required": ["REACSYS", "RXN_ID"],
        }
        pres = {
            "type": "object",
            "properties": {
                "OPT_PDROP": {
                    "type": ["string", "null"],
                    "description": "Pressure-drop option (informative).",
                },
                "PRES_VALUE": num(f"Reactor inlet pressure, in PRES_UNITS: {PRES_MEANING}."),
                "PRES_UNITS": units("pressure", PRES_UNITS),
                "PDROP_VALUE": num(
                    "Pressure drop across the reactor, in PDROP_UNITS (default 0).", minimum=0
                ),
                "PDROP_UNITS": units("pressure drop", PRES_UNITS),
                "DP_FCOR": string(
                    "Friction correlation (not modelled: only PDROP_VALUE drops the pressure)."
                ),
                "DP_MULT": num("Friction multiplier (not modelled)."),
            },
            "required": ["PRES_VALUE", "PRES_UNITS", "DP_FCOR", "DP_MULT"],
            "dependencies": {"PDROP_VALUE": ["PDROP_UNITS"]},
        }
        cat = {
            "type": "object",
            "properties": {
                "CAT_PRESENT": string("YES: a catalyst bed fills the reactor.", ["YES", "NO"]),
                "IGN_CAT_VOL": string(
                    "YES: the catalyst volume is ignored (the fluid fills the reactor).", ["YES", "NO"]
                ),
                "BED_VOIDAGE": num(
                    "Bed voidage: the fluid's share of the volume with a catalyst.", minimum=0, maximum=1
                ),
                "CATWT_VALUE": num("Catalyst loading (not needed with REAC-VOL rates)."),
                "CATWT_UNITS": string("Unit of the catalyst loading."),
                "CAT_RHO_VALUE": num("Particle density (not needed with REAC-VOL rates)."),
                "CAT_RHO_UNITS": string("Unit of the particle density."),
            },
            "required": ["CAT_PRESENT", "IGN_CAT_VOL", "BED_VOIDAGE"],
        }
        entry = block_entry(
            {"SPEC_DATA": spec, "CONFIG_DATA": config, "REAC_DATA": reac, "PRES_DATA": pres, "CAT_DATA": cat},
            ["SPEC_DATA", "CONFIG_DATA", "REAC_DATA", "PRES_DATA", "CAT_DATA"],
            closed=False,
        )
        return section("RPlug", cls.description, entry)

    #: Rows of the ``<BLOCK>_result`` sheet: duty, temperature range, residence time.
    result_table = (
        ("QCALC", "duty_kW", POWER),
        ("TMIN", "minimum_temperature_C", TEMPERATURE),
        ("TMAX", "maximum_temperature_C", TEMPERATURE),
        ("RES_TIME", "residence_time_hr", TIME),
    )
