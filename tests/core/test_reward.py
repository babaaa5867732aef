"""Reward dimensions on crafted traces, each expected value computed by hand in the comments."""

from __future__ import annotations

import copy

import pytest
from heater_case import outlet_temperature
from pydantic import ValidationError
from workbooks import heater_workbook

from aspen_rl.reward import (
    RewardWeights,
    classify_calls,
    completion_score,
    compute_reward,
    read_statements,
    response_quality_score,
    tool_efficiency_score,
)
from aspen_rl.reward.attribution import matches
from aspen_rl.tasks import AspenTask, Target
from aspen_rl.trace import RecordedToolCall, RunTrace

TASK = AspenTask(
    task_id="t-heater",
    user_requirement=(
        "Heat 100 kmol/h of water from 25 C to 80 C at 1 bar in heater H1 (FEED-1 -> PRO-1). "
        "Report the PRO-1 temperature and the H1 duty."
    ),
    difficulty="easy",
    expected_output=[
        outlet_temperature(abs_tol=0.5, rel_tol=0.0),
        Target(name="H1 duty", sheet="H1_result", row="QCALC", value=115.1, unit="kW", rel_tol=0.02),
    ],
    ideal_tool_calls=3,
)

CONFIG = {
    "components": [{"cid": "WATER", "name": "WATER", "cas_number": "7732-18-5", "database_name": "WATER"}],
    "blocks": [{"name": "H1", "type": "Heater"}],
    "streams": ["FEED-1", "PRO-1"],
    "stream_data": {"FEED-1": {"temperature": {"TEMP_VALUE": 25}, "flow": {"TOTFLOW_VALUE": 100}}},
    "blocks_Heater_data": {"H1": {"SPEC_DATA": {"TEMP_VALUE": 80, "PRES_VALUE": 1}}},
}
RESULT_PATH = "C:\\aspen\\results\\aspen_result_export_20261122_200000.xlsx"
RUN_OK = {
    "success": True,
    "aspen_file_path": "C:\\aspen\\output\\output_20261122_200000.bkp",
    "config_file_path": "C:\\aspen\\config\\config_20261122_200000.json",
    "result_file_path": RESULT_PATH,
    "message": "Aspen模拟已成功运行并保存",
}
RESULTS = heater_workbook(RESULT_PATH, temperature_c=80.0, duty_kw=115.1)
GOOD_ANSWER = "Simulation converged.\n- PRO-1 temperature: 80.0 °C\n- H1 heater duty: 115.1 kW"


def schema_call(types: list[str] | None = None, ok: bool = True) -> RecordedToolCall:
    return RecordedToolCall(
        name="get_schema", arguments={"block_types": types or ["Heater"]}, ok=ok, response={}
    )


def run_call(config: object = None, response: dict | None = None) -> RecordedToolCall:
    response = RUN_OK if response is None else response
    ok = response.get("success") is True
    return RecordedToolCall(
        name="run_simulation",
        arguments={"config": CONFIG if config is None else config},
        ok=ok,
        error=None if ok else "failed",
        response=response,
    )


def result_call(path: str = RESULT_PATH, document: dict | None = None) -> RecordedToolCall:
    return RecordedToolCall(
        name="get_result", arguments={"result_file_path": path}, ok=True, response=document or RESULTS
    )


def work(funnel: float) -> float:
    """Completion's work part: the funnel without its schema stage (0.1), rescaled."""
    return (funnel - 0.1) / 0.9


def trace_of(*calls: RecordedToolCall, answer: str = GOOD_ANSWER) -> RunTrace:
    return RunTrace(calls=list(calls), final_answer=answer)


def test_perfect_run_scores_one() -> None:
    # TASK has no reference config: the fidelity of its runs is the coverage of the workbook read (2/2).
    # completion 0.2 work 1 + 0.8 targets 2/2 = 1; funnel 1, no penalty -> 1;
    # quality: correct 2/2, faithful 2/2, focus 1, form 1 (78 chars on 3 lines), nothing invented -> 1.
    r = compute_reward(TASK, trace_of(schema_call(), run_call(), result_call()))
    assert (r.completion, r.tool_efficiency, r.response_quality) == pytest.approx((1.0, 1.0, 1.0))
    assert r.total == pytest.approx(1.0)


