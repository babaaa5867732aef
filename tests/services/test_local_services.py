"""Local services of a run: loopback detection and clean shutdown of a service and its workers."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from aspen_rl.subprocesses import is_loopback, mock_simulator


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://localhost:8002", True),
        ("http://127.0.0.1:8002", True),
        ("http://127.3.4.5", True),
        ("http://[::1]:8002", True),
        ("https://aspen-host:8002", False),
        ("http://10.0.0.5:8002", False),
        ("not a url", False),
    ],
)
def test_is_loopback(url: str, expected: bool) -> None:
    assert is_loopback(url) is expected


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
def test_stopping_the_mock_also_ends_its_worker_processes(tmp_path: Path) -> None:
    with mock_simulator(tmp_path / "results") as service:
        root = psutil.Process(service._process.pid)  # type: ignore[union-attr]
        deadline = time.monotonic() + 20
        while not root.children(recursive=True) and time.monotonic() < deadline:
            time.sleep(0.1)  # the engine pool starts in the background
        family = [root, *root.children(recursive=True)]
        assert len(family) >= 2
    _, alive = psutil.wait_procs(family, timeout=10)
    assert alive == [], [p.pid for p in alive]
