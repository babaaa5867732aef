"""The standalone mock stops its engine workers and resource tracker on SIGTERM and SIGINT."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import suppress
from pathlib import Path

import httpx
import pytest
from _support import LiveMock, alive, descendants
from _support.sim import slow_recycle

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_stops_the_mock_and_every_worker_even_mid_run(tmp_path: Path, signum: int, code: int) -> None:
    mock = LiveMock(tmp_path, "--workers", "2", "--timeout", "60")
    try:
        mock.wait_healthy(warm=True)
        # A slow run occupies a worker when the signal arrives (the case that used to orphan workers).
        threading.Thread(target=_post_quietly, args=(mock.url, slow_recycle()), daemon=True).start()
        deadline = time.monotonic() + 10
        while httpx.get(mock.url + "/health", timeout=2).json()["in_flight"] < 1:
            assert time.monotonic() < deadline, "the slow run never started"
            time.sleep(0.05)
        tree = descendants(mock.proc.pid)
        names = " ".join(" ".join(p.cmdline()) for p in tree)
        assert "spawn_main" in names and "resource_tracker" in names, names  # workers + tracker exist
        mock.proc.send_signal(signum)
        assert mock.proc.wait(timeout=60) == code  # a guard against a hang, not a timing goal
        assert alive(tree, within_s=3.0) == [], "processes left behind by the mock"
    finally:
        mock.kill()


def _post_quietly(url: str, config: dict) -> None:
    with suppress(httpx.HTTPError):
        httpx.post(url + "/run-aspen-simulation", json=config, timeout=30)
