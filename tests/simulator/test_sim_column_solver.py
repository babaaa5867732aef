"""RadFrac's solver never carries inf/NaN on and never accepts a fixed point whose energy balance is unmet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _support.sim import assert_closed

from aspen_rl.tasks import load_tasks
from simulator_mock import run_config
from simulator_mock.flowsheet.blocks.column_solver import _bubble_temperatures, _vapour_flow

EVAL = Path(__file__).resolve().parents[2] / "data" / "generated" / "eval.jsonl"

# NIST Webbook, enthalpy of vaporization at the normal boiling point (kJ/mol)
DHVAP_N_HEXANE = 28.85
DHVAP_N_HEPTANE = 31.77


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_sharp_hexane_heptane_split_boils_up_what_its_reboiler_duty_says() -> None:
    """400 kmol/h 85/15 n-hexane/n-heptane, 18 stages, R 3.5, D/F 0.807 (PENG-ROB; a shipped generated task).

    The bubble-point sweeps used to settle on a fixed point with the reboiler's vapour held at the solver's
    floor (boil-up ratio 5e-9 with an 11.7 MW reboiler): no solution of the energy balance, and a 0.98
    overhead instead of 0.9994. The reboiler's duty must boil up its vapour at a latent heat between the two
    components' (NIST), and no RuntimeWarning (overflow, NaN) may occur on the way.
    """
    (task,) = [t for t in load_tasks(EVAL) if t.task_id == "gen-eval-2-column_radfrac-0031"]
    assert task.reference_config is not None
    results = run_config(task.reference_config)
    assert_closed(results)
    block = results["blocks"]["C1"]
    vapour_kmol_hr = block["boilup_ratio"] * block["bottoms_rate_kmol_hr"]
    latent = block["reboiler_duty_kW"] * 3.6 / vapour_kmol_hr  # kJ/mol
    assert DHVAP_N_HEXANE * 0.95 < latent < DHVAP_N_HEPTANE * 1.05
    # with D/F 0.807 of an 85 % feed, 18 stages and R 3.5 the overhead is nearly pure hexane
    assert results["streams"]["TOP-1"]["mole_fractions"]["NHEXANE"] > 0.999


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_bubble_temperatures_stay_finite_and_in_range_from_a_wild_start() -> None:
    """ln K up to 800 (exp overflows a float), steep slopes: Newton is scaled and kept in [T_low, T_high]."""
    T0 = np.array([300.0, 350.0, 400.0])
    lnK0 = np.array([[800.0, -5.0], [0.5, -0.5], [-900.0, -800.0]])
    b = np.array([[4000.0, 5000.0], [3000.0, 3500.0], [2e6, 1e6]])
    x = np.array([[0.5, 0.5], [0.3, 0.7], [0.0, 1.0]])
    T = _bubble_temperatures(T0, lnK0, b, x, 150.0, 550.0)
    assert np.all(np.isfinite(T)) and np.all((T >= 150.0) & (T <= 550.0))
    # the well-posed middle stage reaches its bubble point: sum x K(T) = 1
    lnK = lnK0[1] + b[1] * (1 / T0[1] - 1 / T[1])
    assert float(np.sum(x[1] * np.exp(lnK))) == pytest.approx(1.0, rel=1e-9)


def test_vapour_flow_is_undefined_rather_than_inf_or_nan() -> None:
    assert _vapour_flow(10.0, 2.0, 1.0) == 5.0
    assert _vapour_flow(-10.0, 2.0, 1.0) == 1.0  # below the floor: the floor
    assert _vapour_flow(10.0, 0.0, 1.0) is None
    assert _vapour_flow(float("nan"), 2.0, 1.0) is None
