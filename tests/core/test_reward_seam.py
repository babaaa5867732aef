"""The reward seam: the README's custom reward runs as documented; its worked attribution example holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from heater_case import outlet_temperature, run_and_read
from workbooks import heater_workbook

from aspen_rl.reward import AspenReward, RewardBreakdown, RewardFn, RewardWeights, load_reward_fn
from aspen_rl.reward.aspen import quality_facts
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask
from aspen_rl.trace import RecordedToolCall, RunTrace

README = Path(__file__).resolve().parents[2] / "README.md"
RESULT_PATH = "/srv/results/aspen_result_export_r1.xlsx"
TASK = AspenTask(
    task_id="t-heater",
    user_requirement="Heat 100 kmol/h of water from 25 C to 80 C in H1 (FEED-1 -> PRO-1). Report PRO-1's T.",
    difficulty="easy",
    expected_output=[outlet_temperature()],
)
CONFIG = {"components": [{"cid": "WATER", "name": "WATER"}], "blocks": [{"name": "H1", "type": "Heater"}]}


def trace(answer: str, *, temperature_c: float = 80.0) -> RunTrace:
    return RunTrace(
        calls=[
            RecordedToolCall(name="get_schema", arguments={"block_types": ["Heater"]}, ok=True, response={}),
            *run_and_read(CONFIG, RESULT_PATH, heater_workbook(RESULT_PATH, temperature_c=temperature_c)),
        ],
        final_answer=answer,
    )


def readme_block(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_custom_reward_runs_as_documented() -> None:
    namespace: dict = {}
    exec(readme_block("### Your own reward"), namespace)  # the README's code, as a user would paste it
    strict_targets = namespace["strict_targets"]
    assert isinstance(strict_targets, RewardFn)

    good = trace("Simulation done.\n- PRO-1 temperature: 80.0 °C")
    assert strict_targets(TASK, good).total == pytest.approx(1.0)
    assert strict_targets(TASK, good) == AspenReward()(TASK, good)
    missed = trace("Simulation done.\n- PRO-1 temperature: 95.0 °C", temperature_c=95.0)  # target not met
    shipped = AspenReward()(TASK, missed)
    assert shipped.total == pytest.approx(0.5)  # work 0.08 + 0.3, honest reporting and form 0.12
    custom = strict_targets(TASK, missed)
    assert isinstance(custom, RewardBreakdown)
    assert custom.total == 0.0 and custom.completion == shipped.completion  # breakdown kept for reports


def test_reward_fn_is_named_in_settings_and_loaded() -> None:
    settings = Settings(_env_file=None, reward_fn="aspen_rl.reward.aspen:compute_reward")
    assert load_reward_fn(settings.reward_fn).__name__ == "compute_reward"
    with pytest.raises(ValueError, match="has no attribute 'nope'"):
        load_reward_fn("aspen_rl.reward.aspen:nope")
    with pytest.raises(ValueError, match=r"package\.module:function"):
        load_reward_fn("aspen_rl.reward.aspen")
    with pytest.raises(ValueError):
        Settings(_env_file=None, reward_fn="not a path")


def test_shipped_reward_uses_its_weights() -> None:
    # 26 characters on one line: form 0.5*26/40 + 0.5*0.5 = 0.575 -> quality 0.5 + 0.3 + 0.2*0.575 = 0.915
    t = trace("PRO-1 temperature: 80.0 °C")
    weights = RewardWeights(completion=1.0, tool_efficiency=0.0, response_quality=0.0)
    assert AspenReward(weights)(TASK, t).total == pytest.approx(1.0)
    assert AspenReward()(TASK, t).total == pytest.approx(0.4 + 0.3 + 0.3 * 0.915)


@pytest.mark.parametrize(
    ("line", "reported"),
    [
        ("- PRO-1 temperature: 80.0 °C", 1.0),
        ("- PRO-1 temperature: 353.15 K", 1.0),
        ("- PRO-1 temperature: 80.0", 0.0),
        ("- PRO-1 temperature: 80.0 K", 0.0),
        ("- FEED-1 temperature: 80.0 °C", 0.0),
        ("Temperatures: 25.0 °C, 80.0 °C", 0.0),
    ],
)
def test_the_readme_worked_example(line: str, reported: float) -> None:
    table = README.read_text(encoding="utf-8")
    assert f"| `{line}` |" in table
    assert quality_facts(TASK, trace("Results of the run:\n" + line))["reported"] == reported
