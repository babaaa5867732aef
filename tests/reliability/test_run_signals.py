"""A training run stopped by SIGTERM (``kill``) or SIGINT (Ctrl-C) leaves no process behind, writes its
partial summary marked interrupted and exits 143 / 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _support import alive, descendants, processes_mentioning, repo_env

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("signum", "to_group", "code"),
    [
        (signal.SIGTERM, False, 143),  # kill <pid>: only the main process gets it
        (signal.SIGINT, True, 130),  # Ctrl-C in a terminal: the whole foreground process group gets it
    ],
    ids=["sigterm", "ctrl-c"],
)
def test_signal_stops_every_process_of_the_run(
    tmp_path: Path, signum: int, to_group: bool, code: int
) -> None:
    output_dir = tmp_path / "run"
    env = repo_env()  # no simulator named: the run starts its own mock
    cmd = [sys.executable, "-m", "aspen_rl.train", "--mode", "dev", "--n-runners", "2", "--seed", "0"]
    cmd += ["--limit", "4", "--repeats", "10", "--output-dir", str(output_dir)]
    proc = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job
    )
    try:
        rollouts = output_dir / "rollouts.jsonl"
        deadline = time.monotonic() + 180
        while not (rollouts.is_file() and len(rollouts.read_text().splitlines()) >= 2):
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no rollout finished in time"
            time.sleep(0.1)
        tree = descendants(proc.pid)
        commands = " ".join(" ".join(p.cmdline()) for p in tree)
        # the mock, its engine workers, the scripted policy and the runners are all there
        assert "simulator_mock" in commands and "spawn_main" in commands and "aspen_rl.policy" in commands

        if to_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=120)  # a guard against a hang, not a timing goal
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, stderr[-3000:]
    assert alive(tree, within_s=3.0) == [], "processes of the run outlived it"
    assert processes_mentioning(str(tmp_path)) == []

    summary = json.loads((output_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["interrupted"] is True
    assert summary["signal"] == signal.Signals(signum).name
    recorded = len((output_dir / "rollouts.jsonl").read_text().splitlines())
    assert summary["rollouts"] == recorded >= 2
    assert summary["requested_splits"] == ["train"]
    assert summary["incomplete_splits"] == {"train": {"expected": 40, "recorded": recorded}}
    assert summary["completed_splits"] == [] and summary["missing_splits"] == []
    assert "interrupted" in stderr and str(code) in stderr
    log = (output_dir / "training.log").read_text()
    assert "Traceback" not in log, log[-4000:]
