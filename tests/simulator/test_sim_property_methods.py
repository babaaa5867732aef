"""UNIQUAC, WILSON and SRK against published data (never against the engine itself)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator_mock.properties.property_package import get_property_package

ETHANOL, WATER = "64-17-5", "7732-18-5"
BENZENE, TOLUENE, CYCLOHEXANE = "71-43-2", "108-88-3", "110-82-7"
ATM = 101325.0


def _bubble(method: str, CASs: tuple[str, ...], x: float) -> tuple[float, float]:
    state = get_property_package(CASs, method).flash(np.array([x, 1.0 - x]), "test", P=ATM, VF=0.0)
    return state.T - 273.15, float(state.ys[0])


@pytest.mark.parametrize("method", ["UNIQUAC", "WILSON"])
def test_ethanol_water_azeotrope(method: str) -> None:
    # Azeotrope at 1 atm: 78.15-78.2 C, 0.894 mole fraction ethanol (Horsley, Azeotropic Data; CRC Handbook).
    T, y = _bubble(method, (ETHANOL, WATER), 0.894)
    assert pytest.approx(78.2, abs=0.3) == T
    assert y == pytest.approx(0.894, abs=0.01)
    assert get_property_package((ETHANOL, WATER), method).warnings == []  # ChemSep pair, nothing estimated
    # equimolar bubble point 79.8 C (Kojima et al. data as compiled in Gmehling's DECHEMA series, 1 atm)
    T, y = _bubble(method, (ETHANOL, WATER), 0.5)
    assert pytest.approx(79.8, abs=0.6) == T
    assert y == pytest.approx(0.65, abs=0.02)


@pytest.mark.parametrize("method", ["UNIQUAC", "WILSON"])
def test_missing_pair_is_estimated_from_unifac_and_reported(method: str) -> None:
    # benzene/cyclohexane is not in ChemSep's tables; its azeotrope is 77.6 C near 0.54 mole fraction
    # benzene at 1 atm (Horsley, Azeotropic Data).
    package = get_property_package((BENZENE, CYCLOHEXANE), method)
    assert any("estimated from UNIFAC" in w and "benzene/cyclohexane" in w for w in package.warnings)
    T, y = _bubble(method, (BENZENE, CYCLOHEXANE), 0.55)
    assert pytest.approx(77.6, abs=0.5) == T
    assert y == pytest.approx(0.55, abs=0.02)


@pytest.mark.parametrize(("CAS", "Tb"), [(BENZENE, 353.24), (TOLUENE, 383.75)])
def test_srk_normal_boiling_points(CAS: str, Tb: float) -> None:
    # NIST WebBook normal boiling points: benzene 353.2 K, toluene 383.8 K.
    state = get_property_package((CAS,), "SRK").flash(np.array([1.0]), "test", P=ATM, VF=0.0)
    assert pytest.approx(Tb, abs=1.0) == state.T


def test_srk_is_volume_translated_rk_soave_is_not() -> None:
    # benzene at 25 C: 873.6 kg/m3 (CRC Handbook). Peneloux's shift fixes SRK's liquid density; RK-SOAVE
    # (untranslated) is ~9 % light.
    rhos = {}
    for method in ("SRK", "RK-SOAVE"):
        state = get_property_package((BENZENE,), method).flash(np.array([1.0]), "test", T=298.15, P=ATM)
        rhos[method] = 78.11e-3 / state.V_liquid
    assert rhos["SRK"] == pytest.approx(873.6, rel=0.01)
    assert rhos["RK-SOAVE"] < 0.93 * 873.6
    # both give the same vapour pressure (the shift leaves phase equilibrium of a pure component unchanged)
    P = [
        get_property_package((BENZENE,), m).flash(np.array([1.0]), "test", T=353.24, VF=0.0).P
        for m in ("SRK", "RK-SOAVE")
    ]
    assert P[0] == pytest.approx(P[1], rel=1e-6)
    assert P[0] == pytest.approx(ATM, rel=0.02)


def test_van_laar_from_unifac_is_reported_and_near_published_data() -> None:
    # every Van Laar pair is estimated (no maintained parameter table); the estimate is looser than the
    # ChemSep-fitted methods: azeotrope 78.2 C, 0.894 ethanol at 1 atm (Horsley)
    package = get_property_package((ETHANOL, WATER), "VAN-LAAR")
    assert any("VAN-LAAR" in w and "ethanol/water" in w and "UNIFAC" in w for w in package.warnings)
    T, y = _bubble("VAN-LAAR", (ETHANOL, WATER), 0.894)
    assert pytest.approx(78.2, abs=0.5) == T
    assert y == pytest.approx(0.894, abs=0.015)
    T, y = _bubble("VAN-LAAR", (BENZENE, CYCLOHEXANE), 0.55)
    assert pytest.approx(77.6, abs=0.5) == T
    assert y == pytest.approx(0.55, abs=0.02)


def test_van_laar_binary_form() -> None:
    # Prausnitz et al. eq. 6-13x: ln gamma_1 = A12 (A21 x2 / (A12 x1 + A21 x2))^2; gamma_1(x1 -> 0) = e^A12
    from simulator_mock.properties.van_laar import VanLaar

    T, A12, A21, x1 = 350.0, 1.0, 2.0, 0.3
    model = VanLaar(T=T, xs=[x1, 1 - x1], B=[[0.0, A12 * T], [A21 * T, 0.0]])
    expected = np.exp(A12 * (A21 * (1 - x1) / (A12 * x1 + A21 * (1 - x1))) ** 2)
    assert model.gammas()[0] == pytest.approx(expected, rel=1e-9)
    assert model.to_T_xs(T, [1e-12, 1 - 1e-12]).gammas()[0] == pytest.approx(np.e, rel=1e-6)


def test_unifac_refuses_a_component_without_groups_naming_it() -> None:
    # ethylene oxide has no group assignment in the original UNIFAC tables the database carries; thermo
    # would divide by zero building the model
    from simulator_mock.errors import ComponentDataError

    with pytest.raises(ComponentDataError, match=r"oxirane.*UNIFAC group assignment"):
        get_property_package(("75-21-8", "7732-18-5"), "UNIFAC")
    assert get_property_package(("75-21-8",), "UNIFAC").method == "UNIFAC"  # alone it needs no groups
