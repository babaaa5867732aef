"""A crashed engine worker is replaced; only the run it was computing fails; /health tells the truth."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from _support import LiveMock, descendants
from _support.sim import slow_recycle

from simulator_mock.examples import heater

pytestmark = pytest.mark.slow


def _workers(mock: LiveMock) -> list[psutil.Process]:
    return [
        p
        for p in descendants(mock.proc.pid)
        if "spawn_main" in " ".join(p.cmdline()) and "resource_tracker" not in " ".join(p.cmdline())
    ]


def test_worker_killed_with_three_runs_in_flight_fails_only_its_run(tmp_path: Path) -> None:
    mock = LiveMock(tmp_path, "--workers", "2", "--timeout", "4", "--queue-wait", "30")
    try:
        mock.wait_healthy(warm=True)
        answers: list[dict[str, Any]] = []

        def post() -> None:
            reply = httpx.post(mock.url + "/run-aspen-simulation", json=slow_recycle(), timeout=60)
            answers.append(reply.json())

        threads = [threading.Thread(target=post) for _ in range(3)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while httpx.get(mock.url + "/health", timeout=2).json()["in_flight"] < 3:
            assert time.monotonic() < deadline, "the runs never got in flight"
            time.sleep(0.05)
        time.sleep(0.5)  # two runs computing, one waiting for a worker
        victim = _workers(mock)[0]
        victim.kill()
        for thread in threads:
            thread.join(60)
        codes = sorted(str(a.get("error_code")) for a in answers)
        assert codes == ["InternalError", "Timeout", "Timeout"], answers  # the others ran to their budget
        health = httpx.get(mock.url + "/health", timeout=2).json()
        assert (health["workers"], health["worker_restarts"]) == (2, 1)
        assert len(_workers(mock)) == 2 and victim.pid not in {p.pid for p in _workers(mock)}
        ok = httpx.post(mock.url + "/run-aspen-simulation", json=heater(), timeout=60).json()
        assert ok["success"] is True  # the replacement computes
        assert httpx.get(mock.url + "/health", timeout=2).json()["workers"] == 2
    finally:
        mock.kill()
