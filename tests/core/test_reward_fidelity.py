"""Task fidelity on the shipped reference configs: what the requirement fixes is checked, the rest is free."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspen_rl.reward.fidelity import fidelity, molar_mass
from aspen_rl.tasks import load_tasks

DATA = Path(__file__).resolve().parents[2] / "data"
TASKS = {t.task_id: t for split in ("train", "val", "test") for t in load_tasks(DATA / f"{split}.jsonl")}


def reference(task_id: str) -> dict:
    return copy.deepcopy(TASKS[task_id].reference_config)


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_reference_config_is_faithful_to_itself_and_renamed(task_id: str) -> None:
    config = reference(task_id)
    assert fidelity(config, copy.deepcopy(config)).value == 1.0
    text = json.dumps(config)
    for i, stream in enumerate(config["streams"]):
        text = text.replace(f'"{stream}"', f'"ZS-{i}"')
    for i, block in enumerate(config["blocks"]):
        text = text.replace(f'"{block["name"]}"', f'"ZB{i}"')
    renamed = fidelity(config, json.loads(text))
    assert renamed.value == 1.0, renamed.parts
    assert renamed.names[config["streams"][0]] == "ZS-0"


def test_units_and_feed_forms_are_free() -> None:
    config = reference("val-medium-01")  # two feeds as total flow and mole fractions, a Mixer, a Flash2
    other = copy.deepcopy(config)
    s1 = other["stream_data"]["S-1"]
    s1["temperature"] = {"TEMP_VALUE": 298.15, "TEMP_UNITS": "K"}
    s1["pressure"] = {"PRES_VALUE": 101.325, "PRES_UNITS": "kPa"}
    s1["flow"] = {  # 50 kmol/h, 20 % acetone, as component flows in kmol/s
        "FLOWBASE": "MOLE",
        "BASIS": "MOLE-FLOW",
        "ACETONE": {"FLOW_VALUE": 10 / 3600, "FLOW_UNITS": "kmol/s", "FLOW_BASIS": "MOLE-FLOW"},
        "WATER": {"FLOW_VALUE": 40 / 3600, "FLOW_UNITS": "kmol/s", "FLOW_BASIS": "MOLE-FLOW"},
    }
    other["blocks_Flash2_data"]["F1"]["SPEC_DATA"].update(TEMP_VALUE=167.0, TEMP_UNITS="F")
    other["components"][1]["database_name"] = "H2O"  # a synonym of WATER (both CAS 7732-18-5)
    del other["blocks_Mixer_data"]["M1"]["SPEC_DATA"]["PRES_VALUE"]  # Aspen's default: no pressure drop
    other["blocks_Mixer_data"]["M1"]["SPEC_DATA"]["MAXIT_VALUE"] = 5  # a convergence setting
    assert fidelity(config, other).value == 1.0


def test_a_mass_basis_feed_is_the_same_feed_in_moles() -> None:
    config = reference("val-easy-01")  # 5000 kg/h of toluene (MASS, MASS-FRAC)
    other = copy.deepcopy(config)
    kmol = 5000 / molar_mass("TOLUENE")  # 54.27 kmol/h
    stream = next(iter(other["stream_data"].values()))
    stream["flow"] = {
        "FLOWBASE": "MOLE",
        "TOTFLOW_VALUE": kmol,
        "TOTFLOW_UNITS": "kmol/hr",
        "BASIS": "MOLE-FRAC",
        "TOLUENE": {"FLOW_VALUE": 1.0, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"},
    }
    assert molar_mass("TOLUENE") == pytest.approx(92.14, abs=0.01)
    assert fidelity(config, other).value == 1.0
    stream["flow"]["TOTFLOW_VALUE"] = 5000 / 78.11  # the same mass of benzene's molar mass: another feed
    assert fidelity(config, other).parts["feeds"] == 0.0


def test_what_the_requirement_fixes_costs_fidelity() -> None:
    config = reference("val-medium-01")
    ideal = copy.deepcopy(config)
    ideal["property_methods"] = [{"method_name": "IDEAL", "is_basis_method": True}]
    assert fidelity(config, ideal).value == 0.5
    one_feed = copy.deepcopy(config)
    one_feed["stream_data"]["S-1"]["flow"]["TOTFLOW_VALUE"] = 25
    assert fidelity(config, one_feed).value == pytest.approx(0.3)
    both = copy.deepcopy(one_feed)
    both["stream_data"]["S-2"]["temperature"]["TEMP_VALUE"] = 60
    assert fidelity(config, both).value == pytest.approx(0.09)
    spec = copy.deepcopy(config)
    spec["blocks_Flash2_data"]["F1"]["SPEC_DATA"]["TEMP_VALUE"] = 80
    assert fidelity(config, spec).parts["specs"] == 0.5 and fidelity(config, spec).value == pytest.approx(0.3)
    component = copy.deepcopy(config)
    component["components"][0]["database_name"] = "METHANOL"
    # a cas_number that resolves decides, as on the simulator (which then simulates the original component)
    assert fidelity(config, component).parts["components"] == 1.0
    component["components"][0]["cas_number"] = "67-56-1"
    # one of two components missing and one extra: 1 / (2 + 0.25); its feeds no longer match either
    f = fidelity(config, component)
    assert f.parts["components"] == pytest.approx(1 / 2.25) and f.value < 0.1


def test_an_extra_block_costs_a_quarter_of_a_missing_one() -> None:
    config = reference("train-easy-01")  # one Heater H1, FEED-1 -> PROD-1
    longer = copy.deepcopy(config)
    longer["blocks"].append({"name": "V1", "type": "Valve"})
    longer["streams"].append("PROD-2")
    longer["block_connections"]["V1"] = {"PROD-1": "F(IN)", "PROD-2": "P(OUT)"}
    f = fidelity(config, longer)
    # blocks 1 / (1 + 0.25); PROD-1 is still H1's product (sent on into V1), PROD-2 extra: 2 / (2 + 0.25)
    assert f.parts["blocks"] == pytest.approx(0.8) and f.parts["topology"] == pytest.approx(2 / 2.25)
    assert f.value == pytest.approx((1 - 0.8 * 0.2) * (1 - 0.5 * (1 - 2 / 2.25)))
    shorter = copy.deepcopy(config)
    shorter["blocks"] = []
    assert fidelity(config, shorter).parts["blocks"] == 0.0


def test_no_reference_nothing_to_compare_and_no_object_no_fidelity() -> None:
    assert fidelity(None, {"blocks": []}).value == 1.0
    assert fidelity(reference("train-easy-01"), "{not json").value == 0.0


ODD = [None, "x", 0, -1.5, True, [], {}, [None], {"": None}, "F(IN)"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_odd_configs_never_raise(data: st.DataObject) -> None:
    config = reference(data.draw(st.sampled_from(["val-medium-01", "train-hard-01", "val-hard-01"])))
    for _ in range(data.draw(st.integers(1, 4))):
        node, path = config, []
        while isinstance(node, dict | list) and node and data.draw(st.booleans()):
            key = data.draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
            path.append(key)
            node = node[key]
        if path:
            parent = config
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(ODD)))
    f = fidelity(reference("val-medium-01"), config)
    assert 0.0 <= f.value <= 1.0


def test_a_pressure_drop_and_the_same_outlet_pressure_written_absolute_are_one_spec() -> None:
    config = reference("train-easy-01")  # FEED-1 at 1 bar into H1, H1's outlet at 1 bar
    for pressure, unit, same in [
        (0, "bar", True),
        (0, "psi", True),
        (100, "kPa", True),
        (-0.5, "bar", False),
    ]:
        other = copy.deepcopy(config)
        other["blocks_Heater_data"]["H1"]["SPEC_DATA"].update(PRES_VALUE=pressure, PRES_UNITS=unit)
        assert (fidelity(config, other).value == 1.0) is same, (pressure, unit)
    # a block fed by another block: its inlet pressure is not stated, so only the same form matches
    flash = reference("val-medium-01")  # F1 is fed by M1's product S-3
    other = copy.deepcopy(flash)
    other["blocks_Flash2_data"]["F1"]["SPEC_DATA"].update(PRES_VALUE=0, PRES_UNITS="bar")
    assert fidelity(flash, other).parts["specs"] == 0.5
