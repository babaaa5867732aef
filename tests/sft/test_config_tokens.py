"""The config-turn diagnostic sorts a real config into copied, converted and looked-up parts."""

from __future__ import annotations

import json
from pathlib import Path

from _support.benchmarks import load_benchmark

from aspen_rl.datagen import family_of
from aspen_rl.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]


def test_a_fahrenheit_request_has_converted_temperatures_and_copied_names_and_flows() -> None:
    module = load_benchmark("config_tokens")

    task = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0]  # 77 °F -> 25 °C, 356 °F -> 180 °C
    assert "77 °F" in task.user_requirement
    # the config as the agent's run_simulation call carries it: a JSON string inside the arguments
    text = json.dumps({"config": json.dumps(task.reference_config)})
    kind, numbers = module.classes(text, task.user_requirement)

    def kind_of(fragment: str) -> str:
        return kind[text.index(fragment)]

    assert {text[a:b]: name for a, b, name in numbers if text[a:b] in ("25.0", "410.0", "0.8")} == {
        "25.0": "numbers (converted)",
        "410.0": "numbers (copy)",
        "0.8": "numbers (copy)",  # 80 mol%
    }
    assert kind_of("FEED-1") == "names (copy)" and kind_of("NRTL") == "names (copy)"
    assert kind_of("67-56-1") == "component ids (lookup)" and kind_of("METHANOL") == "component ids (lookup)"
    assert kind_of("MOLE-FRAC") == "keywords" and kind_of("TEMP_VALUE") == "structure"


def test_the_stated_units_stage_keeps_exactly_the_tasks_without_a_conversion() -> None:
    """``--stated-units``: a held-out heater task is kept iff its request uses no unit the config converts."""
    module = load_benchmark("learning_curve")
    tasks = [t for t in load_tasks(ROOT / "data" / "generated" / "eval.jsonl") if family_of(t) == "heater"]
    kept = {t.task_id for t in tasks if module.in_stated_units(t)}
    for task in tasks:  # °F becomes °C, psia bar and mol/s kmol/hr; K, atm, kPa and MPa are written as stated
        converts = any(unit in task.user_requirement for unit in ("°F", "psia", "mol/s"))
        assert (task.task_id in kept) != converts, task.user_requirement
    assert len(tasks) == 50 and len(kept) == 25  # 131 °F is 55 °C: a request saying '55 mol%' still converts
    picked = module.pick(ROOT / "data" / "generated" / "eval.jsonl", ["heater"], 8, 0, module.in_stated_units)
    assert len(picked) == 8 and {t.task_id for t in picked} <= kept
