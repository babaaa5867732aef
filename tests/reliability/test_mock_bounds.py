"""Bounded work in the mock: the per-run budget is the agent's failure, abandoned runs stop, results are
retained within a bound, and the shared token is checked."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import httpx
import pytest
from _support import LiveMock, in_process_transport, repo_env
from _support.sim import slow_recycle

from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.failures import FailureKind, Fault
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace
from simulator_mock.examples import heater
from simulator_mock.service.auth import TOKEN_HEADER, bind_warning
from simulator_mock.service.retention import Retention, cap_stored_file
from simulator_mock.service.settings import Settings


def in_process(tmp_path: Path, **settings: object) -> httpx.ASGITransport:
    """The app in this process (simulations in one thread of it), reached without sockets."""
    return in_process_transport(tmp_path / "results", **settings)


async def test_a_config_past_the_run_budget_is_the_agents_scored_failure(tmp_path: Path) -> None:
    transport = in_process(tmp_path, request_timeout_s=0.3)
    async with SimulatorClient("http://mock", timeout_s=30, retries=0, transport=transport) as client:
        trace = RunTrace()
        _, run_simulation, _ = build_tools(client, trace)
        answer = await run_simulation(config=json.dumps(slow_recycle()))
    # answered by the mock's run budget (its own Timeout failure), not by the client giving up after 30 s
    assert '"success":false' in answer.replace(" ", "") and "Timeout" in answer
    (call,) = trace.calls
    assert not call.ok and "Timeout" in (call.error or "")
    # Not an infrastructure error: the rollout is scored (the agent wrote a config that cannot finish).
    assert call.failure is FailureKind.RUN_TIMEOUT and call.failure.fault is Fault.POLICY
    assert trace.infrastructure_failure is None


def test_client_timeout_exceeds_the_mock_budget_by_a_margin() -> None:
    from aspen_rl.settings import Settings as RLSettings
    from aspen_rl.subprocesses import mock_bounds, timeout_problem

    mock, client = Settings(), RLSettings().simulator_timeout_s
    assert client >= mock.request_timeout_s + mock.queue_wait_s + 10
    assert mock_bounds(client) == (mock.request_timeout_s, mock.queue_wait_s)
    # A user who lowers the client's timeout gets a mock fitted under it when the run starts one...
    budget, wait = mock_bounds(20.0)
    assert budget + wait + 10 <= 20.0
    # ...and a warning naming both numbers when an already-running simulator's bounds do not fit.
    health = {"run_budget_s": 30.0, "queue_wait_s": 20.0}
    assert timeout_problem(90.0, health) is None
    assert "run budget 30" in (timeout_problem(45.0, health) or "")
    assert timeout_problem(5.0, {"status": "ok"}) is None  # the real service reports no bounds


@pytest.mark.slow
def test_an_abandoned_request_stops_its_run(tmp_path: Path) -> None:
    # one worker and a 1 s queue wait: a run that finds the worker still held is refused (503), not delayed
    mock = LiveMock(tmp_path, "--workers", "1", "--timeout", "60", "--queue-wait", "1")
    try:
        mock.wait_healthy(warm=True)
        with pytest.raises(httpx.ReadTimeout):  # the client gives up after 1 s and hangs up
            httpx.post(mock.url + "/run-aspen-simulation", json=slow_recycle(), timeout=1.0)
        deadline = time.monotonic() + 60  # a liveness guard, not a timing goal (the run's budget is 60 s)
        while (health := httpx.get(mock.url + "/health", timeout=2).json())["in_flight"] != 0:
            assert time.monotonic() < deadline, f"the abandoned run still holds the worker: {health}"
            time.sleep(0.05)
        assert health["cancelled_runs"] == 1  # stopped by the hang-up, not finished
        # The only worker is free again: a normal run gets it (held, it would be a 503 after the 1 s wait).
        answer = httpx.post(mock.url + "/run-aspen-simulation", json=heater(), timeout=30)
        assert answer.json()["success"] is True
    finally:
        mock.kill()


def test_retention_keeps_the_newest_runs_and_reports_the_size(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    now = time.time()
    ids = [f"20261122_2100{i:02d}_{i:012x}" for i in range(5)]
    for i, run_id in enumerate(ids):
        for name in (f"config_{run_id}.json", f"aspen_result_export_{run_id}.xlsx"):
            (folder / name).write_bytes(b"x" * 100)
            os.utime(folder / name, (now - 100 + i, now - 100 + i))
    (folder / "README.txt").write_bytes(b"y" * 10)  # not a run's file: counted, never deleted
    os.utime(folder / "README.txt", (now - 1000, now - 1000))
    stats = Retention(folder, max_runs=3).sweep(force=True)
    names = {p.name for p in folder.iterdir()}
    expected = {f"config_{i}.json" for i in ids[2:]} | {f"aspen_result_export_{i}.xlsx" for i in ids[2:]}
    assert names == expected | {"README.txt"}
    assert (stats.runs, stats.bytes, stats.deleted_runs) == (3, 610, 2)
    # An age limit deletes the old runs whatever the count.
    for name in (f"config_{ids[4]}.json", f"aspen_result_export_{ids[4]}.xlsx"):
        os.utime(folder / name, (now, now))
    Retention(folder, max_runs=0, max_age_s=50).sweep(force=True)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["README.txt", f"config_{ids[4]}.json", f"aspen_result_export_{ids[4]}.xlsx"]
    )


def test_stored_input_is_capped(tmp_path: Path) -> None:
    big = tmp_path / "x_input.json"
    big.write_text('{"notes": "' + "y" * 100_000 + '"}')
    assert cap_stored_file(big, 4096)
    assert big.stat().st_size <= 4096
    note = json.loads(big.read_text())
    assert note["truncated"] is True and note["original_bytes"] > 100_000
    assert not cap_stored_file(big, 4096)  # small files are left alone


async def test_service_applies_retention_and_reports_the_folder_in_health(tmp_path: Path) -> None:
    transport = in_process(tmp_path, max_runs_kept=2, max_stored_input_bytes=2048)
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        # A body padded to 50 kB (valid JSON): simulated from the full body, its stored copy capped.
        body = json.dumps(heater()) + " " * 50_000
        for _ in range(3):
            response = await http.post(
                "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
            )
            answer = response.json()
            assert answer["success"] is True, answer
            for key in ("config_file_path", "aspen_file_path"):
                path = answer.get(key)
                if isinstance(path, str) and path.endswith(".json"):
                    assert Path(path).stat().st_size <= 2048
        transport.app.state.service.retention.sweep(force=True)  # sweeps are throttled (5 s)
        health = (await http.get("/health")).json()
    assert health["results_dir_runs"] <= 2
    on_disk = sum(p.stat().st_size for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert health["results_dir_bytes"] == on_disk


async def test_token_is_required_when_configured(tmp_path: Path) -> None:
    transport = in_process(tmp_path, token="s3cret")
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        assert (await http.get("/health")).status_code == 200  # the liveness probe stays open
        refused = await http.get("/api/schema/list")
        assert refused.status_code == 401 and TOKEN_HEADER in refused.json()["error"]
        wrong = await http.get("/api/schema/list", headers={TOKEN_HEADER: "guess"})
        assert wrong.status_code == 401
        assert (await http.get("/api/schema/list", headers={TOKEN_HEADER: "s3cret"})).status_code == 200
    async with SimulatorClient("http://mock", transport=transport, token="s3cret") as client:
        assert await client.list_schemas()


async def test_no_token_by_default(tmp_path: Path) -> None:
    async with httpx.AsyncClient(transport=in_process(tmp_path), base_url="http://mock") as http:
        assert (await http.get("/api/schema/list")).status_code == 200


def test_token_from_aspen_rl_settings_reaches_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from aspen_rl.settings import load_settings

    monkeypatch.setenv("ASPEN_SIMULATOR_TOKEN", "s3cret")
    settings = load_settings(env_file=None)
    assert "s3cret" not in repr(settings) and "s3cret" not in str(settings.redacted())
    client = SimulatorClient.from_settings(settings)
    assert client._http.headers[TOKEN_HEADER] == "s3cret"


def test_non_loopback_bind_warns() -> None:
    assert bind_warning("127.0.0.1", token_set=False) is None
    assert bind_warning("localhost", token_set=False) is None
    open_warning = bind_warning("0.0.0.0", token_set=False)
    assert open_warning and "WITHOUT authentication" in open_warning
    assert TOKEN_HEADER in (bind_warning("0.0.0.0", token_set=True) or "")


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_an_empty_token_is_refused_at_start_up(
    blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from simulator_mock.service.cli import parse_args

    monkeypatch.setenv("SIMULATOR_MOCK_TOKEN", blank)
    with pytest.raises(SystemExit) as info:
        parse_args(["--host", "0.0.0.0"])
    assert info.value.code == 2
    assert "error:" in capsys.readouterr().err
    monkeypatch.delenv("SIMULATOR_MOCK_TOKEN")
    token_file = tmp_path / "token"
    token_file.write_text(blank, encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        parse_args(["--host", "0.0.0.0", "--token-file", str(token_file)])
    assert info.value.code == 2
    assert str(token_file) in capsys.readouterr().err
    with pytest.raises(ValueError, match="token"):  # embedding the app: refused as well
        Settings(token=blank)


def test_a_live_mock_with_an_empty_token_never_serves(tmp_path: Path) -> None:
    env = {**repo_env(), "SIMULATOR_MOCK_TOKEN": ""}
    mock = LiveMock(tmp_path, "--host", "0.0.0.0", env=env)
    try:
        assert mock.proc.wait(timeout=60) == 2
    finally:
        mock.stop()
    assert "error:" in mock.log.read_text()


def _results_on_disk(folder: Path) -> tuple[int, int]:
    """(runs with a stored config, bytes) of a results folder."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(1 for p in files if p.name.startswith("config_")), sum(p.stat().st_size for p in files)


