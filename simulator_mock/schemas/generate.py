# ruff: noqa: E501  (long description strings are the content of this file)
"""Writes the served JSON Schema documents (base.json + one per block type) from the definitions below.

Run ``python -m simulator_mock.schemas.generate`` after editing; the JSON files are what /api/schema serves
and what the mock validates against. Their structure (keys, types, required and conditional fields, enums)
follows the real Aspen service's schema documents, with the differences listed in docs/dialect_decisions.md;
the descriptions are the mock's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DRAFT = "http://json-schema.org/draft-07/schema#"
BLOCK_KEY = "^[A-Z][0-9A-Z]*$"
STREAM_KEY = "^[A-Z]+-[0-9]+$"

#: Units the Aspen service can write into its input tree (anything else fails there), by quantity.
TEMP_UNITS = ["C", "K"]
DELT_UNITS = ["C", "K"]
PRES_UNITS = ["bar", "kPa", "MPa", "atm", "N/sqm"]
DUTY_UNITS = ["kW", "Gcal/hr", "MMkcal/hr", "cal/sec"]
MOLE_FLOW_UNITS = ["kmol/hr"]
MASS_FLOW_UNITS = ["kg/hr", "kg/sec"]


def num(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "number", "description": desc, **kw}


def string(desc: str, enum: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "description": desc, **kw}
    if enum is not None:
        out["enum"] = enum
    return out


def units(what: str, allowed: list[str], default_note: str = "") -> dict[str, Any]:
    return string(
        f"Unit of {what}: one of {', '.join(allowed)} (the units the Aspen service can write). {default_note}".strip(),
        allowed,
    )


def when(field: str, value: str, required: list[str]) -> dict[str, Any]:
    return {
        "if": {"properties": {field: {"const": value}}, "required": [field]},
        "then": {"required": required},
    }


def section(
    type_name: str, desc: str, entry: dict[str, Any], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A blocks_<Type>_data part: an object keyed by block name, each value ``entry``."""
    body: dict[str, Any] = {
        "type": "object",
        "description": desc,
        "patternProperties": {BLOCK_KEY: entry},
        **(extra or {}),
    }
    return {f"blocks_{type_name}_data": body}


