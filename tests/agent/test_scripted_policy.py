"""The offline scripted policy plays reference solutions with seeded, planned mistakes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy, ToolCallAction
from aspen_rl.tasks import AspenTask

CONFIG: dict[str, Any] = {
    "components": [{"cid": "WATER", "name": "WATER", "cas_number": "7732-18-5", "database_name": "WATER"}],
    "property_methods": [{"method_name": "IDEAL", "is_basis_method": True}],
    "blocks": [{"name": "H1", "type": "Heater"}],
    "streams": ["FEED-1", "PRO-1"],
    "block_connections": {"H1": {"FEED-1": "F(IN)", "PRO-1": "P(OUT)"}},
    "stream_data": {"FEED-1": {"MIXED_SPEC": "TP", "temperature": {"TEMP_VALUE": 25, "TEMP_UNITS": "C"}}},
}
RESULT_PATH = "C:\\aspen\\results\\aspen_result_export_7.xlsx"
# What get_result shows the model (aspen_rl.contract.rendering.render_workbook).
RESULTS_TEXT = """Results workbook aspen_result_export_7.xlsx
[Stream Summary]
Row | Units | FEED-1 | PRO-1
Temperature | C | 25 | 80
Mole Fractions/WATER |  | 1 | 1
[H1_result]
QCALC = 1234.5 kW
B_TEMP = 80 C"""
TASK = AspenTask.model_validate(
    {
        "task_id": "t-heater",
        "user_requirement": "Heat 100 kmol/h of water from 25 C to 80 C in heater H1.",
        "difficulty": "easy",
        "expected_output": [
            {
                "name": "outlet temperature",
                "sheet": "Stream Summary",
                "row": "Temperature",
                "column": "PRO-1",
                "value": 80.0,
                "unit": "C",
            },
            {"name": "heater duty", "sheet": "H1_result", "row": "QCALC", "value": 1234.5, "unit": "kW"},
        ],
        "reference_config": CONFIG,
    }
)


def play(policy: ScriptedPolicy, key: str, simulator: Any) -> tuple[list[ToolCallAction], str]:
    """Drive the policy to its final answer, answering tool calls with ``simulator``."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "ignored"},
        {"role": "user", "content": TASK.user_requirement},
    ]
    calls: list[ToolCallAction] = []
    for i in range(20):
        action = policy.next_action(messages, rollout_key=key)
        if isinstance(action, AnswerAction):
            return calls, action.content
        calls.append(action)
        call_id = f"c{i}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": action.name, "arguments": json.dumps(action.arguments)},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": simulator(action)})
    raise AssertionError("the policy never answered")


def healthy_simulator(action: ToolCallAction) -> str:
    if action.name == "get_schema":
        return json.dumps({"success": True, "schemas": {}})
    if action.name == "run_simulation":
        try:
            config = json.loads(action.arguments["config"])
        except json.JSONDecodeError as exc:
            return json.dumps({"success": False, "error_type": "InvalidJSON", "error_message": str(exc)})
        bad_names = [s for s in config["streams"] if not re.fullmatch(r"[A-Z]+-[0-9]+", s)]
        if bad_names:
            message = f"SchemaViolation: streams: {bad_names[0]!r} does not match ^[A-Z]+-[0-9]+$"
            return json.dumps({"success": False, "error_code": "SchemaViolation", "error_message": message})
        if config["stream_data"]["FEED-1"]["temperature"]["TEMP_UNITS"] != "C":
            return json.dumps(
                {"success": False, "error_code": "UnknownUnit", "error_message": "unknown unit"}
            )
        return json.dumps({"success": True, "result_file_path": RESULT_PATH})
    # It asks only for where the task's requested values stand.
    assert action.arguments == {"result_file_path": RESULT_PATH, "only": ["PRO-1", "H1"]}
    return RESULTS_TEXT


