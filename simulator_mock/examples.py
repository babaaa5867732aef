"""Example flowsheet configs (one per block type and per flowsheet kind), for docs, tests and benchmarks."""

from __future__ import annotations

from simulator_mock.flowsheet.builders import (
    ACETONE,
    ADIABATIC,
    BENZENE,
    CO2,
    HYDROGEN,
    ISOBUTANE,
    METHANE,
    METHANOL,
    MIXER_DEFAULTS,
    N_BUTANE,
    N_HEXANE,
    NITROGEN,
    OXYGEN,
    TOLUENE,
    WATER,
    Block,
    Config,
    feed,
    flowsheet_config,
    powerlaw,
    radfrac_data,
    rcstr_data,
    tp,
    valve_job,
)


def heater(method: str = "NRTL") -> Config:
    """100 kmol/hr water heated from 25 C to 80 C at 1 bar (the contract's example)."""
    h1 = Block("H1", "Heater", {"FEED-1": "F(IN)", "PROD-1": "P(OUT)"}, {"SPEC_DATA": tp(80, 1)})
    feeds = {"FEED-1": feed(25.0, 1.0, {"WATER": 100.0})}
    return flowsheet_config("Water heater", [WATER], method, [h1], feeds)


def boiling_point(component: dict[str, str], fractions: dict[str, float] | None = None) -> Config:
    """A heater bringing a liquid to its bubble point at 1 atm (SPEC_OPT PV, VFRAC 0)."""
    components = [component] if fractions is None else [METHANOL, WATER]
    flows = {component["cid"]: 10.0} if fractions is None else {k: 10.0 * v for k, v in fractions.items()}
    h1 = Block(
        "H1",
        "Heater",
        {"FEED-1": "F(IN)", "SAT-1": "P(OUT)"},
        {"SPEC_DATA": {"SPEC_OPT": "PV", "PRES_VALUE": 1, "PRES_UNITS": "atm", "VFRAC_VALUE": 0.0}},
    )
    feeds = {"FEED-1": feed(20.0, 1.01325, flows)}
    return flowsheet_config("Bubble point at 1 atm", components, "NRTL", [h1], feeds)


def water_mixing() -> Config:
    """Two equal water streams at 20 C and 80 C mixed adiabatically (textbook answer: 50 C)."""
    m1 = Block(
        "M1", "Mixer", {"COLD-1": "F(IN)", "HOT-1": "F(IN)", "MIX-1": "P(OUT)"}, {"SPEC_DATA": MIXER_DEFAULTS}
    )
    feeds = {"COLD-1": feed(20.0, 1.01325, {"WATER": 100.0}), "HOT-1": feed(80.0, 1.01325, {"WATER": 100.0})}
    return flowsheet_config("Mixing hot and cold water", [WATER], "IDEAL", [m1], feeds)


def flash_drum(method: str = "NRTL") -> Config:
    """Methanol/water 50/50 flashed at 80 C and 1 atm."""
    f1 = Block(
        "F1",
        "Flash2",
        {"FEED-1": "F(IN)", "VAP-1": "V(OUT)", "LIQ-1": "L(OUT)"},
        {
            "SPEC_DATA": {
                "SPEC_OPT": "TP",
                "TEMP_VALUE": 80,
                "TEMP_UNITS": "C",
                "PRES_VALUE": 1,
                "PRES_UNITS": "atm",
            }
        },
    )
    feeds = {"FEED-1": feed(25.0, 1.01325, {"MEOH": 50.0, "WATER": 50.0})}
    return flowsheet_config("Methanol-water flash", [METHANOL, WATER], method, [f1], feeds)