def block_entry(props: dict[str, Any], required: list[str], closed: bool, desc: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if desc:
        out["description"] = desc
    if closed:
        out["additionalProperties"] = False
    return out


# ---- base -----------------------------------------------------------------------------------------

PORTS = {
    "F(IN)": "feed inlet of any block (a block may have several)",
    "P(OUT)": "product outlet of single-outlet blocks (Mixer, Heater, Pump, Valve, Compr, RStoic); every outlet of FSplit and Sep (one stream per branch)",
    "V(OUT)": "vapour outlet of Flash2",
    "L(OUT)": "liquid outlet of Flash2",
    "L1(OUT)": "first liquid outlet (three-phase blocks; none of the mock's blocks uses it)",
    "L2(OUT)": "second liquid outlet (three-phase blocks; none of the mock's blocks uses it)",
    "VD(OUT)": "vapour distillate of RadFrac (partial condenser)",
    "LD(OUT)": "liquid distillate of RadFrac (total condenser)",
    "B(OUT)": "bottoms of a column (RadFrac, DSTWU)",
    "D(OUT)": "distillate of DSTWU (mock addition: Aspen's DSTWU port, missing from the real enum)",
    "O(OUT)": "overhead outlet of blocks the mock does not simulate (Sep2); not a port of FSplit or Sep",
    "H(IN)": "hot-side inlet of HeatX (mock addition: Aspen's port, missing from the real enum)",
    "H(OUT)": "hot-side outlet of HeatX (mock addition)",
    "C(IN)": "cold-side inlet of HeatX (mock addition)",
    "C(OUT)": "cold-side outlet of HeatX (mock addition)",
}

BLOCK_DESCRIPTIONS = {
    "Mixer": "Adiabatic mixer. Ports: F(IN) one or more, P(OUT) one.",
    "FSplit": "Splitter: outlets share the feed's composition and state. Ports: F(IN) one or more, P(OUT) two or more.",
    "Heater": "Heater or cooler bringing the mixed feed to a specified outlet state. Ports: F(IN) one or more, P(OUT) one.",
    "Pump": "Liquid pump or hydraulic turbine. Ports: F(IN) one or more, P(OUT) one.",
    "Valve": "Valve: adiabatic flash to a specified outlet pressure. Ports: F(IN) one or more, P(OUT) one.",
    "Compr": "Compressor or gas turbine (isentropic model). Ports: F(IN) one or more, P(OUT) one.",
    "Flash2": "Two-phase flash drum: the mixed feed settles to vapour-liquid equilibrium at the specified conditions. Ports: F(IN) one or more, V(OUT) one (vapour), L(OUT) one (liquid).",
    "Sep": "Component separator with per-component split fractions. Ports: F(IN) one or more, P(OUT) two or more.",
    "HeatX": "Two-stream heat exchanger (shortcut). Ports: H(IN), H(OUT), C(IN), C(OUT), one each.",
    "RStoic": "Stoichiometric reactor (conversion or extent per reaction). Ports: F(IN) one or more, P(OUT) one.",
    "DSTWU": "Shortcut distillation (Fenske, Underwood, Gilliland). Ports: F(IN) one or more, D(OUT) one, B(OUT) one.",
    "RadFrac": "Rigorous equilibrium-stage distillation column. Ports: F(IN) one or more, LD(OUT) (total condenser) or VD(OUT) (partial condenser) one, B(OUT) one.",
}

METHODS = [
    "UNIQUAC",
    "NRTL",
    "CHAO-SEA",
    "PENG-ROB",
    "RK-SOAVE",
    "SRK",
    "WILSON",
    "VAN-LAAR",
    "IDEAL",
    "UNIFAC",
]


def base(block_types: list[str]) -> dict[str, Any]:
    def value_units(value_key: str, units_key: str, what: str, allowed: list[str]) -> dict[str, Any]:
        return {
            "type": "object",
            "description": f"{what}; {value_key} is only used together with {units_key}.",
            "properties": {
                value_key: {"type": ["number", "null"], "description": f"{what}, in {units_key}."},
                units_key: units(what.lower(), allowed),
            },
            "dependencies": {value_key: [units_key]},
        }

    component_flow = {
        "type": "object",
        "description": (
            "Amount of one component (the key is its cid). With BASIS MOLE-FRAC or MASS-FRAC, FLOW_VALUE is a "
            "fraction (normalised over the components given) and FLOW_UNITS is the empty string; with "
            "MOLE-FLOW or MASS-FLOW it is the component's flow in FLOW_UNITS (kmol/hr; kg/hr or kg/sec) and "
            "the feed's total is the sum of the component flows."
        ),
        "properties": {
            "FLOW_VALUE": num("Fraction or component flow, >= 0 (see BASIS).", minimum=0),
            "FLOW_UNITS": string(
                "'' for fractions; kmol/hr for MOLE-FLOW; kg/hr or kg/sec for MASS-FLOW.",
                ["", *MOLE_FLOW_UNITS, *MASS_FLOW_UNITS],
            ),
            "FLOW_BASIS": string(
                "Basis of this entry; give the stream's BASIS (or MOLE / MASS).",
                ["MOLE-FRAC", "MASS-FRAC", "MOLE-FLOW", "MASS-FLOW", "MOLE", "MASS"],
            ),
        },
        "required": ["FLOW_VALUE", "FLOW_UNITS", "FLOW_BASIS"],
    }
    stream_entry = {
        "type": "object",
        "description": "State and amount of one feed stream (the key is the stream name).",
        "properties": {
            "MIXED_SPEC": string(
                "The two state variables given: TP temperature and pressure, TV temperature and vapour fraction, PV pressure and vapour fraction.",
                ["TP", "TV", "PV"],
            ),
            "temperature": value_units("TEMP_VALUE", "TEMP_UNITS", "Temperature", TEMP_UNITS),
            "pressure": value_units("PRES_VALUE", "PRES_UNITS", "Pressure (absolute)", PRES_UNITS),
            "vfrac": {
                "type": "object",
                "description": "Vapour fraction on a molar basis.",
                "properties": {
                    "VFRAC_VALUE": {
                        "type": ["number", "null"],
                        "minimum": 0,
                        "maximum": 1,
                        "description": "Vapour mole fraction, 0 (bubble point) to 1 (dew point).",
                    }
                },
            },
            "flow": {
                "type": "object",
                "description": (
                    "Amount and composition. FLOWBASE MOLE or MASS sets the basis of TOTFLOW_VALUE; BASIS sets how the "
                    "per-component entries (keyed by cid) are read. Components left out have zero flow."
                ),
                "properties": {
                    "FLOWBASE": string(
                        "Basis of the total flow: MOLE or MASS (VOLUME and STDVOL are refused: UnsupportedOption).",
                        ["MASS", "MOLE", "VOLUME", "STDVOL"],
                    ),
                    "TOTFLOW_VALUE": num(
                        "Total flow in TOTFLOW_UNITS (> 0). With a FLOW basis it must equal the sum of the component flows."
                    ),
                    "TOTFLOW_UNITS": string(
                        "kmol/hr for FLOWBASE MOLE; kg/hr or kg/sec for FLOWBASE MASS.",
                        [*MOLE_FLOW_UNITS, *MASS_FLOW_UNITS],
                    ),
                    "BASIS": string(
                        "How component entries are read: MOLE-FRAC, MASS-FRAC (fractions of TOTFLOW) or MOLE-FLOW, MASS-FLOW (component flows). STDVOL-* and *-CONC are refused (UnsupportedOption).",
                        [
                            "MASS-FRAC",
                            "MOLE-FRAC",
                            "MASS-FLOW",
                            "MOLE-FLOW",
                            "STDVOL-FLOW",
                            "STDVOL-FRAC",
                            "MASS-CONC",
                            "MOLE-CONC",
                        ],
                    ),
                },
                "required": ["FLOWBASE", "TOTFLOW_VALUE", "TOTFLOW_UNITS", "BASIS"],
                "additionalProperties": component_flow,
            },
        },
        "required": ["MIXED_SPEC", "flow"],
        "allOf": [
            when("MIXED_SPEC", "TP", ["pressure", "temperature"]),
            when("MIXED_SPEC", "TV", ["vfrac", "temperature"]),
            when("MIXED_SPEC", "PV", ["vfrac", "pressure"]),
        ],
    }
    return {
        "$schema": DRAFT,
        "$id": "base",
        "title": "Flowsheet configuration",
        "description": (
            "Body of POST /run-aspen-simulation: a steady-state flowsheet in Aspen Plus input-tree vocabulary. "
            "List the components and one basis property method, the blocks and the stream names, connect them in "
            "block_connections ({block: {stream: port}}), give stream_data for every feed stream (a stream no "
            "block produces) and one blocks_<Type>_data section per block type used (see the part named after "
            "the type). convergence sets how recycle loops are converged. The sections reactions, design_specs "
            "and henry_components are not simulated by the mock: a non-empty one is refused (UnsupportedOption)."
        ),
        "type": "object",
        "required": [
            "components",
            "property_methods",
            "blocks",
            "streams",
            "block_connections",
            "stream_data",
        ],
        "properties": {
            "metadata": {
                "type": "object",
                "description": "Free information about the run.",
                "properties": {"description": string("Free text.")},
            },
            "components": {
                "type": "array",
                "description": "Chemical components. cid is the id used everywhere else in the config; the chemical is looked up by cas_number, then database_name, then name.",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["cid", "name", "cas_number", "database_name"],
                    "properties": {
                        "cid": string(
                            "Component id used in compositions, splits and stoichiometry (Aspen allows up to 8 characters), e.g. WATER, MEOH."
                        ),
                        "name": string(
                            "Aspen alias of the component, usually its formula, e.g. H2O, CH4O, C3H6-2."
                        ),
                        "cas_number": string("CAS registry number, e.g. 7732-18-5."),
                        "database_name": string("Name in the pure-component databank, e.g. WATER, METHANOL."),
                    },
                },
            },
            "setup": {
                "type": "object",
                "description": "Run-level options.",
                "properties": {
                    "sim_options": {
                        "type": "object",
                        "description": "Calculation options.",
                        "properties": {
                            "energy_bal_value": string(
                                "Whether energy balances are computed (Aspen's ENERGY-BAL); the mock always computes them."
                            )
                        },
                    }
                },
            },
            "property_methods": {
                "type": "array",
                "description": "Property methods; exactly one has is_basis_method true and is used for the whole flowsheet.",
                "items": {
                    "type": "object",
                    "properties": {
                        "method_name": string(
                            "Aspen property method. The mock models IDEAL, NRTL, UNIFAC, PENG-ROB and RK-SOAVE; UNIQUAC, CHAO-SEA, SRK, WILSON and VAN-LAAR are refused (UnknownPropertyMethod).",
                            METHODS,
                        ),
                        "is_basis_method": {
                            "type": "boolean",
                            "description": "True for the method used for the flowsheet.",
                        },
                    },
                    "required": ["method_name", "is_basis_method"],
                    "additionalProperties": False,
                },
                "minItems": 1,
                "maxItems": 10,
                "uniqueItems": True,
            },
            "henry_components": {
                "type": "object",
                "description": "Henry component sets (supercritical solutes). Not simulated by the mock: a non-empty one is refused.",
                "patternProperties": {
                    "^[A-Za-z0-9_-]+$": {
                        "type": "object",
                        "properties": {
                            "components": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "node": string("Node name."),
                                        "formula": string("Component id."),
                                    },
                                },
                            }
                        },
                    }
                },
            },
            "blocks": {
                "type": "array",
                "description": "Unit operations.",
                "items": {
                    "type": "object",
                    "required": ["name", "type"],
                    "properties": {
                        "name": string(
                            "Block name: an upper-case letter then upper-case letters or digits, e.g. B1, FLASH1.",
                            pattern=BLOCK_KEY,
                        ),
                        "type": {
                            "type": "string",
                            "enum": block_types,
                            "description": "Aspen block model. "
                            + " ".join(f"{t}: {d}" for t, d in BLOCK_DESCRIPTIONS.items()),
                        },
                    },
                },
            },
            "streams": {
                "type": "array",
                "description": "Names of all material streams.",
                "items": string(
                    "Stream name: upper-case letters, a hyphen, digits, at most 8 characters (Aspen's limit), e.g. S-1, FEED-1, PRO-2.",
                    pattern=STREAM_KEY,
                    maxLength=8,
                ),
            },
            "block_connections": {
                "type": "object",
                "description": "Which stream enters or leaves which block at which port: {block name: {stream name: port}}. "
                + "; ".join(f"{p}: {d}" for p, d in PORTS.items())
                + ".",
                "patternProperties": {
                    BLOCK_KEY: {
                        "type": "object",
                        "patternProperties": {
                            STREAM_KEY: string("Port of the block the stream is attached to.", list(PORTS))
                        },
                    }
                },
            },
            "stream_connections": {
                "type": "object",
                "description": "Informative only (the connections are read from block_connections).",
                "patternProperties": {
                    "^[A-Za-z0-9_-]+$": {"type": "object", "additionalProperties": {"type": "string"}}
                },
            },
            "convergence": {
                "type": "object",
                "description": (
                    "Recycle (tear stream) convergence, as in the real service's convergence document. The mock "
                    "honours tear_method WEGSTEIN or DIRECT, tol, weg_maxit, dir_maxit, weg_qmin, weg_qmax and the "
                    "tear streams; other conv_options tune Aspen's numerics and are ignored. Without this section "
                    "Aspen's defaults apply: WEGSTEIN, tol 0.0001, 30 iterations, q between -5 and 0, tear "
                    "streams chosen automatically."
                ),
                "required": ["conv_options", "tear_data"],
                "properties": {
                    "conv_options": {
                        "type": "object",
                        "description": "Default convergence options.",
                        "properties": {
                            "tol": num(
                                "Relative tolerance on the tear-stream variables (Aspen default 0.0001)."
                            ),
                            "tear_method": string(
                                "Tear-stream method: WEGSTEIN (bounded acceleration) or DIRECT (successive substitution); NEWTON, BROYDEN and SECANT are refused.",
                                ["WEGSTEIN", "NEWTON", "BROYDEN", "DIRECT", "SECANT"],
                                default="WEGSTEIN",
                            ),
                            "weg_maxit": {
                                "type": "integer",
                                "description": "Iteration cap of WEGSTEIN (Aspen default 30).",
                            },
                            "dir_maxit": {
                                "type": "integer",
                                "description": "Iteration cap of DIRECT (Aspen default 30).",
                            },
                            "weg_qmin": num(
                                "Lower bound of the Wegstein acceleration factor (Aspen default -5)."
                            ),
                            "weg_qmax": num(
                                "Upper bound of the Wegstein acceleration factor (Aspen default 0)."
                            ),
                        },
                    },
                    "tear_data": {
                        "type": "array",
                        "description": "Tear streams to use (the mock tears these instead of choosing); a stream_data entry on a tear stream is its first estimate.",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["tear_stream_name", "tear_stream_tol"],
                            "properties": {
                                "tear_stream_name": string(
                                    "Stream to tear.", pattern="^[A-Za-z0-9_-]+$", minLength=1
                                ),
                                "tear_stream_tol": num(
                                    "Tolerance for this tear stream (the loop uses the smallest of tol and these).",
                                    minimum=1e-10,
                                    maximum=0.01,
                                    default=0.0001,
                                ),
                            },
                        },
                    },
                },
            },
            "stream_data": {
                "type": "object",
                "description": "Feed streams, keyed by stream name (required for every stream no block produces).",
                "patternProperties": {STREAM_KEY: stream_entry},
            },
        },
    }


