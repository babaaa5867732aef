"""Baseline with ``--model PATH``: a local model served on a loopback endpoint for the run, checked first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _support import offline_env

from aspen_rl.llm.tiny_bytes import save_tiny_chat_model


def test_a_missing_model_path_is_refused_before_any_service_starts(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "aspen_rl.train", "--mode", "dev", "--model", str(tmp_path / "nope")],
        cwd=tmp_path,
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "no such file or directory" in proc.stderr + proc.stdout
    assert "started the mock" not in proc.stdout  # nothing was started


@pytest.mark.slow
def test_baseline_runs_a_local_checkpoint_through_its_own_endpoint(run_cli, tmp_path: Path) -> None:
    model_dir = save_tiny_chat_model(tmp_path / "tiny")
    run = run_cli("--mode", "dev", "--n-runners", "1", "--limit", "2", "--model", str(model_dir))
    policy = run.summary["policy"]
    assert policy.startswith(f"local model {model_dir} served at http://127.0.0.1:"), policy
    assert "Rollouts driven by" in run.proc.stdout + run.proc.stderr
    assert len(run.records) == 2
    # An untrained tiny model writes no valid config: the rollouts are scored (low), not lost.
    assert all(r.status in ("ok", "error") for r in run.records)
    assert all(0.0 <= r.reward.total < 0.5 for r in run.records)
