"""Agent tools without a simulator: readable errors, recording, AutoGen compatibility, compact results."""

from __future__ import annotations

import json
import socket

import pytest
from autogen_core import CancellationToken
from autogen_core.tools import FunctionTool

from aspen_rl.simulator import SimulatorClient
from aspen_rl.tools import build_tools, compact_results
from aspen_rl.trace import RunTrace


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
async def down_client() -> SimulatorClient:
    client = SimulatorClient(f"http://127.0.0.1:{_closed_port()}", timeout_s=1.0, retries=0)
    yield client
    await client.aclose()


async def test_malformed_json_is_a_recorded_failed_call(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    _, run_simulation, _ = build_tools(down_client, trace)
    text = await run_simulation('{"blocks": [}')
    answer = json.loads(text)
    assert answer["success"] is False
    assert answer["error_type"] == "InvalidJSON"
    assert answer["error_message"].startswith("config is not valid JSON: Expecting value at line 1 column 13")
    (call,) = trace.calls
    assert (call.name, call.ok, call.arguments) == ("run_simulation", False, {"config": '{"blocks": [}'})
    assert call.error is not None and call.error.startswith("InvalidJSON: ")

    answer = json.loads(await run_simulation("[1, 2]"))
    assert answer["error_type"] == "InvalidConfig"
    assert "must be a JSON object" in answer["error_message"]
    assert len(trace.calls) == 2


async def test_simulator_down_gives_readable_text_for_every_tool(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(down_client, trace)
    texts = [
        await get_schema(["Heater"]),
        await run_simulation('{"blocks": []}'),
        await get_result("C:\\results\\abc.json"),
    ]
    for text in texts:
        answer = json.loads(text)
        assert answer["success"] is False
        assert answer["error_type"] == "SimulatorUnavailable"
        assert down_client.base_url in answer["error_message"]
    assert [c.name for c in trace.calls] == ["get_schema", "run_simulation", "get_result"]
    assert all(not c.ok and c.error.startswith("SimulatorUnavailable: ") for c in trace.calls)
    assert trace.calls[0].arguments == {"block_types": ["Heater"]}
    assert trace.calls[1].arguments == {"config": {"blocks": []}}  # parsed config is recorded
    assert trace.calls[2].arguments == {"run_id": "C:\\results\\abc.json"}


async def test_tools_are_autogen_function_tools(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    tools = [FunctionTool(fn, description=fn.__doc__ or "") for fn in build_tools(down_client, trace)]
    schemas = {t.name: t.schema for t in tools}
    assert list(schemas) == ["get_schema", "run_simulation", "get_result"]
    assert schemas["get_schema"]["parameters"]["properties"]["block_types"]["type"] == "array"
    assert schemas["run_simulation"]["parameters"]["required"] == ["config"]
    assert "JSON text" in schemas["run_simulation"]["parameters"]["properties"]["config"]["description"]
    assert "get_result" in schemas["run_simulation"]["description"]
    # AutoGen validates and calls the tool; a bad config comes back as text, not an exception.
    result = await tools[1].run_json({"config": "not json"}, CancellationToken())
    assert json.loads(tools[1].return_value_as_string(result))["error_type"] == "InvalidJSON"
    assert len(trace.calls) == 1


def test_compact_results_rounds_and_trims() -> None:
    stream = {
        "temperature_C": 80.123456789,
        "mole_fractions": {"WATER": 0.999999912},
        "mass_fractions": {"WATER": 1.0},
        "component_flows_kmol_hr": {"WATER": 100.0},
        "enthalpy_flow_kW": -79012.3456,
    }
    profile = [{"stage": i, "T_C": 80.0 + i, "x": {"WATER": 1.0}} for i in range(1, 31)]
    doc = {
        "run_id": "r1",
        "streams": {f"S{i}": dict(stream) for i in range(3)},
        "blocks": {"C1": {"type": "RadFrac", "reboiler_duty_kW": 1234.5678, "stage_profile": profile}},
    }
    full = json.loads(compact_results(doc))
    assert full["streams"]["S0"]["temperature_C"] == 80.123
    assert full["streams"]["S0"]["mole_fractions"]["WATER"] == 1.0
    assert full["streams"]["S0"]["enthalpy_flow_kW"] == -79012.0
    assert len(full["blocks"]["C1"]["stage_profile"]) == 30
    trimmed = json.loads(compact_results(doc, max_chars=600))
    assert "enthalpy_flow_kW" not in trimmed["streams"]["S2"]
    assert "mass_fractions" not in trimmed["streams"]["S2"]
    assert "stage_profile" not in trimmed["blocks"]["C1"]
    assert trimmed["streams"]["S2"]["component_flows_kmol_hr"] == {"WATER": 100.0}  # short enough now
    assert trimmed["streams"]["S2"]["temperature_C"] == 80.123
    assert trimmed["blocks"]["C1"]["reboiler_duty_kW"] == 1234.6
    assert doc["streams"]["S0"]["temperature_C"] == 80.123456789  # the recorded document is untouched


async def test_config_in_a_markdown_code_fence_is_accepted(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    _, run_simulation, _ = build_tools(down_client, trace)
    answer = json.loads(await run_simulation('```json\n{"blocks": [{"name": "H1", "type": "Heater"}]}\n```'))
    assert answer["error_type"] == "SimulatorUnavailable"  # it got as far as the (down) simulator
    assert trace.calls[0].arguments == {"config": {"blocks": [{"name": "H1", "type": "Heater"}]}}
