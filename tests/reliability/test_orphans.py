"""Whatever kills a process (SIGKILL, the OOM killer), the processes it started die with it: no orphan keeps
running. Checked by killing the trainer and the mock with SIGKILL and scanning for survivors."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import psutil
import pytest
from _support import LiveMock, alive, descendants, processes_mentioning, repo_env

pytestmark = pytest.mark.slow
SURVIVAL_S = 15.0
"""How long the orphans get to notice their parent is gone (the watch polls every 0.5 s)."""


def _kill_all(processes: list[psutil.Process]) -> None:
    for process in processes:
        with suppress(psutil.Error):
            process.kill()


def test_sigkill_of_the_trainer_leaves_nothing_running(tmp_path: Path) -> None:
    output_dir = tmp_path / "run"
    env = repo_env()  # no simulator named: the run starts its own mock
    cmd = [sys.executable, "-m", "aspen_rl.train", "--mode", "dev", "--n-runners", "2", "--seed", "0"]
    cmd += ["--limit", "4", "--repeats", "10", "--output-dir", str(output_dir)]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    tree: list[psutil.Process] = []
    try:
        rollouts = output_dir / "rollouts.jsonl"
        deadline = time.monotonic() + 180
        while not (rollouts.is_file() and len(rollouts.read_text().splitlines()) >= 2):
            assert proc.poll() is None, proc.stderr.read().decode()[-3000:] if proc.stderr else ""
            assert time.monotonic() < deadline, "no rollout finished in time"
            time.sleep(0.1)
        tree = descendants(proc.pid)
        commands = " ".join(" ".join(p.cmdline()) for p in tree)
        # the mock, its engine workers, the scripted policy and the runners are all there
        assert "simulator_mock" in commands and "spawn_main" in commands and "aspen_rl.policy" in commands
        assert len(tree) >= 6
        proc.kill()  # SIGKILL: no handler runs, nothing is cleaned up by the trainer itself
        proc.wait(timeout=10)
        survivors = alive(tree, within_s=SURVIVAL_S)
        assert survivors == [], [" ".join(p.cmdline())[:200] for p in survivors]
        assert processes_mentioning(str(tmp_path)) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill_all(tree)


def test_sigkill_of_the_mock_takes_its_workers_along(tmp_path: Path) -> None:
    mock = LiveMock(tmp_path, "--workers", "2")
    workers: list[psutil.Process] = []
    try:
        mock.wait_healthy(warm=True)
        workers = descendants(mock.proc.pid)
        assert len([p for p in workers if "spawn_main" in " ".join(p.cmdline())]) == 2
        mock.proc.kill()
        mock.proc.wait(timeout=10)
        survivors = alive(workers, within_s=SURVIVAL_S)  # engine workers and the resource tracker
        assert survivors == [], [" ".join(p.cmdline())[:200] for p in survivors]
    finally:
        mock.kill()
        _kill_all(workers)


def test_a_service_told_its_parent_stops_when_that_parent_is_killed(tmp_path: Path) -> None:
    """``--parent-pid``: a mock started by a program for its own use stops (and stops its workers) when the
    program dies; without it, the service outlives whoever started it (a user's daemon)."""
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    mock = LiveMock(tmp_path, "--workers", "1", "--parent-pid", str(parent.pid))
    tree: list[psutil.Process] = []
    try:
        mock.wait_healthy(warm=True)
        tree = [psutil.Process(mock.proc.pid), *descendants(mock.proc.pid)]
        parent.kill()
        parent.wait(timeout=10)
        assert mock.proc.wait(timeout=SURVIVAL_S) == 128 + signal.SIGTERM  # an orderly shutdown
        assert alive(tree, within_s=5.0) == []
    finally:
        if parent.poll() is None:
            parent.kill()
        mock.kill()
        _kill_all(tree)


def test_an_already_dead_parent_is_noticed_at_once() -> None:
    """The race: the parent died before the child armed its watch."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)  # gone and reaped
    code = (
        "import signal, time\n"
        "from simulator_mock.service.parent_watch import die_with_parent\n"
        f"die_with_parent(signal.SIGTERM, parent_pid={dead.pid})\n"
        "time.sleep(30)\n"
    )
    child = subprocess.run([sys.executable, "-c", code], env=repo_env(), timeout=30, check=False)
    assert child.returncode == -signal.SIGTERM