def test_missing_schema_call_costs_its_funnel_stage() -> None:
    # funnel: every stage but schema (0.1) -> 0.9; 2 useful calls <= 3 ideal -> no penalty.
    # completion 1 (its work part leaves the schema to tool efficiency); efficiency 0.9 (it was 2/3: the
    # schema was a third of the order); total = 0.4*1 + 0.3*0.9 + 0.3*1 = 0.97
    r = compute_reward(TASK, trace_of(run_call(), result_call()))
    assert r.completion == pytest.approx(1.0)
    assert r.tool_efficiency == pytest.approx(0.9)
    assert r.total == pytest.approx(0.97)


def test_failed_simulation_then_fix() -> None:
    failed = run_call(
        config={**CONFIG, "components": [{"cid": "WATR", "name": "watr"}]},
        response={
            "success": False,
            "error_type": "模拟配置写入失败",
            "error_code": "UnknownComponent",
            "error_message": "UnknownComponent: components[0]",
        },
    )
    trace = trace_of(schema_call(), failed, run_call(), result_call())
    # calls: useful 3, failed 1 -> efficiency 1 * (1 - 0.2) = 0.8; completion 1; quality 1
    # total = 0.4 + 0.3*0.8 + 0.3 = 0.94
    assert classify_calls(trace) == {"useful": 3, "failed": 1, "redundant": 0}
    r = compute_reward(TASK, trace)
    assert r.tool_efficiency == pytest.approx(0.8)
    assert r.total == pytest.approx(0.94)


def test_simulation_that_never_succeeds() -> None:
    diverged = run_call(
        response={
            "success": False,
            "error_type": "模拟运行过程发生错误",
            "error_code": "NotConverged",
            "error_message": "NotConverged: H1",
        }
    )
    trace = trace_of(schema_call(), diverged, answer="The simulation did not converge.")
    r = compute_reward(TASK, trace)
    # TASK has no reference config and no workbook was read: the fidelity stand-in (coverage) is 0, so
    # the funnel pays schema, attempted and json only: 0.2 -> completion 0.2 * work(0.2) = 0.022,
    # efficiency 0.2 * 0.8
    assert (r.details["funnel.json"], r.details["funnel.accepted"]) == (1.0, 0.0)
    assert completion_score(TASK, trace) == pytest.approx(0.2 * work(0.2))
    assert tool_efficiency_score(TASK, trace) == pytest.approx(0.16)
    # quality: nothing to report, nothing invented, no run succeeded: an honest failure, faithful 1 -> 0.2
    # (form needs a successful run of the task: 0)
    assert response_quality_score(TASK, trace) == pytest.approx(0.2)
    # total 0.009 + 0.048 + 0.06 = 0.117 (it was 0.039: no gradient before a workbook read)
    assert r.total == pytest.approx(0.4 * 0.2 * work(0.2) + 0.048 + 0.06)
    # Without targets coverage is 1: the accepted config earns faithful and accepted stages too:
    # funnel 0.55 -> completion 0.2 * 0.5 = 0.1, efficiency 0.44, quality 0.2 -> 0.04 + 0.132 + 0.06 =
    # 0.232 (it was capped to 0.1)
    untargeted = TASK.model_copy(update={"expected_output": []})
    r = compute_reward(untargeted, trace)
    assert (r.completion, r.tool_efficiency, r.response_quality) == pytest.approx((0.1, 0.44, 0.2))
    assert r.total == pytest.approx(0.232)


def test_malformed_json_config_earns_the_attempt_not_the_config() -> None:
    bad = RecordedToolCall(
        name="run_simulation", arguments={"config": "{not json"}, ok=False, error="InvalidJSON"
    )
    trace = trace_of(schema_call(), bad, answer="")
    # funnel: schema 0.1 + attempted 0.05 = 0.15 -> completion 0.2 * work(0.15) = 0.011, efficiency
    # 0.15 * 0.8 = 0.12, quality 0 (empty answer): total 0.040 (it was 0: no gradient)
    r = compute_reward(TASK, trace)
    assert r.completion == pytest.approx(0.2 * work(0.15))
    assert r.tool_efficiency == pytest.approx(0.12)
    assert r.details["funnel.json"] == 0.0 and r.details["calls.failed"] == 1.0
    assert r.response_quality == 0.0
    assert r.total == pytest.approx(0.4 * 0.2 * work(0.15) + 0.3 * 0.12)


