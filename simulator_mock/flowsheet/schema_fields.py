# ruff: noqa: E501  (long description strings are the content of this file)
"""Vocabulary of the served JSON Schema documents: field builders and unit lists shared by the base part
and every block class's ``schema_part``."""

from __future__ import annotations

from typing import Any

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


def spec_object(desc: str, props: dict[str, Any], **rest: Any) -> dict[str, Any]:
    """An input section's schema (a block's SPEC_DATA): an object described by ``desc`` with the properties
    ``props``, then the ``rest`` of its keywords (required, allOf, additionalProperties ...)."""
    return {"type": "object", "description": desc, "properties": props, **rest}


def block_entry(props: dict[str, Any], required: list[str], closed: bool, desc: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if desc:
        out["description"] = desc
    if closed:
        out["additionalProperties"] = False
    return out


PRES_MEANING = "> 0: outlet pressure; <= 0: pressure drop below the (lowest) inlet pressure, 0 = no change (Aspen's convention)"


def p_value(desc: str = PRES_MEANING, **kw: Any) -> dict[str, Any]:
    return num(f"Pressure, in PRES_UNITS: {desc}.", **kw)


def spec_fields(*quantities: str) -> list[str]:
    """The config fields of outlet quantities: ``<Q>_VALUE`` and ``<Q>_UNITS`` (VFRAC has no unit)."""
    return [name for q in quantities for name in (f"{q}_VALUE", f"{q}_UNITS") if name != "VFRAC_UNITS"]


HEATER_OPTIONS = {
    "TP": ("outlet temperature and pressure", spec_fields("TEMP", "PRES")),
    "PD": ("outlet pressure and heat duty (0 = adiabatic)", spec_fields("DUTY", "PRES")),
    "TD": (
        "outlet temperature and heat duty (refused by the mock: UnsupportedOption)",
        spec_fields("TEMP", "DUTY"),
    ),
    "TV": ("outlet temperature and vapour fraction", spec_fields("TEMP", "VFRAC")),
    "DTD": ("temperature change and heat duty (refused by the mock)", spec_fields("DUTY", "DELT")),
    "PDT": ("outlet pressure and temperature change from the inlet", spec_fields("PRES", "DELT")),
    "PV": ("outlet pressure and vapour fraction", spec_fields("PRES", "VFRAC")),
    "DTV": ("temperature change from the inlet and vapour fraction", spec_fields("DELT", "VFRAC")),
    "PDEGSUB": (
        "outlet pressure and degrees of subcooling below the bubble point",
        spec_fields("PRES", "DEGSUB"),
    ),
    "PDEGSUP": (
        "outlet pressure and degrees of superheat above the dew point",
        spec_fields("PRES", "DEGSUP"),
    ),
    "DDPPARM": ("duty with a pressure-drop correlation (refused by the mock)", spec_fields("DUTY", "PRES")),
    "TDPPARM": (
        "temperature with a pressure-drop correlation (refused by the mock)",
        spec_fields("TEMP", "PRES"),
    ),
    "DTDPPARM": (
        "temperature change with a pressure-drop correlation (refused by the mock)",
        spec_fields("DELT", "PRES"),
    ),
    "VDPPARM": (
        "vapour fraction with a pressure-drop correlation (refused by the mock)",
        spec_fields("VFRAC", "PRES"),
    ),
    "DEGSUPDPPARM": (
        "superheat with a pressure-drop correlation (refused by the mock)",
        spec_fields("DEGSUP", "PRES"),
    ),
    "DEGSUBDPPARM": (
        "subcooling with a pressure-drop correlation (refused by the mock)",
        spec_fields("DEGSUB", "PRES"),
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

#: The outlet fields of a SPEC_DATA that fixes temperature, vapour fraction, pressure or duty (Flash2, Flash3,
#: RStoic): no temperature change, superheat or subcooling.
FLASH_OUTLET_FIELDS = [
    "TEMP_VALUE",
    "TEMP_UNITS",
    "VFRAC_VALUE",
    "PRES_VALUE",
    "PRES_UNITS",
    "DUTY_VALUE",
    "DUTY_UNITS",
]


def flash_drum_spec(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """SPEC_DATA of a flash drum (Flash2, Flash3): the Heater's PD, TD, TP, TV and PV options."""
    options = {k: HEATER_OPTIONS[k] for k in ("PD", "TD", "TP", "TV", "PV")}
    return outlet_spec(options, FLASH_OUTLET_FIELDS, extra)
