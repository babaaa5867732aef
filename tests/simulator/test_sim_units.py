"""Unit table conversions and the column solver's numerical parts."""

from __future__ import annotations

import numpy as np
import pytest

from simulator_mock.errors import UnknownUnitError
from simulator_mock.flowsheet.blocks.column_solver import thomas
from simulator_mock.flowsheet.blocks.dstwu import gilliland_reflux, gilliland_stages
from simulator_mock.properties.units import from_si, to_si


@pytest.mark.parametrize(
    ("value", "unit", "quantity", "si"),
    [
        (25.0, "C", "temperature", 298.15),
        (300.0, "K", "temperature", 300.0),
        (1.0, "atm", "pressure", 101325.0),
        (1.0, "bar", "pressure", 1e5),
        (101.325, "kPa", "pressure", 101325.0),
        (1.0, "MPa", "pressure", 1e6),
        (101325.0, "N/sqm", "pressure", 101325.0),
        (3.6, "kmol/hr", "molar_flow", 1.0),
        (3600.0, "kg/hr", "mass_flow", 1.0),
        (2.0, "kg/sec", "mass_flow", 2.0),
        (1.0, "kW", "power", 1000.0),
        (1.0, "Gcal/hr", "power", 4.184e9 / 3600),
        (1.0, "MMkcal/hr", "power", 4.184e9 / 3600),
        (1.0, "cal/sec", "power", 4.184),
        (5.0, "K", "delta_temperature", 5.0),
    ],
)
def test_to_si(value: float, unit: str, quantity: str, si: float) -> None:
    assert to_si(value, unit, quantity) == pytest.approx(si, rel=1e-7)


def test_defaults_and_result_units() -> None:
    assert to_si(25.0, None, "temperature") == pytest.approx(298.15)
    assert to_si(1.0, None, "pressure") == 1e5
    assert from_si(373.15, "temperature") == pytest.approx(100.0)
    assert from_si(1.0, "molar_flow") == pytest.approx(3.6)
    assert from_si(1500.0, "power") == 1.5


def test_unknown_unit_names_field_and_choices() -> None:
    with pytest.raises(UnknownUnitError) as info:
        to_si(1.0, "degC", "temperature", "stream_data.S-1.temperature.TEMP_UNITS")
    assert info.value.error_type == "UnknownUnit"
    assert "stream_data.S-1.temperature.TEMP_UNITS" in info.value.message and "C, K" in info.value.message


@pytest.mark.parametrize(
    ("unit", "quantity"),
    [
        ("F", "temperature"),
        ("R", "temperature"),
        ("psi", "pressure"),
        ("mol/s", "molar_flow"),
        ("MW", "power"),
    ],
)
def test_units_the_aspen_service_cannot_write_are_refused(unit: str, quantity: str) -> None:
    """The real service converts unit strings through a fixed table and fails on others; so does the mock."""
    with pytest.raises(UnknownUnitError) as info:
        to_si(1.0, unit, quantity, "field.X_UNITS")
    assert "field.X_UNITS" in info.value.message and repr(unit) in info.value.message


def test_thomas_matches_dense_solve() -> None:
    rng = np.random.default_rng(0)
    n = 12
    lower, upper = rng.uniform(0.1, 1, (3, n)), rng.uniform(0.1, 1, (3, n))
    diag = -(lower + upper + rng.uniform(0.5, 2, (3, n)))
    rhs = rng.uniform(-1, 1, (3, n))
    solved = thomas(lower, diag, upper, rhs)
    for k in range(3):
        A = np.diag(diag[k]) + np.diag(lower[k, 1:], -1) + np.diag(upper[k, :-1], 1)
        np.testing.assert_allclose(A @ solved[k], rhs[k], atol=1e-12)


def test_gilliland_round_trip() -> None:
    N = gilliland_stages(2.0, 1.3, 8.0)
    assert N > 8.0
    assert gilliland_reflux(N, 1.3, 8.0) == pytest.approx(2.0, rel=1e-10)