def test_clean_run_follows_schema_simulate_result_and_reports_simulator_values() -> None:
    calls, answer = play(ScriptedPolicy([TASK], error_rate=0.0), "r1", healthy_simulator)
    assert [c.name for c in calls] == ["get_schema", "run_simulation", "get_result"]
    assert calls[0].arguments == {"block_types": ["base", "Heater"]}
    assert json.loads(calls[1].arguments["config"]) == CONFIG
    assert calls[2].arguments == {"result_file_path": RESULT_PATH, "only": ["PRO-1", "H1"]}
    assert "| outlet temperature | 80 | C |" in answer
    assert "| heater duty | 1234 | kW |" in answer  # 4 significant figures of 1234.5


def test_every_mistake_at_error_rate_one() -> None:
    calls, answer = play(ScriptedPolicy([TASK], error_rate=1.0), "r1", healthy_simulator)
    # skip_schema wins over redundant_schema; malformed JSON, a wrong unit, a bad stream name, then the
    # good config; the results are read twice.
    assert [c.name for c in calls] == ["run_simulation"] * 4 + ["get_result"] * 2
    with pytest.raises(json.JSONDecodeError):
        json.loads(calls[0].arguments["config"])
    assert (
        json.loads(calls[1].arguments["config"])["stream_data"]["FEED-1"]["temperature"]["TEMP_UNITS"]
        == "centigrade"
    )
    renamed = json.loads(calls[2].arguments["config"])
    assert renamed["streams"] == ["FEED_1", "PRO-1"]
    assert renamed["block_connections"] == {"H1": {"FEED_1": "F(IN)", "PRO-1": "P(OUT)"}}
    assert list(renamed["stream_data"]) == ["FEED_1"]
    assert json.loads(calls[3].arguments["config"]) == CONFIG
    assert "| outlet temperature | 92 | C |" in answer  # sloppy: 80 * 1.15, a number the simulator never gave


def test_a_target_the_results_do_not_show_is_reported_as_not_available() -> None:
    def short_results(action: ToolCallAction) -> str:
        text = healthy_simulator(action)
        return text.replace("QCALC = 1234.5 kW\n", "") if action.name == "get_result" else text

    _, answer = play(ScriptedPolicy([TASK], error_rate=0.0), "r1", short_results)
    assert "| heater duty | not available | kW |" in answer


def test_a_result_read_that_fails_ends_with_an_honest_answer() -> None:
    def missing_file(action: ToolCallAction) -> str:
        if action.name == "get_result":
            return json.dumps({"success": False, "error_type": "HTTP404", "error_message": "文件不存在"})
        return healthy_simulator(action)

    calls, answer = play(ScriptedPolicy([TASK], error_rate=0.0), "r1", missing_file)
    assert [c.name for c in calls][-1] == "get_result"
    assert answer.startswith("The simulation could not be completed")


def test_failed_reference_simulation_ends_with_an_honest_answer() -> None:
    def down(action: ToolCallAction) -> str:
        return "SimulatorUnavailable: no answer from http://127.0.0.1:1 within 1 s"

    calls, answer = play(ScriptedPolicy([TASK], error_rate=0.0), "r1", down)
    assert [c.name for c in calls] == ["get_schema", "run_simulation"]
    assert answer.startswith("The simulation could not be completed")


def test_unknown_task_is_answered_without_tools() -> None:
    policy = ScriptedPolicy([TASK])
    action = policy.next_action([{"role": "user", "content": "Design a nuclear reactor."}])
    assert isinstance(action, AnswerAction)
    assert "does not match" in action.content


def test_mistake_plans_are_seeded_and_vary_between_rollouts() -> None:
    def plans(seed: int) -> list[frozenset[str]]:
        policy = ScriptedPolicy([TASK], error_rate=0.3, seed=seed)
        return [policy.plan_for(f"rollout-{i}", TASK).mistakes for i in range(30)]

    assert plans(1) == plans(1)
    assert plans(1) != plans(2)
    assert len(set(plans(1))) >= 5
    # The plan is drawn once per rollout and kept for its later calls.
    policy = ScriptedPolicy([TASK], error_rate=0.5, seed=3)
    assert policy.plan_for("r", TASK) is policy.plan_for("r", TASK)


def test_error_rate_is_validated() -> None:
    with pytest.raises(ValueError, match="error_rate"):
        ScriptedPolicy([TASK], error_rate=1.5)