async def test_a_body_that_fails_before_simulating_is_still_counted_and_capped(tmp_path: Path) -> None:
    """A lone surrogate in ``setup.title`` used to fail with InternalError after the config was stored, so
    its copy was neither capped nor counted: ``max_runs_kept`` never pruned it."""
    transport = in_process(tmp_path, max_runs_kept=3, max_stored_input_bytes=2048)
    config = heater()
    config["setup"] = {"title": "MARK"}
    body = json.dumps(config).replace('"MARK"', '"\\ud800"') + " " * 200_000
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        for _ in range(8):
            response = await http.post(
                "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
            )
            answer = response.json()
            assert (response.status_code, answer["error_code"]) == (201, "MalformedJSON"), answer
            assert answer["error_message"].startswith("MalformedJSON: setup.title: ")  # the policy's fault
    runs, size = _results_on_disk(tmp_path / "results")
    assert runs == 3 and size < 3 * 2048 + 8192


async def test_any_failure_after_files_were_written_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import simulator_mock.service.worker as worker

    def broken_workbook(*args: object, **kwargs: object) -> Path:
        raise RuntimeError("disk trouble")

    monkeypatch.setattr(worker, "write_workbook", broken_workbook)
    transport = in_process(tmp_path, max_runs_kept=2)
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        for _ in range(4):
            answer = (await http.post("/run-aspen-simulation", json=heater())).json()
            assert answer["error_code"] == "InternalError" and "config_file_path" in answer
    runs, _ = _results_on_disk(tmp_path / "results")
    assert runs == 2


