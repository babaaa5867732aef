"""Example flowsheet configs (one per block type and per flowsheet kind), for docs, tests and benchmarks."""

from __future__ import annotations

from typing import Any

Config = dict[str, Any]

WATER = {"cid": "WATER", "name": "water", "cas_number": "7732-18-5"}
METHANOL = {"cid": "MEOH", "name": "methanol", "cas_number": "67-56-1"}
BENZENE = {"cid": "BENZENE", "name": "benzene", "cas_number": "71-43-2"}
TOLUENE = {"cid": "TOLUENE", "name": "toluene", "cas_number": "108-88-3"}
METHANE = {"cid": "CH4", "name": "methane", "cas_number": "74-82-8"}
OXYGEN = {"cid": "O2", "name": "oxygen", "cas_number": "7782-44-7"}
NITROGEN = {"cid": "N2", "name": "nitrogen", "cas_number": "7727-37-9"}
CO2 = {"cid": "CO2", "name": "carbon dioxide", "cas_number": "124-38-9"}


def feed(T_C: float, P_bar: float, flows_kmol_hr: dict[str, float]) -> dict[str, Any]:
    """A TP feed given as component molar flows [kmol/hr]."""
    return {
        "MIXED_SPEC": "TP",
        "temperature": {"TEMP_VALUE": T_C, "TEMP_UNITS": "C"},
        "pressure": {"PRES_VALUE": P_bar, "PRES_UNITS": "bar"},
        "flow": {
            "FLOWBASE": "MOLE",
            "BASIS": "MOLE-FLOW",
            "TOTFLOW_UNITS": "kmol/hr",
            "FLOW_VALUE": flows_kmol_hr,
        },
    }


def flowsheet(
    title: str,
    components: list[dict[str, str]],
    method: str,
    blocks: dict[str, str],
    connections: dict[str, dict[str, str]],
    stream_data: dict[str, Any],
    **block_data: dict[str, Any],
) -> Config:
    """Assemble a config; streams are collected from the connections, block data passed as keyword
    sections."""
    streams: list[str] = []
    for ports in connections.values():
        streams.extend(s for s in ports if s not in streams)
    return {
        "setup": {"title": title},
        "components": components,
        "property_methods": [{"method_name": method, "is_basis_method": True}],
        "blocks": [{"name": name, "type": kind} for name, kind in blocks.items()],
        "streams": [{"name": s} for s in streams],
        "block_connections": connections,
        "stream_data": stream_data,
        **block_data,
    }


def heater(method: str = "NRTL") -> Config:
    """100 kmol/hr water heated from 25 C to 80 C at 1 bar (the contract's example)."""
    return flowsheet(
        "Water heater",
        [WATER],
        method,
        {"H1": "Heater"},
        {"H1": {"FEED": "F(IN)", "PROD": "P(OUT)"}},
        {"FEED": feed(25.0, 1.0, {"WATER": 100.0})},
        blocks_Heater_data={
            "H1": {"SPEC_DATA": {"SPEC_OPT": "TP", "TEMP_VALUE": 80, "TEMP_UNITS": "C", "PRES_VALUE": 1}}
        },
    )


def boiling_point(component: dict[str, str], fractions: dict[str, float] | None = None) -> Config:
    """A heater bringing a liquid to its bubble point at 1 atm (SPEC_OPT PV, VFRAC 0)."""
    components = [component] if fractions is None else [METHANOL, WATER]
    flows = {component["cid"]: 10.0} if fractions is None else {k: 10.0 * v for k, v in fractions.items()}
    return flowsheet(
        "Bubble point at 1 atm",
        components,
        "NRTL",
        {"H1": "Heater"},
        {"H1": {"FEED": "F(IN)", "SAT": "P(OUT)"}},
        {"FEED": feed(20.0, 1.01325, flows)},
        blocks_Heater_data={
            "H1": {"SPEC_DATA": {"SPEC_OPT": "PV", "PRES_VALUE": 1, "PRES_UNITS": "atm", "VFRAC_VALUE": 0.0}}
        },
    )


