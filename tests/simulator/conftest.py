"""Fixtures for the simulator tests: the real service on a free port, an in-process client, closure checks."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sim_helpers import LiveService

from simulator_mock.app import create_app
from simulator_mock.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def live_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service started with its CLI (uvicorn) on a free loopback port, one engine worker."""
    results_dir = tmp_path_factory.mktemp("live_results")
    port = free_port()
    log = (results_dir.parent / "service.log").open("wb")
    argv = [sys.executable, "-m", "simulator_mock", "--port", str(port), "--results-dir", str(results_dir)]
    argv += ["--workers", "1", "--log-level", "warning"]
    process = subprocess.Popen(
        argv,
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"simulator service did not start; see {log.name}")
        time.sleep(0.1)
    try:
        yield LiveService(url, results_dir, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def http(live_service: LiveService) -> Iterator[httpx.Client]:
    """An httpx client on the live service."""
    with httpx.Client(base_url=live_service.url, timeout=60.0) as client:
        yield client


@pytest.fixture(scope="session")
def inproc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app in this process (simulations in one thread), through Starlette's TestClient."""
    settings = Settings(workers=0, results_dir=tmp_path_factory.mktemp("inproc_results"))
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client
