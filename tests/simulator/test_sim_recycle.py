"""Recycle loops: automatic tear streams, Wegstein and direct substitution agree, failures are errors."""

from __future__ import annotations

import pytest
from _support.sim import assert_closed

from simulator_mock import SimulationError, run_config
from simulator_mock.examples import recycle


@pytest.fixture(scope="module")
def wegstein() -> dict:
    return run_config(recycle("WEGSTEIN"))


def test_recycle_converges_and_closes(wegstein: dict) -> None:
    assert_closed(wegstein)
    conv = wegstein["convergence"]
    assert conv["converged"] is True
    assert conv["tear_streams"] == ["RCY-1"]
    assert 1 < conv["iterations"] < 30
    s = wegstein["streams"]
    # the split: 70 % of the drum liquid returns
    assert s["RCY-1"]["molar_flow_kmol_hr"] == pytest.approx(0.7 * s["LIQ-1"]["molar_flow_kmol_hr"], rel=1e-9)
    # steady state: what the mixer receives equals what the splitter sends back
    assert s["MIX-1"]["molar_flow_kmol_hr"] == pytest.approx(
        100.0 + s["RCY-1"]["molar_flow_kmol_hr"], rel=1e-7
    )
    # overall methanol balance: feed = vapour + purge
    meoh_out = s["VAP-1"]["component_flows_kmol_hr"]["MEOH"] + s["PURGE-1"]["component_flows_kmol_hr"]["MEOH"]
    assert meoh_out == pytest.approx(40.0, rel=1e-7)


def test_direct_substitution_reaches_the_same_state(wegstein: dict) -> None:
    direct = run_config(recycle("DIRECT"))
    assert_closed(direct)
    assert direct["convergence"]["iterations"] > wegstein["convergence"]["iterations"]
    for name in ("VAP-1", "PURGE-1", "RCY-1"):
        assert direct["streams"][name]["molar_flow_kmol_hr"] == pytest.approx(
            wegstein["streams"][name]["molar_flow_kmol_hr"], rel=1e-6
        )


def test_requested_tear_stream_and_initial_estimate() -> None:
    config = recycle()
    config["convergence"]["tear_data"] = [{"tear_stream_name": "MIX-1", "tear_stream_tol": 1e-8}]
    config["stream_data"]["MIX-1"] = config["stream_data"]["FEED-1"]
    results = run_config(config)
    assert_closed(results)
    assert results["convergence"]["tear_streams"] == ["MIX-1"]
    assert results["convergence"]["calculation_order"][0] == "H1"


def test_iteration_cap_is_an_error_not_an_answer() -> None:
    config = recycle("DIRECT")
    config["convergence"]["conv_options"]["dir_maxit"] = 3
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert (info.value.error_type, info.value.status) == ("NotConverged", 422)
    assert "RCY-1" in info.value.message and "3 iterations" in info.value.message


def test_tear_stream_outside_a_loop_is_refused() -> None:
    config = recycle()
    config["convergence"]["tear_data"] = [{"tear_stream_name": "FEED-1", "tear_stream_tol": 1e-8}]
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InvalidTearStream"


def test_time_budget_stops_a_long_run() -> None:
    with pytest.raises(SimulationError) as info:
        run_config(recycle("DIRECT"), time_limit_s=1e-9)
    assert (info.value.error_type, info.value.status) == ("Timeout", 422)
    assert "time limit" in info.value.message


def test_a_misspelt_convergence_option_is_refused_and_aspens_other_options_are_accepted() -> None:
    """``weg_maxitt`` used to pass silently (the loop ran with Aspen's 30 iterations); Aspen's options the
    mock does not simulate (``trace``, ``br_maxit``) tune Aspen's numerics and are accepted."""
    config = recycle()
    config["convergence"]["conv_options"]["weg_maxitt"] = 5
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "SchemaValidationError" and info.value.status == 400
    assert "convergence.conv_options.weg_maxitt" in info.value.message and "'weg_maxit'" in info.value.message
    config["convergence"]["conv_options"].pop("weg_maxitt")
    config["convergence"]["conv_options"].update(trace=1, br_maxit=50)
    assert_closed(run_config(config))
