"""CHAO-SEA against published data and against its published equations worked by hand (never the engine)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support.sim import assert_closed

from simulator_mock import run_config
from simulator_mock.errors import ComponentDataError, FlashError, SimulationError
from simulator_mock.examples import hp_separator
from simulator_mock.flowsheet.builders import Block, component, feed, flowsheet_config, valve_job
from simulator_mock.properties.property_package import get_property_package

ATM = 101325.0
R = 8.314462618
HYDROGEN, METHANE_CAS, PROPANE, PENTANE, HEXANE = "1333-74-0", "74-82-8", "74-98-6", "109-66-0", "110-54-3"
HEPTANE = "142-82-5"
BENZENE_CAS, TOLUENE_CAS, WATER_CAS = "71-43-2", "108-88-3", "7732-18-5"

# ---- the published equations, written out independently of thermo and of the mock ------------------------

#: Chao and Seader (1961), log10 of the simple-fluid liquid fugacity coefficient: A0..A9.
SIMPLE = (5.75748, -3.01761, -4.98500, 2.02299, 0.0, 0.08427, 0.26667, -0.31138, -0.02655, 0.02883)
#: The same for hydrogen (no acentric-factor term).
HYDROGEN_COEFFS = (1.96718, 1.02972, -0.054009, 0.0005288, 0.0, 0.008585, 0.0, 0.0, 0.0, 0.0)
#: Chao and Seader's regular-solution constants at 25 C: V [cm3/mol], delta [(cal/cm3)^0.5].
REGULAR = {HYDROGEN: (31.0, 3.25), HEXANE: (131.6, 7.27)}


def _nu(Tr: float, Pr: float, omega: float, coeffs: tuple[float, ...], with_omega: bool) -> float:
    a = coeffs
    log_nu0 = (
        a[0]
        + a[1] / Tr
        + a[2] * Tr
        + a[3] * Tr**2
        + a[4] * Tr**3
        + (a[5] + a[6] * Tr + a[7] * Tr**2) * Pr
        + (a[8] + a[9] * Tr) * Pr**2
        - math.log10(Pr)
    )
    log_nu1 = -4.23893 + 8.65808 * Tr - 1.22060 / Tr - 3.15224 * Tr**3 - 0.025 * (Pr - 0.6)
    return 10.0 ** (log_nu0 + (omega * log_nu1 if with_omega else 0.0))


def _gammas(xs: np.ndarray, T: float, CASs: tuple[str, ...]) -> np.ndarray:
    V = np.array([REGULAR[c][0] * 1e-6 for c in CASs])
    delta = np.array([REGULAR[c][1] * math.sqrt(4.184e6) for c in CASs])
    phi = xs * V / np.dot(xs, V)
    mean = np.dot(phi, delta)
    return np.exp(V * (delta - mean) ** 2 / (R * T))


def _rk_phis(ys: np.ndarray, T: float, P: float, Tcs: np.ndarray, Pcs: np.ndarray) -> np.ndarray:
    """Redlich and Kwong (1949) vapour fugacity coefficients, no interaction parameters."""
    omega_a, omega_b = 1.0 / (9.0 * (2.0 ** (1 / 3) - 1.0)), (2.0 ** (1 / 3) - 1.0) / 3.0
    a = omega_a * R**2 * Tcs**2.5 / Pcs
    b = omega_b * R * Tcs / Pcs
    am, bm = np.dot(ys, np.sqrt(a)) ** 2, np.dot(ys, b)
    A, B = am * P / (R**2 * T**2.5), bm * P / (R * T)
    Z = max(r.real for r in np.roots([1.0, -1.0, A - B - B * B, -A * B]) if abs(r.imag) < 1e-12)
    return np.exp(
        b / bm * (Z - 1) - math.log(Z - B) - A / B * (2 * np.sqrt(a / am) - b / bm) * math.log(1 + B / Z)
    )


def test_k_values_follow_the_published_equations_worked_by_hand() -> None:
    # hydrogen/n-hexane in a high-pressure separator: K = nu * gamma / phi_V at the flash's own phases
    CASs = (HYDROGEN, HEXANE)
    package = get_property_package(CASs, "CHAO-SEA")
    T, P = 310.0, 30e5
    state = package.flash(np.array([0.5, 0.5]), "test", T=T, P=P)
    assert 0.4 < state.VF < 0.6
    c = package.constants
    Tcs, Pcs = np.array(c.Tcs), np.array(c.Pcs)
    nus = np.array(
        [
            _nu(T / Tcs[0], P / Pcs[0], c.omegas[0], HYDROGEN_COEFFS, with_omega=False),
            _nu(T / Tcs[1], P / Pcs[1], c.omegas[1], SIMPLE, with_omega=True),
        ]
    )
    K_hand = nus * _gammas(state.xs, T, CASs) / _rk_phis(state.ys, T, P, Tcs, Pcs)
    assert state.ys / state.xs == pytest.approx(K_hand, rel=3e-3)
    # hydrogen is sparingly soluble: about 2 mol % in the liquid, the vapour 98.6 % hydrogen
    assert state.xs[0] == pytest.approx(0.024, abs=0.003)
    assert state.ys[0] == pytest.approx(0.986, abs=0.003)


@pytest.mark.parametrize(
    ("CAS", "Tb"),
    [(PENTANE, 309.21), (HEXANE, 341.87), (BENZENE_CAS, 353.24), (TOLUENE_CAS, 383.75), (PROPANE, 231.04)],
)
def test_normal_boiling_points_against_nist(CAS: str, Tb: float) -> None:
    # NIST WebBook normal boiling points; Chao-Seader's pure liquid with the RK vapour reproduces them.
    state = get_property_package((CAS,), "CHAO-SEA").flash(np.array([1.0]), "test", P=ATM, VF=0.0)
    assert pytest.approx(Tb, abs=2.0) == state.T


@pytest.mark.parametrize(
    ("CAS", "Hvap"), [(HEXANE, 28.85), (BENZENE_CAS, 30.72), (TOLUENE_CAS, 33.18), (HEPTANE, 31.77)]
)
def test_enthalpy_of_vaporization_at_the_normal_boiling_point_against_nist(CAS: str, Hvap: float) -> None:
    # the liquid's enthalpy is Lee-Kesler's, the vapour's Redlich-Kwong's: their difference at the boiling
    # point is the enthalpy of vaporization (NIST WebBook, kJ/mol at Tb: Majer and Svoboda)
    package = get_property_package((CAS,), "CHAO-SEA")
    liquid = package.flash(np.array([1.0]), "test", P=ATM, VF=0.0)
    vapour = package.flash(np.array([1.0]), "test", P=ATM, VF=1.0)
    assert pytest.approx(Hvap, rel=0.015) == (vapour.H - liquid.H) / 1000.0


@pytest.mark.parametrize(("CAS", "Cp"), [(HEXANE, 195.6), (HEPTANE, 224.7), (TOLUENE_CAS, 157.1)])
def test_liquid_heat_capacity_at_25_c_against_nist(CAS: str, Cp: float) -> None:
    # NIST WebBook liquid heat capacities at 298.15 K [J/mol/K]; Lee-Kesler's is within a few per cent
    package = get_property_package((CAS,), "CHAO-SEA")
    cold = package.flash(np.array([1.0]), "test", T=297.15, P=ATM)
    warm = package.flash(np.array([1.0]), "test", T=299.15, P=ATM)
    assert pytest.approx(Cp, rel=0.04) == (warm.H - cold.H) / 2.0


def test_benzene_toluene_bubble_point_against_raoult_with_nist_antoine() -> None:
    # benzene/toluene is a near-ideal pair: Raoult's law with the NIST WebBook Antoine constants puts the
    # equimolar bubble point at 1 atm at 92.12 C with 0.714 benzene in the vapour.
    def psat(A: float, B: float, C: float, T: float) -> float:
        return 1e5 * 10.0 ** (A - B / (T + C))

    lo, hi = 340.0, 400.0
    for _ in range(100):
        T = 0.5 * (lo + hi)
        total = 0.5 * psat(4.01814, 1203.835, -53.226, T) + 0.5 * psat(4.07827, 1343.943, -53.773, T)
        lo, hi = (T, hi) if total < ATM else (lo, T)
    y_raoult = 0.5 * psat(4.01814, 1203.835, -53.226, T) / ATM
    state = get_property_package((BENZENE_CAS, TOLUENE_CAS), "CHAO-SEA").flash(
        np.array([0.5, 0.5]), "test", P=ATM, VF=0.0
    )
    assert pytest.approx(T, abs=0.7) == state.T
    assert state.ys[0] == pytest.approx(y_raoult, abs=0.015)


def test_a_heavy_feed_whose_vapour_model_has_only_a_liquid_root_still_splits() -> None:
    # 30/30/40 methane/propane/n-pentane at 27 C and 20 bar: the RK mixture of the feed has only its
    # liquid-like root, yet the feed is two-phase (pentane's vapour pressure there is 0.7 bar).
    CASs = (METHANE_CAS, PROPANE, PENTANE)
    package = get_property_package(CASs, "CHAO-SEA")
    state = package.flash(np.array([0.3, 0.3, 0.4]), "test", T=300.0, P=20e5)
    assert 0.2 < state.VF < 0.4
    K = state.ys / state.xs
    assert K[0] > 5.0 and K[2] < 0.1
    # more pressure, less vapour, smoothly through the pressure where the feed's vapour root disappears
    VFs = [package.flash(np.array([0.3, 0.3, 0.4]), "test", T=300.0, P=P).VF for P in (15e5, 20e5, 25e5)]
    assert 1.0 > VFs[0] > VFs[1] > VFs[2] > 0.0
    assert VFs[0] - VFs[1] == pytest.approx(VFs[1] - VFs[2], rel=0.5)


def test_water_n_hexane_heteroazeotrope() -> None:
    # Water/n-hexane boil together at 61.6 C at 1 atm (Horsley, Azeotropic Data, Adv. Chem. Ser. 6). The
    # regular-solution gammas of this pair reach 1e22, so the liquids are practically pure: the bubble point
    # is where the two pure liquids' fugacities add up to 1 atm; above it a vapour appears.
    package = get_property_package((WATER_CAS, HEXANE), "CHAO-SEA")
    state = package.flash(np.array([0.5, 0.5]), "test", P=ATM, VF=0.0)
    assert state.two_liquids
    assert pytest.approx(61.6, abs=1.0) == state.T - 273.15
    hot = package.flash(np.array([0.5, 0.5]), "test", T=343.15, P=ATM)
    assert 0.5 < hot.VF < 0.9


@pytest.mark.parametrize(
    ("CAS", "T", "P", "VF"),
    [
        (PROPANE, 358.65, 1e5, 1.0),  # 85.5 C, far above its -42 C boiling point
        ("106-97-8", 423.15, 10e5, 1.0),  # n-butane at 150 C, 10 bar: its vapour pressure is about 36 bar
        (HYDROGEN, 300.0, ATM, 1.0),  # supercritical
        (HEXANE, 300.0, 20e5, 0.0),  # compressed liquid
        (HEXANE, 342.8, ATM, 0.0),  # just below the model's 343.3 K boiling point...
        (HEXANE, 343.8, ATM, 1.0),  # ...and just above: the TP flash agrees with the saturation flash
        (METHANE_CAS, 100.0, 5e5, 0.0),  # below its 5 bar saturation temperature (NIST 120.8 K)
    ],
)
def test_a_pure_component_is_the_phase_its_fugacities_say(CAS: str, T: float, P: float, VF: float) -> None:
    # thermo's pure-component flasher picks the phase of lower Gibbs energy; with Lee-Kesler's enthalpy
    # against Redlich-Kwong's, that comparison ignored the Chao-Seader fugacities (hot propane was liquid)
    state = get_property_package((CAS,), "CHAO-SEA").flash(np.array([1.0]), "test", T=T, P=P)
    assert state.VF == VF


@pytest.mark.parametrize(("T", "P"), [(603.15, 1e5), (310.0, 30e5), (250.0, 100e5), (337.0, 40e5)])
def test_hydrogen_rich_gas_is_vapour(T: float, P: float) -> None:
    # 80/20 H2/CH4 is far above its pseudo-critical temperature (65 K): a gas, though Redlich-Kwong's single
    # root there counts as "liquid" by thermo's volume test
    state = get_property_package((HYDROGEN, METHANE_CAS), "CHAO-SEA").flash(
        np.array([0.8, 0.2]), "test", T=T, P=P
    )
    assert state.VF == 1.0


def test_cold_heavy_liquid_is_not_split_into_a_liquid_like_vapour() -> None:
    # 30/40/30 propane/n-hexane/toluene at 175 K and 30 bar is a compressed liquid; a Redlich-Kwong root of
    # 104 cm3/mol (an ideal gas would be 485) is no vapour
    package = get_property_package((PROPANE, HEXANE, TOLUENE_CAS), "CHAO-SEA")
    assert package.flash(np.array([0.3, 0.4, 0.3]), "test", T=175.0, P=30e5).VF == 0.0


@pytest.mark.parametrize("P", [20e5, 35e5, 60e5])
def test_heating_a_hydrogen_hydrocarbon_gas_never_condenses_it(P: float) -> None:
    # beyond the correlation's fitted Tr 1.3 its acentric-factor term is held (unheld, n-hexane's nu falls
    # 100-fold by Tr 2 and this gas turned back into liquid on heating)
    package = get_property_package((HYDROGEN, METHANE_CAS, HEXANE, TOLUENE_CAS), "CHAO-SEA")
    VFs = [package.flash(np.array([0.6, 0.1, 0.2, 0.1]), "test", T=T, P=P).VF for T in range(500, 901, 50)]
    assert VFs == [1.0] * len(VFs)


def test_a_component_without_regular_solution_constants_is_refused_naming_it() -> None:
    with pytest.raises(ComponentDataError, match=r"nitrogen.*Chao and Seader"):
        get_property_package(("7727-37-9", HEXANE), "CHAO-SEA")


# ---- through the service's contract ----------------------------------------------------------------------

HEXANE_COMPONENT = component("HEXANE", "n-hexane")


def test_high_pressure_separator_closes_its_balances() -> None:
    results = run_config(hp_separator())
    assert_closed(results)
    gas, liquid = results["streams"]["GAS-1"], results["streams"]["LIQ-1"]
    assert gas["temperature_C"] == pytest.approx(45.0, abs=1e-6)
    assert gas["pressure_bar"] == pytest.approx(34.0, abs=1e-6)
    assert gas["mole_fractions"]["H2"] > 0.8
    assert liquid["mole_fractions"]["HEXANE"] + liquid["mole_fractions"]["TOLUENE"] > 0.9
    # the cooler takes the feed from vapour at 320 C to a two-phase mixture at 45 C
    assert results["blocks"]["C1"]["duty_kW"] < 0


def test_unsupported_component_fails_the_run_as_missing_component_data() -> None:
    config = hp_separator()
    config["components"][1] = component("CH4", "nitrogen")  # N2 under the methane's id
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "MissingComponentData"
    assert "nitrogen" in info.value.message


def test_liquid_let_down_warms_as_its_volume_and_expansivity_say() -> None:
    # Isenthalpic throttling of liquid n-hexane from 30 to 1.5 bar at 25 C: dT = V (1 - T alpha) dP / Cp
    # with the CRC Handbook's density 654.8 kg/m3 and expansivity 1.387e-3 1/K and NIST's Cp 195.6 J/mol/K:
    # +1.12 K.
    # Lee-Kesler's liquid enthalpy carries the pressure term itself (counting V dP again would double it).
    V = 86.175e-3 / 654.8
    expected = V * (1.0 - 298.15 * 1.387e-3) * 28.5e5 / 195.6
    assert expected == pytest.approx(1.12, abs=0.01)
    v1 = Block("V1", "Valve", {"IN-1": "F(IN)", "OUT-1": "P(OUT)"}, valve_job(1.5))
    feeds = {"IN-1": feed(25.0, 30.0, {"HEXANE": 100.0})}
    config = flowsheet_config("Liquid let-down", [HEXANE_COMPONENT], "CHAO-SEA", [v1], feeds)
    results = run_config(config)
    assert_closed(results)
    out = results["streams"]["OUT-1"]
    assert out["vapor_fraction"] == 0.0
    assert out["temperature_C"] - 25.0 == pytest.approx(expected, abs=0.15)


def test_a_saturation_point_that_does_not_exist_is_said_in_words() -> None:
    # 30 % hydrogen cannot all dissolve at 30 bar: there is no bubble point; thermo's solver fails inside
    # (an UnboundLocalError), and the message must say what that means, not name thermo's variables
    package = get_property_package((HYDROGEN, HEXANE, TOLUENE_CAS), "CHAO-SEA")
    with pytest.raises(FlashError, match="no such saturation point") as info:
        package.flash(np.array([0.3, 0.4, 0.3]), "block F1 outlet", P=30e5, VF=0.0)
    assert "Error" not in str(info.value) and str(info.value).startswith("block F1 outlet")
