"""End to end through a service that answers ONLY the real Aspen service's routes.

A gateway in this process forwards ``/health``, ``/api/schema``, ``/api/schema/list``,
``/run-aspen-simulation``, ``/get-aspen-result`` and ``/download`` to a live mock and answers 404 to
anything else. The dev run (scripted policy, two runners) is pointed at the gateway: every rollout must
still read its results workbook and earn a non-zero reward, and nothing may ask for another route.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from _support import offline_env, run_cli_in, serve_in_thread
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from aspen_rl.subprocesses import mock_simulator
from aspen_rl.tasks import load_split

pytestmark = pytest.mark.slow

REAL_ROUTES = {
    ("GET", "/health"),
    ("GET", "/api/schema"),
    ("GET", "/api/schema/list"),
    ("POST", "/run-aspen-simulation"),
    ("GET", "/get-aspen-result"),
    ("GET", "/download"),
}


def real_routes_gateway(upstream: str, seen: list[tuple[str, str, int]]) -> FastAPI:
    """An app that forwards the real service's routes to ``upstream`` and refuses every other one.

    Every request is appended to ``seen`` as ``(method, path, status)``; a refused one with status -404.
    """
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    async def forward(path: str, request: Request) -> Response:
        route = (request.method, "/" + path)
        if route not in REAL_ROUTES:
            seen.append((*route, -404))  # refused by the gateway, never forwarded
            return JSONResponse({"error": f"not a route of the real service: {route[0]} {route[1]}"}, 404)
        async with httpx.AsyncClient(base_url=upstream, timeout=120) as client:
            answer = await client.request(
                request.method,
                route[1],
                params=request.query_params,
                content=await request.body(),
                headers={"content-type": request.headers.get("content-type", "application/json")},
            )
        seen.append((*route, answer.status_code))
        media_type = answer.headers.get("content-type")
        return Response(answer.content, status_code=answer.status_code, media_type=media_type)

    return app


def test_dev_run_through_the_real_routes_only(tmp_path: Path) -> None:
    seen: list[tuple[str, str, int]] = []
    with (
        mock_simulator(tmp_path / "results") as mock,
        serve_in_thread(real_routes_gateway(mock.url, seen), lifespan="auto") as port,
    ):
        env = offline_env()
        env["ASPEN_SIMULATOR_URL"] = f"http://127.0.0.1:{port}"
        run = run_cli_in(tmp_path, "--mode", "dev", "--n-runners", "2", "--seed", "0", env=env)
    records = run.records
    assert {r.task_id for r in records} == {t.task_id for t in load_split("train")}
    assert all(r.status == "ok" for r in records), [r.error for r in records if r.error]
    for r in records:
        assert any(c.name == "get_result" and c.ok for c in r.tool_calls), (r.task_id, r.tool_calls)
        assert '"result_file_path"' in next(c.arguments for c in r.tool_calls if c.name == "get_result")
        assert r.reward.total > 0.0, r.task_id
        assert r.reward.completion > 0.5, (r.task_id, r.reward)
    refused = [s for s in seen if s[2] == -404]
    assert not refused, refused  # no component asked for a route the real service lacks
    routes = {(method, path) for method, path, _ in seen}
    assert {("POST", "/run-aspen-simulation"), ("GET", "/get-aspen-result"), ("GET", "/api/schema")} <= routes
