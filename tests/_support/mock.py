"""The simulator mock for tests, started one way per kind: in this process (an httpx transport or a
Starlette ``TestClient`` over the ASGI app, or uvicorn in a thread on a free port), or as the live service
``python -m simulator_mock`` on a free port, as a user starts it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import psutil
import uvicorn
from fastapi.testclient import TestClient

from _support.env import repo_env
from _support.ports import free_port
from _support.processes import descendants
from simulator_mock.service.app import create_app
from simulator_mock.service.settings import Settings as MockSettings


def mock_app(results_dir: Path, **settings: Any) -> Any:
    """The simulator mock app with results in ``results_dir``; one engine thread unless ``workers`` given."""
    return create_app(MockSettings(**{"workers": 0, "results_dir": results_dir, **settings}))


def in_process_transport(results_dir: Path, **settings: Any) -> httpx.ASGITransport:
    """An httpx transport into a fresh mock app in this process (no lifespan: simulations in a thread)."""
    return httpx.ASGITransport(app=mock_app(results_dir, **settings))


def in_process_client(results_dir: Path, **settings: Any) -> TestClient:
    """A synchronous client (httpx with Starlette's in-process transport) on a fresh mock app; use it as a
    context manager so the app's lifespan (its engine) starts and stops with it."""
    return TestClient(mock_app(results_dir, **settings), raise_server_exceptions=False)


@contextmanager
def serve_in_thread(app: Any, **config: Any) -> Iterator[int]:
    """Serve an ASGI app with uvicorn in a background thread on a free loopback port; yields the port."""
    import socket

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


class LiveMock:
    """``python -m simulator_mock`` on a free port, in its own session (as a user's shell would start it).

    Args:
        tmp: Scratch folder: results go to ``tmp/results``, the log to ``tmp/mock.log``.
        *args: Extra CLI arguments (``--workers``, ``--timeout``...).
        env: The child's environment (default: :func:`repo_env`).
    """

    def __init__(self, tmp: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.tls = "--ssl-certfile" in args  # HTTPS: checked here without verification (a test certificate)
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self.results = tmp / "results"
        self.log = tmp / "mock.log"
        argv = [sys.executable, "-m", "simulator_mock", "--port", str(self.port)]
        argv += ["--results-dir", str(self.results), *args]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                argv,
                cwd=tmp,
                env=env or repo_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_healthy(self, timeout_s: float = 60.0, *, warm: bool = False) -> dict[str, Any]:
        """The ``/health`` body once it answers 200 (and, with ``warm``, reports its workers warm)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                r = httpx.get(self.url + "/health", timeout=1.0, verify=not self.tls)
                if r.status_code == 200 and (not warm or r.json().get("warm")):
                    return dict(r.json())
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"mock not healthy after {timeout_s} s: {self.log.read_text()[-2000:]}")

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the service to stop (SIGTERM); kill it and its workers if it does not within ``timeout_s``."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
                self.proc.wait(timeout=timeout_s)

    def kill(self) -> None:
        """Clean-up after a failed test: the mock and everything under it."""
        tree = descendants(self.proc.pid)
        if self.proc.poll() is None:
            tree.append(psutil.Process(self.proc.pid))
        for process in tree:
            with suppress(psutil.Error):
                process.kill()
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)  # reaped: no zombie left to the suite

    def __enter__(self) -> LiveMock:
        self.wait_healthy()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