# ---- block parts ----------------------------------------------------------------------------------

PRES_MEANING = "> 0: outlet pressure; <= 0: pressure drop below the (lowest) inlet pressure, 0 = no change (Aspen's convention)"


def p_value(desc: str = PRES_MEANING, **kw: Any) -> dict[str, Any]:
    return num(f"Pressure, in PRES_UNITS: {desc}.", **kw)


def mixer() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": "Outlet pressure and flash convergence settings.",
        "properties": {
            "PRES_VALUE": p_value(f"{PRES_MEANING}. Aspen's default is 0"),
            "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
            "MAXIT_VALUE": {
                "type": "integer",
                "description": "Maximum flash iterations (Aspen default 30). The Aspen service does not write it; the mock ignores it.",
            },
            "TOL_VALUE": num(
                "Flash tolerance (Aspen default 0.0001). The Aspen service does not write it; the mock ignores it."
            ),
        },
        "required": ["PRES_VALUE", "PRES_UNITS", "MAXIT_VALUE", "TOL_VALUE"],
    }
    return section(
        "Mixer",
        BLOCK_DESCRIPTIONS["Mixer"]
        + " Mixing is adiabatic. A Mixer without an entry here mixes at the lowest inlet pressure.",
        block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
    )


def fsplit() -> dict[str, Any]:
    def per_stream(key: str, value_key: str, units_key: str | None, desc: str) -> dict[str, Any]:
        props: dict[str, Any] = {value_key: num(desc)}
        if units_key:
            props[units_key] = string(f"Unit of {value_key}.")
        return {
            "type": "object",
            "description": desc
            + " Keyed by outlet stream name. Not simulated by the mock: a non-empty one is refused (UnsupportedOption)."
            if key != "FRAC"
            else desc,
            "additionalProperties": {"type": "object", "properties": props},
        }

    props: dict[str, Any] = {
        "FRAC": {
            "type": "object",
            "description": "Split fraction of the total feed per outlet, keyed by outlet stream name: {stream: {FRAC_VALUE: fraction}}. Fractions are 0..1; one outlet may be left out and takes the rest; given for all outlets they must sum to 1.",
            "additionalProperties": {
                "type": "object",
                "properties": {"FRAC_VALUE": num("Fraction of the total feed sent to this outlet (0..1).")},
            },
        },
        "COMPS": {
            "type": "object",
            "description": "Key components of a key-component split. Not simulated by the mock (refused when non-empty).",
            "additionalProperties": {
                "type": "object",
                "properties": {"MIXED": {"type": "object", "additionalProperties": {"type": "number"}}},
            },
        },
    }
    for key, vk, uk in [
        ("BASIS_C_LIM", "BASIS_C_LIM_VALUE", "BASIS_C_LIM_UNITS"),
        ("BASIS_FLOW", "BASIS_FLOW_VALUE", "BASIS_FLOW_UNITS"),
        ("BASIS_KEYNO", "BASIS_KEYNO_VALUE", None),
        ("BASIS_LIMIT", "BASIS_LIMIT_VALUE", "BASIS_LIMIT_UNITS"),
        ("C_LIM_BASIS", "C_LIM_BASIS_VALUE", None),
        ("DUTY", "DUTY_VALUE", "DUTY_UNITS"),
        ("FLOW_BASIS", "FLOW_BASIS_VALUE", None),
        ("LIMIT_BASIS", "LIMIT_BASIS_VALUE", None),
        ("ORDER", "ORDER_VALUE", None),
        ("POWER", "POWER_VALUE", "POWER_UNITS"),
        ("R_FRAC", "R_FRAC_VALUE", None),
        ("VOL_C_LIM", "VOL_C_LIM_VALUE", "VOL_C_LIM_UNITS"),
        ("VOL_FLOW", "VOL_FLOW_VALUE", "VOL_FLOW_UNITS"),
        ("VOL_LIMIT", "VOL_LIMIT_VALUE", "VOL_LIMIT_UNITS"),
    ]:
        props[key] = per_stream(key, vk, uk, f"Aspen FSplit input {key} per outlet stream.")
    spec = {
        "type": "object",
        "description": "Split specification (the outlets leave at the feed's temperature and lowest inlet pressure).",
        "properties": props,
    }
    return section(
        "FSplit", BLOCK_DESCRIPTIONS["FSplit"], block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
    )


