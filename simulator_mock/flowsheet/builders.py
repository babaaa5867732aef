"""Builders of flowsheet configs in the service's dialect: components, feeds, outlet specs, whole flowsheets,
reaction sets and reactor data. The examples, the tests, the benchmarks and the task generator write their
configs with these."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

Config = dict[str, Any]

WATER = {"cid": "WATER", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"}
METHANOL = {"cid": "MEOH", "name": "CH4O", "cas_number": "67-56-1", "database_name": "METHANOL"}
BENZENE = {"cid": "BENZENE", "name": "C6H6", "cas_number": "71-43-2", "database_name": "BENZENE"}
TOLUENE = {"cid": "TOLUENE", "name": "C7H8", "cas_number": "108-88-3", "database_name": "TOLUENE"}
METHANE = {"cid": "CH4", "name": "CH4", "cas_number": "74-82-8", "database_name": "METHANE"}
OXYGEN = {"cid": "O2", "name": "O2", "cas_number": "7782-44-7", "database_name": "OXYGEN"}
NITROGEN = {"cid": "N2", "name": "N2", "cas_number": "7727-37-9", "database_name": "NITROGEN"}
CO2 = {"cid": "CO2", "name": "CO2", "cas_number": "124-38-9", "database_name": "CARBON-DIOXIDE"}
ACETONE = {"cid": "ACETONE", "name": "C3H6O-1", "cas_number": "67-64-1", "database_name": "ACETONE"}
N_BUTANE = {"cid": "NC4", "name": "C4H10-1", "cas_number": "106-97-8", "database_name": "N-BUTANE"}
ISOBUTANE = {"cid": "IC4", "name": "C4H10-2", "cas_number": "75-28-5", "database_name": "ISOBUTANE"}
HYDROGEN = {"cid": "H2", "name": "H2", "cas_number": "1333-74-0", "database_name": "HYDROGEN"}
N_HEXANE = {"cid": "HEXANE", "name": "C6H14-1", "cas_number": "110-54-3", "database_name": "N-HEXANE"}


def component(cid: str, chemical: str) -> dict[str, str]:
    """A component entry for any chemical the database knows (by name or CAS): its formula as the Aspen
    alias, its CAS number and its upper-case name as the databank name."""
    from chemicals.identifiers import CAS_from_any, search_chemical

    cas = CAS_from_any(chemical)
    return {
        "cid": cid,
        "name": search_chemical(cas).formula,
        "cas_number": cas,
        "database_name": chemical.upper(),
    }


def component_flows(flows_kmol_hr: dict[str, float]) -> dict[str, Any]:
    """A stream's ``flow`` section given as component molar flows [kmol/hr] (TOTFLOW is their sum)."""
    flow: dict[str, Any] = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": sum(flows_kmol_hr.values()),
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FLOW",
    }
    for cid, value in flows_kmol_hr.items():
        flow[cid] = {"FLOW_VALUE": value, "FLOW_UNITS": "kmol/hr", "FLOW_BASIS": "MOLE-FLOW"}
    return flow


def feed(T_C: float, P_bar: float, flows_kmol_hr: dict[str, float]) -> dict[str, Any]:
    """A TP feed given as component molar flows [kmol/hr] (TOTFLOW is their sum)."""
    return {
        "MIXED_SPEC": "TP",
        "temperature": {"TEMP_VALUE": T_C, "TEMP_UNITS": "C"},
        "pressure": {"PRES_VALUE": P_bar, "PRES_UNITS": "bar"},
        "flow": component_flows(flows_kmol_hr),
    }


#: Mixer SPEC_DATA with Aspen's defaults (no pressure drop; flash iterations and tolerance).
MIXER_DEFAULTS = {"PRES_VALUE": 0.0, "PRES_UNITS": "bar", "MAXIT_VALUE": 30, "TOL_VALUE": 0.0001}
#: Valve JOB_DATA fields besides the outlet pressure, at Aspen's defaults.
VALVE_DEFAULTS = {"MODE": "ADIAB-FLASH", "FLASH_MAXIT": 30, "FLASH_TOL": 0.0001}
#: Outlet spec: adiabatic at the inlet pressure (SPEC_OPT PD, duty 0, pressure drop 0).
ADIABATIC = {"SPEC_OPT": "PD", "PRES_VALUE": 0.0, "PRES_UNITS": "bar", "DUTY_VALUE": 0.0, "DUTY_UNITS": "kW"}


def valve_job(P_out: float, units: str = "bar") -> dict[str, Any]:
    """A Valve's input data: adiabatic let-down to the outlet pressure ``P_out`` (Aspen's flash defaults)."""
    return {"JOB_DATA": {**VALVE_DEFAULTS, "P_OUT_VALUE": P_out, "P_OUT_UNITS": units}}


