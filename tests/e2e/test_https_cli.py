"""A named simulator is used or the run stops with the reason, never replaced by the mock.

The real Aspen service speaks HTTPS with a self-signed certificate. Here an HTTPS proxy with a certificate
made in the test forwards to a live mock and records every request it forwards: with default settings the
run stops before any rollout naming the certificate and both fixes; with either fix (our CA bundle setting,
or verification off) every rollout runs and every simulator request goes through that proxy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from _support import free_port, offline_env, run_cli_in, serve_in_thread
from _support.tls import self_signed
from fastapi import FastAPI, Request
from fastapi.responses import Response

from aspen_rl.subprocesses import mock_simulator

pytestmark = pytest.mark.slow


def recording_proxy(upstream: str, seen: list[tuple[str, str]]) -> FastAPI:
    """An app forwarding every request to ``upstream``, appending ``(method, path)`` to ``seen``."""
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    async def forward(path: str, request: Request) -> Response:
        seen.append((request.method, "/" + path))
        async with httpx.AsyncClient(base_url=upstream, timeout=120) as client:
            answer = await client.request(
                request.method,
                "/" + path,
                params=request.query_params,
                content=await request.body(),
                headers={"content-type": request.headers.get("content-type", "application/json")},
            )
        return Response(answer.content, answer.status_code, media_type=answer.headers.get("content-type"))

    return app


def refused_run(workdir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(workdir / "run"), "--limit", "1"]
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=240)


def test_https_service_with_a_self_signed_certificate(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path / "tls")
    seen: list[tuple[str, str]] = []
    with (
        mock_simulator(tmp_path / "results") as mock,
        serve_in_thread(
            recording_proxy(mock.url, seen), lifespan="off", ssl_certfile=str(cert), ssl_keyfile=str(key)
        ) as port,
    ):
        url = f"https://127.0.0.1:{port}"
        env = offline_env() | {"ASPEN_SIMULATOR_URL": url}
        (tmp_path / "default").mkdir()
        proc = refused_run(tmp_path / "default", env)
        assert proc.returncode == 2, proc.stderr[-3000:]
        assert "error:" in proc.stderr and "Traceback" not in proc.stderr
        assert "certificate" in proc.stderr and url in proc.stderr
        assert (
            "ASPEN_RL_SIMULATOR_CA_BUNDLE" in proc.stderr
            and "ASPEN_RL_SIMULATOR_VERIFY_TLS=false" in proc.stderr
        )
        assert "started the mock" not in proc.stderr
        assert not (tmp_path / "default" / "run" / "rollouts.jsonl").exists()
        assert seen == []  # the handshake failed: nothing reached the service

        fixes = {
            "bundle": {"ASPEN_RL_SIMULATOR_CA_BUNDLE": str(cert)},
            "off": {"ASPEN_RL_SIMULATOR_VERIFY_TLS": "false"},
        }
        for name, fix in fixes.items():
            seen.clear()
            workdir = tmp_path / name
            workdir.mkdir()
            run = run_cli_in(workdir, "--limit", "2", "--error-rate", "0", "--n-runners", "1", env=env | fix)
            assert "started the mock" not in run.proc.stderr and url in run.proc.stderr
            records = run.records
            assert len(records) == 2 and all(r.status == "ok" for r in records), [r.error for r in records]
            simulator = run.summary["simulator"]
            assert simulator["url"] == url and simulator["source"] == "external"
            assert ("bundle" if name == "bundle" else "not verified") in simulator["tls"]
            runs = sum(1 for r in records for c in r.tool_calls if c.name == "run_simulation")
            results = sum(1 for r in records for c in r.tool_calls if c.name == "get_result")
            assert seen.count(("POST", "/run-aspen-simulation")) == runs == 2
            assert seen.count(("GET", "/get-aspen-result")) == results == 2
            assert simulator["runs_per_service"] == {url: {"runs": 2, "unreachable": 0, "share": 1.0}}


def test_a_named_url_with_nothing_listening_stops_the_run(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    proc = refused_run(tmp_path, offline_env() | {"ASPEN_SIMULATOR_URL": url})
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "connection refused" in proc.stderr and url in proc.stderr
    assert "started the mock" not in proc.stderr and "Traceback" not in proc.stderr
    summary = tmp_path / "run" / "summary.json"
    assert not summary.exists() or json.loads(summary.read_text())["rollouts"] == 0
