"""Simulator client on the real routes: retries of reads on 5xx, no retry on 4xx or of a run, timeouts."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import httpx
import pytest
from _support import free_port
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from aspen_rl.failures import FailureKind
from aspen_rl.simulator import (
    SimulatorClient,
    SimulatorHTTPError,
    SimulatorProtocolError,
    SimulatorUnavailable,
)


def flaky_app(failures: int, status: int = 503) -> tuple[FastAPI, dict[str, int]]:
    """An app whose ``/health`` answers HTTP ``status`` ``failures`` times, then behaves."""
    app = FastAPI()
    hits = {"health": 0, "run": 0, "results": 0, "download": 0}

    @app.get("/health")
    async def health() -> JSONResponse:
        hits["health"] += 1
        if hits["health"] <= failures:
            return JSONResponse({"detail": "warming up"}, status_code=status)
        return JSONResponse({"status": "ok", "aspen_available": False})

    @app.post("/run-aspen-simulation")
    async def run(request: Request) -> JSONResponse:
        hits["run"] += 1
        raw = await request.body()
        if not raw or raw.strip() == b"{}":
            return JSONResponse({"error": "请求体为空"}, status_code=400)
        if len(raw) > 1000:
            return JSONResponse({"error": "request body too large"}, status_code=413)
        body = {
            "success": False,
            "config_file_path": "C:/cfg/config_1.json",
            "error_type": "模拟运行过程发生错误",
            "error_code": "NotConverged",
            "error_message": "NotConverged: recycle S-5 diverged",
        }
        return JSONResponse(body, status_code=201)

    @app.get("/get-aspen-result")
    async def results(file_path: str | None = None) -> JSONResponse:
        hits["results"] += 1
        if file_path == "garbage":
            return JSONResponse(["not", "an", "object"])
        if file_path and file_path.startswith("/etc"):
            return JSONResponse(
                {"error": f"路径不在结果目录内: {file_path}", "timestamp": "t"}, status_code=403
            )
        body = {"error": f"文件不存在: {file_path}", "timestamp": "2026-11-22T20:00:00"}
        return JSONResponse(body, status_code=404)

    @app.get("/download")
    async def download(file_path: str) -> Response:
        hits["download"] += 1
        return Response(b"PK\x03\x04", media_type="application/octet-stream")

    return app, hits


def client_for(app: FastAPI, retries: int = 2) -> SimulatorClient:
    return SimulatorClient(
        "http://sim.test", retries=retries, backoff_s=0.0, transport=httpx.ASGITransport(app=app)
    )


async def test_5xx_then_success_is_retried() -> None:
    app, hits = flaky_app(failures=2)
    async with client_for(app, retries=2) as client:
        assert (await client.health())["status"] == "ok"
    assert hits["health"] == 3  # two 503s, then the answer


async def test_persistent_5xx_raises_http_error_after_all_attempts() -> None:
    app, hits = flaky_app(failures=10, status=502)
    async with client_for(app, retries=2) as client:
        with pytest.raises(SimulatorHTTPError, match="HTTP 502") as info:
            await client.health()
    assert info.value.status_code == 502
    assert info.value.kind is FailureKind.SERVER_ERROR
    assert "warming up" in info.value.body_excerpt
    assert hits["health"] == 3


async def test_4xx_is_not_retried_and_names_the_service_error() -> None:
    app, hits = flaky_app(failures=0)
    path = "C:\\aspen\\results\\aspen_result_export_1.xlsx"
    async with client_for(app) as client:
        with pytest.raises(SimulatorHTTPError) as info:
            await client.get_result(f"  {path} ")
        assert info.value.status_code == 404
        assert info.value.error_message == f"文件不存在: {path}"  # sent as given, blanks trimmed
        with pytest.raises(SimulatorHTTPError) as info:
            await client.get_result("/etc/passwd")
        assert info.value.status_code == 403
        with pytest.raises(ValueError, match="result_file_path is empty"):
            await client.get_result("  ")
    assert hits["results"] == 2


async def test_failed_simulation_is_an_answer_not_an_exception() -> None:
    app, hits = flaky_app(failures=0)
    async with client_for(app) as client:
        answer = await client.run_simulation({"blocks": []})
        assert answer["success"] is False
        assert (answer["error_type"], answer["error_code"]) == ("模拟运行过程发生错误", "NotConverged")
        assert hits["run"] == 1
        with pytest.raises(SimulatorHTTPError) as info:  # the real service refuses an empty config
            await client.run_simulation({})
        assert (info.value.status_code, info.value.error_message) == (400, "请求体为空")
        with pytest.raises(SimulatorHTTPError) as info:
            await client.run_simulation({"padding": "x" * 2000})
        assert info.value.status_code == 413
    assert hits["run"] == 3  # nothing was sent twice


async def test_download_returns_the_bytes() -> None:
    app, hits = flaky_app(failures=0)
    async with client_for(app) as client:
        assert await client.download("C:/aspen/results/aspen_result_export_1.xlsx") == b"PK\x03\x04"
    assert hits["download"] == 1


async def test_non_object_json_is_a_protocol_error() -> None:
    app, _ = flaky_app(failures=0)
    async with client_for(app) as client:
        with pytest.raises(SimulatorProtocolError, match="expected an object"):
            await client.get_result("garbage")


async def test_service_down_gives_a_clear_error() -> None:
    port = free_port()  # nothing listens there
    async with SimulatorClient(f"http://127.0.0.1:{port}", timeout_s=2.0, retries=1, backoff_s=0.0) as client:
        with pytest.raises(SimulatorUnavailable) as info:
            await client.health()
    message = str(info.value)
    assert f"http://127.0.0.1:{port}/health" in message
    assert "timeout 2 s" in message
    assert "2 attempt(s)" in message
    assert "ConnectError" in message


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts TCP connections (kernel backlog) but never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


async def test_service_that_never_answers_times_out(silent_server: int) -> None:
    url = f"http://127.0.0.1:{silent_server}"
    async with SimulatorClient(url, timeout_s=0.2, retries=1, backoff_s=0.0) as client:
        with pytest.raises(SimulatorUnavailable, match=r"timed out") as info:
            await client.health()
        assert info.value.attempts == 2  # a read is retried
        with pytest.raises(SimulatorUnavailable, match=r"timed out") as info:
            await client.run_simulation({"blocks": []})
    assert info.value.timeout_s == 0.2
    assert info.value.attempts == 1  # a simulation that was sent is never started twice
    assert url in str(info.value)


async def test_a_sent_simulation_is_not_resubmitted_after_a_5xx() -> None:
    app = FastAPI()
    runs = []

    @app.post("/run-aspen-simulation")
    async def run() -> JSONResponse:
        runs.append(1)
        return JSONResponse({"detail": "COM error"}, status_code=500)

    async with client_for(app, retries=3) as client:
        with pytest.raises(SimulatorHTTPError, match="HTTP 500"):
            await client.run_simulation({"blocks": []})
    assert len(runs) == 1


def test_bad_client_arguments_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        SimulatorClient(timeout_s=0)
    with pytest.raises(ValueError, match="base_url"):
        SimulatorClient("localhost:8002")
    with pytest.raises(ValueError, match="format must be one of"):
        asyncio.run(SimulatorClient().get_schema("base", format="xml"))


async def test_the_real_services_html_500_on_the_run_route_is_the_infrastructures_fault() -> None:
    """The real service answers an HTML 500 when COM start or SaveAs fails outside its try (Flask's default
    error page): the tool records a server error, the infrastructure's, so the rollout is left out."""
    import json

    from aspen_rl.tools import build_tools
    from aspen_rl.trace import RunTrace

    app = FastAPI()

    @app.post("/run-aspen-simulation")
    async def run() -> Response:
        page = "<!doctype html><title>500 Internal Server Error</title><h1>Internal Server Error</h1>"
        return Response(page, status_code=500, media_type="text/html")

    async with client_for(app) as client:
        trace = RunTrace()
        _, run_simulation, _ = build_tools(client, trace)
        await run_simulation(config=json.dumps({"blocks": []}))
    (call,) = trace.calls
    assert not call.ok and call.failure is FailureKind.SERVER_ERROR and call.failure.is_infrastructure
    assert trace.infrastructure_failure is call
