"""The real Aspen service's config dialect: a corpus of valid configs the mock accepts and runs, and of
invalid ones it refuses with the right error type and the offending field named (issue 9)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _support.sim import assert_closed

from simulator_mock import SimulationError, run_config
from simulator_mock.examples import (
    EXAMPLES,
    column,
    combustion,
    heat_exchanger,
    heater,
    multistage_compressor,
    rating_column,
    reactor_recycle,
    recycle,
    sep,
    shortcut_column,
)
from simulator_mock.flowsheet.builders import (
    ADIABATIC,
    BENZENE,
    METHANE,
    METHANOL,
    MIXER_DEFAULTS,
    NITROGEN,
    VALVE_DEFAULTS,
    WATER,
    Block,
    feed,
    flowsheet_config,
    powerlaw,
    rcstr_data,
    reactor_config,
    rplug_data,
    tp,
)
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES, validate_config

#: the water-gas shift components (water by the cid H2O)
WGS_COMPONENTS = [
    {"cid": "CO", "name": "CO", "cas_number": "630-08-0", "database_name": "CARBON-MONOXIDE"},
    {"cid": "H2O", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"},
    {"cid": "CO2", "name": "CO2", "cas_number": "124-38-9", "database_name": "CARBON-DIOXIDE"},
    {"cid": "H2", "name": "H2", "cas_number": "1333-74-0", "database_name": "HYDROGEN"},
]


Config = dict[str, Any]


# ---- builders -------------------------------------------------------------------------------------


def stream(
    spec: str = "TP",
    T: tuple[float, str] | None = (25.0, "C"),
    P: tuple[float, str] | None = (1.0, "bar"),
    vfrac: float | None = None,
    base: str = "MOLE",
    total: tuple[float, str] = (100.0, "kmol/hr"),
    basis: str = "MOLE-FLOW",
    amounts: dict[str, float] | None = None,
    units: str = "kmol/hr",
) -> Config:
    """A stream_data entry in the real dialect."""
    entry: Config = {"MIXED_SPEC": spec}
    if T is not None:
        entry["temperature"] = {"TEMP_VALUE": T[0], "TEMP_UNITS": T[1]}
    if P is not None:
        entry["pressure"] = {"PRES_VALUE": P[0], "PRES_UNITS": P[1]}
    if vfrac is not None:
        entry["vfrac"] = {"VFRAC_VALUE": vfrac}
    flow: Config = {"FLOWBASE": base, "TOTFLOW_VALUE": total[0], "TOTFLOW_UNITS": total[1], "BASIS": basis}
    for cid, value in (amounts or {"WATER": 100.0}).items():
        flow[cid] = {
            "FLOW_VALUE": value,
            "FLOW_UNITS": "" if basis.endswith("FRAC") else units,
            "FLOW_BASIS": basis,
        }
    entry["flow"] = flow
    return entry


def single(
    block_type: str,
    data: Config,
    feed_entry: Config | None = None,
    components: list | None = None,
    method: str = "NRTL",
    ports: dict[str, str] | None = None,
) -> Config:
    """One block of ``block_type`` between FEED-1 and PROD-1 (or the given ports)."""
    connections = ports or {"FEED-1": "F(IN)", "PROD-1": "P(OUT)"}
    b1 = Block("B1", block_type, connections, data)
    feeds = {"FEED-1": feed_entry or stream()}
    return flowsheet_config(f"{block_type} case", components or [WATER], method, [b1], feeds)


def heater_spec(**spec: Any) -> Config:
    return single("Heater", {"SPEC_DATA": spec}, stream(T=(25.0, "C"), P=(2.0, "bar")), method="IDEAL")


MEOH_WATER = {"MEOH": 40.0, "WATER": 60.0}


def dupl(spec: Config) -> Config:
    return single(
        "Dupl",
        {"SPEC_DATA": spec},
        stream(amounts=MEOH_WATER),
        [METHANOL, WATER],
        ports={"FEED-1": "F(IN)", "OUT-1": "P(OUT)", "OUT-2": "P(OUT)"},
    )


def mcompr(spec: Config) -> Config:
    return single("MCompr", {"SPEC_DATA": spec}, stream(amounts={"N2": 100.0}), [NITROGEN], method="IDEAL")


def mcompr_knockout() -> Config:
    """Wet methane 1 -> 9 bar in two stages; stage 1's drum knocks out water by KO-1. Written as the
    service's extractor reads a real file: every product listed, the stage and the phase keyword in
    PROD_STREAM_VALUE, the parent node's value in PROD_STAGE_VALUE / PROD_PHASE_VALUE."""
    spec = {
        "NSTAGE": 2,
        "TYPE": "ISENTROPIC",
        "PRES_VALUE": 9.0,
        "PRES_UNITS": "bar",
        "TEMP": {k: {"TEMP_VALUE": 40.0, "TEMP_UNITS": "C"} for k in ("1", "2")},
        "PROD_STAGE": [
            {"PROD_STAGE": "KO-1", "PROD_STAGE_VALUE": 1, "PROD_STREAM_VALUE": 1},
            {"PROD_STAGE": "PROD-1", "PROD_STREAM_VALUE": 2},
        ],
        "PROD_PHASE": [
            {"PROD_PHASE": "KO-1", "PROD_PHASE_VALUE": "L", "PROD_STREAM_VALUE": "L"},
            {"PROD_PHASE": "PROD-1", "PROD_STREAM_VALUE": "V"},
        ],
    }
    return single(
        "MCompr",
        {"SPEC_DATA": spec},
        stream(T=(40.0, "C"), amounts={"CH4": 95.0, "WATER": 5.0}),
        [METHANE, WATER],
        method="IDEAL",
        ports={"FEED-1": "F(IN)", "PROD-1": "P(OUT)", "KO-1": "P(OUT)"},
    )


def sep2(spec: Config) -> Config:
    return single(
        "Sep2",
        {"SPEC_DATA": spec},
        stream(amounts=MEOH_WATER),
        [METHANOL, WATER],
        ports={"FEED-1": "F(IN)", "TOP-1": "P(OUT)", "BOT-1": "P(OUT)"},
    )


def flash(**spec: Any) -> Config:
    return single(
        "Flash2",
        {"SPEC_DATA": spec},
        stream(T=(60.0, "C"), P=(1.0, "atm"), amounts=MEOH_WATER),
        [METHANOL, WATER],
        ports={"FEED-1": "F(IN)", "VAP-1": "V(OUT)", "LIQ-1": "L(OUT)"},
    )


WATER_BENZENE = {"WATER": 50.0, "BENZENE": 50.0}
THREE_PHASE_PORTS = {"FEED-1": "F(IN)", "VAP-1": "V(OUT)", "ORG-1": "L1(OUT)", "AQ-1": "L2(OUT)"}


def flash3(method: str = "NRTL", **spec: Any) -> Config:
    return single(
        "Flash3",
        {"SPEC_DATA": spec},
        stream(T=(25.0, "C"), P=(1.0, "atm"), amounts=WATER_BENZENE),
        [WATER, BENZENE],
        method=method,
        ports=THREE_PHASE_PORTS,
    )


def decanter(**spec: Any) -> Config:
    data = {"PRES_VALUE": 1.01325, "PRES_UNITS": "bar", "L2_COMPS": ["WATER"], "L2_CUTOFF": 0.5, **spec}
    return single(
        "Decanter",
        {"SPEC_DATA": data},
        stream(T=(25.0, "C"), P=(1.0, "atm"), amounts=WATER_BENZENE),
        [WATER, BENZENE],
        ports={"FEED-1": "F(IN)", "ORG-1": "L1(OUT)", "AQ-1": "L2(OUT)"},
    )


