"""Helpers of the reliability tests: start the mock as a user would, find what a process left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

import httpx
import psutil

from aspen_rl.services import free_port

REPO = Path(__file__).resolve().parents[2]


def repo_env(**extra: str) -> dict[str, str]:
    """This environment with the repository on PYTHONPATH and no simulator/model settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "ASPEN_", "SIMULATOR_MOCK_"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


class Mock:
    """``python -m simulator_mock`` on a free port (its own session, as a user's shell would)."""

    def __init__(self, tmp: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
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

    def wait_healthy(self, timeout_s: float = 60.0, *, warm: bool = False) -> dict:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                r = httpx.get(self.url + "/health", timeout=1.0)
                if r.status_code == 200 and (not warm or r.json().get("warm")):
                    return r.json()
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"mock not healthy after {timeout_s} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """Clean-up after a failed test: the mock and everything under it."""
        tree = descendants(self.proc.pid)
        if self.proc.poll() is None:
            tree.append(psutil.Process(self.proc.pid))
        for process in tree:
            with suppress(psutil.Error):
                process.kill()


def descendants(pid: int) -> list[psutil.Process]:
    """Every live descendant of ``pid`` (empty when it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def alive(processes: Sequence[psutil.Process], within_s: float = 0.0) -> list[psutil.Process]:
    """Those of ``processes`` still running (zombies count as gone) after waiting up to ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        left = []
        for p in processes:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    left.append(p)
            except psutil.NoSuchProcess:
                pass
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def processes_mentioning(text: str) -> list[psutil.Process]:
    """Live processes whose command line contains ``text`` (e.g. a run's scratch folder)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        with suppress(psutil.Error):
            if any(text in part for part in process.info["cmdline"] or []) and _live(process):
                found.append(process)
    return found


def _live(process: psutil.Process) -> bool:
    with suppress(psutil.Error):
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    return False


def slow_recycle() -> dict:
    """A schema-valid config that keeps the engine busy for seconds (about 10 s on a quiet core): 99.5 % of
    the stream recycled and solved by direct substitution to the tightest tolerance the schema allows
    (1e-10) within the largest iteration cap it allows (1000). The schema's bounds refuse the worse cases
    (a 1e-300 tolerance); the run budget bounds this one."""
    from simulator_mock.examples import recycle

    config = recycle("DIRECT")
    config["blocks_FSplit_data"]["S1"]["SPEC_DATA"]["FRAC"]["RCY-1"]["FRAC_VALUE"] = 0.995
    config["convergence"]["conv_options"].update(tol=1e-10, dir_maxit=1000, weg_maxit=1000)
    for tear in config["convergence"]["tear_data"]:
        tear["tear_stream_tol"] = 1e-10
    return config