def tp(T_C: float, P: float = 0.0, units: str = "bar") -> dict[str, Any]:
    """SPEC_DATA of a TP outlet spec: temperature [C] and pressure (0 = no pressure change)."""
    return {"SPEC_OPT": "TP", "TEMP_VALUE": T_C, "TEMP_UNITS": "C", "PRES_VALUE": P, "PRES_UNITS": units}


@dataclass(frozen=True)
class Block:
    """One block of a flowsheet config: its name, Aspen type, streams by port and input data."""

    name: str
    type: str
    ports: dict[str, str]
    """Stream name -> port, e.g. ``{"FEED-1": "F(IN)", "PROD-1": "P(OUT)"}``."""
    data: dict[str, Any] | None = None
    """The block's entry in ``blocks_<type>_data`` (None: none written, as a config missing it)."""


def flowsheet(blocks: list[Block], stream_data: dict[str, Any]) -> Config:
    """The flowsheet part of a config: ``blocks``, ``streams`` (in the order the connections name them),
    ``block_connections``, ``stream_data`` (the feeds) and one ``blocks_<type>_data`` per block type."""
    config: Config = {
        "blocks": [{"name": b.name, "type": b.type} for b in blocks],
        "streams": list(dict.fromkeys(stream for b in blocks for stream in b.ports)),
        "block_connections": {b.name: b.ports for b in blocks},
        "stream_data": stream_data,
    }
    for b in blocks:
        if b.data is not None:
            config.setdefault(f"blocks_{b.type}_data", {})[b.name] = b.data
    return config


def flowsheet_config(
    title: str,
    components: list[dict[str, str]],
    method: str,
    blocks: list[Block],
    stream_data: dict[str, Any],
) -> Config:
    """A whole config: description, components, one property method and the :func:`flowsheet` of ``blocks``
    (components and block data copied, so a config can be edited without touching the constants here)."""
    return {
        "metadata": {"description": title},
        "components": copy.deepcopy(components),
        "property_methods": [{"method_name": method, "is_basis_method": True}],
        **flowsheet(copy.deepcopy(blocks), stream_data),
    }


def radfrac_data(
    stages: int,
    feed_stage: int,
    reflux: float,
    d_to_f: float,
    ports: tuple[str, str, str] = ("FEED-1", "DIST-1", "BTMS-1"),
    condenser: str = "TOTAL",
    top_pressure: tuple[float, str] = (1.01325, "bar"),
) -> dict[str, Any]:
    """RadFrac in rating mode: ``stages`` equilibrium stages (condenser 1, kettle reboiler last), the feed
    above ``feed_stage``, molar reflux ratio and distillate-to-feed ratio, no pressure drop below the top
    pressure. ``ports`` names the feed, distillate and bottoms streams; the distillate is liquid with a TOTAL
    condenser, vapour otherwise."""
    feed_stream, distillate, bottoms = ports
    top_value, top_units = top_pressure
    return {
        "CONFIG_DATA": {
            "CALC_MODE": "EQUILIBRIUM",
            "NSTAGE": stages,
            "CONDENSER": condenser,
            "REBOILER": "KETTLE",
            "CONV_METH": "STANDARD",
            "NO_PHASE": 2,
            "BLKOPFREWAT": "NO",
            "OP_SPEC": [
                {"BASIS_RR_VALUE": reflux, "BASIS_RR_BASIS": "MOLE"},
                {"DF_VALUE": d_to_f, "DF_BASIS": "MOLE"},
            ],
        },
        "FEED_STAGE_DATA": [
            {"FEED_STAGE": feed_stream, "FEED_STAGE_VALUE": feed_stage, "FEED_CONVEN": "ABOVE-STAGE"}
        ],
        "PROD_STAGE_DATA": [
            {
                "PROD_STAGE": distillate,
                "PROD_STAGE_VALUE": 1,
                "PROD_PHASE": "L" if condenser == "TOTAL" else "V",
            },
            {"PROD_STAGE": bottoms, "PROD_STAGE_VALUE": stages, "PROD_PHASE": "L"},
        ],
        "PRES_DATA": {
            "VIEW_PRES": "TOP/BOTTOM",
            "STAGE_PRES": [
                {
                    "PRES1_VALUE": top_value,
                    "PRES1_UNITS": top_units,
                    "OPT_PRES_TOP": "DP-COND",
                    "DP_COND_VALUE": 0,
                    "DP_COND_UNITS": "bar",
                    "OPT_PRES": "DP-STAGE",
                    "DP_STAGE_VALUE": 0,
                    "DP_STAGE_UNITS": "bar",
                }
            ],
        },
        "CONDENSER_DATA": {"OPT_COND_SPC": "VFRAC", "SC_OPTION": "REFLUX-AND-DISTILLATE"},
    }


