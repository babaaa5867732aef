"""Unit conversion for config values: one table per quantity, to and from SI."""

from __future__ import annotations

from typing import Any, Final

from simulator_mock.errors import SpecificationError, UnknownUnitError

#: Absolute temperature: unit -> (scale, offset) with K = value * scale + offset.
TEMPERATURE: Final[dict[str, tuple[float, float]]] = {
    "C": (1.0, 273.15),
    "K": (1.0, 0.0),
    "F": (5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0),
    "R": (5.0 / 9.0, 0.0),
}

#: Multiplicative units: quantity -> unit -> factor to SI.
FACTORS: Final[dict[str, dict[str, float]]] = {
    # temperature differences (K)
    "delta_temperature": {"C": 1.0, "K": 1.0, "F": 5.0 / 9.0, "R": 5.0 / 9.0},
    # pressure (Pa); "psi" is gauge-free (absolute), as Aspen's psia
    "pressure": {
        "Pa": 1.0,
        "kPa": 1e3,
        "MPa": 1e6,
        "bar": 1e5,
        "atm": 101325.0,
        "psi": 6894.757293168361,
        "psia": 6894.757293168361,
        "mmHg": 133.322387415,
        "torr": 101325.0 / 760.0,
        "N/sqm": 1.0,
    },
    # molar flow (mol/s)
    "molar_flow": {
        "kmol/hr": 1000.0 / 3600.0,
        "mol/s": 1.0,
        "mol/hr": 1.0 / 3600.0,
        "kmol/s": 1000.0,
        "lbmol/hr": 453.59237 / 3600.0,
    },
    # mass flow (kg/s)
    "mass_flow": {
        "kg/hr": 1.0 / 3600.0,
        "kg/s": 1.0,
        "kg/sec": 1.0,
        "tonne/hr": 1000.0 / 3600.0,
        "lb/hr": 0.45359237 / 3600.0,
    },
    # heat duty and power (W); calories are thermochemical (4.184 J), as in Aspen Plus
    "power": {
        "W": 1.0,
        "kW": 1e3,
        "MW": 1e6,
        "Gcal/hr": 4.184e9 / 3600.0,
        "Mcal/hr": 4.184e6 / 3600.0,
        "kcal/hr": 4.184e3 / 3600.0,
        "cal/sec": 4.184,
        "Btu/hr": 1055.05585262 / 3600.0,
        "hp": 745.699872,
        "MMkcal/hr": 4.184e9 / 3600.0,
    },
    # molar energy (J/mol), e.g. activation energies
    "mole_enthalpy": {"J/mol": 1.0, "cal/mol": 4.184, "Btu/lbmol": 1055.05585262 / 453.59237},
    # volume (m3); "cum" is Aspen's cubic metre
    "volume": {"cum": 1.0, "l": 1e-3},
}

#: Units a config may use, per quantity: those the real Aspen service can write into its input tree (its
#: unit-string table); any other unit makes the real service fail to write the config, so the mock refuses
#: it too (UnknownUnit naming the field). The wider tables above stay for internal conversions.
CONFIG_UNITS: Final[dict[str, tuple[str, ...]]] = {
    "temperature": ("C", "K"),
    "delta_temperature": ("C", "K"),
    "pressure": ("bar", "kPa", "MPa", "atm", "N/sqm"),
    "molar_flow": ("kmol/hr",),
    "mass_flow": ("kg/hr", "kg/sec"),
    "power": ("kW", "Gcal/hr", "MMkcal/hr", "cal/sec"),
    "mole_enthalpy": ("cal/mol", "Btu/lbmol"),
    "volume": ("cum", "l"),
}

#: Default unit per quantity when a config omits the *_UNITS field.
DEFAULT_UNITS: Final[dict[str, str]] = {
    "temperature": "C",
    "delta_temperature": "C",
    "pressure": "bar",
    "molar_flow": "kmol/hr",
    "mass_flow": "kg/hr",
    "power": "kW",
    "mole_enthalpy": "cal/mol",
    "volume": "cum",
}

#: Fixed units of every results document.
RESULT_UNITS: Final[dict[str, str]] = {
    "temperature": "C",
    "pressure": "bar",
    "molar_flow": "kmol/hr",
    "mass_flow": "kg/hr",
    "power": "kW",
}


def units_of(quantity: str) -> list[str]:
    """Names of the units a config may use for a quantity (temperature, pressure, ...)."""
    return list(CONFIG_UNITS[quantity])


def flow_quantity(unit: str) -> str | None:
    """'molar_flow' or 'mass_flow' for a config flow unit, None when it is neither."""
    for quantity in ("molar_flow", "mass_flow"):
        if unit in CONFIG_UNITS[quantity]:
            return quantity
    return None


def to_si(value: float, unit: str | None, quantity: str, field: str = "") -> float:
    """Convert a config value to SI (K, Pa, mol/s, kg/s, W).

    Args:
        value: the number as written in the config.
        unit: its unit string; None means the quantity's default unit.
        quantity: one of temperature, delta_temperature, pressure, molar_flow, mass_flow, power.
        field: dotted path of the field, named in the error when the unit is unknown.

    Raises:
        UnknownUnitError: the unit is not one the Aspen service can write for the quantity.
    """
    unit = DEFAULT_UNITS[quantity] if unit is None else unit
    if unit not in CONFIG_UNITS[quantity]:
        raise UnknownUnitError(field, unit, units_of(quantity))
    if quantity == "temperature":
        try:
            scale, offset = TEMPERATURE[unit]
        except KeyError:
            raise UnknownUnitError(field, unit, units_of(quantity)) from None
        return value * scale + offset
    try:
        return value * FACTORS[quantity][unit]
    except KeyError:
        raise UnknownUnitError(field, unit, units_of(quantity)) from None


def from_si(value: float, quantity: str) -> float:
    """Convert an SI value to the fixed result unit of its quantity."""
    unit = RESULT_UNITS[quantity]
    if quantity == "temperature":
        scale, offset = TEMPERATURE[unit]
        return (value - offset) / scale
    return value / FACTORS[quantity][unit]


def read_pair(
    data: dict[str, Any], value_key: str, units_key: str, quantity: str, where: str
) -> float | None:
    """SI value of a ``<X>_VALUE`` / ``<X>_UNITS`` pair of a config object, None when the value is absent.

    The real service writes a value into Aspen only together with its unit, so a value without its unit is
    refused here (Aspen would be left without the input).

    Raises:
        SpecificationError: the value is given without its unit. UnknownUnitError: unit not writable.
    """
    value = data.get(value_key)
    if value is None:
        return None
    if data.get(units_key) is None:
        raise SpecificationError(
            f"{where}.{value_key} is given without {units_key}: the Aspen service writes a value only "
            f"together with its unit; add {units_key} (one of {', '.join(units_of(quantity))})"
        )
    return to_si(float(value), data[units_key], quantity, f"{where}.{units_key}")
