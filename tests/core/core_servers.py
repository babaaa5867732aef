"""Test servers for the core tests: an ASGI app under uvicorn on a free loopback port, the mock app."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from simulator_mock.app import create_app
from simulator_mock.settings import Settings as MockSettings


@contextmanager
def serve(app: Any, **config: Any) -> Iterator[int]:
    """Serve an ASGI app with uvicorn in a background thread on a free loopback port; yields the port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, **{"log_level": "warning", "lifespan": "on", **config}))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("test server did not start")
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def mock_app(results_dir: Path) -> Any:
    """The simulator mock app with one engine thread and results in ``results_dir``."""
    return create_app(MockSettings(workers=0, results_dir=results_dir))
