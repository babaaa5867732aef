"""Every block type on a small flowsheet, against thermo's direct calculation, hand formulas, closure."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support.sim import assert_closed, direct_flasher

from simulator_mock import run_config
from simulator_mock.examples import (
    column,
    combustion,
    compressor,
    flash_drum,
    heat_exchanger,
    heater,
    process_train,
    pump,
    sep,
    shortcut_column,
    valve,
)
from simulator_mock.flowsheet.builders import component, feed

KMOL_HR = 1000.0 / 3600.0  # mol/s per kmol/hr


@pytest.fixture
def pump_at_75_percent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real schema has no pump efficiency (Aspen's default curve applies); the physics checks below
    fix it at 75 % so that their reference values hold."""
    import simulator_mock.flowsheet.blocks.pressure_changers as pressure_changers

    monkeypatch.setattr(pressure_changers, "pump_efficiency", lambda flow_m3_hr: 0.75)


def test_heater_duty_equals_thermo_enthalpy_change() -> None:
    results = run_config(heater())
    assert_closed(results)
    flasher, _ = direct_flasher(["water"], "IDEAL")
    dH = flasher.flash(T=353.15, P=1e5).H() - flasher.flash(T=298.15, P=1e5).H()
    duty = results["blocks"]["H1"]["duty_kW"]
    assert duty == pytest.approx(100 * KMOL_HR * dH / 1000, rel=1e-9)
    # IAPWS-95: 115.2 kW. The liquid enthalpy integrates the liquid heat capacity (simulator_mock/
    # liquid_enthalpy.py); H_ig - H_vap(T) gave 118.4 kW (2.8 % high)
    iapws = _iapws_liquid(353.15, 1e5).H() - _iapws_liquid(298.15, 1e5).H()
    assert 100 * KMOL_HR * iapws / 1000 == pytest.approx(115.2, abs=0.1)
    assert duty == pytest.approx(100 * KMOL_HR * iapws / 1000, rel=0.002)
    assert results["streams"]["PROD-1"]["enthalpy_flow_kW"] - results["streams"]["FEED-1"][
        "enthalpy_flow_kW"
    ] == (pytest.approx(duty, rel=1e-9))


def test_flash2_matches_thermo_tp_flash() -> None:
    results = run_config(flash_drum())
    assert_closed(results)
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    direct = flasher.flash(T=353.15, P=101325, zs=[0.5, 0.5])
    block, vap, liq = results["blocks"]["F1"], results["streams"]["VAP-1"], results["streams"]["LIQ-1"]
    assert block["vapor_fraction"] == pytest.approx(direct.VF, rel=1e-9)
    assert vap["mole_fractions"]["MEOH"] == pytest.approx(direct.gas.zs[0], rel=1e-9)
    assert liq["mole_fractions"]["MEOH"] == pytest.approx(direct.liquid0.zs[0], rel=1e-9)
    assert vap["molar_flow_kmol_hr"] + liq["molar_flow_kmol_hr"] == pytest.approx(100.0, rel=1e-12)
    assert (vap["vapor_fraction"], liq["vapor_fraction"]) == (1.0, 0.0)
    # methanol is the light component: enriched in the vapour
    assert vap["mole_fractions"]["MEOH"] > 0.5 > liq["mole_fractions"]["MEOH"]


def test_pump_work_is_volume_times_pressure_rise_over_efficiency(pump_at_75_percent: None) -> None:
    from thermo import VolumeLiquid

    results = run_config(pump())
    assert_closed(results)
    V = VolumeLiquid(CASRN="7732-18-5").T_dependent_property(298.15)  # m3/mol
    fluid = 100 * KMOL_HR * V * 9e5  # W
    block = results["blocks"]["P1"]
    assert block["fluid_power_kW"] == pytest.approx(fluid / 1000, rel=1e-6)
    assert block["power_kW"] == pytest.approx(fluid / 0.75 / 1000, rel=1e-6)
    # textbook: 1.8 m3/h of water through 9 bar -> 0.45 kW hydraulic, head ~92 m
    assert block["fluid_power_kW"] == pytest.approx(1.807 / 3600 * 9e5 / 1000, rel=0.01)
    assert block["head_m"] == pytest.approx(9e5 / (997 * 9.80665), rel=0.01)
    # IAPWS-95, 75 % efficiency, 1 -> 10 bar: 25.0886 C
    assert results["streams"]["HP-1"]["temperature_C"] == pytest.approx(25.0886, abs=0.01)


