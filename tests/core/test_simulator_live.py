"""Client and tools against the real simulator mock on a free port; reward on a real trace."""

from __future__ import annotations

import copy
import json

import pytest

from aspen_rl.reward import compute_reward
from aspen_rl.simulator import SimulatorClient, SimulatorHTTPError
from aspen_rl.tasks import AspenTask, Target
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

HEATER = {
    "components": [{"cid": "WATER", "name": "water", "cas_number": "7732-18-5"}],
    "property_methods": [{"method_name": "NRTL", "is_basis_method": True}],
    "blocks": [{"name": "H1", "type": "Heater"}],
    "streams": [{"name": "FEED"}, {"name": "PROD"}],
    "block_connections": {"H1": {"FEED": "F(IN)", "PROD": "P(OUT)"}},
    "stream_data": {
        "FEED": {
            "MIXED_SPEC": "TP",
            "temperature": {"TEMP_VALUE": 25, "TEMP_UNITS": "C"},
            "pressure": {"PRES_VALUE": 1, "PRES_UNITS": "bar"},
            "flow": {
                "FLOWBASE": "MOLE",
                "TOTFLOW_VALUE": 100,
                "TOTFLOW_UNITS": "kmol/hr",
                "FLOW_VALUE": {"WATER": 1},
            },
        }
    },
    "blocks_Heater_data": {
        "H1": {"SPEC_DATA": {"SPEC_OPT": "TP", "TEMP_VALUE": 80, "TEMP_UNITS": "C", "PRES_VALUE": 1}}
    },
}
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
    assert health["aspen_available"] is False
    names = await client.list_schemas()
    assert {"base", "Heater", "Flash2", "RadFrac"} <= set(names)
    schemas = (await client.get_schema(["base", "Heater"]))["schemas"]
    assert set(schemas) == {"base", "Heater"}
    assert "blocks" in schemas["base"]["properties"]


async def test_unknown_schema_type_is_an_http_error_with_valid_types(client: SimulatorClient) -> None:
    with pytest.raises(SimulatorHTTPError) as info:
        await client.get_schema(["Reactor"])
    assert info.value.status_code == 400
    assert "Heater" in info.value.json["valid_types"]


async def test_run_and_read_results_by_id_and_by_path(client: SimulatorClient) -> None:
    run = await client.run_simulation(HEATER)
    assert run["success"] is True
    by_id = await client.get_results(run["run_id"])
    by_path = await client.get_results(run["result_file_path"])
    assert by_id == by_path
    assert by_id["streams"]["PROD"]["temperature_C"] == pytest.approx(80.0, abs=1e-6)
    assert by_id["blocks"]["H1"]["duty_kW"] == pytest.approx(STEAM_TABLE_DUTY_KW, rel=0.04)


async def test_failed_simulation_is_returned_not_raised(client: SimulatorClient) -> None:
    bad = copy.deepcopy(HEATER)
    bad["components"] = [{"cid": "WATER", "name": "unobtainium"}]
    answer = await client.run_simulation(bad)
    assert answer["success"] is False
    assert answer["error_type"] == "UnknownComponent"
    assert "unobtainium" in answer["error_message"]
    with pytest.raises(SimulatorHTTPError) as info:
        await client.get_results("no-such-run")
    assert info.value.status_code == 404


TASK = AspenTask(
    task_id="live-heater",
    user_requirement="Heat 100 kmol/h of water from 25 C to 80 C at 1 bar in heater H1 (FEED -> PROD). "
    "Report the H1 duty and the PROD temperature.",
    difficulty="easy",
    expected_output=[
        Target(
            name="PROD temperature", path="streams.PROD.temperature_C", value=80.0, abs_tol=0.5, rel_tol=0
        ),
        Target(name="H1 duty", path="blocks.H1.duty_kW", value=STEAM_TABLE_DUTY_KW, rel_tol=0.04),
    ],
)


async def test_tools_on_the_live_mock_and_reward_of_the_real_trace(client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)

    schema = json.loads(await get_schema(["Heater"]))
    assert set(schema["schemas"]) == {"base", "Heater"}  # base is always added
    run = json.loads(await run_simulation(json.dumps(HEATER)))
    assert run["success"] is True
    results = json.loads(await get_result(run["run_id"]))
    duty = results["blocks"]["H1"]["duty_kW"]
    assert duty == pytest.approx(
        trace.last_results["blocks"]["H1"]["duty_kW"], rel=1e-4
    )  # 5 digits for the LLM

    assert [(c.name, c.ok) for c in trace.calls] == [
        ("get_schema", True),
        ("run_simulation", True),
        ("get_result", True),
    ]
    assert trace.last_run == trace.calls[1].response
    trace.final_answer = f"Heater H1 results:\n- PROD temperature: 80.0 °C\n- H1 duty: {duty:.1f} kW"
    # schema -> run -> result, 3 calls = ideal, both targets met and reported with simulator values -> 1.0
    reward = compute_reward(TASK, trace)
    assert (reward.completion, reward.tool_efficiency, reward.response_quality) == (1.0, 1.0, 1.0)


async def test_tools_return_readable_simulator_errors(client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(client, trace)

    answer = json.loads(await get_schema(["Reactor"]))
    assert answer["success"] is False
    assert "Heater" in answer["valid_types"]
    assert "Reactor" in answer["error_message"]

    wrong_unit = copy.deepcopy(HEATER)
    wrong_unit["blocks_Heater_data"]["H1"]["SPEC_DATA"]["TEMP_UNITS"] = "degC"
    answer = json.loads(await run_simulation(json.dumps(wrong_unit)))
    assert answer["success"] is False
    assert "TEMP_UNITS" in answer["error_message"]

    answer = json.loads(await get_result("no-such-run"))
    assert answer["success"] is False
    assert answer["error_type"] == "HTTP404"
    assert all(not c.ok for c in trace.calls)
    assert trace.last_results is None
    assert trace.calls[2].response["error_type"] == "UnknownRun"  # the service's body is kept