def pump() -> Config:
    """Water pumped from 1 to 10 bar (efficiency from the default pump curve)."""
    p1 = Block(
        "P1",
        "Pump",
        {"FEED-1": "F(IN)", "HP-1": "P(OUT)"},
        {"SPEC_DATA": {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", "PRES_VALUE": 10, "PRES_UNITS": "bar"}},
    )
    feeds = {"FEED-1": feed(25.0, 1.0, {"WATER": 100.0})}
    return flowsheet_config("Water pump", [WATER], "IDEAL", [p1], feeds)


def valve() -> Config:
    """Hot pressurised methanol/water let down to 1 atm (partly flashes)."""
    v1 = Block("V1", "Valve", {"FEED-1": "F(IN)", "OUT-1": "P(OUT)"}, valve_job(1, "atm"))
    feeds = {"FEED-1": feed(95.0, 5.0, {"MEOH": 30.0, "WATER": 70.0})}
    return flowsheet_config("Let-down valve", [METHANOL, WATER], "NRTL", [v1], feeds)


def compressor() -> Config:
    """Methane compressed from 1 to 5 bar (Aspen's default isentropic efficiency 0.72), Peng-Robinson."""
    c1 = Block(
        "C1",
        "Compr",
        {"GAS-1": "F(IN)", "HPGAS-1": "P(OUT)"},
        {
            "SPEC_DATA": {
                "MODEL_TYPE": "COMPRESSOR",
                "TYPE": "ISENTROPIC",
                "OPT_SPEC": "PRES",
                "PRES_VALUE": 5,
                "PRES_UNITS": "bar",
            }
        },
    )
    feeds = {"GAS-1": feed(25.0, 1.0, {"CH4": 100.0})}
    return flowsheet_config("Methane compressor", [METHANE], "PENG-ROB", [c1], feeds)


def sep() -> Config:
    """Component splitter: 99 % of methanol and 2 % of water to the top."""
    s1 = Block(
        "S1",
        "Sep",
        {"FEED-1": "F(IN)", "TOP-1": "P(OUT)", "BOT-1": "P(OUT)"},
        {
            "SPEC_DATA": {
                "TOP-1": [
                    {"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FRACS": 0.99},
                    {"COMP_ID": "WATER", "FLOWBASIS": "MOLE", "FRACS": 0.02},
                ]
            }
        },
    )
    feeds = {"FEED-1": feed(50.0, 1.0, {"MEOH": 40.0, "WATER": 60.0})}
    return flowsheet_config("Component separator", [METHANOL, WATER], "NRTL", [s1], feeds)


def sep2() -> Config:
    """Two-outlet component splitter: 95 % of methanol to the top, 90 % of water to the bottom."""
    s1 = Block(
        "S1",
        "Sep2",
        {"FEED-1": "F(IN)", "TOP-1": "P(OUT)", "BOT-1": "P(OUT)"},
        {
            "SPEC_DATA": {
                "TOP-1": [{"COMP_ID": "MEOH", "FLOWBASIS": "MOLE", "FRACS": 0.95}],
                "BOT-1": [{"COMP_ID": "WATER", "FLOWBASIS": "MOLE", "FRACS": 0.9}],
            }
        },
    )
    feeds = {"FEED-1": feed(50.0, 1.0, {"MEOH": 40.0, "WATER": 60.0})}
    return flowsheet_config("Two-outlet component separator", [METHANOL, WATER], "NRTL", [s1], feeds)


def duplicator() -> Config:
    """Duplicator: two copies of one feed (Aspen leaves the copy out of the balance)."""
    d1 = Block("D1", "Dupl", {"FEED-1": "F(IN)", "OUT-1": "P(OUT)", "OUT-2": "P(OUT)"})
    feeds = {"FEED-1": feed(50.0, 1.0, {"MEOH": 40.0, "WATER": 60.0})}
    return flowsheet_config("Duplicator", [METHANOL, WATER], "NRTL", [d1], feeds)


def multistage_compressor() -> Config:
    """Three-stage nitrogen compressor, 1 to 8 bar, intercooled to 25 C."""
    k1 = Block(
        "K1",
        "MCompr",
        {"FEED-1": "F(IN)", "PROD-1": "P(OUT)"},
        {
            "SPEC_DATA": {
                "NSTAGE": 3,
                "TYPE": "ISENTROPIC",
                "PRES_VALUE": 8.0,
                "PRES_UNITS": "bar",
                "TEMP": {k: {"TEMP_VALUE": 25.0, "TEMP_UNITS": "C"} for k in ("1", "2", "3")},
            }
        },
    )
    feeds = {"FEED-1": feed(25.0, 1.0, {"N2": 100.0})}
    return flowsheet_config("Multi-stage compressor", [NITROGEN], "IDEAL", [k1], feeds)


def rating_column() -> Config:
    """Distl rating column: benzene/toluene, 12 stages, feed on 6, reflux ratio 2, D/F 0.5, 1 atm."""
    c1 = Block(
        "C1",
        "Distl",
        {"FEED-1": "F(IN)", "D-1": "D(OUT)", "B-1": "B(OUT)"},
        {
            "SPEC_DATA": {
                "NSTAGE": 12,
                "FEED_LOC": 6,
                "RR": 2.0,
                "D_F": 0.5,
                "COND_TYPE": "TOTAL",
                "PTOP": 1.0,
                "PTOP_UNITS": "atm",
                "PBOT": 1.2,
                "PBOT_UNITS": "atm",
            }
        },
    )
    feeds = {"FEED-1": feed(90.0, 1.2, {"BENZENE": 50.0, "TOLUENE": 50.0})}
    return flowsheet_config("Distillation rating column", [BENZENE, TOLUENE], "IDEAL", [c1], feeds)


def heat_exchanger() -> Config:
    """Hot water (90 C) heats cold water (20 C) to 60 C, countercurrent."""
    e1 = Block(
        "E1",
        "HeatX",
        {"HOT-1": "H(IN)", "HOUT-1": "H(OUT)", "COLD-1": "C(IN)", "COUT-1": "C(OUT)"},
        {
            "SPEC_DATA": {
                "SPEC": "T-COLD",
                "VALUE_VALUE": 60,
                "VALUE_UNITS": "C",
                "U_VALUE": 850,
                "U_UNITS": "Watt/sqm-K",
            }
        },
    )
    feeds = {"HOT-1": feed(90.0, 2.0, {"WATER": 150.0}), "COLD-1": feed(20.0, 2.0, {"WATER": 100.0})}
    return flowsheet_config("Water-water exchanger", [WATER], "IDEAL", [e1], feeds)


def combustion(adiabatic: bool = False) -> Config:
    """Methane burnt with excess air (CH4 + 2 O2 -> CO2 + 2 H2O, 100 % conversion), isothermal or
    adiabatic."""
    spec = (
        {"SPEC_OPT": "DP", "PRES_VALUE": 1, "PRES_UNITS": "bar", "DUTY_VALUE": 0, "DUTY_UNITS": "kW"}
        if adiabatic
        else {"SPEC_OPT": "TP", "TEMP_VALUE": 25, "TEMP_UNITS": "C", "PRES_VALUE": 1, "PRES_UNITS": "bar"}
    )
    r1 = Block(
        "R1",
        "RStoic",
        {"FUEL-1": "F(IN)", "FLUE-1": "P(OUT)"},
        {
            "SPEC_DATA": spec,
            "REAC_DATA": {
                "SERIES": "",
                "REAC": [
                    {
                        "KEY_SSID": "1",
                        "OPT_EXT_CONV": "CONVERSION",
                        "KEY_CID": "CH4",
                        "CONV": 1.0,
                        "COEF_DATA": {"CH4": -1, "O2": -2},
                        "COEF1_DATA": {"CO2": 1, "WATER": 2},
                    }
                ],
            },
        },
    )
    feeds = {"FUEL-1": feed(25.0, 1.0, {"CH4": 1.0, "O2": 3.0, "N2": 11.28})}
    return flowsheet_config(
        "Methane combustion", [METHANE, OXYGEN, NITROGEN, CO2, WATER], "PENG-ROB", [r1], feeds
    )


def shortcut_column() -> Config:
    """Benzene/toluene 50/50 split by DSTWU: 99 % benzene and 1 % toluene recovered overhead, R = 1.5 Rmin."""
    c1 = Block(
        "C1",
        "DSTWU",
        {"FEED-1": "F(IN)", "DIST-1": "D(OUT)", "BTMS-1": "B(OUT)"},
        {
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
        },
    )
    feeds = {"FEED-1": feed(90.0, 1.01325, {"BENZENE": 50.0, "TOLUENE": 50.0})}
    return flowsheet_config("Benzene-toluene shortcut column", [BENZENE, TOLUENE], "IDEAL", [c1], feeds)


def column(
    stages: int = 15, feed_stage: int = 8, reflux: float = 1.5, d_to_f: float = 0.5, condenser: str = "TOTAL"
) -> Config:
    """Methanol/water 50/50 in a RadFrac column at 1 atm (NRTL); total (LD(OUT)) or partial-vapour
    (VD(OUT)) condenser."""
    d_port = "LD(OUT)" if condenser == "TOTAL" else "VD(OUT)"
    c1 = Block(
        "C1",
        "RadFrac",
        {"FEED-1": "F(IN)", "DIST-1": d_port, "BTMS-1": "B(OUT)"},
        radfrac_data(stages, feed_stage, reflux, d_to_f, condenser=condenser),
    )
    feeds = {"FEED-1": feed(60.0, 1.2, {"MEOH": 50.0, "WATER": 50.0})}
    return flowsheet_config("Methanol-water column", [METHANOL, WATER], "NRTL", [c1], feeds)


def process_train() -> Config:
    """Four-unit train: pump water/methanol to 5 bar, heat to 130 C, let down to 1.2 bar, separate in a
    drum."""
    p1 = Block(
        "P1",
        "Pump",
        {"FEED-1": "F(IN)", "S-1": "P(OUT)"},
        {"SPEC_DATA": {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", "PRES_VALUE": 5, "PRES_UNITS": "bar"}},
    )
    h1 = Block("H1", "Heater", {"S-1": "F(IN)", "S-2": "P(OUT)"}, {"SPEC_DATA": tp(130.0)})
    v1 = Block("V1", "Valve", {"S-2": "F(IN)", "S-3": "P(OUT)"}, valve_job(1.2))
    f1 = Block(
        "F1", "Flash2", {"S-3": "F(IN)", "VAP-1": "V(OUT)", "LIQ-1": "L(OUT)"}, {"SPEC_DATA": ADIABATIC}
    )
    feeds = {"FEED-1": feed(30.0, 1.0, {"MEOH": 30.0, "WATER": 70.0})}
    return flowsheet_config(
        "Pump-heater-valve-flash train", [METHANOL, WATER], "NRTL", [p1, h1, v1, f1], feeds
    )


def recycle(method: str = "WEGSTEIN") -> Config:
    """Flash with liquid recycle: feed + recycle -> mixer -> heater (82 C) -> flash; 70 % of the liquid
    returns."""
    m1 = Block("M1", "Mixer", {"FEED-1": "F(IN)", "RCY-1": "F(IN)", "MIX-1": "P(OUT)"})
    h1 = Block("H1", "Heater", {"MIX-1": "F(IN)", "HOT-1": "P(OUT)"}, {"SPEC_DATA": tp(82.0)})
    f1 = Block(
        "F1", "Flash2", {"HOT-1": "F(IN)", "VAP-1": "V(OUT)", "LIQ-1": "L(OUT)"}, {"SPEC_DATA": ADIABATIC}
    )
    s1 = Block(
        "S1",
        "FSplit",
        {"LIQ-1": "F(IN)", "RCY-1": "P(OUT)", "PURGE-1": "P(OUT)"},
        {"SPEC_DATA": {"FRAC": {"RCY-1": {"FRAC_VALUE": 0.7}}}},
    )
    feeds = {"FEED-1": feed(25.0, 1.01325, {"MEOH": 40.0, "WATER": 60.0})}
    config = flowsheet_config("Flash with liquid recycle", [METHANOL, WATER], "NRTL", [m1, h1, f1, s1], feeds)
    config["convergence"] = {
        "conv_options": {"tear_method": method, "tol": 1e-8, "weg_maxit": 200, "dir_maxit": 200},
        "tear_data": [{"tear_stream_name": "RCY-1", "tear_stream_tol": 1e-8}],
    }
    return config


def three_phase_flash(method: str = "NRTL") -> Config:
    """Water, benzene and nitrogen flashed at 40 C and 1 atm: vapour, a benzene-rich 1st liquid and an
    aqueous 2nd liquid (Flash3, water as the 2nd liquid's key component)."""
    f3 = Block(
        "F3",
        "Flash3",
        {"FEED-1": "F(IN)", "VAP-1": "V(OUT)", "ORG-1": "L1(OUT)", "AQ-1": "L2(OUT)"},
        {"SPEC_DATA": {**tp(40.0, 1.0, "atm"), "L2_COMP": "WATER"}},
    )
    feeds = {"FEED-1": feed(25.0, 1.01325, {"WATER": 40.0, "BENZENE": 40.0, "N2": 20.0})}
    return flowsheet_config("Three-phase flash", [WATER, BENZENE, NITROGEN], method, [f3], feeds)


def decanter(method: str = "NRTL") -> Config:
    """Water and benzene settled at 25 C and 1 atm: a benzene-rich 1st liquid and an aqueous 2nd liquid."""
    d1 = Block(
        "D1",
        "Decanter",
        {"FEED-1": "F(IN)", "ORG-1": "L1(OUT)", "AQ-1": "L2(OUT)"},
        {
            "SPEC_DATA": {
                "TEMP_VALUE": 25.0,
                "TEMP_UNITS": "C",
                "PRES_VALUE": 1.01325,
                "PRES_UNITS": "bar",
                "L2_COMPS": ["WATER"],
                "L2_CUTOFF": 0.5,
            }
        },
    )
    feeds = {"FEED-1": feed(25.0, 1.01325, {"WATER": 50.0, "BENZENE": 50.0})}
    return flowsheet_config("Decanter", [WATER, BENZENE], method, [d1], feeds)


def extractor(stages: int = 4, method: str = "NRTL", acetone: float = 1.0) -> Config:
    """Acetone (1 mol % by default) extracted from water with benzene at 25 C: water feed on the top stage,
    benzene solvent on the bottom stage, counter-current."""
    x1 = Block(
        "X1",
        "Extract",
        {"FEED-1": "F(IN)", "SOLV-1": "S(IN)", "RAF-1": "L1(OUT)", "EXT-1": "L2(OUT)"},
        {
            "SPEC_DATA": {
                "NSTAGE": stages,
                "OPT_THERMAL": "TEMP",
                "TSPEC_TEMP": {"1": {"TSPEC_TEMP_VALUE": 25.0, "TSPEC_TEMP_UNITS": "C"}},
                "STAGE_PRES": {"1": {"STAGE_PRES_VALUE": 1.01325, "STAGE_PRES_UNITS": "bar"}},
                "COMP1_LIST": {"#1": "WATER"},
            }
        },
    )
    feeds = {
        "FEED-1": feed(25.0, 1.01325, {"WATER": 99.0, "BENZENE": 0.0, "ACETONE": acetone}),
        "SOLV-1": feed(25.0, 1.01325, {"WATER": 0.0, "BENZENE": 30.0, "ACETONE": 0.0}),
    }
    return flowsheet_config("Extract", [WATER, BENZENE, ACETONE], method, [x1], feeds)


def reactor_recycle() -> Config:
    """Butane isomerisation with recycle: n-butane feed + recycle -> mixer -> RCSTR (gas, 120 C, 5 bar, 20 m3,
    reversible first-order POWERLAW) -> Sep: 98 % of the isobutane and 5 % of the n-butane to the product,
    the rest back to the mixer."""
    m1 = Block("M1", "Mixer", {"FEED-1": "F(IN)", "RCY-1": "F(IN)", "MIX-1": "P(OUT)"})
    r1 = Block(
        "R1",
        "RCSTR",
        {"MIX-1": "F(IN)", "RX-1": "P(OUT)"},
        rcstr_data(20.0, T_C=120.0, P_bar=5.0, set_id="ISOM"),
    )
    s1 = Block(
        "S1",
        "Sep",
        {"RX-1": "F(IN)", "PRO-1": "P(OUT)", "RCY-1": "P(OUT)"},
        {
            "SPEC_DATA": {
                "PRO-1": [
                    {"COMP_ID": "IC4", "FLOWBASIS": "MOLE", "FRACS": 0.98},
                    {"COMP_ID": "NC4", "FLOWBASIS": "MOLE", "FRACS": 0.05},
                ]
            }
        },
    )
    feeds = {"FEED-1": feed(120.0, 5.0, {"NC4": 100.0})}
    config = flowsheet_config(
        "Isomerisation reactor with recycle", [N_BUTANE, ISOBUTANE], "PENG-ROB", [m1, r1, s1], feeds
    )
    config["reactions"] = powerlaw("REVERSIBLE", k=0.02, set_id="ISOM")
    config["convergence"] = {
        "conv_options": {"tear_method": "WEGSTEIN", "tol": 1e-8, "weg_maxit": 100},
        "tear_data": [{"tear_stream_name": "RCY-1", "tear_stream_tol": 1e-8}],
    }
    return config


def hp_separator() -> Config:
    """A hydrotreater's high-pressure separator with CHAO-SEA: the reactor effluent (H2, CH4, n-hexane,
    toluene; 320 C, 35 bar) cooled to 45 C with a 1 bar drop, then separated adiabatically into recycle gas
    and liquid."""
    c1 = Block("C1", "Heater", {"FEED-1": "F(IN)", "COOL-1": "P(OUT)"}, {"SPEC_DATA": tp(45.0, -1.0)})
    f1 = Block(
        "F1", "Flash2", {"COOL-1": "F(IN)", "GAS-1": "V(OUT)", "LIQ-1": "L(OUT)"}, {"SPEC_DATA": ADIABATIC}
    )
    feeds = {"FEED-1": feed(320.0, 35.0, {"H2": 60.0, "CH4": 10.0, "HEXANE": 20.0, "TOLUENE": 10.0})}
    return flowsheet_config(
        "Hydrotreater high-pressure separator",
        [HYDROGEN, METHANE, N_HEXANE, TOLUENE],
        "CHAO-SEA",
        [c1, f1],
        feeds,
    )


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
    "three_phase_flash": three_phase_flash,
    "decanter": decanter,
    "extractor": extractor,
    "hp_separator": hp_separator,
}
