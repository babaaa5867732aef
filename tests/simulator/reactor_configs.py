"""Real-dialect configs with kinetic reactors (RPlug, RCSTR) and reaction sets, for the tests."""

from __future__ import annotations

import copy
from typing import Any

BUTANES = [
    {"cid": "NC4", "name": "C4H10-1", "cas_number": "106-97-8", "database_name": "N-BUTANE"},
    {"cid": "IC4", "name": "C4H10-2", "cas_number": "75-28-5", "database_name": "ISOBUTANE"},
]

WGS_COMPONENTS = [
    {"cid": "CO", "name": "CO", "cas_number": "630-08-0", "database_name": "CARBON-MONOXIDE"},
    {"cid": "H2O", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"},
    {"cid": "CO2", "name": "CO2", "cas_number": "124-38-9", "database_name": "CARBON-DIOXIDE"},
    {"cid": "H2", "name": "H2", "cas_number": "1333-74-0", "database_name": "HYDROGEN"},
]


def feed(T_C: float, P_bar: float, flows_kmol_hr: dict[str, float]) -> dict[str, Any]:
    """A TP feed with component molar flows."""
    flow: dict[str, Any] = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": sum(flows_kmol_hr.values()),
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FLOW",
    }
    for cid, value in flows_kmol_hr.items():
        flow[cid] = {"FLOW_VALUE": value, "FLOW_UNITS": "kmol/hr", "FLOW_BASIS": "MOLE-FLOW"}
    return {
        "MIXED_SPEC": "TP",
        "temperature": {"TEMP_VALUE": T_C, "TEMP_UNITS": "C"},
        "pressure": {"PRES_VALUE": P_bar, "PRES_UNITS": "bar"},
        "flow": flow,
    }


def powerlaw(
    reactype: str = "KINETIC",
    k: float = 0.05,
    E_cal_mol: float | None = None,
    phase: str = "V",
    reactants: dict[str, float] | None = None,
    products: dict[str, float] | None = None,
) -> dict[str, Any]:
    """A one-reaction POWERLAW set (n-butane -> isobutane by default)."""
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
    return {"R-1": {"type": "POWERLAW", "REAC_DATA": [item]}}


def reactor_config(
    block_type: str,
    block_data: dict[str, Any],
    reactions: dict[str, Any],
    feed_data: dict[str, Any],
    components: list[dict[str, Any]] | None = None,
    method: str = "IDEAL",
) -> dict[str, Any]:
    """One reactor R1 between feed FEED-1 and product PRO-1."""
    return {
        "components": copy.deepcopy(components or BUTANES),
        "property_methods": [{"method_name": method, "is_basis_method": True}],
        "blocks": [{"name": "R1", "type": block_type}],
        "streams": ["FEED-1", "PRO-1"],
        "block_connections": {"R1": {"FEED-1": "F(IN)", "PRO-1": "P(OUT)"}},
        "stream_data": {"FEED-1": feed_data},
        "reactions": reactions,
        f"blocks_{block_type}_data": {"R1": block_data},
    }


def rplug_data(
    length_m: float, diam_m: float, T_C: float | None = None, P_bar: float = 1.0, phase: str | None = "V"
) -> dict[str, Any]:
    """RPlug at T_C (T-SPEC) or adiabatic (T_C None)."""
    return {
        "SPEC_DATA": {
            "TYPE": "T-SPEC" if T_C is not None else "ADIABATIC",
            "OPT_TSPEC": "CONST-TEMP",
            "REAC_TEMP": T_C if T_C is not None else 0.0,
        },
        "CONFIG_DATA": {"PHASE": phase, "CHK_NTUBE": "NO", "LENGTH": length_m, "DIAM": diam_m},
        "REAC_DATA": {"REACSYS": "REACTIONS", "RXN_ID": {"1": "R-1"}},
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
) -> dict[str, Any]:
    """RCSTR at T_C (SPEC_OPT TEMP) or at a duty (SPEC_OPT DUTY)."""
    spec: dict[str, Any] = {
        "PRES_VALUE": P_bar,
        "PRES_UNITS": "bar",
        "NPHASE": nphase,
        "PHASE": phase,
        "SPEC_TYPE": "VOLUME",
        "VOL_VALUE": volume_m3,
        "VOL_UNITS": "cum",
        "REACSYS": "REACTIONS",
        "RXN_ID": {"1": "R-1"},
    }
    if T_C is not None:
        spec.update({"SPEC_OPT": "TEMP", "TEMP_VALUE": T_C, "TEMP_UNITS": "C"})
    else:
        spec.update({"SPEC_OPT": "DUTY", "DUTY_VALUE": duty_kW or 0.0, "DUTY_UNITS": "kW"})
    return {"SPEC_DATA": spec}