def _iapws_liquid(T: float, P: float) -> object:
    from thermo.phases import IAPWS95Liquid

    return IAPWS95Liquid(T=T, P=P, zs=[1.0])


def _water_line(P_in_bar: float, P_out_bar: float, block_type: str) -> dict:
    from simulator_mock.flowsheet.builders import WATER, Block, feed, flowsheet_config, valve_job

    spec = (
        {"SPEC_DATA": {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", "PRES_VALUE": P_out_bar, "PRES_UNITS": "bar"}}
        if block_type == "Pump"
        else valve_job(P_out_bar)
    )
    b1 = Block("B1", block_type, {"IN-1": "F(IN)", "OUT-1": "P(OUT)"}, spec)
    feeds = {"IN-1": feed(25.0, P_in_bar, {"WATER": 100.0})}
    return flowsheet_config("water", [WATER], "IDEAL", [b1], feeds)


def test_pump_to_150_bar_heats_water_as_iapws95(pump_at_75_percent: None) -> None:
    """Only the irreversible part of the work heats the liquid: 25 -> 26.48 C (IAPWS-95), not 29.70 C."""
    from scipy.optimize import brentq

    results = run_config(_water_line(1.0, 150.0, "Pump"))
    assert_closed(results)
    inlet = _iapws_liquid(298.15, 1e5)
    T2s = brentq(lambda T: _iapws_liquid(T, 150e5).S() - inlet.S(), 290, 320)
    h2 = inlet.H() + (_iapws_liquid(T2s, 150e5).H() - inlet.H()) / 0.75
    T2 = brentq(lambda T: _iapws_liquid(T, 150e5).H() - h2, 290, 330)
    assert pytest.approx(26.484, abs=1e-3) == T2 - 273.15
    block, out = results["blocks"]["B1"], results["streams"]["OUT-1"]
    assert out["temperature_C"] == pytest.approx(T2 - 273.15, abs=0.1)
    assert block["power_kW"] == pytest.approx(100 * KMOL_HR * (h2 - inlet.H()) / 1000, rel=0.005)
    # the balance names the pressure term: W = dH(model) + (V - T dV/dT) dP, no term hidden
    dH_model = out["enthalpy_flow_kW"] - results["streams"]["IN-1"]["enthalpy_flow_kW"]
    assert block["power_kW"] == pytest.approx(dH_model + block["liquid_pressure_enthalpy_kW"], rel=1e-7)
    assert results["balances"]["liquid_pressure_enthalpy_kW"] == block["liquid_pressure_enthalpy_kW"]
    V = inlet.V()
    assert block["liquid_pressure_enthalpy_kW"] == pytest.approx(
        100 * KMOL_HR * (V - 298.15 * inlet.dV_dT()) * 149e5 / 1000, rel=0.002
    )


def test_valve_throttling_liquid_water_warms_as_iapws95() -> None:
    from scipy.optimize import brentq

    results = run_config(_water_line(150.0, 1.0, "Valve"))
    assert_closed(results)
    h1 = _iapws_liquid(298.15, 150e5).H()
    T2 = brentq(lambda T: _iapws_liquid(T, 1e5).H() - h1, 290, 320)
    assert pytest.approx(28.281, abs=1e-3) == T2 - 273.15
    assert results["streams"]["OUT-1"]["temperature_C"] == pytest.approx(T2 - 273.15, abs=0.1)
    assert results["blocks"]["B1"]["liquid_pressure_enthalpy_kW"] < 0


def test_valve_is_isenthalpic() -> None:
    results = run_config(valve())
    assert_closed(results)
    feed, out = results["streams"]["FEED-1"], results["streams"]["OUT-1"]
    # isenthalpic in real enthalpy: the model enthalpy gains what the liquid's pressure drop gives back
    term = results["blocks"]["V1"]["liquid_pressure_enthalpy_kW"]
    assert out["enthalpy_flow_kW"] == pytest.approx(feed["enthalpy_flow_kW"] - term, rel=1e-9)
    assert out["pressure_bar"] == pytest.approx(1.01325)
    assert 0 < out["vapor_fraction"] < 1
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    inlet = flasher.flash(T=368.15, P=5e5, zs=[0.3, 0.7])
    assert inlet.VF == 0.0
    liquid = inlet.liquid0
    dH_dP = liquid.V() - 368.15 * liquid.dV_dT()
    assert term == pytest.approx(100 * KMOL_HR * dH_dP * (101325 - 5e5) / 1000, rel=1e-6)
    direct = flasher.flash(H=inlet.H() + dH_dP * (5e5 - 101325), P=101325, zs=[0.3, 0.7])
    assert out["temperature_C"] == pytest.approx(direct.T - 273.15, abs=1e-3)
    assert out["vapor_fraction"] == pytest.approx(direct.VF, abs=1e-5)


def test_compressor_against_thermo_isentropic_flash() -> None:
    results = run_config(compressor())
    assert_closed(results)
    flasher, _ = direct_flasher(["methane"], "PENG-ROB")
    inlet = flasher.flash(T=298.15, P=1e5)
    ideal = flasher.flash(S=inlet.S(), P=5e5)
    W = 100 * KMOL_HR * (ideal.H() - inlet.H()) / 0.72  # Aspen's default isentropic efficiency
    block = results["blocks"]["C1"]
    assert block["isentropic_outlet_temperature_C"] == pytest.approx(ideal.T - 273.15, abs=1e-3)
    assert block["power_kW"] == pytest.approx(W / 1000, rel=1e-5)
    # ideal-gas textbook check: T2s = T1 (P2/P1)^((k-1)/k) with k about 1.30 for methane
    assert pytest.approx(298.15 * 5 ** (0.30 / 1.30), rel=0.03) == ideal.T
    assert results["streams"]["HPGAS-1"]["temperature_C"] > block["isentropic_outlet_temperature_C"]


def test_sep_applies_split_fractions() -> None:
    results = run_config(sep())
    assert_closed(results)
    top, bot = results["streams"]["TOP-1"], results["streams"]["BOT-1"]
    assert top["component_flows_kmol_hr"]["MEOH"] == pytest.approx(0.99 * 40.0, rel=1e-12)
    assert top["component_flows_kmol_hr"]["WATER"] == pytest.approx(0.02 * 60.0, rel=1e-12)
    assert bot["component_flows_kmol_hr"]["MEOH"] == pytest.approx(0.01 * 40.0, rel=1e-9)
    assert top["temperature_C"] == bot["temperature_C"] == 50.0
    assert results["blocks"]["S1"]["split_fractions"]["BOT-1"]["WATER"] == pytest.approx(0.98)


def test_heatx_duty_lmtd_and_area() -> None:
    results = run_config(heat_exchanger())
    assert_closed(results)
    s, block = results["streams"], results["blocks"]["E1"]
    gained = s["COUT-1"]["enthalpy_flow_kW"] - s["COLD-1"]["enthalpy_flow_kW"]
    lost = s["HOT-1"]["enthalpy_flow_kW"] - s["HOUT-1"]["enthalpy_flow_kW"]
    assert block["duty_kW"] == pytest.approx(gained, rel=1e-9) == pytest.approx(lost, rel=1e-6)
    assert s["COUT-1"]["temperature_C"] == 60.0
    # hot stream is 1.5x the cold one: it cools by about 40/1.5 K (liquid c_p rises ~3 % from 40 to 77 C here)
    assert s["HOUT-1"]["temperature_C"] == pytest.approx(90 - 40 / 1.5, abs=1.0)
    dT1, dT2 = 90 - 60, s["HOUT-1"]["temperature_C"] - 20
    lmtd = (dT1 - dT2) / math.log(dT1 / dT2)
    assert block["lmtd_C"] == pytest.approx(lmtd, rel=1e-9)
    assert block["area_m2"] == pytest.approx(block["duty_kW"] * 1000 / lmtd / 850, rel=1e-9)
    assert results["balances"]["heat_duty_kW"] == 0.0  # heat stays inside the exchanger


def test_heatx_temperature_cross_is_an_error() -> None:
    from simulator_mock import SimulationError

    config = heat_exchanger()
    config["blocks_HeatX_data"]["E1"]["SPEC_DATA"]["VALUE_VALUE"] = 95
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InfeasibleSpecification"
    assert "E1" in info.value.message and "cross" in info.value.message


def _n2_heats_water(T_hot_in: float, T_hot_out: float) -> dict:
    from simulator_mock.flowsheet.builders import NITROGEN, WATER, Block, feed, flowsheet_config

    e1 = Block(
        "E1",
        "HeatX",
        {"HOT-1": "H(IN)", "HOUT-1": "H(OUT)", "COLD-1": "C(IN)", "COUT-1": "C(OUT)"},
        {"SPEC_DATA": {"SPEC": "T-HOT", "VALUE_VALUE": T_hot_out, "VALUE_UNITS": "C"}},
    )
    feeds = {"HOT-1": feed(T_hot_in, 1.01325, {"N2": 94.0}), "COLD-1": feed(20.0, 1.01325, {"WATER": 10.0})}
    return flowsheet_config("N2 raises steam", [NITROGEN, WATER], "IDEAL", [e1], feeds)


def _internal_pinch(T_hot_in: float, Q_kW: float) -> tuple[float, float]:
    """(hot T, cold T) [C] where the cold water starts boiling, from thermo directly."""
    water, _ = direct_flasher(["water"], "IDEAL")
    nitrogen, _ = direct_flasher(["nitrogen"], "IDEAL")
    bubble = water.flash(P=101325, VF=0)
    Q_sensible = 10 * KMOL_HR * (bubble.H() - water.flash(T=293.15, P=101325).H())
    H_hot = nitrogen.flash(T=T_hot_in + 273.15, P=101325).H() - (Q_kW * 1000 - Q_sensible) / (94 * KMOL_HR)
    return nitrogen.flash(H=H_hot, P=101325).T - 273.15, bubble.T - 273.15


def test_heatx_internal_pinch_is_reported() -> None:
    """Terminal approaches 110 K / 120 K, but where the water starts boiling the gap is only ~53 K."""
    results = run_config(_n2_heats_water(250.0, 130.0))
    assert_closed(results)
    block = results["blocks"]["E1"]
    assert block["terminal_approach_C"] == pytest.approx(130.0 - 20.0)
    T_hot, T_cold = _internal_pinch(250.0, block["duty_kW"])
    assert block["min_approach_C"] == pytest.approx(T_hot - T_cold, abs=0.05)
    assert block["min_approach_C"] < block["terminal_approach_C"] - 50
    assert 0 < block["pinch_duty_fraction"] < 1


def test_heatx_internal_temperature_cross_is_an_error() -> None:
    """N2 200 -> 60 C boiling water at 1 atm: both ends are 40 K apart, but when the water reaches 100 C
    the nitrogen is already down to 82.8 C (the ends-only check accepted it)."""
    from simulator_mock import SimulationError

    with pytest.raises(SimulationError) as info:
        run_config(_n2_heats_water(200.0, 60.0))
    message = info.value.message
    assert info.value.error_type == "InfeasibleSpecification"
    assert "E1" in message and "cross" in message and "inside the exchanger" in message
    nitrogen, _ = direct_flasher(["nitrogen"], "IDEAL")
    Q = 94 * KMOL_HR * (nitrogen.flash(T=473.15, P=101325).H() - nitrogen.flash(T=333.15, P=101325).H())
    T_hot, T_cold = _internal_pinch(200.0, Q / 1000)
    # 82.0 C with IAPWS-95 water (82.8 C with the former H_ig - H_vap liquid enthalpy)
    assert T_hot == pytest.approx(82.02, abs=0.05) and T_cold == pytest.approx(99.97, abs=0.01)
    assert f"hot {T_hot:.4g} C, cold {T_cold:.4g} C" in message
    assert f"minimum approach {T_hot - T_cold:.4g} K" in message


@pytest.mark.parametrize("adiabatic", [False, True])
def test_rstoic_heat_of_reaction_and_atom_balance(adiabatic: bool) -> None:
    from chemicals import Hfg

    results = run_config(combustion(adiabatic))
    assert_closed(results)
    block = results["blocks"]["R1"]
    dHr = (Hfg("124-38-9") + 2 * Hfg("7732-18-5") - Hfg("74-82-8")) / 1000
    assert block["heat_of_reaction_kJ_mol"] == pytest.approx(dHr, rel=1e-12)
    assert block["heat_of_reaction_kJ_mol"] == pytest.approx(-802.3, abs=1.0)  # methane LHV
    assert block["conversion"] == 1.0
    flue = results["streams"]["FLUE-1"]["component_flows_kmol_hr"]
    assert flue["CH4"] == 0.0 and flue["CO2"] == pytest.approx(1.0) and flue["WATER"] == pytest.approx(2.0)
    assert flue["O2"] == pytest.approx(1.0)
    if adiabatic:
        assert block["duty_kW"] == 0.0
        # adiabatic flame temperature with 50 % excess air, ideal gas (1516 C): the products' ideal-gas
        # heat capacities integrated from 25 C must absorb -dHr (the flue is all vapour at 1 bar)
        from scipy.optimize import brentq
        from thermo import HeatCapacityGas

        products = {"124-38-9": 1.0, "7732-18-5": 2.0, "7782-44-7": 1.0, "7727-37-9": 11.28}
        cps = {cas: HeatCapacityGas(CASRN=cas) for cas in products}

        def absorbed(T: float) -> float:
            heat = sum(n * cps[c].T_dependent_property_integral(298.15, T) for c, n in products.items())
            return heat + dHr * 1000

        flame = brentq(absorbed, 500, 3000) - 273.15
        assert flame == pytest.approx(1516, abs=1)
        assert block["outlet_temperature_C"] == pytest.approx(flame, abs=0.5)
        assert results["streams"]["FLUE-1"]["vapor_fraction"] == 1.0
    else:
        # back at 25 C the heat released is the heat of reaction plus condensation of part of the water
        assert block["duty_kW"] * 3.6 < -802.0
        assert block["duty_kW"] * 3.6 > -802.0 - 2 * 44.0


@pytest.mark.parametrize(("key", "per"), [("CH4", 1), ("CO2", 1), ("WATER", 2), (None, 1)])
def test_rstoic_extent_heat_of_reaction_sign_for_any_key(key: str | None, per: int) -> None:
    """Methane combustion is exothermic whichever component is the key (a product key gave +802.6)."""
    from chemicals import Hfg

    config = combustion()
    reaction = config["blocks_RStoic_data"]["R1"]["REAC_DATA"]["REAC"][0]
    # KEY_CID is required by the schema; a key outside the reaction (N2) labels nothing: per mol of reaction
    reaction.update({"OPT_EXT_CONV": "EXTENT", "EXTENT": 0.5, "KEY_CID": key or "N2"})
    results = run_config(config)
    assert_closed(results)
    dHr = (Hfg("124-38-9") + 2 * Hfg("7732-18-5") - Hfg("74-82-8")) / 1000
    block = results["blocks"]["R1"]
    assert block["heat_of_reaction_kJ_mol"] == pytest.approx(dHr / per, rel=1e-12)
    assert block["heat_of_reaction_kJ_mol"] < -400
    assert block["reactions"][0]["extent_kmol_hr"] == pytest.approx(0.5)
    assert block["conversion"] == (pytest.approx(0.5) if key == "CH4" else None)
    flue = results["streams"]["FLUE-1"]["component_flows_kmol_hr"]
    assert flue["CO2"] == pytest.approx(0.5) and flue["CH4"] == pytest.approx(0.5)


def test_rstoic_conversion_key_outside_the_reaction_is_refused() -> None:
    from simulator_mock import SimulationError

    config = combustion()
    reaction = config["blocks_RStoic_data"]["R1"]["REAC_DATA"]["REAC"][0]
    reaction.update({"KEY_CID": "N2"})
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InvalidSpecification"
    assert "REAC[0].KEY_CID" in info.value.message and "N2" in info.value.message


def _direct_enthalpy_flow(
    flows: dict[str, float], names: dict[str, str], T: float, P: float, method: str
) -> float:
    """Enthalpy flow [kW] on formation basis from thermo's own flash of the components present."""
    from chemicals import CAS_from_any, Hfg

    present = {cid: n for cid, n in flows.items() if n > 0}
    total = sum(present.values())
    flasher, _ = direct_flasher([names[cid] for cid in present], method)
    zs = [n / total for n in present.values()]
    state = flasher.flash(T=T, P=P, zs=zs) if len(zs) > 1 else flasher.flash(T=T, P=P)
    Hf = sum(z * Hfg(CAS_from_any(names[cid])) for z, cid in zip(zs, present, strict=True))
    return total * KMOL_HR * (state.H() + Hf) / 1000


def test_block_duties_against_thermo_directly() -> None:
    """Closure holds by construction (duty := H_out - H_in); these check the duties themselves."""
    # RStoic at 25 C: heat of reaction plus condensation, from thermo's enthalpies and formation data
    results = run_config(combustion(False))
    assert results["property_method"] == "PENG-ROB"
    names = {"CH4": "methane", "O2": "oxygen", "N2": "nitrogen", "CO2": "carbon dioxide", "WATER": "water"}
    flue, fuel = results["streams"]["FLUE-1"], results["streams"]["FUEL-1"]
    assert flue["vapor_fraction"] < 1.0  # some water condenses: a two-phase direct flash too
    H_out = _direct_enthalpy_flow(flue["component_flows_kmol_hr"], names, 298.15, 1e5, "PENG-ROB")
    H_in = _direct_enthalpy_flow(fuel["component_flows_kmol_hr"], names, 298.15, 1e5, "PENG-ROB")
    assert results["blocks"]["R1"]["duty_kW"] == pytest.approx(H_out - H_in, rel=1e-6)
    # Flash2 at 80 C, 1 atm from a 25 C feed: thermo's NRTL flash enthalpies
    results = run_config(flash_drum())
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    dH = (
        flasher.flash(T=353.15, P=101325, zs=[0.5, 0.5]).H()
        - flasher.flash(T=298.15, P=101325, zs=[0.5, 0.5]).H()
    )
    assert results["blocks"]["F1"]["duty_kW"] == pytest.approx(100 * KMOL_HR * dH / 1000, rel=1e-6)
    # HeatX: the N2 side's sensible heat from thermo equals the reported duty
    results = run_config(_n2_heats_water(250.0, 130.0))
    nitrogen, _ = direct_flasher(["nitrogen"], "IDEAL")
    lost = 94 * KMOL_HR * (nitrogen.flash(T=523.15, P=101325).H() - nitrogen.flash(T=403.15, P=101325).H())
    assert results["blocks"]["E1"]["duty_kW"] == pytest.approx(lost / 1000, rel=1e-9)


def test_rstoic_unbalanced_reaction_is_refused() -> None:
    from simulator_mock import SimulationError

    config = combustion()
    config["blocks_RStoic_data"]["R1"]["REAC_DATA"]["REAC"][0]["COEF1_DATA"]["WATER"] = 1
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "UnbalancedReaction"
    assert "REAC[0]" in info.value.message and " H " in info.value.message


def test_dstwu_fenske_underwood_gilliland() -> None:
    results = run_config(shortcut_column())
    assert_closed(results)
    block = results["blocks"]["C1"]
    alpha = block["relative_volatilities"]["BENZENE"]
    assert 2.2 < alpha < 2.7  # benzene/toluene near 1 atm
    n_min = math.log((0.99 / 0.01) * (0.99 / 0.01)) / math.log(alpha)
    assert block["minimum_stages"] == pytest.approx(n_min + 1, rel=1e-9)  # + total condenser
    assert block["reflux_ratio"] == pytest.approx(1.5 * block["minimum_reflux_ratio"], rel=1e-12)
    # Underwood for a saturated-liquid binary feed: Rmin = (xD/zF - alpha (1-xD)/(1-zF)) / (alpha - 1)
    assert block["minimum_reflux_ratio"] == pytest.approx(
        (0.99 / 0.5 - alpha * 0.01 / 0.5) / (alpha - 1), rel=0.03
    )
    X = (block["reflux_ratio"] - block["minimum_reflux_ratio"]) / (block["reflux_ratio"] + 1)
    Y = 0.75 * (1 - X**0.5668)
    assert block["number_of_stages"] - 1 == pytest.approx((Y + n_min) / (1 - Y), rel=1e-9)
    assert 1 < block["feed_stage"] < block["number_of_stages"]
    d = results["streams"]["DIST-1"]["component_flows_kmol_hr"]
    assert d["BENZENE"] == pytest.approx(49.5) and d["TOLUENE"] == pytest.approx(0.5)
    # total condenser: (R + 1) D of saturated vapour of the distillate composition to saturated liquid
    flasher, _ = direct_flasher(["benzene", "toluene"], "IDEAL")
    dew = flasher.flash(P=101325, VF=1, zs=[0.99, 0.01])
    bubble = flasher.flash(P=101325, VF=0, zs=[0.99, 0.01])
    latent = (dew.H() - bubble.H()) / 1000  # kJ/mol
    expected_qc = -(block["reflux_ratio"] + 1) * 50 * latent / 3.6
    assert block["condenser_duty_kW"] == pytest.approx(expected_qc, rel=1e-6)
    # textbook: benzene's enthalpy of vaporization at its normal boiling point is 30.72 kJ/mol. The liquid
    # enthalpy from the liquid heat capacity under an ideal-gas vapour puts the apparent latent heat above it
    # by the vapour's departure from ideal gas at 1 atm (about 1.2 %)
    assert latent == pytest.approx(30.72, rel=0.015)


def test_radfrac_mesh_equations_hold_on_every_stage() -> None:
    results = run_config(column())
    assert_closed(results)
    block = results["blocks"]["C1"]
    profile = block["stage_profile"]
    D, L0 = block["distillate_rate_kmol_hr"], profile[0]["liquid_flow_kmol_hr"]
    assert pytest.approx(1.5 * D) == L0
    assert pytest.approx(50.0, rel=1e-6) == D
    temperatures = [stage["temperature_C"] for stage in profile]
    assert temperatures == sorted(temperatures)
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    for stage in profile[1:-1]:
        x = [stage["x"]["MEOH"], stage["x"]["WATER"]]
        bubble = flasher.flash(P=101325, VF=0, zs=x)  # E + S: stage T is the liquid's bubble point
        assert stage["temperature_C"] == pytest.approx(bubble.T - 273.15, abs=1e-4)
        assert stage["y"]["MEOH"] == pytest.approx(bubble.gas.zs[0], abs=1e-5)
    for j in range(1, len(profile) - 1):
        if j + 1 == 8:
            continue  # feed stage
        above, here, below = profile[j - 1], profile[j], profile[j + 1]
        for c in ("MEOH", "WATER"):  # M: component balance of stage j
            inflow = (
                above["liquid_flow_kmol_hr"] * above["x"][c] + below["vapor_flow_kmol_hr"] * below["y"][c]
            )
            outflow = here["liquid_flow_kmol_hr"] * here["x"][c] + here["vapor_flow_kmol_hr"] * here["y"][c]
            assert inflow == pytest.approx(outflow, abs=1e-5 * D)
    top = results["streams"]["DIST-1"]
    assert top["mole_fractions"]["MEOH"] > 0.98
    assert results["streams"]["BTMS-1"]["mole_fractions"]["WATER"] > 0.98
    # condenser: (R + 1) D of vapour condensed, methanol latent heat ~35.3 kJ/mol
    assert block["condenser_duty_kW"] == pytest.approx(-(2.5 * 50 * 35.3) / 3.6, rel=0.03)
    assert block["reboiler_duty_kW"] > 0


def test_radfrac_reaches_the_dstwu_design() -> None:
    """RadFrac with DSTWU's stages, feed stage and reflux gives about DSTWU's 99 % benzene overhead."""
    design = run_config(shortcut_column())["blocks"]["C1"]
    config = column(
        stages=round(design["number_of_stages"]) + 1,
        feed_stage=round(design["feed_stage"]),
        reflux=design["reflux_ratio"],
        d_to_f=0.5,
    )
    config["components"] = [component("MEOH", "benzene"), component("WATER", "toluene")]
    config["property_methods"] = [{"method_name": "IDEAL", "is_basis_method": True}]
    config["stream_data"]["FEED-1"]["temperature"]["TEMP_VALUE"] = 90.0
    config["stream_data"]["FEED-1"]["pressure"]["PRES_VALUE"] = 1.01325
    results = run_config(config)
    assert_closed(results)
    assert results["streams"]["DIST-1"]["mole_fractions"]["MEOH"] == pytest.approx(0.99, abs=0.008)


@pytest.mark.parametrize(
    ("method", "names", "flows", "condenser"),
    [
        ("PENG-ROB", ["n-pentane", "n-hexane", "n-heptane", "n-octane"], [20, 30, 30, 20], "TOTAL"),
        ("NRTL", ["acetone", "methanol", "water"], [20, 30, 50], "PARTIAL-V"),
        ("IDEAL", ["benzene", "toluene", "ethylbenzene", "o-xylene", "n-propylbenzene"], [20] * 5, "TOTAL"),
    ],
)
def test_radfrac_multicomponent(method: str, names: list[str], flows: list[float], condenser: str) -> None:
    config = column(stages=20, feed_stage=10, reflux=2.0, d_to_f=0.4, condenser=condenser)
    cids = [f"C{k}" for k in range(len(names))]
    config["components"] = [component(c, n) for c, n in zip(cids, names, strict=True)]
    config["property_methods"] = [{"method_name": method, "is_basis_method": True}]
    config["stream_data"]["FEED-1"] = feed(60.0, 1.2, dict(zip(cids, flows, strict=True)))
    results = run_config(config)
    assert_closed(results)
    dist, btms = results["streams"]["DIST-1"], results["streams"]["BTMS-1"]
    assert dist["molar_flow_kmol_hr"] == pytest.approx(0.4 * sum(flows), rel=1e-6)
    assert dist["vapor_fraction"] == (1.0 if condenser == "PARTIAL-V" else 0.0)
    # lightest component concentrates overhead, heaviest in the bottoms
    assert dist["mole_fractions"][cids[0]] > btms["mole_fractions"][cids[0]]
    assert btms["mole_fractions"][cids[-1]] > dist["mole_fractions"][cids[-1]]
    assert np.all(np.diff([s["temperature_C"] for s in results["blocks"]["C1"]["stage_profile"]]) > -1e-6)


def test_process_train_of_four_units() -> None:
    results = run_config(process_train())
    assert_closed(results)
    s, b = results["streams"], results["blocks"]
    assert results["convergence"]["calculation_order"] == ["P1", "H1", "V1", "F1"]
    assert s["S-2"]["temperature_C"] == 130.0 and s["S-2"]["pressure_bar"] == 5.0
    assert b["F1"]["duty_kW"] == 0.0 and s["VAP-1"]["temperature_C"] == pytest.approx(
        s["S-3"]["temperature_C"]
    )
    total_in = results["balances"]["heat_duty_kW"] + results["balances"]["power_kW"]
    assert total_in == pytest.approx(b["H1"]["duty_kW"] + b["P1"]["power_kW"])


def test_radfrac_newton_method_agrees_with_bubble_point_method(monkeypatch: pytest.MonkeyPatch) -> None:
    import simulator_mock.flowsheet.blocks.column_solver as solver

    by_bubble_point = run_config(column())
    monkeypatch.setattr(solver, "BUBBLE_POINT_ITERATIONS", 0)
    by_newton = run_config(column())
    assert_closed(by_newton)
    for name in ("DIST-1", "BTMS-1"):
        for cid in ("MEOH", "WATER"):
            assert by_newton["streams"][name]["component_flows_kmol_hr"][cid] == pytest.approx(
                by_bubble_point["streams"][name]["component_flows_kmol_hr"][cid], rel=1e-4, abs=1e-6
            )
    for key in ("condenser_duty_kW", "reboiler_duty_kW"):
        assert by_newton["blocks"]["C1"][key] == pytest.approx(by_bubble_point["blocks"]["C1"][key], rel=1e-5)


def test_radfrac_sharp_split_falls_back_to_newton() -> None:
    """25 stages, reflux 1, D/F 0.5: a pinched, very sharp split the bubble-point method cannot finish."""
    import simulator_mock.flowsheet.blocks.column_solver as solver

    results = run_config(column(stages=25, feed_stage=12, reflux=1.0, d_to_f=0.5))
    assert_closed(results)
    block = results["blocks"]["C1"]
    assert block["distillate_rate_kmol_hr"] == pytest.approx(50.0, rel=1e-6)
    assert block["iterations"] > solver.BUBBLE_POINT_ITERATIONS  # finished by the Newton method
    assert results["streams"]["DIST-1"]["mole_fractions"]["MEOH"] > 0.98
    flasher, _ = direct_flasher(["methanol", "water"], "NRTL")
    for stage in block["stage_profile"][1:-1:4]:
        bubble = flasher.flash(P=101325, VF=0, zs=[stage["x"]["MEOH"], stage["x"]["WATER"]])
        assert stage["temperature_C"] == pytest.approx(bubble.T - 273.15, abs=1e-3)
