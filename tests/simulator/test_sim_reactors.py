"""Kinetic reactors, reaction sets and design specs against references that do not come from the engine:
first-order CSTR and PFR conversions, an adiabatic energy balance by hand, JANAF water-gas-shift equilibrium,
and design specs meeting (or provably missing) their targets (issue 10)."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from _support.sim import assert_closed

from simulator_mock import SimulationError, run_config
from simulator_mock.flowsheet.builders import feed, powerlaw, rcstr_data, reactor_config, rplug_data
from simulator_mock.flowsheet.kinetics import PhaseComposition, Reaction, net_rate
from simulator_mock.flowsheet.workbook import sheets

R = 8.314462618
F_NC4 = 100.0  # kmol/hr
K_RATE = 0.05  # 1/s

WGS = [
    {"cid": "CO", "name": "CO", "cas_number": "630-08-0", "database_name": "CARBON-MONOXIDE"},
    {"cid": "H2O", "name": "H2O", "cas_number": "7732-18-5", "database_name": "WATER"},
    {"cid": "CO2", "name": "CO2", "cas_number": "124-38-9", "database_name": "CARBON-DIOXIDE"},
    {"cid": "H2", "name": "H2", "cas_number": "1333-74-0", "database_name": "HYDROGEN"},
]
SHIFT = {"reactants": {"CO": -1, "H2O": -1}, "products": {"CO2": 1, "H2": 1}}


def gas_tau(volume_m3: float, T_C: float, P_bar: float, F_kmol_hr: float = F_NC4) -> float:
    """Residence time [s] of an ideal gas whose moles do not change: V P / (F R T)."""
    return volume_m3 * P_bar * 1e5 / (F_kmol_hr / 3.6 * R * (T_C + 273.15))


def conversion(results: dict[str, Any]) -> float:
    return 1.0 - results["streams"]["PRO-1"]["component_flows_kmol_hr"]["NC4"] / F_NC4


def rows(results: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    return dict(map(tuple, sheets(results, config)["R1_result"][1:]))


# ---- isothermal first-order reactors ------------------------------------------------------------


def test_isothermal_pfr_first_order_conversion_is_one_minus_exp() -> None:
    config = reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    results = run_config(config)
    tau = gas_tau(10.0 * math.pi * 0.25**2, 100.0, 1.0)
    assert conversion(results) == pytest.approx(1.0 - math.exp(-K_RATE * tau), rel=1e-6)
    assert results["blocks"]["R1"]["residence_time_hr"] == pytest.approx(tau / 3600.0, rel=1e-6)
    assert_closed(results)
    sheet = rows(results, config)
    assert sheet["TMIN"] == pytest.approx(100.0) and sheet["TMAX"] == pytest.approx(100.0)
    assert sheet["RES_TIME_UNITS"] == "hr" and sheet["QCALC_UNITS"] == "kW"
    assert sheet["QCALC"] < 0  # the isomerisation is exothermic; T-SPEC removes the heat


def test_multitube_pfr_volume_is_tubes_times_tube_volume() -> None:
    data = rplug_data(5.0, 0.1, T_C=100.0)
    data["CONFIG_DATA"].update({"CHK_NTUBE": "YES", "NTUBE": 50})
    results = run_config(reactor_config("RPlug", data, powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})))
    tau = gas_tau(50 * 5.0 * math.pi * 0.05**2, 100.0, 1.0)
    assert conversion(results) == pytest.approx(1.0 - math.exp(-K_RATE * tau), rel=1e-6)


def test_isothermal_gas_cstr_first_order_conversion() -> None:
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    results = run_config(config)
    tau = gas_tau(2.0, 100.0, 1.0)
    assert conversion(results) == pytest.approx(K_RATE * tau / (1 + K_RATE * tau), rel=1e-8)
    assert_closed(results)
    sheet = rows(results, config)
    assert sheet["OT_VOL"] == pytest.approx(2.0) and sheet["OT_VOL_UNITS"] == "cum"
    assert sheet["TOT_RES_TIME"] == pytest.approx(tau / 3600.0, rel=1e-6)
    assert sheet["B_TEMP"] == pytest.approx(100.0)


def test_isothermal_liquid_cstr_first_order_conversion() -> None:
    """Liquid n-butane at 25 C and 20 bar: X = k tau / (1 + k tau) with tau = V / Q_out, and Q_out agrees with
    the published liquid density of n-butane (573 kg/m3 at 25 C, saturated; 5 %)."""
    k = 1e-3
    config = reactor_config(
        "RCSTR",
        rcstr_data(0.5, T_C=25.0, P_bar=20.0, phase="L"),
        powerlaw(k=k, phase="L"),
        feed(25, 20, {"NC4": 10}),
    )
    results = run_config(config)
    tau_s = results["blocks"]["R1"]["residence_time_hr"] * 3600.0
    X = 1.0 - results["streams"]["PRO-1"]["component_flows_kmol_hr"]["NC4"] / 10.0
    assert pytest.approx(k * tau_s / (1 + k * tau_s), rel=1e-8) == X
    Q_published = 10.0 / 3.6 * 58.12e-3 / 573.0  # m3/s of liquid n-butane (the isomer's density is close)
    assert 0.5 / tau_s == pytest.approx(Q_published, rel=0.05)
    assert results["streams"]["PRO-1"]["vapor_fraction"] == 0.0
    assert_closed(results)


def test_activation_energy_in_cal_per_mol_scales_the_rate_by_arrhenius() -> None:
    E = 10000.0  # cal/mol
    k0 = K_RATE * math.exp(E * 4.184 / (R * 373.15))  # so that k(100 C) = K_RATE
    config = reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=k0, E_cal_mol=E), feed(100, 1, {"NC4": 100})
    )
    tau = gas_tau(10.0 * math.pi * 0.25**2, 100.0, 1.0)
    assert conversion(run_config(config)) == pytest.approx(1.0 - math.exp(-K_RATE * tau), rel=1e-6)


# ---- adiabatic reactors: energy balance by hand -------------------------------------------------

# Smith, Van Ness & Abbott, Introduction to Chemical Engineering Thermodynamics, Tables C.1 (ideal-gas
# Cp/R = A + B T + C T^2) and C.4 (standard enthalpies of formation at 298.15 K, J/mol).
CP = {"NC4": (1.935, 36.915e-3, -11.402e-6), "IC4": (1.677, 37.853e-3, -11.945e-6)}
HF = {"NC4": -125790.0, "IC4": -134990.0}


def _H(cid: str, T: float) -> float:
    A, B, C = CP[cid]
    T0 = 298.15
    return HF[cid] + R * (A * (T - T0) + B / 2 * (T**2 - T0**2) + C / 3 * (T**3 - T0**3))


def _adiabatic_T(X: float, T_in: float) -> float:
    from scipy.optimize import brentq

    H_in = _H("NC4", T_in)
    return brentq(lambda T: (1 - X) * _H("NC4", T) + X * _H("IC4", T) - H_in, 250.0, 800.0)


@pytest.mark.parametrize("block", ["RPlug", "RCSTR"])
def test_adiabatic_outlet_temperature_matches_a_hand_energy_balance(block: str) -> None:
    data = rplug_data(10.0, 0.5, T_C=None) if block == "RPlug" else rcstr_data(2.0, duty_kW=0.0)
    results = run_config(reactor_config(block, data, powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})))
    X = conversion(results)
    assert 0.05 < X < 0.2
    T_out = results["streams"]["PRO-1"]["temperature_C"] + 273.15
    T_hand = _adiabatic_T(X, 373.15)
    # the databases' heats of formation differ by 3 % (SVA -9.20 kJ/mol, chemicals -9.51 kJ/mol): 0.5 K
    assert T_out == pytest.approx(T_hand, abs=0.5)
    assert T_out - 373.15 == pytest.approx(T_hand - 373.15, rel=0.05)
    assert results["blocks"]["R1"]["duty_kW"] == 0.0
    assert_closed(results)


def test_adiabatic_pfr_heats_up_along_the_reactor_and_reacts_faster_than_isothermal() -> None:
    E = 15000.0
    k0 = K_RATE * math.exp(E * 4.184 / (R * 373.15))
    rx = powerlaw(k=k0, E_cal_mol=E)
    adiabatic = run_config(reactor_config("RPlug", rplug_data(10.0, 0.5), rx, feed(100, 1, {"NC4": 100})))
    isothermal = run_config(
        reactor_config("RPlug", rplug_data(10.0, 0.5, T_C=100.0), rx, feed(100, 1, {"NC4": 100}))
    )
    assert conversion(adiabatic) > conversion(isothermal)
    block = adiabatic["blocks"]["R1"]
    assert block["minimum_temperature_C"] == pytest.approx(100.0)
    assert block["maximum_temperature_C"] == pytest.approx(adiabatic["streams"]["PRO-1"]["temperature_C"])
    assert_closed(adiabatic)


def test_cstr_duty_specification_is_met() -> None:
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, duty_kW=-50.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    results = run_config(config)
    assert results["blocks"]["R1"]["duty_kW"] == pytest.approx(-50.0, abs=1e-3)
    assert_closed(results)


# ---- equilibrium and reversible reactions -------------------------------------------------------

# NIST-JANAF Thermochemical Tables: standard Gibbs energies of formation [kJ/mol] of CO, H2O(g), CO2.
JANAF_DGF = {800.0: (-182.494, -203.606, -395.527), 900.0: (-191.416, -198.083, -395.658)}


def _janaf_K(T: float) -> float:
    co, h2o, co2 = JANAF_DGF[T]
    return math.exp(-(co2 - co - h2o) * 1000.0 / (R * T))


def _shift_quotient(results: dict[str, Any]) -> float:
    f = results["streams"]["PRO-1"]["component_flows_kmol_hr"]
    return f["CO2"] * f["H2"] / (f["CO"] * f["H2O"])


@pytest.mark.parametrize("T", [800.0, 900.0])
def test_equilibrium_cstr_water_gas_shift_matches_janaf(T: float) -> None:
    T_C = T - 273.15
    config = reactor_config(
        "RCSTR",
        rcstr_data(1.0, T_C=T_C, P_bar=10.0),
        powerlaw(reactype="EQUIL", **SHIFT),
        feed(T_C, 10, {"CO": 50, "H2O": 50}),
        components=WGS,
    )
    results = run_config(config)
    assert _shift_quotient(results) == pytest.approx(_janaf_K(T), rel=0.03)
    assert_closed(results)


def test_reversible_pfr_approaches_the_same_equilibrium() -> None:
    T_C = 900.0 - 273.15
    feed_data = feed(T_C, 10, {"CO": 50, "H2O": 50})
    equilibrium = run_config(
        reactor_config(
            "RCSTR", rcstr_data(1.0, T_C=T_C, P_bar=10.0), powerlaw(reactype="EQUIL", **SHIFT), feed_data, WGS
        )
    )
    reversible = run_config(
        reactor_config(
            "RPlug",
            rplug_data(50.0, 0.5, T_C=T_C, P_bar=10.0),
            powerlaw(reactype="REVERSIBLE", k=100.0, **SHIFT),
            copy.deepcopy(feed_data),
            WGS,
        )
    )
    assert _shift_quotient(reversible) == pytest.approx(_shift_quotient(equilibrium), rel=1e-3)
    assert_closed(reversible)


def test_reversible_rate_vanishes_at_equilibrium_and_changes_sign_beyond() -> None:
    nu = np.array([-1.0, 1.0])
    reaction = Reaction("S/1", "S", "1", "REVERSIBLE", "V", nu, np.array([1.0, 0.0]), 2.0, 0.0, 0.0)
    ln_K = math.log(3.0)
    Vm = R * 500.0 / 1e5
    ln_f = np.zeros(2)

    def rate(x_product: float) -> float:
        phase = PhaseComposition(np.array([1 - x_product, x_product]), Vm, ln_f)
        return net_rate(reaction, 500.0, phase, ln_K)

    assert rate(0.75) == pytest.approx(0.0, abs=1e-12)  # x_B / x_A = 3 = K
    assert rate(0.5) > 0 > rate(0.9)
    C_A = 1.0 / (1000.0 * Vm)
    assert rate(0.0) == pytest.approx(2.0 * C_A)  # forward only when no product is present


# ---- design specs ---------------------------------------------------------------------------------


def _spec(target: float, lower: float = 0.1, upper: float = 100.0) -> dict[str, Any]:
    return {
        "DS-1": {
            "sampled_variables": [
                {"variable_name": "FA", "variable_type": "MOLE-FLOW", "stream": "PRO-1", "component": "NC4"},
                {"variable_name": "Q", "variable_type": "BLOCK-VAR", "block": "R1", "variable": "QCALC"},
            ],
            "objective_function": {"EXPR1": "1 - FA/100", "EXPR2": str(target), "TOL": 1e-5},
            "manipulated_variables": [
                {"variable_type": "BLOCK-VAR", "block": "R1", "variable_name": "VOL", "sentence": "PARAM"}
            ],
            "bounds": {"LOWER": lower, "UPPER": upper},
        }
    }


def test_design_spec_varies_the_cstr_volume_to_meet_a_conversion() -> None:
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    config["design_specs"] = _spec(0.5)
    results = run_config(config)
    assert conversion(results) == pytest.approx(0.5, abs=1e-5)
    spec = results["design_specs"]["DS-1"]
    # X = k tau / (1 + k tau) = 0.5 -> tau = 1/k -> V = Q / k
    Q = F_NC4 / 3.6 * R * 373.15 / 1e5
    assert spec["value"] == pytest.approx(Q / K_RATE, rel=1e-4)
    assert abs(spec["objective"]) <= spec["tolerance"]
    assert_closed(results)


def test_design_spec_on_a_block_result_varies_a_heater_temperature() -> None:
    """Vary the RPlug temperature until its duty is -40 kW (a BLOCK-VAR sampled from the result sheet)."""
    config = reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    config["design_specs"] = {
        "DS-2": {
            "sampled_variables": [
                {"variable_name": "QR", "variable_type": "BLOCK-VAR", "block": "R1", "variable": "QCALC"}
            ],
            "objective_function": {"EXPR1": "QR", "EXPR2": "-40", "TOL": 1e-3},
            "manipulated_variables": [
                {"variable_type": "BLOCK-VAR", "block": "R1", "variable_name": "REAC_TEMP"}
            ],
            "bounds": {"LOWER": 60.0, "UPPER": 140.0},
        }
    }
    results = run_config(config)
    assert results["blocks"]["R1"]["duty_kW"] == pytest.approx(-40.0, abs=1e-3)


def test_unreachable_design_spec_fails_naming_the_spec_and_the_bound_values() -> None:
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    config["design_specs"] = _spec(0.5, lower=0.1, upper=5.0)
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "NotConverged"
    for word in ("design_specs.DS-1", "LOWER", "UPPER", "R1.VOL"):
        assert word in info.value.message


@pytest.mark.parametrize(
    ("change", "error_type", "words"),
    [
        (
            lambda c: c["reactions"]["R-1"].update(type="LHHW"),
            "UnsupportedOption",
            ["reactions.R-1.type", "LHHW"],
        ),
        (
            lambda c: c["reactions"]["R-1"]["REAC_DATA"][0].update(REACTYPE="EQUIL"),
            "UnsupportedOption",
            ["reactions.R-1", "RPlug"],
        ),
        (
            lambda c: c["blocks_RPlug_data"]["R1"]["REAC_DATA"]["RXN_ID"].update({"1": "R-9"}),
            "InvalidSpecification",
            ["RXN_ID", "R-9"],
        ),
        (
            lambda c: c["reactions"]["R-1"]["REAC_DATA"][0]["COEF1_DATA"].update(IC4=2),
            "UnbalancedReaction",
            ["reactions.R-1"],
        ),
        (
            lambda c: c["reactions"]["R-1"]["REAC_DATA"][0].update(
                ACT_ENERGY_VALUE=1.0, ACT_ENERGY_UNITS="kJ/mol"
            ),
            "UnknownUnit",
            ["ACT_ENERGY_UNITS", "kJ/mol"],
        ),
        (
            lambda c: c["reactions"]["R-1"]["REAC_DATA"][0].pop("PRE_EXP"),
            "InvalidSpecification",
            ["PRE_EXP"],
        ),
        (
            lambda c: c["blocks_RPlug_data"]["R1"]["SPEC_DATA"].update(TYPE="CO-COOL"),
            "UnsupportedOption",
            ["SPEC_DATA.TYPE", "CO-COOL"],
        ),
    ],
)
def test_bad_reaction_inputs_are_refused_naming_the_field(
    change: Any, error_type: str, words: list[str]
) -> None:
    config = reactor_config(
        "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    change(config)
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == error_type, info.value.message
    for word in words:
        assert word in info.value.message, (word, info.value.message)


# ---- recycle speed: the extrapolation keeps the fixed point and saves iterations -------------------


def test_wegstein_tail_extrapolation_keeps_the_fixed_point_and_saves_iterations() -> None:
    """A coupled linear loop whose Wegstein factors the bound q >= -5 holds back (as an inert building up)."""
    from simulator_mock.flowsheet import convergence
    from simulator_mock.flowsheet.convergence import ConvergenceSettings, converge

    A = np.array([[0.9, 0.05], [0.02, 0.85]])
    b = np.array([1.0, 2.0])
    exact = np.linalg.solve(np.eye(2) - A, b)
    settings = ConvergenceSettings(tolerance=1e-9, max_iterations=300)

    def solve() -> tuple[int, np.ndarray]:
        state = {}

        def evaluate(x: np.ndarray) -> np.ndarray:
            state["x"] = x
            return A @ x + b

        report = converge(np.zeros(2), evaluate, lambda g: np.maximum(np.abs(g), 1.0), settings, ("T-1",))
        return report.iterations, state["x"]

    fast, x_fast = solve()
    original = convergence._steady_ratio
    try:
        convergence._steady_ratio = lambda ratios: None  # plain bounded Wegstein
        slow, x_slow = solve()
    finally:
        convergence._steady_ratio = original
    assert x_fast == pytest.approx(exact, rel=1e-7) and x_slow == pytest.approx(exact, rel=1e-7)
    assert fast < slow


def test_reactor_recycle_example_closes() -> None:
    from simulator_mock.examples import reactor_recycle

    results = run_config(reactor_recycle())
    assert_closed(results)
    product = results["streams"]["PRO-1"]["component_flows_kmol_hr"]
    assert product["NC4"] + product["IC4"] == pytest.approx(100.0, rel=1e-6)  # isomerisation keeps the moles
    assert results["convergence"]["loops"][0]["iterations"] <= 30


def test_design_spec_run_through_the_real_routes(inproc: Any) -> None:
    """POST /run-aspen-simulation with a design spec, then read the reactor's sheet via /get-aspen-result."""
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    config["design_specs"] = _spec(0.5)
    answer = inproc.post("/run-aspen-simulation", json=config)
    assert answer.status_code == 200, answer.text
    body = inproc.get("/get-aspen-result", params={"file_path": answer.json()["result_file_path"]}).json()
    sheet = {r["Parameter"]: r["Value"] for r in body["data"]["R1_result"]["data"]}
    Q = F_NC4 / 3.6 * R * 373.15 / 1e5
    assert sheet["OT_VOL"] == pytest.approx(Q / K_RATE, rel=1e-4)
    summary = body["data"]["Stream Summary"]["data"]
    row = next(r for r in summary if r["Unnamed: 0"] == "NC4" and r["Units"] == "kmol/hr")
    assert row["PRO-1"] == pytest.approx(50.0, abs=1e-3)


def test_unreachable_design_spec_answers_the_real_failure_shape(inproc: Any) -> None:
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(k=K_RATE), feed(100, 1, {"NC4": 100})
    )
    config["design_specs"] = _spec(0.5, lower=0.1, upper=5.0)
    answer = inproc.post("/run-aspen-simulation", json=config)
    assert answer.status_code == 201
    body = answer.json()
    assert body["success"] is False and body["error_code"] == "NotConverged"
    assert "design_specs.DS-1" in body["error_message"]


@pytest.mark.parametrize(("reactype", "reacts"), [("KINETIC", False), ("REVERSIBLE", True), ("EQUIL", True)])
def test_cstr_fed_only_the_product(reactype: str, reacts: bool) -> None:
    """Forward-only kinetics cannot run without the reactant; reversible and equilibrium ones run back."""
    config = reactor_config(
        "RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(reactype=reactype, k=K_RATE), feed(100, 1, {"IC4": 100})
    )
    results = run_config(config)
    back = results["streams"]["PRO-1"]["component_flows_kmol_hr"]["NC4"]
    assert (back > 0.1) is reacts and back >= 0.0
    assert_closed(results)
