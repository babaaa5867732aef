"""Running ``python -m aspen_rl.train`` as a user would, offline, in a scratch directory."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _support.env import repo_env
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import load_records


def offline_env() -> dict[str, str]:
    """The environment of a fresh machine: no model endpoint, no key, no simulator named (the run starts
    its own mock)."""
    return repo_env()


class Run:
    """A finished CLI run and its output directory."""

    def __init__(self, proc: subprocess.CompletedProcess[str], output_dir: Path) -> None:
        self.proc = proc
        self.output_dir = output_dir

    @property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.output_dir / "summary.json").read_text(encoding="utf-8"))

    @property
    def records(self) -> list[RolloutRecord]:
        return load_records(self.output_dir / "rollouts.jsonl")


def run_cli_in(workdir: Path, *args: str, timeout: float = 240, env: dict[str, str] | None = None) -> Run:
    """Run the CLI in ``workdir`` (so no repo .env or config leaks in); asserts a zero exit code."""
    output_dir = workdir / "run"
    cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(output_dir), *args]
    proc = subprocess.run(
        cmd, cwd=workdir, env=env or offline_env(), capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nSTDOUT:\n{proc.stdout}\nSTDERR:\n{proc.stderr[-4000:]}"
    )
    return Run(proc, output_dir)


def wait_for_rollouts(proc: subprocess.Popen[str], output_dir: Path, count: int, timeout_s: float) -> None:
    """Return once the run writing ``output_dir`` has recorded ``count`` rollouts, has ended, or
    ``timeout_s`` has passed (the caller then stops a service mid-run)."""
    rollouts = output_dir / "rollouts.jsonl"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if rollouts.is_file() and rollouts.read_bytes().count(b"\n") >= count:
            return
        time.sleep(0.05)
