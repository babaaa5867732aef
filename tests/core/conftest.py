"""Fixtures for the core tests: the real simulator mock served by uvicorn on a free loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from simulator_mock.app import create_app
from simulator_mock.settings import Settings as MockSettings


@pytest.fixture(scope="session")
def mock_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the simulator mock running in a background thread (one engine thread, results in tmp)."""
    results_dir: Path = tmp_path_factory.mktemp("core_mock_results")
    app = create_app(MockSettings(workers=0, results_dir=results_dir))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("simulator mock did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