def extract_column(**spec: Any) -> Config:
    """Water + methanol fed on the top stage, benzene solvent on the bottom stage (3 stages)."""
    config = single(
        "Extract",
        {"SPEC_DATA": {"NSTAGE": 3, **spec}},
        stream(T=(25.0, "C"), P=(1.0, "atm"), amounts={"WATER": 95.0, "MEOH": 5.0, "BENZENE": 0.0}),
        [WATER, METHANOL, BENZENE],
        ports={"FEED-1": "F(IN)", "SOLV-1": "S(IN)", "RAF-1": "L1(OUT)", "EXT-1": "L2(OUT)"},
    )
    config["stream_data"]["SOLV-1"] = stream(
        T=(25.0, "C"), P=(1.0, "atm"), amounts={"WATER": 0.0, "MEOH": 0.0, "BENZENE": 40.0}
    )
    return config


def mixer(spec: Config | None) -> Config:
    m1 = Block("M1", "Mixer", {"A-1": "F(IN)", "B-2": "F(IN)", "MIX-1": "P(OUT)"})
    feeds = {"A-1": stream(T=(20.0, "C"), P=(2.0, "bar")), "B-2": stream(T=(80.0, "C"), P=(1.5, "bar"))}
    config = flowsheet_config("mixer", [WATER], "IDEAL", [m1], feeds)
    if spec is not None:
        config["blocks_Mixer_data"] = {"M1": {"SPEC_DATA": spec}}
    return config


def fsplit(fracs: Config, outlets: tuple[str, ...] = ("P(OUT)", "P(OUT)")) -> Config:
    names = [f"OUT-{k + 1}" for k in range(len(outlets))]
    return single(
        "FSplit",
        {"SPEC_DATA": {"FRAC": fracs}},
        ports={"FEED-1": "F(IN)", **dict(zip(names, outlets, strict=True))},
    )