def water_mixing() -> Config:
    """Two equal water streams at 20 C and 80 C mixed adiabatically (textbook answer: 50 C)."""
    return flowsheet(
        "Mixing hot and cold water",
        [WATER],
        "IDEAL",
        {"M1": "Mixer"},
        {"M1": {"COLD": "F(IN)", "HOT": "F(IN)", "MIX": "P(OUT)"}},
        {"COLD": feed(20.0, 1.01325, {"WATER": 100.0}), "HOT": feed(80.0, 1.01325, {"WATER": 100.0})},
        blocks_Mixer_data={"M1": {"SPEC_DATA": {"PRES_VALUE": 0, "PRES_UNITS": "bar"}}},
    )


def flash_drum(method: str = "NRTL") -> Config:
    """Methanol/water 50/50 flashed at 80 C and 1 atm."""
    return flowsheet(
        "Methanol-water flash",
        [METHANOL, WATER],
        method,
        {"F1": "Flash2"},
        {"F1": {"FEED": "F(IN)", "VAP": "V(OUT)", "LIQ": "L(OUT)"}},
        {"FEED": feed(25.0, 1.01325, {"MEOH": 50.0, "WATER": 50.0})},
        blocks_Flash2_data={
            "F1": {"SPEC_DATA": {"SPEC_OPT": "TP", "TEMP_VALUE": 80, "PRES_VALUE": 1, "PRES_UNITS": "atm"}}
        },
    )


def pump() -> Config:
    """Water pumped from 1 to 10 bar at 75 % efficiency."""
    return flowsheet(
        "Water pump",
        [WATER],
        "IDEAL",
        {"P1": "Pump"},
        {"P1": {"FEED": "F(IN)", "HP": "P(OUT)"}},
        {"FEED": feed(25.0, 1.0, {"WATER": 100.0})},
        blocks_Pump_data={
            "P1": {"SPEC_DATA": {"OPT_SPEC": "PRES", "PRES_VALUE": 10, "PRES_UNITS": "bar", "EFF": 0.75}}
        },
    )


def valve() -> Config:
    """Hot pressurised methanol/water let down to 1 atm (partly flashes)."""
    return flowsheet(
        "Let-down valve",
        [METHANOL, WATER],
        "NRTL",
        {"V1": "Valve"},
        {"V1": {"FEED": "F(IN)", "OUT": "P(OUT)"}},
        {"FEED": feed(95.0, 5.0, {"MEOH": 30.0, "WATER": 70.0})},
        blocks_Valve_data={
            "V1": {"JOB_DATA": {"MODE": "ADIAB-FLASH", "P_OUT_VALUE": 1, "P_OUT_UNITS": "atm"}}
        },
    )


def compressor() -> Config:
    """Methane compressed from 1 to 5 bar, isentropic efficiency 0.75, Peng-Robinson."""
    return flowsheet(
        "Methane compressor",
        [METHANE],
        "PENG-ROB",
        {"C1": "Compr"},
        {"C1": {"GAS": "F(IN)", "HPGAS": "P(OUT)"}},
        {"GAS": feed(25.0, 1.0, {"CH4": 100.0})},
        blocks_Compr_data={
            "C1": {
                "SPEC_DATA": {
                    "MODEL_TYPE": "COMPRESSOR",
                    "TYPE": "ISENTROPIC",
                    "OPT_SPEC": "PRES",
                    "PRES_VALUE": 5,
                    "PRES_UNITS": "bar",
                    "SEFF": 0.75,
                }
            }
        },
    )


def sep() -> Config:
    """Component splitter: 99 % of methanol and 2 % of water to the top."""
    return flowsheet(
        "Component separator",
        [METHANOL, WATER],
        "NRTL",
        {"S1": "Sep"},
        {"S1": {"FEED": "F(IN)", "TOP": "O(OUT)", "BOT": "O(OUT)"}},
        {"FEED": feed(50.0, 1.0, {"MEOH": 40.0, "WATER": 60.0})},
        blocks_Sep_data={
            "S1": {
                "SPEC_DATA": {
                    "TOP": [{"COMP_ID": "MEOH", "FRACS": 0.99}, {"COMP_ID": "WATER", "FRACS": 0.02}]
                }
            }
        },
    )