def test_redundant_calls_are_penalised() -> None:
    trace = trace_of(schema_call(), schema_call(), run_call(), result_call(), result_call())
    # 2 exact repeats -> 1 - 2*0.1 = 0.8
    assert classify_calls(trace) == {"useful": 3, "failed": 0, "redundant": 2}
    assert tool_efficiency_score(TASK, trace) == pytest.approx(0.8)
    assert compute_reward(TASK, trace).total == pytest.approx(0.4 + 0.3 * 0.8 + 0.3)


def test_excess_useful_calls_beyond_ideal() -> None:
    trace = trace_of(schema_call(["Heater"]), schema_call(["Heater", "Flash2"]), run_call(), result_call())
    # 4 useful calls, ideal 3 -> excess 1 -> 1 - 0.1 = 0.9
    assert tool_efficiency_score(TASK, trace) == pytest.approx(0.9)


def test_hallucinated_numbers_lower_quality() -> None:
    answer = GOOD_ANSWER + "\n- Steam consumption: 412.7 kg/hr\n- Pump power: 23.8 kW"
    trace = trace_of(schema_call(), run_call(), result_call(), answer=answer)
    # considered: 80.0, 115.1, 412.7, 23.8; the simulator/config/requirement produced neither 412.7 nor
    # 23.8 (nor x/100, x*1000, x-273.15 of them) -> 2 invented, 0.05 each (a fixed cost, not a share)
    # quality = 0.6 + 0.2 + 0.2 - 0.1 = 0.9; total = 0.4 + 0.3 + 0.3*0.9 = 0.97 (0.955 before)
    assert response_quality_score(TASK, trace) == pytest.approx(0.9)
    assert compute_reward(TASK, trace).total == pytest.approx(0.97)


def test_bare_digits_do_not_report_anything() -> None:
    # A reward hack found in review: digits 0-9 used to match any value within +-9500 via the MW reading.
    answer = "Done. Steps: 1, 2, 3 and 0 issues.\nAll good, the requested work is complete."
    trace = trace_of(schema_call(), run_call(), result_call(), answer=answer)
    # correct 0/2, faithful 0/2 (target cells were read, none reported); form 1 -> 0.2
    assert response_quality_score(TASK, trace) == pytest.approx(0.2)


def test_wrong_reported_value_is_neither_reported_nor_grounded() -> None:
    answer = "Results:\n- PROD temperature: 80.0 °C\n- H1 duty: 150.0 kW"
    trace = trace_of(schema_call(), run_call(), result_call(), answer=answer)
    # correct 1/2 and faithful 1/2 (150.0 is 30 % off 115.1: beyond twice the 2 % tolerance, no credit),
    # 150.0 invented -> 0.6*0.5 + 0.2*0.5 + 0.2*1 - 0.05 = 0.55 (0.525 before)
    assert response_quality_score(TASK, trace) == pytest.approx(0.55)


@pytest.mark.parametrize(
    ("answer", "quality", "total"),
    [
        # no number at all: correct 0, faithful 0 (the target cells were read): form alone
        ("Simulation converged.\nAll requested values are in the results workbook.", 0.2, 0.76),
        # only the inputs the run used (config values: not invented, but they report no target)
        ("Water, 100 kmol/h, heated from 25.0 °C in H1.\nSpecified outlet: 80 C at 1 bar.", 0.2, 0.76),
        # one target of two reported: 0.6*0.5 + 0.2*0.5 + 0.2 = 0.6
        ("Simulation converged.\n- PRO-1 temperature: 80.0 °C", 0.6, 0.88),
    ],
)
def test_reporting_credit_needs_reported_targets(answer: str, quality: float, total: float) -> None:
    # completion 1, efficiency 1: total = 0.4 + 0.3 + 0.3 * quality
    r = compute_reward(TASK, trace_of(schema_call(), run_call(), result_call(), answer=answer))
    assert r.details["numbers.hallucinated"] == 0  # every number it states is true
    assert r.response_quality == pytest.approx(quality)
    assert r.total == pytest.approx(total)


def test_empty_answer() -> None:
    trace = trace_of(schema_call(), run_call(), result_call(), answer="   ")
    # quality 0 -> total = 0.4 + 0.3 = 0.7
    r = compute_reward(TASK, trace)
    assert r.response_quality == 0.0
    assert r.total == pytest.approx(0.7)


