"""Textbook numbers through the whole engine, and the same numbers from thermo directly."""

from __future__ import annotations

import pytest
from _support.sim import assert_closed, direct_flasher

from simulator_mock import run_config
from simulator_mock.examples import boiling_point, water_mixing
from simulator_mock.flowsheet.builders import METHANOL, WATER, component


def test_water_normal_boiling_point() -> None:
    results = run_config(boiling_point(WATER))
    assert_closed(results)
    T = results["streams"]["SAT-1"]["temperature_C"]
    assert pytest.approx(99.97, abs=0.5) == T
    flasher, _ = direct_flasher(["water"], "NRTL")
    assert pytest.approx(flasher.flash(P=101325, VF=0).T - 273.15, abs=1e-6) == T


def test_methanol_normal_boiling_point() -> None:
    results = run_config(boiling_point(METHANOL))
    T = results["streams"]["SAT-1"]["temperature_C"]
    assert pytest.approx(64.7, abs=0.5) == T
    flasher, _ = direct_flasher(["methanol"], "NRTL")
    assert pytest.approx(flasher.flash(P=101325, VF=0).T - 273.15, abs=1e-6) == T


def test_methanol_water_bubble_point() -> None:
    """50/50 mol methanol/water boils near 73 C at 1 atm (NRTL, ChemSep parameters)."""
    results = run_config(boiling_point(METHANOL, {"MEOH": 0.5, "WATER": 0.5}))
    assert_closed(results)
    stream = results["streams"]["SAT-1"]
    assert stream["temperature_C"] == pytest.approx(73.0, abs=1.0)
    assert stream["vapor_fraction"] == 0.0
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    direct = flasher.flash(P=101325, VF=0, zs=[0.5, 0.5])
    assert stream["temperature_C"] == pytest.approx(direct.T - 273.15, abs=1e-6)
    assert results["warnings"] == []  # the pair has ChemSep NRTL parameters


def test_ideal_solution_overestimates_the_azeotrope_free_bubble_point() -> None:
    """Raoult's law ignores methanol/water non-ideality: its bubble point lies above NRTL's."""
    config = boiling_point(METHANOL, {"MEOH": 0.5, "WATER": 0.5})
    config["property_methods"] = [{"method_name": "IDEAL", "is_basis_method": True}]
    T_ideal = run_config(config)["streams"]["SAT-1"]["temperature_C"]
    assert 75.0 < T_ideal < 78.0


def test_equal_water_streams_mix_to_the_mean_temperature() -> None:
    results = run_config(water_mixing())
    assert_closed(results)
    mix = results["streams"]["MIX-1"]
    assert mix["temperature_C"] == pytest.approx(50.0, abs=0.5)
    assert mix["molar_flow_kmol_hr"] == pytest.approx(200.0)
    feeds = results["streams"]["COLD-1"]["enthalpy_flow_kW"] + results["streams"]["HOT-1"]["enthalpy_flow_kW"]
    assert mix["enthalpy_flow_kW"] == pytest.approx(feeds, rel=1e-9)


def test_units_of_the_inputs_do_not_change_the_answer() -> None:
    base = run_config(water_mixing())["streams"]["MIX-1"]["temperature_C"]
    config = water_mixing()
    hot = config["stream_data"]["HOT-1"]
    hot["temperature"] = {"TEMP_VALUE": 353.15, "TEMP_UNITS": "K"}
    hot["pressure"] = {"PRES_VALUE": 1.0, "PRES_UNITS": "atm"}
    hot["flow"] = {
        "FLOWBASE": "MASS",
        "TOTFLOW_VALUE": 1801.528,
        "TOTFLOW_UNITS": "kg/hr",
        "BASIS": "MASS-FLOW",
        "WATER": {"FLOW_VALUE": 1801.528, "FLOW_UNITS": "kg/hr", "FLOW_BASIS": "MASS-FLOW"},
    }
    cold = config["stream_data"]["COLD-1"]
    cold["temperature"] = {"TEMP_VALUE": 293.15, "TEMP_UNITS": "K"}
    cold["pressure"] = {"PRES_VALUE": 101.325, "PRES_UNITS": "kPa"}
    cold["flow"] = {
        "FLOWBASE": "MASS",
        "TOTFLOW_VALUE": 1801.528 / 3600,
        "TOTFLOW_UNITS": "kg/sec",
        "BASIS": "MOLE-FRAC",
        "WATER": {"FLOW_VALUE": 1, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"},
    }
    assert run_config(config)["streams"]["MIX-1"]["temperature_C"] == pytest.approx(base, abs=1e-6)


def test_missing_nrtl_pair_is_estimated_from_unifac_and_reported() -> None:
    """Water/isopropanol has no ChemSep NRTL pair: UNIFAC-estimated parameters still give its azeotrope."""

    def bubble_point(x_ipa: float) -> dict:
        config = boiling_point(METHANOL, {"MEOH": x_ipa, "WATER": 1 - x_ipa})
        config["components"] = [component("MEOH", "isopropanol"), component("WATER", "water")]
        return run_config(config)

    results = bubble_point(0.68)
    assert any("isopropanol/water" in w and "UNIFAC" in w for w in results["warnings"])
    assert results["liquid_model"] == "NRTL"
    T_azeo = results["streams"]["SAT-1"]["temperature_C"]
    assert T_azeo == pytest.approx(80.4, abs=1.5)  # textbook azeotrope: 80.4 C at x(IPA) about 0.68
    # minimum-boiling azeotrope: both sides boil higher
    for x in (0.3, 0.95):
        assert bubble_point(x)["streams"]["SAT-1"]["temperature_C"] > T_azeo