def pump(**spec: Any) -> Config:
    return single("Pump", {"SPEC_DATA": {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", **spec}}, method="IDEAL")


def valve(**job: Any) -> Config:
    hot = stream(T=(95.0, "C"), P=(5.0, "bar"), amounts={"MEOH": 30.0, "WATER": 70.0})
    return single("Valve", {"JOB_DATA": {**VALVE_DEFAULTS, **job}}, hot, [METHANOL, WATER])


def compr(model: str, P: tuple[float, str], inlet_P: tuple[float, str]) -> Config:
    spec = {
        "MODEL_TYPE": model,
        "TYPE": "ISENTROPIC",
        "OPT_SPEC": "PRES",
        "PRES_VALUE": P[0],
        "PRES_UNITS": P[1],
    }
    return single(
        "Compr", {"SPEC_DATA": spec}, stream(P=inlet_P, amounts={"CH4": 100.0}), [METHANE], "PENG-ROB"
    )


def heatx(**spec: Any) -> Config:
    config = heat_exchanger()
    config["blocks_HeatX_data"]["E1"]["SPEC_DATA"] = spec
    return config


def rstoic(spec: Config, reactions: list[Config], series: str = "") -> Config:
    config = combustion()
    config["blocks_RStoic_data"]["R1"] = {
        "SPEC_DATA": spec,
        "REAC_DATA": {"SERIES": series, "REAC": reactions},
    }
    return config


def reaction(
    ssid: str, key: str, coef: Config, coef1: Config, conv: float = 0.0, extent: float | None = None
) -> Config:
    return {
        "KEY_SSID": ssid,
        "CONV": conv,
        "KEY_CID": key,
        "OPT_EXT_CONV": "CONVERSION" if extent is None else "EXTENT",
        "EXTENT": extent,
        "COEF_DATA": coef,
        "COEF1_DATA": coef1,
    }


BURN_CH4 = ({"CH4": -1, "O2": -2}, {"CO2": 1, "WATER": 2})


def dstwu(**spec: Any) -> Config:
    config = shortcut_column()
    config["blocks_DSTWU_data"]["C1"]["SPEC_DATA"].update(spec)
    return config


def radfrac(op: list[Config], condenser: str = "TOTAL", **changes: Any) -> Config:
    config = column(stages=12, feed_stage=6, condenser=condenser)
    data = config["blocks_RadFrac_data"]["C1"]
    data["CONFIG_DATA"]["OP_SPEC"] = op
    for key, value in changes.items():
        data[key] = value
    return config


RR = {"BASIS_RR_VALUE": 1.5, "BASIS_RR_BASIS": "MOLE"}
DF = {"DF_VALUE": 0.45, "DF_BASIS": "MOLE"}


def top_bottom(**item: Any) -> Config:
    base = {
        "PRES1_VALUE": 1.01325,
        "PRES1_UNITS": "bar",
        "OPT_PRES_TOP": "DP-COND",
        "DP_COND_VALUE": 0.0,
        "DP_COND_UNITS": "bar",
        "OPT_PRES": "DP-STAGE",
        "DP_STAGE_VALUE": 0.0,
        "DP_STAGE_UNITS": "bar",
    }
    base.update(item)
    return {"VIEW_PRES": "TOP/BOTTOM", "STAGE_PRES": [{k: v for k, v in base.items() if v is not ...}]}


def without(config: Config, *paths: str) -> Config:
    for path in paths:
        *parents, last = path.split("/")
        node = config
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[last]
    return config


# ---- the valid corpus -----------------------------------------------------------------------------

VALID: dict[str, Callable[[], Config]] = {
    # streams: MIXED_SPEC, flow and composition bases, units
    "feed TP mole flows C bar": lambda: heater_spec(**tp(60.0)),
    "feed TP K kPa mass flows kg/hr": lambda: single(
        "Heater",
        {"SPEC_DATA": tp(60.0)},
        stream(
            T=(300.0, "K"),
            P=(150.0, "kPa"),
            base="MASS",
            total=(1801.5, "kg/hr"),
            basis="MASS-FLOW",
            amounts={"WATER": 1801.5},
            units="kg/hr",
        ),
    ),
    "feed TP mole fractions MPa": lambda: single(
        "Heater",
        {"SPEC_DATA": tp(50.0)},
        stream(
            P=(0.2, "MPa"), total=(100.0, "kmol/hr"), basis="MOLE-FRAC", amounts={"MEOH": 0.3, "WATER": 0.7}
        ),
        [METHANOL, WATER],
    ),
    "feed TP mass fractions kg/sec atm": lambda: single(
        "Heater",
        {"SPEC_DATA": tp(50.0)},
        stream(
            P=(1.0, "atm"),
            base="MASS",
            total=(0.5, "kg/sec"),
            basis="MASS-FRAC",
            amounts={"MEOH": 0.5, "WATER": 0.5},
        ),
        [METHANOL, WATER],
    ),
    "feed TP N/sqm": lambda: single("Heater", {"SPEC_DATA": tp(40.0)}, stream(P=(2e5, "N/sqm"))),
    "feed TV saturated liquid": lambda: single(
        "Heater",
        {"SPEC_DATA": tp(20.0)},
        stream("TV", T=(90.0, "C"), P=None, vfrac=0.0, amounts=MEOH_WATER),
        [METHANOL, WATER],
    ),
    "feed PV half vapour": lambda: single(
        "Heater",
        {"SPEC_DATA": tp(20.0)},
        stream("PV", T=None, P=(1.0, "atm"), vfrac=0.5, amounts=MEOH_WATER),
        [METHANOL, WATER],
    ),
    # Mixer
    "mixer at lowest inlet pressure": lambda: mixer(MIXER_DEFAULTS),
    "mixer pressure drop": lambda: mixer({**MIXER_DEFAULTS, "PRES_VALUE": -10.0, "PRES_UNITS": "kPa"}),
    "mixer absolute pressure": lambda: mixer({**MIXER_DEFAULTS, "PRES_VALUE": 1.2, "PRES_UNITS": "bar"}),
    "mixer without an entry": lambda: mixer(None),
    # FSplit
    "fsplit one outlet takes the rest": lambda: fsplit({"OUT-1": {"FRAC_VALUE": 0.25}}),
    "fsplit three outlets": lambda: fsplit(
        {"OUT-1": {"FRAC_VALUE": 0.2}, "OUT-2": {"FRAC_VALUE": 0.3}, "OUT-3": {"FRAC_VALUE": 0.5}},
        ("P(OUT)", "P(OUT)", "P(OUT)"),
    ),
    # Heater, every SPEC_OPT the mock offers
    "heater TP K kPa": lambda: heater_spec(
        SPEC_OPT="TP", TEMP_VALUE=350.0, TEMP_UNITS="K", PRES_VALUE=180.0, PRES_UNITS="kPa"
    ),
    "heater PD kW": lambda: heater_spec(
        SPEC_OPT="PD", PRES_VALUE=0.0, PRES_UNITS="bar", DUTY_VALUE=500.0, DUTY_UNITS="kW"
    ),
    "heater PD Gcal/hr": lambda: heater_spec(
        SPEC_OPT="PD", PRES_VALUE=1.5, PRES_UNITS="bar", DUTY_VALUE=0.5, DUTY_UNITS="Gcal/hr"
    ),
    "heater PD cal/sec adiabatic": lambda: heater_spec(
        SPEC_OPT="PD", PRES_VALUE=-0.5, PRES_UNITS="bar", DUTY_VALUE=0.0, DUTY_UNITS="cal/sec"
    ),
    "heater TV": lambda: heater_spec(SPEC_OPT="TV", TEMP_VALUE=120.0, TEMP_UNITS="C", VFRAC_VALUE=0.3),
    "heater PV dew point": lambda: heater_spec(
        SPEC_OPT="PV", PRES_VALUE=2.0, PRES_UNITS="bar", VFRAC_VALUE=1.0
    ),
    "heater PDT": lambda: heater_spec(
        SPEC_OPT="PDT", PRES_VALUE=0.0, PRES_UNITS="bar", DELT_VALUE=30.0, DELT_UNITS="K"
    ),
    "heater DTV": lambda: heater_spec(SPEC_OPT="DTV", DELT_VALUE=5.0, DELT_UNITS="C", VFRAC_VALUE=0.0),
    "heater PDEGSUB": lambda: heater_spec(
        SPEC_OPT="PDEGSUB", PRES_VALUE=2.0, PRES_UNITS="bar", DEGSUB_VALUE=10.0, DEGSUB_UNITS="K"
    ),
    "heater PDEGSUP": lambda: heater_spec(
        SPEC_OPT="PDEGSUP", PRES_VALUE=1.0, PRES_UNITS="atm", DEGSUP_VALUE=15.0, DEGSUP_UNITS="C"
    ),
    # Pump
    "pump to 10 bar": lambda: pump(PRES_VALUE=10.0, PRES_UNITS="bar"),
    "pump to 2 MPa": lambda: pump(PRES_VALUE=2.0, PRES_UNITS="MPa"),
    "hydraulic turbine": lambda: single(
        "Pump",
        {"SPEC_DATA": {"PUMP_TYPE": "TURBINE", "OPT_SPEC": "PRES", "PRES_VALUE": 1.0, "PRES_UNITS": "bar"}},
        stream(P=(20.0, "bar")),
        method="IDEAL",
    ),
    # Valve
    "valve to 1 atm": lambda: valve(P_OUT_VALUE=1.0, P_OUT_UNITS="atm"),
    "valve to 250 kPa": lambda: valve(P_OUT_VALUE=250.0, P_OUT_UNITS="kPa"),
    # Compr
    "compressor": lambda: compr("COMPRESSOR", (5.0, "bar"), (1.0, "bar")),
    "gas turbine": lambda: compr("TURBINE", (1.0, "bar"), (10.0, "bar")),
    # Flash2
    "flash TP": lambda: flash(**tp(80.0, 1.0, "atm")),
    "flash PV": lambda: flash(SPEC_OPT="PV", PRES_VALUE=1.0, PRES_UNITS="atm", VFRAC_VALUE=0.4),
    "flash TV": lambda: flash(SPEC_OPT="TV", TEMP_VALUE=85.0, TEMP_UNITS="C", VFRAC_VALUE=0.2),
    "flash PD": lambda: flash(
        SPEC_OPT="PD", PRES_VALUE=1.0, PRES_UNITS="atm", DUTY_VALUE=800.0, DUTY_UNITS="kW"
    ),
    "flash adiabatic": lambda: flash(**ADIABATIC),
    # Sep
    "sep fractions": sep,
    "sep fractions and flows": lambda: single(
        "Sep",
        {
            "SPEC_DATA": {
                "TOP-1": [
                    {"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FRACS": 0.9},
                    {"COMP_ID": "WATER", "FLOWBASIS": "MOLE", "FLOWS": 5.0},
                ]
            }
        },
        stream(amounts=MEOH_WATER),
        [METHANOL, WATER],
        ports={"FEED-1": "F(IN)", "TOP-1": "P(OUT)", "BOT-1": "P(OUT)"},
    ),
    # HeatX
    "heatx T-COLD": heat_exchanger,
    "heatx T-HOT C": lambda: heatx(SPEC="T-HOT", VALUE_VALUE=56.85, VALUE_UNITS="C"),
    "heatx DUTY": lambda: heatx(
        SPEC="DUTY", VALUE_VALUE=60.0, VALUE_UNITS="kW", MIN_TAPP_VALUE=5.0, MIN_TAPP_UNITS="K"
    ),
    "heatx DELT-HOT cocurrent": lambda: heatx(SPEC="DELT-HOT", VALUE_VALUE=10.0, TYPE="COCURRENT"),
    "heatx DELT-COLD pressures U": lambda: heatx(
        SPEC="DELT-COLD",
        VALUE_VALUE=20.0,
        VALUE_UNITS="C",
        PRES_HOT_VALUE=-0.2,
        PRES_HOT_UNITS="bar",
        PRES_COLD_VALUE=1.8,
        PRES_COLD_UNITS="bar",
        U_VALUE=730.0,
        U_UNITS="kcal/hr-sqm-K",
        MODE="DESIGN",
        PROGRAM_MODE="SHORTCUT",
        HSHELL_TUBE="SHELL",
    ),
    # RStoic
    "rstoic TP conversion": lambda: combustion(False),
    "rstoic DP adiabatic": lambda: combustion(True),
    "rstoic TV extent": lambda: rstoic(
        {"SPEC_OPT": "TV", "TEMP_VALUE": 120.0, "TEMP_UNITS": "C", "VFRAC_VALUE": 1.0},
        [reaction("1", "CH4", *BURN_CH4, extent=0.6)],
    ),
    "rstoic PV two reactions in series": lambda: rstoic(
        {"SPEC_OPT": "PV", "PRES_VALUE": 1.0, "PRES_UNITS": "bar", "VFRAC_VALUE": 1.0},
        [reaction("2", "CH4", *BURN_CH4, conv=0.5), reaction("1", "CH4", *BURN_CH4, conv=0.5)],
        series="YES",
    ),
    # DSTWU
    "dstwu RR multiple of Rmin": shortcut_column,
    "dstwu RR value": lambda: dstwu(RR=3.0),
    "dstwu NSTAGE partial condenser kPa": lambda: dstwu(
        OPT_NTRR="NSTAGE",
        NSTAGE=25,
        OPT_RDV="VAPOR",
        PTOP=101.325,
        PTOP_UNITS="kPa",
        PBOT=1.2,
        PBOT_UNITS="atm",
    ),
    # RadFrac
    "radfrac RR D:F": lambda: radfrac([RR, DF]),
    "radfrac RR B:F": lambda: radfrac([RR, {"BF_VALUE": 0.55, "BF_BASIS": "MOLE"}]),
    "radfrac D then RR": lambda: radfrac(
        [
            {"BASIS_D_VALUE": 45.0, "BASIS_D_UNITS": "kmol/hr", "BASIS_D_BASIS": "MOLE", "specType": "D"},
            {**RR, "specType": "RR"},
        ]
    ),
    "radfrac RR B partial condenser": lambda: radfrac(
        [RR, {"BASIS_B_VALUE": 55.0, "BASIS_B_UNITS": "kmol/hr", "BASIS_B_BASIS": "MOLE"}],
        condenser="PARTIAL-V",
    ),
    "radfrac on-stage feed DP-COL STAGE-2": lambda: radfrac(
        [RR, DF],
        FEED_STAGE_DATA=[{"FEED_STAGE": "FEED-1", "FEED_STAGE_VALUE": 6, "FEED_CONVEN": "ON-STAGE"}],
        PRES_DATA=top_bottom(
            OPT_PRES_TOP="STAGE-2",
            DP_COND_VALUE=...,
            DP_COND_UNITS=...,
            PRES2_VALUE=1.05,
            PRES2_UNITS="bar",
            OPT_PRES="DP-COL",
            DP_STAGE_VALUE=...,
            DP_STAGE_UNITS=...,
            DP_COL_VALUE=0.1,
            DP_COL_UNITS="bar",
        ),
    ),
    "radfrac pressure profile": lambda: radfrac(
        [RR, DF],
        PRES_DATA={
            "VIEW_PRES": "PROFILE",
            "STAGE_PRES": [
                {"PRES_STAGE": "1", "PRES_VALUE": 1.0, "PRES_UNITS": "atm"},
                {"PRES_STAGE": "12", "PRES_VALUE": 115.0, "PRES_UNITS": "kPa"},
            ],
        },
    ),
    # RPlug and RCSTR with reaction sets, design specs
    "rplug T-SPEC vapour kinetic": lambda: reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=0.05), feed(100, 1, {"NC4": 100})
    ),
    "rplug adiabatic multitube catalyst bed Arrhenius": lambda: _rplug_bed(),
    "rplug reversible shift kPa": lambda: reactor_config(
        "RPlug",
        _kpa(rplug_data(20.0, 0.5, T_C=626.85, phase=None)),
        powerlaw(
            reactype="REVERSIBLE", k=50.0, reactants={"CO": -1, "H2O": -1}, products={"CO2": 1, "H2": 1}
        ),
        feed(626.85, 10, {"CO": 50, "H2O": 50}),
        components=WGS_COMPONENTS,
    ),
    "rcstr TEMP liquid kinetic litres": lambda: reactor_config(
        "RCSTR",
        _litres(rcstr_data(0.5, T_C=25.0, P_bar=20.0, phase="L")),
        powerlaw(k=1e-3, phase="L"),
        feed(25, 20, {"NC4": 10}),
    ),
    "rcstr DUTY adiabatic": lambda: reactor_config(
        "RCSTR", rcstr_data(2.0, duty_kW=0.0), powerlaw(k=0.05), feed(100, 1, {"NC4": 100})
    ),
    "rcstr two-phase equilibrium": lambda: reactor_config(
        "RCSTR",
        rcstr_data(1.0, T_C=626.85, P_bar=10.0, nphase="2"),
        powerlaw(reactype="EQUILIBRIUM", reactants={"CO": -1, "H2O": -1}, products={"CO2": 1, "H2": 1}),
        feed(626.85, 10, {"CO": 50, "H2O": 50}),
        components=WGS_COMPONENTS,
    ),
    "design spec on a reactor volume": lambda: _design_spec(),
    "kinetic reactor with recycle": reactor_recycle,
    # three-phase blocks
    "flash3 TP two liquids": lambda: flash3(**tp(25.0, 1.0, "atm")),
    "flash3 TP UNIFAC, water the 2nd liquid's key": lambda: flash3(
        "UNIFAC", **tp(30.0, 1.0, "atm"), L2_COMP="WATER"
    ),
    "flash3 PV bubble point": lambda: flash3(
        SPEC_OPT="PV", PRES_VALUE=1.0, PRES_UNITS="atm", VFRAC_VALUE=0.0
    ),
    "flash3 PV three phases": lambda: flash3(
        SPEC_OPT="PV", PRES_VALUE=1.0, PRES_UNITS="atm", VFRAC_VALUE=0.3
    ),
    "flash3 PD heated": lambda: flash3(
        SPEC_OPT="PD", PRES_VALUE=0.0, PRES_UNITS="bar", DUTY_VALUE=600.0, DUTY_UNITS="kW"
    ),
    "flash3 TV": lambda: flash3(SPEC_OPT="TV", TEMP_VALUE=60.0, TEMP_UNITS="C", VFRAC_VALUE=0.2),
    "decanter at a temperature": lambda: decanter(TEMP_VALUE=40.0, TEMP_UNITS="C"),
    "decanter with a duty": lambda: decanter(DUTY_VALUE=-50.0, DUTY_UNITS="kW", PRES_VALUE=0.0),
    # Dupl
    "dupl two copies": lambda: dupl({}),
    # Sep2
    "sep2 fractions to both outlets": lambda: sep2(
        {
            "TOP-1": [{"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FRACS": 0.95}],
            "BOT-1": [{"COMP_ID": "WATER", "FLOWBASIS": "MASS", "FRACS": 0.9}],
        }
    ),
    # MCompr
    "mcompr final discharge, intercooled": multistage_compressor,
    "mcompr per-stage ratio and pressure": lambda: mcompr(
        {
            "NSTAGE": 2,
            "TYPE": "ISENTROPIC",
            "PRATIO": {"1": 2.5},
            "C_S_PRES": {"2": {"C_S_PRES_VALUE": 600.0, "C_S_PRES_UNITS": "kPa"}},
            "SEFF": {"1": 0.78, "2": 0.75},
            "MEFF": {"1": 0.98},
            "TEMP": {"1": {"TEMP_VALUE": 313.15, "TEMP_UNITS": "K"}},
        }
    ),
    "mcompr liquid knock-out from stage 1": mcompr_knockout,
    # Distl
    "distl total condenser": rating_column,
    "distl partial condenser": lambda: _set(
        rating_column, "blocks_Distl_data/C1/SPEC_DATA/COND_TYPE", "PARTIAL"
    )(),
    "extraction column with a temperature profile and key components": lambda: extract_column(
        OPT_THERMAL="TEMP",
        TSPEC_TEMP={"1": {"TSPEC_TEMP_VALUE": 25.0, "TSPEC_TEMP_UNITS": "C"}},
        STAGE_PRES={"1": {"STAGE_PRES_VALUE": 1.0, "STAGE_PRES_UNITS": "atm"}},
        COMP1_LIST={"#1": "WATER"},
    ),
    "extraction column adiabatic (default)": lambda: extract_column(),
    # flowsheets
    "recycle with a convergence section": recycle,
    "recycle with Aspen's default convergence": lambda: without(recycle(), "convergence"),
    **{f"example {name}": build for name, build in EXAMPLES.items()},
}


def _kpa(data: Config) -> Config:
    data["PRES_DATA"].update({"PRES_VALUE": 1000.0, "PRES_UNITS": "kPa"})
    return data


def _litres(data: Config) -> Config:
    data["SPEC_DATA"].update({"VOL_VALUE": 500.0, "VOL_UNITS": "l"})
    return data


def _rplug_bed() -> Config:
    data = rplug_data(5.0, 0.1, P_bar=0.0)
    data["CONFIG_DATA"].update({"CHK_NTUBE": "YES", "NTUBE": 100})
    data["CAT_DATA"].update({"CAT_PRESENT": "YES", "IGN_CAT_VOL": "NO", "BED_VOIDAGE": 0.4})
    data["PRES_DATA"].update({"PDROP_VALUE": 10.0, "PDROP_UNITS": "kPa"})
    return reactor_config("RPlug", data, powerlaw(k=5e5, E_cal_mol=10000.0), feed(100, 1, {"NC4": 100}))


def _design_spec() -> Config:
    config = reactor_config("RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=0.05), feed(100, 1, {"NC4": 100}))
    config["design_specs"] = {
        "DS-1": {
            "sampled_variables": [
                {"variable_name": "FA", "variable_type": "MOLE-FLOW", "stream": "PRO-1", "component": "NC4"}
            ],
            "objective_function": {"EXPR1": "1 - FA/100", "EXPR2": "0.3", "TOL": 1e-4},
            "manipulated_variables": [{"variable_type": "BLOCK-VAR", "block": "R1", "variable_name": "VOL"}],
            "bounds": {"LOWER": 0.1, "UPPER": 100.0},
        }
    }
    return config


def _fresh(build: Callable[[], Config]) -> Callable[[], Config]:
    """Builders share module constants (MIXER_DEFAULTS, RR, ...): hand out deep copies."""
    return lambda: copy.deepcopy(build())


VALID = {name: _fresh(build) for name, build in VALID.items()}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_config_is_accepted_and_runs(name: str) -> None:
    config = VALID[name]()
    validate_config(config)
    results = run_config(copy.deepcopy(config))
    if "default convergence" in name:  # Aspen's tear tolerance 1e-4 bounds the recycle's closure
        assert results["balances"]["mass_relative_error"] < 1e-4
        assert results["convergence"]["converged"] is True
    else:
        assert_closed(results)


def test_corpus_covers_every_block_type_and_option() -> None:
    configs = [build() for build in VALID.values()]
    assert len(configs) >= 40
    types = {block["type"] for config in configs for block in config["blocks"]}
    assert types == set(BLOCK_TYPES)  # a new block type needs its corpus configs
    flash3_options = {
        c["blocks_Flash3_data"][b]["SPEC_DATA"]["SPEC_OPT"]
        for c in configs
        for b in c.get("blocks_Flash3_data", {})
    }
    assert flash3_options == {"TP", "PD", "TV", "PV"}
    heater_options = {
        c["blocks_Heater_data"][b]["SPEC_DATA"]["SPEC_OPT"]
        for c in configs
        for b in c.get("blocks_Heater_data", {})
    }
    assert heater_options == {"TP", "PD", "TV", "PV", "PDT", "DTV", "PDEGSUB", "PDEGSUP"}
    feeds = [s for c in configs for s in c["stream_data"].values()]
    assert {s["MIXED_SPEC"] for s in feeds} == {"TP", "TV", "PV"}
    assert {s["flow"]["BASIS"] for s in feeds} == {"MOLE-FLOW", "MASS-FLOW", "MOLE-FRAC", "MASS-FRAC"}


# ---- quirks of the real schema, decided as in docs/dialect_decisions.md ---------------------------


def test_heatx_takes_aspen_ports_missing_from_the_real_enum() -> None:
    results = run_config(heat_exchanger())
    assert results["blocks"]["E1"]["cold_outlet_temperature_C"] == pytest.approx(60.0)


def test_radfrac_section_level_required_applies_per_block() -> None:
    """The real part lists the per-block keys as required on the section too (unsatisfiable); the mock
    requires them on each block, where the service reads them."""
    for key in ("FEED_STAGE_DATA", "PROD_STAGE_DATA", "PRES_DATA", "CONDENSER_DATA"):
        config = without(column(), f"blocks_RadFrac_data/C1/{key}")
        with pytest.raises(SimulationError) as info:
            validate_config(config)
        assert "blocks_RadFrac_data.C1" in info.value.message and key in info.value.message


def test_stream_data_is_checked_with_the_flow_per_component() -> None:
    config = heater()
    del config["stream_data"]["FEED-1"]["flow"]["WATER"]["FLOW_BASIS"]
    with pytest.raises(SimulationError) as info:
        validate_config(config)
    assert "stream_data.FEED-1.flow.WATER" in info.value.message and "FLOW_BASIS" in info.value.message


def test_pump_and_compressor_use_aspen_default_efficiencies() -> None:
    from simulator_mock.flowsheet.blocks.pressure_changers import pump_efficiency

    results = run_config(VALID["pump to 10 bar"]())
    block = results["blocks"]["B1"]
    assert block["efficiency"] == pytest.approx(pump_efficiency(block["volumetric_flow_m3_hr"]), rel=1e-12)
    assert 0.4 < block["efficiency"] < 0.9
    assert block["brake_power_kW"] == pytest.approx(block["fluid_power_kW"] / block["efficiency"], rel=1e-9)
    assert run_config(VALID["compressor"]())["blocks"]["B1"]["efficiency"] == 0.72


def test_pump_efficiency_curve_shape() -> None:
    from simulator_mock.flowsheet.blocks.pressure_changers import pump_efficiency

    small, large = pump_efficiency(1.0), pump_efficiency(1000.0)
    assert small == pytest.approx(pump_efficiency(5.0))  # below 50 gpm: clamped
    assert small < pump_efficiency(100.0) < large < 0.9


def test_mixer_convergence_fields_change_nothing() -> None:
    """MAXIT_VALUE / TOL_VALUE are never written into Aspen by the real service."""
    a = run_config(mixer(MIXER_DEFAULTS))["streams"]["MIX-1"]
    b = run_config(mixer({**MIXER_DEFAULTS, "MAXIT_VALUE": 2, "TOL_VALUE": 0.1}))["streams"]["MIX-1"]
    assert a["temperature_C"] == b["temperature_C"]


def test_flow_basis_total_is_ignored_with_a_warning() -> None:
    config = heater()
    config["stream_data"]["FEED-1"]["flow"]["TOTFLOW_VALUE"] = 42.0
    results = run_config(config)
    assert results["streams"]["PROD-1"]["molar_flow_kmol_hr"] == pytest.approx(100.0)
    assert any("TOTFLOW_VALUE" in w and "ignored" in w for w in results["warnings"])


# ---- the invalid corpus ---------------------------------------------------------------------------


def _old_dialect_streams() -> Config:
    config = heater()
    config["streams"] = [{"name": s} for s in config["streams"]]
    return config


def _old_dialect_flow() -> Config:
    config = heater()
    config["stream_data"]["FEED-1"]["flow"] = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": 100,
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FLOW",
        "FLOW_VALUE": {"WATER": 100.0},
    }
    return config


def _rplug() -> Config:
    return reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=0.05), feed(100, 1, {"NC4": 100})
    )


