"""Agent tools: readable errors, recording, AutoGen compatibility, real routes, the rendered workbook."""

from __future__ import annotations

import json

import httpx
import pytest
from _support import free_port
from autogen_core import CancellationToken
from autogen_core.tools import FunctionTool
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from workbooks import heater_workbook

from aspen_rl.simulator import SimulatorClient
from aspen_rl.tools import build_tools, run_answer_for_model
from aspen_rl.trace import RunTrace


@pytest.fixture
async def down_client() -> SimulatorClient:
    client = SimulatorClient(f"http://127.0.0.1:{free_port()}", timeout_s=1.0, retries=0)  # nothing there
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

    # JSON that Python's reader cannot hold is the policy's bad config too, never a crashed tool
    for hostile in ('{"T": 1' + "0" * 5000 + "}", "[" * 100_000 + "]" * 100_000):
        answer = json.loads(await run_simulation(hostile))
        assert (answer["success"], answer["error_type"]) == (False, "InvalidJSON")
    assert [c.error.split(":")[0] for c in trace.calls[2:] if c.error] == ["InvalidJSON", "InvalidJSON"]


async def test_simulator_down_gives_readable_text_for_every_tool(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    get_schema, run_simulation, get_result = build_tools(down_client, trace)
    texts = [
        await get_schema(["Heater"]),
        await run_simulation('{"blocks": []}'),
        await get_result("C:\\results\\aspen_result_export_1.xlsx"),
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
    assert trace.calls[2].arguments == {"result_file_path": "C:\\results\\aspen_result_export_1.xlsx"}


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


def test_the_model_reads_success_and_the_result_file_or_the_failure_reasons() -> None:
    ok = {
        "success": True,
        "aspen_file_path": "C:/out/output_1.bkp",
        "config_file_path": "C:/cfg/config_1.json",
        "result_file_path": "C:/res/aspen_result_export_1.xlsx",
        "message": "Aspen模拟已成功运行并保存",
        "run_id": "1",
        "warnings": [],
    }
    assert run_answer_for_model(ok) == {
        "success": True,
        "result_file_path": "C:/res/aspen_result_export_1.xlsx",
    }
    failed = {
        "success": False,
        "config_file_path": "C:/cfg/config_2.json",
        "error_type": "模拟配置写入失败",
        "error_code": "UnknownComponent",
        "error_message": "UnknownComponent: components[0].name 'unobtainium' " + "x" * 5000,
    }
    shown = run_answer_for_model(failed)
    assert list(shown) == ["success", "error_type", "error_code", "error_message"]
    assert shown["error_message"].startswith("UnknownComponent: components[0].name 'unobtainium'")
    assert len(shown["error_message"]) < 2100  # the trace keeps the whole message
    real = {"success": False, "error_type": "模拟运行过程发生错误", "error_message": "**  ERROR ..."}
    assert run_answer_for_model(real) == real  # the real service sends no error_code


async def test_config_in_a_markdown_code_fence_is_accepted(down_client: SimulatorClient) -> None:
    trace = RunTrace()
    _, run_simulation, _ = build_tools(down_client, trace)
    answer = json.loads(await run_simulation('```json\n{"blocks": [{"name": "H1", "type": "Heater"}]}\n```'))
    assert answer["error_type"] == "SimulatorUnavailable"  # it got as far as the (down) simulator
    assert trace.calls[0].arguments == {"config": {"blocks": [{"name": "H1", "type": "Heater"}]}}


def real_shaped_service() -> FastAPI:
    """The real service's routes and answer shapes, with canned answers (one heater run)."""
    app = FastAPI()
    result_path = "C:\\aspen\\results\\aspen_result_export_1.xlsx"

    @app.get("/api/schema")
    async def schema(types: str = "base", format: str = "json") -> JSONResponse:
        requested = types.split(",")
        known = {t: {"type": "object"} for t in requested if t in ("base", "Heater")}
        body = {"success": len(known) == len(requested), "requested": requested, "found": len(known)}
        body["schemas"] = known
        missing = [t for t in requested if t not in known]
        if missing:
            body |= {"not_found": missing, "message": f"部分 Schema 未找到: {', '.join(missing)}"}
        return JSONResponse(body)

    @app.post("/run-aspen-simulation")
    async def run(config: dict) -> JSONResponse:
        if config.get("streams") != ["FEED-1", "PRO-1"]:
            body = {
                "success": False,
                "config_file_path": "C:\\aspen\\config\\config_2.json",
                "error_type": "模拟配置写入失败",
                "error_code": "SchemaViolation",
                "error_message": "SchemaViolation: streams[0] 'feed' does not match ^[A-Z]+-[0-9]+$",
            }
            return JSONResponse(body, status_code=201)
        body = {
            "success": True,
            "aspen_file_path": "C:\\aspen\\out\\output_1.bkp",
            "config_file_path": "C:\\aspen\\config\\config_1.json",
            "result_file_path": result_path,
            "message": "Aspen模拟已成功运行并保存",
        }
        return JSONResponse(body)

    @app.get("/get-aspen-result")
    async def result(file_path: str | None = None) -> JSONResponse:
        if not file_path:
            return JSONResponse({"error": "缺少必需参数: file_path", "timestamp": "t"}, status_code=400)
        if file_path != result_path:
            return JSONResponse({"error": f"文件不存在: {file_path}", "timestamp": "t"}, status_code=404)
        return JSONResponse(heater_workbook(result_path))

    return app


async def test_tools_speak_the_real_routes_and_render_the_workbook() -> None:
    transport = httpx.ASGITransport(app=real_shaped_service())
    async with SimulatorClient("http://aspen.test", retries=0, transport=transport) as client:
        trace = RunTrace()
        get_schema, run_simulation, get_result = build_tools(client, trace)

        schema = await get_schema(["Heater"])
        assert "## base" in schema and "## Heater" in schema
        assert trace.calls[0].response["requested"] == ["base", "Heater"]
        unknown = json.loads(await get_schema(["Reactor"]))
        assert unknown["not_found"] == ["Reactor"]

        config = {"streams": ["feed", "PRO-1"]}
        failed = json.loads(await run_simulation(json.dumps(config)))
        assert failed == {
            "success": False,
            "error_type": "模拟配置写入失败",
            "error_code": "SchemaViolation",
            "error_message": "SchemaViolation: streams[0] 'feed' does not match ^[A-Z]+-[0-9]+$",
        }
        run = json.loads(await run_simulation(json.dumps({"streams": ["FEED-1", "PRO-1"]})))
        assert run == {"success": True, "result_file_path": "C:\\aspen\\results\\aspen_result_export_1.xlsx"}

        text = await get_result(run["result_file_path"])
        assert text.startswith("Results workbook aspen_result_export_1.xlsx")
        assert "Temperature | C | 25 | 80" in text.splitlines()
        assert "QCALC = 115.1 kW" in text.splitlines()
        only_pro = await get_result(run["result_file_path"], only=["PRO-1"])
        assert "Row | Units | PRO-1" in only_pro.splitlines() and "QCALC" not in only_pro
        assert trace.calls[-1].arguments["only"] == ["PRO-1"]
        assert trace.calls[-1].response == trace.calls[-2].response  # the trace keeps the whole workbook
        missing = json.loads(await get_result("C:\\aspen\\results\\other.xlsx"))
        assert missing["error_type"] == "HTTP404"
        assert missing["error_message"].startswith("文件不存在")

    calls = [(c.name, c.ok) for c in trace.calls]
    assert calls == [
        ("get_schema", True),
        ("get_schema", False),
        ("run_simulation", False),
        ("run_simulation", True),
        ("get_result", True),
        ("get_result", True),
        ("get_result", False),
    ]
    assert trace.calls[1].error.startswith("SchemaNotFound: 部分 Schema 未找到: Reactor")
    assert trace.calls[2].error.startswith("SchemaViolation: streams[0]")
    assert trace.calls[2].response["config_file_path"].endswith("config_2.json")  # the full answer is kept
    assert trace.calls[4].response == heater_workbook("C:\\aspen\\results\\aspen_result_export_1.xlsx")
    assert trace.last_results == trace.calls[4].response


def test_aspen_error_lines_past_the_shown_length_are_shown_first() -> None:
    """The real error_message is Aspen's whole control panel: its ** ERROR block may come late."""
    from aspen_rl.contract import error_excerpt
    from aspen_rl.tools import ERROR_MESSAGE_SHOWN, run_answer_for_model

    progress = "\n".join(f" ->Processing input specifications ... step {i}" for i in range(120))
    error = " ** ERROR\n    BLOCK F1: FLASH CALCULATION DID NOT CONVERGE\n    CHECK THE SPECIFICATIONS"
    panel = f"{progress}\n{error}\n ->Simulation calculations completed ...\n"
    assert len(panel) > ERROR_MESSAGE_SHOWN and panel.index("** ERROR") > ERROR_MESSAGE_SHOWN
    shown = run_answer_for_model(
        {"success": False, "error_type": "模拟运行过程发生错误", "error_message": panel}
    )
    message = shown["error_message"]
    assert message.startswith(error) and "FLASH CALCULATION DID NOT CONVERGE" in message
    assert len(message) <= ERROR_MESSAGE_SHOWN + 40 and message.endswith("more characters)")
    assert error_excerpt("short: ** ERROR here", 100) == "short: ** ERROR here"
    plain = "x" * 3000  # no Aspen error block: cut from the start
    assert error_excerpt(plain, 100) == "x" * 100 + "... (2900 more characters)"
