"""Local services a run may need: the mock simulator and the offline scripted policy, as subprocesses."""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

import httpx

logger = logging.getLogger(__name__)


class ServiceError(RuntimeError):
    """A local service could not be started."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free on ``host`` a moment ago."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_healthy(url: str, timeout_s: float = 1.0, verify: bool = True) -> bool:
    """Whether ``GET url`` answers 200 within ``timeout_s``."""
    try:
        return httpx.get(url, timeout=timeout_s, verify=verify).status_code == 200
    except httpx.HTTPError:
        return False


class LocalService(AbstractContextManager["LocalService"]):
    """A child process serving HTTP on a loopback port, stopped on exit.

    Args:
        name: Name used in logs and errors.
        argv: Command line (``sys.executable -m ...``), the port given by ``{port}``.
        health_path: Path polled until it answers 200.
        log_path: File receiving the child's stdout and stderr.
        startup_timeout_s: How long to wait for the health check.
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        health_path: str = "/health",
        log_path: Path | None = None,
        startup_timeout_s: float = 30.0,
    ) -> None:
        self.name = name
        self.port = free_port()
        self.argv = [part.format(port=self.port) for part in argv]
        self.health_path = health_path
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL of the service."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LocalService:
        """Start the process and wait until it is healthy.

        Raises:
            ServiceError: if it exits or stays unhealthy past the start-up timeout.
        """
        log = self.log_path.open("ab") if self.log_path else subprocess.DEVNULL
        try:
            # Its own process group, so stop() also ends the worker processes it spawns.
            self._process = subprocess.Popen(
                self.argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            if not isinstance(log, int):  # a file, not subprocess.DEVNULL
                log.close()  # the child holds its own descriptor
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ServiceError(
                    f"{self.name} exited with code {self._process.returncode} during start-up"
                    + (f"; see {self.log_path}" if self.log_path else "")
                )
            if is_healthy(self.url + self.health_path, timeout_s=0.5):
                logger.info("%s ready at %s (pid %d)", self.name, self.url, self._process.pid)
                return self
            time.sleep(0.1)
        self.stop()
        raise ServiceError(
            f"{self.name} did not answer {self.health_path} within {self.startup_timeout_s:g} s"
        )

    def stop(self) -> None:
        """Terminate the process and its process group (SIGTERM, then SIGKILL after 5 s)."""
        if self._process is None:
            return
        started = time.monotonic()
        group = self._process.pid  # start_new_session: the group id is the child's pid
        _signal_group(group, signal.SIGTERM)
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            logger.warning("%s did not stop within 5 s of SIGTERM; killing it", self.name)
            self._process.kill()
            self._process.wait(timeout=5)
        _signal_group(group, signal.SIGKILL)  # workers that outlived their parent
        logger.info(
            "%s stopped (exit %s) in %.1f s", self.name, self._process.returncode, time.monotonic() - started
        )
        self._process = None

    def __enter__(self) -> LocalService:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _signal_group(group: int, sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):  # the group is already gone
        os.killpg(group, sig)


MOCK_MARGIN_S = 10.0
"""How much longer than the mock's run budget + queue wait the client waits for an answer."""


def mock_bounds(client_timeout_s: float) -> tuple[float, float]:
    """The mock's (run budget, queue wait) for a client that waits ``client_timeout_s`` per request.

    The mock's defaults (30 s, 20 s) when they fit (client timeout >= 60 s); otherwise both shrink so
    that budget + queue wait + margin stays below the client's timeout: a slow config is then answered
    as the agent's Timeout failure before the client gives up on the service.
    """
    if client_timeout_s >= 30.0 + 20.0 + MOCK_MARGIN_S:
        return 30.0, 20.0
    share = max(0.5, (client_timeout_s - MOCK_MARGIN_S) / 2)
    return share, share


def timeout_problem(client_timeout_s: float, health: dict[str, object]) -> str | None:
    """Why a simulator's reported bounds (``/health``) do not fit the client's timeout, if they do not."""
    budget, wait = health.get("run_budget_s"), health.get("queue_wait_s")
    if not isinstance(budget, int | float) or not isinstance(wait, int | float):
        return None  # the real service reports none
    if client_timeout_s > budget + wait + MOCK_MARGIN_S:
        return None
    return (
        f"simulator_timeout_s {client_timeout_s:g} s does not exceed the simulator's run budget {budget:g} s "
        f"+ queue wait {wait:g} s + {MOCK_MARGIN_S:g} s: a slow config would end its rollout as an "
        "infrastructure error instead of the agent's scored failure"
    )


def mock_simulator(
    results_dir: Path, log_path: Path | None = None, *, client_timeout_s: float = 90.0
) -> LocalService:
    """The mock Aspen service (``python -m simulator_mock``) on a free loopback port, its run budget and
    queue wait fitted under ``client_timeout_s`` (see :func:`mock_bounds`)."""
    budget, wait = mock_bounds(client_timeout_s)
    argv = [sys.executable, "-m", "simulator_mock", "--host", "127.0.0.1", "--port", "{port}"]
    argv += ["--results-dir", str(results_dir), "--timeout", f"{budget:g}", "--queue-wait", f"{wait:g}"]
    argv += ["--parent-pid", str(os.getpid())]  # it stops when the run does, whatever ends the run
    if log_path is not None:  # its own start-up and request lines go to the log file
        argv += ["--log-level", "info"]
    return LocalService("mock simulator", argv, log_path=log_path)


def scripted_policy(
    task_files: Sequence[Path],
    *,
    error_rate: float,
    seed: int,
    latency_ms: float = 0.0,
    log_path: Path | None = None,
) -> LocalService:
    """The offline scripted policy (a stand-in, not a model) behind a local OpenAI-compatible endpoint."""
    argv = [sys.executable, "-m", "aspen_rl.policy", "--host", "127.0.0.1", "--port", "{port}"]
    argv += ["--error-rate", str(error_rate), "--seed", str(seed), "--latency-ms", str(latency_ms)]
    argv += ["--tasks", *map(str, task_files), "--parent-pid", str(os.getpid())]
    if log_path is not None:
        argv += ["--log-level", "info"]
    return LocalService("offline scripted policy", argv, log_path=log_path)