def _rcstr() -> Config:
    return reactor_config("RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=0.05), feed(100, 1, {"NC4": 100}))


def _set(base: Callable[[], Config], path: str, value: Any) -> Callable[[], Config]:
    def build() -> Config:
        config = base()
        *parents, last = path.split("/")
        node = config
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value
        return config

    return build


def _drop(base: Callable[[], Config], path: str) -> Callable[[], Config]:
    return lambda: without(base(), path)


H = "blocks_Heater_data/H1/SPEC_DATA"
R = "blocks_RadFrac_data/C1"

#: name -> (config builder, error_type, words the message must contain)
INVALID: dict[str, tuple[Callable[[], Config], str, list[str]]] = {
    "old dialect: stream objects": (
        _old_dialect_streams,
        "SchemaValidationError",
        ["streams[", "is not of type 'string'"],
    ),
    "old dialect: FLOW_VALUE dict": (
        _old_dialect_flow,
        "SchemaValidationError",
        ["stream_data.FEED-1.flow.FLOW_VALUE"],
    ),
    "old dialect: component without database_name": (
        _drop(heater, "components/0/database_name"),
        "SchemaValidationError",
        ["components[0]", "database_name"],
    ),
    "old dialect: Heater SPEC_OPT PQ": (
        _set(heater, f"{H}/SPEC_OPT", "PQ"),
        "SchemaValidationError",
        [f"{H.replace('/', '.')}.SPEC_OPT", "PQ"],
    ),
    "old dialect: Mixer without MAXIT_VALUE": (
        _drop(VALID["mixer at lowest inlet pressure"], "blocks_Mixer_data/M1/SPEC_DATA/MAXIT_VALUE"),
        "SchemaValidationError",
        ["blocks_Mixer_data.M1.SPEC_DATA", "MAXIT_VALUE"],
    ),
    "old dialect: Valve without FLASH_TOL": (
        _drop(VALID["valve to 1 atm"], "blocks_Valve_data/B1/JOB_DATA/FLASH_TOL"),
        "SchemaValidationError",
        ["blocks_Valve_data.B1.JOB_DATA", "FLASH_TOL"],
    ),
    "old dialect: FSplit FRAC number": (
        _set(recycle, "blocks_FSplit_data/S1/SPEC_DATA/FRAC/RCY-1", 0.7),
        "SchemaValidationError",
        ["blocks_FSplit_data.S1.SPEC_DATA.FRAC.RCY-1"],
    ),
    "old dialect: RStoic OPT_EXT_CONV CONV": (
        _set(combustion, "blocks_RStoic_data/R1/REAC_DATA/REAC/0/OPT_EXT_CONV", "CONV"),
        "SchemaValidationError",
        ["blocks_RStoic_data.R1.REAC_DATA.REAC[0].OPT_EXT_CONV"],
    ),
    "old dialect: RadFrac OP_SPEC object": (
        _set(column, f"{R}/CONFIG_DATA/OP_SPEC", {**RR, **DF}),
        "SchemaValidationError",
        ["blocks_RadFrac_data.C1.CONFIG_DATA.OP_SPEC"],
    ),
    "old dialect: HeatX HI(IN) port": (
        _set(heat_exchanger, "block_connections/E1/HOT-1", "HI(IN)"),
        "SchemaValidationError",
        ["block_connections.E1.HOT-1", "HI(IN)"],
    ),
    "stream name pattern": (
        _set(heater, "streams/0", "FEED"),
        "SchemaValidationError",
        ["streams[0]", "FEED"],
    ),
    "stream name longer than Aspen allows": (
        _set(heater, "streams/0", "FEEDS-123"),
        "SchemaValidationError",
        ["streams[0]"],
    ),
    "block name pattern": (_set(heater, "blocks/0/name", "h1"), "SchemaValidationError", ["blocks[0].name"]),
    "unknown component": (
        _set(
            heater,
            "components/0",
            {"cid": "X", "name": "Ux", "cas_number": "0000-00-0", "database_name": "UNOBTAINIUM"},
        ),
        "UnknownComponent",
        ["components[X]", "UNOBTAINIUM"],
    ),
    "flow of an unknown component": (
        _set(
            heater,
            "stream_data/FEED-1/flow/ETOH",
            {"FLOW_VALUE": 1, "FLOW_UNITS": "kmol/hr", "FLOW_BASIS": "MOLE-FLOW"},
        ),
        "UnknownComponent",
        ["stream_data.FEED-1.flow.ETOH"],
    ),
    "port outside the enum": (
        _set(heater, "block_connections/H1/PROD-1", "X(OUT)"),
        "SchemaValidationError",
        ["block_connections.H1.PROD-1"],
    ),
    "splitter outlet on O(OUT)": (
        _set(recycle, "block_connections/S1/PURGE-1", "O(OUT)"),
        "UnknownPort",
        ["block_connections.S1.PURGE-1", "O(OUT)"],
    ),
    "port of another block type": (
        _set(heater, "block_connections/H1/PROD-1", "L(OUT)"),
        "UnknownPort",
        ["block_connections.H1.PROD-1", "L(OUT)"],
    ),
    "distillate port against the condenser": (
        _set(column, "block_connections/C1/DIST-1", "VD(OUT)"),
        "UnknownPort",
        ["CONDENSER", "LD(OUT)"],
    ),
    "missing stream MIXED_SPEC": (
        _drop(heater, "stream_data/FEED-1/MIXED_SPEC"),
        "SchemaValidationError",
        ["stream_data.FEED-1", "MIXED_SPEC"],
    ),
    "value without its unit": (
        _drop(heater, "stream_data/FEED-1/temperature/TEMP_UNITS"),
        "SchemaValidationError",
        ["stream_data.FEED-1.temperature", "TEMP_UNITS"],
    ),
    "missing TP field": (_drop(heater, f"{H}/TEMP_UNITS"), "SchemaValidationError", ["TEMP_UNITS"]),
    "unit the service cannot write": (
        _set(heater, f"{H}/TEMP_UNITS", "F"),
        "UnknownUnit",
        [f"{H.replace('/', '.')}.TEMP_UNITS", "'F'"],
    ),
    "flow unit against FLOWBASE": (
        _set(heater, "stream_data/FEED-1/flow/TOTFLOW_UNITS", "kg/hr"),
        "InvalidSpecification",
        ["stream_data.FEED-1.flow.TOTFLOW_UNITS"],
    ),
    "FLOW_BASIS against BASIS": (
        _set(heater, "stream_data/FEED-1/flow/WATER/FLOW_BASIS", "MASS-FLOW"),
        "InvalidSpecification",
        ["stream_data.FEED-1.flow.WATER.FLOW_BASIS"],
    ),
    "unsupported FLOWBASE VOLUME": (
        _set(heater, "stream_data/FEED-1/flow/FLOWBASE", "VOLUME"),
        "UnsupportedOption",
        ["stream_data.FEED-1.flow.FLOWBASE", "VOLUME"],
    ),
    "unsupported BASIS MOLE-CONC": (
        _set(heater, "stream_data/FEED-1/flow/BASIS", "MOLE-CONC"),
        "UnsupportedOption",
        ["stream_data.FEED-1.flow.BASIS", "MOLE-CONC"],
    ),
    "unsupported Heater DDPPARM": (
        _set(
            heater,
            H,
            {
                "SPEC_OPT": "DDPPARM",
                "DUTY_VALUE": 1,
                "DUTY_UNITS": "kW",
                "PRES_VALUE": 1,
                "PRES_UNITS": "bar",
            },
        ),
        "UnsupportedOption",
        [f"{H.replace('/', '.')}.SPEC_OPT", "DDPPARM"],
    ),
    "unsupported Heater TD": (
        _set(
            heater,
            H,
            {"SPEC_OPT": "TD", "TEMP_VALUE": 50, "TEMP_UNITS": "C", "DUTY_VALUE": 1, "DUTY_UNITS": "kW"},
        ),
        "UnsupportedOption",
        ["SPEC_OPT", "TD"],
    ),
    "unsupported Flash2 TD": (
        lambda: flash(SPEC_OPT="TD", TEMP_VALUE=80, TEMP_UNITS="C", DUTY_VALUE=1, DUTY_UNITS="kW"),
        "UnsupportedOption",
        ["blocks_Flash2_data.B1.SPEC_DATA.SPEC_OPT", "TD"],
    ),
    "unsupported RStoic DTV": (
        _set(
            combustion,
            "blocks_RStoic_data/R1/SPEC_DATA",
            {"SPEC_OPT": "DTV", "DUTY_VALUE": 0, "DUTY_UNITS": "kW", "VFRAC_VALUE": 1.0},
        ),
        "UnsupportedOption",
        ["blocks_RStoic_data.R1.SPEC_DATA.SPEC_OPT", "DTV"],
    ),
    "unsupported Pump OPT_SPEC DELP": (
        _set(VALID["pump to 10 bar"], "blocks_Pump_data/B1/SPEC_DATA/OPT_SPEC", "DELP"),
        "UnsupportedOption",
        ["blocks_Pump_data.B1.SPEC_DATA.OPT_SPEC", "DELP"],
    ),
    "unsupported Compr TYPE": (
        _set(VALID["compressor"], "blocks_Compr_data/B1/SPEC_DATA/TYPE", "ASME-POLYTROP"),
        "UnsupportedOption",
        ["blocks_Compr_data.B1.SPEC_DATA.TYPE", "ASME-POLYTROP"],
    ),
    "unsupported Valve MODE": (
        _set(VALID["valve to 1 atm"], "blocks_Valve_data/B1/JOB_DATA/MODE", "DES-FLOW"),
        "UnsupportedOption",
        ["blocks_Valve_data.B1.JOB_DATA.MODE", "DES-FLOW"],
    ),
    "unsupported FSplit BASIS_FLOW": (
        _set(recycle, "blocks_FSplit_data/S1/SPEC_DATA/BASIS_FLOW", {"RCY-1": {"BASIS_FLOW_VALUE": 5}}),
        "UnsupportedOption",
        ["blocks_FSplit_data.S1.SPEC_DATA.BASIS_FLOW"],
    ),
    "unsupported HeatX SPEC AREA": (
        lambda: heatx(SPEC="AREA", VALUE_VALUE=10.0),
        "UnsupportedOption",
        ["blocks_HeatX_data.E1.SPEC_DATA.SPEC", "AREA"],
    ),
    "unsupported HeatX MODE": (
        lambda: heatx(SPEC="T-COLD", VALUE_VALUE=60.0, MODE="RATING"),
        "UnsupportedOption",
        ["blocks_HeatX_data.E1.SPEC_DATA.MODE", "RATING"],
    ),
    "HeatX without SPEC": (
        lambda: heatx(VALUE_VALUE=60.0),
        "InvalidSpecification",
        ["blocks_HeatX_data.E1.SPEC_DATA.SPEC"],
    ),
    "unsupported DSTWU VAPLIQ": (
        lambda: dstwu(OPT_RDV="VAPLIQ", RDV=0.5),
        "UnsupportedOption",
        ["blocks_DSTWU_data.C1.SPEC_DATA.OPT_RDV", "VAPLIQ"],
    ),
    "DSTWU RR option without RR": (
        _drop(shortcut_column, "blocks_DSTWU_data/C1/SPEC_DATA/RR"),
        "SchemaValidationError",
        ["blocks_DSTWU_data.C1.SPEC_DATA", "RR"],
    ),
    "unsupported RadFrac CALC_MODE": (
        _set(column, f"{R}/CONFIG_DATA/CALC_MODE", "RIG-RATE"),
        "UnsupportedOption",
        ["blocks_RadFrac_data.C1.CONFIG_DATA.CALC_MODE", "RIG-RATE"],
    ),
    "unsupported RadFrac L1 spec": (
        lambda: radfrac([RR, {"BASIS_L1_VALUE": 60, "BASIS_L1_UNITS": "kmol/hr", "BASIS_L1_BASIS": "MOLE"}]),
        "UnsupportedOption",
        ["blocks_RadFrac_data.C1.CONFIG_DATA.OP_SPEC[1]", "L1"],
    ),
    "unsupported RadFrac MASS basis": (
        lambda: radfrac([{**RR, "BASIS_RR_BASIS": "MASS"}, DF]),
        "UnsupportedOption",
        ["blocks_RadFrac_data.C1.CONFIG_DATA.OP_SPEC[0].BASIS_RR_BASIS", "MASS"],
    ),
    "RadFrac with one operating spec": (
        lambda: radfrac([RR]),
        "InvalidSpecification",
        ["blocks_RadFrac_data.C1.CONFIG_DATA.OP_SPEC", "RR"],
    ),
    "unsupported RadFrac BELOW-STAGE": (
        _set(column, f"{R}/FEED_STAGE_DATA/0/FEED_CONVEN", "BELOW-STAGE"),
        "UnsupportedOption",
        ["blocks_RadFrac_data.C1.FEED_STAGE_DATA[0].FEED_CONVEN", "BELOW-STAGE"],
    ),
    "RadFrac product at a side stage": (
        _set(column, f"{R}/PROD_STAGE_DATA/1/PROD_STAGE_VALUE", 10),
        "InvalidSpecification",
        ["blocks_RadFrac_data.C1.PROD_STAGE_DATA[1]", "BTMS-1"],
    ),
    "RadFrac design specs": (
        _set(column, f"{R}/DESIGN_SPEC_DATA", [{"SPEC_ID": "1"}]),
        "UnsupportedOption",
        ["blocks_RadFrac_data.C1.DESIGN_SPEC_DATA"],
    ),
    "LHHW reaction set": (
        _set(_rplug, "reactions/R-1/type", "LHHW"),
        "UnsupportedOption",
        ["reactions.R-1.type", "LHHW"],
    ),
    "equilibrium reaction in RPlug": (
        _set(_rplug, "reactions/R-1/REAC_DATA/0/REACTYPE", "EQUIL"),
        "UnsupportedOption",
        ["reactions.R-1", "RPlug"],
    ),
    "reactor names an unknown reaction set": (
        _set(_rplug, "blocks_RPlug_data/R1/REAC_DATA/RXN_ID/1", "R-9"),
        "InvalidSpecification",
        ["blocks_RPlug_data.R1.REAC_DATA.RXN_ID.1", "R-9"],
    ),
    "activation energy unit the service cannot write": (
        _set(_rplug, "reactions/R-1/REAC_DATA/0/ACT_ENERGY_UNITS", "kJ/mol"),
        "UnknownUnit",
        ["ACT_ENERGY_UNITS", "kJ/mol"],
    ),
    "RCSTR residence-time specification": (
        _set(_rcstr, "blocks_RCSTR_data/R1/SPEC_DATA/SPEC_TYPE", "RES-TIME"),
        "UnsupportedOption",
        ["blocks_RCSTR_data.R1.SPEC_DATA.SPEC_TYPE", "RES-TIME"],
    ),
    # The real service writes VALUE_VALUE without a unit: a config in K would be right here, wrong there.
    "heatx VALUE_UNITS the service never sends": (
        lambda: heatx(SPEC="T-HOT", VALUE_VALUE=330.0, VALUE_UNITS="K"),
        "UnsupportedOption",
        ["blocks_HeatX_data.E1.SPEC_DATA.VALUE_UNITS", "K", "C"],
    ),
    "heatx DUTY in another power unit": (
        lambda: heatx(SPEC="DUTY", VALUE_VALUE=60.0, VALUE_UNITS="Watt"),
        "UnsupportedOption",
        ["VALUE_UNITS", "Watt", "kW"],
    ),
    "design_specs section without its parts": (
        _set(heater, "design_specs", {"DS-1": {}}),
        "SchemaValidationError",
        ["design_specs.DS-1"],
    ),
    "design spec varying a stream": (
        _set(_design_spec, "design_specs/DS-1/manipulated_variables/0/variable_type", "STREAM-VAR"),
        "UnsupportedOption",
        ["design_specs.DS-1.manipulated_variables[0].variable_type", "STREAM-VAR"],
    ),
    "design spec expression with an unknown name": (
        _set(_design_spec, "design_specs/DS-1/objective_function/EXPR1", "1 - FB/100"),
        "InvalidSpecification",
        ["design_specs.DS-1.objective_function.EXPR1", "FB"],
    ),
    "unsupported tear method": (
        _set(recycle, "convergence/conv_options/tear_method", "BROYDEN"),
        "UnsupportedOption",
        ["convergence.conv_options.tear_method", "BROYDEN"],
    ),
    "convergence without tear_data": (
        _drop(recycle, "convergence/tear_data"),
        "SchemaValidationError",
        ["convergence", "tear_data"],
    ),
    "Decanter with both a temperature and a duty": (
        lambda: decanter(TEMP_VALUE=40.0, TEMP_UNITS="C", DUTY_VALUE=0.0, DUTY_UNITS="kW"),
        "SchemaValidationError",
        ["blocks_Decanter_data.B1.SPEC_DATA"],
    ),
    "Decanter without key components": (
        _drop(
            lambda: decanter(TEMP_VALUE=40.0, TEMP_UNITS="C"), "blocks_Decanter_data/B1/SPEC_DATA/L2_COMPS"
        ),
        "SchemaValidationError",
        ["blocks_Decanter_data.B1.SPEC_DATA", "L2_COMPS"],
    ),
    "Decanter key component that is not a component": (
        lambda: decanter(TEMP_VALUE=40.0, TEMP_UNITS="C", L2_COMPS=["TOLUENE"]),
        "InvalidSpecification",
        ["blocks_Decanter_data.B1.SPEC_DATA.L2_COMPS", "TOLUENE"],
    ),
    "Flash3 L2_COMP that is not a component": (
        lambda: flash3(**tp(25.0, 1.0, "atm"), L2_COMP="TOLUENE"),
        "InvalidSpecification",
        ["blocks_Flash3_data.B1.SPEC_DATA.L2_COMP", "TOLUENE"],
    ),
    "Decanter pressure in atm (outside the real part's enum)": (
        _set(
            lambda: decanter(TEMP_VALUE=40.0, TEMP_UNITS="C"),
            "blocks_Decanter_data/B1/SPEC_DATA/PRES_UNITS",
            "atm",
        ),
        "UnknownUnit",
        ["blocks_Decanter_data.B1.SPEC_DATA.PRES_UNITS", "atm"],
    ),
    "Flash3 SPEC_OPT TD": (
        lambda: flash3(SPEC_OPT="TD", TEMP_VALUE=25.0, TEMP_UNITS="C", DUTY_VALUE=0.0, DUTY_UNITS="kW"),
        "UnsupportedOption",
        ["blocks_Flash3_data.B1.SPEC_DATA.SPEC_OPT", "TD"],
    ),
    "Dupl block-local property method": (
        lambda: dupl({"OPSETNAME": "PENG-ROB"}),
        "UnsupportedOption",
        ["blocks_Dupl_data.B1.SPEC_DATA.OPSETNAME"],
    ),
    "Sep2 FLOWS (not in the real Sep2 part)": (
        lambda: sep2({"TOP-1": [{"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FLOWS": 5.0}]}),
        "SchemaValidationError",
        ["blocks_Sep2_data.B1.SPEC_DATA", "FLOWS"],
    ),
    "Sep2 component without a split": (
        lambda: sep2({"TOP-1": [{"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FRACS": 0.5}]}),
        "InvalidSpecification",
        ["blocks_Sep2_data.B1.SPEC_DATA", "WATER"],
    ),
    "MCompr polytropic efficiency": (
        lambda: mcompr({"NSTAGE": 2, "PRES_VALUE": 4.0, "PRES_UNITS": "bar", "PEFF": {"1": 0.8}}),
        "UnsupportedOption",
        ["blocks_MCompr_data.B1.SPEC_DATA.PEFF"],
    ),
    "MCompr intercooler duty": (
        lambda: mcompr(
            {
                "NSTAGE": 2,
                "PRES_VALUE": 4.0,
                "PRES_UNITS": "bar",
                "DUTY": {"1": {"DUTY_VALUE": -5, "DUTY_UNITS": "kW"}},
            }
        ),
        "UnsupportedOption",
        ["blocks_MCompr_data.B1.SPEC_DATA.DUTY"],
    ),
    "MCompr stage without a specification": (
        lambda: mcompr({"NSTAGE": 2, "PRATIO": {"1": 2.0}}),
        "InvalidSpecification",
        ["blocks_MCompr_data.B1.SPEC_DATA", "stage 2"],
    ),
    "Distl feed stage on the reboiler": (
        _set(rating_column, "blocks_Distl_data/C1/SPEC_DATA/FEED_LOC", 12),
        "InvalidSpecification",
        ["blocks_Distl_data.C1.SPEC_DATA.FEED_LOC"],
    ),
    "Distl condenser type": (
        _set(rating_column, "blocks_Distl_data/C1/SPEC_DATA/COND_TYPE", "VAPLIQ"),
        "SchemaValidationError",
        ["blocks_Distl_data.C1.SPEC_DATA.COND_TYPE"],
    ),
    "block type the mock does not model": (
        _set(heater, "blocks/0/type", "RBatch"),
        "UnsupportedBlockType",
        ["blocks[0].type", "RBatch"],
    ),
    "Extract with stage heater duties": (
        lambda: extract_column(OPT_THERMAL="DUTY"),
        "UnsupportedOption",
        ["blocks_Extract_data.B1.SPEC_DATA.OPT_THERMAL", "DUTY"],
    ),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_config_is_refused_naming_the_field(name: str) -> None:
    build, error_type, words = INVALID[name]
    with pytest.raises(SimulationError) as info:
        run_config(build())
    assert info.value.error_type == error_type, info.value.message
    assert info.value.status == 400
    for word in words:
        assert word in info.value.message, (word, info.value.message)


# ---- the options new in this dialect mean what Aspen means ----------------------------------------


def test_heater_options_reach_the_specified_state() -> None:
    from chemicals import iapws

    def outlet(name: str) -> Config:
        return run_config(VALID[name]())["streams"]["PROD-1"]

    T_sat_2bar = iapws.iapws95_Tsat(2e5) - 273.15
    assert outlet("heater PDEGSUB")["temperature_C"] == pytest.approx(T_sat_2bar - 10.0, abs=0.3)
    assert outlet("heater PDEGSUB")["vapor_fraction"] == 0.0
    assert outlet("heater PDEGSUP")["temperature_C"] == pytest.approx(
        iapws.iapws95_Tsat(101325) - 273.15 + 15, abs=0.3
    )
    assert outlet("heater PDEGSUP")["vapor_fraction"] == 1.0
    assert outlet("heater PDT")["temperature_C"] == pytest.approx(25.0 + 30.0)
    dtv = outlet("heater DTV")  # 5 K warmer and at its bubble point: the pressure is water's at 30 C
    assert dtv["temperature_C"] == pytest.approx(30.0)
    assert dtv["pressure_bar"] == pytest.approx(iapws.iapws95_Psat(303.15) / 1e5, rel=0.02)
    assert outlet("heater PD Gcal/hr")["enthalpy_flow_kW"] - run_config(VALID["heater PD Gcal/hr"]())[
        "streams"
    ]["FEED-1"]["enthalpy_flow_kW"] == pytest.approx(0.5 * 4.184e9 / 3600 / 1000, rel=1e-9)


def test_radfrac_pressure_options_set_the_stage_pressures() -> None:
    profile = run_config(VALID["radfrac pressure profile"]())["blocks"]["C1"]["stage_profile"]
    pressures = [stage["pressure_bar"] for stage in profile]
    assert pressures[0] == pytest.approx(1.01325) and pressures[-1] == pytest.approx(1.15)
    assert pressures[5] == pytest.approx(1.01325 + 5 * (1.15 - 1.01325) / 11)  # linear in between
    profile = run_config(VALID["radfrac on-stage feed DP-COL STAGE-2"]())["blocks"]["C1"]["stage_profile"]
    pressures = [stage["pressure_bar"] for stage in profile]
    assert pressures[:2] == pytest.approx([1.01325, 1.05])
    assert pressures[-1] == pytest.approx(1.05 + 0.1)  # DP-COL: stage 2 to the last stage


def test_fsplit_and_sep_flows_follow_the_fractions() -> None:
    s = run_config(VALID["fsplit one outlet takes the rest"]())["streams"]
    assert s["OUT-1"]["molar_flow_kmol_hr"] == pytest.approx(25.0) and s["OUT-2"][
        "molar_flow_kmol_hr"
    ] == pytest.approx(75.0)
    s = run_config(VALID["sep fractions and flows"]())["streams"]
    assert s["TOP-1"]["component_flows_kmol_hr"] == pytest.approx({"MEOH": 36.0, "WATER": 5.0})
    assert s["BOT-1"]["component_flows_kmol_hr"] == pytest.approx({"MEOH": 4.0, "WATER": 55.0})


def test_rstoic_series_reactions_act_on_each_others_products() -> None:
    flue = run_config(VALID["rstoic PV two reactions in series"]())["streams"]["FLUE-1"]
    assert flue["component_flows_kmol_hr"]["CH4"] == pytest.approx(0.25)  # 50 % then 50 % of the rest