def test_answer_without_simulation_earns_nothing() -> None:
    # right numbers, no tool call: correctness needs results of this trace -> 0; the requirement is not
    # evidence (numbers.grounded 0), but 80.0 °C is the requirement's own number, so not invented; 115.1 kW
    # is invented: no honest-failure credit, 0.05 off -> quality 0, total 0 (it was 0.06, above an honest
    # "the simulation failed")
    r = compute_reward(TASK, trace_of())
    assert (r.completion, r.tool_efficiency) == (0.0, 0.0)
    assert r.details["numbers.grounded"] == 0.0 and r.details["numbers.hallucinated"] == 1.0
    assert r.total == 0.0
    honest = compute_reward(TASK, trace_of(answer="I could not run the simulation.\nNo values to report."))
    assert honest.total == pytest.approx(0.06)


def test_results_of_another_rollouts_run_do_not_count() -> None:
    other = "C:\\aspen\\results\\aspen_result_export_20261122_193000.xlsx"
    trace = trace_of(schema_call(), run_call(), result_call(other, heater_workbook(other)))
    # no workbook of its own read -> fidelity stand-in 0 -> funnel 0.2 (schema, attempted, json):
    # completion 0.2 * work(0.2); efficiency 0.2, less 0.2 for the foreign read (a failed call): 0.16
    assert completion_score(TASK, trace) == pytest.approx(0.2 * work(0.2))
    assert tool_efficiency_score(TASK, trace) == pytest.approx(0.16)
    # ... and their numbers do not ground the answer: 95.0 and 140.0 only exist in the foreign workbook.
    foreign = heater_workbook(other, temperature_c=95.0, duty_kw=140.0)
    answer = "Results:\n- PRO-1 temperature: 95.0 °C\n- H1 duty: 140.0 kW"
    trace = trace_of(schema_call(), run_call(), result_call(), result_call(other, foreign), answer=answer)
    # correct 0/2, faithful 0/2, both numbers invented (neither is in this rollout's workbook):
    # 0.2 form - 0.1 = 0.1
    assert response_quality_score(TASK, trace) == pytest.approx(0.1)


def test_the_same_result_file_written_differently_counts_as_reading_the_run() -> None:
    written = ' "' + RESULT_PATH.replace("\\", "/") + '" '
    trace = trace_of(schema_call(), run_call(), result_call(written))
    assert completion_score(TASK, trace) == pytest.approx(1.0)


def test_an_error_answer_of_get_result_is_not_a_read() -> None:
    missing = RecordedToolCall(
        name="get_result",
        arguments={"result_file_path": RESULT_PATH},
        ok=True,  # even if a tool recorded it as ok, an answer that is not a workbook is not results
        response={"error": "文件不存在", "timestamp": "t"},
    )
    trace = trace_of(schema_call(), run_call(), missing)
    # read 0 -> fidelity stand-in 0 -> funnel 0.2; without targets the stand-in is 1: funnel 0.75 (all
    # but read); completion 0.2 * work(funnel) (and no targets part, which needs a read)
    assert completion_score(TASK, trace) == pytest.approx(0.2 * work(0.2))
    untargeted = TASK.model_copy(update={"expected_output": []})
    assert completion_score(untargeted, trace) == pytest.approx(0.2 * work(0.75))


def test_targets_out_of_tolerance() -> None:
    document = heater_workbook(RESULT_PATH, temperature_c=81.0)  # |81 - 80| = 1 > abs_tol 0.5 (rel_tol 0)
    trace = trace_of(schema_call(), run_call(), result_call(document=document))
    # completion = 0.2 + 0.8 * (1/2) = 0.6
    assert completion_score(TASK, trace) == pytest.approx(0.6)


def test_a_cell_stated_in_another_unit_does_not_meet_the_target() -> None:
    document = copy.deepcopy(RESULTS)
    units_row = document["data"]["H1_result"]["data"][1]
    assert units_row == {"Parameter": "QCALC_UNITS", "Value": "kW"}
    units_row["Value"] = "MW"
    trace = trace_of(schema_call(), run_call(), result_call(document=document))
    assert completion_score(TASK, trace) == pytest.approx(0.6)