def heat_exchanger() -> Config:
    """Hot water (90 C) heats cold water (20 C) to 60 C, countercurrent."""
    return flowsheet(
        "Water-water exchanger",
        [WATER],
        "IDEAL",
        {"E1": "HeatX"},
        {"E1": {"HOT": "HI(IN)", "HOTOUT": "HO(OUT)", "COLD": "CI(IN)", "COLDOUT": "CO(OUT)"}},
        {"HOT": feed(90.0, 2.0, {"WATER": 150.0}), "COLD": feed(20.0, 2.0, {"WATER": 100.0})},
        blocks_HeatX_data={
            "E1": {
                "SPEC_DATA": {
                    "SPEC_OPT": "COLD-OUTLET-TEMP",
                    "TEMP_VALUE": 60,
                    "TEMP_UNITS": "C",
                    "U_VALUE": 850,
                }
            }
        },
    )


def combustion(adiabatic: bool = False) -> Config:
    """Methane burnt with excess air (CH4 + 2 O2 -> CO2 + 2 H2O, 100 % conversion), isothermal or
    adiabatic."""
    spec = (
        {"SPEC_OPT": "PQ", "PRES_VALUE": 1, "PRES_UNITS": "bar", "DUTY_VALUE": 0, "DUTY_UNITS": "kW"}
        if adiabatic
        else {"SPEC_OPT": "TP", "TEMP_VALUE": 25, "TEMP_UNITS": "C", "PRES_VALUE": 1, "PRES_UNITS": "bar"}
    )
    return flowsheet(
        "Methane combustion",
        [METHANE, OXYGEN, NITROGEN, CO2, WATER],
        "PENG-ROB",
        {"R1": "RStoic"},
        {"R1": {"FUEL": "F(IN)", "FLUE": "P(OUT)"}},
        {"FUEL": feed(25.0, 1.0, {"CH4": 1.0, "O2": 3.0, "N2": 11.28})},
        blocks_RStoic_data={
            "R1": {
                "SPEC_DATA": spec,
                "REAC_DATA": {
                    "SERIES": False,
                    "REAC": [
                        {
                            "KEY_SSID": 1,
                            "OPT_EXT_CONV": "CONV",
                            "KEY_CID": "CH4",
                            "CONV": 1.0,
                            "COEF_DATA": {"CH4": -1, "O2": -2},
                            "COEF1_DATA": {"CO2": 1, "WATER": 2},
                        }
                    ],
                },
            }
        },
    )


def shortcut_column() -> Config:
    """Benzene/toluene 50/50 split by DSTWU: 99 % benzene and 1 % toluene recovered overhead, R = 1.5 Rmin."""
    return flowsheet(
        "Benzene-toluene shortcut column",
        [BENZENE, TOLUENE],
        "IDEAL",
        {"C1": "DSTWU"},
        {"C1": {"FEED": "F(IN)", "DIST": "D(OUT)", "BTMS": "B(OUT)"}},
        {"FEED": feed(90.0, 1.01325, {"BENZENE": 50.0, "TOLUENE": 50.0})},
        blocks_DSTWU_data={
            "C1": {
                "SPEC_DATA": {
                    "OPT_NTRR": "RR",
                    "RR": -1.5,
                    "PTOP": 1.01325,
                    "PTOP_UNITS": "bar",
                    "PBOT": 1.01325,
                    "PBOT_UNITS": "bar",
                    "OPT_RDV": "LIQUID",
                    "LIGHTKEY": "BENZENE",
                    "RECOVL": 0.99,
                    "HEAVYKEY": "TOLUENE",
                    "RECOVH": 0.01,
                }
            }
        },
    )


def column(stages: int = 15, feed_stage: int = 8, reflux: float = 1.5, d_to_f: float = 0.5) -> Config:
    """Methanol/water 50/50 in a RadFrac column with total condenser at 1 atm (NRTL)."""
    return flowsheet(
        "Methanol-water column",
        [METHANOL, WATER],
        "NRTL",
        {"C1": "RadFrac"},
        {"C1": {"FEED": "F(IN)", "DIST": "D(OUT)", "BTMS": "B(OUT)"}},
        {"FEED": feed(60.0, 1.2, {"MEOH": 50.0, "WATER": 50.0})},
        blocks_RadFrac_data={
            "C1": {
                "CONFIG_DATA": {
                    "CALC_MODE": "EQUILIBRIUM",
                    "NSTAGE": stages,
                    "CONDENSER": "TOTAL",
                    "REBOILER": "KETTLE",
                    "OP_SPEC": [
                        {"BASIS_RR_VALUE": reflux, "BASIS_RR_BASIS": "MOLE"},
                        {"DF_VALUE": d_to_f, "DF_BASIS": "MOLE"},
                    ],
                },
                "FEED_STAGE_DATA": [
                    {"FEED_STAGE": "FEED", "FEED_STAGE_VALUE": feed_stage, "FEED_CONVEN": "ABOVE-STAGE"}
                ],
                "PRES_DATA": {
                    "VIEW_PRES": "TOP/BOTTOM",
                    "STAGE_PRES": [{"PRES1_VALUE": 1.01325, "PRES1_UNITS": "bar", "DP_STAGE_VALUE": 0}],
                },
            }
        },
    )