def test_a_stalled_upload_is_answered_408(tmp_path: Path) -> None:
    import socket

    from _support import mock_app, serve_in_thread

    app = mock_app(tmp_path / "results", body_timeout_s=0.5)
    with serve_in_thread(app) as port, socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        head = (
            "POST /run-aspen-simulation HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n"
        )
        sock.sendall(head.encode() + b'{"blocks": [')  # and then nothing more
        reply = sock.recv(4096).decode()
    assert reply.startswith("HTTP/1.1 408"), reply[:200]


async def test_a_workbook_read_past_its_limit_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The read is made slow (1 s before the real read) rather than the limit tiny: with a 1 ms limit a
    # fast, idle machine sometimes finished the read before the event loop saw the deadline (CI, 2026-11-29).
    import simulator_mock.service.state as state

    real_read = state.read_result_file

    def slow_read(*args: str) -> bytes:
        time.sleep(1.0)
        return real_read(*args)

    monkeypatch.setattr(state, "read_result_file", slow_read)
    transport = in_process(tmp_path, workbook_read_timeout_s=0.05)
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as http:
        run = (await http.post("/run-aspen-simulation", json=heater())).json()
        response = await http.get("/get-aspen-result", params={"file_path": run["result_file_path"]})
    assert response.status_code == 422
    assert "within 0.05 s" in response.json()["error"]


def test_a_job_that_ends_after_its_loop_closed_is_dropped_quietly() -> None:
    """A thread job abandoned past its limit can end after the service's loop is gone; handing its worker
    back then raised from the worker thread ("Event loop is closed")."""
    import asyncio
    from concurrent.futures import Future, ThreadPoolExecutor

    from simulator_mock.service.engine_pool import EnginePool

    pool = EnginePool(1, lambda: ThreadPoolExecutor(1), lambda: None)
    loop = asyncio.new_event_loop()
    loop.close()
    ended: Future[bytes] = Future()
    ended.set_result(b"{}")
    told: list[bool] = []
    pool._tell_loop(loop, 0, pool.workers[0], ended, lambda: told.append(True))
    assert told == []  # nothing to hand back to, and nothing raised
    pool.workers[0].shutdown()


async def test_closing_the_in_process_client_ends_its_engine_thread(tmp_path: Path) -> None:
    # An ASGI transport sends no lifespan events, so nothing else stops the service it embeds: its engine
    # thread (a warmed engine) outlived every client and, busy, held the interpreter's exit.
    before = set(threading.enumerate())
    async with in_process_client(tmp_path) as client:
        answer = await client.run_simulation(heater())
        assert answer["success"] is True
        (engine,) = [t for t in threading.enumerate() if t not in before and t.name.startswith("engine")]
    engine.join(timeout=30)  # a liveness guard: the thread is told to stop when the client closes
    assert not engine.is_alive()