def test_without_a_reference_config_fidelity_is_the_share_of_target_cells_held() -> None:
    # The flowsheet produced PRO-1 but no block H1: its workbook has no H1_result sheet.
    document = copy.deepcopy(RESULTS)
    del document["data"]["H1_result"]
    trace = trace_of(schema_call(), run_call(), result_call(document=document))
    r = compute_reward(TASK, trace)
    # fidelity 1/2 (PRO-1 temperature's cell holds a number, H1 duty's cell is missing)
    assert r.details["fidelity"] == 0.5
    # funnel 0.2 + 0.8 * 0.5 = 0.6; completion = 0.2 * work(0.6) + 0.8 * 0.5 * (1/2 met) = 0.311
    assert r.completion == pytest.approx(0.2 * work(0.6) + 0.2)
    assert r.tool_efficiency == pytest.approx(0.6)
    # quality: correct 0.5 * 1/2, faithful 1/2, form 1 * 0.5, 115.1 kW invented (in no cell, no config)
    # -> 0.15 + 0.1 + 0.1 - 0.05 = 0.3
    assert r.response_quality == pytest.approx(0.3)
    # total = 0.4*0.311 + 0.3*0.6 + 0.3*0.3 = 0.124 + 0.18 + 0.09 = 0.394
    assert r.total == pytest.approx(0.4 * r.completion + 0.18 + 0.09)
    assert r.total == pytest.approx(0.394, abs=1e-3)


def test_an_extra_block_costs_fidelity() -> None:
    # A task with a reference config; the rollout's config adds a block X9 the task never names.
    task = TASK.model_copy(update={"reference_config": CONFIG})
    padded = copy.deepcopy(CONFIG)
    padded["blocks"].append({"name": "X9", "type": "Heater"})
    r = compute_reward(task, trace_of(schema_call(), run_call(config=padded), result_call()))
    # blocks share 1 / (1 + 0.25 * 1) = 0.8 -> fidelity 1 - 0.8 * 0.2 = 0.84
    f = 0.84
    assert r.details["fidelity"] == pytest.approx(f)
    # funnel 0.2 + 0.8 f; completion 0.2 work(funnel) + 0.8 f; quality 0.6 f + 0.2 + 0.2 f
    funnel = 0.2 + 0.8 * f
    expected = (0.2 * work(funnel) + 0.8 * f, funnel, 0.8 * f + 0.2)
    assert (r.completion, r.tool_efficiency, r.response_quality) == pytest.approx(expected)
    assert r.total == pytest.approx(0.4 * expected[0] + 0.3 * expected[1] + 0.3 * expected[2])  # 0.862
    # the task's own config: fidelity 1 -> 1.0
    plain = compute_reward(task, trace_of(schema_call(), run_call(), result_call()))
    assert plain.total == pytest.approx(1.0)


def test_a_run_the_real_service_failed_while_running_counts_as_accepted() -> None:
    # The real service sends no error_code: its error_type category says the config was written.
    ran = run_call(
        response={"success": False, "error_type": "模拟运行过程发生错误", "error_message": "**  ERROR"}
    )
    refused = run_call(response={"success": False, "error_type": "模拟配置写入失败", "error_message": "bad"})
    untargeted = TASK.model_copy(update={"expected_output": []})
    assert compute_reward(untargeted, trace_of(schema_call(), ran)).details["funnel.accepted"] == 1.0
    assert compute_reward(untargeted, trace_of(schema_call(), refused)).details["funnel.accepted"] == 0.0
    # funnel 0.55 (schema, attempted, json, faithful, accepted) / 0.4 -> completion 0.2 * work(funnel)
    assert completion_score(untargeted, trace_of(schema_call(), ran)) == pytest.approx(0.2 * work(0.55))
    assert completion_score(untargeted, trace_of(schema_call(), refused)) == pytest.approx(0.2 * work(0.4))


def test_statements_skip_identifiers_and_read_stated_units() -> None:
    text = "R-101 at 1,234.5 kPa, CO2 1e-3, T=-5.2 °C, H1 duty 80C, 2-3 trays, 95%, 12 stages at 1 bar"
    statements = read_statements(text)
    assert [s.value for s in statements] == [1234.5, 0.001, -5.2, 80.0, 2.0, 3.0, 95.0, 12.0, 1.0]
    assert [s.unit for s in statements] == ["kPa", None, "°C", "C", None, None, "%", None, "bar"]
    assert [s.is_small_int for s in read_statements("1. 7 trays, 7.0, 12")] == [True, True, False, False]