HEATER_OPTIONS = {
    "TP": ("outlet temperature and pressure", ["TEMP_VALUE", "TEMP_UNITS", "PRES_VALUE", "PRES_UNITS"]),
    "PD": (
        "outlet pressure and heat duty (0 = adiabatic)",
        ["DUTY_VALUE", "DUTY_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
    "TD": (
        "outlet temperature and heat duty (refused by the mock: UnsupportedOption)",
        ["TEMP_VALUE", "TEMP_UNITS", "DUTY_VALUE", "DUTY_UNITS"],
    ),
    "TV": ("outlet temperature and vapour fraction", ["TEMP_VALUE", "TEMP_UNITS", "VFRAC_VALUE"]),
    "DTD": (
        "temperature change and heat duty (refused by the mock)",
        ["DUTY_VALUE", "DUTY_UNITS", "DELT_VALUE", "DELT_UNITS"],
    ),
    "PDT": (
        "outlet pressure and temperature change from the inlet",
        ["PRES_VALUE", "PRES_UNITS", "DELT_VALUE", "DELT_UNITS"],
    ),
    "PV": ("outlet pressure and vapour fraction", ["PRES_VALUE", "PRES_UNITS", "VFRAC_VALUE"]),
    "DTV": (
        "temperature change from the inlet and vapour fraction",
        ["DELT_VALUE", "DELT_UNITS", "VFRAC_VALUE"],
    ),
    "PDEGSUB": (
        "outlet pressure and degrees of subcooling below the bubble point",
        ["PRES_VALUE", "PRES_UNITS", "DEGSUB_VALUE", "DEGSUB_UNITS"],
    ),
    "PDEGSUP": (
        "outlet pressure and degrees of superheat above the dew point",
        ["PRES_VALUE", "PRES_UNITS", "DEGSUP_VALUE", "DEGSUP_UNITS"],
    ),
    "DDPPARM": (
        "duty with a pressure-drop correlation (refused by the mock)",
        ["DUTY_VALUE", "DUTY_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
    "TDPPARM": (
        "temperature with a pressure-drop correlation (refused by the mock)",
        ["TEMP_VALUE", "TEMP_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
    "DTDPPARM": (
        "temperature change with a pressure-drop correlation (refused by the mock)",
        ["DELT_VALUE", "DELT_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
    "VDPPARM": (
        "vapour fraction with a pressure-drop correlation (refused by the mock)",
        ["VFRAC_VALUE", "PRES_VALUE", "PRES_UNITS"],
    ),
    "DEGSUPDPPARM": (
        "superheat with a pressure-drop correlation (refused by the mock)",
        ["DEGSUP_VALUE", "DEGSUP_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
    "DEGSUBDPPARM": (
        "subcooling with a pressure-drop correlation (refused by the mock)",
        ["DEGSUB_VALUE", "DEGSUB_UNITS", "PRES_VALUE", "PRES_UNITS"],
    ),
}


def outlet_spec(
    options: dict[str, tuple[str, list[str]]], fields: list[str], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    all_props: dict[str, Any] = {
        "TEMP_VALUE": num("Outlet temperature, in TEMP_UNITS."),
        "TEMP_UNITS": units("TEMP_VALUE", TEMP_UNITS),
        "DELT_VALUE": num("Outlet temperature minus inlet temperature, in DELT_UNITS."),
        "DELT_UNITS": units("DELT_VALUE", DELT_UNITS),
        "DEGSUP_VALUE": num("Degrees of superheat above the outlet's dew point, in DEGSUP_UNITS."),
        "DEGSUP_UNITS": units("DEGSUP_VALUE", DELT_UNITS),
        "DEGSUB_VALUE": num("Degrees of subcooling below the outlet's bubble point, in DEGSUB_UNITS."),
        "DEGSUB_UNITS": units("DEGSUB_VALUE", DELT_UNITS),
        "VFRAC_VALUE": num(
            "Outlet vapour mole fraction, 0 (bubble point) to 1 (dew point).", minimum=0, maximum=1
        ),
        "PRES_VALUE": p_value(),
        "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
        "DUTY_VALUE": num("Heat added to the block, in DUTY_UNITS (negative = heat removed; 0 = adiabatic)."),
        "DUTY_UNITS": units("DUTY_VALUE", DUTY_UNITS),
    }
    props: dict[str, Any] = {
        "SPEC_OPT": string(
            "The two outlet variables specified: "
            + "; ".join(f"{k}: {v[0]}" for k, v in options.items())
            + ".",
            list(options),
        ),
    }
    props.update({k: all_props[k] for k in fields})
    props.update(extra or {})
    deps = {
        f"{q}_VALUE": [f"{q}_UNITS"]
        for q in ("TEMP", "DELT", "DEGSUP", "DEGSUB", "PRES", "DUTY")
        if f"{q}_VALUE" in props
    }
    return {
        "type": "object",
        "description": "Outlet specification: SPEC_OPT names the two fixed outlet variables; each *_VALUE needs its *_UNITS (the Aspen service writes a value only together with its unit).",
        "properties": props,
        "required": ["SPEC_OPT"],
        "additionalProperties": False,
        "dependencies": deps,
        "allOf": [when("SPEC_OPT", k, v[1]) for k, v in options.items()],
    }


ALL_OUTLET_FIELDS = [
    "TEMP_VALUE",
    "TEMP_UNITS",
    "DELT_VALUE",
    "DELT_UNITS",
    "DEGSUP_VALUE",
    "DEGSUP_UNITS",
    "DEGSUB_VALUE",
    "DEGSUB_UNITS",
    "VFRAC_VALUE",
    "PRES_VALUE",
    "PRES_UNITS",
    "DUTY_VALUE",
    "DUTY_UNITS",
]


def heater() -> dict[str, Any]:
    spec = outlet_spec(HEATER_OPTIONS, ALL_OUTLET_FIELDS)
    return section(
        "Heater",
        BLOCK_DESCRIPTIONS["Heater"] + " Results report the duty (kW) and the outlet state.",
        block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
        {"additionalProperties": False},
    )


def flash2() -> dict[str, Any]:
    options = {k: HEATER_OPTIONS[k] for k in ("PD", "TD", "TP", "TV", "PV")}
    spec = outlet_spec(
        options,
        ["TEMP_VALUE", "TEMP_UNITS", "VFRAC_VALUE", "PRES_VALUE", "PRES_UNITS", "DUTY_VALUE", "DUTY_UNITS"],
    )
    return section(
        "Flash2",
        BLOCK_DESCRIPTIONS["Flash2"],
        block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
        {"additionalProperties": False},
    )


def pump() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": (
            "Pump specification. No efficiency field exists: Aspen then takes the efficiency from its curve for "
            "water in a standard centrifugal pump, a function of the volumetric flow. The mock uses a published "
            "centrifugal-pump correlation (Seider et al.): about 0.44 up to 11 m3/hr, rising to 0.86 at 1100 m3/hr "
            "and above; the results report it as efficiency. Driver efficiency is 1."
        ),
        "properties": {
            "PUMP_TYPE": string(
                "PUMP (raise the pressure) or TURBINE (hydraulic turbine, lower it).", ["PUMP", "TURBINE"]
            ),
            "PRES_VALUE": num("Discharge pressure (absolute, > 0), in PRES_UNITS.", exclusiveMinimum=0),
            "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
            "OPT_SPEC": string(
                "What PRES_VALUE specifies. Only PRES (discharge pressure) is written by the Aspen service together with its value; DELP, PRATIO, POWER and USE-CURVE are refused (UnsupportedOption).",
                ["PRES", "DELP", "PRATIO", "POWER", "USE-CURVE"],
            ),
        },
        "required": ["PUMP_TYPE", "PRES_VALUE", "PRES_UNITS", "OPT_SPEC"],
    }
    return section(
        "Pump",
        BLOCK_DESCRIPTIONS["Pump"] + " The feed must be liquid.",
        block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
    )


def valve() -> dict[str, Any]:
    job = {
        "type": "object",
        "description": "Valve operation.",
        "properties": {
            "MODE": string(
                "Calculation type. ADIAB-FLASH: adiabatic flash to the outlet pressure P_OUT_VALUE (the only mode the Aspen service writes inputs for; others are refused: UnsupportedOption).",
                default="ADIAB-FLASH",
            ),
            "P_OUT_VALUE": num(
                "Outlet pressure (absolute, > 0), in P_OUT_UNITS; not above the inlet pressure.",
                exclusiveMinimum=0,
            ),
            "P_OUT_UNITS": units("P_OUT_VALUE", PRES_UNITS),
            "FLASH_MAXIT": {
                "type": "integer",
                "description": "Maximum flash iterations (Aspen default 30); the mock's flashes use their own limit and ignore it.",
            },
            "FLASH_TOL": num("Flash tolerance (Aspen default 0.0001); ignored by the mock."),
        },
        "required": ["MODE", "P_OUT_VALUE", "P_OUT_UNITS", "FLASH_MAXIT", "FLASH_TOL"],
    }
    return section(
        "Valve", BLOCK_DESCRIPTIONS["Valve"], block_entry({"JOB_DATA": job}, ["JOB_DATA"], closed=False)
    )


def compr() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": "Compressor specification. No efficiency field exists: Aspen's defaults apply, isentropic efficiency 0.72 and mechanical efficiency 1.",
        "properties": {
            "MODEL_TYPE": string(
                "COMPRESSOR (raise the pressure) or TURBINE (expand the gas).",
                ["COMPRESSOR", "TURBINE"],
                default="COMPRESSOR",
            ),
            "TYPE": string(
                "Thermodynamic model. ISENTROPIC (rigorous isentropic path from the property method) is simulated; the ASME and GPSA variants are refused (UnsupportedOption).",
                ["ISENTROPIC", "ASME-ISENTROP", "GPSA-ISENTROP", "ASME-POLYTROP", "GPSA-POLYTROP"],
            ),
            "PRES_VALUE": num("Discharge pressure (absolute, > 0), in PRES_UNITS.", exclusiveMinimum=0),
            "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
            "OPT_SPEC": string(
                "What PRES_VALUE specifies. Only PRES (discharge pressure) is simulated; DELP, PRATIO, POWER and USE-CURVE are refused (UnsupportedOption).",
                ["PRES", "DELP", "PRATIO", "POWER", "USE-CURVE"],
                default="PRES",
            ),
        },
        "required": ["MODEL_TYPE", "TYPE", "PRES_VALUE", "PRES_UNITS", "OPT_SPEC"],
    }
    return section(
        "Compr", BLOCK_DESCRIPTIONS["Compr"], block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
    )


def sep() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": (
            "Splits per outlet stream: {outlet stream: [{COMP_ID, FLOWBASIS, FRACS}, ...]}. FRACS is the fraction "
            "(0..1) of the component's feed flow sent to that outlet. For each component, one outlet may be left "
            "without an entry and takes the rest; a component with no entry at all goes to that outlet entirely."
        ),
        "additionalProperties": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "COMP_ID": string("Component id (cid)."),
                    "FLOWBASIS": string(
                        "Basis of the split (MOLE, MASS, STDVOL). A split fraction is the same on every basis; the Aspen service does not write this field."
                    ),
                    "FRACS": num(
                        "Fraction of the component's feed flow sent to this outlet (0..1).",
                        minimum=0,
                        maximum=1,
                    ),
                },
                "required": ["COMP_ID", "FLOWBASIS"],
            },
        },
    }
    return section(
        "Sep",
        BLOCK_DESCRIPTIONS["Sep"] + " Outlets leave at the feed's temperature and pressure.",
        block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
    )


def heatx() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": (
            "Shortcut exchanger specification. The mock reads the fields listed; any other Aspen HeatX input "
            "(geometry, fouling, film coefficients) is accepted, as by the Aspen service, and ignored with a warning."
        ),
        "properties": {
            "MODE": string(
                "Calculation mode: DESIGN (the only one the mock simulates; RATING and SIMULATION are refused).",
                default="DESIGN",
            ),
            "PROGRAM_MODE": string("SHORTCUT (simulated); DETAILED is refused.", default="SHORTCUT"),
            "TYPE": string(
                "Flow arrangement: COUNTERCURRENT (default) or COCURRENT.", default="COUNTERCURRENT"
            ),
            "HSHELL_TUBE": string("Side of the hot stream (SHELL or TUBE); no effect in the shortcut model."),
            "SPEC": string(
                "Exchanger specification, value in VALUE_VALUE: T-HOT hot outlet temperature, T-COLD cold outlet temperature, DELT-HOT hot-side temperature decrease, DELT-COLD cold-side temperature increase, DUTY heat transferred from hot to cold (> 0). Other Aspen specifications are refused (UnsupportedOption)."
            ),
            "VALUE_VALUE": num(
                "Value of SPEC: a temperature or temperature change in VALUE_UNITS (default C), or a duty in VALUE_UNITS (default kW)."
            ),
            "VALUE_UNITS": string(
                f"Unit of VALUE_VALUE: {', '.join(TEMP_UNITS)} for temperatures, {', '.join(DUTY_UNITS)} for DUTY. When omitted, C or kW."
            ),
            "MIN_TAPP_VALUE": num(
                "Minimum temperature approach (hot minus cold, anywhere along the exchanger), in MIN_TAPP_UNITS; when omitted the mock only refuses a temperature cross (approach <= 0)."
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
        "additionalProperties": True,
    }
    return section(
        "HeatX", BLOCK_DESCRIPTIONS["HeatX"], block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
    )


def rstoic() -> dict[str, Any]:
    options = {
        "TP": (
            "outlet temperature and pressure (isothermal reactor)",
            ["TEMP_VALUE", "TEMP_UNITS", "PRES_VALUE", "PRES_UNITS"],
        ),
        "DP": (
            "heat duty and outlet pressure (DUTY_VALUE 0 = adiabatic reactor)",
            ["DUTY_VALUE", "DUTY_UNITS", "PRES_VALUE", "PRES_UNITS"],
        ),
        "TD": (
            "outlet temperature and heat duty (refused by the mock: UnsupportedOption)",
            ["TEMP_VALUE", "TEMP_UNITS", "DUTY_VALUE", "DUTY_UNITS"],
        ),
        "TV": ("outlet temperature and vapour fraction", ["TEMP_VALUE", "TEMP_UNITS", "VFRAC_VALUE"]),
        "PV": ("outlet pressure and vapour fraction", ["PRES_VALUE", "PRES_UNITS", "VFRAC_VALUE"]),
        "DTV": (
            "temperature change and vapour fraction (refused by the mock: this part has no temperature-change field)",
            ["DUTY_VALUE", "DUTY_UNITS", "VFRAC_VALUE"],
        ),
    }
    spec = outlet_spec(
        options,
        ["TEMP_VALUE", "TEMP_UNITS", "VFRAC_VALUE", "PRES_VALUE", "PRES_UNITS", "DUTY_VALUE", "DUTY_UNITS"],
    )
    spec["properties"]["TEMP_VALUE"]["minimum"] = -273.15
    spec["properties"]["PRES_VALUE"] = num(f"Pressure, in PRES_UNITS: {PRES_MEANING}.", minimum=0)
    reaction = {
        "type": "object",
        "description": "One reaction: stoichiometry and how far it goes.",
        "properties": {
            "KEY_SSID": string(
                "Reaction number, e.g. '1'; reactions run in the order of their numbers.", pattern="^[0-9]+$"
            ),
            "CONV": num(
                "Fractional conversion of KEY_CID (0..1), based on the key component's flow entering this reaction (OPT_EXT_CONV CONVERSION).",
                minimum=0,
                maximum=1,
            ),
            "KEY_CID": string(
                "Key component (a reactant) the conversion refers to.", pattern="^[A-Za-z0-9_-]+$"
            ),
            "OPT_EXT_CONV": string(
                "CONVERSION: the reaction goes to conversion CONV of KEY_CID; EXTENT: it goes to molar extent EXTENT.",
                ["CONVERSION", "EXTENT"],
            ),
            "EXTENT": {
                "type": ["number", "null"],
                "minimum": 0,
                "description": "Molar extent of reaction in kmol/hr (OPT_EXT_CONV EXTENT).",
            },
            "COEF_DATA": {
                "type": "object",
                "description": "Reactants: {cid: stoichiometric coefficient (negative)}.",
                "patternProperties": {
                    "^[A-Za-z0-9_-]+$": num("Stoichiometric coefficient of a reactant (< 0).")
                },
                "additionalProperties": False,
            },
            "COEF1_DATA": {
                "type": "object",
                "description": "Products: {cid: stoichiometric coefficient (positive)}. A component is either a reactant or a product.",
                "patternProperties": {
                    "^[A-Za-z0-9_-]+$": num("Stoichiometric coefficient of a product (> 0).")
                },
                "additionalProperties": False,
            },
        },
        "required": ["KEY_SSID", "CONV", "KEY_CID", "OPT_EXT_CONV", "COEF_DATA", "COEF1_DATA"],
        "additionalProperties": False,
    }
    reac = {
        "type": "object",
        "description": "Reactions of the block.",
        "properties": {
            "SERIES": string(
                "'' (default): every reaction's conversion refers to the reactor feed (parallel reactions); 'YES': reactions run one after another, each on the products of the previous ones.",
                ["", "YES"],
                default="",
            ),
            "REAC": {"type": "array", "description": "The reactions.", "items": reaction, "minItems": 1},
        },
        "required": ["REAC"],
        "additionalProperties": False,
    }
    return section(
        "RStoic",
        BLOCK_DESCRIPTIONS["RStoic"]
        + " Reaction heat is inside the stream enthalpies (elements-based), so the duty includes it.",
        block_entry({"SPEC_DATA": spec, "REAC_DATA": reac}, ["SPEC_DATA", "REAC_DATA"], closed=True),
        {"additionalProperties": False},
    )


def dstwu() -> dict[str, Any]:
    col_p = ["bar", "atm", "MPa", "kPa"]
    spec = {
        "type": "object",
        "description": "Shortcut design specification (Winn minimum stages, Underwood minimum reflux, Gilliland correlation).",
        "properties": {
            "OPT_NTRR": string(
                "RR: reflux ratio RR given, stages computed; NSTAGE: number of stages NSTAGE given, reflux computed.",
                ["RR", "NSTAGE"],
            ),
            "RR": num(
                "Reflux ratio (OPT_NTRR RR): > 0 the ratio itself; <= -1 a multiple of the minimum reflux ratio (-1.3 = 1.3 x Rmin)."
            ),
            "NSTAGE": num(
                "Number of theoretical stages including condenser and reboiler (OPT_NTRR NSTAGE), 2 to 500."
            ),
            "PTOP": num("Condenser pressure, in PTOP_UNITS.", minimum=0),
            "PTOP_UNITS": units("PTOP", col_p),
            "PBOT": num("Reboiler pressure, in PBOT_UNITS.", minimum=0),
            "PBOT_UNITS": units("PBOT", col_p),
            "OPT_RDV": string(
                "Condenser: LIQUID total condenser (liquid distillate), VAPOR partial condenser with vapour distillate; VAPLIQ (vapour and liquid distillate) is refused (UnsupportedOption).",
                ["LIQUID", "VAPOR", "VAPLIQ"],
            ),
            "RDV": num("Vapour fraction of the distillate; only read for OPT_RDV VAPLIQ."),
            "LIGHTKEY": string("Light key component (cid)."),
            "RECOVL": num(
                "Recovery of the light key in the distillate: its distillate flow over its feed flow (0..1).",
                minimum=0,
                maximum=1,
            ),
            "HEAVYKEY": string("Heavy key component (cid)."),
            "RECOVH": num(
                "Recovery of the heavy key in the distillate: its distillate flow over its feed flow (0..1).",
                minimum=0,
                maximum=1,
            ),
        },
        "required": [
            "OPT_NTRR",
            "PTOP",
            "PTOP_UNITS",
            "PBOT",
            "PBOT_UNITS",
            "OPT_RDV",
            "LIGHTKEY",
            "RECOVL",
            "HEAVYKEY",
            "RECOVH",
        ],
        "allOf": [when("OPT_NTRR", "RR", ["RR"]), when("OPT_NTRR", "NSTAGE", ["NSTAGE"])],
        "additionalProperties": False,
    }
    return section(
        "DSTWU",
        BLOCK_DESCRIPTIONS["DSTWU"],
        block_entry(
            {"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True, desc="One DSTWU block, keyed by its name."
        ),
        {"additionalProperties": False},
    )


COL_FLOW_UNITS = ["kg/hr", "kmol/hr"]
COL_P_UNITS = ["atm", "bar", "kPa", "MPa"]


def _op(spec_type: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            **props,
            "specType": {"const": spec_type, "description": "Optional label of the specification."},
        },
        "required": required,
        "additionalProperties": False,
    }


def radfrac() -> dict[str, Any]:
    def basis(what: str) -> dict[str, Any]:
        return string(f"Basis of {what}: MOLE or MASS (the mock simulates MOLE).", ["MOLE", "MASS"])

    def flow_units(what: str) -> dict[str, Any]:
        return string(
            f"Unit of {what}: kmol/hr (kg/hr goes with a MASS basis, refused: UnsupportedOption; m3/hr and lb/hr cannot be written by the Aspen service).",
            COL_FLOW_UNITS,
        )

    duty_units = string("Unit of the duty: kW (MW and W cannot be written by the Aspen service).", ["kW"])
    op_items = [
        _op(
            "RR",
            {"BASIS_RR_VALUE": num("Molar reflux ratio L/D."), "BASIS_RR_BASIS": basis("the reflux ratio")},
            ["BASIS_RR_VALUE", "BASIS_RR_BASIS"],
        ),
        _op(
            "D",
            {
                "BASIS_D_VALUE": num("Distillate rate, in BASIS_D_UNITS."),
                "BASIS_D_UNITS": flow_units("BASIS_D_VALUE"),
                "BASIS_D_BASIS": basis("the distillate rate"),
            },
            ["BASIS_D_VALUE", "BASIS_D_UNITS", "BASIS_D_BASIS"],
        ),
        _op(
            "L1",
            {
                "BASIS_L1_VALUE": num("Reflux rate (refused by the mock)."),
                "BASIS_L1_UNITS": flow_units("BASIS_L1_VALUE"),
                "BASIS_L1_BASIS": basis("the reflux rate"),
            },
            ["BASIS_L1_VALUE", "BASIS_L1_UNITS", "BASIS_L1_BASIS"],
        ),
        _op(
            "B",
            {
                "BASIS_B_VALUE": num("Bottoms rate, in BASIS_B_UNITS."),
                "BASIS_B_UNITS": flow_units("BASIS_B_VALUE"),
                "BASIS_B_BASIS": basis("the bottoms rate"),
            },
            ["BASIS_B_VALUE", "BASIS_B_UNITS", "BASIS_B_BASIS"],
        ),
        _op(
            "VN",
            {
                "BASIS_VN_VALUE": num("Boilup rate (refused by the mock)."),
                "BASIS_VN_UNITS": flow_units("BASIS_VN_VALUE"),
                "BASIS_VN_BASIS": basis("the boilup rate"),
            },
            ["BASIS_VN_VALUE", "BASIS_VN_UNITS", "BASIS_VN_BASIS"],
        ),
        _op(
            "BR",
            {
                "BASIS_BR_VALUE": num("Boilup ratio (refused by the mock)."),
                "BASIS_BR_BASIS": basis("the boilup ratio"),
            },
            ["BASIS_BR_VALUE", "BASIS_BR_BASIS"],
        ),
        _op(
            "Q1",
            {"Q1_VALUE": num("Condenser duty (refused by the mock)."), "Q1_UNITS": duty_units},
            ["Q1_VALUE", "Q1_UNITS"],
        ),
        _op(
            "QN",
            {"QN_VALUE": num("Reboiler duty (refused by the mock)."), "QN_UNITS": duty_units},
            ["QN_VALUE", "QN_UNITS"],
        ),
        _op(
            "D:F",
            {"DF_VALUE": num("Distillate to feed ratio (0..1)."), "DF_BASIS": basis("the ratio")},
            ["DF_VALUE", "DF_BASIS"],
        ),
        _op(
            "B:F",
            {"BF_VALUE": num("Bottoms to feed ratio (0..1)."), "BF_BASIS": basis("the ratio")},
            ["BF_VALUE", "BF_BASIS"],
        ),
    ]
    config = {
        "type": "object",
        "description": "Column configuration.",
        "properties": {
            "CALC_MODE": string(
                "EQUILIBRIUM (simulated) or RIG-RATE (rate-based, refused).",
                ["EQUILIBRIUM", "RIG-RATE"],
                default="EQUILIBRIUM",
            ),
            "NSTAGE": {
                "type": "integer",
                "minimum": 2,
                "maximum": 9999,
                "description": "Number of stages, condenser (stage 1) and reboiler (last stage) included.",
            },
            "CONDENSER": string(
                "TOTAL (liquid distillate, port LD(OUT)) or PARTIAL-V (vapour distillate, port VD(OUT)); PARTIAL-V-L and NONE are refused.",
                ["TOTAL", "PARTIAL-V", "PARTIAL-V-L", "NONE"],
            ),
            "REBOILER": string(
                "KETTLE (simulated); THERMOSYPHON and NONE are refused.", ["KETTLE", "THERMOSYPHON", "NONE"]
            ),
            "CONV_METH": string(
                "Aspen's convergence method; the mock's Newton solver is the same for every choice.",
                ["STANDARD", "NONIDEAL", "AZEOTROPIC", "CRYOGENIC", "PETROLEUM", "OTHERS"],
            ),
            "NO_PHASE": {
                "type": "integer",
                "minimum": 1,
                "maximum": 3,
                "description": "Valid phases: 2 (vapour-liquid) is simulated; 1 and 3 are refused.",
            },
            "BLKOPFREWAT": string(
                "Free-water handling: NO (simulated); YES and DIRTY are refused.", ["YES", "NO", "DIRTY"]
            ),
            "OP_SPEC": {
                "type": "array",
                "description": "Operating specifications, one per item: the mock needs the reflux ratio (RR) and one of the distillate rate (D), bottoms rate (B), D:F or B:F, all on a MOLE basis.",
                "items": {"type": "object", "oneOf": op_items},
                "minItems": 1,
                "maxItems": 2,
            },
        },
        "required": [
            "CALC_MODE",
            "NSTAGE",
            "CONDENSER",
            "REBOILER",
            "CONV_METH",
            "NO_PHASE",
            "BLKOPFREWAT",
            "OP_SPEC",
        ],
        "additionalProperties": False,
    }
    feed = {
        "type": "array",
        "description": "Feed location of every feed stream.",
        "items": {
            "type": "object",
            "properties": {
                "FEED_STAGE": string("Feed stream name (an F(IN) stream of this block)."),
                "FEED_STAGE_VALUE": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Stage number (1 = condenser).",
                },
                "FEED_CONVEN": string(
                    "ABOVE-STAGE: the feed enters between stage n-1 and n (its vapour goes to n-1, its liquid to n); ON-STAGE: all of it enters stage n; BELOW-STAGE is refused.",
                    ["ABOVE-STAGE", "ON-STAGE", "BELOW-STAGE"],
                ),
            },
            "required": ["FEED_STAGE", "FEED_STAGE_VALUE", "FEED_CONVEN"],
            "additionalProperties": False,
        },
        "minItems": 1,
    }
    prod = {
        "type": "array",
        "description": "Product locations. The distillate is drawn at stage 1 (phase L for a total condenser, V for a partial one) and the bottoms at stage NSTAGE (phase L); side draws are refused.",
        "items": {
            "type": "object",
            "properties": {
                "PROD_STAGE": string("Product stream name (an outlet of this block)."),
                "PROD_STAGE_VALUE": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Stage the product is drawn from.",
                },
                "PROD_PHASE": string("L liquid or V vapour.", ["L", "V"]),
            },
            "required": ["PROD_STAGE", "PROD_STAGE_VALUE", "PROD_PHASE"],
            "additionalProperties": False,
        },
        "minItems": 1,
    }

    def p_units(what: str) -> dict[str, Any]:
        return string(
            f"Unit of {what}: bar, atm, kPa or MPa (psi cannot be written by the Aspen service).", COL_P_UNITS
        )

    def nullable(desc: str) -> dict[str, Any]:
        return {"type": ["number", "null"], "minimum": 0, "description": desc}

    top_bottom_item = {
        "type": "object",
        "description": "Top pressure and the pressure drops below it.",
        "properties": {
            "PRES1_VALUE": num("Pressure of stage 1 (the condenser), in PRES1_UNITS."),
            "PRES1_UNITS": p_units("PRES1_VALUE"),
            "OPT_PRES_TOP": string(
                "How stage 2's pressure is given: DP-COND (condenser pressure drop DP_COND_VALUE) or STAGE-2 (its pressure PRES2_VALUE).",
                ["DP-COND", "STAGE-2"],
            ),
            "PRES2_VALUE": {
                "type": ["number", "null"],
                "description": "Pressure of stage 2 (OPT_PRES_TOP STAGE-2), in PRES2_UNITS.",
            },
            "PRES2_UNITS": p_units("PRES2_VALUE"),
            "DP_COND_VALUE": nullable(
                "Pressure drop from stage 2 to the condenser (OPT_PRES_TOP DP-COND), in DP_COND_UNITS."
            ),
            "DP_COND_UNITS": p_units("DP_COND_VALUE"),
            "OPT_PRES": string(
                "Pressure drop over the rest of the column: DP-STAGE (per stage, DP_STAGE_VALUE) or DP-COL (whole column from stage 2 to the last, DP_COL_VALUE, spread evenly).",
                ["DP-COL", "DP-STAGE"],
            ),
            "DP_STAGE_VALUE": nullable("Pressure drop per stage (OPT_PRES DP-STAGE), in DP_STAGE_UNITS."),
            "DP_STAGE_UNITS": p_units("DP_STAGE_VALUE"),
            "DP_COL_VALUE": nullable(
                "Pressure drop from stage 2 to the last stage (OPT_PRES DP-COL), in DP_COL_UNITS."
            ),
            "DP_COL_UNITS": p_units("DP_COL_VALUE"),
        },
        "allOf": [
            {
                "if": {"properties": {"OPT_PRES_TOP": {"const": "DP-COND"}}, "required": ["OPT_PRES_TOP"]},
                "then": {
                    "required": ["DP_COND_VALUE", "DP_COND_UNITS"],
                    "properties": {
                        "DP_COND_VALUE": {"type": "number", "minimum": 0},
                        "DP_COND_UNITS": {"type": "string"},
                        "PRES2_VALUE": {"type": "null"},
                        "PRES2_UNITS": {"type": "null"},
                    },
                },
            },
            {
                "if": {"properties": {"OPT_PRES_TOP": {"const": "STAGE-2"}}, "required": ["OPT_PRES_TOP"]},
                "then": {
                    "required": ["PRES2_VALUE", "PRES2_UNITS"],
                    "properties": {
                        "PRES2_VALUE": {"type": "number", "minimum": 0},
                        "PRES2_UNITS": {"type": "string"},
                        "DP_COND_VALUE": {"type": "null"},
                        "DP_COND_UNITS": {"type": "null"},
                    },
                },
            },
            {
                "if": {"properties": {"OPT_PRES": {"const": "DP-COL"}}, "required": ["OPT_PRES"]},
                "then": {
                    "required": ["DP_COL_VALUE", "DP_COL_UNITS"],
                    "properties": {
                        "DP_COL_VALUE": {"type": "number", "minimum": 0},
                        "DP_COL_UNITS": {"type": "string"},
                        "DP_STAGE_VALUE": {"type": "null"},
                        "DP_STAGE_UNITS": {"type": "null"},
                    },
                },
            },
            {
                "if": {"properties": {"OPT_PRES": {"const": "DP-STAGE"}}, "required": ["OPT_PRES"]},
                "then": {
                    "required": ["DP_STAGE_VALUE", "DP_STAGE_UNITS"],
                    "properties": {
                        "DP_STAGE_VALUE": {"type": "number", "minimum": 0},
                        "DP_STAGE_UNITS": {"type": "string"},
                        "DP_COL_VALUE": {"type": "null"},
                        "DP_COL_UNITS": {"type": "null"},
                    },
                },
            },
        ],
        "required": ["PRES1_VALUE", "PRES1_UNITS", "OPT_PRES_TOP", "OPT_PRES"],
        "additionalProperties": False,
    }
    pres = {
        "type": "object",
        "description": "Column pressures: either a profile of stage pressures (linear in between, constant beyond the first and last given stage) or the top pressure with pressure drops.",
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "VIEW_PRES": string(
                        "PROFILE: pressures of chosen stages.", ["PROFILE"], default="PROFILE"
                    ),
                    "STAGE_PRES": {
                        "type": "array",
                        "description": "Stage pressures.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "PRES_STAGE": string("Stage number as text, e.g. '1'."),
                                "PRES_VALUE": num("Pressure of that stage, in PRES_UNITS.", minimum=0),
                                "PRES_UNITS": p_units("PRES_VALUE"),
                            },
                            "required": ["PRES_STAGE", "PRES_VALUE", "PRES_UNITS"],
                            "additionalProperties": False,
                        },
                        "minItems": 1,
                    },
                },
                "required": ["VIEW_PRES", "STAGE_PRES"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "VIEW_PRES": string("TOP/BOTTOM: top pressure and pressure drops.", ["TOP/BOTTOM"]),
                    "STAGE_PRES": {
                        "type": "array",
                        "description": "Exactly one item.",
                        "items": top_bottom_item,
                        "minItems": 1,
                        "maxItems": 1,
                    },
                },
                "required": ["VIEW_PRES", "STAGE_PRES"],
                "additionalProperties": False,
            },
        ],
    }
    condenser = {
        "type": "object",
        "description": "Condenser specification.",
        "properties": {
            "OPT_COND_SPC": string(
                "VFRAC (default): the condenser outlet is at its bubble point (total) or dew point (partial-V); TEMP (subcooled or set temperature) is refused.",
                ["VFRAC", "TEMP"],
                default="VFRAC",
            ),
            "BASIS_RDV_VALUE": num(
                "Vapour fraction of the distillate (partial condensers with vapour and liquid distillate; not used by the mock)."
            ),
            "BASIS_RDV_BASIS": string("Basis of BASIS_RDV_VALUE.", ["MOLE", "MASS"]),
            "SC_OPTION": string(
                "Which streams a subcooling applies to; no effect without subcooling.",
                ["REFLUX-AND-DISTILLATE", "BOILUP-AND-BOTTOM"],
            ),
        },
        "required": ["OPT_COND_SPC", "SC_OPTION"],
        "additionalProperties": False,
    }
    design = {
        "type": "array",
        "description": "Column design specifications (varying an operating specification to meet a purity or flow). Not simulated by the mock: a non-empty list is refused (UnsupportedOption).",
        "items": {"type": "object"},
        "minItems": 0,
    }
    vary = {
        "type": "array",
        "description": "Variables adjusted by DESIGN_SPEC_DATA. Not simulated by the mock: a non-empty list is refused.",
        "items": {"type": "object"},
        "minItems": 0,
    }
    entry = block_entry(
        {
            "CONFIG_DATA": config,
            "FEED_STAGE_DATA": feed,
            "PROD_STAGE_DATA": prod,
            "PRES_DATA": pres,
            "CONDENSER_DATA": condenser,
            "DESIGN_SPEC_DATA": design,
            "VARY_DATA": vary,
        },
        ["CONFIG_DATA", "FEED_STAGE_DATA", "PROD_STAGE_DATA", "PRES_DATA", "CONDENSER_DATA"],
        closed=True,
    )
    return section(
        "RadFrac",
        BLOCK_DESCRIPTIONS["RadFrac"] + " Two to five components in the feed; vapour-liquid only.",
        entry,
        {"additionalProperties": False},
    )


BUILDERS = {
    "Mixer": mixer,
    "FSplit": fsplit,
    "Heater": heater,
    "Pump": pump,
    "Valve": valve,
    "Compr": compr,
    "Flash2": flash2,
    "Sep": sep,
    "HeatX": heatx,
    "RStoic": rstoic,
    "DSTWU": dstwu,
    "RadFrac": radfrac,
}


def main() -> None:
    """Write base.json and <Type>.json next to this file."""
    documents = {"base": base(list(BUILDERS)), **{name: build() for name, build in BUILDERS.items()}}
    for name, document in documents.items():
        (HERE / f"{name}.json").write_text(
            json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
