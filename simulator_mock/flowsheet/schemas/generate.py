# ruff: noqa: E501  (long description strings are the content of this file)
"""Writes the served JSON Schema documents (base, one per block type, reactions, design_specs, convergence).

Run ``python -m simulator_mock.flowsheet.schemas.generate`` after editing a block class or this file; the JSON files are
what /api/schema serves and what the mock validates against. The base part is defined here; each block part is
its class's ``schema_part()`` (``simulator_mock/flowsheet/blocks/``), and the base part's block-type enum lists the
registered classes. Their structure (keys, types, required and conditional fields, enums) follows the real Aspen
service's schema documents, with the differences listed in docs/dialect_decisions.md; the descriptions are the
mock's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulator_mock.flowsheet.blocks import BLOCK_CLASSES
from simulator_mock.flowsheet.schema_fields import (
    BLOCK_KEY,
    DRAFT,
    MASS_FLOW_UNITS,
    MOLE_FLOW_UNITS,
    PRES_UNITS,
    STREAM_KEY,
    TEMP_UNITS,
    num,
    string,
    units,
    when,
)

HERE = Path(__file__).resolve().parent

# ---- base -----------------------------------------------------------------------------------------

PORTS = {
    "F(IN)": "feed inlet of any block (a block may have several)",
    "P(OUT)": "product outlet of single-outlet blocks (Mixer, Heater, Pump, Valve, Compr, RStoic); every outlet of FSplit and Sep (one stream per branch)",
    "V(OUT)": "vapour outlet of Flash2 and Flash3",
    "L(OUT)": "liquid outlet of Flash2",
    "L1(OUT)": "1st liquid outlet of Flash3 and Decanter; Extract's raffinate (1st liquid from the bottom stage)",
    "L2(OUT)": "2nd liquid outlet of Flash3 and Decanter; Extract's extract (2nd liquid from the top stage)",
    "S(IN)": "solvent inlet of Extract, entering the bottom stage (mock addition: the real enum has no port for it)",
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

#: Block type -> one-sentence description with its ports (from the block classes).
BLOCK_DESCRIPTIONS: dict[str, str] = {name: cls.description for name, cls in BLOCK_CLASSES.items()}

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
            "the type). Three optional sections have parts of their own, as on the Aspen service: reactions (the "
            "reaction sets RPlug and RCSTR name), design_specs (vary an input until a sampled result meets a "
            "target) and convergence (how recycle loops are converged); ask for the part by its name. "
            "henry_components is not simulated by the mock: a non-empty one is refused (UnsupportedOption)."
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
                            "Aspen property method. The mock models IDEAL, NRTL, UNIQUAC, WILSON, VAN-LAAR (parameters estimated from UNIFAC), UNIFAC, PENG-ROB, RK-SOAVE, SRK (Peneloux volume-translated) and CHAO-SEA (Chao-Seader liquid, Scatchard-Hildebrand, Redlich-Kwong vapour; hydrocarbons with H2 and light ends).",
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
            "stream_data": {
                "type": "object",
                "description": "Feed streams, keyed by stream name (required for every stream no block produces).",
                "patternProperties": {STREAM_KEY: stream_entry},
            },
        },
    }


#: Block type -> builder of its schema document (each block class's ``schema_part``), in the served order.
BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    name: cls.schema_part for name, cls in BLOCK_CLASSES.items()
}


def convergence_part() -> dict[str, Any]:
    """The real service's convergence document: tear-stream convergence options, with the mock's meanings."""
    return {
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
                        "Relative tolerance on the tear-stream variables (Aspen default 0.0001).",
                        minimum=1e-10,
                        maximum=0.1,
                    ),
                    "tear_method": string(
                        "Tear-stream method: WEGSTEIN (bounded acceleration) or DIRECT (successive substitution); NEWTON, BROYDEN and SECANT are refused.",
                        ["WEGSTEIN", "NEWTON", "BROYDEN", "DIRECT", "SECANT"],
                        default="WEGSTEIN",
                    ),
                    "weg_maxit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 1000,
                        "description": "Iteration cap of WEGSTEIN (Aspen default 30).",
                    },
                    "dir_maxit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 1000,
                        "description": "Iteration cap of DIRECT (Aspen default 30).",
                    },
                    "weg_qmin": num("Lower bound of the Wegstein acceleration factor (Aspen default -5)."),
                    "weg_qmax": num("Upper bound of the Wegstein acceleration factor (Aspen default 0)."),
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
    }


def reactions_part() -> dict[str, Any]:
    """The real service's reactions document (REAC_DATA array format), with the mock's meanings."""
    coef = {
        "type": "object",
        "patternProperties": {"^[A-Za-z0-9_-]+$": num("Stoichiometric coefficient.")},
        "additionalProperties": False,
    }
    item = {
        "type": "object",
        "properties": {
            "REAC_ID": string("Reaction number within the set, e.g. '1'.", pattern="^[0-9]+$"),
            "REACTYPE": string(
                "KINETIC or FORWARD: rate-controlled, forward only; REVERSIBLE: rate-controlled, the net rate "
                "r_forward (1 - Q/K) falls to zero at equilibrium (K from Gibbs energies of formation); EQUIL / "
                "EQUILIBRIUM: held at chemical equilibrium (RCSTR only; RPlug takes no equilibrium reactions, "
                "as in Aspen); CONV: conversion reactions of REAC-DIST sets (RadFrac), refused in reactors.",
                ["KINETIC", "EQUIL", "EQUILIBRIUM", "CONV", "FORWARD", "REVERSIBLE"],
            ),
            "COEF_DATA": {**coef, "description": "Reactants: {cid: coefficient (negative)}."},
            "COEF1_DATA": {**coef, "description": "Products: {cid: coefficient (positive)}."},
            "PHASE": string(
                "Reacting phase: L (liquid, Aspen's default) or V (vapour); S is refused.", ["L", "V", "S"]
            ),
            "R_D_RBASIS": string(
                "Rate basis: REAC-VOL (default; rate per m3 of the reacting phase's share of the reactor). CAT-WT is refused."
            ),
            "PRE_EXP": num(
                "Pre-exponential factor k in SI units (Aspen requires SI): rate kmol/(s m3) with molarities in "
                "kmol/m3, r = k T^n exp(-E/RT) prod C_i^a_i; exponents a_i = |coefficient| of each reactant "
                "(the service writes no exponents). Required for KINETIC / FORWARD / REVERSIBLE."
            ),
            "T_EXP": num("Temperature exponent n (T in K; default 0)."),
            "ACT_ENERGY_VALUE": num("Activation energy E, in ACT_ENERGY_UNITS (default 0)."),
            "ACT_ENERGY_UNITS": string(
                "Unit of the activation energy: cal/mol or Btu/lbmol (the units the service can write).",
                ["cal/mol", "Btu/lbmol"],
            ),
            "KEY_CID": string("Key component (CONV reactions of REAC-DIST sets)."),
            "CONV_A": num("Conversion parameter A (CONV)."),
            "CONV_B": num("Conversion parameter B (CONV)."),
            "CONV_C": num("Conversion parameter C (CONV)."),
            "CONV_D": num("Conversion parameter D (CONV)."),
        },
        "required": ["REAC_ID", "REACTYPE", "COEF_DATA", "COEF1_DATA"],
        "additionalProperties": False,
        "dependencies": {"ACT_ENERGY_VALUE": ["ACT_ENERGY_UNITS"]},
    }
    return {
        "type": "object",
        "description": (
            "Reaction sets keyed by set id (RPlug and RCSTR name them in RXN_ID). POWERLAW sets are simulated; "
            "LHHW is refused (the schema has no adsorption or driving-force fields); REAC-DIST sets are for RadFrac."
        ),
        "patternProperties": {
            "^.*$": {
                "type": "object",
                "properties": {
                    "type": string(
                        "Reaction set type.", ["POWERLAW", "LHHW", "REAC-DIST"], default="POWERLAW"
                    ),
                    "REAC_DATA": {
                        "type": "array",
                        "description": "The reactions.",
                        "minItems": 1,
                        "items": item,
                    },
                },
            }
        },
    }


def design_specs_part() -> dict[str, Any]:
    """The real service's design_specs document, with the variables the mock can sample and vary."""
    return {
        "type": "object",
        "description": (
            "Design specifications keyed by spec id: the manipulated variable is varied between bounds.LOWER and "
            "bounds.UPPER (Brent's method) until EXPR1 equals EXPR2 within TOL, or the run fails naming the spec."
        ),
        "patternProperties": {
            "^[A-Za-z0-9_-]+$": {
                "type": "object",
                "required": ["sampled_variables", "objective_function", "manipulated_variables", "bounds"],
                "properties": {
                    "sampled_variables": {
                        "type": "array",
                        "description": (
                            "Variables the expressions use: variable_name, variable_type MOLE-FLOW / MASS-FLOW / "
                            "MOLE-FRAC / MASS-FRAC (stream, component; flows in kmol/hr, kg/hr), STREAM-VAR (stream, "
                            "variable TEMP [C], PRES [bar], MOLE-FLOW [kmol/hr], MASS-FLOW [kg/hr], VFRAC) or "
                            "BLOCK-VAR (block, variable: a Parameter row of the block's result sheet, e.g. QCALC, B_TEMP)."
                        ),
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["variable_name", "variable_type"],
                            "additionalProperties": True,
                        },
                    },
                    "objective_function": {
                        "type": "object",
                        "required": ["EXPR1", "EXPR2", "TOL"],
                        "properties": {
                            "EXPR1": string("Expression of sampled variables (+ - * / ** and parentheses)."),
                            "TOL": num(
                                "Tolerance: converged when |EXPR1 - EXPR2| <= TOL.",
                                minimum=1e-10,
                                maximum=1e6,
                            ),
                            "EXPR2": string("Target expression (a number or an expression)."),
                        },
                    },
                    "manipulated_variables": {
                        "type": "array",
                        "description": (
                            "Exactly one variable to vary: variable_type BLOCK-VAR (block, variable_name: an input "
                            "of the block's data, e.g. TEMP, PRES, DUTY, VOL, LENGTH, REAC_TEMP), STREAM-VAR (stream, "
                            "variable_name TEMP, PRES or MOLE-FLOW / MASS-FLOW total) or MOLE-FLOW (stream, component). "
                            "The bounds are in the units the config gives that input."
                        ),
                        "minItems": 1,
                        "maxItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["variable_type", "variable_name"],
                            "additionalProperties": True,
                        },
                    },
                    "bounds": {
                        "type": "object",
                        "required": ["LOWER", "UPPER"],
                        "properties": {
                            "LOWER": num("Lower bound of the manipulated variable."),
                            "UPPER": num("Upper bound of the manipulated variable."),
                            "STEP_SIZE": num("Aspen's step size (the mock's Brent search does not need it)."),
                            "MAX_STEP_SIZ": num("Aspen's largest step (not needed by the Brent search)."),
                            "THRESHOLD": num("Aspen's threshold (not used)."),
                        },
                    },
                },
            }
        },
    }


#: Top-level config sections with a document of their own (category ``other`` on the real service).
SECTION_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "reactions": reactions_part,
    "design_specs": design_specs_part,
    "convergence": convergence_part,
}


def documents() -> dict[str, dict[str, Any]]:
    """Every served document by part name: base, one per block type, and one per section of ``other``."""
    return {
        "base": base(list(BUILDERS)),
        **{name: build() for name, build in BUILDERS.items()},
        **{name: {name: build()} for name, build in SECTION_BUILDERS.items()},
    }


def main() -> None:
    """Write base.json, <Type>.json, reactions.json, design_specs.json and convergence.json next to this file."""
    for name, document in documents().items():
        (HERE / f"{name}.json").write_text(
            json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