def process_train() -> Config:
    """Four-unit train: pump water/methanol to 5 bar, heat to 130 C, let down to 1.2 bar, separate in a
    drum."""
    return flowsheet(
        "Pump-heater-valve-flash train",
        [METHANOL, WATER],
        "NRTL",
        {"P1": "Pump", "H1": "Heater", "V1": "Valve", "F1": "Flash2"},
        {
            "P1": {"FEED": "F(IN)", "S1": "P(OUT)"},
            "H1": {"S1": "F(IN)", "S2": "P(OUT)"},
            "V1": {"S2": "F(IN)", "S3": "P(OUT)"},
            "F1": {"S3": "F(IN)", "VAP": "V(OUT)", "LIQ": "L(OUT)"},
        },
        {"FEED": feed(30.0, 1.0, {"MEOH": 30.0, "WATER": 70.0})},
        blocks_Pump_data={"P1": {"SPEC_DATA": {"OPT_SPEC": "PRES", "PRES_VALUE": 5, "EFF": 0.7}}},
        blocks_Heater_data={"H1": {"SPEC_DATA": {"SPEC_OPT": "TP", "TEMP_VALUE": 130, "PRES_VALUE": 0}}},
        blocks_Valve_data={
            "V1": {"JOB_DATA": {"MODE": "ADIAB-FLASH", "P_OUT_VALUE": 1.2, "P_OUT_UNITS": "bar"}}
        },
        blocks_Flash2_data={"F1": {"SPEC_DATA": {"SPEC_OPT": "PQ", "PRES_VALUE": 0, "DUTY_VALUE": 0}}},
    )


def recycle(method: str = "WEGSTEIN") -> Config:
    """Flash with liquid recycle: feed + recycle -> mixer -> heater (82 C) -> flash; 70 % of the liquid
    returns."""
    config = flowsheet(
        "Flash with liquid recycle",
        [METHANOL, WATER],
        "NRTL",
        {"M1": "Mixer", "H1": "Heater", "F1": "Flash2", "S1": "FSplit"},
        {
            "M1": {"FEED": "F(IN)", "RECYCLE": "F(IN)", "MIX": "P(OUT)"},
            "H1": {"MIX": "F(IN)", "HOT": "P(OUT)"},
            "F1": {"HOT": "F(IN)", "VAP": "V(OUT)", "LIQ": "L(OUT)"},
            "S1": {"LIQ": "F(IN)", "RECYCLE": "O(OUT)", "PURGE": "O(OUT)"},
        },
        {"FEED": feed(25.0, 1.01325, {"MEOH": 40.0, "WATER": 60.0})},
        blocks_Heater_data={"H1": {"SPEC_DATA": {"SPEC_OPT": "TP", "TEMP_VALUE": 82, "PRES_VALUE": 0}}},
        blocks_Flash2_data={"F1": {"SPEC_DATA": {"SPEC_OPT": "PQ", "PRES_VALUE": 0, "DUTY_VALUE": 0}}},
        blocks_FSplit_data={"S1": {"SPEC_DATA": {"FRAC": {"RECYCLE": 0.7}}}},
    )
    config["setup"]["convergence"] = {"method": method, "tolerance": 1e-8, "max_iterations": 200}
    return config


#: Every example by name (zero-argument builders).
EXAMPLES = {
    "heater": heater,
    "water_mixing": water_mixing,
    "flash_drum": flash_drum,
    "pump": pump,
    "valve": valve,
    "compressor": compressor,
    "sep": sep,
    "heat_exchanger": heat_exchanger,
    "combustion": combustion,
    "shortcut_column": shortcut_column,
    "column": column,
    "process_train": process_train,
    "recycle": recycle,
}