def powerlaw(
    reactype: str = "KINETIC",
    k: float = 0.05,
    E_cal_mol: float | None = None,
    phase: str = "V",
    reactants: dict[str, float] | None = None,
    products: dict[str, float] | None = None,
    set_id: str = "R-1",
) -> dict[str, Any]:
    """A one-reaction POWERLAW set named ``set_id`` (n-butane -> isobutane by default)."""
    item: dict[str, Any] = {
        "REAC_ID": "1",
        "REACTYPE": reactype,
        "COEF_DATA": reactants or {"NC4": -1},
        "COEF1_DATA": products or {"IC4": 1},
        "PHASE": phase,
        "R_D_RBASIS": "REAC-VOL",
    }
    if reactype not in ("EQUIL", "EQUILIBRIUM"):
        item["PRE_EXP"] = k
        item["T_EXP"] = 0
        if E_cal_mol is not None:
            item["ACT_ENERGY_VALUE"] = E_cal_mol
            item["ACT_ENERGY_UNITS"] = "cal/mol"
    return {set_id: {"type": "POWERLAW", "REAC_DATA": [item]}}


def reactor_config(
    block_type: str,
    block_data: dict[str, Any],
    reactions: dict[str, Any],
    feed_data: dict[str, Any],
    components: list[dict[str, Any]] | None = None,
    method: str = "IDEAL",
) -> dict[str, Any]:
    """One reactor R1 between feed FEED-1 and product PRO-1 (n-butane and isobutane unless given)."""
    return {
        "components": copy.deepcopy(components or [N_BUTANE, ISOBUTANE]),
        "property_methods": [{"method_name": method, "is_basis_method": True}],
        "blocks": [{"name": "R1", "type": block_type}],
        "streams": ["FEED-1", "PRO-1"],
        "block_connections": {"R1": {"FEED-1": "F(IN)", "PRO-1": "P(OUT)"}},
        "stream_data": {"FEED-1": feed_data},
        "reactions": reactions,
        f"blocks_{block_type}_data": {"R1": block_data},
    }


def rplug_data(
    length_m: float,
    diam_m: float,
    T_C: float | None = None,
    P_bar: float = 1.0,
    phase: str | None = "V",
    set_id: str = "R-1",
) -> dict[str, Any]:
    """RPlug at T_C (T-SPEC) or adiabatic (T_C None), reacting by the reaction set ``set_id``."""
    return {
        "SPEC_DATA": {
            "TYPE": "T-SPEC" if T_C is not None else "ADIABATIC",
            "OPT_TSPEC": "CONST-TEMP",
            "REAC_TEMP": T_C if T_C is not None else 0.0,
        },
        "CONFIG_DATA": {"PHASE": phase, "CHK_NTUBE": "NO", "LENGTH": length_m, "DIAM": diam_m},
        "REAC_DATA": {"REACSYS": "REACTIONS", "RXN_ID": {"1": set_id}},
        "PRES_DATA": {"PRES_VALUE": P_bar, "PRES_UNITS": "bar", "DP_FCOR": "", "DP_MULT": 1.0},
        "CAT_DATA": {"CAT_PRESENT": "NO", "IGN_CAT_VOL": "YES", "BED_VOIDAGE": 0.5},
    }


def rcstr_data(
    volume_m3: float,
    T_C: float | None = None,
    duty_kW: float | None = None,
    P_bar: float = 1.0,
    phase: str = "V",
    nphase: str = "1",
    set_id: str = "R-1",
) -> dict[str, Any]:
    """RCSTR at T_C (SPEC_OPT TEMP) or at a duty (SPEC_OPT DUTY), reacting by the reaction set ``set_id``."""
    spec: dict[str, Any] = {
        "PRES_VALUE": P_bar,
        "PRES_UNITS": "bar",
        "NPHASE": nphase,
        "PHASE": phase,
        "SPEC_TYPE": "VOLUME",
        "VOL_VALUE": volume_m3,
        "VOL_UNITS": "cum",
        "REACSYS": "REACTIONS",
        "RXN_ID": {"1": set_id},
    }
    if T_C is not None:
        spec.update({"SPEC_OPT": "TEMP", "TEMP_VALUE": T_C, "TEMP_UNITS": "C"})
    else:
        spec.update({"SPEC_OPT": "DUTY", "DUTY_VALUE": duty_kW or 0.0, "DUTY_UNITS": "kW"})
    return {"SPEC_DATA": spec}