@pytest.mark.parametrize(
    ("text", "value", "unit", "expected"),
    [
        ("353.15 K", 80.0, "C", True),  # a stated K converts to C
        ("353.15", 80.0, "C", False),  # a bare number is no temperature (it used to be tried as K)
        ("95.86 K", 95.86, "C", False),  # the stated unit is read: 95.86 K is -177.29 C
        ("95%", 0.95, "", True),  # percent of a dimensionless quantity
        ("0.95", 0.95, "", True),  # a fraction may be bare
        ("1.2 MW", 1200.0, "kW", True),
        ("1.2", 1200.0, "kW", False),  # no unit stated: not read as MW any more
        ("863.5 MW", 863.5, "kW", False),  # ... and a stated MW is not read as kW
        ("150 kPa", 1.5, "bar", True),
        ("0.02778 kmol/s", 100.0, "kmol/hr", True),  # 0.02778 * 3600 = 100.008
        ("1 Gcal/hr", 1162.2, "kW", True),
        ("-110.3 kW", 110.3, "kW", True),  # sign-insensitive (duty removed) ...
        ("-80.0 C", 80.0, "C", False),  # ... except temperatures
        ("\u22125.2 °C", -5.2, "C", True),  # a typeset minus sign
        ("80 C", 80.4, "C", True),  # written to the unit: +-0.5 (2 significant digits)
        ("0.0012", 0.00122, "", True),  # +-0.00005 and 2 %
        ("0.001", 0.0012, "", False),  # one significant digit: no precision credit (it had +-0.0005)
        ("0e9 kW", 480.0, "kW", False),  # precision from an exponent is not credit
        ("5", 5.0, "", True),  # a bare small integer matches what it states
        ("0 kW", 480.0, "kW", False),
        ("78.0 C", 80.0, "C", False),
    ],
)
def test_matching_reads_the_stated_unit(text: str, value: float, unit: str, expected: bool) -> None:
    (statement,) = read_statements(text)
    assert matches(statement, value, unit, 0.02 * abs(value)) is expected


def test_weights_default_and_validation() -> None:
    assert RewardWeights().model_dump() == {
        "completion": 0.4,
        "tool_efficiency": 0.3,
        "response_quality": 0.3,
    }
    with pytest.raises(ValidationError, match=r"sum to 1.*completion=0.5.*= 1.1"):
        RewardWeights(completion=0.5, tool_efficiency=0.3, response_quality=0.3)
    with pytest.raises(ValueError, match="tool_efficiency must be a non-negative"):
        RewardWeights(completion=0.9, tool_efficiency=-0.2, response_quality=0.3)
    with pytest.raises(ValidationError, match="extra"):
        RewardWeights(completion=0.4, tool_efficiency=0.3, response_quality=0.3, style=0.0)


def test_custom_weights_change_total() -> None:
    trace = trace_of(run_call(), result_call())  # completion 1, efficiency 0.9, quality 1
    weights = RewardWeights(completion=0.2, tool_efficiency=0.6, response_quality=0.2)
    # 0.2*1 + 0.6*0.9 + 0.2*1 = 0.94
    assert compute_reward(TASK, trace, weights).total == pytest.approx(0.94)


def test_run_ids_and_paths_in_the_answer_are_not_numbers() -> None:
    path = "/srv/results/aspen_result_export_20240611_081234.xlsx"
    run = {**RUN_OK, "run_id": "20240611-8123", "result_file_path": path}
    answer = (
        GOOD_ANSWER
        + f"\nRun 20240611-8123, results in {path}, config in {RUN_OK['config_file_path']},"
        + " trace 0b7e4c1e-9f2d-4c3a-8e1f-5a6b7c8d9e0f"
    )
    trace = trace_of(
        schema_call(), run_call(response=run), result_call(path, heater_workbook(path)), answer=answer
    )
    # only 80.0 and 115.1 are read as numbers -> grounded 1 -> quality 1
    assert response_quality_score(TASK, trace) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("value", "unit", "target_unit", "expected"),
    [
        (1500.0, "Watt", "kW", 1.5),  # Aspen's SI set writes Watt
        (101325.0, "N/sqm", "atm", 1.0),
        (1.0, "kg/sqcm", "bar", 0.980665),  # kilogram-force per cm2 (Aspen's MET set), not a mass per area
        (35.3147, "cuft/hr", "cum/hr", 1.0),
        (2.5, "meter", "m", 2.5),
    ],
)
def test_units_aspen_unit_sets_write_are_read(
    value: float, unit: str, target_unit: str, expected: float
) -> None:
    from aspen_rl.reward.quantities import convert

    assert convert(value, unit, target_unit) == pytest.approx(expected, rel=1e-5)
