"""Client and tools against the live simulator mock, real routes only; reward of a real trace."""

from __future__ import annotations

import copy
import json

import pytest
from heater_case import outlet_temperature, water_heater

from aspen_rl.contract.workbook import STREAM_SUMMARY, lookup
from aspen_rl.reward import compute_reward
from aspen_rl.simulator import SimulatorClient, SimulatorHTTPError
from aspen_rl.tasks import AspenTask, Target
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

HEATER = water_heater("H1", "FEED-1", "PROD-1", kmol_hr=100, outlet_c=80)
# Steam tables: h(80 C) - h(25 C) = 334.9 - 104.8 = 230.1 kJ/kg; 100 kmol/h = 1801.5 kg/h
# -> 230.1 * 1801.5 / 3600 = 115.1 kW.
STEAM_TABLE_DUTY_KW = 115.1


@pytest.fixture
async def client(mock_url: str) -> SimulatorClient:
    async with SimulatorClient(mock_url, timeout_s=60, retries=0) as c:
        yield c


async def test_health_and_schemas(client: SimulatorClient) -> None:
    health = await client.health()
    assert health["status"] == "ok"
    names = await client.list_schemas()
    assert {"base", "Heater", "Flash2", "RadFrac"} <= set(names)
    answer = await client.get_schema(["base", "Heater"])
    assert answer["success"] is True
    assert set(answer["schemas"]) == {"base", "Heater"}
    assert "blocks" in answer["schemas"]["base"]["properties"]


async def test_unknown_schema_type_is_a_200_with_not_found(client: SimulatorClient) -> None:
    answer = await client.get_schema(["Heater", "Reactor"])
    assert answer["success"] is False
    assert answer["not_found"] == ["Reactor"]
    assert set(answer["schemas"]) == {"Heater"}


async def test_run_read_the_workbook_and_download_it(client: SimulatorClient) -> None:
    run = await client.run_simulation(HEATER)
    assert run["success"] is True, run
    assert {"aspen_file_path", "config_file_path", "result_file_path", "message"} <= set(run)
    document = await client.get_result(run["result_file_path"])
    assert document["status"] == "success"
    assert document["file_info"]["file_path"] == run["result_file_path"]
    assert document["file_info"]["sheet_names"] == [STREAM_SUMMARY, "H1_result"]
    temperature = lookup(document, STREAM_SUMMARY, "Temperature", "PROD-1")
    assert (temperature.number, temperature.unit) == (pytest.approx(80.0, abs=1e-6), "C")
    assert lookup(document, STREAM_SUMMARY, "Mole Fractions/WATER", "PROD-1").number == pytest.approx(1.0)
    duty = lookup(document, "H1_result", "QCALC")
    assert duty.unit == "kW"
    assert duty.number == pytest.approx(STEAM_TABLE_DUTY_KW, rel=0.04)
    workbook = await client.download(run["result_file_path"])
    assert workbook[:2] == b"PK"  # an .xlsx is a zip archive


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
async def test_failed_simulation_is_returned_not_raised(client: SimulatorClient) -> None:
    bad = copy.deepcopy(HEATER)
    bad["components"][0] |= {"name": "unobtainium", "cas_number": "0000-00-0", "database_name": "UNOBTAINIUM"}
    answer = await client.run_simulation(bad)
    assert answer["success"] is False
    assert answer["error_code"] == "UnknownComponent"
    assert answer["error_type"] == "模拟配置写入失败"
    assert "unobtainium" in answer["error_message"]
    with pytest.raises(SimulatorHTTPError) as info:
        await client.get_result(answer.get("config_file_path", "") + ".no-such-result.xlsx")
    assert info.value.status_code in (403, 404)
    assert info.value.error_message  # the service's {"error": ...} text


TASK = AspenTask(
    task_id="live-heater",
    user_requirement="Heat 100 kmol/h of water from 25 C to 80 C at 1 bar in heater H1 (FEED-1 -> PROD-1). "
    "Report the H1 duty and the PROD-1 temperature.",
    difficulty="easy",
    expected_output=[
        outlet_temperature("PROD-1 temperature", stream="PROD-1", abs_tol=0.5, rel_tol=0),
        Target(
            name="H1 duty", sheet="H1_result", row="QCALC", unit="kW", value=STEAM_TABLE_DUTY_KW, rel_tol=0.04
        ),
    ],
)


async def test_tools_on_the_live_mock_and_reward_of_the_real_trace(client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)

    schema = await get_schema(["Heater"])  # the compact rendering; the trace keeps the JSON
    assert "## base" in schema and "## Heater" in schema and "SPEC_OPT*: TP|" in schema
    assert set(trace.calls[0].response["schemas"]) == {"base", "Heater"}  # base is always added
    run = json.loads(await run_simulation(json.dumps(HEATER)))
    assert set(run) == {"success", "result_file_path"} and run["success"] is True
    text = await get_result(run["result_file_path"])
    assert len(text) < 3000
    duty_line = next(line for line in text.splitlines() if line.startswith("QCALC = "))
    duty = float(duty_line.split()[2])
    assert duty == pytest.approx(lookup(trace.last_results, "H1_result", "QCALC").number, rel=1e-4)

    assert [(c.name, c.ok) for c in trace.calls] == [
        ("get_schema", True),
        ("run_simulation", True),
        ("get_result", True),
    ]
    assert trace.last_run == trace.calls[1].response
    trace.final_answer = f"Heater H1 results:\n- PROD-1 temperature: 80.0 °C\n- H1 duty: {duty:.1f} kW"
    # schema -> run -> result, 3 calls = ideal, both targets met and reported with simulator values -> 1.0
    reward = compute_reward(TASK, trace)
    assert (reward.completion, reward.tool_efficiency, reward.response_quality) == (1.0, 1.0, 1.0)


async def test_tools_return_readable_simulator_errors(client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)

    answer = json.loads(await get_schema(["Reactor"]))
    assert answer["success"] is False
    assert answer["not_found"] == ["Reactor"]

    wrong_unit = copy.deepcopy(HEATER)
    wrong_unit["blocks_Heater_data"]["H1"]["SPEC_DATA"]["TEMP_UNITS"] = "degC"
    answer = json.loads(await run_simulation(json.dumps(wrong_unit)))
    assert answer["success"] is False
    assert "TEMP_UNITS" in answer["error_message"]
    assert answer["error_code"]

    bad_stream = copy.deepcopy(HEATER)
    bad_stream["streams"][0] = "feed"
    answer = json.loads(await run_simulation(json.dumps(bad_stream)))
    assert answer["success"] is False
    assert "feed" in answer["error_message"]

    answer = json.loads(await get_result("aspen_result_export_no_such_run.xlsx"))
    assert answer["success"] is False
    assert answer["error_type"] in ("HTTP403", "HTTP404")
    assert all(not c.ok for c in trace.calls)
    assert trace.last_results is None
    assert "error" in trace.calls[-1].response  # the service's body is kept
